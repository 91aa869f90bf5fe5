from harness import SinkTestStep, SourceTestStep, TableTestProgram

# Keep last row on event time: a's row kept before the restore is replaced after it.
PROGRAMS = [
    TableTestProgram.of("deduplicate-tiny", "a row kept before the restore is replaced after it")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "t TIMESTAMP(3)", "WATERMARK FOR t AS t")
                        .producing_before_restore(["a", "2024-01-01 10:00:01"])
                        .producing_after_restore(["a", "2024-01-01 10:00:02"]).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "t TIMESTAMP(3)")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 2024-01-01T10:00:01]")
                      .consuming_after_restore("-U[a, 2024-01-01T10:00:01]",
                                               "+U[a, 2024-01-01T10:00:02]").build())
    .run_sql("INSERT INTO S SELECT k, t FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
             "ORDER BY t DESC) AS rn FROM T) WHERE rn = 1")
    .build()]
