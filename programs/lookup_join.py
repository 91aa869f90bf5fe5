"""Table test programs for stream-exec-lookup-join (Flink's StreamExecLookupJoin): each input
row looks up a lookup table's rows at its processing time. The join keeps no state; the
table is external, so its rows are none of the checkpoint's: before the restore the table
holds its before-restore rows, after it its after-restore rows (as Flink's restore tests
initialise the external table for each run), which the harness gives the join from the after
phase's first processing time on. So what a restore protects here is the plan: the lookup
keys, the table's filter, the conditions, and the LOOKUP hint's async and retry options.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram, advance_processing_time

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own. The
# clock moves at the restore, where the lookup table's rows change (a's value).
def one_key_program(id: str, description: str, *after_probe) -> TableTestProgram:
    """Table D's row of key 1 changes at the restore; T looks it up before and after it.
    `after_probe`: T's after-restore entries (a row, and a clock advance before it)."""
    return (TableTestProgram.of(id, description)
            .setup_table_source(SourceTestStep.new_builder("D").add_schema("id INT", "v STRING")
                                .producing_before_restore([1, "old"])
                                .producing_after_restore([1, "new"]).build())
            .setup_table_source(SourceTestStep.new_builder("T")
                                .add_schema("k INT", "pt AS PROCTIME()")
                                .producing_before_restore([1])
                                .producing_after_restore(*after_probe).build())
            .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k INT", "v STRING")
                              .consuming_before_restore("+I[1, old]")
                              .consuming_after_restore("+I[1, new]").build())
            .run_sql("INSERT INTO S SELECT T.k, D.v FROM T JOIN D FOR SYSTEM_TIME AS OF T.pt "
                     "ON T.k = D.id")
            .build())


TINY = one_key_program("lookup-join-tiny", "a row after the restore looks up the table's rows "
                       "of then", advance_processing_time("1 min"), [1])

# --- Flink's own programs (LookupJoinTestPrograms.java), transcribed as they are: SQL,
# schemas, rows and expected strings. Flink's RestoreTestBase registers every sink with
# 'sink-insert-only' = 'false'; ported_from gives these sinks the same.
FLINK_COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"

CUSTOMERS_SCHEMA = ("id INT PRIMARY KEY NOT ENFORCED", "name STRING", "age INT", "city STRING",
                    "state STRING", "zipcode INT")
CUSTOMERS_BEFORE_DATA = ([1, "Bob", 28, "Mountain View", "California", 94043],
                         [2, "Alice", 32, "San Francisco", "California", 95016],
                         [3, "Claire", 37, "Austin", "Texas", 73301],
                         [4, "Shannon", 29, "Boise", "Idaho", 83701],
                         [5, "Jake", 42, "New York City", "New York", 10001])
CUSTOMERS_AFTER_DATA = ([1, "Bob", 28, "San Jose", "California", 94089],
                        [6, "Joana", 54, "Atlanta", "Georgia", 30033])


def customers(*options: tuple[str, str]) -> SourceTestStep:
    builder = (SourceTestStep.new_builder("customers_t")
               .add_option("disable-lookup", "false")          # static/lookup table
               .add_option("filterable-fields", "age"))
    for key, value in options:
        builder = builder.add_option(key, value)
    return (builder.add_schema(*CUSTOMERS_SCHEMA)
            .producing_before_restore(*CUSTOMERS_BEFORE_DATA)
            .producing_after_restore(*CUSTOMERS_AFTER_DATA).build())


ORDERS = (SourceTestStep.new_builder("orders_t")
          .add_option("filterable-fields", "customer_id")
          .add_schema("order_id INT", "customer_id INT", "total DOUBLE", "order_time STRING",
                      "proc_time AS PROCTIME()")
          .producing_before_restore([1, 3, 44.44, "2020-10-10 00:00:01"],
                                    [2, 5, 100.02, "2020-10-10 00:00:02"],
                                    [4, 2, 92.61, "2020-10-10 00:00:04"],
                                    [3, 1, 23.89, "2020-10-10 00:00:03"],
                                    [6, 4, 7.65, "2020-10-10 00:00:06"],
                                    [5, 2, 12.78, "2020-10-10 00:00:05"])
          .producing_after_restore([7, 6, 17.58, "2020-10-10 00:00:07"],     # new customer
                                   [9, 1, 143.21, "2020-10-10 00:00:08"])    # updated zip code
          .build())

SINK_SCHEMA = ("order_id INT", "total DOUBLE", "id INT", "name STRING", "age INT", "city STRING",
               "state STRING", "zipcode INT")
