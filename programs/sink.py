"""Programs for stream-exec-sink: the NOT NULL enforcer, a materialized upsert sink, and the
sink upsert materializer (Flink's SinkUpsertMaterializerTestPrograms)."""
from harness import (SinkTestStep, SourceTestStep, TableDistribution, TableTestProgram,
                     advance_processing_time)
from streamplan.errors import ChangelogModeError

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# The NOT NULL enforcer set to DROP: the row with a NULL id never reaches the sink.
TINY = (
    TableTestProgram.of("sink-tiny", "a NOT NULL sink column drops NULL rows")
    .setup_config("table.exec.sink.not-null-enforcer", "DROP")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "v STRING")
                        .producing_before_restore([1, "a"], [None, "x"])
                        .producing_after_restore([None, "y"], [2, "b"]).build())
    .setup_table_sink(SinkTestStep.new_builder("Out").add_schema("id INT NOT NULL", "v STRING")
                      .consuming_before_restore("+I[1, a]")
                      .consuming_after_restore("+I[2, b]").build())
    .run_sql("INSERT INTO Out SELECT * FROM T")
    .build())

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

# --- the sink upsert materializer (table.exec.sink.upsert-materialize) -----------------------
# Orders joined with customers: the join output has no unique key, but the sink is keyed by
# k, so two orders of customer 1 are two rows of one sink key. Flink 2.3 then refuses an
# AUTO INSERT without ON CONFLICT DO DEDUPLICATE (so do we). The materializer keeps both:
# the second is an update (+U); when it is deleted after the restore, the first is the
# sink's row again (+U), where an upsert by key alone would have deleted key 1.
def materializer_program(id: str, description: str, mode: str,
                         expected: tuple[list[str], list[str]], orders_after: list,
                         materialized: bool = False) -> TableTestProgram:
    sink = (SinkTestStep.new_builder("S")
            .add_schema("k INT", "v STRING", "name STRING", "PRIMARY KEY (k) NOT ENFORCED")
            .add_option("sink-insert-only", "false"))
    if materialized:
        sink = sink.testing_materialized_data()
    return (TableTestProgram.of(id, description)
            .setup_config("table.exec.sink.upsert-materialize", mode)
            .setup_table_source(SourceTestStep.new_builder("O").add_schema("id INT", "k INT", "v STRING")
                                .add_option("changelog-mode", "I,UB,UA,D")
                                .producing_before_restore([1, 1, "a"], [2, 1, "b"])
                                .producing_after_restore(*orders_after).build())
            .setup_table_source(SourceTestStep.new_builder("C").add_schema("k INT", "name STRING")
                                .producing_before_restore([1, "x"]).build())
            .setup_table_sink(sink.consuming_before_restore(*expected[0])
                              .consuming_after_restore(*expected[1]).build())
            .run_sql("INSERT INTO S SELECT O.k, O.v, C.name FROM O JOIN C ON O.k = C.k"
                     + (" ON CONFLICT DO DEDUPLICATE" if mode == "AUTO" else ""))
            .build())


DELETE_B = {"kind": "-D", "values": [2, 1, "b"]}

SINK_UPSERT_MATERIALIZE_AUTO = materializer_program(
    "sink-upsert-materialize-auto", "AUTO materializes a sink keyed unlike its input: deleting "
    "one of two rows of a key restores the other", "AUTO",
    (["+I[1, a, x]", "+U[1, b, x]"], ["+U[1, a, x]"]), [DELETE_B])

# Without the materializer the join's -D[1, b, x] deletes key 1 although (1, a, x) is still
# a result row: what Flink's sink holds with NONE too.
SINK_UPSERT_MATERIALIZE_NONE = materializer_program(
    "sink-upsert-materialize-none", "NONE: the sink applies each row by its key alone", "NONE",
    (["+I[1, b, x]"], []), [DELETE_B], materialized=True)

# A retraction of a row that is not the sink's current one changes nothing downstream;
# deleting the last row left deletes the key.
SINK_UPSERT_MATERIALIZE_RETRACT_EARLIER_ROW = materializer_program(
    "sink-upsert-materialize-retract-earlier-row", "retracting a row that is not the sink's "
    "current one emits nothing; the last retraction deletes the key", "AUTO",
    (["+I[1, a, x]", "+U[1, b, x]"], ["-D[1, b, x]"]),
    [{"kind": "-D", "values": [1, 1, "a"]}, DELETE_B])

