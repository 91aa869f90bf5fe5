from harness import SinkTestStep, SourceTestStep, TableTestProgram

# Top 1 per key (Flink's FastTop1Function): a larger row after the restore replaces the kept one.
PROGRAMS = [
    TableTestProgram.of("rank-tiny", "a top row kept before the restore is displaced after it")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v INT")
                        .producing_before_restore(["a", 1]).producing_after_restore(["a", 2])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "v INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 1]")
                      .consuming_after_restore("-U[a, 1]", "+U[a, 2]").build())
    .run_sql("INSERT INTO S SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
             "ORDER BY v DESC) AS rn FROM T) WHERE rn <= 1")
    .build()]