SELECT_ALL = ("O.order_id, O.total, C.id, C.name, C.age, C.city, C.state, C.zipcode "
              "FROM orders_t as O ")
JOIN = "JOIN customers_t FOR SYSTEM_TIME AS OF O.proc_time AS C "
LEFT_JOIN = "LEFT JOIN customers_t FOR SYSTEM_TIME AS OF O.proc_time AS C "
MATCHED_BEFORE = ("+I[1, 44.44, 3, Claire, 37, Austin, Texas, 73301]",
                  "+I[2, 100.02, 5, Jake, 42, New York City, New York, 10001]",
                  "+I[4, 92.61, 2, Alice, 32, San Francisco, California, 95016]",
                  "+I[3, 23.89, 1, Bob, 28, Mountain View, California, 94043]",
                  "+I[6, 7.65, 4, Shannon, 29, Boise, Idaho, 83701]",
                  "+I[5, 12.78, 2, Alice, 32, San Francisco, California, 95016]")
MATCHED_AFTER = ("+I[7, 17.58, 6, Joana, 54, Atlanta, Georgia, 30033]",
                 "+I[9, 143.21, 1, Bob, 28, San Jose, California, 94089]")


def flink_program(constant: str, description: str, before, after, sql: str,
                  source: SourceTestStep = None, sink_schema=SINK_SCHEMA) -> TableTestProgram:
    return (TableTestProgram.of(constant.lower().replace("_", "-"), description)
            .ported_from(f"LookupJoinTestPrograms.java#{constant}", FLINK_COMMIT)
            .setup_table_source(source or customers())
            .setup_table_source(ORDERS)
            .setup_table_sink(SinkTestStep.new_builder("sink_t").add_schema(*sink_schema)
                              .consuming_before_restore(*before)
                              .consuming_after_restore(*after).build())
            .run_sql("INSERT INTO sink_t SELECT " + sql)
            .build())


LOOKUP_JOIN_PROJECT_PUSHDOWN = flink_program(
    "LOOKUP_JOIN_PROJECT_PUSHDOWN", "validates lookup join with project pushdown",
    ["+I[1, 44.44, 3, Claire, Austin, Texas, 73301]",
     "+I[2, 100.02, 5, Jake, New York City, New York, 10001]",
     "+I[4, 92.61, 2, Alice, San Francisco, California, 95016]",
     "+I[3, 23.89, 1, Bob, Mountain View, California, 94043]",
     "+I[6, 7.65, 4, Shannon, Boise, Idaho, 83701]",
     "+I[5, 12.78, 2, Alice, San Francisco, California, 95016]"],
    ["+I[7, 17.58, 6, Joana, Atlanta, Georgia, 30033]",
     "+I[9, 143.21, 1, Bob, San Jose, California, 94089]"],
    "O.order_id, O.total, C.id, C.name, C.city, C.state, C.zipcode FROM orders_t as O "
    + JOIN + "ON O.customer_id = C.id",
    sink_schema=tuple(field for field in SINK_SCHEMA if field != "age INT"))

LOOKUP_JOIN_FILTER_PUSHDOWN = flink_program(
    "LOOKUP_JOIN_FILTER_PUSHDOWN", "validates lookup join with filter pushdown",
    ["+I[1, 44.44, 3, Claire, 37, Austin, Texas, 73301]",
     "+I[2, 100.02, 5, Jake, 42, New York City, New York, 10001]",
     "+I[4, 92.61, 2, Alice, 32, San Francisco, California, 95016]",
     "+I[5, 12.78, 2, Alice, 32, San Francisco, California, 95016]"],
    ["+I[7, 17.58, 6, Joana, 54, Atlanta, Georgia, 30033]"],
    SELECT_ALL + JOIN + "ON O.customer_id = C.id AND C.age > 30")

LOOKUP_JOIN_PRE_FILTER = flink_program(
    "LOOKUP_JOIN_PRE_FILTER", "validates lookup join with pre filter",
    ["+I[1, 44.44, 3, Claire, 37, Austin, Texas, 73301]",
     "+I[2, 100.02, 5, Jake, 42, New York City, New York, 10001]",
     "+I[4, 92.61, 2, Alice, 32, San Francisco, California, 95016]",
     "+I[3, 23.89, null, null, null, null, null, null]",
     "+I[6, 7.65, null, null, null, null, null, null]",
     "+I[5, 12.78, null, null, null, null, null, null]"],
    ["+I[7, 17.58, 6, Joana, 54, Atlanta, Georgia, 30033]",
     "+I[9, 143.21, null, null, null, null, null, null]"],
    SELECT_ALL + LEFT_JOIN + "ON O.customer_id = C.id AND C.age > 30 AND O.total > 15.3")

