"""Programs for stream-exec-watermark-assigner: watermarks on physical and computed rowtimes.

Stateless plans cannot observe the watermark itself; these programs pin the plan shape
(rowtime index, delay) and that out-of-order rows, the end-of-input marker and the
restored watermark leave the rows untouched.
"""
from harness import SinkTestStep, SourceTestStep, TableTestProgram

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
TINY = (
    TableTestProgram.of("watermark-assigner-tiny", "rows pass a watermark assigner unchanged")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("id INT", "t TIMESTAMP(3)",
                                    "WATERMARK FOR t AS t - INTERVAL '1' SECOND")
                        .producing_before_restore([1, "2024-01-01 10:00:00"])
                        .producing_after_restore([2, "2024-01-01 10:00:05"]).build())
    .setup_table_sink(SinkTestStep.new_builder("Out").add_schema("id INT", "t TIMESTAMP(3)")
                      .consuming_before_restore("+I[1, 2024-01-01T10:00]")
                      .consuming_after_restore("+I[2, 2024-01-01T10:00:05]").build())
    .run_sql("INSERT INTO Out SELECT * FROM T")
    .build())

WATERMARK_ASSIGNER_PHYSICAL_ROWTIME = (
    TableTestProgram.of("watermark-assigner-physical-rowtime",
                        "watermark 5 s behind a physical TIMESTAMP(3) column, rows out of order")
    .setup_table_source(
        SourceTestStep.new_builder("Readings")
        .add_schema("sensor STRING", "reading DOUBLE", "t TIMESTAMP(3)",
                    "WATERMARK FOR t AS t - INTERVAL '5' SECOND")
        .producing_before_restore(["s1", 1.5, "2024-01-01 10:00:10"], ["s2", 2.0, "2024-01-01 10:00:04"])
        .producing_after_restore(["s1", 3.25, "2024-01-01 10:00:02"], ["s2", 4.0, "2024-01-01 10:00:20"])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("Sensed")
        .add_schema("sensor STRING", "reading DOUBLE", "t TIMESTAMP(3)")
        .consuming_before_restore("+I[s1, 1.5, 2024-01-01T10:00:10]", "+I[s2, 2.0, 2024-01-01T10:00:04]")
        .consuming_after_restore("+I[s1, 3.25, 2024-01-01T10:00:02]", "+I[s2, 4.0, 2024-01-01T10:00:20]")
        .build())
    .run_sql("INSERT INTO Sensed SELECT * FROM Readings")
    .build())

WATERMARK_ASSIGNER_COMPUTED_ROWTIME = (
    TableTestProgram.of("watermark-assigner-computed-rowtime",
                        "watermark on a computed rowtime column derived from epoch millis")
    .setup_table_source(
        SourceTestStep.new_builder("Events")
        .add_schema("id INT", "ms BIGINT", "ts AS TIMESTAMP_MILLIS(ms)",
                    "WATERMARK FOR ts AS ts - INTERVAL '2' SECOND")
        .producing_before_restore([1, 1704103200000], [2, 1704103201500])
        .producing_after_restore([3, 1704103199000])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("Stamped")
        .add_schema("id INT", "ts TIMESTAMP(3)")
        .consuming_before_restore("+I[1, 2024-01-01T10:00]", "+I[2, 2024-01-01T10:00:01.500]")
        .consuming_after_restore("+I[3, 2024-01-01T09:59:59]")
        .build())
    .run_sql("INSERT INTO Stamped SELECT id, ts FROM Events")
    .build())

# --- Flink's own programs (WatermarkAssignerTestPrograms.java), transcribed as they are: SQL,
# schemas, rows and expected strings; DateTimeUtils.toLocalDateTime(epoch millis) is written as
# that instant's UTC local date-time. Flink's RestoreTestBase registers every sink with
# 'sink-insert-only' = 'false'; ported_from gives these sinks the same.
FLINK_COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"

BEFORE_DATA = ([2, 2, "Hello", "2020-04-15 08:00:00", "2020-04-15 08:00:00"],
               [1, 1, "Hi", "2020-04-15 08:00:01", "2020-04-15 08:00:01"],
               [3, 2, "Hello world", "2020-04-15 08:00:02", "2020-04-15 08:00:02"],
               [4, 3, "Hello world, how are you?", "2020-04-15 08:00:03", "2020-04-15 08:00:03"],
               [5, 3, "I am fine.", "2020-04-15 08:00:04", "2020-04-15 08:00:04"])
AFTER_DATA = ([7, 4, "Ack", "2020-04-15 08:00:21", "2020-04-15 08:00:21"],
              [6, 5, "Syn", "2020-04-15 08:00:23", "2020-04-15 08:00:23"],
              [8, 3, "Syn-Ack", "2020-04-15 08:00:25", "2020-04-15 08:00:25"],
              [10, 3, "Close", "2020-04-15 08:00:28", "2020-04-15 08:00:28"])
SOURCE_SCHEMA = ("a INT", "b BIGINT", "c VARCHAR", "ts_string STRING",
                 "ts TIMESTAMP(3)",  # row_time
                 "WATERMARK for ts AS ts - INTERVAL '1' SECOND")
SINK_SCHEMA = ("a INT", "b BIGINT", "ts TIMESTAMP(3)")


def flink_program(id, description, constant, options=()):
    source = SourceTestStep.new_builder("source_t")
    for key, value in options:
        source = source.add_option(key, value)
    return (TableTestProgram.of(id, description)
            .ported_from(f"WatermarkAssignerTestPrograms.java#{constant}", FLINK_COMMIT)
            .setup_table_source(source.add_schema(*SOURCE_SCHEMA)
                                .producing_before_restore(*BEFORE_DATA)
                                .producing_after_restore(*AFTER_DATA).build())
            .setup_table_sink(SinkTestStep.new_builder("sink_t").add_schema(*SINK_SCHEMA)
                              .consuming_before_restore("+I[4, 3, 2020-04-15T08:00:03]",
                                                        "+I[5, 3, 2020-04-15T08:00:04]")
                              .consuming_after_restore("+I[8, 3, 2020-04-15T08:00:25]",
                                                       "+I[10, 3, 2020-04-15T08:00:28]")
                              .build())
            .run_sql("INSERT INTO sink_t SELECT a, b, ts FROM source_t WHERE b = 3")
            .build())


WATERMARK_ASSIGNER_BASIC_FILTER = flink_program(
    "watermark-assigner-basic-filter", "validates watermark assigner with basic filtering",
    "WATERMARK_ASSIGNER_BASIC_FILTER")

WATERMARK_ASSIGNER_PUSHDOWN_METADATA = flink_program(
    "watermark-assigner-pushdown-metadata", "validates watermark assigner with pushdown metadata",
    "WATERMARK_ASSIGNER_PUSHDOWN_METADATA",
    (("enable-watermark-push-down", "true"), ("readable-metadata", "ts:timestamp(3)"),
     ("disable-lookup", "true")))

PROGRAMS = [WATERMARK_ASSIGNER_PHYSICAL_ROWTIME, WATERMARK_ASSIGNER_COMPUTED_ROWTIME,
            WATERMARK_ASSIGNER_BASIC_FILTER, WATERMARK_ASSIGNER_PUSHDOWN_METADATA]

# Ported, not passing yet: none (the table in docs/flink-programs.md).
NOT_PASSING: dict[str, str] = {}
