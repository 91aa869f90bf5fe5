"""Table test programs for stream-exec-temporal-sort: `ORDER BY <time attribute>[, ...]`
without LIMIT (Flink's RowTimeSortOperator; on the processing-time attribute alone the rows
are forwarded). Flink's TemporalSortTestPrograms, ported as written.

temporal-sort-rowtime, a row a micro-batch, watermark = rowtime - 1 s: the row at :16 moves
the watermark to :15, which emits :01, :02, :06, :07 (sorted by `double`: 3.0, 6.0) and :08;
the row at :04 arrived when :07 had been emitted (watermark :07 after the row at :08), so it
is late and dropped. After the restore :16, :40 and :42 leave at the end of input.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram

FLINK_COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"
FLINK_FILE = "TemporalSortTestPrograms.java"

BEFORE_DATA = (
    ["2020-10-10 00:00:01", 1, 1.0],
    ["2020-10-10 00:00:02", 2, 2.0],
    ["2020-10-10 00:00:07", 5, 6.0],
    ["2020-10-10 00:00:07", 3, 3.0],
    # out of order
    ["2020-10-10 00:00:06", 6, 6.0],
    ["2020-10-10 00:00:08", 3, None],
    # late event
    ["2020-10-10 00:00:04", 5, 5.0],
    ["2020-10-10 00:00:16", 4, 4.0],
)

AFTER_DATA = (["2020-10-10 00:00:40", 10, 3.0], ["2020-10-10 00:00:42", 11, 4.0])

TEMPORAL_SORT_PROCTIME = (
    TableTestProgram.of("temporal-sort-proctime", "validates temporal sort node with proctime")
    .ported_from(f"{FLINK_FILE}#TEMPORAL_SORT_PROCTIME", FLINK_COMMIT)
    .setup_table_source(
        SourceTestStep.new_builder("source_t")
        .add_schema("a INT", "b BIGINT", "c STRING", "`proctime` as PROCTIME()")
        .producing_before_restore([1, 1, "Hi"], [2, 2, "Hello"], [3, 2, "Hello world"])
        .producing_after_restore([4, 1, "Guten Morgen"], [5, 2, "Guten Tag"])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("sink_t")
        .add_schema("a INT")
        .consuming_before_restore("+I[1]", "+I[2]", "+I[3]")
        .consuming_after_restore("+I[4]", "+I[5]")
        .build())
    .run_sql("INSERT INTO sink_t SELECT a from source_t ORDER BY proctime")
    .build())

TEMPORAL_SORT_ROWTIME = (
    TableTestProgram.of("temporal-sort-rowtime", "validates temporal sort node with rowtime")
    .ported_from(f"{FLINK_FILE}#TEMPORAL_SORT_ROWTIME", FLINK_COMMIT)
    .setup_table_source(
        SourceTestStep.new_builder("source_t")
        .add_schema("ts STRING", "`int` INT", "`double` DOUBLE", "`rowtime` AS TO_TIMESTAMP(`ts`)",
                    "WATERMARK for `rowtime` AS `rowtime` - INTERVAL '1' SECOND")
        .producing_before_restore(*BEFORE_DATA)
        .producing_after_restore(*AFTER_DATA)
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("sink_t")
        .add_schema("a INT")
        .consuming_before_restore("+I[1]", "+I[2]", "+I[6]", "+I[3]", "+I[5]", "+I[3]")
        .consuming_after_restore("+I[4]", "+I[10]", "+I[11]")
        .build())
    .run_sql("insert into sink_t SELECT `int` FROM source_t order by rowtime, `double`")
    .build())

# --- our own ---------------------------------------------------------------------------------

def at(second: int) -> str:
    return f"2024-01-01 10:00:{second:02d}"


# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# The row at :05 waits across the restore (watermark :04) and leaves before the one at :06.
TINY = (
    TableTestProgram.of("temporal-sort-tiny", "a row waiting across the restore leaves in time "
                        "order")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("ts TIMESTAMP(3)", "v INT",
                                    "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND")
                        .producing_before_restore([at(5), 1])
                        .producing_after_restore([at(6), 2]).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("v INT")
                      .consuming_after_restore("+I[1]", "+I[2]").build())
    .run_sql("INSERT INTO S SELECT v FROM T ORDER BY ts")
    .build())

# A phase a micro-batch; watermark = ts - 1 s. Before the restore it reaches :04 (the batch's
# latest row is at :05): :01 (w NULL first, then 2.0) and :03 leave, the two :05 rows wait in
# the state across the restore. After it a third :05 row arrives (after the last emitted time
# :03, so not late although behind the watermark) and sorts between them; :08 follows at the
# end of input. Expected rows: PyFlink 2.3 on the same rows and query (`ORDER BY ts, w`).
TEMPORAL_SORT_ACROSS_RESTORE = (
    TableTestProgram.of("temporal-sort-across-restore", "rows of one time wait across the "
                        "restore and sort with one arriving after it; NULLs in the second column")
    .in_batches("phase")
    .setup_table_source(
        SourceTestStep.new_builder("T")
        .add_schema("ts TIMESTAMP(3)", "v INT", "w DOUBLE",
                    "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND")
        .producing_before_restore([at(1), 1, 2.0], [at(1), 2, None], [at(3), 3, 1.0],
                                  [at(5), 4, None], [at(5), 5, 0.5])
        .producing_after_restore([at(5), 6, 0.1], [at(8), 7, None])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("S")
        .add_schema("v INT", "w DOUBLE")
        .add_option("sink-insert-only", "false")
        .consuming_before_restore("+I[2, null]", "+I[1, 2.0]", "+I[3, 1.0]")
        .consuming_after_restore("+I[4, null]", "+I[6, 0.1]", "+I[5, 0.5]", "+I[7, null]")
        .build())
    .run_sql("INSERT INTO S SELECT v, w FROM T ORDER BY ts, w")
    .build())

PROGRAMS = [TEMPORAL_SORT_PROCTIME, TEMPORAL_SORT_ROWTIME, TEMPORAL_SORT_ACROSS_RESTORE]

NOT_PASSING: dict[str, str] = {}
