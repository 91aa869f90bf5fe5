from harness import SinkTestStep, SourceTestStep, TableTestProgram

# An upsert source: the row kept before the restore is retracted (-U) by an update after it.
PROGRAMS = [
    TableTestProgram.of("changelog-normalize-tiny", "a row kept before the restore is retracted "
                        "by an update after it")
    .setup_table_source(SourceTestStep.new_builder("A")
                        .add_schema("id INT", "v INT", "PRIMARY KEY (id) NOT ENFORCED")
                        .add_option("changelog-mode", "I,UA,D")
                        .producing_before_restore([1, 10])
                        .producing_after_restore({"kind": "+U", "values": [1, 20]}).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("id INT", "v INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[1, 10]")
                      .consuming_after_restore("-U[1, 10]", "+U[1, 20]").build())
    .run_sql("INSERT INTO S SELECT * FROM A")
    .build()]
