from harness import SinkTestStep, SourceTestStep, TableTestProgram

# With cdc-events-duplicate on, the source's -U is dropped and rebuilt from the kept row.
PROGRAMS = [
    TableTestProgram.of("drop-update-before-tiny", "a source's -U after the restore is rebuilt "
                        "from the row kept before it")
    .setup_config("table.exec.source.cdc-events-duplicate", "true")
    .setup_table_source(SourceTestStep.new_builder("A")
                        .add_schema("id INT", "v INT", "PRIMARY KEY (id) NOT ENFORCED")
                        .add_option("changelog-mode", "I,UB,UA,D")
                        .producing_before_restore([1, 10])
                        .producing_after_restore({"kind": "-U", "values": [1, 99]},
                                                 {"kind": "+U", "values": [1, 20]}).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("id INT", "v INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[1, 10]")
                      .consuming_after_restore("-U[1, 10]", "+U[1, 20]").build())
    .run_sql("INSERT INTO S SELECT * FROM A")
    .build()]
