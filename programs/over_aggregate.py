"""Table test programs for stream-exec-over-aggregate (Flink's OverWindowTestPrograms).

An over aggregate emits every input row once with the aggregates of its frame. On event time
a row waits in state until the watermark passes its row time (the unbounded functions drop
rows at or behind the watermark, the bounded ones rows at or before the last fired row
time); the bounded frames keep the rows still in the frame, so rows written before the restore
count in the frames of rows after it. Ordered by a column that is no time attribute (Flink's
programs OVER_AGGREGATE_NON_TIME_*), every row of a partition stays in state in sort order: a
row after the restore with an earlier sort key updates the rows written before it.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram, advance_processing_time
from harness import changelog_row as kind
from harness.program import UNKNOWN_COMMIT
from streamplan.errors import PlanningError, UnsupportedSqlError

from . import _functions as udfs


def at(second: int) -> str:
    return f"2024-01-01 10:00:{second:02d}"


def rowtime_source(before: list, after: list) -> SourceTestStep:
    """T(k, v, ts) with a watermark 1 s behind; rows as (k, v, second)."""
    return (SourceTestStep.new_builder("T")
            .add_schema("k STRING", "v INT", "ts TIMESTAMP(3)",
                        "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND")
            .producing_before_restore(*[[k, v, at(s)] for k, v, s in before])
            .producing_after_restore(*[[k, v, at(s)] for k, v, s in after]).build())


# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# a's row at 1 s is emitted before the restore; its running sum counts in the row after it.
TINY = (
    TableTestProgram.of("over-aggregate-tiny", "a running sum on event time continues after "
                        "the restore")
    .setup_table_source(rowtime_source([("a", 1, 1), ("a", 2, 3)], [("a", 4, 5)]))
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "v INT", "s INT")
                      .consuming_before_restore("+I[a, 1, 1]")
                      .consuming_after_restore("+I[a, 2, 3]", "+I[a, 4, 7]").build())
    .run_sql("INSERT INTO S SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts "
             "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM T")
    .build())

# ROWS BETWEEN 1 PRECEDING AND CURRENT ROW on event time (RowTimeRowsBoundedPrecedingFunction),
# each phase one micro-batch (`in_batches("phase")`). Before the restore the NULL key's two
# rows share the batch; the watermark (4 s) passes them and a's row at 3 s, which are emitted;
# a's row at 5 s waits in state across the restore. After it, a's rows at 6 s and 8 s have the
# rows before them in their frames (5 s, written before the restore, then 6 s); the NULL key's
# row at 4 s is behind the watermark but after the key's last fired row time (2 s), so the
# bounded function keeps it, and its frame holds the row at 2 s from before the restore.
# Expected rows: PyFlink 2.3 on the same rows (filesystem source, every row in the job, no row
# late in either engine), split at the restore by the watermark (4 s - 1 ms in Flink).
OVER_AGGREGATE_ROWS_ACROSS_RESTORE = (
    TableTestProgram.of("over-aggregate-rows-across-restore",
                        "a bounded ROWS frame on event time holds rows from before the restore; "
                        "a NULL partition key and two rows of one key in one micro-batch")
    .in_batches("phase")
    .setup_table_source(rowtime_source([(None, 1, 1), (None, 2, 2), ("a", 3, 3), ("a", 4, 5)],
                                       [("a", 6, 6), (None, 7, 4), ("a", 9, 8), ("b", 8, 7)]))
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "v INT", "s INT", "c BIGINT", "m INT")
                      .consuming_before_restore("+I[null, 1, 1, 1, 1]", "+I[null, 2, 3, 2, 2]",
                                                "+I[a, 3, 3, 1, 3]")
                      .consuming_after_restore("+I[a, 4, 7, 2, 4]", "+I[a, 6, 10, 2, 6]",
                                               "+I[a, 9, 15, 2, 9]", "+I[null, 7, 9, 2, 7]",
                                               "+I[b, 8, 8, 1, 8]").build())
    .run_sql("INSERT INTO S SELECT k, v, SUM(v) OVER w, COUNT(v) OVER w, MAX(v) OVER w FROM T "
             "WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)")
    .build())

# RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND CURRENT ROW on event time
# (RowTimeRangeBoundedPrecedingFunction), one row a micro-batch. a's row at 4 s waits across
# the restore (the watermark is at 3 s); after it a second row at 4 s joins it and both get one
# value, whose frame holds a's row at 2 s from before the restore (the one at 1 s is more than
# 2 s before and is retracted). a's row at 3 s comes after a's row time 4 s fired: dropped,
# though the watermark passed neither. b's state from before the restore is cleared by its
# cleanup timer (row time + 1.5 x 2 s + 1 ms) once the watermark passes 5 s, so b's row at 4 s
# is again the first of its frame. Expected rows: PyFlink 2.3 on the same rows with a watermark
# after every row ('pipeline.auto-watermark-interval' = '0 ms').
OVER_AGGREGATE_RANGE_ACROSS_RESTORE = (
    TableTestProgram.of("over-aggregate-range-across-restore",
                        "a RANGE interval frame on event time: rows of one row time share a "
                        "value, rows from before the restore in the frame, a late row dropped, "
                        "a key cleaned up by its timer")
    .setup_table_source(rowtime_source([("a", 1, 1), ("b", 2, 2), ("a", 3, 2), ("a", 4, 4)],
                                       [("a", 5, 4), ("a", 6, 7), ("a", 9, 3), ("b", 8, 4),
                                        ("a", 10, 8)]))
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "v INT", "ts TIMESTAMP(3)", "s INT", "c BIGINT")
                      .consuming_before_restore("+I[a, 1, 2024-01-01T10:00:01, 1, 1]",
                                                "+I[b, 2, 2024-01-01T10:00:02, 2, 1]",
                                                "+I[a, 3, 2024-01-01T10:00:02, 4, 2]")
                      .consuming_after_restore("+I[a, 4, 2024-01-01T10:00:04, 12, 3]",
                                               "+I[a, 5, 2024-01-01T10:00:04, 12, 3]",
                                               "+I[b, 8, 2024-01-01T10:00:04, 8, 1]",
                                               "+I[a, 6, 2024-01-01T10:00:07, 6, 1]",
                                               "+I[a, 10, 2024-01-01T10:00:08, 16, 2]").build())
    .run_sql("INSERT INTO S SELECT k, v, ts, SUM(v) OVER w, COUNT(*) OVER w FROM T WINDOW w AS "
             "(PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '2' SECOND PRECEDING AND "
             "CURRENT ROW)")
    .build())

# LAG (Flink's LagAggFunction) on event time, no frame (Calcite allows none: RANGE UNBOUNDED
# PRECEDING), with COUNT(*) in the same window. NULL values count as rows; LAG(v, 2, -1) gives
# its default before a row has two before it and where the value two back is NULL. a's row at
# 4 s waits across the restore (the watermark is at 3 s), so the buffer of the last values and
# the waiting row both come from the checkpoint. Expected rows: PyFlink 2.3 on the same rows
# (tools/flink_compare case over_lag_rows_program), split at the restore by the watermark.
OVER_AGGREGATE_LAG = (
    TableTestProgram.of("over-aggregate-lag", "LAG with an offset and a default across a "
                        "restore: NULL values count, the buffer of last values is state")
    .setup_table_source(rowtime_source([("a", 1, 1), ("b", 2, 2), ("a", None, 3), ("a", 4, 4)],
                                       [("a", 5, 6), ("b", 6, 7), ("a", 7, 8)]))
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "v INT", "p1 INT", "p2 INT", "c BIGINT")
                      .consuming_before_restore("+I[a, 1, null, -1, 1]", "+I[b, 2, null, -1, 1]",
                                                "+I[a, null, 1, -1, 2]")
                      .consuming_after_restore("+I[a, 4, null, 1, 3]", "+I[a, 5, 4, -1, 4]",
                                               "+I[b, 6, 2, -1, 2]", "+I[a, 7, 5, 4, 5]")
                      .build())
    .run_sql("INSERT INTO S SELECT k, v, LAG(v) OVER w, LAG(v, 2, -1) OVER w, COUNT(*) OVER w "
             "FROM T WINDOW w AS (PARTITION BY k ORDER BY ts)")
    .build())

# FIRST_VALUE and LAST_VALUE in a bounded ROWS frame on event time: the row leaving the frame is
# retracted (Flink's FirstValueWithRetractAggFunction / LastValueWithRetractAggFunction keep
# every value in arrival order), NULL values are skipped but stay rows of the frame, and a
# value seen twice ('x') is retracted at its earliest occurrence. a's row at 3 s waits across
# the restore (the watermark is at 2 s); the frame's rows come from the checkpoint. Expected
# rows: PyFlink 2.3 on the same rows, split at the restore by the watermark.
OVER_AGGREGATE_FIRST_LAST_VALUE = (
    TableTestProgram.of("over-aggregate-first-last-value", "FIRST_VALUE and LAST_VALUE over "
                        "a sliding ROWS frame whose rows cross the restore")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "v INT", "s STRING", "ts TIMESTAMP(3)",
                                    "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND")
                        .producing_before_restore(["a", 1, "x", "2020-10-10 00:00:01"],
                                                  ["a", 2, None, "2020-10-10 00:00:02"],
                                                  ["b", 3, "p", "2020-10-10 00:00:02"],
                                                  ["a", 3, "y", "2020-10-10 00:00:03"])
                        .producing_after_restore(["a", 4, "x", "2020-10-10 00:00:04"],
                                                 ["b", 5, None, "2020-10-10 00:00:05"],
                                                 ["a", 5, "z", "2020-10-10 00:00:06"],
                                                 ["b", 6, "q", "2020-10-10 00:00:07"])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "v INT", "f STRING", "l STRING", "n BIGINT")
                      .consuming_before_restore("+I[a, 1, x, x, 1]", "+I[a, 2, x, x, 1]",
                                                "+I[b, 3, p, p, 1]")
                      .consuming_after_restore("+I[a, 3, x, y, 2]", "+I[a, 4, y, x, 2]",
                                               "+I[b, 5, p, p, 1]", "+I[a, 5, y, z, 3]",
                                               "+I[b, 6, p, q, 2]")
                      .build())
    .run_sql("INSERT INTO S SELECT k, v, FIRST_VALUE(s) OVER w, LAST_VALUE(s) OVER w, "
             "COUNT(s) OVER w FROM T WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 "
             "PRECEDING AND CURRENT ROW)")
    .build())

# --- Flink's own programs (OverWindowTestPrograms.java), transcribed as they are: SQL,
# schemas, rows and expected strings (Row.of(...) is "+I[...]", Row.ofKind(UPDATE_BEFORE, ...)
# "-U[...]", Row.ofKind(UPDATE_AFTER, ...) "+U[...]"). Flink's RestoreTestBase registers every
# sink with 'sink-insert-only' = 'false'; ported_from gives these sinks the same. Not ported
# (docs/flink-programs.md): LAG_OVER_FUNCTION, whose id over-aggregate-lag is our own
# program's (frozen fixtures), and whose source has a MAP<DOUBLE, DOUBLE> column, no column
# type here, so the program cannot be built.
FLINK_COMMIT = "07d57de7e113cf9e195b3632d0e63a0d248a78cc"


_SUM_SQL = ("INSERT INTO sink_t SELECT key, val, ts, SUM(val) OVER ("
            "PARTITION BY key "
            "ORDER BY val "
            "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
            "AS sum_val "
            "FROM source_t")
_BEFORE = (["key1", 1, 100], ["key1", 2, 200], ["key1", 5, 500], ["key1", 6, 600],
           ["key2", 1, 100], ["key2", 2, 200])
# the changelog source's rows (Flink's getSource in the later file)
_RETRACT_BEFORE = (["key1", 1, 100], ["key1", 2, 200], ["key1", 5, 500], ["key1", 6, 600],
                   kind("-U", "key1", 2, 200), kind("+U", "key1", 3, 200),
                   ["key2", 1, 100], ["key2", 2, 200])
_RETRACT_AFTER = (["key3", 1, 100], ["key1", 4, 400],
                  kind("-U", "key1", 3, 200), kind("+U", "key1", 3, 300))


def _source(changelog_mode: str, before, after, *extra: str) -> SourceTestStep:
    """source_t(key, val, ts) and `extra` schema entries (a PRIMARY KEY)."""
    return (SourceTestStep.new_builder("source_t")
            .add_schema("key STRING", "val BIGINT", "ts BIGINT", *extra)
            .add_option("changelog-mode", changelog_mode)
            .producing_before_restore(*before).producing_after_restore(*after).build())


def _sink(before, after, *extra: str, agg: str = "sum_val BIGINT") -> SinkTestStep:
    """sink_t(key, val, ts, <agg>) and `extra` schema entries (a column, a PRIMARY KEY)."""
    return (SinkTestStep.new_builder("sink_t")
            .add_schema("key STRING", "val BIGINT", "ts BIGINT", agg, *extra)
            .consuming_before_restore(*before).consuming_after_restore(*after).build())


OVER_AGGREGATE_NON_TIME_UNBOUNDED_RETRACT_MODE = (
    TableTestProgram.of("over-aggregate-sum-retract-mode",
                        "validates restoring an unbounded preceding sum function in retract mode")
    .ported_from("OverWindowTestPrograms.java#OVER_AGGREGATE_NON_TIME_UNBOUNDED_RETRACT_MODE",
                 FLINK_COMMIT)
    .setup_table_source(_source("I,UB,UA", _RETRACT_BEFORE, _RETRACT_AFTER))
    .setup_table_sink(_sink(
        ["+I[key1, 1, 100, 1]", "+I[key1, 2, 200, 3]", "+I[key1, 5, 500, 8]",
         "+I[key1, 6, 600, 14]", "-U[key1, 2, 200, 3]", "-U[key1, 5, 500, 8]",
         "+U[key1, 5, 500, 6]", "-U[key1, 6, 600, 14]", "+U[key1, 6, 600, 12]",
         "+U[key1, 3, 200, 4]", "-U[key1, 5, 500, 6]", "+U[key1, 5, 500, 9]",
         "-U[key1, 6, 600, 12]", "+U[key1, 6, 600, 15]", "+I[key2, 1, 100, 1]",
         "+I[key2, 2, 200, 3]"],
        ["+I[key3, 1, 100, 1]", "+I[key1, 4, 400, 8]", "-U[key1, 5, 500, 9]",
         "+U[key1, 5, 500, 13]", "-U[key1, 6, 600, 15]", "+U[key1, 6, 600, 19]",
         "-U[key1, 3, 200, 4]", "-U[key1, 4, 400, 8]", "+U[key1, 4, 400, 5]",
         "-U[key1, 5, 500, 13]", "+U[key1, 5, 500, 10]", "-U[key1, 6, 600, 19]",
         "+U[key1, 6, 600, 16]", "+U[key1, 3, 300, 4]", "-U[key1, 4, 400, 5]",
         "+U[key1, 4, 400, 8]", "-U[key1, 5, 500, 10]", "+U[key1, 5, 500, 13]",
         "-U[key1, 6, 600, 16]", "+U[key1, 6, 600, 19]"]))
    .run_sql(_SUM_SQL)
    .build())

OVER_AGGREGATE_NON_TIME_UNBOUNDED_APPEND_MODE = (
    TableTestProgram.of("over-aggregate-sum-append-mode",
                        "validates restoring an unbounded preceding sum function in append mode")
    .ported_from("OverWindowTestPrograms.java#OVER_AGGREGATE_NON_TIME_UNBOUNDED_APPEND_MODE",
                 FLINK_COMMIT)
    .setup_table_source(_source("I", _BEFORE, [["key1", 4, 400]]))
    .setup_table_sink(_sink(
        ["+I[key1, 1, 100, 1]", "+I[key1, 2, 200, 3]", "+I[key1, 5, 500, 8]",
         "+I[key1, 6, 600, 14]", "+I[key2, 1, 100, 1]", "+I[key2, 2, 200, 3]"],
        ["+I[key1, 4, 400, 7]", "-U[key1, 5, 500, 8]", "+U[key1, 5, 500, 12]",
         "-U[key1, 6, 600, 14]", "+U[key1, 6, 600, 18]"]))
    .run_sql(_SUM_SQL)
    .build())

OVER_AGGREGATE_NON_TIME_UNBOUNDED_APPEND_MODE_MULTIPLE_AGGS = (
    TableTestProgram.of("over-aggregate-sum-append-mode-multiple-aggs",
                        "validates restoring an unbounded preceding sum function in append mode")
    .ported_from("OverWindowTestPrograms.java#"
                 "OVER_AGGREGATE_NON_TIME_UNBOUNDED_APPEND_MODE_MULTIPLE_AGGS", FLINK_COMMIT)
    .setup_table_source(_source("I", _BEFORE, [["key1", 4, 400]]))
    .setup_table_sink(_sink(
        ["+I[key1, 1, 100, 1, 1]", "+I[key1, 2, 200, 3, 2]", "+I[key1, 5, 500, 8, 3]",
         "+I[key1, 6, 600, 14, 4]", "+I[key2, 1, 100, 1, 1]", "+I[key2, 2, 200, 3, 2]"],
        ["+I[key1, 4, 400, 7, 3]", "-U[key1, 5, 500, 8, 3]", "+U[key1, 5, 500, 12, 4]",
         "-U[key1, 6, 600, 14, 4]", "+U[key1, 6, 600, 18, 5]"], "cnt_key BIGINT"))
    .run_sql("INSERT INTO sink_t SELECT key, val, ts, "
             "SUM(val) OVER ("
             "PARTITION BY key "
             "ORDER BY val "
             "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
             "AS sum_val, "
             "COUNT(key) OVER ("
             "PARTITION BY key "
             "ORDER BY val "
             "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
             "AS cnt_key "
             "FROM source_t")
    .build())

OVER_AGGREGATE_NON_TIME_UNBOUNDED_NO_PARTITION_BY = (
    TableTestProgram.of("over-aggregate-sum-no-partition-by",
                        "validates restoring an unbounded preceding sum function without "
                        "partition by")
    .ported_from("OverWindowTestPrograms.java#OVER_AGGREGATE_NON_TIME_UNBOUNDED_NO_PARTITION_BY",
                 FLINK_COMMIT)
    .setup_table_source(_source("I", _BEFORE, [["key1", 4, 400]]))
    .setup_table_sink(_sink(
        ["+I[key1, 1, 100, 1]", "+I[key1, 2, 200, 3]", "+I[key1, 5, 500, 8]",
         "+I[key1, 6, 600, 14]", "+I[key2, 1, 100, 2]", "-U[key1, 2, 200, 3]",
         "+U[key1, 2, 200, 4]", "-U[key1, 5, 500, 8]", "+U[key1, 5, 500, 9]",
         "-U[key1, 6, 600, 14]", "+U[key1, 6, 600, 15]", "+I[key2, 2, 200, 6]",
         "-U[key1, 5, 500, 9]", "+U[key1, 5, 500, 11]", "-U[key1, 6, 600, 15]",
         "+U[key1, 6, 600, 17]"],
        ["+I[key1, 4, 400, 10]", "-U[key1, 5, 500, 11]", "+U[key1, 5, 500, 15]",
         "-U[key1, 6, 600, 17]", "+U[key1, 6, 600, 21]"]))
    .run_sql("INSERT INTO sink_t SELECT key, val, ts, SUM(val) OVER ("
             "ORDER BY val "
             "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
             "AS sum_val "
             "FROM source_t")
    .build())

# --- A later OverWindowTestPrograms.java, whose commit is not known: the text was read from
# the reference corpus's copy of the file (61,353 characters, after 07d57de7e113 and before
# Flink 2.3, whose planner refuses its sink-primary-key programs), which names no commit; the
# corpus's one commit for the path, 24a5d69d62d1, holds an older text (LAG_OVER_FUNCTION
# alone). Every program below that passes gives PyFlink 2.3's rows exactly
# (tools/flink_compare). In that file Flink renamed the non-time programs
# (OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_*, with Flink 2.3's rows: a retracted row is -D) and
# added each as a ROWS frame too (OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_*,
# NonTimeRowsUnboundedPrecedingFunction), and programs with a primary key on the source, the
# sink or both. Not ported again: ..._RANGE_UNBOUNDED_SUM_APPEND_MODE and
# ..._RANGE_UNBOUNDED_MULTIPLE_AGGS_APPEND_MODE, the same SQL, rows and expected strings as
# OVER_AGGREGATE_NON_TIME_UNBOUNDED_APPEND_MODE and ..._APPEND_MODE_MULTIPLE_AGGS above
# (07d57de7e113), which pass under their old ids; LAG_OVER_FUNCTION is unchanged.
FLINK_COMMIT_NON_TIME = UNKNOWN_COMMIT
_FRAMES = ("RANGE", "ROWS")


def _ported(constant: str, description: str):
    """A builder for the later OverWindowTestPrograms.java#<constant>; Flink's id is the
    constant's name in lower case with dashes."""
    return (TableTestProgram.of(constant.lower().replace("_", "-"), description)
            .ported_from(f"OverWindowTestPrograms.java#{constant}", FLINK_COMMIT_NON_TIME))


