"""Table test programs for stream-exec-values: a VALUES clause as a source. Its tuples are
emitted once, by the query's first micro-batch; a restored query does not emit them again
(a finished Flink source is not run again when its job is restored)."""
from harness import SinkTestStep, SourceTestStep, TableTestProgram

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# The VALUES row is emitted before the restore, and not again after it.
TINY = (
    TableTestProgram.of("values-tiny", "VALUES rows are emitted once, not again after a restore")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "v STRING")
                        .producing_before_restore([1, "t"]).producing_after_restore([2, "t"])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("id INT", "v STRING")
                      .consuming_before_restore("+I[1, t]", "+I[0, v]")
                      .consuming_after_restore("+I[2, t]").build())
    .run_sql("INSERT INTO S SELECT id, v FROM T UNION ALL SELECT * FROM (VALUES (0, 'v')) AS "
             "c(id, v)")
    .build())

# --- Flink's own program (ValuesTestPrograms.java), transcribed as it is. Flink's
# consumedValues(...) is consumedBeforeRestore(...); its ValuesRestoreTest runs the plan
# without a savepoint (AfterRestoreSource.NO_RESTORE) and expects nothing after the rows.
FLINK_COMMIT = "a11e2b2cfb85f9efb6f1646fdd2e2e8fcdae765e"

VALUES_TEST = (
    TableTestProgram.of("values-test", "validates values node")
    .ported_from("ValuesTestPrograms.java#VALUES_TEST", FLINK_COMMIT)
    .setup_table_sink(
        SinkTestStep.new_builder("sink_t")
        .add_schema("b INT", "a INT", "c VARCHAR")
        .consuming_before_restore("+I[1, 2, Hi]", "+I[3, 4, Hello]")
        .build())
    .run_sql("INSERT INTO sink_t SELECT * FROM (VALUES (1, 2, 'Hi'), (3, 4, 'Hello'))")
    .build())

# CAST(literal AS type) in VALUES, as Calcite folds it into a literal of that type: typed NULLs
# (the usual way to give a VALUES column NULLs) and exact casts. The rows were printed by Flink
# 2.3 (tools/flink_compare).
VALUES_TYPED_LITERALS = (
    TableTestProgram.of("values-typed-literals", "VALUES with typed NULLs and literals cast to "
                        "their column's type")
    .setup_table_sink(
        SinkTestStep.new_builder("Typed")
        .add_schema("a INT", "b BIGINT", "c STRING", "d DECIMAL(5, 2)", "e DOUBLE")
        .consuming_before_restore("+I[1, 2, null, 2.00, 1.0]", "+I[2, null, x, 1.50, 2.5]")
        .build())
    .run_sql("INSERT INTO Typed SELECT a, b, c, d, e FROM (VALUES (1, CAST(2 AS BIGINT), "
             "CAST(NULL AS STRING), CAST(2 AS DECIMAL(5, 2)), CAST(1 AS DOUBLE)), (2, CAST(NULL AS "
             "BIGINT), 'x', CAST(1.5 AS DECIMAL(5, 2)), 2.5e0)) AS t(a, b, c, d, e)")
    .build())

PROGRAMS = [VALUES_TEST, VALUES_TYPED_LITERALS]
