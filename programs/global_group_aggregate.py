"""Table test programs for stream-exec-global-group-aggregate (Flink's GlobalGroupAggregate,
the second phase of a mini-batch aggregate): per key it merges the local accumulators of a
bundle (`table.exec.mini-batch.size` local rows of a micro-batch) into its state and emits
one change per bundle; a result that did not change emits nothing. Its state crosses the
restore. Flink's mini-batch programs of GroupAggregateTestPrograms are in group_aggregate.py
(their ids are Flink's); IncrementalGroupAggregateTestPrograms' are here.
"""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram, advance_processing_time

from ._mini_batch import mini_batch


# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# An upsert sink: no -U; the maximum kept before the restore is updated after it.
TINY = (
    mini_batch(TableTestProgram.of("global-group-aggregate-tiny", "a maximum kept before the "
                                   "restore is updated after it, on an upsert sink"), 5)
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v INT")
                        .producing_before_restore(["a", 1])
                        .producing_after_restore(["a", 2]).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "mx INT", "PRIMARY KEY (k) NOT ENFORCED")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 1]")
                      .consuming_after_restore("+U[a, 2]").build())
    .run_sql("INSERT INTO S SELECT k, MAX(v) FROM T GROUP BY k")
    .build())

# Size 2 on an upsert sink (no -U). Before the restore: local bundle 1 (a, b) is the global
# aggregate's first bundle, bundle 2 (a's 1 and 3) its second: a is inserted, then updated.
# After it: b's second 2 leaves its result as it was (nothing emitted); c is inserted; b's 4
# (the second global bundle) updates it.
GLOBAL_GROUP_AGGREGATE_DISTINCT = (
    mini_batch(TableTestProgram.of("global-group-aggregate-distinct", "COUNT(DISTINCT) and AVG "
                                   "merged per bundle of two; an unchanged result emits "
                                   "nothing"), 2)
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v BIGINT")
                        .producing_before_restore(["a", 1], ["b", 2], ["a", 1], ["a", 3])
                        .producing_after_restore(["b", 2], ["c", 5], ["b", 4]).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "dv BIGINT", "av BIGINT",
                                  "PRIMARY KEY (k) NOT ENFORCED")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 1, 1]", "+I[b, 1, 2]", "+U[a, 2, 1]")
                      .consuming_after_restore("+I[c, 1, 5]", "+U[b, 2, 2]").build())
    .run_sql("INSERT INTO S SELECT k, COUNT(DISTINCT v), AVG(v) FROM T GROUP BY k")
    .build())

# The state TTL (table.exec.state.ttl, 1 d) expires across the restore (Flink's
# MiniBatchGlobalGroupAggFunction: StateTtlConfig, on create and write, expired state never
# returned): key a's accumulator is written at t, key b's at t + 12 h; after the restore the
# clock is at t + 30 h, past a's day and within b's. a starts again (+I); b is updated.
GLOBAL_GROUP_AGGREGATE_STATE_TTL_EXPIRES = (
    mini_batch(TableTestProgram.of("global-group-aggregate-state-ttl-expires", "an "
                                   "accumulator merged before the restore expires after it: its "
                                   "key starts again; a younger one is updated"), 1)
    .setup_config("table.exec.state.ttl", "1 d")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v BIGINT")
                        .producing_before_restore(["a", 1], advance_processing_time("12 h"),
                                                  ["b", 2])
                        .producing_after_restore(advance_processing_time("18 h"), ["a", 3],
                                                 ["b", 4]).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "cnt BIGINT", "total BIGINT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 1, 1]", "+I[b, 1, 2]")
                      .consuming_after_restore("+I[a, 1, 3]", "-U[b, 1, 2]", "+U[b, 2, 6]")
                      .build())
    .run_sql("INSERT INTO S SELECT k, COUNT(*), SUM(v) FROM T GROUP BY k")
    .build())

# STDDEV and VARIANCE in a mini-batch aggregate (Flink 2.3: WELFORD_M2 and COUNT in the local
# and the global aggregate). Bundles of two rows, a phase a micro-batch: the local aggregate
# accumulates a bundle's rows of a key (Welford's update), the global one merges the
# accumulators (WelfordM2AggFunction.merge) before and after the restore; c's one row gives
# the sample variance NULL. The values keep every mean and m2 exact in binary, so the results
# are the same however the rows are cut into bundles (the gate's semantic run cuts them
# otherwise): with retractions they are not, in Flink either (a retraction alone in a bundle
# merges as a negative count; tests/test_mini_batch_aggregate_core.py). Expected rows:
# PyFlink 2.3 on the same rows.
GLOBAL_GROUP_AGGREGATE_VARIANCE = (
    mini_batch(TableTestProgram.of("global-group-aggregate-variance", "STDDEV and VARIANCE "
                                   "(WELFORD_M2) accumulated per bundle and merged across the "
                                   "restore"), 2)
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("g STRING", "x DOUBLE")
                        .producing_before_restore(["a", 1.0], ["a", 3.0], ["b", 2.0], ["b", 6.0])
                        .producing_after_restore(["a", 5.0], ["a", 7.0], ["b", 4.0], ["c", 1.0])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("g STRING", "sp DOUBLE", "vs DOUBLE", "n BIGINT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[b, 2.0, 8.0, 2]", "+I[a, 1.0, 2.0, 2]")
                      .consuming_after_restore("-U[b, 2.0, 8.0, 2]",
                                               "+U[b, 1.632993161855452, 4.0, 3]",
                                               "-U[a, 1.0, 2.0, 2]",
                                               "+U[a, 2.23606797749979, 6.666666666666667, 4]",
                                               "+I[c, 0.0, null, 1]").build())
    .run_sql("INSERT INTO S SELECT g, STDDEV_POP(x), VAR_SAMP(x), COUNT(x) FROM T GROUP BY g")
    .build())

PROGRAMS = [GLOBAL_GROUP_AGGREGATE_DISTINCT, GLOBAL_GROUP_AGGREGATE_STATE_TTL_EXPIRES,
            GLOBAL_GROUP_AGGREGATE_VARIANCE]