# FORCE materializes even an input keyed like the sink (a group aggregate by k). The
# materializer retracts with the aggregate's -U, which empties the key's list (-D), and the
# +U that follows inserts again (+I), exactly as Flink's SinkUpsertMaterializer does.
def force_program(id: str, description: str, batches: str = "row") -> TableTestProgram:
    return (TableTestProgram.of(id, description).in_batches(batches)
            .setup_config("table.exec.sink.upsert-materialize", "FORCE")
            .setup_table_source(SourceTestStep.new_builder("O")
                                .add_schema("id INT", "k INT", "v STRING")
                                .producing_before_restore([1, 1, "a"], [2, 1, "b"])
                                .producing_after_restore([3, 2, "c"], [4, 1, "d"]).build())
            .setup_table_sink(SinkTestStep.new_builder("S")
                              .add_schema("k INT", "n BIGINT", "PRIMARY KEY (k) NOT ENFORCED")
                              .add_option("sink-insert-only", "false")
                              .consuming_before_restore("+I[1, 1]", "-D[1, 1]", "+I[1, 2]")
                              .consuming_after_restore("+I[2, 1]", "-D[1, 2]", "+I[1, 3]").build())
            .run_sql("INSERT INTO S SELECT k, COUNT(*) FROM O GROUP BY k")
            .build())


SINK_UPSERT_MATERIALIZE_FORCE = force_program(
    "sink-upsert-materialize-force", "FORCE materializes a sink whose input is already keyed "
    "like it")

# An aggregate grouped by (k, v) into a sink keyed by k: each (k, v) group is a row of the
# sink key k; the materializer keeps them apart and retracts the right one.
SINK_UPSERT_MATERIALIZE_AGGREGATE_OTHER_KEY = (
    TableTestProgram.of("sink-upsert-materialize-aggregate-other-key", "an aggregate keyed "
                        "by more columns than the sink: its groups share sink keys")
    .setup_table_source(SourceTestStep.new_builder("O").add_schema("id INT", "k INT", "v STRING")
                        .add_option("changelog-mode", "I,UB,UA,D")
                        .producing_before_restore([1, 1, "a"], [2, 1, "b"], [3, 1, "b"])
                        .producing_after_restore({"kind": "-D", "values": [1, 1, "a"]},
                                                 {"kind": "-D", "values": [2, 1, "b"]}).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k INT", "v STRING", "n BIGINT", "PRIMARY KEY (k) NOT ENFORCED")
                      .add_option("sink-insert-only", "false")
                      .testing_materialized_data()
                      .consuming_before_restore("+I[1, b, 2]")
                      .consuming_after_restore("+I[1, b, 1]").build())
    .run_sql("INSERT INTO S SELECT k, v, COUNT(*) FROM O GROUP BY k, v ON CONFLICT DO DEDUPLICATE")
    .build())

# The materializer fed multi-row micro-batches (`in_batches("phase")`): each phase's rows in
# one batch, so its kept rows are written by a batch that retracts and adds rows of one key.
SINK_UPSERT_MATERIALIZE_BATCHED = force_program(
    "sink-upsert-materialize-batched", "FORCE materializing rows of one key that share a "
    "micro-batch", batches="phase")

# The state TTL expires across the restore (Flink's StateTtlConfig: on create and write,
# expired state never returned) in the aggregate and in the materializer: key 1 is written at
# t, key 2 at t + 12 h; after the restore the clock is at t + 30 h, past 1's day and within
# 2's. Key 1 starts again in both (+I); key 2's update retracts the kept row (-D, its list
# empties) and inserts the new one (+I).
SINK_UPSERT_MATERIALIZE_STATE_TTL_EXPIRES = (
    TableTestProgram.of("sink-upsert-materialize-state-ttl-expires", "the materializer's kept "
                        "rows expire after the restore; a younger key is still retracted")
    .setup_config("table.exec.sink.upsert-materialize", "FORCE")
    .setup_config("table.exec.state.ttl", "1 d")
    .setup_table_source(SourceTestStep.new_builder("O").add_schema("id INT", "k INT", "v STRING")
                        .producing_before_restore([1, 1, "a"], advance_processing_time("12 h"),
                                                  [2, 2, "b"])
                        .producing_after_restore(advance_processing_time("18 h"), [3, 1, "c"],
                                                 [4, 2, "d"]).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k INT", "n BIGINT", "PRIMARY KEY (k) NOT ENFORCED")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[1, 1]", "+I[2, 1]")
                      .consuming_after_restore("+I[1, 1]", "-D[2, 1]", "+I[2, 2]").build())
    .run_sql("INSERT INTO S SELECT k, COUNT(*) FROM O GROUP BY k")
    .build())

