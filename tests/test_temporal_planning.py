"""Planning temporal joins and temporal sorts as Flink plans them: a left key expression
computed in front of the join, WHERE conjuncts taken into an inner join's condition, the
sort over FROM with the SELECT list after it, and what is refused by name."""
from __future__ import annotations

import re

import pytest

from streamplan.errors import ChangelogModeError, PlanningError, UnsupportedSqlError

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE Orders (id INT, k STRING, ot TIMESTAMP(3), pt AS PROCTIME(),
  WATERMARK FOR ot AS ot) WITH ('connector' = 'values');
CREATE TABLE Rates (k STRING, rate INT, rt TIMESTAMP(3), WATERMARK FOR rt AS rt,
  PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'values', 'changelog-mode' = 'I,UA,D');
CREATE TABLE Changes (id INT, k STRING, ot TIMESTAMP(3), WATERMARK FOR ot AS ot,
  PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'values', 'changelog-mode' = 'I,UA,D');
CREATE TABLE Out (id INT, rate INT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE Dim (k STRING, rate INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'values',
  'async' = 'true');
CREATE TABLE NoLookup (k STRING, rate INT) WITH ('connector' = 'values', 'disable-lookup' = 'true');
CREATE TABLE Nested (id INT, r ROW<k STRING>, m MAP<STRING, STRING>, ot TIMESTAMP(3),
  WATERMARK FOR ot AS ot) WITH ('connector' = 'values');
CREATE TABLE Tagged (id INT, k STRING, tags ARRAY<STRING>, ot TIMESTAMP(3), pt AS PROCTIME(),
  WATERMARK FOR ot AS ot) WITH ('connector' = 'values');
"""


def node(plan, prefix):
    (found,) = [n for n in plan.nodes if n.type.startswith(prefix)]
    return found


def test_a_left_key_expression_is_computed_in_front_of_the_join(env):
    plan = env.compile_sql("INSERT INTO Out SELECT o.id, r.rate FROM Orders AS o JOIN Rates FOR "
                           "SYSTEM_TIME AS OF o.ot AS r ON UPPER(o.k) = r.k")
    join = node(plan, "stream-exec-temporal-join_1")
    (left, _) = plan.inputs_of(join)
    assert left.type.startswith("stream-exec-calc") and left.row_type.names[-1] == "$f4"
    assert join.join_spec.left_keys == [4] and join.join_spec.right_keys == [0]
    assert join.left_time_attribute_index == 2 and join.right_time_attribute_index == 2
    # the upsert source's changelog normalize stays (the watermark assigner over it asks for
    # -U rows); the join skips them (core test)
    assert node(plan, "stream-exec-changelog-normalize").generate_update_before


@pytest.mark.parametrize("key", ["n.r.k", "UPPER(n.m['k'])"])
def test_a_key_from_a_composite_column_leaves_the_unused_composite_columns_out(env, key):
    plan = env.compile_sql(f"INSERT INTO Out SELECT id, r.rate FROM Nested AS n JOIN Rates FOR "
                           f"SYSTEM_TIME AS OF n.ot AS r ON {key} = r.k")
    join = node(plan, "stream-exec-temporal-join_1")
    (left, _) = plan.inputs_of(join)
    assert list(left.row_type.names) == ["id", "ot", "$f2"]
    assert join.join_spec.left_keys == [2] and join.left_time_attribute_index == 1


@pytest.mark.parametrize("time, prefix", [("ot", "stream-exec-temporal-join"),
                                          ("pt", "stream-exec-lookup-join")])
def test_a_plain_column_key_also_leaves_the_unused_composite_columns_out(env, time, prefix):
    """One calc in front of the join, its time attributes kept."""
    table = "Rates" if time == "ot" else "Dim"
    plan = env.compile_sql(f"INSERT INTO Out SELECT t.id, r.rate FROM Tagged AS t JOIN {table} "
                           f"FOR SYSTEM_TIME AS OF t.{time} AS r ON t.k = r.k")
    join = node(plan, prefix)
    left = plan.inputs_of(join)[0]
    assert left.type.startswith("stream-exec-calc")
    assert list(left.row_type.names) == ["id", "k", "ot", "pt"]
    assert left.row_type.fields[2].rowtime and left.row_type.fields[3].proctime


@pytest.mark.parametrize("select", ["n.r.k, r.rate", "*"])
def test_a_composite_column_the_query_uses_still_reaches_the_join_and_is_refused(env, select):
    with pytest.raises(UnsupportedSqlError, match="in the input of stream-exec-temporal-join"):
        env.compile_sql(f"INSERT INTO Out SELECT {select} FROM Nested AS n JOIN Rates FOR "
                        f"SYSTEM_TIME AS OF n.ot AS r ON n.m['k'] = r.k")


def test_where_conjuncts_join_an_inner_temporal_join(env):
    plan = env.compile_sql("INSERT INTO Out SELECT o.id, r.rate FROM Orders AS o, Rates FOR "
                           "SYSTEM_TIME AS OF o.ot AS r WHERE o.k = r.k AND o.id < r.rate")
    join = node(plan, "stream-exec-temporal-join_1")
    assert join.join_spec.left_keys == [1] and join.join_spec.non_equi_condition == "`id` < `rate`"


def test_the_temporal_sort_sorts_the_from_clause_and_projects_after_it(env):
    plan = env.compile_sql("INSERT INTO Out SELECT id, id FROM Orders WHERE id > 0 ORDER BY ot, k "
                           "DESC")
    sort = node(plan, "stream-exec-temporal-sort_1")
    assert [(f.index, f.is_ascending, f.null_is_last) for f in sort.order_by.fields] == [
        (2, True, False), (1, False, True)]
    assert sort.row_type.fields[2].rowtime                  # the filter kept the time attribute


@pytest.mark.parametrize("sql, error, message", [
    ("INSERT INTO Out SELECT id, id FROM Orders ORDER BY ot DESC", UnsupportedSqlError,
     "ORDER BY without LIMIT on anything but a time attribute ascending"),
    ("INSERT INTO Out SELECT id, id FROM Orders ORDER BY pt, id", UnsupportedSqlError,
     "ProcTimeSortOperator"),
    ("INSERT INTO Out SELECT c.id, r.rate FROM Changes AS c JOIN Rates FOR SYSTEM_TIME AS OF "
     "c.ot AS r ON c.k = r.k", ChangelogModeError, "Temporal join node"),
    ("INSERT INTO Out SELECT o.id, r.rate FROM Orders AS o JOIN NoLookup FOR SYSTEM_TIME AS OF "
     "o.pt AS r ON o.k = r.k", PlanningError, "Processing-time temporal join is not supported"),
    ("INSERT INTO Out SELECT o.id, d.rate FROM Orders AS o JOIN Dim FOR SYSTEM_TIME AS OF o.pt "
     "AS d ON o.id < d.rate", PlanningError, r"requires an equality condition on fields of "
     r"table \[Dim\]"),
    ("INSERT INTO Out SELECT /*+ LOOKUP('table'='x') */ o.id, d.rate FROM Orders AS o JOIN Dim "
     "FOR SYSTEM_TIME AS OF o.pt AS d ON o.k = d.k", PlanningError,
     "the LOOKUP hint names 'x', which is no lookup table of this query"),
    ("INSERT INTO Out SELECT /*+ LOOKUP('table'='d', 'retry-predicate'='lookup_miss') */ o.id, "
     "d.rate FROM Orders AS o JOIN Dim FOR SYSTEM_TIME AS OF o.pt AS d ON o.k = d.k",
     PlanningError, "missing: retry-strategy, fixed-delay, max-attempts"),
    ("INSERT INTO Out SELECT /*+ LOOKUP('table'='d', 'capacity'='lots') */ o.id, d.rate FROM "
     "Orders AS o JOIN Dim FOR SYSTEM_TIME AS OF o.pt AS d ON o.k = d.k", PlanningError,
     "LOOKUP option 'capacity' takes a positive integer, got 'lots'"),
    ("INSERT INTO Out SELECT r.rate, r.rate FROM Rates FOR SYSTEM_TIME AS OF TIMESTAMP "
     "'2024-01-01 00:00:00' AS r", UnsupportedSqlError, "outside a join"),
])
def test_what_the_nodes_cannot_run_is_refused_by_name(env, sql, error, message):
    with pytest.raises(error, match=message):
        env.compile_sql(sql)


def test_as_of_the_processing_time_of_a_lookup_table_is_a_lookup_join(env):
    # Flink's StreamPhysicalLookupJoinRule: the table is no input of the plan; the condition
    # splits into lookup keys, the table's filter, the pre-filter and the rest
    plan = env.compile_sql("INSERT INTO Out SELECT o.id, d.rate FROM Orders AS o LEFT JOIN Dim "
                           "FOR SYSTEM_TIME AS OF o.pt AS d ON UPPER(o.k) = d.k AND d.rate > 1 "
                           "AND o.id > 0 AND o.id < d.rate")
    join = node(plan, "stream-exec-lookup-join_1")
    assert not [n for n in plan.nodes if n.type.startswith("stream-exec-table-source-scan")
                and n.table.identifier == "Dim"]
    assert [(key.temporal_index, key.input_index) for key in join.lookup_keys] == [(0, 4)]
    assert (join.filter_on_temporal_table, join.pre_filter_condition,
            join.remaining_join_condition) == ("`rate` > 1", "`id` > 0", "`id` < `rate`")
    assert join.join_type == "LEFT" and list(join.row_type.names[-2:]) == ["k0", "rate"]
    # the table's 'async' option: Flink's default async options
    assert (join.async_options.capacity, join.async_options.timeout,
            join.async_options.output_mode) == (100, "180000 ms", "ORDERED")
    assert join.retry_options is None


def test_the_lookup_hint_is_recorded_in_the_plan(env):
    plan = env.compile_sql(
        "INSERT INTO Out SELECT /*+ LOOKUP('table'='d', 'async'='true', 'capacity'='7', "
        "'output-mode'='allow_unordered', 'timeout'='5s', 'retry-predicate'='lookup_miss', "
        "'retry-strategy'='fixed_delay', 'fixed-delay'='10s', 'max-attempts'='3') */ o.id, "
        "d.rate FROM Orders AS o JOIN Dim FOR SYSTEM_TIME AS OF o.pt AS d ON o.k = d.k")
    join = node(plan, "stream-exec-lookup-join_1")
    assert join.async_options.model_dump() == {"capacity": 7, "timeout": "5000 ms",
                                               "output_mode": "ALLOW_UNORDERED"}
    assert join.retry_options.model_dump() == {
        "retry_predicate": "lookup_miss", "retry_strategy": "FIXED_DELAY",
        "retry_fixed_delay": "10000 ms", "retry_max_attempts": 3}


def test_a_changed_lookup_hint_option_is_plan_drift_against_the_fixture(spark):
    # the compatibility surface of a lookup join is its plan: the async hint's capacity changed
    # (2000 -> 100) is a difference from the checked-in fixture's plan (and the program's
    # golden plan, tests/test_plan_snapshots.py), named by its path
    import json
    from dataclasses import replace
    from pathlib import Path

    from harness.runner import compile_program
    from programs.lookup_join import LOOKUP_JOIN_ASYNC_HINT
    from streamplan.json_diff import json_changes

    fixture = (Path(__file__).parent.parent / "snapshots" / "lookup-join_1"
               / LOOKUP_JOIN_ASYNC_HINT.id / "plan" / f"{LOOKUP_JOIN_ASYNC_HINT.id}.json")
    held = json.loads(fixture.read_text())
    _, same = compile_program(LOOKUP_JOIN_ASYNC_HINT, spark)
    assert json_changes(held, json.loads(same.to_json_text())) == []
    run = LOOKUP_JOIN_ASYNC_HINT.run_step
    changed_program = replace(LOOKUP_JOIN_ASYNC_HINT, steps=tuple(
        replace(step, sql=step.sql.replace("'capacity'='2000'", "'capacity'='100'"))
        if step is run else step for step in LOOKUP_JOIN_ASYNC_HINT.steps))
    _, changed = compile_program(changed_program, spark)
    assert json_changes(held, json.loads(changed.to_json_text())) == [
        "nodes[2].asyncOptions.capacity: 2000 → 100"]


# --- temporal table functions: LATERAL TABLE (Rates(o.t)) ---------------------------------------

HISTORY = ("CREATE TABLE History (k STRING, rate INT, rt TIMESTAMP(3), v STRING, WATERMARK FOR rt AS "
           "rt) WITH ('connector' = 'values')")


def test_a_temporal_table_function_join_is_the_temporal_join_keyed_by_the_function(env):
    env.execute_sql(HISTORY)
    env.create_temporary_system_temporal_table_function("Hist", "History", "rt", "k")
    plan = env.compile_sql("INSERT INTO Out SELECT o.id, r.rate FROM Orders AS o, LATERAL TABLE "
                           "(Hist(o.ot)) AS r WHERE o.k = r.k")
    join = node(plan, "stream-exec-temporal-join_1")
    assert join.is_temporal_function_join            # History has no primary key: the function's
    assert join.join_spec.left_keys == [1] and join.join_spec.right_keys == [0]
    assert join.left_time_attribute_index == 2 and join.right_time_attribute_index == 2
    assert plan.to_json_text().count('"isTemporalFunctionJoin": true') == 1


@pytest.mark.parametrize("table, time, key, message", [
    ("Nope", "rt", "k", "there is no table 'Nope'"),
    ("History", "when", "k", "'when' is no column of 'History'"),
    ("History", "rt", ("k", "x"), "primary key column(s) x are no columns of 'History'"),
    (["History"], "rt", "k", "the table is a column or table name (a non-blank str), not "
                             "['History']"),
    ("History", None, "k", "the time attribute is a column or table name"),
    ("History", "rt", 5, "a primary key column is a column or table name (a non-blank str), not 5"),
    ("History", "rt", (), "a primary key of at least one column is needed"),
])
def test_a_temporal_table_function_over_what_the_table_lacks_is_refused(env, table, time, key,
                                                                       message):
    env.execute_sql(HISTORY)
    with pytest.raises(PlanningError, match=re.escape(message)):
        env.create_temporary_system_temporal_table_function("Hist", table, time, key)


@pytest.mark.parametrize("time, sql, message", [
    ("v", "LATERAL TABLE (Hist(o.ot)) AS r WHERE o.k = r.k", "its time attribute 'v' is not the "
                                                             "rowtime attribute of 'History'"),
    ("rt", "LATERAL TABLE (Hist(o.ot)) AS r WHERE o.id = r.rate", "requires primary key"),
    ("rt", "LATERAL TABLE (Hist(o.ot, o.id)) AS r WHERE o.k = r.k", "takes one argument"),
])
def test_a_temporal_table_function_join_the_function_cannot_key_is_refused(env, time, sql, message):
    env.execute_sql(HISTORY)
    env.create_temporary_system_temporal_table_function("Hist", "History", time, "k")
    with pytest.raises(PlanningError, match=message):
        env.compile_sql(f"INSERT INTO Out SELECT o.id, r.rate FROM Orders AS o, {sql}")


def test_a_temporal_table_function_name_is_registered_once(env):
    env.execute_sql(HISTORY)
    env.create_temporary_system_temporal_table_function("Hist", "History", "rt", "k")
    with pytest.raises(PlanningError, match="function 'HIST' is already registered"):
        env.create_temporary_system_temporal_table_function("HIST", "History", "rt", "k")