LOOKUP_JOIN_POST_FILTER = flink_program(
    "LOOKUP_JOIN_POST_FILTER", "validates lookup join with post filter",
    ["+I[1, 44.44, null, null, null, null, null, null]",
     "+I[2, 100.02, null, null, null, null, null, null]",
     "+I[4, 92.61, null, null, null, null, null, null]",
     "+I[3, 23.89, 1, Bob, 28, Mountain View, California, 94043]",
     "+I[6, 7.65, 4, Shannon, 29, Boise, Idaho, 83701]",
     "+I[5, 12.78, 2, Alice, 32, San Francisco, California, 95016]"],
    ["+I[7, 17.58, 6, Joana, 54, Atlanta, Georgia, 30033]",
     "+I[9, 143.21, null, null, null, null, null, null]"],
    SELECT_ALL + LEFT_JOIN + "ON O.customer_id = C.id AND CAST(O.total AS INT) < C.age")

LOOKUP_JOIN_PRE_POST_FILTER = flink_program(
    "LOOKUP_JOIN_PRE_POST_FILTER", "validates lookup join with pre and post filters",
    ["+I[1, 44.44, null, null, null, null, null, null]",
     "+I[2, 100.02, null, null, null, null, null, null]",
     "+I[4, 92.61, null, null, null, null, null, null]",
     "+I[3, 23.89, 1, Bob, 28, Mountain View, California, 94043]",
     "+I[6, 7.65, null, null, null, null, null, null]",
     "+I[5, 12.78, null, null, null, null, null, null]"],
    ["+I[7, 17.58, 6, Joana, 54, Atlanta, Georgia, 30033]",
     "+I[9, 143.21, null, null, null, null, null, null]"],
    SELECT_ALL + LEFT_JOIN
    + "ON O.customer_id = C.id AND O.total > 15.3 AND CAST(O.total AS INT) < C.age")

LOOKUP_JOIN_LEFT_JOIN = flink_program(
    "LOOKUP_JOIN_LEFT_JOIN", "validates lookup join with left join",
    ["+I[1, 44.44, null, null, null, null, null, null]",
     "+I[2, 100.02, 5, Jake, 42, New York City, New York, 10001]",
     "+I[4, 92.61, 2, Alice, 32, San Francisco, California, 95016]",
     "+I[3, 23.89, null, null, null, null, null, null]",
     "+I[6, 7.65, null, null, null, null, null, null]",
     "+I[5, 12.78, 2, Alice, 32, San Francisco, California, 95016]"],
    ["+I[7, 17.58, 6, Joana, 54, Atlanta, Georgia, 30033]",
     "+I[9, 143.21, null, null, null, null, null, null]"],
    SELECT_ALL + LEFT_JOIN + "ON O.customer_id = C.id AND C.age > 30 AND O.customer_id <> 3")

LOOKUP_JOIN_ASYNC_HINT = flink_program(
    "LOOKUP_JOIN_ASYNC_HINT", "validates lookup join with async hint", MATCHED_BEFORE,
    MATCHED_AFTER,
    "/*+ LOOKUP('table'='C', 'async'='true', 'output-mode'='allow_unordered', "
    "'timeout'='500s', 'capacity'='2000') */ " + SELECT_ALL + JOIN + "ON O.customer_id = C.id",
    source=customers(("async", "true")))

LOOKUP_JOIN_RETRY_HINT = flink_program(
    "LOOKUP_JOIN_RETRY_HINT", "validates lookup join with retry hint", MATCHED_BEFORE,
    MATCHED_AFTER,
    "/*+ LOOKUP('table'='C', 'retry-predicate'='lookup_miss', 'retry-strategy'='fixed_delay', "
    "'fixed-delay'='10s', 'max-attempts'='3') */ " + SELECT_ALL + JOIN
    + "ON O.customer_id = C.id")

PROGRAMS = [LOOKUP_JOIN_PROJECT_PUSHDOWN, LOOKUP_JOIN_FILTER_PUSHDOWN, LOOKUP_JOIN_PRE_FILTER,
            LOOKUP_JOIN_POST_FILTER, LOOKUP_JOIN_PRE_POST_FILTER, LOOKUP_JOIN_LEFT_JOIN,
            LOOKUP_JOIN_ASYNC_HINT, LOOKUP_JOIN_RETRY_HINT]
