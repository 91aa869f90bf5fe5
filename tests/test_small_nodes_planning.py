"""Planning UNION [ALL], VALUES, LIMIT and ORDER BY ... LIMIT as Flink plans them: the node,
its types (Calcite's leastRestrictive, literal types), its changelog, and what is refused."""
from __future__ import annotations

import json

import pytest

from streamplan.changelog import RowKind
from streamplan.errors import PlanFormatError, PlanningError, UnsupportedSqlError
from streamplan.plan import parse_plan
from streamplan.planner.planner import check_changelog

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE A (id INT, v STRING, n INT NOT NULL) WITH ('connector' = 'values');
CREATE TABLE B (id BIGINT, v VARCHAR(3), n DECIMAL(5, 2)) WITH ('connector' = 'values');
CREATE TABLE C (k INT, n BIGINT) WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D');
CREATE TABLE Out3 (id BIGINT, v STRING, n DECIMAL(12, 2))
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE Out2 (k INT, n BIGINT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE Ins2 (k INT, n BIGINT) WITH ('connector' = 'values');
"""


def nodes(plan, prefix):
    return [n for n in plan.nodes if n.type.startswith(prefix)]


def test_union_all_types_columns_least_restrictively_and_casts_the_narrower_input(env):
    plan = env.compile_sql("INSERT INTO Out3 SELECT id, v, n FROM A UNION ALL SELECT id, v, n FROM B")
    (union,) = nodes(plan, "stream-exec-union_1")
    assert union.output_type == "ROW<`id` BIGINT, `v` STRING, `n` DECIMAL(12,2)>"
    assert union.description == "Union(all=[true], union=[id, v, n])"
    inputs = plan.inputs_of(union)
    assert inputs[0].type == "stream-exec-calc_1"            # A's INT columns cast
    assert inputs[0].projection == ["CAST(`id` AS BIGINT)", "`v`", "CAST(`n` AS DECIMAL(12,2))"]
    assert inputs[1].type == "stream-exec-calc_1"            # B's DECIMAL(5, 2) widened
    assert check_changelog(plan)[union.id] == frozenset({RowKind.INSERT})


def test_a_chain_of_unions_is_one_union_node_and_passes_updates_through(env):
    plan = env.compile_sql("INSERT INTO Out2 SELECT k, n FROM C UNION ALL SELECT k, n FROM C "
                           "UNION ALL SELECT id, CAST(n AS BIGINT) FROM A")
    (union,) = nodes(plan, "stream-exec-union_1")
    assert len(plan.inputs_of(union)) == 3
    parse_plan(plan.to_json_text())                       # a plan of a 3-input union loads
    assert check_changelog(plan)[union.id] == frozenset(
        {RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE})


def test_union_distinct_is_a_union_under_a_group_aggregate_on_every_column(env):
    plan = env.compile_sql("INSERT INTO Out2 (SELECT k, n FROM C) UNION (SELECT id, n FROM A)")
    (aggregate,) = nodes(plan, "stream-exec-group-aggregate_2")
    assert aggregate.grouping == [0, 1] and aggregate.agg_calls == []
    assert plan.inputs_of(aggregate)[0].type == "stream-exec-union_1"


def test_a_union_of_different_column_counts_is_refused(env):
    with pytest.raises(PlanningError, match="different numbers of columns \\(2, 1\\)"):
        env.compile_sql("INSERT INTO Out2 SELECT k, n FROM C UNION ALL SELECT id FROM A")


def test_a_union_of_types_without_a_common_type_is_refused(env):
    with pytest.raises(PlanningError, match="column 2 of the UNION .* no common type"):
        env.compile_sql("INSERT INTO Out2 SELECT k, n FROM C UNION ALL SELECT id, v FROM A")


def test_values_types_literals_as_calcite_does(env):
    env.execute_sql("CREATE TABLE V (a BIGINT, b DECIMAL(10, 3), c STRING, d BOOLEAN, e DOUBLE) "
                    "WITH ('connector' = 'values')")
    plan = env.compile_sql("INSERT INTO V SELECT * FROM (VALUES (1, 1.5, 'ab', TRUE, 1e3), "
                           "(3000000000, -2.25, 'abcd', NULL, 2)) AS t(a, b, c, d, e)")
    (values,) = nodes(plan, "stream-exec-values_1")
    assert values.output_type == ("ROW<`a` BIGINT NOT NULL, `b` DECIMAL(3,2) NOT NULL, "
                                  "`c` VARCHAR(4) NOT NULL, `d` BOOLEAN, `e` DOUBLE NOT NULL>")
    assert [(lit.value, lit.type) for lit in values.tuples[0]] == [
        (1, "INT NOT NULL"), ("1.5", "DECIMAL(2,1) NOT NULL"), ("ab", "CHAR(2) NOT NULL"),
        (True, "BOOLEAN NOT NULL"), (1000.0, "DOUBLE NOT NULL")]
    assert (values.tuples[1][3].value, values.tuples[1][3].type) == (None, "BOOLEAN")
    assert check_changelog(plan)[values.id] == frozenset({RowKind.INSERT})


def test_values_without_column_names_are_named_as_flink_names_them(env):
    plan = env.compile_sql("INSERT INTO Ins2 SELECT * FROM (VALUES (1, 2))")
    (values,) = nodes(plan, "stream-exec-values_1")
    assert values.row_type.names == ["EXPR$0", "EXPR$1"]
    assert values.description == "Values(tuples=[[{ 1, 2 }]])"


@pytest.mark.parametrize("sql, message", [
    ("INSERT INTO Ins2 SELECT * FROM (VALUES (1, 1 + 1))", "only literals"),
    ("INSERT INTO Ins2 SELECT * FROM (VALUES (1, NULL))", "only NULLs"),
    # a CAST of a literal folds only when it keeps the value exactly
    ("INSERT INTO Ins2 SELECT * FROM (VALUES (1, CAST(1.5 AS BIGINT)))", "keeps its value exactly"),
    ("INSERT INTO Ins2 SELECT * FROM (VALUES (1, CAST(3000000000 AS INT)))", "keeps its value"),
    ("INSERT INTO Ins2 SELECT * FROM (VALUES (1, CAST(n AS BIGINT)))", "only literals"),
    ("INSERT INTO Ins2 SELECT * FROM (VALUES (1, CAST(1 AS DATE)))", "keeps its value exactly"),
])
def test_values_beyond_literals_are_refused_by_name(env, sql, message):
    with pytest.raises(UnsupportedSqlError, match=message):
        env.compile_sql(sql)


def test_a_typed_null_and_an_exact_cast_in_values_are_literals_of_their_type(env):
    plan = env.compile_sql("INSERT INTO Ins2 SELECT * FROM (VALUES (1, CAST(NULL AS BIGINT)), "
                           "(2, CAST(7 AS BIGINT)))")
    (values,) = nodes(plan, "stream-exec-values_1")
    assert values.row_type.text == "ROW<`EXPR$0` INT NOT NULL, `EXPR$1` BIGINT>"
    assert [[(t.value, t.type) for t in row] for row in values.tuples] == [
        [(1, "INT NOT NULL"), (None, "BIGINT")], [(2, "INT NOT NULL"), (7, "BIGINT NOT NULL")]]
    assert values.description == "Values(tuples=[[{ 1, null }, { 2, 7 }]])"


def test_a_tampered_values_literal_is_refused_when_the_plan_loads(env):
    plan = env.compile_sql("INSERT INTO Ins2 SELECT * FROM (VALUES (1, 2))")
    data = plan.to_json()
    parse_plan(json.dumps(data))                           # as compiled, it loads
    data["nodes"][0]["tuples"][0][0]["value"] = "not a number"
    with pytest.raises(PlanFormatError, match="tuples.*value 'not a number' is no INT NOT NULL literal"):
        parse_plan(json.dumps(data))


def test_limit_is_a_rank_without_partition_or_order_and_insert_only(env):
    plan = env.compile_sql("INSERT INTO Ins2 SELECT k, n FROM (SELECT id AS k, CAST(n AS BIGINT) "
                           "AS n FROM A) LIMIT 2 OFFSET 1")
    (limit,) = nodes(plan, "stream-exec-limit_1")
    assert (limit.partition.fields, limit.order_by.fields) == ([], [])
    assert (limit.rank_range.start, limit.rank_range.end) == (2, 3)
    assert limit.rank_strategy.type == "AppendFast"
    assert limit.description == "Limit(offset=[1], fetch=[2])"
    assert check_changelog(plan)[limit.id] == frozenset({RowKind.INSERT})


def test_sort_limit_is_a_global_top_n(env):
    plan = env.compile_sql("INSERT INTO Out2 SELECT k, n FROM C ORDER BY n DESC, 1 LIMIT 3")
    (top,) = nodes(plan, "stream-exec-sort-limit_1")
    assert [(f.index, f.is_ascending, f.null_is_last) for f in top.order_by.fields] == [
        (1, False, True), (0, True, False)]
    assert top.partition.fields == [] and top.rank_strategy.type == "Retract"
    assert top.description == ("SortLimit(orderBy=[n DESC, k], offset=[0], fetch=[3], "
                               "strategy=[RetractStrategy])")


def test_a_sort_column_the_select_list_leaves_out_is_carried_to_the_sort_and_dropped(env):
    """As Calcite plans it: the column under its own name below the sort, a calc above it
    that keeps the selected columns."""
    plan = env.compile_sql("INSERT INTO Out2 SELECT id, n FROM A ORDER BY v DESC, id LIMIT 2")
    below, above, to_sink = nodes(plan, "stream-exec-calc_1")     # the last casts n to BIGINT
    (top,) = nodes(plan, "stream-exec-sort-limit_1")
    assert below.projection == ["`id`", "`n`", "`v`"]
    assert [(f.index, f.is_ascending) for f in top.order_by.fields] == [(2, False), (0, True)]
    assert above.projection == ["`id`", "`n`"]
    assert [e.source for e in plan.edges] == [n.id for n in plan.nodes[:-1]]   # one chain
    # a select-list name wins over a FROM column of the same name, as in SQL
    plan = env.compile_sql("INSERT INTO Out2 SELECT id AS k, id AS n FROM A ORDER BY n LIMIT 2")
    (top,) = nodes(plan, "stream-exec-sort-limit_1")
    assert [f.index for f in top.order_by.fields] == [1]
    assert all(len(calc.projection) == 2 for calc in nodes(plan, "stream-exec-calc_1"))
    # an unnamed expression of the column (sqlglot names CAST(n AS BIGINT) `n`) does not hide
    # it: n itself is carried to the sort (Flink's EXPR$1 is the cast)
    plan = env.compile_sql("INSERT INTO Out2 SELECT id, CAST(n AS BIGINT) FROM A ORDER BY n DESC "
                           "LIMIT 2")
    below = nodes(plan, "stream-exec-calc_1")[0]
    (top,) = nodes(plan, "stream-exec-sort-limit_1")
    assert below.projection == ["`id`", "CAST(`n` AS BIGINT)", "`n`"]
    assert [(f.index, f.is_ascending) for f in top.order_by.fields] == [(2, False)]


@pytest.mark.parametrize("sql, message", [
    ("INSERT INTO Out2 SELECT k, n FROM C ORDER BY n", "ORDER BY without LIMIT"),
    ("INSERT INTO Out2 SELECT k, COUNT(*) FROM C GROUP BY k ORDER BY n LIMIT 2",
     "ORDER BY 'n' \\(only a column of the SELECT"),
    ("INSERT INTO Out2 SELECT k, n FROM C ORDER BY n + 1 LIMIT 2", "only a column of the SELECT"),
    ("INSERT INTO Out2 SELECT k, n FROM C LIMIT 0", "LIMIT 0"),
])
def test_sorts_the_nodes_cannot_run_are_refused_by_name(env, sql, message):
    with pytest.raises(UnsupportedSqlError, match=message):
        env.compile_sql(sql)