# NULLs at the sink upsert materializer, in multi-row micro-batches (`in_batches("phase")`):
# a sink primary key is NOT NULL (as in Flink), so with the enforcer set to DROP the rows whose
# key k is NULL never reach the materializer. The input (a changelog without a key) has no
# upsert key, so the materializer matches a retraction by the whole row, NULLs equal to NULLs:
# one batch before the restore keeps two rows of key 1 whose v is NULL, beside (1, b); after
# the restore each -D must find its own kept row (by id) among them: the earlier NULL row goes
# silently, the current one lets (1, b) back, and the last row's -D deletes the key.
SINK_UPSERT_MATERIALIZE_NULLS = (
    TableTestProgram.of("sink-upsert-materialize-nulls", "NULL sink keys dropped before the "
                        "materializer; rows with NULLs retracted by the whole row, across the "
                        "restore and within one micro-batch")
    .in_batches("phase")
    .setup_config("table.exec.sink.not-null-enforcer", "DROP")
    .setup_table_source(SourceTestStep.new_builder("O").add_schema("id INT", "k INT", "v STRING")
                        .add_option("changelog-mode", "I,UB,UA,D")
                        .producing_before_restore([1, 1, None], [2, None, "x"], [3, 1, "b"],
                                                  [4, 1, None])
                        .producing_after_restore({"kind": "-D", "values": [1, 1, None]},
                                                 [5, None, None],
                                                 {"kind": "-D", "values": [4, 1, None]},
                                                 {"kind": "-D", "values": [3, 1, "b"]})
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k INT", "v STRING", "id INT", "PRIMARY KEY (k) NOT ENFORCED")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[1, null, 1]", "+U[1, b, 3]", "+U[1, null, 4]")
                      .consuming_after_restore("+U[1, b, 3]", "-D[1, b, 3]").build())
    .run_sql("INSERT INTO S SELECT k, v, id FROM O ON CONFLICT DO DEDUPLICATE")
    .build())

PROGRAMS = [SINK_NOT_NULL_DROP, SINK_MATERIALIZED_PRIMARY_KEY, SINK_UPSERT_MATERIALIZE_AUTO,
            SINK_UPSERT_MATERIALIZE_NONE, SINK_UPSERT_MATERIALIZE_RETRACT_EARLIER_ROW,
            SINK_UPSERT_MATERIALIZE_FORCE, SINK_UPSERT_MATERIALIZE_AGGREGATE_OTHER_KEY,
            SINK_UPSERT_MATERIALIZE_BATCHED, SINK_UPSERT_MATERIALIZE_STATE_TTL_EXPIRES,
            SINK_UPSERT_MATERIALIZE_NULLS]

# --- Flink's own programs (TableSinkTestPrograms.java), transcribed as they are: SQL,
# schemas, options, rows and expected strings; Flink's ids too, '_' included. Flink's
# RestoreTestBase registers every sink with 'sink-insert-only' = 'false'; ported_from gives
# these sinks the same. Not ported (docs/flink-programs.md): SINK_NDF_PRIMARY_KEY (a
# non-deterministic function whose values count the rows an operator instance has seen).
FLINK_COMMIT = "6c9ac5c6ae06bf5b42d33b57a7dc1006ac2b2744"

BEFORE_DATA = ([1, 1, "hi"], [2, 2, "hello"], [3, 2, "hello world"])
AFTER_DATA = ([4, 4, "foo"], [5, 2, "foo bar"])
SOURCE_SCHEMA = ("a INT", "b BIGINT", "c VARCHAR")


def flink_program(id, description, constant, sink, sql):
    return (TableTestProgram.of(id, description)
            .ported_from(f"TableSinkTestPrograms.java#{constant}", FLINK_COMMIT)
            .setup_table_source(SourceTestStep.new_builder("source_t").add_schema(*SOURCE_SCHEMA)
                                .producing_before_restore(*BEFORE_DATA)
                                .producing_after_restore(*AFTER_DATA).build())
            .setup_table_sink(sink.build())
            .run_sql(sql)
            .build())


def build_bucketing_test(suffix, constant, distribution):
    return flink_program(
        "sink-bucketing_" + suffix, "validates sink bucketing", constant,
        SinkTestStep.new_builder("sink_t").add_schema("a INT", "b BIGINT", "c VARCHAR")
        .add_distribution(distribution).add_partition_keys("b")
        .consuming_before_restore("+I[1, 1, hi]", "+I[2, 2, hello]", "+I[3, 2, hello world]")
        .consuming_after_restore("+I[4, 4, foo]", "+I[5, 2, foo bar]"),
        "INSERT INTO sink_t SELECT * FROM source_t")


SINK_BUCKETING_WITH_COUNT = build_bucketing_test(
    "with-count", "SINK_BUCKETING_WITH_COUNT", TableDistribution.of_unknown(3))
