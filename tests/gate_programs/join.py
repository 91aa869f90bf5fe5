from harness import SinkTestStep, SourceTestStep, TableTestProgram

# O1 is kept before the restore; C1 arriving after it joins it. The session's state TTL
# (a day: nothing expires) is what version 1 persists and version 2 writes into 'state'.
JOIN_TINY = (
    TableTestProgram.of("join-tiny", "an order kept before the restore joins its customer after it")
    .setup_config("table.exec.state.ttl", "1 d")
    .setup_table_source(SourceTestStep.new_builder("O").add_schema("k INT", "v STRING")
                        .producing_before_restore([1, "a"]).build())
    .setup_table_source(SourceTestStep.new_builder("C").add_schema("k INT", "name STRING")
                        .producing_after_restore([1, "x"]).build())
    .setup_table_sink(SinkTestStep.new_builder("J").add_schema("v STRING", "name STRING")
                      .consuming_after_restore("+I[a, x]").build())
    .run_sql("INSERT INTO J SELECT O.v, C.name FROM O JOIN C ON O.k = C.k")
    .build())

PROGRAMS = [JOIN_TINY]