def _over_sql(frame: str, window: str = "PARTITION BY key ORDER BY val", agg: str = "SUM(val)",
              alias: str = "sum_val") -> str:
    return (f"INSERT INTO sink_t SELECT key, val, ts, {agg} OVER ({window} {frame} BETWEEN "
            f"UNBOUNDED PRECEDING AND CURRENT ROW) AS {alias} FROM source_t")


# Flink's getSink: the changelog source's rows summed by val (a retracted row is -D)
_RETRACT_SINK_BEFORE = (
    "+I[key1, 1, 100, 1]", "+I[key1, 2, 200, 3]", "+I[key1, 5, 500, 8]", "+I[key1, 6, 600, 14]",
    "-D[key1, 2, 200, 3]", "-U[key1, 5, 500, 8]", "+U[key1, 5, 500, 6]", "-U[key1, 6, 600, 14]",
    "+U[key1, 6, 600, 12]", "+U[key1, 3, 200, 4]", "-U[key1, 5, 500, 6]", "+U[key1, 5, 500, 9]",
    "-U[key1, 6, 600, 12]", "+U[key1, 6, 600, 15]", "+I[key2, 1, 100, 1]", "+I[key2, 2, 200, 3]")
_RETRACT_SINK_AFTER = (
    "+I[key3, 1, 100, 1]", "+I[key1, 4, 400, 8]", "-U[key1, 5, 500, 9]", "+U[key1, 5, 500, 13]",
    "-U[key1, 6, 600, 15]", "+U[key1, 6, 600, 19]", "-D[key1, 3, 200, 4]", "-U[key1, 4, 400, 8]",
    "+U[key1, 4, 400, 5]", "-U[key1, 5, 500, 13]", "+U[key1, 5, 500, 10]",
    "-U[key1, 6, 600, 19]", "+U[key1, 6, 600, 16]", "+U[key1, 3, 300, 4]", "-U[key1, 4, 400, 5]",
    "+U[key1, 4, 400, 8]", "-U[key1, 5, 500, 10]", "+U[key1, 5, 500, 13]",
    "-U[key1, 6, 600, 16]", "+U[key1, 6, 600, 19]")