SINK_BUCKETING_WITH_KEYS_AND_COUNT = build_bucketing_test(
    "with-keys-and-count", "SINK_BUCKETING_WITH_KEYS_AND_COUNT",
    TableDistribution.of_unknown(["a"], 3))
SINK_BUCKETING_HASH_WITH_KEYS_AND_COUNT = build_bucketing_test(
    "hash-with-keys-with-count", "SINK_BUCKETING_HASH_WITH_KEYS_AND_COUNT",
    TableDistribution.of_hash(["a"], 3))
SINK_BUCKETING_HASH_WITH_KEYS_AND_WITHOUT_COUNT = build_bucketing_test(
    "range_with_keys_without_count", "SINK_BUCKETING_HASH_WITH_KEYS_AND_WITHOUT_COUNT",
    TableDistribution.of_hash(["a"], None))

SINK_PARTITION = flink_program(
    "sink-partition", "validates sink partition", "SINK_PARTITION",
    SinkTestStep.new_builder("sink_t").add_schema("a INT", "b BIGINT", "p BIGINT NOT NULL", "c VARCHAR")
    .add_partition_keys("b").add_option("partition-list", "b:1;b:2;b:3;b:4")
    .consuming_before_restore("+I[1, 2, 1, hi]", "+I[2, 2, 2, hello]", "+I[3, 2, 2, hello world]")
    .consuming_after_restore("+I[4, 2, 4, foo]", "+I[5, 2, 2, foo bar]"),
    "INSERT INTO sink_t PARTITION (b=2) SELECT * FROM source_t")

SINK_OVERWRITE = flink_program(
    "sink-overwrite", "validates sink with overwrite", "SINK_OVERWRITE",
    SinkTestStep.new_builder("sink_t").add_schema("a INT", "b BIGINT", "c VARCHAR")
    .consuming_before_restore("+I[1, 1, hi]", "+I[2, 2, hello]", "+I[3, 2, hello world]")
    .consuming_after_restore("+I[4, 4, foo]", "+I[5, 2, foo bar]"),
    "INSERT OVERWRITE sink_t SELECT * FROM source_t")

SINK_WRITING_METADATA = flink_program(
    "sink-writing-metadata", "validates writing metadata to sink", "SINK_WRITING_METADATA",
    SinkTestStep.new_builder("sink_t").add_schema("a INT", "b BIGINT", "c VARCHAR METADATA")
    .add_option("writable-metadata", "c:STRING")
    .consuming_before_restore("+I[1, 1, hi]", "+I[2, 2, hello]", "+I[3, 2, hello world]")
    .consuming_after_restore("+I[4, 4, foo]", "+I[5, 2, foo bar]"),
    "INSERT INTO sink_t SELECT * FROM source_t")

SINK_PARTIAL_INSERT = flink_program(
    "sink-partial-insert", "validates sink with partial insert", "SINK_PARTIAL_INSERT",
    SinkTestStep.new_builder("sink_t")
    .add_schema("a INT", "b BIGINT", "c VARCHAR", "d DECIMAL(10,2)", "e DOUBLE")
    .consuming_before_restore("+I[1, 1, hi, null, null]", "+I[2, 2, hello, null, null]",
                              "+I[3, 2, hello world, null, null]")
    .consuming_after_restore("+I[4, 4, foo, null, null]", "+I[5, 2, foo bar, null, null]"),
    "INSERT INTO sink_t (a, b, c) SELECT a, b, c FROM source_t")

PROGRAMS += [SINK_BUCKETING_WITH_COUNT, SINK_BUCKETING_WITH_KEYS_AND_COUNT,
             SINK_BUCKETING_HASH_WITH_KEYS_AND_COUNT,
             SINK_BUCKETING_HASH_WITH_KEYS_AND_WITHOUT_COUNT, SINK_PARTITION, SINK_OVERWRITE,
             SINK_WRITING_METADATA, SINK_PARTIAL_INSERT]

# Statements that must be refused (Flink's runFailingSql): the gate checks the error type and
# its message; no fixtures.
SINK_REFUSES_UPDATES_ON_INSERT_ONLY = (
    TableTestProgram.of("sink-refuses-updates-on-insert-only", "an insert-only sink refuses "
                        "an aggregate's updates, naming the node that produces them")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v INT").build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "n BIGINT")
                      .consuming_before_restore().build())
    .run_failing_sql("INSERT INTO S SELECT k, COUNT(*) FROM T GROUP BY k", ChangelogModeError,
                     "Table sink 'S' doesn't support consuming update and delete changes "
                     "(UPDATE_BEFORE, UPDATE_AFTER) which are produced by node 3 "
                     "'stream-exec-group-aggregate_2'")
    .build())

FAILING_PROGRAMS = [SINK_REFUSES_UPDATES_ON_INSERT_ONLY]
