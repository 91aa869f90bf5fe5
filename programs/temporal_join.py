"""Table test programs for stream-exec-temporal-join: `JOIN versioned FOR SYSTEM_TIME AS OF
o.rowtime` on event time (Flink's TemporalRowTimeJoinOperator).

Flink's TemporalJoinTestPrograms are ported as written. Every row is its own micro-batch
and the i-th rows of both tables share one; the join's watermark is the smaller of the two
tables' watermarks after the batch before.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram, advance_processing_time
from streamplan.errors import PlanningError

FLINK_COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"
FLINK_FILE = "TemporalJoinTestPrograms.java"

# --- Flink's TemporalJoinTestPrograms, as written -------------------------------------------

ORDERS = (
    SourceTestStep.new_builder("Orders")
    .add_schema("amount bigint", "currency STRING", "order_time STRING",
                "rowtime as TO_TIMESTAMP(order_time) ", "WATERMARK FOR rowtime AS rowtime")
    .producing_before_restore([2, "Euro", "2020-10-10 00:00:42"],
                              [1, "USD", "2020-10-10 00:00:43"],
                              [50, "Yen", "2020-10-10 00:00:44"],
                              [3, "Euro", "2020-10-10 00:00:45"])
    .producing_after_restore([1, "Euro", "2020-10-10 00:00:58"],
                             [1, "USD", "2020-10-10 00:00:58"])
    .build())

RATES = (
    SourceTestStep.new_builder("RatesHistory")
    .add_schema("currency STRING", "rate bigint", "rate_time STRING",
                "rowtime as TO_TIMESTAMP(rate_time) ", "WATERMARK FOR rowtime AS rowtime",
                "PRIMARY KEY(currency) NOT ENFORCED")
    .producing_before_restore(["USD", 102, "2020-10-10 00:00:41"],
                              ["Euro", 114, "2020-10-10 00:00:41"],
                              ["Yen", 1, "2020-10-10 00:00:41"],
                              ["Euro", 116, "2020-10-10 00:00:45"],
                              ["Euro", 119, "2020-10-10 00:00:47"])
    .producing_after_restore(["USD", 103, "2020-10-10 00:00:58"],
                             ["Euro", 120, "2020-10-10 00:00:59"])
    .build())


def amounts() -> SinkTestStep:
    return (SinkTestStep.new_builder("MySink")
            .add_schema("amount bigint")
            .consuming_before_restore("+I[102]", "+I[228]", "+I[348]", "+I[50]")
            .consuming_after_restore("+I[103]", "+I[119]")
            .build())


TEMPORAL_JOIN_TABLE_JOIN = (
    TableTestProgram.of("temporal-join-table-join", "validates temporal join with a table")
    .ported_from(f"{FLINK_FILE}#TEMPORAL_JOIN_TABLE_JOIN", FLINK_COMMIT)
    .setup_table_source(ORDERS)
    .setup_table_source(RATES)
    .setup_table_sink(amounts())
    .run_sql("INSERT INTO MySink "
             "SELECT amount * r.rate "
             "FROM Orders AS o "
             "JOIN RatesHistory FOR SYSTEM_TIME AS OF o.rowtime AS r "
             "ON o.currency = r.currency ")
    .build())

ORDERS_WITH_NESTED_ID = (
    SourceTestStep.new_builder("OrdersNestedId")
    .add_schema("amount bigint", "nested_row ROW<currency STRING>",
                "nested_map MAP<STRING NOT NULL, STRING>", "order_time STRING",
                "rowtime as TO_TIMESTAMP(order_time) ", "WATERMARK FOR rowtime AS rowtime")
    .producing_before_restore([2, ["Euro"], {"currency": "Euro"}, "2020-10-10 00:00:42"],
                              [1, ["usd"], {"currency": "USD"}, "2020-10-10 00:00:43"],
                              [50, ["Yen"], {"currency": "Yen"}, "2020-10-10 00:00:44"],
                              [3, ["Euro"], {"currency": "Euro"}, "2020-10-10 00:00:45"])
    .producing_after_restore([1, ["Euro"], {"currency": "Euro"}, "2020-10-10 00:00:58"],
                             [1, ["usd"], {"currency": "USD"}, "2020-10-10 00:00:58"])
    .build())

# The key is an expression over a ROW field or a MAP value: a calc in front of the join
# computes it, and leaves the composite columns out (planner/temporal_joins.py), as Flink's
# plan does.
def nested_id_program(program_id: str, description: str, constant: str,
                      condition: str) -> TableTestProgram:
    return (TableTestProgram.of(program_id, description)
            .ported_from(f"{FLINK_FILE}#{constant}", FLINK_COMMIT)
            .setup_table_source(ORDERS_WITH_NESTED_ID)
            .setup_table_source(RATES)
            .setup_table_sink(amounts())
            .run_sql("INSERT INTO MySink "
                     "SELECT amount * r.rate "
                     "FROM OrdersNestedId AS o "
                     "JOIN RatesHistory FOR SYSTEM_TIME AS OF o.rowtime AS r "
                     f"ON {condition}")
            .build())


TEMPORAL_JOIN_TABLE_JOIN_NESTED_KEY = nested_id_program(
    "temporal-join-table-join-nested-key",
    "validates temporal join with a table when the join keys comes from a nested row",
    "TEMPORAL_JOIN_TABLE_JOIN_NESTED_KEY",
    "(case when o.nested_row.currency = 'usd' then upper(o.nested_row.currency) ELSE "
    "o.nested_row.currency END) = r.currency ")

TEMPORAL_JOIN_TABLE_JOIN_KEY_FROM_MAP = nested_id_program(
    "temporal-join-table-join-key-from-map",
    "validates temporal join with a table when the join key comes from a map value",
    "TEMPORAL_JOIN_TABLE_JOIN_KEY_FROM_MAP",
    "o.nested_map['currency'] = r.currency ")

TEMPORAL_JOIN_TEMPORAL_FUNCTION = (
    TableTestProgram.of("temporal-join-temporal-function",
                        "validates temporal join with a temporal function")
    .ported_from(f"{FLINK_FILE}#TEMPORAL_JOIN_TEMPORAL_FUNCTION", FLINK_COMMIT)
    .setup_table_source(ORDERS)
    .setup_table_source(RATES)
    .setup_temporary_system_temporal_table_function("Rates", "RatesHistory", "rowtime", "currency")
    .setup_table_sink(amounts())
    .run_sql("INSERT INTO MySink "
             "SELECT amount * r.rate "
             "FROM Orders AS o,  "
             "LATERAL TABLE (Rates(o.rowtime)) AS r "
             "WHERE o.currency = r.currency ")
    .build())

# --- our own ---------------------------------------------------------------------------------

def at(second: int) -> str:
    return f"2024-01-01 10:00:{second:02d}"


def _upsert(kind: str, k: str, rate: int, second: int) -> dict:
    return {"kind": kind, "values": [k, rate, at(second)]}


# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# The probe row waits across the restore (watermark :01) and joins the version of :01 at the
# end of input; the one after the restore joins the newer version.
TINY = (
    TableTestProgram.of("temporal-join-tiny", "a probe row waiting across the restore joins the "
                        "version valid at its time")
    .setup_config("table.exec.state.ttl", "1 d")
    .setup_table_source(SourceTestStep.new_builder("Rates")
                        .add_schema("k STRING", "rate INT", "rt TIMESTAMP(3)",
                                    "WATERMARK FOR rt AS rt", "PRIMARY KEY (k) NOT ENFORCED")
                        .producing_before_restore(["a", 10, at(1)])
                        .producing_after_restore(["a", 11, at(7)]).build())
    .setup_table_source(SourceTestStep.new_builder("Orders")
                        .add_schema("id INT", "k STRING", "ot TIMESTAMP(3)",
                                    "WATERMARK FOR ot AS ot")
                        .producing_before_restore([1, "a", at(5)])
                        .producing_after_restore([2, "a", at(8)]).build())
    .setup_table_sink(SinkTestStep.new_builder("Out").add_schema("id INT", "rate INT")
                      .consuming_after_restore("+I[1, 10]", "+I[2, 11]").build())
    .run_sql("INSERT INTO Out SELECT o.id, r.rate FROM Orders AS o "
             "JOIN Rates FOR SYSTEM_TIME AS OF o.ot AS r ON o.k = r.k")
    .build())

# A phase a micro-batch. Before the restore the join's watermark reaches :05 (Orders :06,
# Rates :05): orders 1 to 4 leave, joined with the version valid at their time (a's +I and
# +U arrive in one batch; NULL keys find no version and are padded); orders 5 (b) and 6
# (NULL) wait in the state across the restore. After it b gets a new version at :06, which
# order 5 (at :06) joins; c's version is deleted at :07, so order 7 at :08 is padded.
# Expected rows: PyFlink 2.3 on the same rows (Rates as a debezium-json changelog, which
# Flink plans with a DropUpdateBefore: the same versions), LEFT JOIN FOR SYSTEM_TIME AS OF.
TEMPORAL_JOIN_VERSIONS_ACROSS_RESTORE = (
    TableTestProgram.of("temporal-join-versions-across-restore", "probe rows waiting across the "
                        "restore join a version that arrives after it; NULL keys are padded")
    .setup_config("table.exec.state.ttl", "1 d")
    .in_batches("phase")
    .setup_table_source(
        SourceTestStep.new_builder("Rates")
        .add_schema("k STRING", "rate INT", "rt TIMESTAMP(3)", "WATERMARK FOR rt AS rt",
                    "PRIMARY KEY (k) NOT ENFORCED")
        .add_option("changelog-mode", "I,UA,D")
        .producing_before_restore(_upsert("+I", "a", 10, 1), _upsert("+I", "b", 20, 1),
                                  _upsert("+U", "a", 11, 3), _upsert("+I", "c", 30, 5))
        .producing_after_restore(_upsert("+U", "b", 21, 6), _upsert("-D", "c", 30, 7),
                                 _upsert("+U", "a", 12, 9))
        .build())
    .setup_table_source(
        SourceTestStep.new_builder("Orders")
        .add_schema("id INT", "k STRING", "ot TIMESTAMP(3)", "WATERMARK FOR ot AS ot")
        .producing_before_restore([1, "a", at(2)], [2, "a", at(4)], [3, None, at(3)],
                                  [4, None, at(4)], [5, "b", at(6)], [6, None, at(6)])
        .producing_after_restore([7, "c", at(8)], [8, "a", at(9)], [9, None, at(9)])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("Out")
        .add_schema("id INT", "k STRING", "rate INT")
        .add_option("sink-insert-only", "false")
        .consuming_before_restore("+I[1, a, 10]", "+I[3, null, null]", "+I[2, a, 11]",
                                  "+I[4, null, null]")
        .consuming_after_restore("+I[5, b, 21]", "+I[6, null, null]", "+I[7, c, null]",
                                 "+I[8, a, 12]", "+I[9, null, null]")
        .build())
    .run_sql("INSERT INTO Out SELECT o.id, o.k, r.rate FROM Orders AS o "
             "LEFT JOIN Rates FOR SYSTEM_TIME AS OF o.ot AS r ON o.k = r.k")
    .build())

# The state retention (table.exec.state.ttl, 1 h: Flink's min retention, 1.5 h the max)
# expires across the restore: key a's version (written at t) is kept past its join with order
# 1 before the restore; after it the clock is at t + 2 h, past a's cleanup time, so the key's
# state is dropped (Flink's processing-time cleanup timer, cleanupState) and order 2 finds no
# version: padded. Without the retention it would join rate 10.
TEMPORAL_JOIN_STATE_TTL_EXPIRES = (
    TableTestProgram.of("temporal-join-state-ttl-expires", "a version kept before the restore "
                        "is dropped after it once its retention has passed")
    .setup_config("table.exec.state.ttl", "1 h")
    .setup_table_source(SourceTestStep.new_builder("Rates")
                        .add_schema("k STRING", "rate INT", "rt TIMESTAMP(3)",
                                    "WATERMARK FOR rt AS rt", "PRIMARY KEY (k) NOT ENFORCED")
                        .producing_before_restore(["a", 10, at(1)], ["c", 30, at(3)])
                        .producing_after_restore(["c", 31, at(9)]).build())
    .setup_table_source(SourceTestStep.new_builder("Orders")
                        .add_schema("id INT", "k STRING", "ot TIMESTAMP(3)",
                                    "WATERMARK FOR ot AS ot")
                        .producing_before_restore([1, "a", at(2)])
                        .producing_after_restore(advance_processing_time("2 h"),
                                                 [2, "a", at(8)]).build())
    .setup_table_sink(SinkTestStep.new_builder("Out").add_schema("id INT", "k STRING", "rate INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[1, a, 10]")
                      .consuming_after_restore("+I[2, a, null]").build())
    .run_sql("INSERT INTO Out SELECT o.id, o.k, r.rate FROM Orders AS o "
             "LEFT JOIN Rates FOR SYSTEM_TIME AS OF o.ot AS r ON o.k = r.k")
    .build())

PROGRAMS = [TEMPORAL_JOIN_TABLE_JOIN, TEMPORAL_JOIN_TABLE_JOIN_NESTED_KEY,
            TEMPORAL_JOIN_TABLE_JOIN_KEY_FROM_MAP, TEMPORAL_JOIN_TEMPORAL_FUNCTION,
            TEMPORAL_JOIN_VERSIONS_ACROSS_RESTORE,
            TEMPORAL_JOIN_STATE_TTL_EXPIRES]

NOT_PASSING: dict[str, str] = {}


# --- statements Flink refuses (its messages, from PyFlink 2.3's planner) ---------------------

def _refused(id: str, description: str, rates_schema: tuple[str, ...], query: str,
             message: str) -> TableTestProgram:
    """Rates is no lookup source ('disable-lookup'), as the filesystem table Flink refused."""
    return (TableTestProgram.of(id, description)
            .setup_table_source(SourceTestStep.new_builder("Rates").add_schema(*rates_schema)
                                .add_option("disable-lookup", "true").build())
            .setup_table_source(SourceTestStep.new_builder("Orders")
                                .add_schema("id INT", "k STRING", "ot TIMESTAMP(3)",
                                            "pt AS PROCTIME()", "WATERMARK FOR ot AS ot")
                                .build())
            .setup_table_sink(SinkTestStep.new_builder("Out").add_schema("id INT", "rate INT")
                              .add_option("sink-insert-only", "false")
                              .consuming_before_restore().build())
            .run_failing_sql(f"INSERT INTO Out SELECT o.id, r.rate FROM Orders AS o {query}",
                             PlanningError, message)
            .build())


VERSIONED = ("k STRING", "rate INT", "rt TIMESTAMP(3)", "WATERMARK FOR rt AS rt",
             "PRIMARY KEY (k) NOT ENFORCED")

FAILING_PROGRAMS = [
    _refused("temporal-join-refuses-proctime", "a processing-time temporal join against a "
             "versioned table (Flink runs one only against a lookup source)", VERSIONED,
             "JOIN Rates FOR SYSTEM_TIME AS OF o.pt AS r ON o.k = r.k",
             "Processing-time temporal join is not supported yet."),
    _refused("temporal-join-refuses-no-primary-key", "a versioned table needs a primary key",
             VERSIONED[:4], "JOIN Rates FOR SYSTEM_TIME AS OF o.ot AS r ON o.k = r.k",
             "Temporal Table Join requires primary key in versioned table, but no primary key "
             "can be found."),
    _refused("temporal-join-refuses-key-outside-condition", "the versioned table's primary key "
             "must be in the condition's equalities", VERSIONED,
             "JOIN Rates FOR SYSTEM_TIME AS OF o.ot AS r ON o.id = r.rate",
             "Temporal Table Join requires primary key in versioned table, but no primary key "
             "can be found."),
    _refused("temporal-join-refuses-right-join", "a temporal join is INNER or LEFT", VERSIONED,
             "RIGHT JOIN Rates FOR SYSTEM_TIME AS OF o.ot AS r ON o.k = r.k",
             "Unknown join type RIGHT"),
]