_PK_KEY = "PRIMARY KEY(key) NOT ENFORCED"
_PK_VAL = "PRIMARY KEY(val) NOT ENFORCED"


_RETRACT_MODE = ("validates restoring a non-time unbounded preceding sum function in retract "
                 "mode")


# A sink whose primary key holds no upsert key of the query: Flink 2.3 refuses the INSERT
# (the over aggregate's upsert keys are its input's that contain the partition key,
# FlinkRelMdUpsertKeys.getUpsertKeysOnOver: none here, and Flink 2.3 then asks for ON CONFLICT);
# Flink before 2.3 planned a SinkUpsertMaterializer there (table.exec.sink.upsert-materialize
# AUTO), the plan Flink's restore test stored and whose rows the programs expect. FORCE plans
# the same materializer today.
_MATERIALIZED_BEFORE_2_3 = (
    "Flink 2.3 refuses the INSERT as written (PyFlink 2.3, tools/flink_compare: 'The query has "
    "an upsert key that differs from the primary key of the sink table ... Please specify an ON "
    "CONFLICT clause'), as the planner here does; Flink before 2.3 planned a "
    "SinkUpsertMaterializer there (table.exec.sink.upsert-materialize AUTO), the plan Flink "
    "stored and whose rows the program expects; planned with the option FORCE, which plans "
    "that materializer today")
_MATERIALIZED = {"table.exec.sink.upsert-materialize": "FORCE"}


def _retract_program(frame: str, suffix: str, description: str, sink: SinkTestStep,
                     *source_extra: str, window: str = "PARTITION BY key ORDER BY val",
                     materialized_before_2_3: bool = False):
    """Flink's OVER_AGGREGATE_NON_TIME_<frame>_UNBOUNDED_SUM_RETRACT_MODE<suffix>: the retract
    mode source (with `source_extra`, e.g. its primary key) into `sink`."""
    builder = _ported(f"OVER_AGGREGATE_NON_TIME_{frame}_UNBOUNDED_SUM_RETRACT_MODE{suffix}",
                      description)
    if materialized_before_2_3:
        builder = builder.planned_before(_MATERIALIZED_BEFORE_2_3, _MATERIALIZED)
    return (builder
            .setup_table_source(_source("I,UB,UA", _RETRACT_BEFORE, _RETRACT_AFTER, *source_extra))
            .setup_table_sink(sink)
            .run_sql(_over_sql(frame, window))
            .build())


def _retract_mode(frame: str):
    return _retract_program(frame, "", _RETRACT_MODE,
                            _sink(_RETRACT_SINK_BEFORE, _RETRACT_SINK_AFTER))


def _retract_mode_sort_by_key(frame: str):
    return _retract_program(
        frame, "_SORT_BY_KEY", _RETRACT_MODE,
        _sink(["+I[key1, 1, 100, 1]", "+I[key1, 2, 200, 2]", "+I[key1, 5, 500, 5]",
               "+I[key1, 6, 600, 6]", "-D[key1, 2, 200, 2]", "+U[key1, 3, 200, 3]",
               "+I[key2, 1, 100, 2]", "+I[key2, 2, 200, 2]"],
              ["+I[key3, 1, 100, 3]", "+I[key1, 4, 400, 4]", "-D[key1, 3, 200, 3]",
               "+U[key1, 3, 300, 3]"]),
        window="PARTITION BY val ORDER BY key")


def _retract_mode_source_primary_key(frame: str):
    return _retract_program(frame, "_SOURCE_PRIMARY_KEY",
                            f"{_RETRACT_MODE} with source table having primary key",
                            _sink(_RETRACT_SINK_BEFORE, _RETRACT_SINK_AFTER), _PK_KEY)


def _retract_mode_sink_primary_key(frame: str):
    return _retract_program(
        frame, "_SINK_PRIMARY_KEY", f"{_RETRACT_MODE} with sink table having primary key",
        _sink(["+I[key1, 1, 100, 1]", "+U[key1, 2, 200, 3]", "+U[key1, 5, 500, 8]",
               "+U[key1, 6, 600, 14]", "+U[key1, 5, 500, 6]", "+U[key1, 6, 600, 12]",
               "+U[key1, 3, 200, 4]", "+U[key1, 5, 500, 9]", "+U[key1, 6, 600, 15]",
               "+I[key2, 1, 100, 1]", "+U[key2, 2, 200, 3]"],
              ["+I[key3, 1, 100, 1]", "+U[key1, 4, 400, 8]", "+U[key1, 5, 500, 13]",
               "+U[key1, 6, 600, 19]", "+U[key1, 4, 400, 5]", "+U[key1, 5, 500, 10]",
               "+U[key1, 6, 600, 16]", "+U[key1, 3, 300, 4]", "+U[key1, 4, 400, 8]",
               "+U[key1, 5, 500, 13]", "+U[key1, 6, 600, 19]"], _PK_KEY),
        materialized_before_2_3=True)


def _retract_mode_source_sink_primary_key(frame: str):
    # Flink: the option puts a ChangelogNormalize after the source, which drops the source's
    # UPDATE_BEFORE rows
    return (_ported(f"OVER_AGGREGATE_NON_TIME_{frame}_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_SINK_"
                    "PRIMARY_KEY",
                    "validates restoring a non-time unbounded preceding sum function in retract "
                    "mode with source and sink tables having primary key")
            .setup_config("table.exec.source.cdc-events-duplicate", "true")
            .setup_table_source(_source("I,UB,UA", _RETRACT_BEFORE, _RETRACT_AFTER, _PK_KEY))
            .setup_table_sink(_sink(
                ["+I[key1, 1, 100, 1]", "-D[key1, 1, 100, 1]", "+U[key1, 2, 200, 2]",
                 "-D[key1, 2, 200, 2]", "+U[key1, 5, 500, 5]", "-D[key1, 5, 500, 5]",
                 "+U[key1, 6, 600, 6]", "-D[key1, 6, 600, 6]", "+U[key1, 3, 200, 3]",
                 "+I[key2, 1, 100, 1]", "-D[key2, 1, 100, 1]", "+U[key2, 2, 200, 2]"],
                ["+I[key3, 1, 100, 1]", "-D[key1, 3, 200, 3]", "+U[key1, 4, 400, 4]",
                 "-D[key1, 4, 400, 4]", "+U[key1, 3, 300, 3]"], _PK_KEY))
            .run_sql(_over_sql(frame))
            .build())


def _retract_mode_partition_by_non_pk(frame: str):
    return (_ported(f"OVER_AGGREGATE_NON_TIME_{frame}_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_SINK_"
                    "PRIMARY_KEY_PARTITION_BY_NON_PK",
                    "validates restoring a non-time unbounded preceding sum function in retract "
                    "mode with source and sink table having primary key but partition by "
                    "non-primary key")
            .planned_before(_MATERIALIZED_BEFORE_2_3, _MATERIALIZED)
            .setup_table_source(_source("I,UB,UA", _RETRACT_BEFORE, _RETRACT_AFTER, _PK_VAL))
            .setup_table_sink(_sink(
                ["+I[key1, 1, 100, 100]", "+I[key1, 2, 200, 300]", "+I[key1, 5, 500, 800]",
                 "+I[key1, 6, 600, 1400]", "-D[key1, 2, 200, 300]", "-D[key1, 5, 500, 800]",
                 "+I[key1, 5, 500, 600]", "-D[key1, 6, 600, 1400]", "+I[key1, 6, 600, 1200]",
                 "+I[key1, 3, 200, 300]", "-D[key1, 5, 500, 600]", "+I[key1, 5, 500, 800]",
                 "-D[key1, 6, 600, 1200]", "+I[key1, 6, 600, 1400]", "+U[key2, 1, 100, 100]",
                 "+I[key2, 2, 200, 300]"],
                ["+U[key3, 1, 100, 100]", "+I[key1, 4, 400, 700]", "-D[key1, 5, 500, 800]",
                 "+I[key1, 5, 500, 1200]", "-D[key1, 6, 600, 1400]", "+I[key1, 6, 600, 1800]",
                 "-D[key1, 3, 200, 300]", "-D[key1, 4, 400, 700]", "+I[key1, 4, 400, 500]",
                 "-D[key1, 5, 500, 1200]", "+I[key1, 5, 500, 1000]", "-D[key1, 6, 600, 1800]",
                 "+I[key1, 6, 600, 1600]", "+I[key1, 3, 300, 400]", "-D[key1, 4, 400, 500]",
                 "+I[key1, 4, 400, 800]", "-D[key1, 5, 500, 1000]", "+I[key1, 5, 500, 1300]",
                 "-D[key1, 6, 600, 1600]", "+I[key1, 6, 600, 1900]"], _PK_VAL))
            .run_sql(_over_sql(frame, agg="SUM(ts)", alias="sum_ts"))
            .build())


# Flink's APPEND_SOURCE is _source("I", _BEFORE, [["key1", 4, 400]]); SUM_APPEND_MODE_*_DATA
# and MULTIPLE_AGGS_APPEND_MODE_*_DATA are the expected strings of the two append-mode
# programs above.
def _sum_append_mode(frame: str):
    base = OVER_AGGREGATE_NON_TIME_UNBOUNDED_APPEND_MODE.sinks["sink_t"]
    return (_ported(f"OVER_AGGREGATE_NON_TIME_{frame}_UNBOUNDED_SUM_APPEND_MODE",
                    "validates restoring a non-time unbounded preceding sum function in append "
                    "mode")
            .setup_table_source(_source("I", _BEFORE, [["key1", 4, 400]]))
            .setup_table_sink(base)
            .run_sql(_over_sql(frame))
            .build())


