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

PROGRAMS = [TEMPORAL_SORT_PROCTIME, TEMPORAL_SORT_ROWTIME]

NOT_PASSING: dict[str, str] = {}
