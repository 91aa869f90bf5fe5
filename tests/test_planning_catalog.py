"""Planning aggregates, regular joins, subqueries and CTEs: plan shape, Flink's result types,
update-before only where a consumer needs it, unique keys for join state, and errors."""
from __future__ import annotations

import pytest

from streamplan.changelog import RowKind
from streamplan.errors import PlanFormatError, PlanningError, UnsupportedSqlError
from streamplan.planner.planner import check_changelog

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE O (id INT, k INT, v BIGINT, d DECIMAL(10, 2), s STRING) WITH ('connector' = 'values');
CREATE TABLE C (k INT, name STRING, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D');
CREATE TABLE Retract (k INT, n BIGINT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE Upsert (k INT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE Appended (k INT, n BIGINT) WITH ('connector' = 'values');
CREATE TABLE Joined (id INT, name STRING) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""


def node(plan, prefix):
    (found,) = [n for n in plan.nodes if n.type.startswith(prefix)]
    return found


def kinds(plan, prefix):
    return check_changelog(plan)[node(plan, prefix).id]


def test_an_aggregate_is_a_calc_an_aggregate_and_a_calc_with_flinks_types(env):
    plan = env.compile_sql("INSERT INTO Retract SELECT k, SUM(v) FROM O WHERE v > 0 GROUP BY k "
                           "HAVING AVG(d) > 1")
    assert [n.type.rsplit("_", 1)[0] for n in plan.nodes] == [
        "stream-exec-table-source-scan", "stream-exec-calc", "stream-exec-group-aggregate",
        "stream-exec-calc", "stream-exec-sink"]
    agg = node(plan, "stream-exec-group-aggregate")
    assert [(c.function, c.arg_list, c.type) for c in agg.agg_calls] == [
        ("SUM", [1], "BIGINT"), ("AVG", [2], "DECIMAL(38,6)")]
    assert agg.row_type.text == "ROW<`k` INT, `EXPR$1` BIGINT, `EXPR$2` DECIMAL(38,6)>"
    pre, post = [n for n in plan.nodes if n.type.startswith("stream-exec-calc")]
    assert pre.condition == "`v` > 0" and post.condition == "`EXPR$2` > 1"
    assert agg.state[0].name == "groupAggregateState" and agg.state[0].ttl == "0 ms"


def test_update_before_only_where_a_consumer_needs_it(env):
    sql = "INSERT INTO {} SELECT k, COUNT(*) FROM O GROUP BY k"
    retract = env.compile_sql(sql.format("Retract"))
    upsert = env.compile_sql(sql.format("Upsert"))
    assert node(retract, "stream-exec-group-aggregate").generate_update_before is True
    assert node(upsert, "stream-exec-group-aggregate").generate_update_before is False
    assert kinds(upsert, "stream-exec-group-aggregate") == {RowKind.INSERT, RowKind.UPDATE_AFTER}
    assert node(upsert, "stream-exec-sink").input_changelog_mode == ["INSERT", "UPDATE_AFTER"]
    # a filter above the aggregate needs -U to retract what it let through
    having = env.compile_sql(sql.format("Upsert") + " HAVING COUNT(*) > 1")
    assert node(having, "stream-exec-group-aggregate").generate_update_before is True


def test_an_updating_result_into_an_insert_only_sink_names_the_aggregate(env):
    with pytest.raises(PlanningError, match=r"Table sink 'Appended' doesn't support consuming "
                                            r"update and delete changes \(UPDATE_BEFORE, "
                                            r"UPDATE_AFTER\) which are produced by node 3 "
                                            r"'stream-exec-group-aggregate_2'"):
        env.compile_sql("INSERT INTO Appended SELECT k, COUNT(*) FROM O GROUP BY k")


def test_join_state_follows_the_unique_keys_of_its_inputs(env):
    plan = env.compile_sql("INSERT INTO Joined SELECT O.id, C.name FROM O LEFT JOIN C ON O.k = C.k")
    join = node(plan, "stream-exec-join")
    assert (join.left_unique_keys, join.right_unique_keys) == ([], [[0]])
    assert "leftInputSpec=[NoUniqueKey], rightInputSpec=[JoinKeyContainsUniqueKey]" in join.description
    layout = join.state_layout([p.row_type for p in plan.inputs_of(join)])
    assert layout["left-records"]["kind"] == "map"             # rows with multiplicity
    assert layout["right-records"]["kind"] == "value"          # one customer per join key
    assert "associations: BIGINT" in layout["left-records"]["value"]      # left is outer


def test_a_left_join_forwards_its_inner_sides_update_before(env):
    plan = env.compile_sql("INSERT INTO Joined SELECT O.id, C.name FROM O LEFT JOIN C ON O.k = C.k")
    assert kinds(plan, "stream-exec-join") == {RowKind.INSERT, RowKind.DELETE, RowKind.UPDATE_BEFORE}


def test_subqueries_and_ctes_plan_like_inline_queries(env):
    cte = env.compile_sql("INSERT INTO Retract WITH t AS (SELECT k, v FROM O WHERE v > 1) "
                          "SELECT k, COUNT(*) FROM t GROUP BY k")
    sub = env.compile_sql("INSERT INTO Retract SELECT k, COUNT(*) FROM "
                          "(SELECT k, v FROM O WHERE v > 1) t GROUP BY k")
    assert cte.to_json_text() == sub.to_json_text()


def test_a_view_plans_as_the_query_it_names(env):
    """CREATE VIEW: a later query naming the view plans its query in place (Flink expands
    views), through a view of a view and as a window TVF's table, the same plan as the CTE."""
    env.execute_sql("CREATE TEMPORARY VIEW big AS SELECT k, v FROM O WHERE v > 1;\n"
                    "CREATE VIEW per_k AS SELECT k, COUNT(*) AS n FROM big GROUP BY k")
    cte = env.compile_sql("INSERT INTO Retract WITH big AS (SELECT k, v FROM O WHERE v > 1) "
                          "SELECT k, n FROM (SELECT k, COUNT(*) AS n FROM big GROUP BY k)")
    assert env.compile_sql("INSERT INTO Retract SELECT k, n FROM per_k").to_json_text() == \
        cte.to_json_text()
    env.execute_sql("CREATE TABLE E (k INT, t TIMESTAMP(3), WATERMARK FOR t AS t) "
                    "WITH ('connector' = 'values');\n"
                    "CREATE VIEW late AS SELECT * FROM E")
    windowed = ("SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE {}, DESCRIPTOR(t), INTERVAL '1' "
                "SECOND)) GROUP BY k, window_start, window_end")
    assert env.compile_sql(f"INSERT INTO Retract {windowed.format('late')}").to_json_text() == \
        env.compile_sql(f"INSERT INTO Retract WITH late AS (SELECT * FROM E) "
                        f"{windowed.format('late')}").to_json_text()
    assert [r.kind for r in env.execute_sql("CREATE VIEW IF NOT EXISTS big AS SELECT k FROM O")] \
        == ["skipped"]


@pytest.mark.parametrize("sql, message", [
    ("CREATE VIEW v AS SELECT k FROM v", "view 'v' reads 'v', which is not a table or view "
                                         "created before it \\(a view cannot read itself\\)"),
    ("CREATE VIEW v AS SELECT k FROM O JOIN later ON O.k = later.k", "view 'v' reads 'later'"),
    ("CREATE VIEW O AS SELECT 1", "cannot create view 'O': a table of that name already exists"),
    ("CREATE VIEW v AS SELECT k FROM O;\nCREATE TABLE v (a INT) WITH ('connector' = 'values')",
     "<script>:2:1: cannot create table 'v': a view of that name already exists"),
    ("CREATE VIEW v AS SELECT k, v FROM O;\nINSERT INTO v SELECT k, v FROM O",
     "<script>:2:1: 'v' is a view; a query writes into a table"),
])
def test_view_errors_name_the_view_and_its_position(env, sql, message):
    with pytest.raises(PlanningError, match=message):
        env.execute_sql(sql)


@pytest.mark.parametrize("sql, error, message", [
    ("INSERT INTO Retract SELECT s, COUNT(*) FROM O GROUP BY k", PlanningError,
     "column 's' is neither grouped nor aggregated"),
    ("INSERT INTO Retract SELECT k, COUNT(*) FROM O GROUP BY k HAVING MAX(s) > 'a' AND s > 'b'",
     PlanningError, "column 's' is neither grouped nor aggregated"),
    ("INSERT INTO Retract SELECT * FROM O GROUP BY k", PlanningError,
     "SELECT \\* cannot be used with GROUP BY"),
    ("INSERT INTO Retract SELECT k, SUM(s) FROM O GROUP BY k", UnsupportedSqlError,
     "SUM of a STRING argument"),
    ("INSERT INTO Retract SELECT k, SUM(SUM(v)) FROM O GROUP BY k", UnsupportedSqlError,
     "nested aggregate"),
])
def test_aggregate_errors_name_the_column_or_construct(env, sql, error, message):
    with pytest.raises(error, match=message):
        env.compile_sql(sql)


MINI_BATCH = ("SET 'table.exec.mini-batch.enabled' = 'true';\n"
              "SET 'table.exec.mini-batch.allow-latency' = '1 s';\n"
              "SET 'table.exec.mini-batch.size' = '10'")


def test_arrival_order_aggregates_plan_as_flinks_calls(env):
    """FIRST_VALUE, LAST_VALUE and LISTAGG: the argument's type (nullable) and STRING;
    LISTAGG's delimiter a column of the calc below, its second argument, as Flink plans it."""
    plan = env.compile_sql("INSERT INTO Joined SELECT k, LISTAGG(s, '|') FILTER (WHERE v > 0) "
                           "FROM O GROUP BY k")
    (call,) = node(plan, "stream-exec-group-aggregate").agg_calls
    calc = node(plan, "stream-exec-calc")
    assert (call.function, call.type, call.arg_list, call.filter_arg) == ("LISTAGG", "STRING",
                                                                          [1, 2], 3)
    assert calc.projection[1:3] == ["`s`", "'|'"]
    plan = env.compile_sql("INSERT INTO Retract SELECT k, LAST_VALUE(v) FROM O GROUP BY k")
    (call,) = node(plan, "stream-exec-group-aggregate").agg_calls
    assert (call.function, call.type, call.arg_list) == ("LAST_VALUE", "BIGINT", [1])


@pytest.mark.parametrize("sql, message", [
    ("INSERT INTO Retract SELECT k, LAST_VALUE(DISTINCT v) FROM O GROUP BY k",
     r"LAST_VALUE\(DISTINCT ...\)"),
    ("INSERT INTO Joined SELECT k, LISTAGG(v) FROM O GROUP BY k",
     "<script>:1:1: unsupported: LISTAGG of a BIGINT argument"),
    ("INSERT INTO Joined SELECT k, LISTAGG(s, s) FROM O GROUP BY k",
     "LISTAGG with a delimiter that is not a string literal"),
    ("INSERT INTO Retract SELECT k, FIRST_VALUE(v) OVER (PARTITION BY k ORDER BY id) FROM O",
     r"FIRST_VALUE\(\) / LAST_VALUE\(\) OVER a non-time ORDER BY"),
])
def test_arrival_order_aggregates_are_refused_where_flink_differs(env, sql, message):
    with pytest.raises(UnsupportedSqlError, match=message):
        env.compile_sql(sql)


def test_arrival_order_aggregates_run_where_flink_runs_them(env):
    """The group aggregate; FIRST_VALUE and LAST_VALUE also a TUMBLE window aggregate, in one
    phase (no merge: a HOP window needs one, which Flink 2.3 refuses the same way)."""
    env.execute_sql("CREATE TABLE E (k INT, s STRING, t TIMESTAMP(3), WATERMARK FOR t AS t) "
                    "WITH ('connector' = 'values')")
    windowed = ("INSERT INTO Retract SELECT k, CAST({call} AS BIGINT) FROM TABLE({window}(TABLE E, "
                "DESCRIPTOR(t), {size})) GROUP BY k, window_start, window_end")
    plan = env.compile_sql(windowed.format(call="FIRST_VALUE(k) + LAST_VALUE(k)", window="TUMBLE",
                                           size="INTERVAL '1' SECOND"))
    (agg,) = [n for n in plan.nodes if "window-aggregate" in n.type]
    assert agg.type == "stream-exec-window-aggregate_1"
    assert [c.function for c in agg.agg_calls] == ["FIRST_VALUE", "LAST_VALUE"]
    with pytest.raises(UnsupportedSqlError, match="LAST_VALUE in a HoppingWindow aggregate: "
                                                  "FIRST_VALUE and LAST_VALUE have no merge"):
        env.compile_sql(windowed.format(call="LAST_VALUE(k)", window="HOP",
                                        size="INTERVAL '1' SECOND, INTERVAL '2' SECOND"))
    with pytest.raises(UnsupportedSqlError, match="LISTAGG in a TumblingWindow aggregate"):
        env.compile_sql(windowed.format(call="LENGTH(LISTAGG(s))", window="TUMBLE",
                                        size="INTERVAL '1' SECOND"))
    env.execute_sql(MINI_BATCH)
    # under mini-batch FIRST_VALUE has no merge: one phase, as in Flink; LISTAGG has one, but
    # the two-phase aggregates do not run it
    plan = env.compile_sql("INSERT INTO Retract SELECT k, FIRST_VALUE(v) FROM O GROUP BY k")
    assert [n.type for n in plan.nodes if "aggregate" in n.type] == [
        "stream-exec-group-aggregate_2"]
    with pytest.raises(UnsupportedSqlError, match="LISTAGG in a two-phase group aggregate"):
        env.compile_sql("INSERT INTO Joined SELECT k, LISTAGG(s) FROM O GROUP BY k")


def test_a_plan_giving_another_node_an_arrival_order_aggregate_is_refused_on_load(env):
    """The two-phase group aggregate's nodes declare no arrival-order aggregate (FIRST_VALUE,
    LAST_VALUE and LISTAGG run in stream-exec-group-aggregate, FIRST_VALUE and LAST_VALUE
    also in the window and over aggregates): one in their plan is refused on load."""
    from streamplan.plan import parse_plan

    env.execute_sql(MINI_BATCH)
    text = env.compile_sql("INSERT INTO Retract SELECT k, MAX(v) FROM O GROUP BY k").to_json_text()
    assert '"function": "MAX"' in text
    with pytest.raises(PlanFormatError, match="'stream-exec-local-group-aggregate_1'.*field "
                                              "'aggCalls.0.function': Input should be 'COUNT', "
                                              "'SUM', 'MIN', 'MAX', 'AVG', 'UDAF' or "
                                              "'WELFORD_M2'"):
        parse_plan(text.replace('"function": "MAX"', '"function": "FIRST_VALUE"'))


# --- aggregate FILTER (Flink's filterArg) and DISTINCT ------------------------------------------

def test_a_filter_is_a_boolean_column_below_the_aggregate_and_its_filter_arg(env):
    """As Flink: each call's argument then its condition as `(c) IS TRUE` (BOOLEAN NOT NULL),
    in call order, a condition written twice projected once; filterArg in the JSON only on
    the calls with a FILTER."""
    env.execute_sql("CREATE TABLE Three (k INT, c BIGINT, s DECIMAL(38, 2), m INT) "
                    "WITH ('connector' = 'values', 'sink-insert-only' = 'false')")
    plan = env.compile_sql(
        "INSERT INTO Three SELECT k, COUNT(*) FILTER (WHERE v > 1), SUM(d), MIN(id) "
        "FILTER (WHERE v > 1) FROM O GROUP BY k")
    pre = [n for n in plan.nodes if n.type.startswith("stream-exec-calc")][0]
    assert pre.projection == ["`k`", "(`v` > 1) IS TRUE", "`d`", "`id`"]
    assert pre.row_type.fields[1].type.text == "BOOLEAN NOT NULL"
    agg = node(plan, "stream-exec-group-aggregate")
    assert [(c.function, c.arg_list, c.filter_arg) for c in agg.agg_calls] == [
        ("COUNT", [], 1), ("SUM", [2], None), ("MIN", [3], 1)]
    assert "COUNT(*) FILTER $f1 AS EXPR$1, SUM($f2) AS EXPR$2, MIN($f3) FILTER $f1" in agg.description
    calls = node_json(plan, agg)["aggCalls"]
    assert [call.get("filterArg") for call in calls] == [1, None, 1]
    assert "filterArg" not in calls[1]


def test_without_a_filter_the_plan_holds_no_filter_arg(env):
    plan = env.compile_sql("INSERT INTO Retract SELECT k, COUNT(DISTINCT v) FROM O GROUP BY k")
    assert "filterArg" not in plan.to_json_text()


def test_distinct_on_every_aggregate_and_min_max_drop_it_as_flink_does(env):
    env.execute_sql("CREATE TABLE Six (k INT, a BIGINT, b BIGINT, c BIGINT, d BIGINT, e BIGINT, "
                    "f BIGINT) WITH ('connector' = 'values', 'sink-insert-only' = 'false')")
    plan = env.compile_sql(
        "INSERT INTO Six SELECT k, SUM(DISTINCT v), AVG(DISTINCT v), MIN(DISTINCT v), MIN(v), "
        "MAX(DISTINCT v), COUNT(DISTINCT v) FILTER (WHERE id > 0) FROM O GROUP BY k")
    agg = node(plan, "stream-exec-group-aggregate")
    assert [(c.function, c.distinct, c.filter_arg) for c in agg.agg_calls] == [
        ("SUM", True, None), ("AVG", True, None), ("MIN", False, None), ("MAX", False, None),
        ("COUNT", True, 2)]                 # MIN(DISTINCT v) and MIN(v) are one call
    layout = agg.state_layout([p.row_type for p in plan.inputs_of(agg)])
    # a distinct SUM keeps every value with its count, like COUNT(DISTINCT) and MIN
    assert "a0: ARRAY<STRUCT<v: BIGINT, c: BIGINT>>" in layout["acc-state"]["value"]


@pytest.mark.parametrize("sql, error, message", [
    ("INSERT INTO Retract SELECT k, SUM(v) FILTER (WHERE COUNT(*) > 1) FROM O GROUP BY k",
     UnsupportedSqlError, r"<script>:1:1: unsupported: aggregate COUNT\(\*\) in the FILTER of "
                          r"SUM\(v\) FILTER\(WHERE COUNT\(\*\) > 1\)"),
    ("INSERT INTO Retract SELECT k, SUM(v) FILTER (WHERE s) FROM O GROUP BY k", PlanningError,
     "condition '`s`' is of type STRING, not BOOLEAN"),
    ("INSERT INTO Retract SELECT k, SUM(DISTINCT v, id) FROM O GROUP BY k", UnsupportedSqlError,
     r"SUM\(DISTINCT ...\) of several columns"),
])
def test_filter_and_distinct_errors_name_the_position_and_construct(env, sql, error, message):
    with pytest.raises(error, match=message):
        env.compile_sql(sql)


def test_a_plan_whose_filter_arg_is_not_boolean_is_refused(env):
    plan = env.compile_sql("INSERT INTO Retract SELECT k, COUNT(*) FILTER (WHERE v > 1) FROM O "
                           "GROUP BY k")
    agg = node(plan, "stream-exec-group-aggregate")
    edited = agg.model_copy(update={"agg_calls": [agg.agg_calls[0].model_copy(
        update={"filter_arg": 0})]})
    with pytest.raises(PlanFormatError, match=r"aggCalls\[0\].filterArg': input field 0 "
                                              r"\(k INT\) is not BOOLEAN"):
        edited.runtime_params(plan.inputs_of(agg)[0].row_type)


def node_json(plan, found):
    return next(n for n in __import__("json").loads(plan.to_json_text())["nodes"]
                if n["id"] == found.id)


# --- ROW_NUMBER: deduplication and top-N; upsert sources ------------------------------------

RANK_DDL = """
CREATE TABLE E (k STRING, v INT, t TIMESTAMP(3), pt AS PROCTIME(),
  WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE TABLE U (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'values', 'changelog-mode' = 'I,UA,D');
CREATE TABLE KV (k STRING, v INT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE KVKeyed (k STRING, v INT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE KVN (k STRING, v INT, rn BIGINT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE IdV (id INT, v INT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE IdVKeyed (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""
NUMBERED = ("SELECT {cols} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY {order}) "
            "AS rn FROM E) WHERE {cond}")


@pytest.fixture()
def ranks(env):
    env.execute_sql(RANK_DDL)
    return env


@pytest.mark.parametrize("order, keep_last, rowtime", [
    ("t DESC", True, True), ("t ASC", False, True), ("pt DESC", True, False),
    ("pt", False, False)])
def test_row_number_one_on_a_time_attribute_is_a_deduplication(ranks, order, keep_last, rowtime):
    plan = ranks.compile_sql("INSERT INTO KV " + NUMBERED.format(cols="k, v", order=order,
                                                                 cond="rn = 1"))
    dedup = node(plan, "stream-exec-deduplicate")
    assert (dedup.unique_keys, dedup.keep_last_row, dedup.is_rowtime) == ([0], keep_last, rowtime)
    assert dedup.state[0].name == "deduplicateState"
    # Flink 2.x: keep first is insert-only (on row time it emits on a timer), keep last updates
    assert dedup.output_insert_only is (not keep_last)
    assert kinds(plan, "stream-exec-deduplicate") == (
        {RowKind.INSERT} if not keep_last
        else {RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER})


def test_a_row_time_keep_first_plan_without_output_insert_only_keeps_updating(ranks):
    """Plans from before Flink's outputInsertOnly field run RowTimeDeduplicateFunction: an
    earlier row updates the kept one."""
    plan = ranks.compile_sql("INSERT INTO KV " + NUMBERED.format(cols="k, v", order="t ASC",
                                                                 cond="rn = 1"))
    dedup = node(plan, "stream-exec-deduplicate")
    older = dedup.model_copy(update={"output_insert_only": None})
    assert "outputInsertOnly" not in older.to_json() and "outputInsertOnly" in dedup.to_json()
    assert not older.emits_on_timer and dedup.emits_on_timer
    assert older.output_changelog([]) == {RowKind.INSERT, RowKind.UPDATE_BEFORE,
                                          RowKind.UPDATE_AFTER}


@pytest.mark.parametrize("cond, start, end", [
    ("rn <= 3", 1, 3), ("rn < 3", 1, 2), ("rn BETWEEN 2 AND 4", 2, 4), ("3 >= rn", 1, 3),
    ("rn = 1", 1, 1)])
def test_other_row_number_filters_are_a_top_n(ranks, cond, start, end):
    plan = ranks.compile_sql("INSERT INTO KV " + NUMBERED.format(cols="k, v", order="v DESC",
                                                                 cond=cond))
    rank = node(plan, "stream-exec-rank")
    assert (rank.rank_range.start, rank.rank_range.end) == (start, end)
    assert rank.output_row_number is False and rank.rank_strategy.type == "AppendFast"
    assert [(f.index, f.is_ascending) for f in rank.order_by.fields] == [(1, False)]


def test_the_rank_number_is_output_only_when_the_query_selects_it(ranks):
    plan = ranks.compile_sql("INSERT INTO KVN " + NUMBERED.format(cols="k, v, rn", order="v",
                                                                  cond="rn <= 2 AND v > 0"))
    rank = node(plan, "stream-exec-rank")
    assert rank.output_row_number is True and rank.row_type.names[-1] == "rn"
    # the other condition stays a filter above the rank
    (calc,) = [n for n in plan.nodes if n.type.startswith("stream-exec-calc") and n.condition]
    assert calc.condition == "`v` > 0" and plan.inputs_of(calc) == [rank]


@pytest.mark.parametrize("cond", ["rn = 1", "rn <= 1", "rn BETWEEN 2 AND 2"])
def test_a_row_number_of_one_value_is_a_constant_after_the_rank(ranks, cond):
    # Flink's RankNumberColumnRemoveRule: the rank does not output it, a calc projects it
    plan = ranks.compile_sql("INSERT INTO KVN " + NUMBERED.format(cols="k, v, rn", order="v",
                                                                  cond=cond))
    rank = node(plan, "stream-exec-rank")
    assert rank.output_row_number is False and rank.row_type.names == ["k", "v", "t", "pt"]
    (calc,) = [n for n in plan.nodes if plan.inputs_of(n) == [rank]]
    start = rank.rank_range.start
    assert calc.projection[-1] == f"CAST({start} AS BIGINT)"
    assert calc.row_type.names == ["k", "v", "t", "pt", "rn"]
    from streamplan.types import SqlType

    assert calc.row_type.fields[-1].type == SqlType("BIGINT", (), nullable=False)


def test_partition_and_order_read_the_from_clause_not_only_the_select_list(ranks):
    # t is not selected, only ordered by (as in Flink, the window reads FROM's columns): it
    # is carried to the rank under a hidden name and dropped after it
    plan = ranks.compile_sql("INSERT INTO KV SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER "
                             "(PARTITION BY k ORDER BY v DESC, t) AS rn FROM E) WHERE rn <= 2")
    rank = node(plan, "stream-exec-rank")
    assert rank.row_type.names == ["k", "v", "t$over"]
    assert [(f.index, f.is_ascending) for f in rank.order_by.fields] == [(1, False), (2, True)]
    assert plan.nodes[-1].row_type.names == ["k", "v"]


@pytest.mark.parametrize("select, read_as", [
    ("c.name, o.v", ("name", "v")),           # selected: read under their output names
    ("c.name AS who, o.v", ("who", "v")),
    ("*", ("name$over", "v$over")),           # under a star: carried under hidden names
])
def test_a_window_over_a_join_reads_qualified_columns(ranks, select, read_as):
    plan = ranks.compile_sql(
        f"INSERT INTO Joined SELECT 1, CAST(v AS STRING) FROM (SELECT {select}, ROW_NUMBER() "
        "OVER (PARTITION BY c.name ORDER BY o.v DESC) AS rn FROM O o JOIN C c ON o.k = c.k) "
        "WHERE rn = 1")
    rank = node(plan, "stream-exec-rank")
    names = rank.row_type.names
    assert (names[rank.partition.fields[0]], names[rank.order_by.fields[0].index]) == read_as


def test_a_star_over_a_ranked_subquery_outputs_the_row_number(ranks):
    plan = ranks.compile_sql("INSERT INTO KVN SELECT * FROM (SELECT k, v, ROW_NUMBER() OVER "
                             "(PARTITION BY k ORDER BY v) AS rn FROM E) WHERE rn <= 2")
    rank = node(plan, "stream-exec-rank")
    assert rank.output_row_number is True and rank.row_type.names == ["k", "v", "rn"]


def test_a_row_number_named_as_the_column_it_orders_by_keeps_both_apart(ranks):
    # Flink's RankTestPrograms: `row_number() over (partition by b order by c) as c`; the
    # ORDER BY's c is the table's column, the outer query's c the row number
    plan = ranks.compile_sql("INSERT INTO KVN SELECT * FROM (SELECT k, v, ROW_NUMBER() OVER "
                             "(PARTITION BY k ORDER BY t) AS t FROM E) WHERE t <= 2")
    rank = node(plan, "stream-exec-rank")
    assert rank.row_type.names == ["k", "v", "t$over", "t"]
    assert [f.index for f in rank.order_by.fields] == [2]


@pytest.mark.parametrize("sql, error, message", [
    ("INSERT INTO KV " + NUMBERED.format(cols="k, v", order="v", cond="v > 1"),
     UnsupportedSqlError, "ROW_NUMBER\\(\\) without an upper bound on 'rn'"),
    ("INSERT INTO KV SELECT k, v FROM (SELECT *, RANK() OVER (PARTITION BY k ORDER BY v) AS rn "
     "FROM E) WHERE rn = 1", UnsupportedSqlError, "RANK\\(\\) OVER \\(only ROW_NUMBER\\(\\)"),
    ("INSERT INTO KV " + NUMBERED.format(cols="k, v", order="v", cond="rn <= 0"),
     PlanningError, "the condition on 'rn' selects no rank"),
])
def test_unsupported_window_queries_are_named(ranks, sql, error, message):
    with pytest.raises(error, match=message):
        ranks.compile_sql(sql)


def test_an_upsert_source_gets_a_changelog_normalize_only_when_minus_u_is_needed(ranks):
    retract = ranks.compile_sql("INSERT INTO IdV SELECT * FROM U")
    assert node(retract, "stream-exec-changelog-normalize").unique_keys == [0]
    upsert = ranks.compile_sql("INSERT INTO IdVKeyed SELECT * FROM U")
    assert [n.type.rsplit("_", 1)[0] for n in upsert.nodes] == [
        "stream-exec-table-source-scan", "stream-exec-sink"]          # as Flink: none needed
    assert [n.id for n in upsert.nodes] == [1, 2]


def test_an_upsert_source_without_a_primary_key_is_refused(env):
    env.execute_sql("CREATE TABLE Bad (id INT, v INT) WITH ('connector' = 'values', "
                    "'changelog-mode' = 'I,UA,D')")
    with pytest.raises(PlanningError, match="table 'Bad' is an upsert source .* needs a PRIMARY KEY"):
        env.compile_sql("INSERT INTO Joined SELECT * FROM Bad")


# --- the sink upsert materializer (Flink 2.3: ON CONFLICT) -----------------------------------

MATERIALIZE_DDL = """
CREATE TABLE KeyedJoined (k INT, name STRING, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""
JOIN_INTO_KEYED = "INSERT INTO KeyedJoined SELECT O.k, C.name FROM O JOIN C ON O.k = C.k"


def test_auto_refuses_a_sink_keyed_unlike_its_input_without_on_conflict(env):
    env.execute_sql(MATERIALIZE_DDL)
    with pytest.raises(PlanningError, match=r"the query has an upsert key that differs from the "
                                            r"primary key of sink table 'KeyedJoined'.*add ON "
                                            r"CONFLICT DO DEDUPLICATE"):
        env.compile_sql(JOIN_INTO_KEYED)
    plan = env.compile_sql(JOIN_INTO_KEYED + " ON CONFLICT DO DEDUPLICATE")
    sink = node(plan, "stream-exec-sink")
    assert (sink.upsert_materialize, sink.conflict_strategy) == (True, "DEDUPLICATE")
    assert sink.state[0].name == "sinkMaterializeState"
    assert set(sink.state_layout([])) == {"values"}
    # the materializer retracts: whatever feeds it must send -U
    assert RowKind.UPDATE_BEFORE in kinds(plan, "stream-exec-join")


@pytest.mark.parametrize("mode, materialized", [("FORCE", True), ("NONE", None)])
def test_force_and_none_need_no_on_conflict(env, mode, materialized):
    env.execute_sql(MATERIALIZE_DDL)
    env.config.set("table.exec.sink.upsert-materialize", mode)
    assert node(env.compile_sql(JOIN_INTO_KEYED), "stream-exec-sink").upsert_materialize is materialized


def test_a_sink_keyed_like_its_input_is_not_materialized_and_plans_unchanged(env):
    plan = env.compile_sql("INSERT INTO Upsert SELECT k, COUNT(*) FROM O GROUP BY k")
    sink = node(plan, "stream-exec-sink")
    assert sink.upsert_materialize is None and "upsertMaterialize" not in sink.to_json()


def test_on_conflict_do_nothing_or_error_is_named(env):
    env.execute_sql(MATERIALIZE_DDL)
    with pytest.raises(UnsupportedSqlError, match="ON CONFLICT DO NOTHING"):
        env.compile_sql(JOIN_INTO_KEYED + " ON CONFLICT DO NOTHING")


# --- upsert keys through a Top-N and an over aggregate (rank- and over-aggregate-refuses-
# sink-keyed-off-partition are the refusals) ----------------------------------------------------

KEYED_SOURCE_DDL = """
CREATE TABLE Src (id INT, cat STRING, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D');
CREATE TABLE Snk (id INT, cat STRING, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE SnkOver (id INT, cat STRING, v BIGINT, s BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""


@pytest.mark.parametrize("query", [
    "INSERT INTO Snk SELECT id, cat, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY {p} "
    "ORDER BY v DESC) AS rn FROM Src) WHERE rn <= 2",
    "INSERT INTO SnkOver SELECT id, cat, v, SUM(v) OVER (PARTITION BY {p} ORDER BY v RANGE "
    "BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM Src"])
def test_a_key_without_the_partition_key_is_no_upsert_key_after_a_rank_or_over(env, query):
    """As Flink 2.3 (PyFlink): partitioned by the sink's key, the source's key stays an upsert
    key (no materializer); partitioned by another column it does not, and the INSERT needs ON
    CONFLICT, with which the sink materializes."""
    env.execute_sql(KEYED_SOURCE_DDL)
    assert node(env.compile_sql(query.format(p="id")), "stream-exec-sink").upsert_materialize is None
    with pytest.raises(PlanningError, match=r"upsert key that differs .* Primary key: \[id\], "
                                            r"upsert key: \[\]"):
        env.compile_sql(query.format(p="cat"))
    plan = env.compile_sql(query.format(p="cat") + " ON CONFLICT DO DEDUPLICATE")
    assert node(plan, "stream-exec-sink").upsert_materialize is True


@pytest.mark.parametrize("kind, accepted", [("LEFT", True), ("INNER", True), ("FULL", False)])
def test_a_join_of_keyed_inputs_on_their_keys_keeps_an_upsert_key(env, kind, accepted):
    """FlinkRelMdUpsertKeys.getJoinUpsertKeys: the left key survives a join whose right side
    is unique on the join key unless the join pads the left side with NULLs, so a sink keyed
    by it needs no ON CONFLICT; a FULL JOIN keeps only the pair of keys."""
    sql = (f"INSERT INTO Upsert SELECT a.k, a.n FROM (SELECT k, COUNT(*) AS n FROM O GROUP BY k) "
           f"a {kind} JOIN C ON a.k = C.k")
    if accepted:
        plan = env.compile_sql(sql)
        assert not [n for n in plan.nodes if "upsert-materialize" in n.type]
    else:
        with pytest.raises(PlanningError, match="ON CONFLICT"):
            env.compile_sql(sql)


# --- a join takes updates without -U where its inputs' keys allow (Flink's
# SatisfyUpdateKindTraitVisitor for StreamPhysicalJoin) ----------------------------------------

AGGREGATES_JOINED = ("INSERT INTO {sink} SELECT a.k, a.n FROM (SELECT k, COUNT(*) AS n FROM O "
                     "GROUP BY k) a JOIN (SELECT k, MAX(v) AS m FROM O GROUP BY k) b ON a.k = b.k")


def aggregates(plan):
    return [n for n in plan.nodes if n.type.startswith("stream-exec-group-aggregate")]


def test_a_join_on_its_inputs_unique_keys_takes_their_updates_without_update_before(env):
    """Into a sink keyed by the join's upsert key, each aggregate's unique key holds its join
    key: neither sends -U, the join forwards +U, and the plan loads again (the join accepts
    +U without -U from such an input). Into a sink without a key, -U everywhere."""
    upsert = env.compile_sql(AGGREGATES_JOINED.format(sink="Upsert"))
    assert [a.generate_update_before for a in aggregates(upsert)] == [False, False]
    assert kinds(upsert, "stream-exec-join") == {RowKind.INSERT, RowKind.UPDATE_AFTER}
    assert node(upsert, "stream-exec-sink").input_changelog_mode == ["INSERT", "UPDATE_AFTER"]
    retract = env.compile_sql(AGGREGATES_JOINED.format(sink="Retract"))
    assert [a.generate_update_before for a in aggregates(retract)] == [True, True]


def test_one_input_whose_unique_key_misses_the_join_key_makes_both_send_update_before(env):
    """All or nothing, as Flink's visitor (one child that cannot do without -U fails the
    ONLY_UPDATE_AFTER requirement, and the join is asked for -U from both): the rule over
    each input's unique keys and changelog kinds; an input without updates never blocks."""
    join = node(env.compile_sql(AGGREGATES_JOINED.format(sink="Upsert")), "stream-exec-join")
    updating = frozenset({RowKind.INSERT, RowKind.UPDATE_AFTER})
    appending = frozenset({RowKind.INSERT})
    assert not join.needs_update_before([[0]], False, None, [updating, updating])
    assert join.needs_update_before([[0]], True, None, [updating, updating])   # a consumer needs -U
    keyless_left = join.model_copy(update={"left_unique_keys": []})
    assert keyless_left.needs_update_before([[0]], False, None, [updating, updating])
    assert not keyless_left.needs_update_before([[0]], False, None, [appending, updating])
    off_key = join.model_copy(update={"right_unique_keys": [[1]]})     # not the join key
    assert off_key.needs_update_before([[0]], False, None, [updating, updating])


def test_a_loaded_join_refuses_updates_without_update_before_off_its_inputs_keys(env):
    """A plan edited so that the left input's unique key no longer holds the join key: the
    join cannot take that input's +U without -U, and loading says which node sends them."""
    from streamplan.errors import ChangelogModeError
    from streamplan.plan import CompiledPlan

    plan = env.compile_sql(AGGREGATES_JOINED.format(sink="Upsert"))
    check_changelog(plan)
    join = node(plan, "stream-exec-join")
    edited = CompiledPlan([join.model_copy(update={"left_unique_keys": []}) if n is join else n
                           for n in plan.nodes], plan.edges)
    with pytest.raises(ChangelogModeError, match=r"Join node \d+ needs the update-before rows "
                                                 r"\(-U\) of its left input .* node \d+ "
                                                 r"'stream-exec-group-aggregate"):
        check_changelog(edited)


@pytest.mark.parametrize("mode, update_before", [("I,UA,D", False), ("I,UB,UA,D", True)])
def test_a_sink_without_a_key_that_takes_updates_without_update_before_gets_none(
        env, mode, update_before):
    """Flink's values sink with 'sink-changelog-mode-enforced': I,UA,D is an upsert sink
    without a primary key (sink trait ONLY_UPDATE_AFTER), so the aggregate sends no -U."""
    env.execute_sql(f"CREATE TABLE Enforced (k INT, n BIGINT) WITH ('connector' = 'values', "
                    f"'sink-changelog-mode-enforced' = '{mode}')")
    plan = env.compile_sql("INSERT INTO Enforced SELECT k, COUNT(*) FROM O GROUP BY k")
    assert node(plan, "stream-exec-group-aggregate").generate_update_before is update_before


def test_a_sink_enforcing_inserts_only_refuses_updates(env):
    env.execute_sql("CREATE TABLE InsertsOnly (k INT, n BIGINT) WITH ('connector' = 'values', "
                    "'sink-insert-only' = 'false', 'sink-changelog-mode-enforced' = 'I')")
    with pytest.raises(PlanningError, match="InsertsOnly"):
        env.compile_sql("INSERT INTO InsertsOnly SELECT k, COUNT(*) FROM O GROUP BY k")