def _avg_append_mode(frame: str):
    return (_ported(f"OVER_AGGREGATE_NON_TIME_{frame}_UNBOUNDED_AVG_APPEND_MODE",
                    "validates restoring a non-time unbounded preceding avg function in append "
                    "mode")
            .setup_table_source(_source("I", _BEFORE, [["key1", 4, 400]]))
            .setup_table_sink(_sink(
                ["+I[key1, 1, 100, 1]", "+I[key1, 2, 200, 1]", "+I[key1, 5, 500, 2]",
                 "+I[key1, 6, 600, 3]", "+I[key2, 1, 100, 1]", "+I[key2, 2, 200, 1]"],
                ["+I[key1, 4, 400, 2]", "-U[key1, 5, 500, 2]", "+U[key1, 5, 500, 3]",
                 "-U[key1, 6, 600, 3]", "+U[key1, 6, 600, 3]"], agg="avg_val BIGINT"))
            .run_sql(_over_sql(frame, agg="AVG(val)", alias="avg_val"))
            .build())


def _multiple_aggs_append_mode(frame: str):
    base = OVER_AGGREGATE_NON_TIME_UNBOUNDED_APPEND_MODE_MULTIPLE_AGGS.sinks["sink_t"]
    window = f"PARTITION BY key ORDER BY val {frame} BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    return (_ported(f"OVER_AGGREGATE_NON_TIME_{frame}_UNBOUNDED_MULTIPLE_AGGS_APPEND_MODE",
                    "validates restoring a non-time unbounded preceding sum function in append "
                    "mode with multiple aggregations")
            .setup_table_source(_source("I", _BEFORE, [["key1", 4, 400]]))
            .setup_table_sink(base)
            .run_sql(f"INSERT INTO sink_t SELECT key, val, ts, SUM(val) OVER ({window}) AS "
                     f"sum_val, COUNT(key) OVER ({window}) AS cnt_key FROM source_t")
            .build())


_NO_PARTITION_BY_AFTER = ("+I[key1, 4, 400, 10]", "-U[key1, 5, 500, 11]",
                          "+U[key1, 5, 500, 15]", "-U[key1, 6, 600, 17]",
                          "+U[key1, 6, 600, 21]")
# the rows in one partition: a row of val 1 or 2 of key2 comes after key1's of the same val;
# with RANGE the two share one value (key1's is updated too), with ROWS key1's keeps its own
_NO_PARTITION_BY_BEFORE = {
    "RANGE": ("+I[key1, 1, 100, 1]", "+I[key1, 2, 200, 3]", "+I[key1, 5, 500, 8]",
              "+I[key1, 6, 600, 14]", "-U[key1, 1, 100, 1]", "+U[key1, 1, 100, 2]",
              "+I[key2, 1, 100, 2]", "-U[key1, 2, 200, 3]", "+U[key1, 2, 200, 4]",
              "-U[key1, 5, 500, 8]", "+U[key1, 5, 500, 9]", "-U[key1, 6, 600, 14]",
              "+U[key1, 6, 600, 15]", "-U[key1, 2, 200, 4]", "+U[key1, 2, 200, 6]",
              "+I[key2, 2, 200, 6]", "-U[key1, 5, 500, 9]", "+U[key1, 5, 500, 11]",
              "-U[key1, 6, 600, 15]", "+U[key1, 6, 600, 17]"),
    "ROWS": ("+I[key1, 1, 100, 1]", "+I[key1, 2, 200, 3]", "+I[key1, 5, 500, 8]",
             "+I[key1, 6, 600, 14]", "+I[key2, 1, 100, 2]", "-U[key1, 2, 200, 3]",
             "+U[key1, 2, 200, 4]", "-U[key1, 5, 500, 8]", "+U[key1, 5, 500, 9]",
             "-U[key1, 6, 600, 14]", "+U[key1, 6, 600, 15]", "+I[key2, 2, 200, 6]",
             "-U[key1, 5, 500, 9]", "+U[key1, 5, 500, 11]", "-U[key1, 6, 600, 15]",
             "+U[key1, 6, 600, 17]")}


def _sum_no_partition_by(frame: str):
    return (_ported(f"OVER_AGGREGATE_NON_TIME_{frame}_UNBOUNDED_SUM_NO_PARTITION_BY",
                    "validates restoring a non-time unbounded preceding sum function without "
                    "partition by")
            .setup_table_source(_source("I", _BEFORE, [["key1", 4, 400]]))
            .setup_table_sink(_sink(_NO_PARTITION_BY_BEFORE[frame], _NO_PARTITION_BY_AFTER))
            .run_sql(_over_sql(frame, "ORDER BY val"))
            .build())


(OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE,
 OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_RETRACT_MODE) = map(_retract_mode, _FRAMES)
(OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE_SORT_BY_KEY,
 OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_RETRACT_MODE_SORT_BY_KEY) = map(
    _retract_mode_sort_by_key, _FRAMES)
(OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_PRIMARY_KEY,
 OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_PRIMARY_KEY) = map(
    _retract_mode_source_primary_key, _FRAMES)
(OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE_SINK_PRIMARY_KEY,
 OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_RETRACT_MODE_SINK_PRIMARY_KEY) = map(
    _retract_mode_sink_primary_key, _FRAMES)
(OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_SINK_PRIMARY_KEY,
 OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_SINK_PRIMARY_KEY) = map(
    _retract_mode_source_sink_primary_key, _FRAMES)
(OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_SINK_PRIMARY_KEY_PARTITION_BY_NON_PK,
 OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_SINK_PRIMARY_KEY_PARTITION_BY_NON_PK
 ) = map(_retract_mode_partition_by_non_pk, _FRAMES)
OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_APPEND_MODE = _sum_append_mode("ROWS")
(OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_AVG_APPEND_MODE,
 OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_AVG_APPEND_MODE) = map(_avg_append_mode, _FRAMES)
OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_MULTIPLE_AGGS_APPEND_MODE = _multiple_aggs_append_mode(
    "ROWS")
(OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_NO_PARTITION_BY,
 OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_NO_PARTITION_BY) = map(_sum_no_partition_by, _FRAMES)


# Our own program for the non-time ORDER BY over a changelog (Flink's retract-mode program is
# not passing, below): RANGE BETWEEN UNBOUNDED PRECEDING on v, no time attribute
# (NonTimeRangeUnboundedPrecedingFunction), each phase one micro-batch. Before the restore a's
# rows come out of order (NULL first: an ascending ORDER BY puts NULLs first) and the NULL key
# has two rows of one sort key in the batch. After it, a's row of 2 (written before the restore)
# is updated to 6: retracted as -D with its old value, the later rows updated, then the new
# row inserted as +U; a's new row of 1 updates every later row; the NULL key's update of one of
# its two rows of 3 updates the other. Expected rows: PyFlink 2.3 on the same rows.
def _non_time_changelog(w_type: str):
    """T(k, v, w) of the non-time changelog programs, `w` of `w_type`."""
    return (SourceTestStep.new_builder("T")
            .add_schema("k STRING", "v BIGINT", f"w {w_type}")
            .add_option("changelog-mode", "I,UB,UA")
            .producing_before_restore(["a", 5, 50], ["a", 2, 20], ["a", None, 1],
                                      [None, 3, 30], [None, 3, 31])
            .producing_after_restore(kind("-U", "a", 2, 20), kind("+U", "a", 6, 20),
                                     ["a", 1, 10], kind("-U", None, 3, 30),
                                     kind("+U", None, 4, 30))
            .build())


OVER_AGGREGATE_NON_TIME_RETRACT_ACROSS_RESTORE = (
    TableTestProgram.of("over-aggregate-non-time-retract-across-restore",
                        "ORDER BY a column that is no time attribute over a changelog: rows and "
                        "retractions after the restore update rows from before it; a NULL "
                        "partition key and a NULL sort key, two rows of one key in a micro-batch")
    .in_batches("phase")
    .setup_table_source(_non_time_changelog("BIGINT"))
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "v BIGINT", "w BIGINT", "s BIGINT", "c BIGINT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore(
                          "+I[a, 5, 50, 50, 1]", "+I[a, 2, 20, 20, 1]", "-U[a, 5, 50, 50, 1]",
                          "+U[a, 5, 50, 70, 2]", "+I[a, null, 1, 1, 0]", "-U[a, 2, 20, 20, 1]",
                          "+U[a, 2, 20, 21, 1]", "-U[a, 5, 50, 70, 2]", "+U[a, 5, 50, 71, 2]",
                          "+I[null, 3, 30, 30, 1]", "-U[null, 3, 30, 30, 1]",
                          "+U[null, 3, 30, 61, 2]", "+I[null, 3, 31, 61, 2]")
                      .consuming_after_restore(
                          "-D[a, 2, 20, 21, 1]", "-U[a, 5, 50, 71, 2]", "+U[a, 5, 50, 51, 1]",
                          "+U[a, 6, 20, 71, 2]", "+I[a, 1, 10, 11, 1]", "-U[a, 5, 50, 51, 1]",
                          "+U[a, 5, 50, 61, 2]", "-U[a, 6, 20, 71, 2]", "+U[a, 6, 20, 81, 3]",
                          "-D[null, 3, 30, 61, 2]", "-U[null, 3, 31, 61, 2]",
                          "+U[null, 3, 31, 31, 1]", "+U[null, 4, 30, 61, 2]").build())
    .run_sql("INSERT INTO S SELECT k, v, w, SUM(w) OVER w, COUNT(v) OVER w FROM T "
             "WINDOW w AS (PARTITION BY k ORDER BY v)")
    .build())

# The state TTL (table.exec.state.ttl, 1 d) expires across the restore: the non-time RANGE
# function's states (Flink's StateTtlConfig: on create and write, expired state never
# returned) of key a are written at t, key b's at t + 12 h; after the restore the clock is at
# t + 30 h, past a's day and within b's. a's row starts a new sorted list (its sum is its own
# value); b's row is summed with b's row from before the restore.
OVER_AGGREGATE_STATE_TTL_EXPIRES = (
    TableTestProgram.of("over-aggregate-state-ttl-expires", "a partition's state kept before "
                        "the restore expires after it: its next row starts again; a younger "
                        "partition's is summed")
    .setup_config("table.exec.state.ttl", "1 d")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v BIGINT")
                        .producing_before_restore(["a", 1], advance_processing_time("12 h"),
                                                  ["b", 2])
                        .producing_after_restore(advance_processing_time("18 h"), ["a", 3],
                                                 ["b", 4]).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "v BIGINT", "s BIGINT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 1, 1]", "+I[b, 2, 2]")
                      .consuming_after_restore("+I[a, 3, 3]", "+I[b, 4, 6]").build())
    .run_sql("INSERT INTO S SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY v RANGE BETWEEN "
             "UNBOUNDED PRECEDING AND CURRENT ROW) FROM T")
    .build())

