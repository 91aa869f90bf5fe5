"""Programs for stream-exec-sink: the NOT NULL enforcer and a materialized upsert sink."""
from harness import SinkTestStep, SourceTestStep, TableTestProgram

SINK_NOT_NULL_DROP = (
    TableTestProgram.of("sink-not-null-drop",
                        "rows with NULL in a NOT NULL sink column are dropped (enforcer DROP)")
    .setup_config("table.exec.sink.not-null-enforcer", "DROP")
    .setup_table_source(
        SourceTestStep.new_builder("People")
        .add_schema("id INT", "name STRING")
        .producing_before_restore([1, "ann"], [2, None])
        .producing_after_restore([3, None], [4, "dee"])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("Named")
        .add_schema("id INT", "name STRING NOT NULL")
        .consuming_before_restore("+I[1, ann]")
        .consuming_after_restore("+I[4, dee]")
        .build())
    .run_sql("INSERT INTO Named SELECT id, name FROM People")
    .build())

SINK_MATERIALIZED_PRIMARY_KEY = (
    TableTestProgram.of("sink-materialized-primary-key",
                        "an upsert changelog materialized by the sink's primary key")
    .setup_table_source(
        SourceTestStep.new_builder("Accounts")
        .add_schema("id INT", "balance INT", "PRIMARY KEY (id) NOT ENFORCED")
        .add_option("changelog-mode", "I,UA,D")
        .producing_before_restore([1, 10], [2, 20], {"kind": "+U", "values": [1, 15]})
        .producing_after_restore({"kind": "-D", "values": [2, 20]}, [3, 30])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("Balances")
        .add_schema("id INT", "balance INT", "PRIMARY KEY (id) NOT ENFORCED")
        .add_option("sink-insert-only", "false")
        .consuming_before_restore("+I[1, 15]", "+I[2, 20]")
        .consuming_after_restore("+I[1, 15]", "+I[3, 30]")
        .testing_materialized_data()
        .build())
    .run_sql("INSERT INTO Balances SELECT * FROM Accounts")
    .build())

PROGRAMS = [SINK_NOT_NULL_DROP, SINK_MATERIALIZED_PRIMARY_KEY]
