from harness import SinkTestStep, SourceTestStep, TableTestProgram

# The NOT NULL enforcer set to DROP: the row with a NULL id never reaches the sink.
PROGRAMS = [
    TableTestProgram.of("sink-tiny", "a NOT NULL sink column drops NULL rows")
    .setup_config("table.exec.sink.not-null-enforcer", "DROP")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "v STRING")
                        .producing_before_restore([1, "a"], [None, "x"])
                        .producing_after_restore([None, "y"], [2, "b"]).build())
    .setup_table_sink(SinkTestStep.new_builder("Out").add_schema("id INT NOT NULL", "v STRING")
                      .consuming_before_restore("+I[1, a]")
                      .consuming_after_restore("+I[2, b]").build())
    .run_sql("INSERT INTO Out SELECT * FROM T")
    .build()]
