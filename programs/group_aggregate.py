"""Table test programs for stream-exec-group-aggregate (Flink's GroupAggregateTestPrograms).

Every row is its own micro-batch. An aggregate emits, per input row, what Flink's
GroupAggFunction emits: +I for a key's first row, -U (when the sink needs it) and +U on a
change, nothing when the result did not change, -D when a key's rows are all retracted.
Each program's keys are seen before the restore and updated after it, so the accumulators
must come back from the checkpoint.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram, advance_processing_time
from streamplan.errors import PlanningError, UnsupportedSqlError

from . import _functions as udfs

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# a's sum before the restore is updated after it: the accumulator comes from the checkpoint.
TINY = (
    TableTestProgram.of("group-aggregate-tiny", "a sum kept before the restore is updated after it")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v INT")
                        .producing_before_restore(["a", 1]).producing_after_restore(["a", 2])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "total INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 1]")
                      .consuming_after_restore("-U[a, 1]", "+U[a, 3]").build())
    .run_sql("INSERT INTO S SELECT k, SUM(v) FROM T GROUP BY k")
    .build())

ORDERS = ("id INT", "k STRING", "v BIGINT")


def source(name: str, before: list, after: list, schema=ORDERS, changelog: bool = False):
    builder = SourceTestStep.new_builder(name).add_schema(*schema)
    if changelog:
        builder = builder.add_option("changelog-mode", "I,UB,UA,D")
    return builder.producing_before_restore(*before).producing_after_restore(*after).build()


def sink(name: str, schema: tuple[str, ...], before: list[str], after: list[str],
         materialized: bool = False):
    builder = (SinkTestStep.new_builder(name).add_schema(*schema)
               .add_option("sink-insert-only", "false"))
    if materialized:
        builder = builder.testing_materialized_data()
    return builder.consuming_before_restore(*before).consuming_after_restore(*after).build()


def program(id: str, description: str, sources: list, sink_step, sql: str, config=None):
    builder = TableTestProgram.of(id, description)
    for key, value in (config or {}).items():
        builder = builder.setup_config(key, value)
    for step in sources:
        builder = builder.setup_table_source(step)
    return builder.setup_table_sink(sink_step).run_sql(sql).build()


# a: 10, then 5 (before); b: 3, then 7; a: 1; c: 2 (after). AVG of BIGINT is a BIGINT,
# truncated (15 / 2 = 7, 16 / 3 = 5, 10 / 2 = 5), as in Flink.
SIMPLE_ROWS = ([[1, "a", 10], [2, "b", 3], [3, "a", 5]], [[4, "b", 7], [5, "a", 1], [6, "c", 2]])
GROUP_BY_SIMPLE = program(
    "group-aggregate-simple", "COUNT(*), SUM, MIN, MAX and AVG per key on a retract sink",
    [source("T", *SIMPLE_ROWS)],
    sink("S", ("k STRING", "cnt BIGINT", "total BIGINT", "mn BIGINT", "mx BIGINT", "av BIGINT"),
         ["+I[a, 1, 10, 10, 10, 10]", "+I[b, 1, 3, 3, 3, 3]",
          "-U[a, 1, 10, 10, 10, 10]", "+U[a, 2, 15, 5, 10, 7]"],
         ["-U[b, 1, 3, 3, 3, 3]", "+U[b, 2, 10, 3, 7, 5]",
          "-U[a, 2, 15, 5, 10, 7]", "+U[a, 3, 16, 1, 10, 5]", "+I[c, 1, 2, 2, 2, 2]"]),
    "INSERT INTO S SELECT k, COUNT(*), SUM(v), MIN(v), MAX(v), AVG(v) FROM T GROUP BY k")

# The sink's primary key is the group key: an upsert sink, so no -U rows are generated.
GROUP_BY_UPSERT_SINK = program(
    "group-aggregate-upsert-sink", "an upsert sink keyed like the aggregate gets no -U rows",
    [source("T", *SIMPLE_ROWS)],
    sink("S", ("k STRING", "cnt BIGINT", "total BIGINT", "PRIMARY KEY (k) NOT ENFORCED"),
         ["+I[a, 1, 10]", "+I[b, 1, 3]", "+U[a, 2, 15]"],
         ["+U[b, 2, 10]", "+U[a, 3, 16]", "+I[c, 1, 2]"]),
    "INSERT INTO S SELECT k, COUNT(*), SUM(v) FROM T GROUP BY k")

# COUNT(DISTINCT v) and COUNT(v) skip NULLs; COUNT(*) counts every row.
# a: 1, 1, NULL (before) then 2; b: NULL (after).
GROUP_BY_DISTINCT = program(
    "group-aggregate-distinct", "COUNT(DISTINCT), COUNT(column) and COUNT(*) with NULLs",
    [source("T", [[1, "a", 1], [2, "a", 1], [3, "a", None]], [[4, "a", 2], [5, "b", None]])],
    sink("S", ("k STRING", "dv BIGINT", "cv BIGINT", "cnt BIGINT"),
         ["+I[a, 1, 1, 1]", "-U[a, 1, 1, 1]", "+U[a, 1, 2, 2]", "-U[a, 1, 2, 2]", "+U[a, 1, 2, 3]"],
         ["-U[a, 1, 2, 3]", "+U[a, 2, 3, 4]", "+I[b, 0, 0, 1]"]),
    "INSERT INTO S SELECT k, COUNT(DISTINCT v), COUNT(v), COUNT(*) FROM T GROUP BY k")

# HAVING filters the aggregate's changelog row by row: a's first result (count 1) and its
# retraction are filtered out, so the sink sees a's +U[a, 15] without an earlier +I, as in
# Flink; after the restore a's -U of (15, count 2) passes the filter, and so does b's +U.
GROUP_BY_HAVING = program(
    "group-aggregate-having", "HAVING filters the aggregate's updates row by row",
    [source("T", *SIMPLE_ROWS)],
    sink("S", ("k STRING", "total BIGINT"),
         ["+U[a, 15]"],
         ["+U[b, 10]", "-U[a, 15]", "+U[a, 16]"]),
    "INSERT INTO S SELECT k, SUM(v) FROM T GROUP BY k HAVING COUNT(*) > 1")

# Without GROUP BY: one global row, inserted by the first input row and updated by each.
GROUP_BY_GLOBAL = program(
    "group-aggregate-global", "an aggregate without GROUP BY keeps one global row",
    [source("T", [[1, "a", 10], [2, "b", 3]], [[3, "a", 5]])],
    sink("S", ("cnt BIGINT", "total BIGINT", "mx STRING"),
         ["+I[1, 10, a]", "-U[1, 10, a]", "+U[2, 13, b]"],
         ["-U[2, 13, b]", "+U[3, 18, b]"]),
    "INSERT INTO S SELECT COUNT(*), SUM(v), MAX(k) FROM T")

# A changelog source: its -U/+U/-D are retracted exactly; a's rows all retracted -> -D.
GROUP_BY_RETRACT_INPUT = program(
    "group-aggregate-retract-input", "updates and deletes of the input are retracted; a key "
    "whose rows are all deleted is deleted",
    [source("T", [[1, "a", 10], [2, "a", 5], {"kind": "-U", "values": [1, "a", 10]},
                  {"kind": "+U", "values": [1, "a", 20]}],
            [{"kind": "-D", "values": [2, "a", 5]}, {"kind": "-D", "values": [1, "a", 20]},
             [3, "b", 1]], changelog=True)],
    sink("S", ("k STRING", "cnt BIGINT", "total BIGINT"),
         ["+I[a, 1, 10]", "-U[a, 1, 10]", "+U[a, 2, 15]", "-U[a, 2, 15]", "+U[a, 1, 5]",
          "-U[a, 1, 5]", "+U[a, 2, 25]"],
         ["-U[a, 2, 25]", "+U[a, 1, 20]", "-D[a, 1, 20]", "+I[b, 1, 1]"]),
    "INSERT INTO S SELECT k, COUNT(*), SUM(v) FROM T GROUP BY k")

# An aggregate of an aggregate: how many keys have each count. The inner aggregate's
# -U[a, 1] / +U[a, 2] move key a from count 1 to count 2.
#   inner: +I[a,1] +I[b,1] -U[a,1] +U[a,2] | after: -U[b,1] +U[b,2] -U[a,2] +U[a,3]
GROUP_BY_OF_AGGREGATE = program(
    "group-aggregate-of-aggregate", "an aggregate over another aggregate's updates",
    [source("T", [[1, "a", 0], [2, "b", 0], [3, "a", 0]], [[4, "b", 0], [5, "a", 0]])],
    sink("S", ("cnt BIGINT", "keys BIGINT"),
         ["+I[1, 1]", "-U[1, 1]", "+U[1, 2]", "-U[1, 2]", "+U[1, 1]", "+I[2, 1]"],
         ["-D[1, 1]", "-U[2, 1]", "+U[2, 2]", "-U[2, 2]", "+U[2, 1]", "+I[3, 1]"]),
    "INSERT INTO S SELECT cnt, COUNT(*) FROM (SELECT k, COUNT(*) AS cnt FROM T GROUP BY k) "
    "GROUP BY cnt")

# The same over a phase a micro-batch: the inner aggregate's updates of several keys meet in
# one batch, and the outer one must take them in the order Flink's inner operator emits them
# (as each row arrives), not key by key (nodes/arrival_order.py). The sink's key is the count,
# so each count's changes are compared in order. Rows: PyFlink 2.3 (tools/flink_compare).
GROUP_BY_OF_AGGREGATE_BATCHED = (
    TableTestProgram.of("group-aggregate-of-aggregate-batched", "an aggregate over another "
                        "aggregate's updates of several keys a micro-batch, across the restore")
    .in_batches("phase")
    .setup_table_source(source("T", [[1, "a", 0], [2, "b", 0], [3, "a", 0], [4, "c", 0],
                                     [5, "b", 0], [6, "a", 0]],
                               [[7, "c", 0], [8, "b", 0], [9, "d", 0], [10, "c", 0]]))
    .setup_table_sink(sink("S", ("cnt BIGINT", "keys BIGINT", "PRIMARY KEY (cnt) NOT ENFORCED"),
                           ["+I[1, 1]", "+U[1, 2]", "+U[1, 1]", "+I[2, 1]", "+U[1, 2]",
                            "+U[1, 1]", "+U[2, 2]", "+U[2, 1]", "+I[3, 1]"],
                           ["-D[1, 1]", "+U[2, 2]", "+U[2, 1]", "+U[3, 2]", "+I[1, 1]",
                            "-D[2, 1]", "+U[3, 3]"]))
    .run_sql("INSERT INTO S SELECT cnt, COUNT(*) FROM (SELECT k, COUNT(*) AS cnt FROM T "
             "GROUP BY k) GROUP BY cnt")
    .build())

# Flink's result types: SUM keeps INT and DOUBLE and widens DECIMAL(10, 2) to DECIMAL(38, 2);
# AVG of INT is an INT (7 / 2 = 3), of DECIMAL(10, 2) a DECIMAL(38, 6).
GROUP_BY_TYPES = program(
    "group-aggregate-types", "SUM and AVG over INT, DOUBLE and DECIMAL keep Flink's types",
    [source("T", [[1, 3, 1.5, "1.25"], [1, 4, 2.0, "2.00"]], [[1, 1, 0.25, "0.10"]],
            schema=("g INT", "i INT", "d DOUBLE", "m DECIMAL(10, 2)"))],
    sink("S", ("g INT", "si INT", "ai INT", "sd DOUBLE", "sm DECIMAL(38, 2)", "am DECIMAL(38, 6)"),
         ["+I[1, 3, 3, 1.5, 1.25, 1.250000]", "-U[1, 3, 3, 1.5, 1.25, 1.250000]",
          "+U[1, 7, 3, 3.5, 3.25, 1.625000]"],
         ["-U[1, 7, 3, 3.5, 3.25, 1.625000]", "+U[1, 8, 2, 3.75, 3.35, 1.116667]"]),
    "INSERT INTO S SELECT g, SUM(i), AVG(i), SUM(d), SUM(m), AVG(m) FROM T GROUP BY g")

# STATE_TTL by table name (1 day: nothing expires in a test). With TTL on, Flink re-emits an
# unchanged result (-U/+U of the same row) so downstream state is refreshed.
GROUP_AGGREGATE_STATE_TTL_HINT = program(
    "group-aggregate-state-ttl-hint", "a STATE_TTL hint sets the aggregate's state TTL in the "
    "plan; with TTL an unchanged result is re-emitted",
    [source("T", [[1, "a", 5], [2, "a", 3]], [[3, "a", 1], [4, "a", 9]])],
    sink("S", ("k STRING", "mx BIGINT"),
         ["+I[a, 5]", "-U[a, 5]", "+U[a, 5]"],
         ["-U[a, 5]", "+U[a, 5]", "-U[a, 5]", "+U[a, 9]"]),
    "INSERT INTO S SELECT /*+ STATE_TTL('T' = '1d') */ k, MAX(v) FROM T GROUP BY k")

# The state TTL expires across the restore (Flink's StateTtlConfig: on create and write,
# expired state never returned): key a is written at t, key b at t + 12 h; after the
# restore the clock is at t + 30 h, past a's day and within b's.
# a starts again (+I, as after its first row); b is updated.
GROUP_BY_STATE_TTL_EXPIRES = program(
    "group-aggregate-state-ttl-expires", "an accumulator kept before the restore expires after "
    "it: its key starts again; a younger one is updated",
    [source("T", [[1, "a", 1], advance_processing_time("12 h"), [2, "b", 2]],
            [advance_processing_time("18 h"), [3, "a", 3], [4, "b", 4]])],
    sink("S", ("k STRING", "cnt BIGINT", "total BIGINT"), ["+I[a, 1, 1]", "+I[b, 1, 2]"],
         ["+I[a, 1, 3]", "-U[b, 1, 2]", "+U[b, 2, 6]"]),
    "INSERT INTO S SELECT k, COUNT(*), SUM(v) FROM T GROUP BY k",
    config={"table.exec.state.ttl": "1 d"})

# FILTER (WHERE ...) on a changelog input: each filtered call accumulates and retracts only
# the rows its condition holds for (NULL, like FALSE, skips the row); COUNT(*) counts every
# row. The conditions become BOOLEAN columns of the calc below the aggregate (Flink's
# filterArg). Before the restore: a's 5 (id 1) is updated to 8; id 2's NULL v skips the
# `v > 2` and MAX calls; after it, 1 (ids 3 and 4) enters and leaves the distinct count.
GROUP_BY_FILTER = program(
    "group-aggregate-filter", "aggregates with FILTER (WHERE ...), COUNT(DISTINCT) among them, "
    "over updates, deletes and NULLs",
    [source("T", [[1, "a", 5], [2, "a", None], [3, "a", 1], {"kind": "-U", "values": [1, "a", 5]},
                  {"kind": "+U", "values": [1, "a", 8]}],
            [[4, "a", 1], {"kind": "-D", "values": [3, "a", 1]}, [5, "b", 3],
             {"kind": "-D", "values": [4, "a", 1]}, [6, "a", 9]], changelog=True)],
    sink("S", ("k STRING", "cnt BIGINT", "big BIGINT", "big_sum BIGINT", "first_max BIGINT",
               "dv BIGINT"),
         ["+I[a, 1, 1, 5, 5, 0]", "-U[a, 1, 1, 5, 5, 0]", "+U[a, 2, 1, 5, 5, 0]",
          "-U[a, 2, 1, 5, 5, 0]", "+U[a, 3, 1, 5, 5, 1]", "-U[a, 3, 1, 5, 5, 1]",
          "+U[a, 2, 0, null, null, 1]", "-U[a, 2, 0, null, null, 1]", "+U[a, 3, 1, 8, 8, 1]"],
         ["-U[a, 3, 1, 8, 8, 1]", "+U[a, 4, 1, 8, 8, 1]", "-U[a, 4, 1, 8, 8, 1]",
          "+U[a, 3, 1, 8, 8, 1]", "+I[b, 1, 1, 3, null, 1]", "-U[a, 3, 1, 8, 8, 1]",
          "+U[a, 2, 1, 8, 8, 0]", "-U[a, 2, 1, 8, 8, 0]", "+U[a, 3, 2, 17, 8, 1]"]),
    "INSERT INTO S SELECT k, COUNT(*), COUNT(*) FILTER (WHERE v > 2), "
    "SUM(v) FILTER (WHERE v > 2), MAX(v) FILTER (WHERE id < 3), "
    "COUNT(DISTINCT v) FILTER (WHERE id > 1) FROM T GROUP BY k")

# SUM, AVG, MIN and MAX of DISTINCT values on a changelog input: every distinct value is
# kept with its count, and the aggregate is over the values of a positive count (AVG of
# BIGINT truncates: 11 / 2 = 5). a's 4 comes twice before the restore, so retracting one 4
# after it leaves 4 in; a NULL counts as a row only. MIN/MAX(DISTINCT) are MIN/MAX (Flink
# drops the DISTINCT); SUM(v) shows what DISTINCT changes.
GROUP_BY_DISTINCT_RETRACT = program(
    "group-aggregate-distinct-retract", "SUM, AVG, MIN, MAX and COUNT of DISTINCT values "
    "retract exactly over updates, deletes and NULLs",
    [source("T", [[1, "a", 4], [2, "a", 4], [3, "a", None], [4, "a", 10]],
            [{"kind": "-U", "values": [1, "a", 4]}, {"kind": "+U", "values": [1, "a", 7]},
             {"kind": "-D", "values": [4, "a", 10]}, {"kind": "-D", "values": [2, "a", 4]},
             [5, "b", None], {"kind": "-D", "values": [1, "a", 7]}], changelog=True)],
    sink("S", ("k STRING", "sd BIGINT", "ad BIGINT", "mnd BIGINT", "mxd BIGINT", "cd BIGINT",
               "s BIGINT"),
         ["+I[a, 4, 4, 4, 4, 1, 4]", "-U[a, 4, 4, 4, 4, 1, 4]", "+U[a, 4, 4, 4, 4, 1, 8]",
          "-U[a, 4, 4, 4, 4, 1, 8]", "+U[a, 14, 7, 4, 10, 2, 18]"],
         ["-U[a, 14, 7, 4, 10, 2, 18]", "+U[a, 14, 7, 4, 10, 2, 14]",
          "-U[a, 14, 7, 4, 10, 2, 14]", "+U[a, 21, 7, 4, 10, 3, 21]",
          "-U[a, 21, 7, 4, 10, 3, 21]", "+U[a, 11, 5, 4, 7, 2, 11]",
          "-U[a, 11, 5, 4, 7, 2, 11]", "+U[a, 7, 7, 7, 7, 1, 7]",
          "+I[b, null, null, null, null, 0, null]",
          "-U[a, 7, 7, 7, 7, 1, 7]", "+U[a, null, null, null, null, 0, null]"]),
    "INSERT INTO S SELECT k, SUM(DISTINCT v), AVG(DISTINCT v), MIN(DISTINCT v), "
    "MAX(DISTINCT v), COUNT(DISTINCT v), SUM(v) FROM T GROUP BY k")

# --- Flink's own programs (GroupAggregateTestPrograms.java), transcribed as they are: SQL,
# schemas, rows and expected strings. Flink's RestoreTestBase registers every sink with
# 'sink-insert-only' = 'false'; ported_from gives these sinks the same. Our program above that
# Flink's constant AGG_WITH_STATE_TTL_HINT used to name is renamed after its id (program, id
# and fixtures unchanged). Not ported (docs/flink-programs.md): GROUP_BY_SIMPLE and
# GROUP_BY_DISTINCT, whose ids our own programs hold. The UDF programs are below.
FLINK_COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"

SOURCE_ONE = (SourceTestStep.new_builder("source_t")
              .add_schema("a INT", "b BIGINT", "c VARCHAR")
              .producing_before_restore([1, 1, "Hi"], [2, 2, "Hello"], [2, 2, "Hello World"])
              .producing_after_restore([1, 1, "Hi Again!"], [2, 2, "Hello Again!"],
                                       [2, 2, "Hello World Again!"])
              .build())

AGG_WITH_STATE_TTL_HINT = (
    TableTestProgram.of("agg-with-state-ttl-hint", "agg with state ttl hint")
    .ported_from("GroupAggregateTestPrograms.java#AGG_WITH_STATE_TTL_HINT", FLINK_COMMIT)
    .for_node("group-aggregate")      # Flink's id starts with no node's short name
    .setup_table_source(SOURCE_ONE)
    .setup_table_sink(SinkTestStep.new_builder("sink_t")
                      .add_schema("b BIGINT", "cnt BIGINT", "avg_a DOUBLE", "min_c VARCHAR",
                                  "PRIMARY KEY (b) NOT ENFORCED")
                      .consuming_before_restore("+I[1, 1, null, Hi]", "+I[2, 1, 2.0, Hello]",
                                                "+U[2, 2, 2.0, Hello]")
                      # Due to state TTL in hint, the state in the metadata savepoint has expired.
                      .consuming_after_restore("+I[1, 1, null, Hi Again!]",
                                               "+I[2, 1, 2.0, Hello Again!]",
                                               "+U[2, 2, 2.0, Hello Again!]")
                      .build())
    .run_sql("INSERT INTO sink_t SELECT /*+ STATE_TTL('source_t' = '1s') */"
             "b, "
             "COUNT(*) AS cnt, "
             "AVG(a) FILTER (WHERE a > 1) AS avg_a, "
             "MIN(c) AS min_c "
             "FROM source_t GROUP BY b")
    .build())

# Mini-batch (GroupAggregateTestPrograms' *_MINI_BATCH): with table.exec.mini-batch.enabled
# Flink plans a MiniBatchAssigner, a LocalGroupAggregate and a GlobalGroupAggregate. The
# program is fed a phase a micro-batch (harness.program, as Flink's test delivers a phase
# within the 10 s latency); bundles are cut by table.exec.mini-batch.size.
SOURCE_TWO = (SourceTestStep.new_builder("source_t")
              .add_schema("a INT", "b BIGINT", "c INT", "d VARCHAR", "e BIGINT")
              .producing_before_restore([2, 3, 2, "Hello World Like", 1],
                                        [3, 4, 3, "Hello World Its nice", 2],
                                        [2, 2, 1, "Hello World", 2], [1, 1, 0, "Hello", 1],
                                        [5, 11, 10, "GHI", 1], [3, 5, 4, "ABC", 2],
                                        [4, 10, 9, "FGH", 2], [4, 7, 6, "CDE", 2],
                                        [5, 14, 13, "JKL", 2], [4, 9, 8, "EFG", 1],
                                        [5, 15, 14, "KLM", 2], [5, 12, 11, "HIJ", 3],
                                        [4, 8, 7, "DEF", 1], [5, 13, 12, "IJK", 3],
                                        [3, 6, 5, "BCD", 3])
              .producing_after_restore([1, 1, 0, "Hello", 1], [3, 5, 4, "ABC", 2],
                                       [4, 10, 9, "FGH", 2], [4, 7, 6, "CDE", 2],
                                       [7, 7, 7, "MNO", 7], [3, 6, 5, "BCD", 3],
                                       [7, 7, 7, "XYZ", 7])
              .build())
# GROUP_BY_SIMPLE's sink schema and SQL (Flink's GROUP_BY_SIMPLE_MINI_BATCH reuses them).
GROUP_BY_SIMPLE_SINK_SCHEMA = ("b BIGINT", "cnt BIGINT", "avg_a DOUBLE", "min_c VARCHAR",
                               "PRIMARY KEY (b) NOT ENFORCED")
GROUP_BY_SIMPLE_SQL = ("INSERT INTO sink_t SELECT "
                       "b, "
                       "COUNT(*) AS cnt, "
                       "AVG(a) FILTER (WHERE a > 1) AS avg_a, "
                       "MIN(c) AS min_c "
                       "FROM source_t GROUP BY b")
# GROUP_BY_DISTINCT's (Flink's GROUP_BY_DISTINCT_MINI_BATCH reuses them).
GROUP_BY_DISTINCT_SINK_SCHEMA = ("e BIGINT", "cnt_a1 BIGINT", "cnt_a2 BIGINT", "sum_a BIGINT",
                                 "sum_b BIGINT", "avg_b DOUBLE", "cnt_d BIGINT",
                                 "PRIMARY KEY (e) NOT ENFORCED")
GROUP_BY_DISTINCT_SQL = ("INSERT INTO sink_t SELECT "
                         "e, "
                         "COUNT(DISTINCT a) FILTER (WHERE b > 10) AS cnt_a1, "
                         "COUNT(DISTINCT a) AS cnt_a2, "
                         "SUM(DISTINCT a) AS sum_a, "
                         "SUM(DISTINCT b) AS sum_b, "
                         "AVG(b) AS avg_b, "
                         "COUNT(DISTINCT d) AS concat_d "
                         "FROM source_t GROUP BY e")

GROUP_BY_SIMPLE_MINI_BATCH = (
    TableTestProgram.of("group-aggregate-simple-mini-batch",
                        "validates basic aggregation using group by with mini batch")
    .ported_from("GroupAggregateTestPrograms.java#GROUP_BY_SIMPLE_MINI_BATCH", FLINK_COMMIT)
    .setup_table_source(SOURCE_ONE)
    .setup_config("table.exec.mini-batch.enabled", "true")
    .setup_config("table.exec.mini-batch.allow-latency", "10 s")
    .setup_config("table.exec.mini-batch.size", "5")
    .setup_table_sink(SinkTestStep.new_builder("sink_t")
                      .add_schema(*GROUP_BY_SIMPLE_SINK_SCHEMA)
                      .consuming_before_restore("+I[1, 1, null, Hi]", "+I[2, 2, 2.0, Hello]")
                      .consuming_after_restore("+U[1, 2, null, Hi]", "+U[2, 4, 2.0, Hello]")
                      .build())
    .run_sql(GROUP_BY_SIMPLE_SQL)
    .build())

GROUP_BY_DISTINCT_MINI_BATCH = (
    TableTestProgram.of("group-aggregate-distinct-mini-batch",
                        "validates group by distinct with mini batch")
    .ported_from("GroupAggregateTestPrograms.java#GROUP_BY_DISTINCT_MINI_BATCH", FLINK_COMMIT)
    .setup_config("table.exec.mini-batch.enabled", "true")
    .setup_config("table.exec.mini-batch.allow-latency", "10 s")
    .setup_config("table.exec.mini-batch.size", "5")
    .setup_table_source(SOURCE_TWO)
    .setup_table_sink(SinkTestStep.new_builder("sink_t")
                      .add_schema(*GROUP_BY_DISTINCT_SINK_SCHEMA)
                      .consuming_before_restore("+I[3, 1, 2, 8, 31, 10.0, 3]",
                                                "+I[2, 1, 4, 14, 42, 7.0, 6]",
                                                "+I[1, 1, 4, 12, 24, 6.0, 4]",
                                                "+U[2, 1, 4, 14, 57, 8.0, 7]",
                                                "+U[1, 1, 4, 12, 32, 6.0, 5]")
                      .consuming_after_restore("+U[3, 1, 2, 8, 31, 9.0, 3]",
                                               "+U[2, 1, 4, 14, 57, 7.0, 7]",
                                               "+I[7, 0, 1, 7, 7, 7.0, 2]",
                                               "+U[1, 1, 4, 12, 32, 5.0, 5]")
                      .build())
    .run_sql(GROUP_BY_DISTINCT_SQL)
    .build())

# The UDAF programs (GroupAggregateTestPrograms' GROUP_BY_UDF_*), read at a later commit than
# the ones above. Flink's Java aggregate functions are rewritten in Python with the same
# behaviour in programs/_functions.py.
UDF_FLINK_COMMIT = "47a02f63da293edfcace2996d2df33db2b888564"
UDF_WITH_MERGE_SINK_SCHEMA = ("d BIGINT", "s1 BIGINT", "c1 VARCHAR", "PRIMARY KEY (d) NOT ENFORCED")
UDF_WITH_MERGE_SQL = ("INSERT INTO sink_t SELECT "
                      "e, "
                      "my_avg(e, a) as s1, "
                      "my_concat(d) as c1 "
                      "FROM source_t GROUP BY e")
UDF_WITHOUT_MERGE_SINK_SCHEMA = ("d BIGINT", "s1 BIGINT", "s2 BIGINT", "s3 BIGINT",
                                 "PRIMARY KEY (d) NOT ENFORCED")
UDF_WITHOUT_MERGE_SQL = ("INSERT INTO sink_t SELECT "
                         "e, "
                         "my_sum1(c, 10) as s1, "
                         "my_sum2(5, c) as s2, "
                         "my_avg(e, a) as s3 "
                         "FROM source_t GROUP BY e")

GROUP_BY_UDF_WITH_MERGE = (
    TableTestProgram.of("group-aggregate-udf-with-merge",
                        "validates udfs with merging using group by")
    .ported_from("GroupAggregateTestPrograms.java#GROUP_BY_UDF_WITH_MERGE", UDF_FLINK_COMMIT)
    .setup_catalog_function("my_avg", udfs.WeightedAvgWithMerge)
    .setup_temporary_system_function("my_concat", udfs.ConcatDistinctAggFunction)
    .setup_table_source(SOURCE_TWO)
    .setup_table_sink(SinkTestStep.new_builder("sink_t")
                      .add_schema(*UDF_WITH_MERGE_SINK_SCHEMA)
                      .consuming_before_restore(
                          "+I[1, 1, Hello World Like]",
                          "+I[2, 2, Hello World Its nice]",
                          "+U[2, 2, Hello World Its nice|Hello World]",
                          "+U[1, 1, Hello World Like|Hello]",
                          "+U[1, 1, Hello World Like|Hello|GHI]",
                          "+U[2, 2, Hello World Its nice|Hello World|ABC]",
                          "+U[2, 2, Hello World Its nice|Hello World|ABC|FGH]",
                          "+U[2, 2, Hello World Its nice|Hello World|ABC|FGH|CDE]",
                          "+U[2, 2, Hello World Its nice|Hello World|ABC|FGH|CDE|JKL]",
                          "+U[1, 1, Hello World Like|Hello|GHI|EFG]",
                          "+U[2, 2, Hello World Its nice|Hello World|ABC|FGH|CDE|JKL|KLM]",
                          "+I[3, 3, HIJ]",
                          "+U[1, 1, Hello World Like|Hello|GHI|EFG|DEF]",
                          "+U[3, 3, HIJ|IJK]",
                          "+U[3, 3, HIJ|IJK|BCD]")
                      .consuming_after_restore("+I[7, 7, MNO]", "+U[7, 7, MNO|XYZ]")
                      .build())
    .run_sql(UDF_WITH_MERGE_SQL)
    .build())

GROUP_BY_UDF_WITH_MERGE_MINI_BATCH = (
    TableTestProgram.of("group-aggregate-udf-with-merge-mini-batch",
                        "validates udfs with merging using group by with mini batch")
    .ported_from("GroupAggregateTestPrograms.java#GROUP_BY_UDF_WITH_MERGE_MINI_BATCH",
                 UDF_FLINK_COMMIT)
    .setup_config("table.exec.mini-batch.enabled", "true")
    .setup_config("table.exec.mini-batch.allow-latency", "10 s")
    .setup_config("table.exec.mini-batch.size", "5")
    .setup_catalog_function("my_avg", udfs.WeightedAvgWithMerge)
    .setup_temporary_system_function("my_concat", udfs.ConcatDistinctAggFunction)
    .setup_table_source(SOURCE_TWO)
    .setup_table_sink(SinkTestStep.new_builder("sink_t")
                      .add_schema(*UDF_WITH_MERGE_SINK_SCHEMA)
                      .consuming_before_restore(
                          "+I[2, 2, Hello World Its nice|Hello World|ABC|FGH|CDE|JKL]",
                          "+I[1, 1, Hello World Like|Hello|GHI|EFG]",
                          "+U[2, 2, Hello World Its nice|Hello World|ABC|FGH|CDE|JKL|KLM]",
                          "+U[1, 1, Hello World Like|Hello|GHI|EFG|DEF]",
                          "+I[3, 3, HIJ|IJK|BCD]")
                      .consuming_after_restore("+I[7, 7, MNO|XYZ]")
                      .build())
    .run_sql(UDF_WITH_MERGE_SQL)
    .build())

GROUP_BY_UDF_WITHOUT_MERGE = (
    TableTestProgram.of("group-aggregate-udf-without-merge",
                        "validates udfs without merging using group by")
    .ported_from("GroupAggregateTestPrograms.java#GROUP_BY_UDF_WITHOUT_MERGE", UDF_FLINK_COMMIT)
    .setup_temporary_system_function("my_sum1", udfs.VarSum1AggFunction)
    .setup_catalog_function("my_avg", udfs.WeightedAvg)
    .setup_temporary_system_function("my_sum2", udfs.VarSum2AggFunction)
    .setup_table_source(SOURCE_TWO)
    .setup_table_sink(SinkTestStep.new_builder("sink_t")
                      .add_schema(*UDF_WITHOUT_MERGE_SINK_SCHEMA)
                      .consuming_before_restore(
                          "+I[1, 12, 0, 1]", "+I[2, 13, 0, 2]", "+U[2, 24, 0, 2]",
                          "+U[1, 22, 0, 1]", "+U[1, 42, 0, 1]", "+U[2, 38, 0, 2]",
                          "+U[2, 57, 0, 2]", "+U[2, 73, 0, 2]", "+U[2, 96, 0, 2]",
                          "+U[1, 60, 0, 1]", "+U[2, 120, 0, 2]", "+I[3, 21, 0, 3]",
                          "+U[1, 77, 0, 1]", "+U[3, 43, 0, 3]", "+U[3, 58, 0, 3]")
                      .consuming_after_restore(
                          "+U[1, 87, 0, 1]", "+U[2, 134, 0, 2]", "+U[2, 153, 0, 2]",
                          "+U[2, 169, 0, 2]", "+I[7, 17, 0, 7]", "+U[3, 73, 0, 3]",
                          "+U[7, 34, 0, 7]")
                      .build())
    .run_sql(UDF_WITHOUT_MERGE_SQL)
    .build())

GROUP_BY_UDF_WITHOUT_MERGE_MINI_BATCH = (
    TableTestProgram.of("group-aggregate-udf-without-merge-mini-batch",
                        "validates udfs without merging using group by with mini batch")
    .ported_from("GroupAggregateTestPrograms.java#GROUP_BY_UDF_WITHOUT_MERGE_MINI_BATCH",
                 UDF_FLINK_COMMIT)
    .setup_config("table.exec.mini-batch.enabled", "true")
    .setup_config("table.exec.mini-batch.allow-latency", "10 s")
    .setup_config("table.exec.mini-batch.size", "5")
    .setup_temporary_system_function("my_sum1", udfs.VarSum1AggFunction)
    .setup_catalog_function("my_avg", udfs.WeightedAvg)
    .setup_temporary_system_function("my_sum2", udfs.VarSum2AggFunction)
    .setup_table_source(SOURCE_TWO)
    .setup_table_sink(SinkTestStep.new_builder("sink_t")
                      .add_schema(*UDF_WITHOUT_MERGE_SINK_SCHEMA)
                      .consuming_before_restore(
                          "+I[2, 24, 0, 2]", "+I[1, 42, 0, 1]", "+U[2, 96, 0, 2]",
                          "+U[1, 60, 0, 1]", "+I[3, 58, 0, 3]", "+U[2, 120, 0, 2]",
                          "+U[1, 77, 0, 1]")
                      .consuming_after_restore(
                          "+I[7, 17, 0, 7]", "+U[1, 87, 0, 1]", "+U[2, 169, 0, 2]",
                          "+U[3, 73, 0, 3]", "+U[7, 34, 0, 7]")
                      .build())
    .run_sql(UDF_WITHOUT_MERGE_SQL)
    .build())

# One phase under mini-batch (table.optimizer.agg-phase-strategy ONE_PHASE: version 2 of the
# node, Flink's MiniBatchGroupAggFunction): a phase's rows come in one micro-batch, cut into
# bundles of 3 rows; each key changes once a bundle. Bundles before: [a+10, a+5, b+7],
# [a-10, a+20, b-7], [c+1]: a's second bundle keeps its count and moves its sum (-U/+U), b's
# retracts its only row (-D, state cleared). After: [z-9 (a retraction of a key without
# state: dropped), c+1, c-1 (c's result does not change: nothing)], [b+3 (a new key again)].
# FIRST_VALUE and LAST_VALUE have no merge: with them an aggregate runs in one phase anyway.
# Checked on PyFlink 2.3 (tools/flink_compare): the before-restore changelog is Flink's, per key
# and in the order of each key's changes; the whole feed's view is Flink's (Flink fed without a
# restore cuts its bundles of 3 across the restore point, so there c's rows share a bundle with
# the first after-restore rows).
ONE_PHASE_ROWS = ("id INT", "k STRING", "v INT", "s STRING")
GROUP_BY_ONE_PHASE_MINI_BATCH = program(
    "group-aggregate-one-phase-mini-batch", "ONE_PHASE mini-batch: one change per key and "
    "bundle, retractions included, ordered aggregates too",
    [source("T", [[1, "a", 10, "x"], [2, "a", 5, "y"], [3, "b", 7, "p"],
                  {"kind": "-U", "values": [1, "a", 10, "x"]},
                  {"kind": "+U", "values": [1, "a", 20, "w"]},
                  {"kind": "-D", "values": [3, "b", 7, "p"]}, [4, "c", 1, "q"]],
            [{"kind": "-D", "values": [9, "z", 1, "n"]}, [5, "c", 1, "q"],
             {"kind": "-D", "values": [5, "c", 1, "q"]}, [6, "b", 3, "r"]],
            schema=ONE_PHASE_ROWS, changelog=True)],
    sink("S", ("k STRING", "cnt BIGINT", "total INT", "first_s STRING", "last_s STRING",
               "all_s STRING"),
         ["+I[a, 2, 15, x, y, x,y]", "+I[b, 1, 7, p, p, p]", "-U[a, 2, 15, x, y, x,y]",
          "+U[a, 2, 25, y, w, y,w]", "-D[b, 1, 7, p, p, p]", "+I[c, 1, 1, q, q, q]"],
         ["+I[b, 1, 3, r, r, r]"]),
    "INSERT INTO S SELECT k, COUNT(*), SUM(v), FIRST_VALUE(s), LAST_VALUE(s), LISTAGG(s) "
    "FROM T GROUP BY k",
    config={"table.exec.mini-batch.enabled": "true",
            "table.exec.mini-batch.allow-latency": "1 s", "table.exec.mini-batch.size": "3",
            "table.optimizer.agg-phase-strategy": "ONE_PHASE"})

# Multi-row micro-batches (`in_batches("phase")`): each phase's rows come in one batch, so the
# checkpoint holds state written by a batch with several rows of one key, processed in
# arrival order as Flink processes records.
GROUP_BY_BATCHED = (
    TableTestProgram.of("group-aggregate-batched", "several rows of one key in one micro-batch, "
                        "before and after the restore")
    .in_batches("phase")
    .setup_table_source(source("T", [[1, "a", 1], [2, "a", 2], [3, "b", 5], [4, "a", 3]],
                               [[5, "a", 4], [6, "b", 1], [7, "b", 2]]))
    .setup_table_sink(sink("S", ("k STRING", "cnt BIGINT", "total BIGINT"),
                           ["+I[a, 1, 1]", "-U[a, 1, 1]", "+U[a, 2, 3]", "+I[b, 1, 5]",
                            "-U[a, 2, 3]", "+U[a, 3, 6]"],
                           ["-U[a, 3, 6]", "+U[a, 4, 10]", "-U[b, 1, 5]", "+U[b, 2, 6]",
                            "-U[b, 2, 6]", "+U[b, 3, 8]"]))
    .run_sql("INSERT INTO S SELECT k, COUNT(*), SUM(v) FROM T GROUP BY k")
    .build())

# NULLs in the grouping key, in multi-row micro-batches (`in_batches("phase")`): NULL is a
# key like any other (SQL's GROUP BY puts NULLs in one group), alone or beside a value.
# Before the restore one batch holds two rows of (NULL, 1) and of (NULL, NULL); after it,
# those groups' accumulators come back from the checkpoint: (NULL, NULL) loses its rows to
# deletes (-D) and starts again (+I), (NULL, 1) and (a, NULL) are updated. Checked on Flink 2.3.
GROUP_BY_NULL_KEYS = (
    TableTestProgram.of("group-aggregate-null-keys", "NULLs in the grouping columns group "
                        "together, across the restore and within one micro-batch")
    .in_batches("phase")
    .setup_table_source(source("T", [[1, None, 1, 10], [2, None, 1, 20], [3, None, None, 5],
                                     [4, "a", None, 7], [5, None, None, 6]],
                               [{"kind": "-D", "values": [3, None, None, 5]}, [6, None, 1, 1],
                                {"kind": "-D", "values": [5, None, None, 6]}, [7, None, None, 2],
                                [8, "a", None, 3]],
                               schema=("id INT", "k STRING", "g INT", "v BIGINT"), changelog=True))
    .setup_table_sink(sink("S", ("k STRING", "g INT", "cnt BIGINT", "total BIGINT"),
                           ["+I[null, 1, 1, 10]", "-U[null, 1, 1, 10]", "+U[null, 1, 2, 30]",
                            "+I[null, null, 1, 5]", "+I[a, null, 1, 7]",
                            "-U[null, null, 1, 5]", "+U[null, null, 2, 11]"],
                           ["-U[null, null, 2, 11]", "+U[null, null, 1, 6]",
                            "-U[null, 1, 2, 30]", "+U[null, 1, 3, 31]", "-D[null, null, 1, 6]",
                            "+I[null, null, 1, 2]", "-U[a, null, 1, 7]", "+U[a, null, 2, 10]"]))
    .run_sql("INSERT INTO S SELECT k, g, COUNT(*), SUM(v) FROM T GROUP BY k, g")
    .build())

# SELECT DISTINCT (Flink's Aggregate over the projection: a group aggregate by every column,
# no calls) over a changelog, NULLs among the values. Before the restore: x's second row has
# the same (x, 1), emitting nothing. After it: deleting one of x's two rows of (x, 1) and
# adding y's second row of (y, 0) emit nothing; deleting the other deletes (x, 1); the NULL
# key's update moves it from (null, 1) to (null, 0).
GROUP_BY_SELECT_DISTINCT = (
    TableTestProgram.of("group-aggregate-select-distinct", "SELECT DISTINCT over a changelog: "
                        "a combination kept before the restore is deleted after it when its "
                        "last row goes")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "a STRING", "b INT")
                        .add_option("changelog-mode", "I,UB,UA,D")
                        .producing_before_restore([1, "x", 1], [2, "x", 3], [3, "y", 2],
                                                  [4, None, 5])
                        .producing_after_restore({"kind": "-D", "values": [1, "x", 1]},
                                                 [5, "y", 4],
                                                 {"kind": "-D", "values": [2, "x", 3]},
                                                 {"kind": "-U", "values": [4, None, 5]},
                                                 {"kind": "+U", "values": [4, None, 6]}).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("a STRING", "c INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[x, 1]", "+I[y, 0]", "+I[null, 1]")
                      .consuming_after_restore("-D[x, 1]", "-D[null, 1]", "+I[null, 0]").build())
    .run_sql("INSERT INTO S SELECT DISTINCT a, b % 2 AS c FROM T")
    .build())

# FIRST_VALUE, LAST_VALUE and LISTAGG (with and without a delimiter) over an insert-only
# input: NULLs skipped, one value kept for FIRST / LAST; checked on Flink 2.3
# (tools/flink_compare).
ARRIVAL_ORDER_SCHEMA = ("id INT", "k STRING", "v INT", "s STRING")
GROUP_BY_ARRIVAL_ORDER = program(
    "group-aggregate-arrival-order", "FIRST_VALUE, LAST_VALUE and LISTAGG keep the order the "
    "rows arrive in, across the restore",
    [source("T", [[1, "a", 3, "x"], [2, "a", None, "y"], [3, "b", 5, None], [4, "a", 1, "z"]],
            [[5, "b", 7, "w"], [6, "a", 2, None]], schema=ARRIVAL_ORDER_SCHEMA)],
    sink("S", ("k STRING", "f INT", "l INT", "la STRING", "lp STRING"),
         ["+I[a, 3, 3, x, x]", "-U[a, 3, 3, x, x]", "+U[a, 3, 3, x,y, x|y]",
          "+I[b, 5, 5, null, null]", "-U[a, 3, 3, x,y, x|y]", "+U[a, 3, 1, x,y,z, x|y|z]"],
         ["-U[b, 5, 5, null, null]", "+U[b, 5, 7, w, w]", "-U[a, 3, 1, x,y,z, x|y|z]",
          "+U[a, 3, 2, x,y,z, x|y|z]"]),
    "INSERT INTO S SELECT k, FIRST_VALUE(v), LAST_VALUE(v), LISTAGG(s), LISTAGG(s, '|') "
    "FROM T GROUP BY k")

# The same over an updating input (Flink's *WithRetractAggFunction): a retraction removes
# the earliest occurrence of its value, and FIRST / LAST / LISTAGG move to what is left;
# a key whose rows are all retracted is deleted. Checked on Flink 2.3.
GROUP_BY_ARRIVAL_ORDER_RETRACT = program(
    "group-aggregate-arrival-order-retract", "FIRST_VALUE, LAST_VALUE and LISTAGG over "
    "retractions remove the earliest occurrence of the retracted value",
    [source("T", [[1, "a", 3, "x"], [2, "a", 4, "y"], [3, "a", 3, "x"],
                  {"kind": "-U", "values": [1, "a", 3, "x"]},
                  {"kind": "+U", "values": [1, "a", 9, "v"]}],
            [{"kind": "-D", "values": [2, "a", 4, "y"]}, [4, "a", 4, "y"],
             {"kind": "-D", "values": [1, "a", 9, "v"]}, [5, "b", 1, "r"],
             {"kind": "-D", "values": [5, "b", 1, "r"]}],
            schema=ARRIVAL_ORDER_SCHEMA, changelog=True)],
    sink("S", ("k STRING", "f INT", "l INT", "la STRING"),
         ["+I[a, 3, 3, x]", "-U[a, 3, 3, x]", "+U[a, 3, 4, x;y]", "-U[a, 3, 4, x;y]",
          "+U[a, 3, 3, x;y;x]", "-U[a, 3, 3, x;y;x]", "+U[a, 4, 3, y;x]", "-U[a, 4, 3, y;x]",
          "+U[a, 4, 9, y;x;v]"],
         ["-U[a, 4, 9, y;x;v]", "+U[a, 3, 9, x;v]", "-U[a, 3, 9, x;v]", "+U[a, 3, 4, x;v;y]",
          "-U[a, 3, 4, x;v;y]", "+U[a, 3, 4, x;y]", "+I[b, 1, 1, r]", "-D[b, 1, 1, r]"]),
    "INSERT INTO S SELECT k, FIRST_VALUE(v), LAST_VALUE(v), LISTAGG(s, ';') FROM T GROUP BY k")

# STDDEV_POP, VAR_SAMP, STDDEV_SAMP of an INT (an INT result) and VAR_POP of a DECIMAL over an
# updating input, reduced as Flink 2.3 reduces them to its WELFORD_M2 aggregate and COUNT
# (planner/variance.py): retractions run Welford's update backwards, a key whose rows are all
# retracted is deleted, one row gives the sample variance NULL. The changelog was checked
# on Flink 2.3 (tools/flink_compare/compare_programs.py).
VARIANCE_SCHEMA = ("g STRING", "x DOUBLE", "n INT", "d DECIMAL(10, 2)")
GROUP_BY_VARIANCE = program(
    "group-aggregate-variance", "STDDEV and VARIANCE (Flink's WELFORD_M2) accumulate and "
    "retract across the restore",
    [source("T", [["a", 1.5, 1, "1.10"], ["a", 2.5, 4, "2.20"], ["b", 4.0, 3, "0.50"],
                  ["a", 7.0, 6, "3.30"]],
            [{"kind": "-U", "values": ["a", 2.5, 4, "2.20"]},
             {"kind": "+U", "values": ["a", 3.5, 5, "2.25"]},
             {"kind": "-D", "values": ["b", 4.0, 3, "0.50"]}, ["b", 1.0, 2, "0.75"],
             ["b", 9.0, 8, "0.10"]],
            schema=VARIANCE_SCHEMA, changelog=True)],
    sink("S", ("g STRING", "sp DOUBLE", "vs DOUBLE", "ss INT", "vp DECIMAL(38, 6)"),
         ["+I[a, 0.0, null, null, 0.000000]", "-U[a, 0.0, null, null, 0.000000]",
          "+U[a, 0.5, 0.5, 2, 0.302500]", "+I[b, 0.0, null, null, 0.000000]",
          "-U[a, 0.5, 0.5, 2, 0.302500]",
          "+U[a, 2.3921166824012206, 8.583333333333332, 2, 0.806667]"],
         ["-U[a, 2.3921166824012206, 8.583333333333332, 2, 0.806667]",
          "+U[a, 2.7499999999999996, 15.124999999999996, 3, 1.210000]",
          "-U[a, 2.7499999999999996, 15.124999999999996, 3, 1.210000]",
          "+U[a, 2.273030282830976, 7.749999999999998, 2, 0.807222]",
          "-D[b, 0.0, null, null, 0.000000]", "+I[b, 0.0, null, null, 0.000000]",
          "-U[b, 0.0, null, null, 0.000000]", "+U[b, 4.0, 32.0, 4, 0.105625]"]),
    "INSERT INTO S SELECT g, STDDEV_POP(x), VAR_SAMP(x), STDDEV_SAMP(n), VAR_POP(d) FROM T "
    "GROUP BY g")

# Split distinct aggregation (table.optimizer.distinct-agg.split.enabled, without mini-batch):
# as Flink's SplitAggregateRule plans it, buckets of b (COUNT / SUM DISTINCT) and of c (MIN)
# and the keys alone (COUNT(*)) are three group sets, so an expand gives each row three copies
# under a partial aggregate by (a, bucket of b, bucket of c) and a final one by a; BIGINT's
# bucket is Flink's HASH_CODE (Long.hashCode) of -5000000000. The final aggregate's changelog
# depends on the order the partial one hands on a row's copies (planner/split_distinct.py),
# so the sink is compared materialized, as Flink's changelog for it is not one to copy either
# (PyFlink 2.3 shows COUNT(*) passing through 0 between a row's copies). Expected views:
# PyFlink 2.3 on the same rows.
GROUP_BY_SPLIT_DISTINCT = program(
    "group-aggregate-split-distinct", "distinct aggregates split by buckets into a partial and "
    "a final aggregate across the restore",
    [source("T", [[1, 10, "x"], [1, 10, "a"], [2, 5, "q"], [1, 20, "b"]],
            [[2, 5, "p"], [1, 30, "c"], [3, -5000000000, "z"]],
            schema=("a INT", "b BIGINT", "c STRING"))],
    sink("S", ("a INT", "cd BIGINT", "sd BIGINT", "mc STRING", "n BIGINT",
               "PRIMARY KEY (a) NOT ENFORCED"),
         ["+I[1, 2, 30, a, 3]", "+I[2, 1, 5, q, 1]"],
         ["+I[1, 3, 60, a, 4]", "+I[2, 1, 5, p, 2]", "+I[3, 1, -5000000000, z, 1]"],
         materialized=True),
    "INSERT INTO S SELECT a, COUNT(DISTINCT b), SUM(DISTINCT b), MIN(c), COUNT(*) FROM T "
    "GROUP BY a", config={"table.optimizer.distinct-agg.split.enabled": "true"})

# A filter on the aggregate's key between it and an upsert sink keyed by it: a key's rows all
# pass or all fail it, so it needs no -U (Flink's isNonUpsertKeyCondition) and the aggregate
# sends none; a filter on another column would. Rows: PyFlink 2.3 (tools/flink_compare).
GROUP_AGGREGATE_KEY_FILTER_INTO_UPSERT_SINK = (
    TableTestProgram.of("group-aggregate-key-filter-into-upsert-sink", "an aggregate filtered "
                        "on its key into a sink keyed by it gets no -U, as in Flink")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v INT")
                        .producing_before_restore(["a", 1], ["b", 2], ["a", 3], ["c", 4],
                                                  ["b", 5], ["a", 6])
                        .producing_after_restore(["c", 7], ["b", 8], ["d", 9], ["c", 1])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "n BIGINT", "s INT", "PRIMARY KEY (k) NOT ENFORCED")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 1, 1]", "+U[a, 2, 4]", "+I[c, 1, 4]",
                                                "+U[a, 3, 10]")
                      .consuming_after_restore("+U[c, 2, 11]", "+I[d, 1, 9]", "+U[c, 3, 12]")
                      .build())
    .run_sql("INSERT INTO S SELECT k, n, s FROM (SELECT k, COUNT(*) AS n, SUM(v) AS s FROM T "
             "GROUP BY k) WHERE k <> 'b'")
    .build())

PROGRAMS = [GROUP_AGGREGATE_KEY_FILTER_INTO_UPSERT_SINK, GROUP_BY_SIMPLE, GROUP_BY_UPSERT_SINK, GROUP_BY_DISTINCT, GROUP_BY_HAVING,
            GROUP_BY_GLOBAL, GROUP_BY_RETRACT_INPUT, GROUP_BY_OF_AGGREGATE, GROUP_BY_TYPES,
            GROUP_AGGREGATE_STATE_TTL_HINT, GROUP_BY_STATE_TTL_EXPIRES, GROUP_BY_FILTER,
            GROUP_BY_DISTINCT_RETRACT, GROUP_BY_BATCHED, AGG_WITH_STATE_TTL_HINT,
            GROUP_BY_NULL_KEYS, GROUP_BY_SIMPLE_MINI_BATCH, GROUP_BY_DISTINCT_MINI_BATCH,
            GROUP_BY_UDF_WITH_MERGE, GROUP_BY_UDF_WITHOUT_MERGE, GROUP_BY_UDF_WITH_MERGE_MINI_BATCH,
            GROUP_BY_SELECT_DISTINCT, GROUP_BY_ARRIVAL_ORDER, GROUP_BY_ARRIVAL_ORDER_RETRACT,
            GROUP_BY_VARIANCE, GROUP_BY_SPLIT_DISTINCT, GROUP_BY_UDF_WITHOUT_MERGE_MINI_BATCH,
            GROUP_BY_ONE_PHASE_MINI_BATCH, GROUP_BY_OF_AGGREGATE_BATCHED]

# Statements that must be refused (Flink's runFailingSql): the gate checks the error type and
# its message; no fixtures.
GROUP_BY_REFUSES_AGGREGATE_IN_FILTER = (
    TableTestProgram.of("group-aggregate-refuses-aggregate-in-filter", "a FILTER condition is "
                        "over the input columns: an aggregate inside it is refused by name")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v INT").build())
    .setup_table_sink(SinkTestStep.new_builder("A").add_schema("k STRING", "total INT")
                      .add_option("sink-insert-only", "false").consuming_before_restore().build())
    .run_failing_sql("INSERT INTO A SELECT k, SUM(v) FILTER (WHERE COUNT(*) > 1) FROM T GROUP BY k",
                     UnsupportedSqlError, "aggregate COUNT(*) in the FILTER of SUM(v)")
    .build())

# A UDAF over an updating input must retract (Flink's AggregateFunction contract): one
# without retract is refused, naming the function.
GROUP_BY_REFUSES_UDAF_WITHOUT_RETRACT = (
    TableTestProgram.of("group-aggregate-refuses-udaf-without-retract", "a user-defined "
                        "aggregate function without retract over an updating input is refused")
    .setup_catalog_function("my_avg", udfs.WeightedAvg)
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v INT").build())
    .setup_table_sink(SinkTestStep.new_builder("A").add_schema("n BIGINT", "a BIGINT")
                      .add_option("sink-insert-only", "false").consuming_before_restore().build())
    .run_failing_sql("INSERT INTO A SELECT c, my_avg(c, c) FROM "
                     "(SELECT k, COUNT(*) AS c FROM T GROUP BY k) GROUP BY c",
                     PlanningError, "(programs._functions:WeightedAvg) has no retract method")
    .build())

FAILING_PROGRAMS = [GROUP_BY_REFUSES_AGGREGATE_IN_FILTER, GROUP_BY_REFUSES_UDAF_WITHOUT_RETRACT]
