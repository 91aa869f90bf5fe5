"""Table test programs for stream-exec-union: UNION ALL of streams, every row with its kind
(Flink's StreamExecUnion has no operator and no state); UNION (distinct) is a union under a
group aggregate on every column."""
from harness import SinkTestStep, SourceTestStep, TableTestProgram

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
TINY = (
    TableTestProgram.of("union-tiny", "rows of both inputs before and after the restore")
    .setup_table_source(SourceTestStep.new_builder("L").add_schema("id INT", "v STRING")
                        .producing_before_restore([1, "l"]).producing_after_restore([3, "l"])
                        .build())
    .setup_table_source(SourceTestStep.new_builder("R").add_schema("id BIGINT", "v STRING")
                        .producing_before_restore([2, "r"]).producing_after_restore([4, "r"])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("id BIGINT", "v STRING")
                      .consuming_before_restore("+I[1, l]", "+I[2, r]")
                      .consuming_after_restore("+I[3, l]", "+I[4, r]").build())
    .run_sql("INSERT INTO S SELECT id, v FROM L UNION ALL SELECT id, v FROM R")
    .build())

# --- Flink's own programs (UnionTestPrograms.java), transcribed as they are: SQL, schemas,
# rows and expected strings (Row.of(...) is "+I[...]"). Flink's RestoreTestBase registers
# every sink with 'sink-insert-only' = 'false'; ported_from gives these sinks the same.
# LocalDateTime.of(2023, 12, 16, 01, 01, 01, 123) is 123 nanoseconds past the second: in a
# TIMESTAMP(3) column it is .000 (the column is never selected).
FLINK_COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"

UNION_TWO_SOURCES = (
    TableTestProgram.of("union-two-sources", "validates union of 2 tables")
    .ported_from("UnionTestPrograms.java#UNION_TWO_SOURCES", FLINK_COMMIT)
    .setup_table_source(
        SourceTestStep.new_builder("source_t1")
        .add_schema("a BIGINT", "b INT NOT NULL", "c VARCHAR", "d TIMESTAMP(3)")
        .producing_before_restore([420, 1, "hello", "2023-12-16 01:01:01"])
        .producing_after_restore([420, 1, "hello", "2023-12-16 01:01:01"],
                                 [600, 6, "hello there", "2023-12-19 01:01:01"])
        .build())
    .setup_table_source(
        SourceTestStep.new_builder("source_t2")
        .add_schema("d BIGINT", "e INT NOT NULL")
        .producing_before_restore([420, 1], [421, 2])
        .producing_after_restore([500, 3], [420, 1])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("sink_t1_union_t2")
        .add_schema("a BIGINT", "b INT")
        .consuming_before_restore("+I[420, 1]", "+I[421, 2]")
        .consuming_after_restore("+I[600, 6]", "+I[500, 3]")
        .build())
    .run_sql("INSERT INTO sink_t1_union_t2 SELECT * FROM (SELECT a, b FROM source_t1) UNION "
             "(SELECT d, e FROM source_t2)")
    .build())

UNION_ALL_TWO_SOURCES = (
    TableTestProgram.of("union-all-two-sources", "validates union all of 2 tables")
    .ported_from("UnionTestPrograms.java#UNION_ALL_TWO_SOURCES", FLINK_COMMIT)
    .setup_table_source(
        SourceTestStep.new_builder("source_t1")
        .add_schema("a BIGINT", "b INT NOT NULL", "c VARCHAR", "d TIMESTAMP(3)")
        .producing_before_restore([420, 1, "hello", "2023-12-16 01:01:01"])
        .producing_after_restore([600, 6, "hello there", "2023-12-19 01:01:01"])
        .build())
    .setup_table_source(
        SourceTestStep.new_builder("source_t2")
        .add_schema("d BIGINT", "e INT NOT NULL")
        .producing_before_restore([420, 1], [421, 2])
        .producing_after_restore([500, 3], [421, 2])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("sink_t1_union_all_t2")
        .add_schema("a BIGINT", "b INT")
        .consuming_before_restore("+I[420, 1]", "+I[420, 1]", "+I[421, 2]")
        .consuming_after_restore("+I[600, 6]", "+I[500, 3]", "+I[421, 2]")
        .build())
    .run_sql("INSERT INTO sink_t1_union_all_t2 SELECT * FROM (SELECT a, b FROM source_t1) UNION "
             "ALL (SELECT d, e FROM source_t2)")
    .build())

UNION_ALL_WITH_FILTER = (
    TableTestProgram.of("union-all-with-filter", "validates union all of 2 tables with filters")
    .ported_from("UnionTestPrograms.java#UNION_ALL_WITH_FILTER", FLINK_COMMIT)
    .setup_table_source(
        SourceTestStep.new_builder("source_t1")
        .add_schema("a INT", "b VARCHAR", "c INT")
        .producing_before_restore([2, "a", 6], [4, "b", 8], [6, "c", 10])
        .producing_after_restore([1, "a", 5], [3, "b", 7], [5, "c", 9])
        .build())
    .setup_table_source(
        SourceTestStep.new_builder("source_t2")
        .add_schema("a INT", "b VARCHAR", "c INT")
        .producing_before_restore([0, "a", 6], [7, "b", 8], [8, "c", 10])
        .producing_after_restore([1, "a", 5], [13, "b", 7], [50, "c", 9])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("sink_t1_union_all_t2")
        .add_schema("a INT", "b VARCHAR", "c INT")
        .consuming_before_restore("+I[0, a, 6]", "+I[4, b, 8]", "+I[6, c, 10]")
        .consuming_after_restore("+I[1, a, 5]", "+I[3, b, 7]", "+I[5, c, 9]")
        .build())
    .run_sql("INSERT INTO sink_t1_union_all_t2 (SELECT * FROM source_t1 where a >=3) UNION ALL "
             "(select * from source_t2 where a <= 3)")
    .build())

PROGRAMS = [UNION_TWO_SOURCES, UNION_ALL_TWO_SOURCES, UNION_ALL_WITH_FILTER]