# A user-defined aggregate function over the non-time ORDER BY (RANGE: Flink's
# NonTimeRangeUnboundedPrecedingFunction runs it as the built-ins, in sort order, comparing its
# accumulator row to stop updating later rows): VarSum1 beside SUM over the rows of
# over-aggregate-non-time-retract-across-restore (w an INT here, VarSum1's argument type). Its
# column equals SUM's in every change, so the expected rows are that program's (checked on
# PyFlink 2.3) with SUM in place of COUNT(v).
def _sum_twice(expected: list[str]) -> list[str]:
    return [f"{text[:-1].rsplit(', ', 1)[0]}, {text[:-1].split(', ')[3]}]" for text in expected]


_NON_TIME_RETRACT = OVER_AGGREGATE_NON_TIME_RETRACT_ACROSS_RESTORE.sinks["S"]
OVER_AGGREGATE_UDAF_NON_TIME = (
    TableTestProgram.of("over-aggregate-udaf-non-time", "a user-defined aggregate function "
                        "over a non-time ORDER BY (RANGE) over a changelog, across the restore")
    .in_batches("phase")
    .setup_temporary_system_function("my_sum", udfs.VarSum1AggFunction)
    .setup_table_source(_non_time_changelog("INT"))
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "v BIGINT", "w INT", "my_s BIGINT", "s INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore(*_sum_twice(_NON_TIME_RETRACT.expected_before))
                      .consuming_after_restore(*_sum_twice(_NON_TIME_RETRACT.expected_after))
                      .build())
    .run_sql("INSERT INTO S SELECT k, v, w, my_sum(w) OVER w, SUM(w) OVER w FROM T "
             "WINDOW w AS (PARTITION BY k ORDER BY v)")
    .build())

# User-defined aggregate functions over time-ordered windows (programs/_functions.py): over an
# unbounded frame VarSum1 (no retract), with a column and a literal argument (a constant the
# planner projects below the node, as LAG's), beside SUM and COUNT(*) over the same rows; over
# a bounded ROWS frame CountWithRetract, whose rows leaving the frame are retracted, beside
# COUNT(s). Each UDAF's column equals the built-in beside it (+ 1000 a row for the literal).
OVER_AGGREGATE_UDAF_SOURCE = (
    SourceTestStep.new_builder("T")
    .add_schema("k STRING", "v INT", "s STRING", "ts TIMESTAMP(3)", "WATERMARK FOR ts AS ts")
    .producing_before_restore(["a", 1, "x", "2024-01-01 00:00:01"],
                              ["a", 4, None, "2024-01-01 00:00:02"],
                              ["b", 10, "y", "2024-01-01 00:00:03"],
                              ["a", 7, "z", "2024-01-01 00:00:04"])
    .producing_after_restore(["a", 100, "w", "2024-01-01 00:00:05"],
                             ["b", 5, "q", "2024-01-01 00:00:06"])
    .build())

OVER_AGGREGATE_UDAF = (
    TableTestProgram.of("over-aggregate-udaf", "user-defined aggregate functions over an "
                        "unbounded and a bounded (retracting) event-time frame")
    .setup_temporary_system_function("my_sum", udfs.VarSum1AggFunction)
    .setup_temporary_system_function("cnt_r", udfs.CountWithRetract)
    .setup_table_source(OVER_AGGREGATE_UDAF_SOURCE)
    .setup_table_sink(SinkTestStep.new_builder("Sums")
                      .add_schema("k STRING", "v INT", "my_sum BIGINT", "my_sum_1000 BIGINT",
                                  "total BIGINT", "n BIGINT")
                      .consuming_before_restore("+I[a, 1, 1, 1001, 1, 1]", "+I[a, 4, 5, 2005, 5, 2]",
                                                "+I[b, 10, 10, 1010, 10, 1]",
                                                "+I[a, 7, 12, 3012, 12, 3]")
                      .consuming_after_restore("+I[a, 100, 112, 4112, 112, 4]",
                                               "+I[b, 5, 15, 2015, 15, 2]")
                      .build())
    .setup_table_sink(SinkTestStep.new_builder("Counts")
                      .add_schema("k STRING", "v INT", "cnt_r BIGINT", "cnt BIGINT")
                      .consuming_before_restore("+I[a, 1, 1, 1]", "+I[a, 4, 1, 1]",
                                                "+I[b, 10, 1, 1]", "+I[a, 7, 1, 1]")
                      .consuming_after_restore("+I[a, 100, 2, 2]", "+I[b, 5, 2, 2]")
                      .build())
    .run_statement_set(
        "INSERT INTO Sums SELECT k, v, my_sum(v) OVER w, my_sum(v, 1000) OVER w, SUM(v) OVER w, "
        "COUNT(*) OVER w FROM T WINDOW w AS (PARTITION BY k ORDER BY ts)",
        "INSERT INTO Counts SELECT k, v, cnt_r(s) OVER w, COUNT(s) OVER w FROM T "
        "WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)")
    .build())

# --- Flink's OverAggregateTestPrograms.java (the restore-test programs of the over aggregate
# over event time, in flink-table-planner's exec/common), transcribed as they are: SQL,
# schemas (types as written), rows, config and expected strings. Their aggregate function
# LTCNT is Flink's Java LargerThanCount, rewritten in Python (programs/_functions.py).
# The four in-order programs pass, and so does the ROWS one with out-of-order records. The
# three `*_WITH_OUT_OF_ORDER_RECORDS` programs with a RANGE frame do not (NOT_PASSING): their
# expected rows depend on when Flink's periodic watermark advanced while the source emitted
# its rows (late rows 13, 19, 33, 37 and 52 are emitted only after the restore, 53 before it,
# 12, 148 and 149 never); here the watermark advances after every row, as the harness feeds
# a row a micro-batch, so those rows are late and dropped.
OVER_AGGREGATE_COMMIT = "2865a3f62db14a4336c9b550a6be40f753db102a"

DATA = (
    [10, 1, 1, "Hello"],
    [15, 1, 15, "Hello"],
    [16, 1, 16, "Hello"],
    [19, 1, 15, "Hello"],
    [20, 2, 2, "Hello"],
    [21, 2, 3, "Hello"],
    [30, 3, 3, "Hello"],
    [33, 17, 1, "Hello"],
    [37, 19, 15, "Hello"],
    [40, 4, 4, "Hello"],
    [50, 5, 5, "Hello"],
    [51, 19, 15, "Hello"],
    [52, 19, 15, "Hello"],
    [53, 19, 15, "Hello"],
    [60, 6, 6, "Hello"],
    [65, 6, 65, "Hello"],
    [90, 6, 9, "Hello"],
    [92, 7, 9, "Hello"],
    [99, 19, 15, "Hello"],
    [100, 7, 7, "Hello World"],
    [110, 7, 17, "Hello World"],
    [140, 7, 18, "Hello World"],
    [150, 8, 8, "Hello World"],
    [200, 20, 20, "Hello World"],
)

AFTER_DATA = ([202, 20, 20, "Hello World"],)

DATA_WITH_OUT_OF_ORDER_RECORDS = (
    [10, 1, 1, "Hello"],
    [15, 1, 15, "Hello"],
    [16, 1, 16, "Hello"],
    [20, 2, 2, "Hello"],
    [20, 2, 2, "Hello"],
    [20, 2, 3, "Hello"],
    [30, 3, 3, "Hello"],
    [40, 4, 4, "Hello"],
    [50, 5, 5, "Hello"],
    [60, 6, 6, "Hello"],
    [65, 6, 65, "Hello"],
    [51, 19, 15, "Hello"],
    [90, 6, 9, "Hello"],
    [95, 6, 18, "Hello"],
    [90, 6, 10, "Hello"],
    [90, 7, 9, "Hello"],
    [92, 7, 9, "Hello"],
    [100, 7, 7, "Hello World"],
    [99, 19, 15, "Hello"],
    [110, 7, 17, "Hello World"],
    [110, 7, 77, "Hello World"],
    [140, 7, 18, "Hello World"],
    [53, 19, 15, "Hello"],
    [150, 8, 8, "Hello World"],
    [200, 20, 20, "Hello World"],
    [12, 1, 1, "Hello World"],
    [33, 17, 1, "Hello"],
    [37, 19, 15, "Hello"],
    [52, 19, 15, "Hello"],
    [13, 1, 1, "Hello"],
    [19, 1, 15, "Hello"],
)

AFTER_DATA_WITH_OUT_OF_ORDER_RECORDS = (
    [150, 8, 8, "Hello World"],
    [149, 8, 8, "Hello World"],
    [148, 8, 8, "Hello World"],
    [151, 8, 8, "Hello World"],
    [202, 20, 20, "Hello World"],
)


def get_source_test_step(data, after_data) -> SourceTestStep:
    """Flink's getSourceTestStep(data, afterData)."""
    return (SourceTestStep.new_builder("MyTable")
            .add_schema("ts bigint",
                        "a bigint",
                        "b int",
                        "c string",
                        "rowtime as TO_TIMESTAMP(FROM_UNIXTIME(ts))",
                        "watermark for rowtime as rowtime")
            .producing_before_restore(*data)
            .producing_after_restore(*after_data)
            .build())


SOURCE = get_source_test_step(DATA, AFTER_DATA)
SOURCE_WITH_OUT_OF_ORDER_RECORDS = get_source_test_step(DATA_WITH_OUT_OF_ORDER_RECORDS,
                                                        AFTER_DATA_WITH_OUT_OF_ORDER_RECORDS)

BEFORE_RESTORE_DATA = (
    "+I[Hello, 10, 1970-01-01T00:00:10, 1, 0, 1, 1]",
    "+I[Hello, 15, 1970-01-01T00:00:15, 15, 0, 2, 2]",
    "+I[Hello, 16, 1970-01-01T00:00:16, 16, 0, 3, 3]",
    "+I[Hello, 19, 1970-01-01T00:00:19, 15, 0, 4, 4]",
    "+I[Hello, 20, 1970-01-01T00:00:20, 2, 0, 5, 6]",
    "+I[Hello, 21, 1970-01-01T00:00:21, 3, 0, 5, 7]",
    "+I[Hello, 30, 1970-01-01T00:00:30, 3, 0, 3, 7]",
    "+I[Hello, 33, 1970-01-01T00:00:33, 1, 1, 2, 20]",
    "+I[Hello, 37, 1970-01-01T00:00:37, 15, 2, 3, 39]",
    "+I[Hello, 40, 1970-01-01T00:00:40, 4, 2, 4, 43]",
    "+I[Hello, 50, 1970-01-01T00:00:50, 5, 1, 2, 9]",
    "+I[Hello, 51, 1970-01-01T00:00:51, 15, 2, 2, 24]",
    "+I[Hello, 52, 1970-01-01T00:00:52, 15, 3, 3, 43]",
    "+I[Hello, 53, 1970-01-01T00:00:53, 15, 4, 4, 62]",
    "+I[Hello, 60, 1970-01-01T00:01, 6, 5, 5, 68]",
    "+I[Hello, 65, 1970-01-01T00:01:05, 65, 2, 2, 12]",
    "+I[Hello, 90, 1970-01-01T00:01:30, 9, 1, 1, 6]",
    "+I[Hello, 92, 1970-01-01T00:01:32, 9, 2, 2, 13]",
    "+I[Hello, 99, 1970-01-01T00:01:39, 15, 3, 3, 32]",
    "+I[Hello World, 100, 1970-01-01T00:01:40, 7, 1, 1, 7]",
    "+I[Hello World, 110, 1970-01-01T00:01:50, 17, 2, 2, 14]",
    "+I[Hello World, 140, 1970-01-01T00:02:20, 18, 1, 1, 7]",
    "+I[Hello World, 150, 1970-01-01T00:02:30, 8, 2, 2, 15]",
    "+I[Hello World, 200, 1970-01-01T00:03:20, 20, 1, 1, 20]",
)

