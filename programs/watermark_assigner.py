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

PROGRAMS = [WATERMARK_ASSIGNER_PHYSICAL_ROWTIME, WATERMARK_ASSIGNER_COMPUTED_ROWTIME]
