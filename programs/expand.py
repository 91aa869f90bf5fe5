"""Table test programs for stream-exec-expand (Flink's StreamExecExpand): no state of its own;
each row becomes one row per grouping set under an aggregate with GROUPING SETS, ROLLUP or
CUBE, with the expand id `$e` that keeps a set's NULL apart from a NULL key. What crosses the
restore is the aggregate's state, keyed by the keys and `$e`. The window aggregate's grouping
sets are in window_aggregate.py and global_window_aggregate.py.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram
from harness import changelog_row as kind
from streamplan.errors import PlanningError, UnsupportedSqlError



# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
TINY = (
    TableTestProgram.of("expand-tiny", "a per-key count and a total kept before the restore "
                        "are both updated after it")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING")
                        .producing_before_restore(["a"]).producing_after_restore(["a"]).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "n BIGINT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 1]", "+I[null, 1]")
                      .consuming_after_restore("-U[a, 1]", "+U[a, 2]", "-U[null, 1]",
                                               "+U[null, 2]").build())
    .run_sql("INSERT INTO S SELECT k, COUNT(*) FROM T GROUP BY ROLLUP(k)")
    .build())

# CUBE(a, b): sets (a, b), (a), (b), () with expand ids 0, 1, 2, 3, in that order per row
# (Flink's). A NULL a (row 3) and a NULL b (row 5) are keys of their own, apart from the
# sets' NULLs: GROUPING_ID tells them apart, and so does the aggregate's state (keyed by $e).
# After the restore every set's group of row 4 is one kept before it.
EXPAND_CUBE = (
    TableTestProgram.of("expand-cube", "CUBE(a, b) with GROUPING_ID: NULL keys apart from "
                        "the sets' NULLs; groups kept before the restore updated after it")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("a STRING", "b STRING", "v INT")
                        .producing_before_restore(["x", "p", 1], ["x", "q", 2], [None, "p", 4])
                        .producing_after_restore(["x", "p", 8], ["y", None, 16]).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("a STRING", "b STRING", "g BIGINT", "cnt BIGINT", "total INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore(
                          "+I[x, p, 0, 1, 1]", "+I[x, null, 1, 1, 1]", "+I[null, p, 2, 1, 1]",
                          "+I[null, null, 3, 1, 1]",
                          "+I[x, q, 0, 1, 2]", "-U[x, null, 1, 1, 1]", "+U[x, null, 1, 2, 3]",
                          "+I[null, q, 2, 1, 2]", "-U[null, null, 3, 1, 1]",
                          "+U[null, null, 3, 2, 3]",
                          "+I[null, p, 0, 1, 4]", "+I[null, null, 1, 1, 4]",
                          "-U[null, p, 2, 1, 1]", "+U[null, p, 2, 2, 5]",
                          "-U[null, null, 3, 2, 3]", "+U[null, null, 3, 3, 7]")
                      .consuming_after_restore(
                          "-U[x, p, 0, 1, 1]", "+U[x, p, 0, 2, 9]", "-U[x, null, 1, 2, 3]",
                          "+U[x, null, 1, 3, 11]", "-U[null, p, 2, 2, 5]", "+U[null, p, 2, 3, 13]",
                          "-U[null, null, 3, 3, 7]", "+U[null, null, 3, 4, 15]",
                          "+I[y, null, 0, 1, 16]", "+I[y, null, 1, 1, 16]",
                          "+I[null, null, 2, 1, 16]", "-U[null, null, 3, 4, 15]",
                          "+U[null, null, 3, 5, 31]").build())
    .run_sql("INSERT INTO S SELECT a, b, GROUPING_ID(a, b), COUNT(*), SUM(v) FROM T "
             "GROUP BY CUBE(a, b)")
    .build())

# ROLLUP(a, b) over a changelog: sets (a, b), (a), () (expand ids 0, 1, 3). Updates and
# deletes after the restore retract what rows before it added, through every set: the
# (x, p) group is deleted, the others updated. COUNT(a) counts the argument a, which the
# expand does not null (Flink's duplicate field: a key that is also an argument).
EXPAND_ROLLUP_RETRACT = (
    TableTestProgram.of("expand-rollup-retract", "ROLLUP(a, b) with GROUPING(b) over a "
                        "changelog: updates and deletes after the restore retract through "
                        "every set")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("id INT", "a STRING", "b STRING", "v INT")
                        .add_option("changelog-mode", "I,UB,UA,D")
                        .producing_before_restore([1, "x", "p", 1], [2, "x", "q", 2])
                        .producing_after_restore(kind("-U", 1, "x", "p", 1),
                                                 kind("+U", 1, "x", "q", 5),
                                                 kind("-D", 2, "x", "q", 2)).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("a STRING", "b STRING", "g BIGINT", "cnt BIGINT", "total INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore(
                          "+I[x, p, 0, 1, 1]", "+I[x, null, 1, 1, 1]", "+I[null, null, 1, 1, 1]",
                          "+I[x, q, 0, 1, 2]", "-U[x, null, 1, 1, 1]", "+U[x, null, 1, 2, 3]",
                          "-U[null, null, 1, 1, 1]", "+U[null, null, 1, 2, 3]")
                      .consuming_after_restore(
                          "-D[x, p, 0, 1, 1]", "-U[x, null, 1, 2, 3]", "+U[x, null, 1, 1, 2]",
                          "-U[null, null, 1, 2, 3]", "+U[null, null, 1, 1, 2]",
                          "-U[x, q, 0, 1, 2]", "+U[x, q, 0, 2, 7]", "-U[x, null, 1, 1, 2]",
                          "+U[x, null, 1, 2, 7]", "-U[null, null, 1, 1, 2]",
                          "+U[null, null, 1, 2, 7]",
                          "-U[x, q, 0, 2, 7]", "+U[x, q, 0, 1, 5]", "-U[x, null, 1, 2, 7]",
                          "+U[x, null, 1, 1, 5]", "-U[null, null, 1, 2, 7]",
                          "+U[null, null, 1, 1, 5]").build())
    .run_sql("INSERT INTO S SELECT a, b, GROUPING(b), COUNT(a), SUM(v) FROM T "
             "GROUP BY ROLLUP(a, b)")
    .build())

# --- Flink's own program (ExpandTestPrograms.java), transcribed as it is: SQL, schemas, rows
# and expected strings. Flink's RestoreTestBase registers every sink with
# 'sink-insert-only' = 'false'; ported_from gives this sink the same.
FLINK_COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"

EXPAND = (
    TableTestProgram.of("expand", "validates expand node")
    .ported_from("ExpandTestPrograms.java#EXPAND", FLINK_COMMIT)
    .setup_config("table.optimizer.agg-phase-strategy", "ONE_PHASE")
    .setup_config("table.optimizer.distinct-agg.split.enabled", "true")
    .setup_config("table.optimizer.incremental-agg-enabled", "false")
    .setup_table_source(SourceTestStep.new_builder("MyTable")
                        .add_schema("a int", "b bigint", "c varchar")
                        .producing_before_restore([1, 1, "Hi"], [2, 2, "Hello"],
                                                  [2, 3, "Hello world"])
                        .producing_after_restore([5, 6, "Hello there"]).build())
    .setup_table_sink(SinkTestStep.new_builder("MySink")
                      .add_schema("b bigint", "a bigint", "c varchar",
                                  "primary key (b) not enforced")
                      .consuming_before_restore("+I[1, 1, null]", "+U[1, 1, Hi]",
                                                "+I[2, 1, null]", "+U[2, 1, Hello]",
                                                "+U[2, 2, Hello]")
                      .consuming_after_restore("+I[5, 1, null]", "+U[5, 1, Hello there]")
                      .build())
    .run_sql("insert into MySink select a, count(distinct b) as b, first_value(c) c "
             "from MyTable group by a")
    .build())

# Split distinct aggregation with FIRST_VALUE and LAST_VALUE, a phase a micro-batch: each row
# becomes two copies (one per bucket set), the partial aggregate's keys of one micro-batch are
# many, and the final aggregate must take their results in the expand's order for the first
# and last values to be Flink's. After the restore the final aggregate's kept first values
# stay, the last values move on. Checked on Flink 2.3 (tools/flink_compare).
EXPAND_SPLIT_FIRST_LAST_VALUE = (
    TableTestProgram.of("expand-split-first-last-value-batched", "COUNT(DISTINCT) with "
                        "FIRST_VALUE and LAST_VALUE split into a partial and a final aggregate, "
                        "several rows of a key a micro-batch, across the restore")
    .in_batches("phase")
    .setup_config("table.optimizer.distinct-agg.split.enabled", "true")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("a INT", "b BIGINT", "c STRING")
                        .producing_before_restore([1, 1, "Hello world"], [1, 2, "Hello"],
                                                  [2, 1, "Hi"], [1, 1, "Hello there"])
                        .producing_after_restore([2, 3, "Hi"], [1, 3, "x"], [3, 1, "Hello"],
                                                 [2, 3, "Hello world"]).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("a INT", "cd BIGINT", "fv STRING", "lv STRING",
                                  "PRIMARY KEY (a) NOT ENFORCED")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore(
                          "+I[1, 1, null, null]", "+U[1, 1, Hello world, Hello world]",
                          "+U[1, 2, Hello world, Hello world]", "+U[1, 2, Hello world, Hello]",
                          "+I[2, 1, null, null]", "+U[2, 1, Hi, Hi]",
                          "+U[1, 2, Hello world, Hello there]")
                      .consuming_after_restore(
                          "+U[2, 2, Hi, Hi]", "+U[1, 3, Hello world, Hello there]",
                          "+U[1, 3, Hello world, x]", "+I[3, 1, null, null]",
                          "+U[3, 1, Hello, Hello]", "+U[2, 2, Hi, Hello world]").build())
    .run_sql("INSERT INTO S SELECT a, COUNT(DISTINCT b), FIRST_VALUE(c), LAST_VALUE(c) FROM T "
             "GROUP BY a")
    .build())

PROGRAMS = [EXPAND_CUBE, EXPAND_ROLLUP_RETRACT, EXPAND,
            EXPAND_SPLIT_FIRST_LAST_VALUE]

# Statements that must be refused (Flink's runFailingSql): the gate checks the error type and
# its message; no fixtures.
EXPAND_REFUSES_REPEATED_SET = (
    TableTestProgram.of("expand-refuses-repeated-set", "a grouping set named twice is refused "
                        "by name (Flink adds GROUP_ID and a union)")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("a STRING", "v INT").build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("a STRING", "total INT")
                      .add_option("sink-insert-only", "false").consuming_before_restore().build())
    .run_failing_sql("INSERT INTO S SELECT a, SUM(v) FROM T GROUP BY GROUPING SETS ((a), (a), ())",
                     UnsupportedSqlError, "the grouping set (a) more than once")
    .build())

EXPAND_REFUSES_GROUPING_OF_NON_KEY = (
    TableTestProgram.of("expand-refuses-grouping-of-non-key", "GROUPING of a column that is no "
                        "GROUP BY key is an error naming it")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("a STRING", "v INT").build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("a STRING", "g BIGINT")
                      .add_option("sink-insert-only", "false").consuming_before_restore().build())
    .run_failing_sql("INSERT INTO S SELECT a, GROUPING(v) FROM T GROUP BY ROLLUP(a)",
                     PlanningError, "the argument v of GROUPING(v) is not a GROUP BY key")
    .build())

FAILING_PROGRAMS = [EXPAND_REFUSES_REPEATED_SET, EXPAND_REFUSES_GROUPING_OF_NON_KEY]
