"""Table test programs for stream-exec-local-group-aggregate (Flink's LocalGroupAggregate,
the first phase of a mini-batch aggregate): per bundle of `table.exec.mini-batch.size` rows
of a micro-batch, one accumulator row per key, retractions folded in. It keeps no state: what
crosses the restore is the global aggregate's, which its rows feed.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram
from harness import changelog_row as kind



# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# Size 1: every row its own bundle, as without mini-batch.
TINY = (
    TableTestProgram.of("local-group-aggregate-tiny", "bundles of one row: a count kept before "
                        "the restore is updated after it")
    .setup_config("table.exec.mini-batch.enabled", "true")
    .setup_config("table.exec.mini-batch.allow-latency", "1 s")
    .setup_config("table.exec.mini-batch.size", "1")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING")
                        .producing_before_restore(["a"], ["a"])
                        .producing_after_restore(["a"]).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "n BIGINT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 1]", "-U[a, 1]", "+U[a, 2]")
                      .consuming_after_restore("-U[a, 2]", "+U[a, 3]").build())
    .run_sql("INSERT INTO S SELECT k, COUNT(*) FROM T GROUP BY k")
    .build())

# Size 3 over a changelog source. Before the restore: bundle 1 (ids 1, 2, 3) gives a's and
# b's accumulators, bundle 2 (the update of id 1) a's retraction of 10 and its 4; the global
# aggregate's bundle (three local rows) merges both of a's: one +I each. After it: bundle 1
# (delete b, insert c, delete id 3) empties b (-D), inserts c, and takes a to one row; bundle
# 2 (id 5) is the global aggregate's second bundle: a's second update.
LOCAL_GROUP_AGGREGATE_RETRACT = (
    TableTestProgram.of("local-group-aggregate-retract", "bundles of three rows with updates and "
                        "deletes folded into each key's accumulator")
    .setup_config("table.exec.mini-batch.enabled", "true")
    .setup_config("table.exec.mini-batch.allow-latency", "5 s")
    .setup_config("table.exec.mini-batch.size", "3")
    .setup_config("table.optimizer.agg-phase-strategy", "TWO_PHASE")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "k STRING", "v INT")
                        .add_option("changelog-mode", "I,UB,UA,D")
                        .producing_before_restore([1, "a", 10], [2, "b", 5], [3, "a", 7],
                                                  kind("-U", 1, "a", 10), kind("+U", 1, "a", 4))
                        .producing_after_restore(kind("-D", 2, "b", 5), [4, "c", 1],
                                                 kind("-D", 3, "a", 7), [5, "a", 2]).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "cnt BIGINT", "total INT", "mx INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 2, 11, 7]", "+I[b, 1, 5, 5]")
                      .consuming_after_restore("-D[b, 1, 5, 5]", "+I[c, 1, 1, 1]",
                                               "-U[a, 2, 11, 7]", "+U[a, 1, 4, 4]",
                                               "-U[a, 1, 4, 4]", "+U[a, 2, 6, 4]").build())
    .run_sql("INSERT INTO S SELECT k, COUNT(*), SUM(v), MAX(v) FROM T GROUP BY k")
    .build())

PROGRAMS = [LOCAL_GROUP_AGGREGATE_RETRACT]
