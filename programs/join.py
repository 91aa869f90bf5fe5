"""Table test programs for stream-exec-join, the regular join (Flink's JoinTestPrograms).

Every row is its own micro-batch and the i-th rows of both tables share one. Rows that
share a micro-batch have different join keys here, so the result does not depend on which
of the two a join sees first (Flink's order between two sources is not deterministic
either). Rows cached before the restore are joined after it.

Output kinds are Flink's StreamingJoinOperator's: an inner join forwards its inputs' kinds;
an outer side emits +I and -D; a padded row is retracted with -D when its first match
arrives and re-emitted when its last match goes.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram, advance_processing_time

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
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

TINY = JOIN_TINY

ORDERS = ("id INT", "k INT", "v STRING")
CUSTOMERS = ("k INT", "name STRING")
OUT = ("id INT", "v STRING", "k INT", "name STRING")
SELECT = "INSERT INTO S SELECT O.id, O.v, C.k, C.name FROM O {join} C ON O.k = C.k{extra}"


def source(name: str, schema: tuple[str, ...], before: list, after: list,
           changelog: bool = False) -> SourceTestStep:
    builder = SourceTestStep.new_builder(name).add_schema(*schema)
    if changelog:
        builder = builder.add_option("changelog-mode", "I,UB,UA,D")
    return builder.producing_before_restore(*before).producing_after_restore(*after).build()


def program(id: str, description: str, join: str, expected: tuple[list[str], list[str]],
            orders: SourceTestStep, customers: SourceTestStep, extra: str = "",
            config: dict[str, str] | None = None) -> TableTestProgram:
    builder = TableTestProgram.of(id, description)
    for key, value in (config or {}).items():
        builder = builder.setup_config(key, value)
    sink = (SinkTestStep.new_builder("S").add_schema(*OUT).add_option("sink-insert-only", "false")
            .consuming_before_restore(*expected[0]).consuming_after_restore(*expected[1]).build())
    return (builder.setup_table_source(orders).setup_table_source(customers)
            .setup_table_sink(sink).run_sql(SELECT.format(join=join, extra=extra)).build())


# --- dataset: orders O(id, k, v) and customers C(k, name), insert-only ---------------------
# before: step0 O1(k1) C2 | step1 O2(k2) C3 | step2 O3(k3)
# after:  step0 O4(k1) C1 | step1 O5(k4)
# Inner matches: O2-C2 (before, step1), O3-C3 (before, step2), O1-C1 and O4-C1 (after, C1
# finds both cached orders), nothing for O5.
ORDERS_ROWS = source("O", ORDERS, [[1, 1, "o1"], [2, 2, "o2"], [3, 3, "o3"]],
                     [[4, 1, "o4"], [5, 4, "o5"]])
CUSTOMER_ROWS = source("C", CUSTOMERS, [[2, "c2"], [3, "c3"]], [[1, "c1"]])
INNER = (["+I[2, o2, 2, c2]", "+I[3, o3, 3, c3]"], ["+I[1, o1, 1, c1]", "+I[4, o4, 1, c1]"])

NON_WINDOW_INNER_JOIN = program(
    "join-inner", "inner join of insert-only inputs; cached rows join after the restore",
    "JOIN", INNER, ORDERS_ROWS, CUSTOMER_ROWS)

# O1 is padded at once (no customer 1 yet); after the restore O4 is padded too (step0, with
# C6), and C1 (step1) retracts both paddings and joins both orders.
LEFT_JOIN = program(
    "join-left", "left join pads unmatched orders and retracts the padding on a match",
    "LEFT JOIN",
    (["+I[1, o1, null, null]", "+I[2, o2, 2, c2]", "+I[3, o3, 3, c3]"],
     ["+I[4, o4, null, null]", "-D[1, o1, null, null]", "-D[4, o4, null, null]",
      "+I[1, o1, 1, c1]", "+I[4, o4, 1, c1]", "+I[5, o5, null, null]"]),
    ORDERS_ROWS, source("C", CUSTOMERS, [[2, "c2"], [3, "c3"]], [[6, "c6"], [1, "c1"]]))

# Customers without orders are padded: C6 at once (after); C2 and C3 find their orders.
RIGHT_JOIN = program(
    "join-right", "right join pads customers without orders",
    "RIGHT JOIN",
    (["+I[null, null, 2, c2]", "-D[null, null, 2, c2]", "+I[2, o2, 2, c2]",
      "+I[null, null, 3, c3]", "-D[null, null, 3, c3]", "+I[3, o3, 3, c3]"],
     ["+I[null, null, 6, c6]", "+I[1, o1, 1, c1]", "+I[4, o4, 1, c1]"]),
    source("O", ORDERS, [[1, 1, "o1"], [9, 9, "x"], [2, 2, "o2"], [3, 3, "o3"]],
           [[4, 1, "o4"]]),
    source("C", CUSTOMERS, [[2, "c2"], [3, "c3"]], [[6, "c6"], [1, "c1"]]))

# Both sides padded: O1 and O4 until C1 arrives; O9, O5, C6 and C8 for good; C2 and C3
# until their orders arrive.
FULL_OUTER = program(
    "join-full", "full outer join pads and un-pads both sides",
    "FULL OUTER JOIN",
    (["+I[1, o1, null, null]", "+I[null, null, 2, c2]", "+I[9, x, null, null]",
      "+I[null, null, 3, c3]", "-D[null, null, 2, c2]", "+I[2, o2, 2, c2]",
      "-D[null, null, 3, c3]", "+I[3, o3, 3, c3]"],
     ["+I[4, o4, null, null]", "+I[null, null, 6, c6]", "+I[5, o5, null, null]",
      "+I[null, null, 8, c8]", "-D[1, o1, null, null]", "-D[4, o4, null, null]",
      "+I[1, o1, 1, c1]", "+I[4, o4, 1, c1]"]),
    source("O", ORDERS, [[1, 1, "o1"], [9, 9, "x"], [2, 2, "o2"], [3, 3, "o3"]],
           [[4, 1, "o4"], [5, 4, "o5"]]),
    source("C", CUSTOMERS, [[2, "c2"], [3, "c3"]], [[6, "c6"], [8, "c8"], [1, "c1"]]))

# An updating input: the customer changelog's -U/+U/-D pass through the inner join with
# their kinds (Flink forwards the input's row kind in an inner join).
# before: step0 O1(k1) C+I(1,c1) -> +I | after: step0 O2(k2) C-U(1,c1) | step1 C+U(1,c1x)
#         | step2 C-D(1,c1x)
INNER_JOIN_UPDATING_INPUT = program(
    "join-updating-input", "an inner join forwards its updating input's -U/+U/-D",
    "JOIN",
    (["+I[1, o1, 1, c1]"],
     ["-U[1, o1, 1, c1]", "+U[1, o1, 1, c1x]", "-D[1, o1, 1, c1x]"]),
    source("O", ORDERS, [[1, 1, "o1"]], [[2, 2, "o2"]]),
    source("C", CUSTOMERS, [[1, "c1"]],
           [{"kind": "-U", "values": [1, "c1"]}, {"kind": "+U", "values": [1, "c1x"]},
            {"kind": "-D", "values": [1, "c1x"]}], changelog=True))

# A left join over an updating inner side: the inner side's -U is forwarded, and the order
# it leaves unmatched is padded again (+I); the +U then retracts that padding (-D) and
# joins as +I (an outer join never emits +U).
LEFT_JOIN_UPDATING_INPUT = program(
    "join-left-updating-input", "a left join over an updating right side re-pads and "
    "un-pads orders as the customer changes",
    "LEFT JOIN",
    (["+I[1, o1, null, null]", "-D[1, o1, null, null]", "+I[1, o1, 1, c1]"],
     ["-U[1, o1, 1, c1]", "+I[1, o1, null, null]", "-D[1, o1, null, null]", "+I[1, o1, 1, c1x]"]),
    source("O", ORDERS, [[1, 1, "o1"]], []),
    source("C", CUSTOMERS, [[7, "c7"], [1, "c1"]],
           [{"kind": "-U", "values": [1, "c1"]}, {"kind": "+U", "values": [1, "c1x"]}],
           changelog=True))

# The rest of ON is a non-equi condition; NULL there is no match: O2's v is NULL, so
# `O.v <> C.name` is NULL and O2 stays padded; O3's v equals C3's name (false).
INNER_JOIN_WITH_NON_EQUI_JOIN = program(
    "join-non-equi", "a non-equi condition that is false or NULL is no match",
    "LEFT JOIN",
    (["+I[1, o1, null, null]", "+I[2, null, null, null]", "+I[3, c3, null, null]"],
     ["-D[1, o1, null, null]", "+I[1, o1, 1, c1]"]),
    source("O", ORDERS, [[1, 1, "o1"], [2, 2, None], [3, 3, "c3"]], []),
    source("C", CUSTOMERS, [[8, "x"], [2, "c2"], [3, "c3"]], [[1, "c1"]]),
    extra=" AND O.v <> C.name")

# NULL keys never match, on either side; full join pads them all.
NON_WINDOW_INNER_JOIN_WITH_NULL = program(
    "join-null-keys", "NULL join keys never match; an outer join pads them",
    "FULL OUTER JOIN",
    (["+I[1, o1, null, null]", "+I[null, null, null, cn]"],
     ["+I[2, o2, null, null]", "+I[null, null, 3, c3x]", "-D[2, o2, null, null]",
      "+I[2, o2, 2, c2]"]),
    source("O", ORDERS, [[1, None, "o1"]], [[2, 2, "o2"]]),
    source("C", CUSTOMERS, [[None, "cn"]], [[3, "c3x"], [2, "c2"]]))

# Unique keys decide the state: customers keyed by k (the join key contains it: one row per
# key, an update replaces it); orders keyed by id (not the join key: rows by id).
# after: step0 O9 C-U(1,c1) | step1 O8 C+U(1,c1x) | step2 O2(k1) joins c1x | step3 O-D(1)
INNER_JOIN_WITH_PK = program(
    "join-unique-keys", "inputs with primary keys keep one row per key; updates replace it",
    "JOIN",
    (["+I[1, o1, 1, c1]"],
     ["-U[1, o1, 1, c1]", "+U[1, o1, 1, c1x]", "+I[2, o2, 1, c1x]", "-D[1, o1, 1, c1x]"]),
    source("O", ("id INT", "k INT", "v STRING", "PRIMARY KEY (id) NOT ENFORCED"),
           [[1, 1, "o1"]],
           [[9, 9, "x"], [8, 8, "y"], [2, 1, "o2"], {"kind": "-D", "values": [1, 1, "o1"]}],
           changelog=True),
    source("C", ("k INT", "name STRING", "PRIMARY KEY (k) NOT ENFORCED"),
           [[1, "c1"]], [{"kind": "-U", "values": [1, "c1"]}, {"kind": "+U", "values": [1, "c1x"]}],
           changelog=True))

# table.exec.state.ttl persisted into the plan (1 day: nothing expires in a test).
JOIN_WITH_STATE_TTL_OPTION = program(
    "join-state-ttl-option", "the session's state TTL is persisted into the join's plan",
    "JOIN", INNER, ORDERS_ROWS, CUSTOMER_ROWS, config={"table.exec.state.ttl": "1 d"})

# Per-input TTL by table name (version 2 puts it in the plan's 'state'): a day and 12 hours,
# so nothing expires in a test; the hint only shapes the plan.
JOIN_WITH_STATE_TTL_HINT = (
    TableTestProgram.of("join-state-ttl-hint", "STATE_TTL gives each input of the join its own "
                        "TTL in the plan's state entries")
    .setup_table_source(ORDERS_ROWS).setup_table_source(CUSTOMER_ROWS)
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema(*OUT)
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore(*INNER[0]).consuming_after_restore(*INNER[1])
                      .build())
    .run_sql("INSERT INTO S SELECT /*+ STATE_TTL('O' = '1d', 'C' = '12h') */ O.id, O.v, C.k, "
             "C.name FROM O JOIN C ON O.k = C.k")
    .build())

# The TTL expires across the restore (Flink's StateTtlConfig: on create and write, expired
# state never returned): order o1 is written at t, o2 at t + 12 h; after the restore the clock
# is at t + 30 h, past o1's day and within o2's, so only o2 finds its customer.
JOIN_STATE_TTL_EXPIRES = program(
    "join-state-ttl-expires", "a row kept before the restore expires after it; a younger one "
    "still joins", "JOIN", ([], ["+I[2, o2, 2, c2]"]),
    source("O", ORDERS, [[1, 1, "o1"], advance_processing_time("12 h"), [2, 2, "o2"]], []),
    source("C", CUSTOMERS, [], [advance_processing_time("18 h"), [1, "c1"], [2, "c2"]]),
    config={"table.exec.state.ttl": "1 d"})

PROGRAMS = [NON_WINDOW_INNER_JOIN, LEFT_JOIN, RIGHT_JOIN, FULL_OUTER, INNER_JOIN_UPDATING_INPUT,
            LEFT_JOIN_UPDATING_INPUT, INNER_JOIN_WITH_NON_EQUI_JOIN,
            NON_WINDOW_INNER_JOIN_WITH_NULL, INNER_JOIN_WITH_PK, JOIN_WITH_STATE_TTL_OPTION,
            JOIN_WITH_STATE_TTL_HINT, JOIN_STATE_TTL_EXPIRES]
