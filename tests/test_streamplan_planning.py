"""Compiling SQL to plans: byte stability, loading, validation, and the errors users see."""
from __future__ import annotations

import json

import pytest

from streamplan.api import TableEnvironment, explain_plan
from streamplan.errors import (ChangelogModeError, PlanFormatError, PlanningError, PlanVersionError,
                               SqlSyntaxError, UnsupportedSqlError)
from streamplan.changelog import RowKind
from streamplan.plan import parse_plan
from streamplan.version import ENGINE_VERSION
from streamplan.planner.planner import check_changelog

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE L (k INT, v STRING, t TIMESTAMP(3),
  WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE TABLE R (k INT, w STRING, t TIMESTAMP(3),
  WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE TABLE Snk (k INT, v STRING, w STRING) WITH ('connector' = 'values');
CREATE TABLE ChangeSnk (k INT, v STRING, w STRING)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""
JOIN = ("SELECT {hint} L.k, L.v, R.w FROM L {kind} JOIN R ON L.k = R.k "
        "AND L.t BETWEEN R.t - INTERVAL '5' SECOND AND R.t + INTERVAL '10' SECOND")


def compile_join(env, kind="LEFT", hint="", sink="ChangeSnk"):
    return env.compile_sql(f"INSERT INTO {sink} " + JOIN.format(hint=hint, kind=kind))


# The node ids compile_join's plans get: both inputs (scan, then watermark) before the join.
JOIN_PLAN_TYPES = ["stream-exec-table-source-scan_1", "stream-exec-watermark-assigner_1",
                   "stream-exec-table-source-scan_1", "stream-exec-watermark-assigner_1",
                   "stream-exec-interval-join_2", "stream-exec-calc_1", "stream-exec-sink_1"]


def test_same_script_compiles_to_the_same_bytes(env, spark):
    first = compile_join(env, hint="/*+ EARLY_FIRE('delay'='2s') */").to_json_text()
    other = TableEnvironment(spark=spark)
    other.execute_sql(DDL)
    assert compile_join(other, hint="/*+ EARLY_FIRE('delay'='2s') */").to_json_text() == first
    # ... and the bytes are the plan of this join, not any stable text
    nodes = json.loads(first)["nodes"]
    assert [n["type"] for n in nodes] == JOIN_PLAN_TYPES
    assert nodes[4]["intervalJoinSpec"]["joinSpec"]["joinType"] == "LEFT"
    assert nodes[4]["earlyFireDelay"] == "2000 ms"


def test_plan_round_trips_through_json(env):
    plan = compile_join(env, hint="/*+ EARLY_FIRE('delay'='2s') */")
    assert parse_plan(plan.to_json_text()).to_json_text() == plan.to_json_text()
    loaded = parse_plan(plan.to_json_text())
    assert [node.type for node in loaded.nodes] == JOIN_PLAN_TYPES
    join = loaded.to_json()["nodes"][4]
    assert (join["earlyFireDelay"], join["earlyFireTimeMode"]) == ("2000 ms", "ROWTIME")
    assert join["intervalJoinSpec"]["windowBounds"]["leftLowerBound"] == -5000


def test_interval_join_plan_records_bounds_keys_and_early_fire(env):
    node = next(n for n in compile_join(env, hint="/*+ EARLY_FIRE('delay'='2s') */").to_json()["nodes"]
                if n["type"] == "stream-exec-interval-join_2")
    assert node["intervalJoinSpec"]["windowBounds"]["leftLowerBound"] == -5000
    assert node["intervalJoinSpec"]["windowBounds"]["leftUpperBound"] == 10000
    assert node["intervalJoinSpec"]["joinSpec"]["joinType"] == "LEFT"
    assert node["earlyFireDelay"] == "2000 ms" and node["earlyFireTimeMode"] == "ROWTIME"
    assert node["configuration"] == {"table.exec.interval-join.min-cleanup-interval": "0 ms"}


def test_plan_without_hint_omits_the_additive_early_fire_fields(env):
    plan = compile_join(env, sink="Snk").to_json()
    join = next(n for n in plan["nodes"] if n["type"] == "stream-exec-interval-join_2")
    assert "earlyFireDelay" not in join and "earlyFireTimeMode" not in join


# Bounds are `L.t >= R.t + lower` and `L.t <= R.t + upper` in ms; `>` / `<` are 1 ms tighter,
# R.t on the left-hand side flips the comparison (docs/interval-join.md, Planning).
@pytest.mark.parametrize("condition, lower, upper", [
    ("L.t >= R.t - INTERVAL '5' SECOND AND L.t <= R.t + INTERVAL '10' SECOND", -5000, 10000),
    ("L.t > R.t - INTERVAL '5' SECOND AND L.t < R.t + INTERVAL '10' SECOND", -4999, 9999),
    ("R.t BETWEEN L.t - INTERVAL '1' MINUTE AND L.t", 0, 60000),
    ("R.t <= L.t + INTERVAL '2' SECOND AND R.t >= L.t", -2000, 0),
    ("L.t = R.t", 0, 0),
])
def test_time_bounds_in_all_comparison_forms(env, condition, lower, upper):
    plan = env.compile_sql(f"INSERT INTO Snk SELECT L.k, L.v, R.w FROM L JOIN R ON L.k = R.k AND {condition}")
    bounds = next(n for n in plan.to_json()["nodes"]
                  if n["type"] == "stream-exec-interval-join_2")["intervalJoinSpec"]["windowBounds"]
    assert (bounds["leftLowerBound"], bounds["leftUpperBound"]) == (lower, upper)


def test_extra_join_predicates_become_the_join_filter(env):
    plan = env.compile_sql("INSERT INTO Snk SELECT L.k, L.v, R.w FROM L JOIN R ON L.k = R.k AND "
                           "L.t BETWEEN R.t AND R.t + INTERVAL '1' SECOND AND L.v <> R.w")
    spec = next(n for n in plan.to_json()["nodes"]
                if n["type"] == "stream-exec-interval-join_2")["intervalJoinSpec"]["joinSpec"]
    assert spec["nonEquiCondition"] == "`v` <> `w`"


def node_types(plan):
    return [n["type"] for n in plan.to_json()["nodes"]]


@pytest.mark.parametrize("from_where", [
    # Flink's IntervalJoinTestPrograms write the bounds in WHERE; FlinkFilterJoinRule pushes
    # them into the inner join, which then is an interval join.
    "FROM L JOIN R ON L.k = R.k WHERE L.t BETWEEN R.t - INTERVAL '5' SECOND AND R.t + INTERVAL '10' SECOND",
    "FROM L, R WHERE L.k = R.k AND L.t BETWEEN R.t - INTERVAL '5' SECOND AND R.t + INTERVAL '10' SECOND",
    "FROM L JOIN R ON L.t >= R.t - INTERVAL '5' SECOND WHERE L.k = R.k AND L.t <= R.t + INTERVAL '10' SECOND",
])
def test_time_bounds_in_where_make_an_inner_interval_join(env, from_where):
    on = env.compile_sql("INSERT INTO Snk SELECT L.k, L.v, R.w FROM L JOIN R ON L.k = R.k AND "
                         "L.t BETWEEN R.t - INTERVAL '5' SECOND AND R.t + INTERVAL '10' SECOND")
    where = env.compile_sql(f"INSERT INTO Snk SELECT L.k, L.v, R.w {from_where}")
    assert node_types(where) == node_types(on) == [
        "stream-exec-table-source-scan_1", "stream-exec-watermark-assigner_1",
        "stream-exec-table-source-scan_1", "stream-exec-watermark-assigner_1",
        "stream-exec-interval-join_2", "stream-exec-calc_1", "stream-exec-sink_1"]
    spec = lambda plan: next(n for n in plan.to_json()["nodes"]   # noqa: E731
                             if n["type"] == "stream-exec-interval-join_2")["intervalJoinSpec"]
    assert spec(where) == spec(on)


def test_where_keeps_what_does_not_join_both_sides(env):
    plan = env.compile_sql("INSERT INTO Snk SELECT L.k, L.v, R.w FROM L JOIN R ON L.k = R.k "
                           "WHERE L.t BETWEEN R.t AND R.t + INTERVAL '1' SECOND AND L.v <> R.w "
                           "AND L.v = 'x'")
    nodes = plan.to_json()["nodes"]
    join = next(n for n in nodes if n["type"] == "stream-exec-interval-join_2")
    assert join["intervalJoinSpec"]["joinSpec"]["nonEquiCondition"] == "`v` <> `w`"
    calc = next(n for n in nodes if n["type"] == "stream-exec-calc_1")
    assert calc["condition"] == "`v` = 'x'"


def test_an_outer_join_keeps_time_bounds_in_where_as_a_filter(env):
    plan = env.compile_sql("INSERT INTO ChangeSnk SELECT L.k, L.v, R.w FROM L LEFT JOIN R ON "
                           "L.k = R.k WHERE L.t BETWEEN R.t AND R.t + INTERVAL '1' SECOND")
    assert "stream-exec-join_2" in node_types(plan)


@pytest.mark.parametrize("from_", ["L, R", "L CROSS JOIN R"])
def test_a_join_without_a_joining_condition_has_no_keys(env, from_):
    """Flink: a regular join with no equi keys, all rows under one constant key."""
    plan = env.compile_sql(f"INSERT INTO Snk SELECT L.k, L.v, R.w FROM {from_} WHERE L.k = 1")
    join = next(n for n in plan.nodes if n.type == "stream-exec-join_2")
    spec = join.join_spec
    assert (spec.join_type, spec.left_keys, spec.right_keys, spec.non_equi_condition) == \
        ("INNER", [], [], None)
    assert "where=[TRUE]" in join.description


@pytest.mark.parametrize("where, join_type, keys, non_equi", [
    ("k IN (SELECT k FROM R)", "SEMI", ([0], [0]), None),
    ("k NOT IN (SELECT k FROM R)", "ANTI", ([], []),
     "(`k` IS NULL OR `k0` IS NULL OR (`k` = `k0`))"),
    ("EXISTS (SELECT * FROM R WHERE R.w = L.v AND R.k > 1)", "SEMI", ([1], [0]), None),
    ("NOT EXISTS (SELECT 1 FROM R WHERE w = v)", "ANTI", ([1], [0]), None),
    ("k IN (SELECT k FROM R WHERE R.w = L.v)", "SEMI", ([0, 1], [0, 1]), None),
])
def test_subquery_predicates_are_semi_and_anti_joins_outputting_the_left_row(
        env, where, join_type, keys, non_equi):
    plan = env.compile_sql(f"INSERT INTO ChangeSnk SELECT k, v, v FROM L WHERE {where} AND k > 0")
    join = next(n for n in plan.nodes if n.type == "stream-exec-join_2")
    spec = join.join_spec
    assert (spec.join_type, (spec.left_keys, spec.right_keys), spec.non_equi_condition) == \
        (join_type, keys, non_equi)
    assert join.row_type.names == ["k", "v", "t"]
    assert f"joinType=[Left{join_type.title()}Join]" in join.description
    calc = plan.nodes[-2]                      # the rest of WHERE filters the join's output
    assert calc.condition == "`k` > 0"


def test_not_in_over_not_null_columns_is_an_equi_key(env):
    env.execute_sql("CREATE TABLE A (k INT NOT NULL, v STRING) WITH ('connector' = 'values');"
                    "CREATE TABLE B (k INT NOT NULL) WITH ('connector' = 'values')")
    plan = env.compile_sql("INSERT INTO ChangeSnk SELECT k, v, v FROM A WHERE k NOT IN "
                           "(SELECT k FROM B)")
    spec = next(n for n in plan.nodes if n.type == "stream-exec-join_2").join_spec
    assert (spec.join_type, spec.left_keys, spec.right_keys, spec.non_equi_condition) == \
        ("ANTI", [0], [0], None)


@pytest.mark.parametrize("sql, construct", [
    ("SELECT k, v, v FROM L WHERE k IN (SELECT k FROM R) OR k = 1",
     r"<script>:1:1: unsupported: subquery in an expression: 'k IN \(SELECT k FROM R\)' .*"
     r"SEMI or ANTI stream-exec-join"),
    ("SELECT k, (SELECT MAX(k) FROM R), v FROM L", "subquery in an expression"),
    ("SELECT k, v, v FROM L WHERE (k, v) IN (SELECT k, w FROM R)",
     r"on the left of IN \(only a column"),
    ("SELECT k, v, v FROM L WHERE k IN (SELECT k, w FROM R)", "a subquery of 2 columns"),
    ("SELECT k, v, v FROM L WHERE EXISTS (SELECT 1 FROM R WHERE R.k > L.k)",
     r"the correlated condition 'R.k > L.k' .* in EXISTS \(SELECT \.\.\.\)"),
    ("SELECT k, v, v FROM L WHERE EXISTS (SELECT MAX(w) FROM R WHERE R.k = L.k)",
     "an aggregate in a correlated subquery"),
    ("SELECT L.k, L.v, R.w FROM L LEFT SEMI JOIN R ON L.k = R.k",
     r"SEMI join \(write it as WHERE \[NOT\] EXISTS"),
])
def test_unsupported_subqueries_are_named_with_the_node_they_need(env, sql, construct):
    with pytest.raises(UnsupportedSqlError, match=construct):
        env.compile_sql(f"INSERT INTO ChangeSnk {sql}")


def test_early_fire_into_insert_only_sink_names_the_hint(env):
    with pytest.raises(ChangelogModeError, match=r"Table sink 'Snk' doesn't support consuming update.*"
                                                 r"EARLY_FIRE\('delay'='2000 ms'\)"):
        compile_join(env, hint="/*+ EARLY_FIRE('delay'='2s') */", sink="Snk")


def test_early_fire_on_inner_join_stays_insert_only(env):
    # Planning into the insert-only sink 'Snk' succeeds (the LEFT join fails, test above) ...
    plan = compile_join(env, kind="INNER", hint="/*+ EARLY_FIRE('delay'='2s') */", sink="Snk")
    # ... because every node, the join included, produces inserts only.
    modes = check_changelog(plan)
    join = next(n for n in plan.nodes if n.type == "stream-exec-interval-join_2")
    assert modes[join.id] == frozenset({RowKind.INSERT})
    assert set(modes.values()) == {frozenset({RowKind.INSERT})}


@pytest.mark.parametrize("hint, message", [
    ("EARLY_FIRE('time_mode'='rowtime')", "EARLY_FIRE needs option 'delay'"),
    ("EARLY_FIRE('delay'='soon')", "option 'delay': 'soon' is not a duration"),
    ("EARLY_FIRE('delay'='0s')", "'delay' must be positive"),
    ("EARLY_FIRE('delay'='1s', 'mode'='x')", "unknown option 'mode'"),
    ("EARLY_FIRE('delay'='1s', 'time_mode'='wallclock')", "'time-mode' must be 'rowtime' or 'proctime'"),
    ("EARLY_FIRE('delay'='1s', 'time_mode'='proctime')", "single time mode"),
    ("EARLY_FIRE('delay'='1s', 'time-mode'='proctime')", "single time mode"),
    ("EARLY_FIRE('delay'='1s', 'time-mode'='rowtime', 'TIME_MODE'='rowtime')",
     "option 'time-mode' is given twice"),
    ("BROADCAST('a'='b')", "unknown hint 'BROADCAST'"),
])
def test_early_fire_planning_errors_name_key_and_reason(env, hint, message):
    with pytest.raises(PlanningError, match=message):
        compile_join(env, hint=f"/*+ {hint} */")


def test_early_fire_error_points_at_the_hint(env):
    hint = "/*+ EARLY_FIRE('time_mode'='rowtime') */"
    with pytest.raises(PlanningError, match=r"^<script>:1:\d+: EARLY_FIRE needs option 'delay'") as info:
        compile_join(env, hint=hint)
    sql = "INSERT INTO ChangeSnk " + JOIN.format(hint=hint, kind="LEFT")     # what compile_join runs
    assert str(info.value).startswith(f"<script>:1:{sql.index('/*+') + 1}: ")


@pytest.mark.parametrize("sql, construct", [
    ("INSERT INTO Snk SELECT k, v, MAX(v) FROM L GROUP BY k, GROUPING SETS ((v), (v))",
     r"the grouping set \(k, v\) more than once"),
    ("INSERT INTO Snk SELECT k, v, APPROX_COUNT_DISTINCT(v) FROM L GROUP BY k, v",
     "aggregate function"),
    ("INSERT INTO Snk SELECT k, v, COUNT(*) FROM L GROUP BY k, v, SESSION(t)",
     r"GROUP BY SESSION\(...\): SESSION takes \(ts, INTERVAL gap\) \(Flink's legacy group "
     r"window aggregate\); write the window table-valued function instead: FROM TABLE\(TUMBLE"),
    ("INSERT INTO Snk SELECT k, v, COUNT(*) FROM L GROUP BY UPPER(k), v, "
     "SESSION(t, INTERVAL '1' SECOND)",
     r"GROUP BY SESSION\(...\) with a key that is no column .*FROM TABLE\(SESSION\(TABLE t "
     r"PARTITION BY keys"),
    ("INSERT INTO Snk SELECT k, v, COUNT(*) FROM L GROUP BY k, v, HOP(t, INTERVAL '1' SECOND)",
     r"HOP takes \(ts, INTERVAL slide, INTERVAL size\)"),
    ("INSERT INTO Snk SELECT L.k, L.v, COUNT(*) FROM L JOIN R ON L.k = R.k "
     "GROUP BY L.k, L.v, TUMBLE(L.t, INTERVAL '1' SECOND)", r"TUMBLE\(...\) over a join"),
    ("INSERT INTO Snk SELECT k, v, TUMBLE_PROCTIME(t, INTERVAL '1' SECOND) FROM L "
     "GROUP BY k, v, TUMBLE(t, INTERVAL '1' SECOND)", r"TUMBLE_PROCTIME\(...\)"),
    ("INSERT INTO Snk SELECT k, v, TUMBLE_END(t, INTERVAL '2' SECOND) FROM L "
     "GROUP BY k, v, TUMBLE(t, INTERVAL '1' SECOND)", r"names another window than GROUP BY"),
    ("INSERT INTO Snk SELECT k, v, COLLECT(v) FROM L GROUP BY k, v",
     r"aggregate function COLLECT \("),       # not a column "neither grouped nor aggregated"
    ("INSERT INTO Snk SELECT DISTINCT k, v, MAX(v) FROM L GROUP BY k, v",
     "SELECT DISTINCT with GROUP BY, HAVING, aggregates or OVER"),
    ("INSERT INTO Snk SELECT k, v, v FROM L INTERSECT ALL SELECT k, v, v FROM L",
     "INTERSECT ALL"),
    ("INSERT INTO Snk SELECT k, v, COUNT(v) FILTER (WHERE MAX(v) > 'a') FROM L GROUP BY k, v",
     r"aggregate MAX\(v\) in the FILTER of COUNT\(v\)"),
    ("INSERT INTO Snk SELECT L.k, L.v, R.w FROM L CROSS JOIN R ON L.k = R.k", "CROSS join with ON"),
    ("INSERT INTO Snk SELECT k, v, v FROM L WHERE k IN (SELECT k FROM R) OR k = 1",
     "subquery in an expression"),
    ("INSERT INTO Snk SELECT k, v, v FROM L ORDER BY k", "ORDER BY"),
])
def test_unsupported_constructs_are_named(env, sql, construct):
    with pytest.raises(UnsupportedSqlError, match=construct):
        env.compile_sql(sql)


def test_an_unbounded_rows_frame_on_a_column_that_is_no_time_attribute_is_planned(env):
    """ROWS BETWEEN UNBOUNDED PRECEDING on a non-time ORDER BY: an over aggregate running
    Flink's NonTimeRowsUnboundedPrecedingFunction (once refused by name), its output a
    changelog."""
    plan = env.compile_sql("INSERT INTO ChangeSnk SELECT k, v, MAX(v) OVER (PARTITION BY k "
                           "ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM L")
    (over,) = [n for n in plan.nodes if n.type.startswith("stream-exec-over-aggregate")]
    assert over.group.is_rows and over.non_time
    assert set(plan.nodes[-1].input_changelog_mode) == {"INSERT", "UPDATE_BEFORE",
                                                          "UPDATE_AFTER", "DELETE"}


def test_syntax_errors_report_line_and_column(env):
    with pytest.raises(SqlSyntaxError, match="expected SELECT after INSERT INTO Snk, found 'SELEC'") as err:
        env.execute_sql("SET 'a' = 'b';\nINSERT INTO Snk SELEC k FROM L")
    assert (err.value.line, err.value.column) == (2, 17)
    assert err.value.column == "INSERT INTO Snk SELEC k FROM L".index("SELEC") + 1


def test_unknown_column_and_table_are_named(env):
    with pytest.raises(PlanningError, match="column 'nope' not found"):
        env.compile_sql("INSERT INTO Snk SELECT k, nope, v FROM L")
    with pytest.raises(PlanningError, match="table 'Nope' is not defined"):
        env.compile_sql("INSERT INTO Snk SELECT * FROM Nope")


def test_column_count_mismatch_with_sink(env):
    with pytest.raises(PlanningError, match=r"column count of the query \(2\) and of sink 'Snk' \(3"):
        env.compile_sql("INSERT INTO Snk SELECT k, v FROM L")


def test_edited_plan_with_unknown_node_type_fails_naming_node(env):
    raw = compile_join(env, sink="Snk").to_json()
    assert (raw["nodes"][4]["id"], raw["nodes"][4]["type"]) == (5, "stream-exec-interval-join_2")
    raw["nodes"][4]["type"] = "stream-exec-teleport_1"
    with pytest.raises(PlanFormatError, match=r"node 5: unknown node type 'stream-exec-teleport_1'"):
        parse_plan(json.dumps(raw), "edited.json")


def test_edited_plan_with_removed_version_says_which_versions_exist(env):
    raw = compile_join(env, sink="Snk").to_json()
    assert (raw["nodes"][4]["id"], raw["nodes"][4]["type"]) == (5, "stream-exec-interval-join_2")
    raw["nodes"][4]["type"] = "stream-exec-interval-join_7"
    with pytest.raises(PlanVersionError, match=rf"version 7 of 'stream-exec-interval-join' is not "
                                               rf"supported by engine {ENGINE_VERSION} \(supported "
                                               rf"versions: 1, 2\)"):
        parse_plan(json.dumps(raw), "edited.json")


def test_edited_plan_with_missing_field_names_node_and_field(env):
    raw = compile_join(env, sink="Snk").to_json()
    assert (raw["nodes"][4]["id"], raw["nodes"][4]["type"]) == (5, "stream-exec-interval-join_2")
    del raw["nodes"][4]["intervalJoinSpec"]
    with pytest.raises(PlanFormatError, match=r"edited.json: node 5 .* field 'intervalJoinSpec': Field required"):
        parse_plan(json.dumps(raw), "edited.json")


def test_plan_older_than_min_plan_version_is_refused_with_remedy(env):
    raw = compile_join(env, sink="Snk").to_json()
    raw["engineVersion"] = "0.0"
    with pytest.raises(PlanVersionError, match=r"needs a plan written by engine >= 0.1 \(min_plan_version\).*Migrate: recompile"):
        parse_plan(json.dumps(raw), "old.json")


def test_explain_shows_the_outer_join_and_the_updates_early_fire_adds(env):
    # (Formerly named test_state_ttl_edits_survive_explain; it never looked at state TTL: these
    # plans carry no per-input `state` entries to edit.)
    text = explain_plan(compile_join(env, hint="/*+ EARLY_FIRE('delay'='2s') */"))
    assert "IntervalJoin(joinType=[LeftOuterJoin]" in text
    assert "changelog=I,UB,UA" in text
    join_line = next(line for line in text.splitlines() if "IntervalJoin(" in line)
    assert "[#5 stream-exec-interval-join_2; changelog=I,UB,UA;" in join_line
    assert "earlyFire=[delay=2000 ms, timeMode=ROWTIME]" in join_line
    scan_lines = [line for line in text.splitlines() if "TableSourceScan(" in line]
    assert len(scan_lines) == 2 and all("changelog=I]" in line for line in scan_lines)


def test_integer_division_is_integral_as_in_flink(env):
    plan = env.compile_sql("INSERT INTO Snk SELECT k / 2, v, CAST(k / 2.0 AS STRING) FROM L")
    calc = next(n for n in plan.to_json()["nodes"] if n["type"] == "stream-exec-calc_1")
    assert calc["projection"][0] == "CAST(`k` DIV 2 AS INT)"
    assert "DIV" not in calc["projection"][2]


def test_nested_integer_division_rewrites_inner_first(env):
    plan = env.compile_sql("INSERT INTO Snk SELECT (k / 2) / 3, v, v FROM L")
    calc = next(n for n in plan.to_json()["nodes"] if n["type"] == "stream-exec-calc_1")
    assert calc["projection"][0] == "CAST((CAST(`k` DIV 2 AS INT)) DIV 3 AS INT)"


def test_narrowing_into_a_sink_column_needs_an_explicit_cast(env):
    env.execute_sql("CREATE TABLE Narrow (a INT, b BIGINT) WITH ('connector' = 'values')")
    with pytest.raises(PlanningError, match=r"of type DOUBLE cannot be written to sink column 'a' "
                                            r"of type INT; add an explicit CAST"):
        env.compile_sql("INSERT INTO Narrow SELECT CAST(k AS DOUBLE) * 1.5, k FROM L")
    plan = env.compile_sql("INSERT INTO Narrow SELECT k, k FROM L")   # INT widens to BIGINT
    calc = next(n for n in plan.to_json()["nodes"] if n["type"] == "stream-exec-calc_1")
    assert calc["projection"] == ["`k`", "CAST(`k` AS BIGINT)"]


# --- processing-time interval joins (Flink's ProcTimeIntervalJoin) -----------------------------

PROC_TABLES = """
CREATE TABLE PL (k INT, v STRING, pt AS PROCTIME(), et TIMESTAMP(3),
                 WATERMARK FOR et AS et - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE TABLE PR (k INT, w STRING, pt AS PROCTIME(), et TIMESTAMP(3),
                 WATERMARK FOR et AS et - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE TABLE PSnk (k INT, v STRING, w STRING) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""


def _proc_join(hint: str = "", join: str = "LEFT JOIN", time: str = "PL.pt") -> str:
    return (f"INSERT INTO PSnk SELECT {hint} PL.k, PL.v, PR.w FROM PL {join} PR ON PL.k = PR.k "
            f"AND {time} BETWEEN PR.pt - INTERVAL '5' SECOND AND PR.pt + INTERVAL '5' SECOND")


def test_bounds_on_proctime_attributes_plan_a_processing_time_interval_join():
    from streamplan.testing import TableEnvironment

    env = TableEnvironment()
    env.execute_sql(PROC_TABLES)
    plan = env.compile_sql(_proc_join("/*+ EARLY_FIRE('delay'='2s') */"))
    (join,) = [n for n in plan.nodes if n.type.startswith("stream-exec-interval-join")]
    assert join.interval_join_spec.window_bounds.is_event_time is False
    assert join.early_fire_time_mode == "PROCTIME"                 # the join's own by default
    assert (join.interval_join_spec.window_bounds.left_time_index,
            join.interval_join_spec.window_bounds.right_time_index) == (2, 2)   # pt, not et
    assert "isRowTime=false" in join.description
    with pytest.raises(PlanningError, match="'time-mode'='rowtime'\\) needs an event-time join"):
        env.compile_sql(_proc_join("/*+ EARLY_FIRE('delay'='2s', 'time-mode'='rowtime') */"))
    with pytest.raises(PlanningError, match="mixes a rowtime and a proctime attribute"):
        env.compile_sql(_proc_join(time="PL.et"))


def test_a_plan_edited_to_fire_early_in_the_other_time_domain_is_refused_when_loaded():
    import json

    from streamplan.errors import PlanFormatError
    from streamplan.plan import parse_plan
    from streamplan.testing import TableEnvironment

    env = TableEnvironment()
    env.execute_sql(PROC_TABLES)
    plan = env.compile_sql(_proc_join("/*+ EARLY_FIRE('delay'='2s') */")).to_json()
    (join,) = [n for n in plan["nodes"] if n["type"].startswith("stream-exec-interval-join")]
    join["earlyFireTimeMode"] = "ROWTIME"
    with pytest.raises(PlanFormatError, match="earlyFireTimeMode ROWTIME on a processing-time "
                                              "interval join .* single time mode"):
        parse_plan(json.dumps(plan), "plan.json")


def test_any_numeric_goes_into_a_decimal_sink_column_and_what_does_not_fit_is_null(env, spark):
    # Flink: DECIMAL is implicit from the whole NUMERIC family (LogicalTypeCasts), and its
    # decimal cast gives NULL for a value the precision cannot hold
    env.execute_sql("CREATE TABLE Dec (a DECIMAL(4, 1), b DECIMAL(4, 1)) WITH ('connector' = 'values')")
    plan = env.compile_sql("INSERT INTO Dec SELECT CAST(k AS DECIMAL(38, 2)) * 100, "
                           "CAST(v AS DOUBLE) FROM L")
    calc = next(n for n in plan.to_json()["nodes"] if n["type"] == "stream-exec-calc_1")
    assert all(p.startswith("TRY_CAST(") and p.endswith(" AS DECIMAL(4,1))")
               for p in calc["projection"])
    fitted = spark.sql("SELECT TRY_CAST(CAST(123456 AS DECIMAL(38, 2)) AS DECIMAL(4,1)) AS big, "
                       "TRY_CAST(CAST(12.34 AS DECIMAL(38, 2)) AS DECIMAL(4,1)) AS small").first()
    assert fitted.big is None and str(fitted.small) == "12.3"


LAG_QUERY = ("INSERT INTO Snk SELECT k, v, CAST(LAG(k, 2, -1) OVER (PARTITION BY k ORDER BY t) "
             "AS STRING) FROM L")


def over_node_of(plan_json: dict) -> dict:
    return next(n for n in plan_json["nodes"] if n["type"] == "stream-exec-over-aggregate_1")


def translated_over(plan_json: dict):
    """The over aggregate node of a loaded plan, checked as translation checks it."""
    plan = parse_plan(json.dumps(plan_json))
    node = next(n for n in plan.nodes if n.type == "stream-exec-over-aggregate_1")
    return node.runtime_params(plan.inputs_of(node)[0].row_type)


def test_lag_plans_its_offset_and_default_as_constants_below_the_over_aggregate(env):
    plan = env.compile_sql(LAG_QUERY).to_json()
    (call,) = over_node_of(plan)["overSpec"]["groups"][0]["aggCalls"]
    assert call["function"] == "LAG" and call["type"] == "INT" and len(call["argList"]) == 3
    calc = next(n for n in plan["nodes"] if n["type"] == "stream-exec-calc_1")
    assert calc["projection"][-2:] == ["CAST(2 AS INT)", "CAST(-1 AS INT)"]
    translated_over(plan)                      # the plan as compiled passes the node's checks


@pytest.mark.parametrize("change, message", [
    (lambda group: group["lowerBound"].update(kind="PRECEDING", interval="2000 ms"),
     "LAG in a bounded frame"),
    (lambda group: group["aggCalls"][0].update(argList=group["aggCalls"][0]["argList"][:1] * 4),
     "LAG takes 1 to 3 arguments"),
    (lambda group: group["aggCalls"][0].update(argList=[0, 1]), "LAG's offset is input field 1"),
])
def test_a_plan_with_lag_the_node_cannot_run_is_refused_by_name(env, change, message):
    plan = env.compile_sql(LAG_QUERY).to_json()
    change(over_node_of(plan)["overSpec"]["groups"][0])
    with pytest.raises(PlanFormatError, match=message):
        translated_over(plan)


def test_lag_with_a_frame_or_a_column_default_is_refused(env):
    with pytest.raises(PlanningError, match="ROW/RANGE not allowed"):
        env.compile_sql("INSERT INTO Snk SELECT k, v, CAST(LAG(k) OVER (PARTITION BY k ORDER BY t "
                        "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS STRING) FROM L")
    with pytest.raises(UnsupportedSqlError, match="LAG with the default"):
        env.compile_sql("INSERT INTO Snk SELECT k, v, CAST(LAG(k, 1, k) OVER (PARTITION BY k "
                        "ORDER BY t) AS STRING) FROM L")


def test_variance_reduces_to_welford_m2_and_count_as_flink_plans_it(env):
    plan = env.compile_sql("INSERT INTO ChangeSnk SELECT k, CAST(STDDEV_SAMP(k) AS STRING), "
                           "CAST(VAR_POP(k) AS STRING) FROM L GROUP BY k").to_json()
    agg = next(n for n in plan["nodes"] if n["type"] == "stream-exec-group-aggregate_2")
    assert [c["function"] for c in agg["aggCalls"]] == ["WELFORD_M2", "COUNT"]
    assert agg["aggCalls"][0]["type"] == "DOUBLE"
    projection = " ".join(next(n for n in plan["nodes"] if n["id"] == agg["id"] + 1)["projection"])
    assert "POWER(" in projection and "CASE WHEN" in projection and "AS INT)" in projection


@pytest.mark.parametrize("query, message", [
    ("SELECT v, CAST(STDDEV(DISTINCT k) AS STRING), '' FROM L GROUP BY v", "without DISTINCT"),
    ("SELECT v, CAST(VARIANCE(v) AS STRING), '' FROM L GROUP BY v",
     "VARIANCE of a STRING argument"),
])
def test_variance_the_group_aggregate_cannot_run_is_refused_by_name(env, query, message):
    with pytest.raises(UnsupportedSqlError, match=message):
        env.compile_sql("INSERT INTO Snk " + query)


def test_variance_in_a_window_runs_in_both_phases_as_flink_plans_it(env):
    """PyFlink 2.3's EXPLAIN: LocalWindowAggregate($WELFORD_M2$1(k) AS $welford_m2$1$0,
    COUNT(k) AS count$1, ...) and GlobalWindowAggregate($WELFORD_M2$1($welford_m2$1$0), ...)."""
    plan = env.compile_sql(
        "INSERT INTO Snk SELECT 1, CAST(STDDEV_POP(k) AS STRING), '' FROM TABLE(TUMBLE(TABLE L, "
        "DESCRIPTOR(t), INTERVAL '1' SECOND)) GROUP BY window_start, window_end").to_json()
    local, global_ = (next(n for n in plan["nodes"] if n["type"] == f"stream-exec-{phase}-window-"
                           f"aggregate_1") for phase in ("local", "global"))
    assert [c["function"] for c in local["aggCalls"]] == ["WELFORD_M2", "COUNT"]
    assert [c["function"] for c in global_["aggCalls"]] == ["WELFORD_M2", "COUNT"]
    assert "$welford_m2$1$0" in local["outputType"]


def test_an_over_aggregate_after_a_where_keeps_its_processing_time_order(spark):
    """The WHERE's calc below the over aggregate keeps the processing-time attribute, so the
    node runs Flink's processing-time function (insert-only), not the non-time one."""
    env = TableEnvironment(spark=spark)
    env.execute_sql("CREATE TABLE P (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = "
                    "'values'); CREATE TABLE Out2 (k STRING, c BIGINT) WITH ('connector' = "
                    "'values', 'sink-insert-only' = 'false')")
    plan = env.compile_sql("INSERT INTO Out2 SELECT k, COUNT(*) OVER (PARTITION BY k ORDER BY pt) "
                           "FROM P WHERE v > 1")
    (over,) = [node for node in plan.nodes if node.type == "stream-exec-over-aggregate_1"]
    assert not over.non_time and plan.inputs_of(over)[0].row_type.fields[2].proctime
    assert plan.sinks[0].input_changelog_mode == ["INSERT"]


def test_first_and_last_value_run_in_the_over_aggregate_on_a_time_order_only(env):
    """Over a time attribute they keep values in arrival order (Flink's *WithRetract
    functions); Flink's non-time over aggregate takes them in sort order: refused by name."""
    plan = env.compile_sql(
        "INSERT INTO Snk SELECT k, FIRST_VALUE(v) OVER w, LAST_VALUE(v) OVER w FROM L "
        "WINDOW w AS (PARTITION BY k ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)"
    ).to_json()
    over = next(n for n in plan["nodes"] if n["type"] == "stream-exec-over-aggregate_1")
    calls = over["overSpec"]["groups"][0]["aggCalls"]
    assert [c["function"] for c in calls] == ["FIRST_VALUE", "LAST_VALUE"]
    with pytest.raises(UnsupportedSqlError, match=r"LAST_VALUE\(\) OVER a non-time ORDER BY"):
        env.compile_sql("INSERT INTO Snk SELECT k, v, LAST_VALUE(v) OVER (PARTITION BY k "
                        "ORDER BY k) FROM L")


SPLIT_DDL = """
CREATE TABLE ST (a INT, b BIGINT, c STRING) WITH ('connector' = 'values');
CREATE TABLE SS (a INT, x BIGINT, y STRING, PRIMARY KEY (a) NOT ENFORCED)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""


def split_env(spark, ddl: str = SPLIT_DDL, **options):
    environment = TableEnvironment(spark=spark)
    environment.config.set("table.optimizer.distinct-agg.split.enabled", "true")
    for key, value in options.items():
        environment.config.set(key, value)
    environment.execute_sql(ddl)
    return environment


def test_split_distinct_plans_flinks_expand_partial_and_final_aggregates(spark):
    """SplitAggregateRule: a bucket per hashed argument, one expand copy per group set ($e as
    ExpandUtil.genExpandId numbers them), a filter per set, a partial and a final aggregate."""
    plan = split_env(spark).compile_sql(
        "INSERT INTO SS SELECT a, COUNT(DISTINCT b), MIN(c) FROM ST GROUP BY a")
    assert [node.type for node in plan.nodes] == [
        "stream-exec-table-source-scan_1", "stream-exec-calc_1", "stream-exec-expand_1",
        "stream-exec-calc_1", "stream-exec-group-aggregate_2", "stream-exec-group-aggregate_2",
        "stream-exec-sink_1"]
    expand, filters, partial, final = plan.nodes[2:6]
    assert expand.description == ("Expand(projects=[{a, b, c, $f3, null AS $f4, 1 AS $e}, "
                                  "{a, b, c, null AS $f3, $f4, 2 AS $e}])")
    assert list(filters.row_type.names[-2:]) == ["$g_1", "$g_2"]
    assert partial.grouping == [0, 3, 4]
    assert [(c.function, c.distinct, c.filter_arg) for c in partial.agg_calls] == [
        ("COUNT", True, 5), ("MIN", False, 6)]
    assert [(c.function, c.arg_list) for c in final.agg_calls] == [("SUM0", [3]), ("MIN", [4])]
    assert final.need_retraction and "partialFinalType=[FINAL]" in final.description


SPLIT_MINI_BATCH = {"table.exec.mini-batch.enabled": "true",
                    "table.exec.mini-batch.allow-latency": "1 s", "table.exec.mini-batch.size": "2"}


def test_split_distinct_under_mini_batch_plans_flinks_incremental_aggregate(spark):
    """IncrementalAggregateRule: the partial local aggregate, the incremental one keyed by the
    partial key with the final key inside it, and the final global aggregate over the partial
    results (Flink 2.3's EXPLAIN and compiled plan for the same query)."""
    plan = split_env(spark, **SPLIT_MINI_BATCH).compile_sql(
        "INSERT INTO SS SELECT a, COUNT(DISTINCT b), MIN(c) FROM ST GROUP BY a")
    assert [node.type for node in plan.nodes] == [
        "stream-exec-table-source-scan_1", "stream-exec-mini-batch-assigner_1",
        "stream-exec-calc_1", "stream-exec-expand_1", "stream-exec-calc_1",
        "stream-exec-local-group-aggregate_1", "stream-exec-incremental-group-aggregate_1",
        "stream-exec-global-group-aggregate_1", "stream-exec-sink_1"]
    local, incremental, final = plan.nodes[5:8]
    assert local.grouping == [0, 3, 4] and "partialFinalType=[PARTIAL]" in local.description
    assert incremental.partial_agg_grouping == [0, 3, 4]
    assert incremental.final_agg_grouping == [0]
    assert [(c.function, c.distinct) for c in incremental.partial_original_agg_calls] == [
        ("COUNT", True), ("MIN", False)]
    assert incremental.row_type.names[0] == "a"
    assert [(c.function, c.arg_list) for c in final.agg_calls] == [("SUM0", [3]), ("MIN", [4])]
    assert "partialFinalType=[FINAL]" in final.description


@pytest.mark.parametrize("query, options, message", [
    ("SELECT a, COUNT(DISTINCT b), CAST(AVG(b) AS STRING) FROM ST GROUP BY a", {},
     "that split is not implemented here for AVG"),
    ("SELECT a, COUNT(DISTINCT b), c FROM ST GROUP BY a, c", {
        **SPLIT_MINI_BATCH, "table.optimizer.incremental-agg-enabled": "false"},
     "with table.optimizer.incremental-agg-enabled false"),
])
def test_split_distinct_variants_not_run_as_flink_are_refused_by_name(spark, query, options,
                                                                      message):
    with pytest.raises(UnsupportedSqlError, match=message):
        split_env(spark, **options).compile_sql("INSERT INTO SS " + query)


WINDOW_SPLIT_DDL = """
CREATE TABLE WT (k STRING, v INT, c STRING, d INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE TABLE WS (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, t INT, dc BIGINT)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""
WINDOW_SPLIT_SQL = ("INSERT INTO WS SELECT k, window_start, window_end, COUNT(*), SUM(v), "
                    "COUNT(DISTINCT c) FROM TABLE({window}) GROUP BY k, window_start, window_end")
CUMULATE_WT = "CUMULATE(TABLE WT, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)"


def window_split_env(spark, **options):
    return split_env(spark, WINDOW_SPLIT_DDL, **options)


def test_a_split_window_aggregate_is_a_partial_and_a_final_window_aggregate(spark):
    """Flink's SplitAggregateRule over a two-phase window aggregate: a bucket of the distinct
    argument, a partial local/global window aggregate by the keys and the bucket, a calc that
    puts the window's bounds after the keys, and a final local/global window aggregate with
    WindowAttached windowing ($SUM0 of the partial counts)."""
    plan = window_split_env(spark).compile_sql(WINDOW_SPLIT_SQL.format(window=CUMULATE_WT))
    types = [node.type for node in plan.nodes]
    assert types[-7:] == [
        "stream-exec-local-window-aggregate_1", "stream-exec-global-window-aggregate_1",
        "stream-exec-calc_1", "stream-exec-local-window-aggregate_1",
        "stream-exec-global-window-aggregate_1", "stream-exec-calc_1", "stream-exec-sink_1"]
    partial_local, partial_global, calc, final_local, final_global = plan.nodes[-7:-2]
    assert partial_local.grouping == [0, 4]          # k and the bucket of c
    assert partial_global.windowing.strategy == "SliceAttached"
    assert list(calc.row_type.names[:3]) == ["k", "window_start", "window_end"]
    assert (final_local.windowing.strategy, final_local.windowing.window_start,
            final_local.windowing.window_end) == ("WindowAttached", 1, 2)
    assert final_local.row_type.names[-1] == "$window_end"
    assert [c.function for c in final_global.agg_calls] == ["SUM0", "SUM", "SUM0"]
    assert final_global.windowing.window_start == -1
    assert final_global.windowing.window.type == "CumulativeWindow"
    assert "CUMULATE(win_end=[$window_end], max_size=[15 s], step=[5 s])" in \
        final_global.description
    # the plan's JSON loads back to the same plan
    assert parse_plan(plan.to_json_text()).to_json_text() == plan.to_json_text()


def test_windowattached_aggregates_refuse_an_input_that_is_not_fired_windows(spark):
    """Over fired windows no row is late, so a plan that gives WindowAttached windowing any
    other input is refused when it runs, naming the node: the final local aggregate over the
    source, the final global one over the sliced local aggregate."""
    from types import SimpleNamespace

    plan = window_split_env(spark).compile_sql(WINDOW_SPLIT_SQL.format(window=CUMULATE_WT))
    partial_local, _, _, final_local, final_global = plan.nodes[-7:-2]

    def fed(node):
        return SimpleNamespace(plan=SimpleNamespace(inputs_of=lambda _: [node]))
    with pytest.raises(PlanFormatError, match=rf"node {final_local.id} .*WindowAttached "
                                              r"windowing aggregates fired windows"):
        final_local.translate(fed(plan.nodes[0]), [None])
    with pytest.raises(PlanFormatError, match=rf"node {final_global.id} .*its input must be a "
                                              r"local window aggregate with WindowAttached"):
        final_global.run_params(fed(partial_local), final_local.row_type)
    one_phase = window_split_env(spark, **{"table.optimizer.agg-phase-strategy": "ONE_PHASE"}) \
        .compile_sql(WINDOW_SPLIT_SQL.format(window=CUMULATE_WT))
    final = one_phase.nodes[-3]
    with pytest.raises(PlanFormatError, match=rf"node {final.id} .*WindowAttached windowing "
                                              r"aggregates fired windows"):
        final.translate(fed(one_phase.nodes[0]), [None])


def test_a_one_phase_window_split_is_two_window_aggregates(spark):
    """With ONE_PHASE the partial and the final aggregate are one stream-exec-window-aggregate
    each, the final one WindowAttached, as Flink plans them."""
    plan = window_split_env(spark, **{"table.optimizer.agg-phase-strategy": "ONE_PHASE"}) \
        .compile_sql(WINDOW_SPLIT_SQL.format(window=CUMULATE_WT))
    partial, calc, final = plan.nodes[-5:-2]
    assert [n.type for n in (partial, final)] == ["stream-exec-window-aggregate_1"] * 2
    assert (partial.grouping, partial.windowing.strategy) == ([0, 4], "TimeAttribute")
    assert (final.windowing.strategy, final.windowing.window_start,
            final.windowing.window_end) == ("WindowAttached", 1, 2)
    assert [c.function for c in final.agg_calls] == ["SUM0", "SUM", "SUM0"]
    assert "CUMULATE(win_start=[window_start], win_end=[window_end]" in final.description
    assert parse_plan(plan.to_json_text()).to_json_text() == plan.to_json_text()


@pytest.mark.parametrize("window, aggregate", [
    ("SESSION(TABLE WT PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND)",
     "stream-exec-window-aggregate_1"),
    ("SESSION(TABLE WT, DESCRIPTOR(ts), INTERVAL '5' SECOND)", "stream-exec-group-aggregate_2"),
])
def test_a_session_window_aggregate_is_not_split(spark, window, aggregate):
    """Flink's SplitAggregateRule leaves session windows (and their TVF's group aggregate)
    unsplit: one aggregate with its distinct call, as without the option."""
    plan = window_split_env(spark).compile_sql(WINDOW_SPLIT_SQL.format(window=window))
    (node,) = [node for node in plan.nodes if "aggregate" in node.type]
    assert node.type == aggregate
    assert [call.distinct for call in node.agg_calls] == [False, False, True]


CDC_SESSION_DDL = """
CREATE TABLE CT (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'values', 'changelog-mode' = 'I,UA,UB,D');
CREATE TABLE CS (k STRING, we TIMESTAMP(3), x INT) WITH ('connector' = 'values',
  'sink-insert-only' = 'false');
"""
CDC_SESSION_SQL = ("INSERT INTO CS SELECT k, window_end, {call} FROM TABLE(SESSION(TABLE CT "
                   "PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND)) "
                   "GROUP BY k, window_start, window_end")


def test_a_session_window_aggregate_over_a_changelog_retracts(spark):
    """Flink's needRetraction: a session window aggregate takes an updating input; MIN / MAX
    (whose retraction keeps every value in Flink) are refused by name; the plan's field
    allows session windows and retracting calls only."""
    env = TableEnvironment(spark=spark)
    env.execute_sql(CDC_SESSION_DDL)
    plan = env.compile_sql(CDC_SESSION_SQL.format(call="SUM(v)")).to_json()
    (node,) = [n for n in plan["nodes"] if n["type"] == "stream-exec-window-aggregate_1"]
    assert node["needRetraction"] is True
    with pytest.raises(UnsupportedSqlError, match=r"MAX in a SESSION window aggregate over an "
                                                  r"updating input"):
        env.compile_sql(CDC_SESSION_SQL.format(call="MAX(v)"))
    node["aggCalls"][0]["function"] = "MIN"
    with pytest.raises(PlanFormatError, match=r"MIN cannot retract"):
        parse_plan(json.dumps(plan), "edited.json")
    node["aggCalls"][0]["function"] = "SUM"
    node["windowing"]["window"] = {"type": "TumblingWindow", "size": "5 s"}
    with pytest.raises(PlanFormatError, match=r"only a SESSION window aggregate takes an "
                                              r"updating input"):
        parse_plan(json.dumps(plan), "edited.json")


def test_a_window_split_of_first_value_is_refused_by_name(spark):
    """(FIRST_VALUE runs in a TUMBLE window aggregate.) The final window aggregate takes a
    fired window's partial rows in its own order, not the order Flink's partial aggregate
    emitted them in."""
    env = window_split_env(spark)
    env.execute_sql("CREATE TABLE WF (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), f STRING, "
                    "dc BIGINT) WITH ('connector' = 'values', 'sink-insert-only' = 'false')")
    with pytest.raises(UnsupportedSqlError, match="FIRST_VALUE with table.optimizer.distinct-agg"
                                                  ".split.enabled .*only for group aggregates"):
        env.compile_sql(
            "INSERT INTO WF SELECT k, window_start, window_end, FIRST_VALUE(c), COUNT(DISTINCT c) "
            "FROM TABLE(TUMBLE(TABLE WT, DESCRIPTOR(ts), INTERVAL '5' SECOND)) "
            "GROUP BY k, window_start, window_end")


def test_a_window_split_needing_two_buckets_is_refused_by_name(spark):
    with pytest.raises(UnsupportedSqlError, match="calls over two hashed arguments"):
        window_split_env(spark).compile_sql(
            "INSERT INTO WS SELECT k, window_start, window_end, COUNT(DISTINCT d), 0, "
            f"COUNT(DISTINCT c) FROM TABLE({CUMULATE_WT}) GROUP BY k, window_start, window_end")


@pytest.mark.parametrize("value, flink", [
    (-5_000_000_000, 705032702), (7, 7), (-1, 0),              # PyFlink 2.3's HASH_CODE
    (9_223_372_036_854_775_807, -2147483648), (-9_223_372_036_854_775_808, -2147483648)])
def test_the_bucket_of_a_bigint_is_flinks_hash_code(spark, value, flink):
    from streamplan.planner.split_distinct import hash_code
    from streamplan.types import parse_type

    text = hash_code("v", parse_type("BIGINT"), "<test>")
    (row,) = spark.sql(f"SELECT {text} AS h FROM (SELECT CAST({value} AS BIGINT) AS v)").collect()
    assert row.h == flink


def test_the_bucket_of_a_string_is_flinks_hash_code(spark):
    """Flink's split buckets a string by its HASH_CODE (PyFlink 2.3: in a split FIRST_VALUE,
    'aax' and 'bcy' share a bucket, as their Java hash codes do, and their murmur hashes do
    not): the calc calls the HASH_CODE built-in (tests/test_flink_builtins.py checks it against
    PyFlink's), recorded in the plan like any function."""
    plan = split_env(spark).compile_sql(
        "INSERT INTO SS SELECT a, COUNT(DISTINCT b), MIN(c) FROM ST GROUP BY a")
    calc = next(node for node in plan.nodes if node.type == "stream-exec-calc_1")
    assert calc.projection[-1] == "MOD(HASH_CODE(`c`), 1024)"
    assert [function.system_name for function in calc.functions] == ["hash_code"]


def test_a_lossless_cast_keeps_the_upsert_key_and_a_narrowing_one_does_not(spark):
    env = split_env(spark)
    env.compile_sql("INSERT INTO SS SELECT CAST(a AS INT), COUNT(*), '' FROM "
                    "(SELECT CAST(a AS SMALLINT) AS a FROM ST) GROUP BY a")
    env.execute_sql("CREATE TABLE SB (b INT, n BIGINT, PRIMARY KEY (b) NOT ENFORCED) "
                    "WITH ('connector' = 'values', 'sink-insert-only' = 'false')")
    with pytest.raises(PlanningError, match="upsert key that differs from the primary key"):
        env.compile_sql("INSERT INTO SB SELECT CAST(b AS INT), COUNT(*) FROM ST GROUP BY b")