BEFORE_RESTORE_NON_PARTITIONED_DATA = (
    "+I[Hello, 10, 1970-01-01T00:00:10, 1, 0, 1, 1]",
    "+I[Hello, 15, 1970-01-01T00:00:15, 15, 0, 2, 2]",
    "+I[Hello, 16, 1970-01-01T00:00:16, 16, 0, 3, 3]",
    "+I[Hello, 19, 1970-01-01T00:00:19, 15, 0, 4, 4]",
    "+I[Hello, 20, 1970-01-01T00:00:20, 2, 0, 5, 6]",
    "+I[Hello, 21, 1970-01-01T00:00:21, 3, 0, 5, 7]",
    "+I[Hello, 30, 1970-01-01T00:00:30, 3, 0, 3, 7]",
    "+I[Hello, 33, 1970-01-01T00:00:33, 1, 1, 2, 20]",
    "+I[Hello, 37, 1970-01-01T00:00:37, 15, 2, 3, 39]",
    "+I[Hello, 40, 1970-01-01T00:00:40, 4, 2, 4, 43]",
    "+I[Hello, 50, 1970-01-01T00:00:50, 5, 1, 2, 9]",
    "+I[Hello, 51, 1970-01-01T00:00:51, 15, 2, 2, 24]",
    "+I[Hello, 52, 1970-01-01T00:00:52, 15, 3, 3, 43]",
    "+I[Hello, 53, 1970-01-01T00:00:53, 15, 4, 4, 62]",
    "+I[Hello, 60, 1970-01-01T00:01, 6, 5, 5, 68]",
    "+I[Hello, 65, 1970-01-01T00:01:05, 65, 2, 2, 12]",
    "+I[Hello, 90, 1970-01-01T00:01:30, 9, 1, 1, 6]",
    "+I[Hello, 92, 1970-01-01T00:01:32, 9, 2, 2, 13]",
    "+I[Hello, 99, 1970-01-01T00:01:39, 15, 3, 3, 32]",
    "+I[Hello World, 100, 1970-01-01T00:01:40, 7, 4, 4, 39]",
    "+I[Hello World, 110, 1970-01-01T00:01:50, 17, 2, 2, 14]",
    "+I[Hello World, 140, 1970-01-01T00:02:20, 18, 1, 1, 7]",
    "+I[Hello World, 150, 1970-01-01T00:02:30, 8, 2, 2, 15]",
    "+I[Hello World, 200, 1970-01-01T00:03:20, 20, 1, 1, 20]",
)

AFTER_RESTORE_DATA = ("+I[Hello World, 202, 1970-01-01T00:03:22, 20, 2, 2, 40]",)

BEFORE_RESTORE_DATA_WITH_OUT_OF_ORDER_RECORDS = (
    "+I[Hello, 10, 1970-01-01T00:00:10, 1, 0, 1, 1]",
    "+I[Hello, 15, 1970-01-01T00:00:15, 15, 0, 2, 2]",
    "+I[Hello, 16, 1970-01-01T00:00:16, 16, 0, 3, 3]",
    "+I[Hello, 20, 1970-01-01T00:00:20, 2, 0, 4, 5]",
    "+I[Hello, 30, 1970-01-01T00:00:30, 3, 0, 2, 5]",
    "+I[Hello, 40, 1970-01-01T00:00:40, 4, 0, 2, 7]",
    "+I[Hello, 50, 1970-01-01T00:00:50, 5, 1, 2, 9]",
    "+I[Hello, 60, 1970-01-01T00:01, 6, 2, 2, 11]",
    "+I[Hello, 65, 1970-01-01T00:01:05, 65, 2, 2, 12]",
    "+I[Hello, 90, 1970-01-01T00:01:30, 9, 1, 1, 6]",
    "+I[Hello, 95, 1970-01-01T00:01:35, 18, 2, 2, 12]",
    "+I[Hello World, 100, 1970-01-01T00:01:40, 7, 1, 1, 7]",
    "+I[Hello, 99, 1970-01-01T00:01:39, 15, 3, 3, 31]",
    "+I[Hello World, 110, 1970-01-01T00:01:50, 17, 2, 2, 14]",
    "+I[Hello World, 140, 1970-01-01T00:02:20, 18, 1, 1, 7]",
    "+I[Hello, 53, 1970-01-01T00:00:53, 15, 1, 1, 19]",
    "+I[Hello World, 150, 1970-01-01T00:02:30, 8, 2, 2, 15]",
    "+I[Hello World, 200, 1970-01-01T00:03:20, 20, 1, 1, 20]",
)

AFTER_RESTORE_OUTPUT_WITH_OUT_OF_ORDER_RECORDS = (
    "+I[Hello, 13, 1970-01-01T00:00:13, 1, 0, 1, 1]",
    "+I[Hello, 19, 1970-01-01T00:00:19, 15, 0, 2, 2]",
    "+I[Hello, 33, 1970-01-01T00:00:33, 1, 1, 1, 17]",
    "+I[Hello, 37, 1970-01-01T00:00:37, 15, 2, 2, 36]",
    "+I[Hello, 52, 1970-01-01T00:00:52, 15, 1, 1, 19]",
    "+I[Hello World, 202, 1970-01-01T00:03:22, 20, 2, 2, 40]",
)

BEFORE_RESTORE_DATA_UNBOUNDED = (
    "+I[Hello, 10, 1970-01-01T00:00:10, 1, 0, 1, 1]",
    "+I[Hello, 15, 1970-01-01T00:00:15, 15, 0, 2, 2]",
    "+I[Hello, 16, 1970-01-01T00:00:16, 16, 0, 3, 3]",
    "+I[Hello, 19, 1970-01-01T00:00:19, 15, 0, 4, 4]",
    "+I[Hello, 20, 1970-01-01T00:00:20, 2, 0, 5, 6]",
    "+I[Hello, 21, 1970-01-01T00:00:21, 3, 0, 6, 8]",
    "+I[Hello, 30, 1970-01-01T00:00:30, 3, 0, 7, 11]",
    "+I[Hello, 33, 1970-01-01T00:00:33, 1, 1, 8, 28]",
    "+I[Hello, 37, 1970-01-01T00:00:37, 15, 2, 9, 47]",
    "+I[Hello, 40, 1970-01-01T00:00:40, 4, 2, 10, 51]",
    "+I[Hello, 50, 1970-01-01T00:00:50, 5, 3, 11, 56]",
    "+I[Hello, 51, 1970-01-01T00:00:51, 15, 4, 12, 75]",
    "+I[Hello, 52, 1970-01-01T00:00:52, 15, 5, 13, 94]",
    "+I[Hello, 53, 1970-01-01T00:00:53, 15, 6, 14, 113]",
    "+I[Hello, 60, 1970-01-01T00:01, 6, 7, 15, 119]",
    "+I[Hello, 65, 1970-01-01T00:01:05, 65, 8, 16, 125]",
    "+I[Hello, 90, 1970-01-01T00:01:30, 9, 9, 17, 131]",
    "+I[Hello, 92, 1970-01-01T00:01:32, 9, 10, 18, 138]",
    "+I[Hello, 99, 1970-01-01T00:01:39, 15, 11, 19, 157]",
    "+I[Hello World, 100, 1970-01-01T00:01:40, 7, 1, 1, 7]",
    "+I[Hello World, 110, 1970-01-01T00:01:50, 17, 2, 2, 14]",
    "+I[Hello World, 140, 1970-01-01T00:02:20, 18, 3, 3, 21]",
    "+I[Hello World, 150, 1970-01-01T00:02:30, 8, 4, 4, 29]",
    "+I[Hello World, 200, 1970-01-01T00:03:20, 20, 5, 5, 49]",
)

AFTER_RESTORE_DATA_UNBOUNDED = ("+I[Hello World, 202, 1970-01-01T00:03:22, 20, 6, 6, 69]",)

BEFORE_RESTORE_DATA_UNBOUNDED_WITH_OUT_OF_ORDER_RECORDS = (
    "+I[Hello, 10, 1970-01-01T00:00:10, 1, 0, 1, 1]",
    "+I[Hello, 15, 1970-01-01T00:00:15, 15, 0, 2, 2]",
    "+I[Hello, 16, 1970-01-01T00:00:16, 16, 0, 3, 3]",
    "+I[Hello, 20, 1970-01-01T00:00:20, 2, 0, 4, 5]",
    "+I[Hello, 30, 1970-01-01T00:00:30, 3, 0, 5, 8]",
    "+I[Hello, 40, 1970-01-01T00:00:40, 4, 0, 6, 12]",
    "+I[Hello, 50, 1970-01-01T00:00:50, 5, 1, 7, 17]",
    "+I[Hello, 60, 1970-01-01T00:01, 6, 2, 8, 23]",
    "+I[Hello, 65, 1970-01-01T00:01:05, 65, 3, 9, 29]",
    "+I[Hello, 90, 1970-01-01T00:01:30, 9, 4, 10, 35]",
    "+I[Hello, 95, 1970-01-01T00:01:35, 18, 5, 11, 41]",
    "+I[Hello World, 100, 1970-01-01T00:01:40, 7, 1, 1, 7]",
    "+I[Hello World, 110, 1970-01-01T00:01:50, 17, 2, 2, 14]",
    "+I[Hello World, 140, 1970-01-01T00:02:20, 18, 3, 3, 21]",
    "+I[Hello World, 150, 1970-01-01T00:02:30, 8, 4, 4, 29]",
    "+I[Hello World, 200, 1970-01-01T00:03:20, 20, 5, 5, 49]",
)

AFTER_RESTORE_DATA_UNBOUNDED_WITH_OUT_OF_ORDER_RECORDS = (
    "+I[Hello World, 150, 1970-01-01T00:02:30, 8, 6, 6, 57]",
    "+I[Hello World, 151, 1970-01-01T00:02:31, 8, 7, 7, 65]",
    "+I[Hello World, 202, 1970-01-01T00:03:22, 20, 8, 8, 85]",
)

