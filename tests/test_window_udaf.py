"""User-defined aggregate functions in window and over aggregates beyond their programs: a
session window merges accumulators through the function's merge (the TUMBLE and HOP cases
are program window-aggregate-udaf, with fixtures), and an over aggregate ordered by a
non-time column refuses them by name (program over-aggregate-udaf runs the time-ordered ones)."""
from __future__ import annotations

import pytest

from harness import SinkTestStep, SourceTestStep, TableTestProgram
from harness.runner import run_semantic
from programs import _functions as udfs
from streamplan.api import TableEnvironment
from streamplan.errors import UnsupportedSqlError

pytestmark = pytest.mark.spark


def test_a_udaf_merges_as_sessions_merge(spark):
    # rows at 1 s, 3 s and then 2 s: two sessions of key a merge when the 2 s row bridges them
    program = (
        TableTestProgram.of("window-aggregate-session-udaf", "a UDAF in a session window")
        .setup_temporary_system_function("my_avg_merge", udfs.WeightedAvgWithMerge)
        .setup_table_source(SourceTestStep.new_builder("T")
                            .add_schema("k STRING", "v BIGINT", "ts TIMESTAMP(3)",
                                        "WATERMARK FOR ts AS ts")
                            .producing_before_restore(["a", 1, "2024-01-01 00:00:01"],
                                                      ["a", 4, "2024-01-01 00:00:03"],
                                                      ["b", 10, "2024-01-01 00:00:04"],
                                                      ["a", 7, "2024-01-01 00:00:02"])
                            .producing_after_restore(["a", 100, "2024-01-01 00:00:30"],
                                                     ["b", 5, "2024-01-01 00:00:40"]).build())
        .setup_table_sink(SinkTestStep.new_builder("S")
                          .add_schema("k STRING", "ws TIMESTAMP(3)", "we TIMESTAMP(3)",
                                      "a BIGINT", "s BIGINT")
                          .consuming_before_restore(
                              "+I[a, 2024-01-01T00:00:01, 2024-01-01T00:00:08, 4, 12]",
                              "+I[b, 2024-01-01T00:00:04, 2024-01-01T00:00:09, 10, 10]")
                          .consuming_after_restore(
                              "+I[a, 2024-01-01T00:00:30, 2024-01-01T00:00:35, 100, 100]",
                              "+I[b, 2024-01-01T00:00:40, 2024-01-01T00:00:45, 5, 5]").build())
        .run_sql("INSERT INTO S SELECT k, window_start, window_end, my_avg_merge(v, 1), SUM(v) "
                 "FROM TABLE(SESSION(TABLE T PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND)) "
                 "GROUP BY k, window_start, window_end")
        .build())
    run_semantic(program, spark)


def test_a_udaf_over_a_non_time_order_runs_with_range_and_is_refused_with_rows(spark):
    env = TableEnvironment(spark=spark)
    env.execute_sql("""
        CREATE TEMPORARY SYSTEM FUNCTION my_sum AS 'programs._functions:VarSum1AggFunction'
          LANGUAGE PYTHON;
        CREATE TABLE T (k STRING, v INT, n INT) WITH ('connector' = 'values');
        CREATE TABLE S (k STRING, s BIGINT) WITH ('connector' = 'values',
                                                   'sink-insert-only' = 'false');""")
    plan = env.compile_sql("INSERT INTO S SELECT k, my_sum(v) OVER (PARTITION BY k ORDER BY n) "
                           "FROM T")
    (over,) = [node for node in plan.nodes if node.type.startswith("stream-exec-over-aggregate")]
    assert [call.function for call in over.over_spec.groups[0].agg_calls] == ["UDAF"]
    with pytest.raises(UnsupportedSqlError, match=r"my_sum\(\) OVER a non-time ORDER BY with ROWS"):
        env.compile_sql("INSERT INTO S SELECT k, my_sum(v) OVER (PARTITION BY k ORDER BY n ROWS "
                        "BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM T")


def over_env(spark):
    env = TableEnvironment(spark=spark)
    env.execute_sql("""
        CREATE TEMPORARY SYSTEM FUNCTION ltcnt AS 'programs._functions:LargerThanCount'
          LANGUAGE PYTHON;
        CREATE TABLE T (k STRING, a BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
          WITH ('connector' = 'values');
        CREATE TABLE S (k STRING, n BIGINT, c BIGINT) WITH ('connector' = 'values');""")
    return env


def over_of(plan):
    (over,) = [node for node in plan.nodes if node.type.startswith("stream-exec-over-aggregate")]
    return over


def test_a_constant_expression_argument_of_an_over_udaf_is_projected_below_it(spark):
    """Flink's OverAggregateTestPrograms call LTCNT(a, CAST('4' AS BIGINT)): a constant (no
    column) becomes a column of the calc under the over aggregate, as a literal does."""
    plan = over_env(spark).compile_sql(
        "INSERT INTO S SELECT k, ltcnt(a, CAST('4' AS BIGINT)) OVER w, COUNT(a) OVER w FROM T "
        "WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)")
    over = over_of(plan)
    (calc,) = plan.inputs_of(over)
    assert calc.projection[-1] == "CAST('4' AS BIGINT)"
    udaf, count = over.over_spec.groups[0].agg_calls
    assert udaf.arg_list == [1, len(calc.projection) - 1] and count.arg_list == [1]


@pytest.mark.parametrize("frame, rows, lower", [
    ("RANGE UNBOUNDED PRECEDING", False, "UNBOUNDED_PRECEDING"),
    ("ROWS 5 PRECEDING", True, "PRECEDING"),
    ("RANGE INTERVAL '10' SECOND PRECEDING", False, "PRECEDING")])
def test_a_frame_given_by_its_start_ends_at_the_current_row(spark, frame, rows, lower):
    """SQL's shorthand (Calcite's, so Flink's): `RANGE x PRECEDING` is `RANGE BETWEEN x
    PRECEDING AND CURRENT ROW`."""
    env = over_env(spark)
    plan = env.compile_sql(f"INSERT INTO S SELECT k, COUNT(a) OVER (PARTITION BY k ORDER BY ts "
                           f"{frame}), 0 FROM T")
    group = over_of(plan).over_spec.groups[0]
    assert (group.is_rows, group.lower_bound.kind, group.upper_bound.kind) == (
        rows, lower, "CURRENT_ROW")
