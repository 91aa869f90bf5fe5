from harness import SinkTestStep, SourceTestStep, TableTestProgram

# a's sum before the restore is updated after it: the accumulator comes from the checkpoint.
PROGRAMS = [
    TableTestProgram.of("group-aggregate-tiny", "a sum kept before the restore is updated after it")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v INT")
                        .producing_before_restore(["a", 1]).producing_after_restore(["a", 2])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "total INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 1]")
                      .consuming_after_restore("-U[a, 1]", "+U[a, 3]").build())
    .run_sql("INSERT INTO S SELECT k, SUM(v) FROM T GROUP BY k")
    .build()]