BEFORE_RESTORE_DATA_PRECEDING_ROWS = (
    "+I[Hello, 10, 1970-01-01T00:00:10, 1, 0, 1, 1]",
    "+I[Hello, 15, 1970-01-01T00:00:15, 15, 0, 2, 2]",
    "+I[Hello, 16, 1970-01-01T00:00:16, 16, 0, 3, 3]",
    "+I[Hello, 19, 1970-01-01T00:00:19, 15, 0, 4, 4]",
    "+I[Hello, 20, 1970-01-01T00:00:20, 2, 0, 5, 6]",
    "+I[Hello, 21, 1970-01-01T00:00:21, 3, 0, 6, 8]",
    "+I[Hello, 30, 1970-01-01T00:00:30, 3, 0, 6, 10]",
    "+I[Hello, 33, 1970-01-01T00:00:33, 1, 1, 6, 26]",
    "+I[Hello, 37, 1970-01-01T00:00:37, 15, 2, 6, 44]",
    "+I[Hello, 40, 1970-01-01T00:00:40, 4, 2, 6, 47]",
    "+I[Hello, 50, 1970-01-01T00:00:50, 5, 3, 6, 50]",
    "+I[Hello, 51, 1970-01-01T00:00:51, 15, 4, 6, 67]",
    "+I[Hello, 52, 1970-01-01T00:00:52, 15, 5, 6, 83]",
    "+I[Hello, 53, 1970-01-01T00:00:53, 15, 5, 6, 85]",
    "+I[Hello, 60, 1970-01-01T00:01, 6, 5, 6, 72]",
    "+I[Hello, 65, 1970-01-01T00:01:05, 65, 6, 6, 74]",
    "+I[Hello, 90, 1970-01-01T00:01:30, 9, 6, 6, 75]",
    "+I[Hello, 92, 1970-01-01T00:01:32, 9, 6, 6, 63]",
    "+I[Hello, 99, 1970-01-01T00:01:39, 15, 6, 6, 63]",
    "+I[Hello World, 100, 1970-01-01T00:01:40, 7, 1, 1, 7]",
    "+I[Hello World, 110, 1970-01-01T00:01:50, 17, 2, 2, 14]",
    "+I[Hello World, 140, 1970-01-01T00:02:20, 18, 3, 3, 21]",
    "+I[Hello World, 150, 1970-01-01T00:02:30, 8, 4, 4, 29]",
    "+I[Hello World, 200, 1970-01-01T00:03:20, 20, 5, 5, 49]",
)

BEFORE_RESTORE_DATA_PRECEDING_ROWS_WITH_OUT_OF_ORDER_RECORDS = (
    "+I[Hello, 10, 1970-01-01T00:00:10, 1, 0, 1, 1]",
    "+I[Hello, 15, 1970-01-01T00:00:15, 15, 0, 2, 2]",
    "+I[Hello, 16, 1970-01-01T00:00:16, 16, 0, 3, 3]",
    "+I[Hello, 20, 1970-01-01T00:00:20, 2, 0, 4, 5]",
    "+I[Hello, 30, 1970-01-01T00:00:30, 3, 0, 5, 8]",
    "+I[Hello, 40, 1970-01-01T00:00:40, 4, 0, 6, 12]",
    "+I[Hello, 50, 1970-01-01T00:00:50, 5, 1, 6, 16]",
    "+I[Hello, 60, 1970-01-01T00:01, 6, 2, 6, 21]",
    "+I[Hello, 65, 1970-01-01T00:01:05, 65, 3, 6, 26]",
    "+I[Hello, 90, 1970-01-01T00:01:30, 9, 4, 6, 30]",
    "+I[Hello, 95, 1970-01-01T00:01:35, 18, 5, 6, 33]",
    "+I[Hello World, 100, 1970-01-01T00:01:40, 7, 1, 1, 7]",
    "+I[Hello, 99, 1970-01-01T00:01:39, 15, 6, 6, 48]",
    "+I[Hello World, 110, 1970-01-01T00:01:50, 17, 2, 2, 14]",
    "+I[Hello World, 140, 1970-01-01T00:02:20, 18, 3, 3, 21]",
    "+I[Hello World, 150, 1970-01-01T00:02:30, 8, 4, 4, 29]",
    "+I[Hello World, 200, 1970-01-01T00:03:20, 20, 5, 5, 49]",
)

AFTER_RESTORE_DATA_PRECEDING_ROWS = ("+I[Hello World, 202, 1970-01-01T00:03:22, 20, 6, 6, 69]",)

AFTER_RESTORE_DATA_PRECEDING_ROWS_WITH_OUT_OF_ORDER_RECORDS = (
    "+I[Hello World, 202, 1970-01-01T00:03:22, 20, 6, 6, 69]",)


def get_table_test_program(id: str, description: str, window_sql: str, source: SourceTestStep,
                           before_rows, after_rows, constant: str) -> TableTestProgram:
    """Flink's getTableTestProgram(id, description, windowSql, source, beforeRows, afterRows);
    `constant` is the program's name in the Java file, for ported_from. The SQL is Flink's
    String.format, its double spaces (string concatenation) kept."""
    sql = ("INSERT INTO MySink SELECT "
           + "  c, ts, rowtime, b,"
           + "  LTCNT(a, CAST('4' AS BIGINT)) OVER w,"
           + "  COUNT(a) OVER w,"
           + "  SUM(a) OVER w"
           + " FROM MyTable"
           + " WINDOW w as (%s)") % window_sql
    return (TableTestProgram.of(id, description)
            .ported_from(f"OverAggregateTestPrograms.java#{constant}", OVER_AGGREGATE_COMMIT)
            .setup_config("table.local-time-zone", "UTC")
            .setup_temporary_system_function("LTCNT", udfs.LargerThanCount)
            .setup_table_source(source)
            .setup_table_sink(SinkTestStep.new_builder("MySink")
                              .add_schema("a string",
                                          "ts bigint",
                                          "rowtime TIMESTAMP(3)",
                                          "b int",
                                          "c bigint",
                                          "d bigint",
                                          "e bigint")
                              .consuming_before_restore(*before_rows)
                              .consuming_after_restore(*after_rows)
                              .build())
            .run_sql(sql)
            .build())


OVER_AGGREGATE_TIME_BOUNDED_PARTITIONED_ROWS = get_table_test_program(
    "over-aggregate-bounded-partitioned-rows",
    "validates over aggregate node with time range and partitioning",
    "PARTITION BY c ORDER BY rowtime RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW",
    SOURCE,
    BEFORE_RESTORE_DATA,
    AFTER_RESTORE_DATA,
    "OVER_AGGREGATE_TIME_BOUNDED_PARTITIONED_ROWS")

OVER_AGGREGATE_TIME_BOUNDED_PARTITIONED_ROWS_WITH_OUT_OF_ORDER_RECORDS = get_table_test_program(
    "over-aggregate-bounded-partitioned-rows-with-out-of-order-records",
    "validates over aggregate node with time range and partitioning",
    "PARTITION BY c ORDER BY rowtime RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW",
    SOURCE_WITH_OUT_OF_ORDER_RECORDS,
    BEFORE_RESTORE_DATA_WITH_OUT_OF_ORDER_RECORDS,
    AFTER_RESTORE_OUTPUT_WITH_OUT_OF_ORDER_RECORDS,
    "OVER_AGGREGATE_TIME_BOUNDED_PARTITIONED_ROWS_WITH_OUT_OF_ORDER_RECORDS")

OVER_AGGREGATE_TIME_BOUNDED_NON_PARTITIONED_ROWS = get_table_test_program(
    "over-aggregate-bounded-non-partitioned-rows",
    "validates over aggregate node with time range and no partitioning",
    "ORDER BY rowtime RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW",
    SOURCE,
    BEFORE_RESTORE_NON_PARTITIONED_DATA,
    AFTER_RESTORE_DATA,
    "OVER_AGGREGATE_TIME_BOUNDED_NON_PARTITIONED_ROWS")

OVER_AGGREGATE_TIME_BOUNDED_NON_PARTITIONED_ROWS_WITH_OUT_OF_ORDER_RECORDS = (
    get_table_test_program(
        "over-aggregate-bounded-non-partitioned-rows-with-out-of-order-records",
        "validates over aggregate node with time range and no partitioning",
        "ORDER BY rowtime RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW",
        SOURCE_WITH_OUT_OF_ORDER_RECORDS,
        BEFORE_RESTORE_DATA_WITH_OUT_OF_ORDER_RECORDS,
        AFTER_RESTORE_OUTPUT_WITH_OUT_OF_ORDER_RECORDS,
        "OVER_AGGREGATE_TIME_BOUNDED_NON_PARTITIONED_ROWS_WITH_OUT_OF_ORDER_RECORDS"))

OVER_AGGREGATE_UNBOUNDED_PARTITIONED_ROWS = get_table_test_program(
    "over-aggregate-unbounded-partitioned-rows",
    "validates over aggregate node with no bounds and partitioning",
    "PARTITION BY c ORDER BY rowtime RANGE UNBOUNDED PRECEDING",
    SOURCE,
    BEFORE_RESTORE_DATA_UNBOUNDED,
    AFTER_RESTORE_DATA_UNBOUNDED,
    "OVER_AGGREGATE_UNBOUNDED_PARTITIONED_ROWS")

OVER_AGGREGATE_UNBOUNDED_PARTITIONED_ROWS_WITH_OUT_OF_ORDER_RECORDS = get_table_test_program(
    "over-aggregate-unbounded-partitioned-rows-with-out-of-order-records",
    "validates over aggregate node with no bounds and partitioning",
    "PARTITION BY c ORDER BY rowtime RANGE UNBOUNDED PRECEDING",
    SOURCE_WITH_OUT_OF_ORDER_RECORDS,
    BEFORE_RESTORE_DATA_UNBOUNDED_WITH_OUT_OF_ORDER_RECORDS,
    AFTER_RESTORE_DATA_UNBOUNDED_WITH_OUT_OF_ORDER_RECORDS,
    "OVER_AGGREGATE_UNBOUNDED_PARTITIONED_ROWS_WITH_OUT_OF_ORDER_RECORDS")

OVER_AGGREGATE_ROW_BOUNDED_PARTITIONED_PRECEDING_ROWS = get_table_test_program(
    "over-aggregate-bounded-partitioned-preceding-rows",
    "validates over aggregate node partitioned and bounded by prior rows",
    "PARTITION BY c ORDER BY rowtime ROWS BETWEEN 5 preceding AND CURRENT ROW",
    SOURCE,
    BEFORE_RESTORE_DATA_PRECEDING_ROWS,
    AFTER_RESTORE_DATA_PRECEDING_ROWS,
    "OVER_AGGREGATE_ROW_BOUNDED_PARTITIONED_PRECEDING_ROWS")

OVER_AGGREGATE_ROW_BOUNDED_PARTITIONED_PRECEDING_ROWS_WITH_OUT_OF_ORDER_RECORDS = (
    get_table_test_program(
        "over-aggregate-bounded-partitioned-preceding-rows-with-out-of-order-records",
        "validates over aggregate node partitioned and bounded by prior rows",
        "PARTITION BY c ORDER BY rowtime ROWS BETWEEN 5 preceding AND CURRENT ROW",
        SOURCE_WITH_OUT_OF_ORDER_RECORDS,
        BEFORE_RESTORE_DATA_PRECEDING_ROWS_WITH_OUT_OF_ORDER_RECORDS,
        AFTER_RESTORE_DATA_PRECEDING_ROWS_WITH_OUT_OF_ORDER_RECORDS,
        "OVER_AGGREGATE_ROW_BOUNDED_PARTITIONED_PRECEDING_ROWS_WITH_OUT_OF_ORDER_RECORDS"))

