"""Table test programs for stream-exec-deduplicate (Flink's DeduplicationTestPrograms):
`ROW_NUMBER() OVER (PARTITION BY k ORDER BY <time attribute> ASC|DESC) = 1`.

On event time a row replaces the kept one when its rowtime is >= (keep last) or < (keep
first) the kept row's, whatever order rows arrive in. On processing time the arrival order
decides; every row is its own micro-batch, so that order is the programs' row order and the
results do not depend on the wall clock (the processing-time column is never output).
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram, advance_processing_time

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# Keep last row on event time: a's row kept before the restore is replaced after it.
TINY = (
    TableTestProgram.of("deduplicate-tiny", "a row kept before the restore is replaced after it")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "t TIMESTAMP(3)", "WATERMARK FOR t AS t")
                        .producing_before_restore(["a", "2024-01-01 10:00:01"])
                        .producing_after_restore(["a", "2024-01-01 10:00:02"]).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "t TIMESTAMP(3)")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 2024-01-01T10:00:01]")
                      .consuming_after_restore("-U[a, 2024-01-01T10:00:01]",
                                               "+U[a, 2024-01-01T10:00:02]").build())
    .run_sql("INSERT INTO S SELECT k, t FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
             "ORDER BY t DESC) AS rn FROM T) WHERE rn = 1")
    .build())

DEDUP = ("INSERT INTO S SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
         "ORDER BY {order}) AS rn FROM T) WHERE rn = 1")


def at(second: int) -> str:
    return f"2024-01-01 10:00:{second:02d}"


def rowtime_source(before: list, after: list) -> SourceTestStep:
    """T(k, v, t) with a watermark; rows as (k, v, second)."""
    return (SourceTestStep.new_builder("T")
            .add_schema("k STRING", "v INT", "t TIMESTAMP(3)",
                        "WATERMARK FOR t AS t - INTERVAL '1' SECOND")
            .producing_before_restore(*[[k, v, at(s)] for k, v, s in before])
            .producing_after_restore(*[[k, v, at(s)] for k, v, s in after]).build())


def proctime_source(before: list, after: list) -> SourceTestStep:
    return (SourceTestStep.new_builder("T").add_schema("k STRING", "v INT", "pt AS PROCTIME()")
            .producing_before_restore(*before).producing_after_restore(*after).build())


def sink(before: list[str], after: list[str], changelog: bool = True, key: bool = False):
    builder = SinkTestStep.new_builder("S").add_schema(
        "k STRING", "v INT", *(["PRIMARY KEY (k) NOT ENFORCED"] if key else []))
    if changelog:
        builder = builder.add_option("sink-insert-only", "false")
    return builder.consuming_before_restore(*before).consuming_after_restore(*after).build()


def program(id: str, description: str, source: SourceTestStep, sink_step, order: str):
    return (TableTestProgram.of(id, description).setup_table_source(source)
            .setup_table_sink(sink_step).run_sql(DEDUP.format(order=order)).build())


# (a, 4, @2) arrives after (a, 3, @3): older, so it does not replace it; (b, 5, @2) after the
# restore has b's kept rowtime (2): keep last replaces on equal rowtimes.
DEDUPLICATE_ROWTIME_KEEP_LAST = program(
    "deduplicate-rowtime-keep-last", "keep the row with the latest rowtime per key; an older "
    "row arriving late does not replace it",
    rowtime_source([("a", 1, 1), ("b", 2, 2), ("a", 3, 3), ("a", 4, 2)],
                   [("b", 5, 2), ("a", 6, 5)]),
    sink(["+I[a, 1]", "+I[b, 2]", "-U[a, 1]", "+U[a, 3]"],
         ["-U[b, 2]", "+U[b, 5]", "-U[a, 3]", "+U[a, 6]"]),
    "t DESC")

# Keep first on event time (Flink 2.x, insert-only output): each key's earliest row is
# emitted once, when the watermark passes its row time. (a, 2, @4) replaces (a, 1, @5) while
# it waits; (a, 4, @4) is behind the watermark (5) and dropped; a is emitted before the
# restore and ignores (a, 8, @10) after it. b waits across the restore: (b, 9, @4) is late,
# (b, 5, @6) has its row time (the first stays), (b, 7, @7) is later. Checked on Flink 2.3.
DEDUPLICATE_ROWTIME_KEEP_FIRST = program(
    "deduplicate-rowtime-keep-first", "emit the row with the earliest rowtime per key once, "
    "when the watermark passes it; late rows are dropped",
    rowtime_source([("a", 1, 5), ("a", 2, 4), ("b", 3, 6), ("a", 4, 4)],
                   [("b", 9, 4), ("b", 5, 6), ("b", 7, 7), ("c", 6, 9), ("a", 8, 10)]),
    sink(["+I[a, 2]"], ["+I[b, 3]", "+I[c, 6]"], changelog=False),
    "t ASC")

# The first row by arrival per key; append-only.
DEDUPLICATE_PROCTIME_KEEP_FIRST = program(
    "deduplicate-proctime-keep-first", "keep the first row per key by arrival (append-only)",
    proctime_source([["a", 1], ["b", 2], ["a", 3]], [["a", 4], ["c", 5]]),
    sink(["+I[a, 1]", "+I[b, 2]"], ["+I[c, 5]"], changelog=False),
    "pt ASC")

# The last row by arrival per key: each new row updates the key.
DEDUPLICATE_PROCTIME_KEEP_LAST = program(
    "deduplicate-proctime-keep-last", "keep the last row per key by arrival",
    proctime_source([["a", 1], ["b", 2], ["a", 3]], [["a", 4], ["c", 5]]),
    sink(["+I[a, 1]", "+I[b, 2]", "-U[a, 1]", "+U[a, 3]"], ["-U[a, 3]", "+U[a, 4]", "+I[c, 5]"]),
    "pt DESC")

# Into an upsert sink keyed like the deduplication: no -U rows are generated.
DEDUPLICATE_UPSERT_SINK = program(
    "deduplicate-upsert-sink", "keep last into a sink keyed by the same key needs no -U",
    proctime_source([["a", 1], ["b", 2], ["a", 3]], [["a", 4], ["c", 5]]),
    sink(["+I[a, 1]", "+I[b, 2]", "+U[a, 3]"], ["+U[a, 4]", "+I[c, 5]"], key=True),
    "pt DESC")

# The state TTL expires across the restore (Flink's StateTtlConfig: on create and write,
# expired state never returned): key a is written at t, key b at t + 12 h; after the
# restore the clock is at t + 30 h, past a's day and within b's.
# Keep last by arrival (ProcTimeDeduplicateKeepLastRowFunction): a's next row is a first
# row again (+I); b's replaces the kept one.
DEDUPLICATE_STATE_TTL_EXPIRES = (
    TableTestProgram.of("deduplicate-state-ttl-expires", "a kept row expires after the restore: "
                        "its key's next row is a first row; a younger key is updated")
    .setup_config("table.exec.state.ttl", "1 d")
    .setup_table_source(proctime_source([["a", 1], advance_processing_time("12 h"), ["b", 2]],
                                        [advance_processing_time("18 h"), ["a", 3], ["b", 4]]))
    .setup_table_sink(sink(["+I[a, 1]", "+I[b, 2]"], ["+I[a, 3]", "-U[b, 2]", "+U[b, 4]"]))
    .run_sql(DEDUP.format(order="pt DESC"))
    .build())

# --- Flink's own programs (DeduplicationTestPrograms.java), transcribed as they are: SQL,
# schemas, rows and expected strings (Row.of(...) is "+I[...]", Row.ofKind(UPDATE_AFTER, ...)
# "+U[...]"). Flink's RestoreTestBase registers every sink with 'sink-insert-only' = 'false';
# ported_from gives these sinks the same.
FLINK_COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"

DATA1 = ([1, "terry", "pen", 1000], [2, "alice", "pen", 2000], [3, "bob", "pen", 3000],
         [4, "bob", "apple", 4000], [5, "fish", "apple", 5000])
DATA2 = ([6, "jerry", "pen", 6000], [7, "larry", "apple", 7000], [8, "bill", "banana", 8000],
         [9, "carol", "apple", 9000])
FLINK_SINK_SCHEMA = ("order_id bigint", "`user` varchar", "product varchar", "order_time bigint",
                     "primary key(product) not enforced")


def flink_program(id, description, constant, time_column, order, before, after):
    return (TableTestProgram.of(id, description)
            .ported_from(f"DeduplicationTestPrograms.java#{constant}", FLINK_COMMIT)
            .setup_table_source(SourceTestStep.new_builder("MyTable")
                                .add_schema("order_id bigint", "`user` varchar", "product varchar",
                                            "order_time bigint ",
                                            "event_time as TO_TIMESTAMP(FROM_UNIXTIME(order_time)) ",
                                            time_column)
                                .producing_before_restore(*DATA1)
                                .producing_after_restore(*DATA2).build())
            .setup_table_sink(SinkTestStep.new_builder("MySink").add_schema(*FLINK_SINK_SCHEMA)
                              .consuming_before_restore(*before)
                              .consuming_after_restore(*after).build())
            .run_sql("insert into MySink "
                     "select order_id, user, product, order_time \n"
                     "FROM ("
                     "  SELECT *,"
                     f"    ROW_NUMBER() OVER (PARTITION BY product ORDER BY {order}) AS row_num\n"
                     "  FROM MyTable)"
                     "WHERE row_num = 1")
            .build())


DEDUPLICATE = flink_program(
    "deduplicate-asc", "validates deduplication in ascending", "DEDUPLICATE",
    "watermark for event_time as event_time - INTERVAL '5' second ", "event_time ASC",
    ["+I[1, terry, pen, 1000]", "+I[4, bob, apple, 4000]"], ["+I[8, bill, banana, 8000]"])

DEDUPLICATE_PROCTIME = flink_program(
    "deduplicate-asc-proctime", "validates deduplication in ascending with proctime",
    "DEDUPLICATE_PROCTIME", "proctime AS PROCTIME() ", "proctime ASC",
    ["+I[1, terry, pen, 1000]", "+I[4, bob, apple, 4000]"], ["+I[8, bill, banana, 8000]"])

DEDUPLICATE_DESC = flink_program(
    "deduplicate-desc", "validates deduplication in descending", "DEDUPLICATE_DESC",
    "watermark for event_time as event_time - INTERVAL '5' second ", "event_time DESC",
    ["+I[1, terry, pen, 1000]", "+U[2, alice, pen, 2000]", "+U[3, bob, pen, 3000]",
     "+I[4, bob, apple, 4000]", "+U[5, fish, apple, 5000]"],
    ["+U[6, jerry, pen, 6000]", "+U[7, larry, apple, 7000]", "+I[8, bill, banana, 8000]",
     "+U[9, carol, apple, 9000]"])

# Multi-row micro-batches (`in_batches("phase")`): each phase's rows come in one batch, so the
# checkpoint holds state written by a batch with several rows of one key, processed in
# arrival order as Flink processes records.
DEDUPLICATE_BATCHED = (
    TableTestProgram.of("deduplicate-batched", "keep the last row by arrival when a key's rows "
                        "share a micro-batch")
    .in_batches("phase")
    .setup_table_source(proctime_source([["a", 1], ["a", 2], ["b", 3]],
                                        [["a", 4], ["b", 5], ["b", 6]]))
    .setup_table_sink(sink(["+I[a, 1]", "-U[a, 1]", "+U[a, 2]", "+I[b, 3]"],
                           ["-U[a, 2]", "+U[a, 4]", "-U[b, 3]", "+U[b, 5]", "-U[b, 5]",
                            "+U[b, 6]"]))
    .run_sql(DEDUP.format(order="pt DESC"))
    .build())

# NULL partition keys, in multi-row micro-batches (`in_batches("phase")`): NULL is a key like
# any other, for each of the deduplicate's functions (one statement set, one source):
# keep last and keep first by arrival, keep last by event time (NULL's @4 row is older than
# its kept @5 row and replaces nothing), keep first by event time (a row waits for the
# watermark: NULL's earliest row, @4, is still waiting at the restore (watermark 3 s) and is
# emitted when the watermark passes it after the restore; its later rows are ignored). One
# batch before the restore holds two rows of the NULL key; after it NULL-keyed state written
# before it decides. No row is ever behind a watermark, so Flink's result does not depend on
# when it emits watermarks. Checked on Flink 2.3.
DEDUPLICATE_NULL_KEYS = (
    TableTestProgram.of("deduplicate-null-keys", "NULL partition keys keep their row across "
                        "the restore and within one micro-batch, by arrival and by event time")
    .in_batches("phase")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "v INT", "t TIMESTAMP(3)", "pt AS PROCTIME()",
                                    "WATERMARK FOR t AS t - INTERVAL '2' SECOND")
                        .producing_before_restore([None, 1, at(5)], [None, 2, at(4)],
                                                  ["a", 3, at(4)])
                        .producing_after_restore([None, 4, at(6)], ["a", 5, at(7)],
                                                 ["b", 6, at(8)])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("L").add_schema("k STRING", "v INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[null, 1]", "-U[null, 1]", "+U[null, 2]",
                                                "+I[a, 3]")
                      .consuming_after_restore("-U[null, 2]", "+U[null, 4]", "-U[a, 3]",
                                               "+U[a, 5]", "+I[b, 6]").build())
    .setup_table_sink(SinkTestStep.new_builder("F").add_schema("k STRING", "v INT")
                      .consuming_before_restore("+I[null, 1]", "+I[a, 3]")
                      .consuming_after_restore("+I[b, 6]").build())
    .setup_table_sink(SinkTestStep.new_builder("K").add_schema("k STRING", "v INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[null, 1]", "+I[a, 3]")
                      .consuming_after_restore("-U[null, 1]", "+U[null, 4]", "-U[a, 3]",
                                               "+U[a, 5]", "+I[b, 6]").build())
    .setup_table_sink(SinkTestStep.new_builder("E").add_schema("k STRING", "v INT")
                      .consuming_before_restore()
                      .consuming_after_restore("+I[null, 2]", "+I[a, 3]", "+I[b, 6]").build())
    .run_statement_set(*(f"INSERT INTO {sink} SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER "
                         f"(PARTITION BY k ORDER BY {order}) AS rn FROM T) WHERE rn = 1"
                         for sink, order in (("L", "pt DESC"), ("F", "pt ASC"), ("K", "t DESC"),
                                             ("E", "t ASC"))))
    .build())

# A deduplicate before an aggregate, in multi-row micro-batches: the aggregate takes the
# deduplicate's -U/+U in Flink's arrival order (nodes/arrival_order.py), interleaved across
# orders as the rows arrived, not order by order. Rows: PyFlink 2.3 (tools/flink_compare).
DEDUPLICATE_THEN_AGGREGATE_BATCHED = (
    TableTestProgram.of("deduplicate-then-aggregate-batched", "the sum of each user's latest "
                        "orders, the orders' updates interleaved in one micro-batch")
    .in_batches("phase")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("order_id INT", "u STRING", "amount INT", "pt AS PROCTIME()")
                        .producing_before_restore([1, "x", 10], [2, "x", 5], [1, "x", 20],
                                                  [3, "y", 7], [2, "x", 6])
                        .producing_after_restore([3, "y", 8], [4, "x", 1], [1, "x", 2],
                                                 [4, "x", 3])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("u STRING", "total INT",
                                                               "n BIGINT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore(
                          "+I[x, 10, 1]", "-U[x, 10, 1]", "+U[x, 15, 2]", "-U[x, 15, 2]",
                          "+U[x, 5, 1]", "-U[x, 5, 1]", "+U[x, 25, 2]", "+I[y, 7, 1]",
                          "-U[x, 25, 2]", "+U[x, 20, 1]", "-U[x, 20, 1]", "+U[x, 26, 2]")
                      .consuming_after_restore(
                          "-D[y, 7, 1]", "+I[y, 8, 1]", "-U[x, 26, 2]", "+U[x, 27, 3]",
                          "-U[x, 27, 3]", "+U[x, 7, 2]", "-U[x, 7, 2]", "+U[x, 9, 3]",
                          "-U[x, 9, 3]", "+U[x, 8, 2]", "-U[x, 8, 2]", "+U[x, 11, 3]").build())
    .run_sql("INSERT INTO S SELECT u, SUM(amount), COUNT(*) FROM (SELECT order_id, u, amount "
             "FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY pt DESC) AS rn "
             "FROM T) WHERE rn = 1) GROUP BY u")
    .build())

PROGRAMS = [DEDUPLICATE_ROWTIME_KEEP_LAST, DEDUPLICATE_ROWTIME_KEEP_FIRST,
            DEDUPLICATE_PROCTIME_KEEP_FIRST, DEDUPLICATE_PROCTIME_KEEP_LAST,
            DEDUPLICATE_UPSERT_SINK, DEDUPLICATE, DEDUPLICATE_PROCTIME, DEDUPLICATE_DESC, DEDUPLICATE_STATE_TTL_EXPIRES, DEDUPLICATE_BATCHED,
            DEDUPLICATE_NULL_KEYS, DEDUPLICATE_THEN_AGGREGATE_BATCHED]
