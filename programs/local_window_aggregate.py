"""Table test programs for stream-exec-local-window-aggregate (Flink's LocalWindowAggregate,
the first phase of a two-phase window aggregate): per micro-batch one accumulator row per
group key and slice, with its slice end. It keeps no state: what crosses the restore is the
global window aggregate's, which its rows feed.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
TINY = (
    TableTestProgram.of("local-window-aggregate-tiny", "a row's accumulator before the restore "
                        "and one after it meet in their window")
    .setup_config("table.optimizer.agg-phase-strategy", "TWO_PHASE")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "ts TIMESTAMP(3)", "WATERMARK FOR ts AS ts")
                        .producing_before_restore(["a", "2020-10-10 00:00:01"])
                        .producing_after_restore(["a", "2020-10-10 00:00:02"]).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "window_end TIMESTAMP(3)", "n BIGINT")
                      .consuming_before_restore()
                      .consuming_after_restore("+I[a, 2020-10-10T00:00:05, 2]").build())
    .run_sql("INSERT INTO S SELECT k, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE T, "
             "DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end")
    .build())

# Tumbling windows of 5 s, two phases. In the phase shape each phase is one micro-batch: the
# local aggregate folds a's two rows and the NULL key's two rows (same time) of [0 s, 5 s)
# into one accumulator row each before the restore, and a's third row after it into another;
# b's row at 11 s fires the window with the three of a (AVG of INT truncates: 7 / 3 = 2).
# Expected rows: PyFlink 2.3 on the same rows (TWO_PHASE).
LOCAL_WINDOW_AGGREGATE_TUMBLE_BATCHED = (
    TableTestProgram.of("local-window-aggregate-tumble-batched",
                        "rows of one key and slice folded into one accumulator row per "
                        "micro-batch, on both sides of the restore")
    .in_batches("phase")
    .setup_config("table.optimizer.agg-phase-strategy", "TWO_PHASE")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "v INT", "ts TIMESTAMP(3)",
                                    "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND")
                        .producing_before_restore(["a", 1, "2020-10-10 00:00:01"],
                                                  ["a", 2, "2020-10-10 00:00:02"],
                                                  [None, 3, "2020-10-10 00:00:03"],
                                                  [None, 4, "2020-10-10 00:00:03"])
                        .producing_after_restore(["a", 4, "2020-10-10 00:00:04"],
                                                 ["b", 5, "2020-10-10 00:00:11"])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "window_end TIMESTAMP(3)", "cnt BIGINT",
                                  "total INT", "av INT")
                      .consuming_before_restore()
                      .consuming_after_restore("+I[a, 2020-10-10T00:00:05, 3, 7, 2]",
                                               "+I[null, 2020-10-10T00:00:05, 2, 7, 3]",
                                               "+I[b, 2020-10-10T00:00:15, 1, 5, 5]")
                      .build())
    .run_sql("INSERT INTO S SELECT k, window_end, COUNT(*), SUM(v), AVG(v) FROM TABLE(TUMBLE("
             "TABLE T, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end")
    .build())

PROGRAMS = [LOCAL_WINDOW_AGGREGATE_TUMBLE_BATCHED]
