"""Table test programs for stream-exec-changelog-normalize (Flink's
ChangelogNormalizeTestPrograms): an upsert source (+I/+U/-D by primary key, no -U) becomes
a full changelog, keeping the last row per key: an update retracts the kept row (-U with its
values), a delete deletes the kept row, a delete of an absent key is dropped, and a row equal
to the kept one changes nothing. The keys' rows are kept across the restore.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram, advance_processing_time
from harness import changelog_row as kind

from ._mini_batch import mini_batch

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# An upsert source: the row kept before the restore is retracted (-U) by an update after it.
TINY = (
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
    .build())

ACCOUNTS = ("id INT", "balance INT", "PRIMARY KEY (id) NOT ENFORCED")


def update(*values) -> dict:
    return {"kind": "+U", "values": list(values)}


def delete(*values) -> dict:
    return {"kind": "-D", "values": list(values)}


def program(id: str, description: str, before: list, after: list,
            expected: tuple[list[str], list[str]], mode: str = "I,UA,D",
            config: dict[str, str] | None = None, sql: str = "INSERT INTO S SELECT * FROM A",
            sink_schema: tuple[str, ...] = ("id INT", "balance INT")) -> TableTestProgram:
    builder = TableTestProgram.of(id, description)
    for key, value in (config or {}).items():
        builder = builder.setup_config(key, value)
    source = (SourceTestStep.new_builder("A").add_schema(*ACCOUNTS)
              .add_option("changelog-mode", mode)
              .producing_before_restore(*before).producing_after_restore(*after).build())
    sink = (SinkTestStep.new_builder("S").add_schema(*sink_schema)
            .add_option("sink-insert-only", "false")
            .consuming_before_restore(*expected[0]).consuming_after_restore(*expected[1]).build())
    return builder.setup_table_source(source).setup_table_sink(sink).run_sql(sql).build()


# The sink has no key, so it needs -U: the update of 1 retracts the kept (1, 10).
CHANGELOG_NORMALIZE_UPSERT = program(
    "changelog-normalize-upsert", "an upsert source becomes a full changelog with -U rows",
    [[1, 10], [2, 20], update(1, 15)], [delete(2, 0), [3, 30], update(1, 16)],
    (["+I[1, 10]", "+I[2, 20]", "-U[1, 10]", "+U[1, 15]"],
     ["-D[2, 20]", "+I[3, 30]", "-U[1, 15]", "+U[1, 16]"]))

# A delete of a key never seen (or already deleted) is dropped; a delete carries the kept
# row's values, not the delete's.
CHANGELOG_NORMALIZE_DELETE = program(
    "changelog-normalize-delete", "deletes retract the kept row; a delete of an absent key is "
    "dropped",
    [[1, 10], delete(9, 0)], [delete(1, 99), delete(1, 99), [1, 11]],
    (["+I[1, 10]"], ["-D[1, 10]", "+I[1, 11]"]))

# An update equal to the kept row changes nothing and is not forwarded.
CHANGELOG_NORMALIZE_DUPLICATE_UPDATES = program(
    "changelog-normalize-duplicate-updates", "an update equal to the kept row is dropped",
    [[1, 10], update(1, 10)], [update(1, 10), update(1, 12)],
    (["+I[1, 10]"], ["-U[1, 10]", "+U[1, 12]"]))

# table.exec.source.cdc-events-duplicate: a full changelog source that may repeat events is
# normalized by its key as well; the repeated +I and +U are dropped. Its -U retracts the kept
# row and the +U that follows it is an update (Flink 2.3 emits -U/+U here, not -D/+I).
CHANGELOG_NORMALIZE_CDC_DUPLICATES = program(
    "changelog-normalize-cdc-duplicates", "with cdc-events-duplicate a repeated event of a "
    "changelog source is dropped",
    [[1, 10], [1, 10]], [{"kind": "-U", "values": [1, 10]}, update(1, 11), update(1, 11)],
    (["+I[1, 10]"], ["-U[1, 10]", "+U[1, 11]"]),
    mode="I,UB,UA,D", config={"table.exec.source.cdc-events-duplicate": "true"})

# Normalized, then aggregated: the aggregate needs -U to retract the old balance; the sum
# over all accounts follows every upsert exactly. The update of 1 arrives as -U[1, 10] then
# +U[1, 15] (count 1 in between); after the restore 2 is deleted, and 1's update takes the
# count to 0 (-D) before its new row inserts the global row again (+I).
CHANGELOG_NORMALIZE_INTO_AGGREGATE = program(
    "changelog-normalize-into-aggregate", "an aggregate over an upsert source retracts the "
    "replaced rows",
    [[1, 10], [2, 20], update(1, 15)], [delete(2, 0), update(1, 5)],
    (["+I[1, 10]", "-U[1, 10]", "+U[2, 30]", "-U[2, 30]", "+U[1, 20]", "-U[1, 20]",
      "+U[2, 35]"],
     ["-U[2, 35]", "+U[1, 15]", "-D[1, 15]", "+I[1, 5]"]),
    sql="INSERT INTO S SELECT CAST(COUNT(*) AS INT), CAST(SUM(balance) AS INT) FROM A",
    sink_schema=("n INT", "total INT"))

# The state TTL expires across the restore (Flink's StateTtlConfig: on create and write,
# expired state never returned): key 1 is written at t, key 2 at t + 12 h; after the
# restore the clock is at t + 30 h, past 1's day and within 2's.
# Key 1's update finds no kept row: it is emitted as an insert; key 2's retracts the kept one.
CHANGELOG_NORMALIZE_STATE_TTL_EXPIRES = program(
    "changelog-normalize-state-ttl-expires", "a kept row expires after the restore: its key's "
    "update becomes an insert; a younger key is updated",
    [[1, 10], advance_processing_time("12 h"), [2, 20]],
    [advance_processing_time("18 h"), update(1, 11), update(2, 21)],
    (["+I[1, 10]", "+I[2, 20]"], ["+I[1, 11]", "-U[2, 20]", "+U[2, 21]"]),
    config={"table.exec.state.ttl": "1 d"})

# --- Flink's own programs (ChangelogNormalizeTestPrograms.java), transcribed as they are:
# SQL, schemas, rows and expected strings (Row.ofKind(INSERT, ...) is an insert,
# UPDATE_BEFORE -U, UPDATE_AFTER +U, DELETE -D). Flink's RestoreTestBase registers every sink
# with 'sink-insert-only' = 'false'; ported_from gives these sinks the same. Not ported
# (docs/flink-programs.md): UPSERT_SOURCE, whose id our own program holds.
FLINK_COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"



SOURCE_SCHEMA = ("a VARCHAR", "b INT NOT NULL", "c VARCHAR", "PRIMARY KEY(a) NOT ENFORCED")
SINK_SCHEMA = ("a VARCHAR", "b INT", "c VARCHAR")
BEFORE_DATA = (["one", 1, "a"], ["two", 2, "b"], kind("-U", "one", 1, "a"),
               kind("+U", "one", 1, "aa"), ["three", 3, "c"], kind("-D", "two", 2, "b"),
               kind("-U", "three", 3, "c"), kind("+U", "three", 3, "cc"))
AFTER_DATA = (["four", 4, "d"], ["five", 5, "e"], kind("-U", "four", 4, "d"),
              kind("+U", "four", 4, "dd"), ["six", 6, "f"], kind("-D", "six", 6, "f"))
BEFORE_OUTPUT = ("+I[one, 1, a]", "+I[two, 2, b]", "-U[one, 1, a]", "+U[one, 1, aa]",
                 "+I[three, 3, c]", "-D[two, 2, b]", "-U[three, 3, c]", "+U[three, 3, cc]")
AFTER_OUTPUT = ("+I[four, 4, d]", "+I[five, 5, e]", "-U[four, 4, d]", "+U[four, 4, dd]",
                "+I[six, 6, f]", "-D[six, 6, f]")

CHANGELOG_SOURCE = (
    TableTestProgram.of("changelog-normalize-source", "validates changelog normalize source")
    .ported_from("ChangelogNormalizeTestPrograms.java#CHANGELOG_SOURCE", FLINK_COMMIT)
    .setup_config("table.exec.source.cdc-events-duplicate", "true")
    .setup_table_source(SourceTestStep.new_builder("source_t")
                        .add_option("changelog-mode", "I,UA,UB,D")
                        .add_schema(*SOURCE_SCHEMA)
                        .producing_before_restore(*BEFORE_DATA)
                        .producing_after_restore(*AFTER_DATA).build())
    .setup_table_sink(SinkTestStep.new_builder("sink_t").add_schema(*SINK_SCHEMA)
                      .consuming_before_restore(*BEFORE_OUTPUT)
                      .consuming_after_restore(*AFTER_OUTPUT).build())
    .run_sql("INSERT INTO sink_t SELECT a, b, c FROM source_t")
    .build())

CHANGELOG_SOURCE_MINI_BATCH = (
    TableTestProgram.of("changelog-normalize-source-mini-batch",
                        "validates changelog normalize source with mini batch")
    .ported_from("ChangelogNormalizeTestPrograms.java#CHANGELOG_SOURCE_MINI_BATCH", FLINK_COMMIT)
    .setup_config("table.exec.source.cdc-events-duplicate", "true")
    .setup_config("table.exec.mini-batch.enabled", "true")
    .setup_config("table.exec.mini-batch.allow-latency", "10 s")
    .setup_config("table.exec.mini-batch.size", "2")
    .setup_table_source(SourceTestStep.new_builder("source_t")
                        .add_option("changelog-mode", "I,UA,UB,D")
                        .add_schema(*SOURCE_SCHEMA)
                        .producing_before_restore(*BEFORE_DATA)
                        .producing_after_restore(*AFTER_DATA).build())
    .setup_table_sink(SinkTestStep.new_builder("sink_t").add_schema(*SINK_SCHEMA)
                      .consuming_before_restore(*BEFORE_OUTPUT)
                      .consuming_after_restore(*AFTER_OUTPUT).build())
    .run_sql("INSERT INTO sink_t SELECT a, b, c FROM source_t")
    .build())

# Multi-row micro-batches (`in_batches("phase")`): each phase's rows come in one batch, so the
# checkpoint holds state written by a batch with several rows of one key, processed in
# arrival order as Flink processes records.
CHANGELOG_NORMALIZE_BATCHED = (
    TableTestProgram.of("changelog-normalize-batched", "an upsert key updated twice in one "
                        "micro-batch")
    .in_batches("phase")
    .setup_table_source(SourceTestStep.new_builder("A").add_schema(*ACCOUNTS)
                        .add_option("changelog-mode", "I,UA,D")
                        .producing_before_restore([1, 10], update(1, 15), [2, 20], update(1, 16))
                        .producing_after_restore(delete(2, 0), update(1, 17), [3, 30]).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("id INT", "balance INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[1, 10]", "-U[1, 10]", "+U[1, 15]",
                                                "+I[2, 20]", "-U[1, 15]", "+U[1, 16]")
                      .consuming_after_restore("-D[2, 20]", "-U[1, 16]", "+U[1, 17]",
                                               "+I[3, 30]").build())
    .run_sql("INSERT INTO S SELECT * FROM A")
    .build())

# A NULL in the primary key, in multi-row micro-batches (`in_batches("phase")`): the key is
# declared NOT NULL, but a source that sends NULL there anyway is normalized by it like by any
# other key, as Flink's ChangelogNormalize does (it keys its state by the key, NULL included,
# and checks nothing). One batch before the restore inserts, updates and repeats the NULL
# key's row; after it the kept row is retracted, deleted and inserted again. Checked on Flink
# 2.3.
CHANGELOG_NORMALIZE_NULL_KEY = (
    TableTestProgram.of("changelog-normalize-null-key", "a NULL primary key value is a key like "
                        "any other, across the restore and within one micro-batch")
    .in_batches("phase")
    .setup_table_source(SourceTestStep.new_builder("A").add_schema(*ACCOUNTS)
                        .add_option("changelog-mode", "I,UA,D")
                        .producing_before_restore([None, 1], update(None, 2), [1, 10],
                                                  update(None, 2))
                        .producing_after_restore(update(None, 3), delete(None, 0), [None, 4],
                                                 delete(1, 0)).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("id INT", "balance INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[null, 1]", "-U[null, 1]", "+U[null, 2]",
                                                "+I[1, 10]")
                      .consuming_after_restore("-U[null, 2]", "+U[null, 3]", "-D[null, 3]",
                                               "+I[null, 4]", "-D[1, 10]").build())
    .run_sql("INSERT INTO S SELECT * FROM A")
    .build())

# Mini-batch (node version 2, Flink's ProcTimeMiniBatchDeduplicateKeepLastRowFunction):
# bundles of two rows, each phase one micro-batch. A bundle hands on only its key's last row:
# (1, 10) and (2, 20) never reach the sink; after the restore the kept (1, 11) is retracted
# by the bundle's last update (1, 13), and a bundle of a delete and a new key follows.
# Expected rows: PyFlink 2.3 (parallelism 1, all rows in one stream: the same bundles).
CHANGELOG_NORMALIZE_MINI_BATCH = (
    mini_batch(TableTestProgram.of("changelog-normalize-mini-batch", "a bundle of two rows "
                                   "hands on each key's last row; kept rows cross the restore"),
               size=2)
    .in_batches("phase")
    .setup_table_source(SourceTestStep.new_builder("A").add_schema(*ACCOUNTS)
                        .add_option("changelog-mode", "I,UA,D")
                        .producing_before_restore([1, 10], update(1, 11), [2, 20], update(2, 21))
                        .producing_after_restore(update(1, 12), update(1, 13), delete(2, 0),
                                                 [3, 30]).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("id INT", "balance INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[1, 11]", "+I[2, 21]")
                      .consuming_after_restore("-U[1, 11]", "+U[1, 13]", "-D[2, 21]",
                                               "+I[3, 30]").build())
    .run_sql("INSERT INTO S SELECT * FROM A")
    .build())

PROGRAMS = [CHANGELOG_NORMALIZE_UPSERT, CHANGELOG_NORMALIZE_DELETE,
            CHANGELOG_NORMALIZE_DUPLICATE_UPDATES, CHANGELOG_NORMALIZE_CDC_DUPLICATES,
            CHANGELOG_NORMALIZE_INTO_AGGREGATE, CHANGELOG_SOURCE, CHANGELOG_SOURCE_MINI_BATCH,
            CHANGELOG_NORMALIZE_STATE_TTL_EXPIRES, CHANGELOG_NORMALIZE_BATCHED,
            CHANGELOG_NORMALIZE_NULL_KEY, CHANGELOG_NORMALIZE_MINI_BATCH]
