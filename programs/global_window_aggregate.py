"""Table test programs for stream-exec-global-window-aggregate (Flink's GlobalWindowAggregate,
the second phase of a two-phase window aggregate: Flink plans one for an event-time TUMBLE,
HOP or CUMULATE aggregate unless 'table.optimizer.agg-phase-strategy' is ONE_PHASE). Its state
is the one-phase window aggregate's: slices written before the restore fire after it. Flink's
own two-phase programs are filed under stream-exec-window-aggregate (programs/window_aggregate.py)
by their ids.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram
from .window_aggregate import CASCADE_FIRST_LEVEL, cascade_source

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# A tumbling window open at the restore fires after it with the rows of both sides.
TINY = (
    TableTestProgram.of("global-window-aggregate-tiny", "the slice of a two-phase tumbling "
                        "window open at the restore fires after it")
    .setup_config("table.optimizer.agg-phase-strategy", "TWO_PHASE")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "v INT", "ts TIMESTAMP(3)",
                                    "WATERMARK FOR ts AS ts")
                        .producing_before_restore(["a", 1, "2020-10-10 00:00:01"])
                        .producing_after_restore(["a", 2, "2020-10-10 00:00:04"],
                                                 ["a", 4, "2020-10-10 00:00:06"])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "window_end TIMESTAMP(3)", "total INT")
                      .consuming_before_restore()
                      .consuming_after_restore("+I[a, 2020-10-10T00:00:05, 3]",
                                               "+I[a, 2020-10-10T00:00:10, 4]").build())
    .run_sql("INSERT INTO S SELECT k, window_end, SUM(v) FROM TABLE(TUMBLE(TABLE T, "
             "DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end")
    .build())

# Hopping windows (size 10 s, slide 5 s) at the default phase strategy (AUTO: two phases).
# Before the restore the local aggregate folds a's two rows and the NULL key's two rows of
# slice (0 s, 5 s] (one micro-batch each in the phase shape) into one accumulator row each;
# the global aggregate keeps them as slices, and no window fires (watermark ts - 1 s reaches
# 4 s). After it, b's row at 12 s fires [-5 s, 5 s) and [0 s, 10 s), which merge the slices of
# both sides; the rest fire at the end of the input. Every kind of call: COUNT(*), SUM, MIN,
# MAX, COUNT(DISTINCT). Expected rows: PyFlink 2.3 on the same rows (TWO_PHASE; watermark
# interval 0 ms and 1 h alike).
GLOBAL_WINDOW_AGGREGATE_HOP_ACROSS_RESTORE = (
    TableTestProgram.of("global-window-aggregate-hop-across-restore",
                        "two-phase hopping windows whose slices straddle the restore, NULL keys "
                        "among them")
    .in_batches("phase")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "v INT", "ts TIMESTAMP(3)",
                                    "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND")
                        .producing_before_restore(["a", 1, "2020-10-10 00:00:01"],
                                                  ["a", 3, "2020-10-10 00:00:02"],
                                                  [None, 2, "2020-10-10 00:00:03"],
                                                  [None, 5, "2020-10-10 00:00:04"],
                                                  ["b", 4, "2020-10-10 00:00:05"])
                        .producing_after_restore(["a", 6, "2020-10-10 00:00:06"],
                                                 [None, 7, "2020-10-10 00:00:08"],
                                                 ["b", 1, "2020-10-10 00:00:12"])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "window_start TIMESTAMP(3)",
                                  "window_end TIMESTAMP(3)", "cnt BIGINT", "total INT", "mn INT",
                                  "mx INT", "dv BIGINT")
                      .consuming_before_restore()
                      .consuming_after_restore(
                          "+I[a, 2020-10-09T23:59:55, 2020-10-10T00:00:05, 2, 4, 1, 3, 2]",
                          "+I[null, 2020-10-09T23:59:55, 2020-10-10T00:00:05, 2, 7, 2, 5, 2]",
                          "+I[a, 2020-10-10T00:00, 2020-10-10T00:00:10, 3, 10, 1, 6, 3]",
                          "+I[null, 2020-10-10T00:00, 2020-10-10T00:00:10, 3, 14, 2, 7, 3]",
                          "+I[b, 2020-10-10T00:00, 2020-10-10T00:00:10, 1, 4, 4, 4, 1]",
                          "+I[a, 2020-10-10T00:00:05, 2020-10-10T00:00:15, 1, 6, 6, 6, 1]",
                          "+I[null, 2020-10-10T00:00:05, 2020-10-10T00:00:15, 1, 7, 7, 7, 1]",
                          "+I[b, 2020-10-10T00:00:05, 2020-10-10T00:00:15, 2, 5, 1, 4, 2]",
                          "+I[b, 2020-10-10T00:00:10, 2020-10-10T00:00:20, 1, 1, 1, 1, 1]")
                      .build())
    .run_sql("INSERT INTO S SELECT k, window_start, window_end, COUNT(*), SUM(v), MIN(v), "
             "MAX(v), COUNT(DISTINCT v) FROM TABLE(HOP(TABLE T, DESCRIPTOR(ts), "
             "INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end")
    .build())

# GROUPING SETS ((k), ()) on two-phase hopping windows (10 s sliding by 5 s): the local
# aggregate's accumulators are keyed by k and the expand id, so a window's total is a group of
# its own; COUNT(DISTINCT v) of the total merges its slices' distinct values. Slice (0 s, 5 s]
# (x 1, y 1) fires [-5 s, 5 s) before the restore and is merged into [0 s, 10 s) after it;
# the end of input fires the last windows.
GLOBAL_WINDOW_AGGREGATE_GROUPING_SETS_ACROSS_RESTORE = (
    TableTestProgram.of("global-window-aggregate-grouping-sets-across-restore",
                        "GROUPING SETS on two-phase hopping windows whose slices straddle the "
                        "restore: per key and total rows, distinct counts merged across slices")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "v INT", "ts TIMESTAMP(3)",
                                    "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND")
                        .producing_before_restore(["x", 1, "2020-10-10 00:00:01"],
                                                  ["y", 1, "2020-10-10 00:00:03"],
                                                  ["x", 2, "2020-10-10 00:00:06"])
                        .producing_after_restore(["y", 3, "2020-10-10 00:00:08"],
                                                 ["x", 2, "2020-10-10 00:00:11"])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "window_start TIMESTAMP(3)",
                                  "window_end TIMESTAMP(3)", "dv BIGINT", "mx INT")
                      .consuming_before_restore(
                          "+I[x, 2020-10-09T23:59:55, 2020-10-10T00:00:05, 1, 1]",
                          "+I[y, 2020-10-09T23:59:55, 2020-10-10T00:00:05, 1, 1]",
                          "+I[null, 2020-10-09T23:59:55, 2020-10-10T00:00:05, 1, 1]")
                      .consuming_after_restore(
                          "+I[x, 2020-10-10T00:00, 2020-10-10T00:00:10, 2, 2]",
                          "+I[y, 2020-10-10T00:00, 2020-10-10T00:00:10, 2, 3]",
                          "+I[null, 2020-10-10T00:00, 2020-10-10T00:00:10, 3, 3]",
                          "+I[x, 2020-10-10T00:00:05, 2020-10-10T00:00:15, 1, 2]",
                          "+I[y, 2020-10-10T00:00:05, 2020-10-10T00:00:15, 1, 3]",
                          "+I[null, 2020-10-10T00:00:05, 2020-10-10T00:00:15, 2, 3]",
                          "+I[x, 2020-10-10T00:00:10, 2020-10-10T00:00:20, 1, 2]",
                          "+I[null, 2020-10-10T00:00:10, 2020-10-10T00:00:20, 1, 2]")
                      .build())
    .run_sql("INSERT INTO S SELECT k, window_start, window_end, COUNT(DISTINCT v), MAX(v) "
             "FROM TABLE(HOP(TABLE T, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) "
             "GROUP BY window_start, window_end, GROUPING SETS ((k), ())")
    .build())

# STDDEV and VARIANCE in a two-phase tumbling window (Flink 2.3 reduces them to WELFORD_M2 and
# COUNT, planner/variance.py): the local aggregate accumulates a phase's rows of a window
# (Welford's update), the global one merges the accumulators (Flink's WelfordM2AggFunction
# .merge, Chan's form) of both sides of the restore. A phase a micro-batch, as Flink's local
# aggregate flushes at the savepoint and when the watermark passes a slice end. Window
# [0 s, 10 s) fires before the restore; [10 s, 20 s) merges a's rows of both sides; b's NULL d
# is skipped, c's one row gives the sample variance NULL. Expected rows: PyFlink 2.3 on the
# same rows.
GLOBAL_WINDOW_AGGREGATE_VARIANCE = (
    TableTestProgram.of("global-window-aggregate-variance",
                        "STDDEV and VARIANCE in a two-phase tumbling window: WELFORD_M2 "
                        "accumulators merged across the restore")
    .in_batches("phase")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "v INT", "d DOUBLE", "ts TIMESTAMP(3)",
                                    "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND")
                        .producing_before_restore(["a", 1, 1.5, "2020-10-10 00:00:01"],
                                                  ["a", 4, 2.5, "2020-10-10 00:00:02"],
                                                  ["b", 7, None, "2020-10-10 00:00:03"],
                                                  ["a", 9, -0.5, "2020-10-10 00:00:04"],
                                                  ["b", 2, 3.25, "2020-10-10 00:00:05"],
                                                  ["a", 5, 1.0, "2020-10-10 00:00:12"])
                        .producing_after_restore(["a", 7, 2.0, "2020-10-10 00:00:13"],
                                                 ["b", 3, 0.1, "2020-10-10 00:00:14"],
                                                 ["b", 8, 0.2, "2020-10-10 00:00:16"],
                                                 ["c", 1, 1.0, "2020-10-10 00:00:25"])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "window_start TIMESTAMP(3)", "sp INT", "vs INT",
                                  "ss DOUBLE", "vp DOUBLE")
                      .consuming_before_restore(
                          "+I[a, 2020-10-10T00:00, 3, 16, 1.5275252316519465, 1.5555555555555554]",
                          "+I[b, 2020-10-10T00:00, 2, 12, null, 0.0]")
                      .consuming_after_restore(
                          "+I[a, 2020-10-10T00:00:10, 1, 2, 0.7071067811865476, 0.25]",
                          "+I[b, 2020-10-10T00:00:10, 2, 12, 0.07071067811865475, "
                          "0.0024999999999999996]",
                          "+I[c, 2020-10-10T00:00:20, 0, null, null, 0.0]").build())
    .run_sql("INSERT INTO S SELECT k, window_start, STDDEV_POP(v), VAR_SAMP(v), STDDEV_SAMP(d), "
             "VAR_POP(d) FROM TABLE(TUMBLE(TABLE T, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
             "GROUP BY k, window_start, window_end")
    .build())

# Cascading windows in two phases (programs/window_aggregate.py: cascade_source)
GLOBAL_WINDOW_AGGREGATE_CASCADING_TUMBLE = (
    TableTestProgram.of("global-window-aggregate-cascading-tumble", "10 s windows over the window_time "
                        "of 5 s windows per key, two phases each: the 5 s windows fired by a "
                        "watermark are counted before it fires the 10 s window")
    .setup_table_source(cascade_source())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("ws TIMESTAMP(3)", "n BIGINT", "total BIGINT")
                      .consuming_before_restore("+I[2024-01-01T00:00, 4, 5]")
                      .consuming_after_restore("+I[2024-01-01T00:00:10, 4, 4]",
                                               "+I[2024-01-01T00:00:20, 2, 2]")
                      .build())
    .run_sql("INSERT INTO S " + CASCADE_FIRST_LEVEL.format(agg="COUNT(*) AS c")
             + "SELECT window_start, COUNT(*), SUM(c) FROM TABLE(TUMBLE(TABLE w1, DESCRIPTOR(wt), "
             "INTERVAL '10' SECOND)) GROUP BY window_start, window_end")
    .build())

# Flink's legacy group window syntax: GROUP BY TUMBLE(ts, size) with TUMBLE_START / TUMBLE_END,
# planned as the window TVF aggregate (planner/group_windows.py), two phases. Rows printed by
# PyFlink 2.3 for the same query, whose plan is a StreamExecGroupWindowAggregate; the late rows
# of `a` (ts 3 and 9) are dropped as there.
GLOBAL_WINDOW_AGGREGATE_LEGACY_GROUP_WINDOW = (
    TableTestProgram.of("global-window-aggregate-legacy-group-window", "GROUP BY TUMBLE(ts, "
                        "INTERVAL '5' SECOND) with TUMBLE_START and TUMBLE_END: the window TVF "
                        "aggregate's rows, late rows dropped")
    .setup_table_source(cascade_source())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "ws TIMESTAMP(3)", "we TIMESTAMP(3)", "c BIGINT",
                                  "sv INT")
                      .consuming_before_restore(
                          "+I[a, 2024-01-01T00:00, 2024-01-01T00:00:05, 2, 4]",
                          "+I[b, 2024-01-01T00:00, 2024-01-01T00:00:05, 1, 2]",
                          "+I[a, 2024-01-01T00:00:05, 2024-01-01T00:00:10, 1, 4]",
                          "+I[b, 2024-01-01T00:00:05, 2024-01-01T00:00:10, 1, 5]")
                      .consuming_after_restore(
                          "+I[c, 2024-01-01T00:00:10, 2024-01-01T00:00:15, 1, 7]",
                          "+I[b, 2024-01-01T00:00:10, 2024-01-01T00:00:15, 1, 8]",
                          "+I[a, 2024-01-01T00:00:10, 2024-01-01T00:00:15, 1, 9]",
                          "+I[c, 2024-01-01T00:00:15, 2024-01-01T00:00:20, 1, 11]",
                          "+I[b, 2024-01-01T00:00:20, 2024-01-01T00:00:25, 1, 12]",
                          "+I[a, 2024-01-01T00:00:25, 2024-01-01T00:00:30, 1, 13]")
                      .build())
    .run_sql("INSERT INTO S SELECT e.k, TUMBLE_START(ts, INTERVAL '5' SECOND), "
             "TUMBLE_END(ts, INTERVAL '5' SECOND), COUNT(*), SUM(e.v) FROM E AS e "
             "GROUP BY e.k, TUMBLE(ts, INTERVAL '5' SECOND)")
    .build())

PROGRAMS = [GLOBAL_WINDOW_AGGREGATE_CASCADING_TUMBLE, GLOBAL_WINDOW_AGGREGATE_LEGACY_GROUP_WINDOW,
            GLOBAL_WINDOW_AGGREGATE_HOP_ACROSS_RESTORE,
            GLOBAL_WINDOW_AGGREGATE_GROUPING_SETS_ACROSS_RESTORE, GLOBAL_WINDOW_AGGREGATE_VARIANCE]
