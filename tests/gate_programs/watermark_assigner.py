from harness import SinkTestStep, SourceTestStep, TableTestProgram

PROGRAMS = [
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
    .build()]