TIME_PROGRAMS = [OVER_AGGREGATE_TIME_BOUNDED_PARTITIONED_ROWS,
                 OVER_AGGREGATE_TIME_BOUNDED_NON_PARTITIONED_ROWS,
                 OVER_AGGREGATE_UNBOUNDED_PARTITIONED_ROWS,
                 OVER_AGGREGATE_ROW_BOUNDED_PARTITIONED_PRECEDING_ROWS,
                 OVER_AGGREGATE_ROW_BOUNDED_PARTITIONED_PRECEDING_ROWS_WITH_OUT_OF_ORDER_RECORDS]

_LATE_ROWS = ("its expected rows depend on when Flink's periodic watermark advanced while the "
              "source emitted the rows (the late rows 13, 19, 33, 37 and 52 are emitted only "
              "after the restore, 53 before it, 12, 148 and 149 never); here the watermark "
              "advances after every row (a row a micro-batch), so those rows are late and "
              "dropped, as Flink drops them once its watermark has passed them")

# Ported, not passing: kept as Flink wrote them, out of PROGRAMS (docs/flink-programs.md).
TIME_NOT_PASSING = {
    OVER_AGGREGATE_TIME_BOUNDED_PARTITIONED_ROWS_WITH_OUT_OF_ORDER_RECORDS.id: _LATE_ROWS,
    OVER_AGGREGATE_TIME_BOUNDED_NON_PARTITIONED_ROWS_WITH_OUT_OF_ORDER_RECORDS.id: _LATE_ROWS,
    OVER_AGGREGATE_UNBOUNDED_PARTITIONED_ROWS_WITH_OUT_OF_ORDER_RECORDS.id: _LATE_ROWS,
}

PROGRAMS = [OVER_AGGREGATE_ROWS_ACROSS_RESTORE, OVER_AGGREGATE_RANGE_ACROSS_RESTORE,
            OVER_AGGREGATE_LAG, OVER_AGGREGATE_FIRST_LAST_VALUE,
            OVER_AGGREGATE_STATE_TTL_EXPIRES,
            OVER_AGGREGATE_NON_TIME_RETRACT_ACROSS_RESTORE,
            OVER_AGGREGATE_NON_TIME_UNBOUNDED_APPEND_MODE,
            OVER_AGGREGATE_NON_TIME_UNBOUNDED_APPEND_MODE_MULTIPLE_AGGS,
            OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE,
            OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE_SORT_BY_KEY,
            OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_AVG_APPEND_MODE,
            OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_NO_PARTITION_BY,
            OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_PRIMARY_KEY,
            OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_SINK_PRIMARY_KEY,
            OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_RETRACT_MODE,
            OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_RETRACT_MODE_SORT_BY_KEY,
            OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_PRIMARY_KEY,
            OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_SINK_PRIMARY_KEY,
            OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_APPEND_MODE,
            OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_AVG_APPEND_MODE,
            OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_MULTIPLE_AGGS_APPEND_MODE,
            OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_NO_PARTITION_BY,
            OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE_SINK_PRIMARY_KEY,
            OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_RETRACT_MODE_SINK_PRIMARY_KEY,
            OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_SINK_PRIMARY_KEY_PARTITION_BY_NON_PK,
            OVER_AGGREGATE_NON_TIME_ROWS_UNBOUNDED_SUM_RETRACT_MODE_SOURCE_SINK_PRIMARY_KEY_PARTITION_BY_NON_PK,
            OVER_AGGREGATE_UDAF, OVER_AGGREGATE_UDAF_NON_TIME, *TIME_PROGRAMS]

# Ported, not passing: kept as Flink wrote it, out of PROGRAMS (the table in
# docs/flink-programs.md). Both expect rows of the function as it was at 07d57de7e113, which
# Flink 2.3 (and this node) no longer emits; PyFlink 2.3 on the programs' rows gives every
# other row as written (tools/flink_compare), and Flink's later OverWindowTestPrograms.java
# renamed both (over-aggregate-non-time-range-unbounded-sum-retract-mode, ...-sum-no-partition-by)
# with Flink 2.3's rows.
NOT_PASSING = {
    OVER_AGGREGATE_NON_TIME_UNBOUNDED_RETRACT_MODE.id:
        "a retracted row: Flink 2.3's NonTimeRangeUnboundedPrecedingFunction retracts it as -D "
        "with its old value (AbstractNonTimeUnboundedPrecedingOver.sendUpdateForChangedRow: "
        "collectDelete), as this node does; the program expects -U[key1, 2, 200, 3] and "
        "-U[key1, 3, 200, 4] (the function of Flink 2.1 emitted UPDATE_BEFORE there), PyFlink "
        "2.3 gives -D[key1, 2, 200, 3] and -D[key1, 3, 200, 4]",
    OVER_AGGREGATE_NON_TIME_UNBOUNDED_NO_PARTITION_BY.id:
        "rows of one sort key share one value (RANGE): when key2's row of val 1 arrives, Flink "
        "2.3 (insertIntoSortedList, emitUpdatesForIds) and this node update key1's row of val 1 "
        "(-U[key1, 1, 100, 1], +U[key1, 1, 100, 2]), and key1's row of val 2 when key2's row "
        "of val 2 arrives (-U[key1, 2, 200, 4], +U[key1, 2, 200, 6]); the program's "
        "before-restore rows lack these four (they are a ROWS frame's), PyFlink 2.3 gives them",
}
NOT_PASSING.update(TIME_NOT_PASSING)

# Statements that must be refused (Flink's runFailingSql): the gate checks the error type and
# its message; no fixtures.
_T = (SourceTestStep.new_builder("T").add_schema("k STRING", "v BIGINT").build())
_A = (SinkTestStep.new_builder("A").add_schema("k STRING", "s BIGINT")
      .consuming_before_restore().build())

# the refusal programs' event-time table (no rows: only the statement is compiled)
_T_ROWTIME = (SourceTestStep.new_builder("T")
              .add_schema("k STRING", "v BIGINT", "ts TIMESTAMP(3)", "WATERMARK FOR ts AS ts")
              .build())

OVER_AGGREGATE_REFUSES_NON_TIME_BOUNDED = (
    TableTestProgram.of("over-aggregate-refuses-non-time-bounded", "a bounded frame on a column "
                        "that is no time attribute: refused, as Flink's StreamExecOverAggregate "
                        "refuses it")
    .setup_table_source(_T).setup_table_sink(_A)
    .run_failing_sql("INSERT INTO A SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY v ROWS "
                     "BETWEEN 1 PRECEDING AND CURRENT ROW) FROM T", PlanningError,
                     "Non-time attribute sort is not supported for bounded OVER window.")
    .build())

OVER_AGGREGATE_REFUSES_TWO_WINDOWS = (
    TableTestProgram.of("over-aggregate-refuses-two-windows", "two different OVER windows in "
                        "one SELECT: refused by name")
    .setup_table_source(_T_ROWTIME)
    .setup_table_sink(SinkTestStep.new_builder("A").add_schema("s BIGINT", "c BIGINT")
                      .consuming_before_restore().build())
    .run_failing_sql("INSERT INTO A SELECT SUM(v) OVER (PARTITION BY k ORDER BY ts), "
                     "COUNT(*) OVER (ORDER BY ts) FROM T", UnsupportedSqlError,
                     "each needs its own stream-exec-over-aggregate")
    .build())

# The over aggregate keeps only its input's upsert keys that contain the partition key: rows
# are distributed by it (FlinkRelMdUpsertKeys.getUpsertKeysOnOver). PRIMARY KEY(val) of the
# source is no upsert key of an over aggregate partitioned by key, so a sink keyed by val gets
# rows of one key from no known upsert key: Flink 2.3 asks for ON CONFLICT (PyFlink 2.3 refuses
# Flink's ..._PARTITION_BY_NON_PK programs so).
OVER_AGGREGATE_REFUSES_SINK_KEYED_OFF_PARTITION = (
    TableTestProgram.of("over-aggregate-refuses-sink-keyed-off-partition", "a sink keyed by the "
                        "source's primary key, which is not the over aggregate's upsert key "
                        "(it lacks the partition key): refused without ON CONFLICT, as Flink "
                        "2.3 refuses it")
    .setup_table_source(_source("I,UB,UA", [], [], _PK_VAL))
    .setup_table_sink(SinkTestStep.new_builder("sink_t")
                      .add_schema("key STRING", "val BIGINT", "ts BIGINT", "sum_val BIGINT",
                                  _PK_VAL).consuming_before_restore().build())
    .run_failing_sql(_over_sql("RANGE"), PlanningError,
                     "the query has an upsert key that differs from the primary key of sink "
                     "table 'sink_t'. Primary key: [val], upsert key: []")
    .build())

# LAG allows no frame (Calcite's validator: SqlLeadLagAggFunction does not allow framing).
OVER_AGGREGATE_REFUSES_FRAMED_LAG = (
    TableTestProgram.of("over-aggregate-refuses-framed-lag", "LAG with a ROWS frame: refused "
                        "with Calcite's message")
    .setup_table_source(_T_ROWTIME)
    .setup_table_sink(SinkTestStep.new_builder("A").add_schema("p BIGINT")
                      .consuming_before_restore().build())
    .run_failing_sql("INSERT INTO A SELECT LAG(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN "
                     "UNBOUNDED PRECEDING AND CURRENT ROW) FROM T", PlanningError,
                     "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions")
    .build())

OVER_AGGREGATE_REFUSES_UDAF_WITHOUT_RETRACT_IN_BOUNDED_FRAME = (
    TableTestProgram.of("over-aggregate-refuses-udaf-without-retract-in-bounded-frame",
                        "a user-defined aggregate function without retract over a bounded "
                        "frame (rows leave it): refused by name")
    .setup_temporary_system_function("my_sum", udfs.VarSum1AggFunction)
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "v INT", "ts TIMESTAMP(3)",
                                    "WATERMARK FOR ts AS ts").build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "s BIGINT")
                      .consuming_before_restore().build())
    .run_failing_sql("INSERT INTO S SELECT k, my_sum(v) OVER (PARTITION BY k ORDER BY ts "
                     "ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM T", PlanningError,
                     "has no retract method, but its OVER frame is bounded")
    .build())

FAILING_PROGRAMS = [OVER_AGGREGATE_REFUSES_NON_TIME_BOUNDED, OVER_AGGREGATE_REFUSES_TWO_WINDOWS,
                    OVER_AGGREGATE_REFUSES_FRAMED_LAG,
                    OVER_AGGREGATE_REFUSES_SINK_KEYED_OFF_PARTITION,
                    OVER_AGGREGATE_REFUSES_UDAF_WITHOUT_RETRACT_IN_BOUNDED_FRAME]
