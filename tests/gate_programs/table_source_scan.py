from harness import SinkTestStep, SourceTestStep, TableTestProgram

# Resuming from the checkpoint's offsets: the restored run reads only the after-restore row.
PROGRAMS = [
    TableTestProgram.of("table-source-scan-tiny", "a restored scan continues after its offset")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "v STRING")
                        .producing_before_restore([1, "a"])
                        .producing_after_restore([2, "b"]).build())
    .setup_table_sink(SinkTestStep.new_builder("Out").add_schema("id INT", "v STRING")
                      .consuming_before_restore("+I[1, a]")
                      .consuming_after_restore("+I[2, b]").build())
    .run_sql("INSERT INTO Out SELECT * FROM T")
    .build()]
