"""Table test programs for stream-exec-incremental-group-aggregate (Flink's
IncrementalGroupAggregate): split distinct aggregation under mini-batch. Between a partial
local aggregate (grouped by the keys and the distinct arguments' buckets) and a final global
one, it merges a bundle's local accumulators per partial key through its distinct views and
emits what the bundle changed; the views cross the restore.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram
from harness import changelog_row as kind

from ._mini_batch import mini_batch


def split(builder, size: int):
    """`builder` with mini-batch bundles of `size` rows and the distinct split."""
    return (mini_batch(builder, size)
            .setup_config("table.optimizer.distinct-agg.split.enabled", "true"))


# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# A value seen before the restore is not counted again after it: the view crossed it.
TINY = (
    split(TableTestProgram.of("incremental-group-aggregate-tiny", "a distinct value kept "
                              "before the restore is not counted again after it"), 1)
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v INT")
                        .producing_before_restore(["a", 1])
                        .producing_after_restore(["a", 1], ["a", 2]).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "n BIGINT", "PRIMARY KEY (k) NOT ENFORCED")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 1]")
                      .consuming_after_restore("+U[a, 2]").build())
    .run_sql("INSERT INTO S SELECT k, COUNT(DISTINCT v) FROM T GROUP BY k")
    .build())

# --- Flink's own programs (IncrementalGroupAggregateTestPrograms.java), transcribed as they
# are: SQL, schemas, rows and expected strings. Flink's RestoreTestBase registers every sink
# with 'sink-insert-only' = 'false'; ported_from gives these sinks the same. They enable
# table.optimizer.distinct-agg.split.enabled with mini-batch bundles of one row.
FLINK_COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"

BEFORE_DATA = ([1, 1, "hi"], [2, 2, "hello"], [3, 2, "hello world"])
AFTER_DATA = ([3, 2, "foo"], [4, 4, "bar"], [5, 2, "foo bar"])
SOURCE_SCHEMA = ("a INT", "b BIGINT", "c VARCHAR")


def incremental_source():
    return (SourceTestStep.new_builder("source_t").add_schema(*SOURCE_SCHEMA)
            .producing_before_restore(*BEFORE_DATA).producing_after_restore(*AFTER_DATA).build())


INCREMENTAL_GROUP_AGGREGATE_SIMPLE = (
    TableTestProgram.of("incremental-group-aggregate-simple",
                        "validates incremental group aggregation")
    .ported_from("IncrementalGroupAggregateTestPrograms.java#INCREMENTAL_GROUP_AGGREGATE_SIMPLE",
                 FLINK_COMMIT)
    .setup_table_source(incremental_source())
    .setup_config("table.exec.mini-batch.enabled", "true")
    .setup_config("table.exec.mini-batch.allow-latency", "10 s")
    .setup_config("table.exec.mini-batch.size", "1")
    .setup_config("table.optimizer.distinct-agg.split.enabled", "true")
    .setup_table_sink(SinkTestStep.new_builder("sink_t").add_schema("b BIGINT", "a BIGINT")
                      .consuming_before_restore("+I[1, 1]", "+I[2, 1]", "-U[2, 1]", "+U[2, 2]")
                      .consuming_after_restore("-U[2, 2]", "+U[2, 3]", "+I[4, 1]").build())
    .run_sql("INSERT INTO sink_t\n"
             "     SELECT\n"
             "         b,\n"
             "         COUNT(DISTINCT a) AS a\n"
             "     FROM source_t\n"
             "     GROUP BY b")
    .build())

# Its split aggregate reads another aggregate's updates. With bundles of one row Flink flushes
# every operator after each row, so rows cross the pipeline one at a time in the source's
# order; in a micro-batch of a whole phase the inner aggregate (a Spark stateful node) would
# hand on its three keys in its own order. One row a micro-batch is Flink's delivery here.
INCREMENTAL_GROUP_AGGREGATE_COMPLEX = (
    TableTestProgram.of("incremental-group-aggregate-complex",
                        "validates incremental group aggregation with multiple aggregations")
    .in_batches("row")
    .ported_from("IncrementalGroupAggregateTestPrograms.java#INCREMENTAL_GROUP_AGGREGATE_COMPLEX",
                 FLINK_COMMIT)
    .setup_table_source(incremental_source())
    .setup_config("table.exec.mini-batch.enabled", "true")
    .setup_config("table.exec.mini-batch.allow-latency", "10 s")
    .setup_config("table.exec.mini-batch.size", "1")
    .setup_config("table.optimizer.distinct-agg.split.enabled", "true")
    .setup_table_sink(SinkTestStep.new_builder("sink_t")
                      .add_schema("b BIGINT", "sum_b BIGINT", "cnt_distinct_b BIGINT",
                                  "cnt_1 BIGINT")
                      .consuming_before_restore("+I[1, 1, 1, 1]", "-U[1, 1, 1, 1]",
                                                "+U[1, 3, 2, 2]", "-U[1, 3, 2, 2]",
                                                "+U[1, 5, 2, 3]")
                      .consuming_after_restore("-U[1, 5, 2, 3]", "+U[1, 3, 2, 2]",
                                               "+I[2, 2, 1, 1]", "-U[1, 3, 2, 2]",
                                               "+U[1, 7, 3, 3]", "-U[1, 7, 3, 3]",
                                               "+U[1, 9, 3, 4]").build())
    .run_sql("INSERT INTO sink_t SELECT\n"
             "         b,\n"
             "         SUM(b1) AS sum_b,\n"
             "         COUNT(DISTINCT b1) AS cnt_distinct_b,\n"
             "         COUNT(1) AS cnt_1\n"
             "     FROM\n"
             "         (\n"
             "             SELECT\n"
             "                     a,\n"
             "                     COUNT(b) AS b,\n"
             "                     MAX(b) AS b1\n"
             "             FROM source_t GROUP BY a\n"
             "         )\n"
             "     GROUP BY b")
    .build())



# Two distinct arguments (an expand of a copy per bucket set), MAX hashed with a's bucket and
# COUNT(*) by the keys alone, over a changelog source, bundles of one row. The views cross the
# restore: a's 2 (deleted after it) and b's 1 (inserted again after it) were seen before it,
# so deleting the one retracts it from COUNT(DISTINCT) and the other is not counted twice.
# Expected rows: PyFlink 2.3 on the same rows (tools/flink_compare).
INCREMENTAL_GROUP_AGGREGATE_RETRACT = (
    split(TableTestProgram.of("incremental-group-aggregate-retract", "distinct views of two "
                              "arguments retract and count across the restore over a "
                              "changelog source"), 1)
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "a INT", "b BIGINT")
                        .add_option("changelog-mode", "I,UB,UA,D")
                        .producing_before_restore(["a", 1, 10], ["a", 2, 10], ["b", 1, 5],
                                                  kind("-D", "a", 1, 10))
                        .producing_after_restore(["a", 3, 20], ["b", 1, 5],
                                                 kind("-D", "a", 2, 10), ["a", 2, 30]).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "da BIGINT", "sb BIGINT", "ma INT", "n BIGINT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore(
                          "+I[a, 1, null, 1, 0]", "-U[a, 1, null, 1, 0]", "+U[a, 1, 10, 1, 0]",
                          "-U[a, 1, 10, 1, 0]", "+U[a, 1, 10, 1, 1]", "-U[a, 1, 10, 1, 1]",
                          "+U[a, 2, 10, 2, 1]", "-U[a, 2, 10, 2, 1]", "+U[a, 2, 10, 2, 2]",
                          "+I[b, 1, null, 1, 0]", "-U[b, 1, null, 1, 0]", "+U[b, 1, 5, 1, 0]",
                          "-U[b, 1, 5, 1, 0]", "+U[b, 1, 5, 1, 1]", "-U[a, 2, 10, 2, 2]",
                          "+U[a, 1, 10, 2, 2]", "-U[a, 1, 10, 2, 2]", "+U[a, 1, 10, 2, 1]")
                      .consuming_after_restore(
                          "-U[a, 1, 10, 2, 1]", "+U[a, 2, 10, 3, 1]", "-U[a, 2, 10, 3, 1]",
                          "+U[a, 2, 30, 3, 1]", "-U[a, 2, 30, 3, 1]", "+U[a, 2, 30, 3, 2]",
                          "-U[b, 1, 5, 1, 1]", "+U[b, 1, 5, 1, 2]", "-U[a, 2, 30, 3, 2]",
                          "+U[a, 1, 30, 3, 2]", "-U[a, 1, 30, 3, 2]", "+U[a, 1, 20, 3, 2]",
                          "-U[a, 1, 20, 3, 2]", "+U[a, 1, 20, 3, 1]", "-U[a, 1, 20, 3, 1]",
                          "+U[a, 2, 20, 3, 1]", "-U[a, 2, 20, 3, 1]", "+U[a, 2, 50, 3, 1]",
                          "-U[a, 2, 50, 3, 1]", "+U[a, 2, 50, 3, 2]").build())
    .run_sql("INSERT INTO S SELECT k, COUNT(DISTINCT a), SUM(DISTINCT b), MAX(a), COUNT(*) "
             "FROM T GROUP BY k")
    .build())

PROGRAMS = [INCREMENTAL_GROUP_AGGREGATE_SIMPLE, INCREMENTAL_GROUP_AGGREGATE_COMPLEX,
            INCREMENTAL_GROUP_AGGREGATE_RETRACT]

NOT_PASSING: dict[str, str] = {}
