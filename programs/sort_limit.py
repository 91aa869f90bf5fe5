"""Table test programs for stream-exec-sort-limit: `ORDER BY ... LIMIT n`, a global top-N kept
as Flink keeps it: a rank under a constant key (AppendOnlyTopNFunction over insert-only
input). A row entering the top N is inserted and the one it pushes out deleted, across the
restore as before it."""
from harness import SinkTestStep, SourceTestStep, TableTestProgram

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# The top 2 of the rows before the restore: the row after it displaces the smaller.
TINY = (
    TableTestProgram.of("sort-limit-tiny", "a row after the restore displaces one of the top 2")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "v INT")
                        .producing_before_restore([1, 10], [2, 30])
                        .producing_after_restore([3, 20]).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("id INT", "v INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[1, 10]", "+I[2, 30]")
                      .consuming_after_restore("-D[1, 10]", "+I[3, 20]").build())
    .run_sql("INSERT INTO S SELECT id, v FROM T ORDER BY v DESC LIMIT 2")
    .build())

# --- Flink's own programs (SortTestPrograms.java, which also holds SORT_ASC and SORT_DESC,
# stream-exec-sort programs: not ported, see docs/flink-programs.md), transcribed as they
# are: SQL, schemas, rows and expected strings. Flink's RestoreTestBase registers every sink
# with 'sink-insert-only' = 'false'; ported_from gives these sinks the same.
FLINK_COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"

DATA = ([2, "a", 6], [4, "b", 8], [6, "c", 10], [1, "a", 5], [3, "b", 7], [5, "c", 9])


def _source(after: tuple) -> SourceTestStep:
    return (SourceTestStep.new_builder("source_t").add_schema("a INT", "b VARCHAR", "c INT")
            .producing_before_restore(*DATA).producing_after_restore(*after).build())


SORT_LIMIT_ASC = (
    TableTestProgram.of("sort-limit-asc",
                        "validates sort limit node by sorting integers in asc mode")
    .ported_from("SortTestPrograms.java#SORT_LIMIT_ASC", FLINK_COMMIT)
    # replaces (3, b, 7) from beforeRestore; ignored since greater than (2, a, 6); replaces
    # (2, a, 6) from beforeRestore
    .setup_table_source(_source(([2, "a", 6], [4, "b", 8], [1, "a", 5])))
    .setup_table_sink(
        SinkTestStep.new_builder("sink_t")
        .add_schema("a INT", "b VARCHAR", "c BIGINT")
        .consuming_before_restore("+I[2, a, 6]", "+I[4, b, 8]", "+I[6, c, 10]", "-D[6, c, 10]",
                                  "+I[1, a, 5]", "-D[4, b, 8]", "+I[3, b, 7]")
        .consuming_after_restore("-D[3, b, 7]", "+I[2, a, 6]", "-D[2, a, 6]", "+I[1, a, 5]")
        .build())
    .run_sql("INSERT INTO sink_t SELECT * from source_t ORDER BY a LIMIT 3")
    .build())

SORT_LIMIT_DESC = (
    TableTestProgram.of("sort-limit-desc",
                        "validates sort limit node by sorting integers in desc mode")
    .ported_from("SortTestPrograms.java#SORT_LIMIT_DESC", FLINK_COMMIT)
    # ignored since smaller than the least max (4, b, 8); replaces (4, b, 8) from
    # beforeRestore; ignored since not larger than the least max (5, c, 9)
    .setup_table_source(_source(([2, "a", 6], [6, "c", 10], [5, "c", 9])))
    .setup_table_sink(
        SinkTestStep.new_builder("sink_t")
        .add_schema("a INT", "b VARCHAR", "c BIGINT")
        .consuming_before_restore("+I[2, a, 6]", "+I[4, b, 8]", "+I[6, c, 10]", "-D[2, a, 6]",
                                  "+I[3, b, 7]", "-D[3, b, 7]", "+I[5, c, 9]")
        .consuming_after_restore("-D[4, b, 8]", "+I[6, c, 10]")
        .build())
    .run_sql("INSERT INTO sink_t SELECT * from source_t ORDER BY a DESC LIMIT 3")
    .build())

# ORDER BY a column the SELECT list leaves out: carried to the sort and dropped after it (as
# Calcite plans it); ties on the sort key keep their arrival order. Checked on Flink 2.3.
SORT_LIMIT_BY_UNSELECTED_COLUMN = (
    TableTestProgram.of("sort-limit-by-unselected-column", "the top 2 by a column the query "
                        "does not select, across the restore")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "name STRING",
                                                                    "score INT")
                        .producing_before_restore([1, "ann", 50], [2, "bob", 70], [3, "cy", 60])
                        .producing_after_restore([4, "dee", 65], [5, "eve", 40]).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("id INT", "name STRING")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[1, ann]", "+I[2, bob]", "-D[1, ann]",
                                                "+I[3, cy]")
                      .consuming_after_restore("-D[3, cy]", "+I[4, dee]").build())
    .run_sql("INSERT INTO S SELECT id, name FROM T ORDER BY score DESC LIMIT 2")
    .build())

# ORDER BY an aggregate's COUNT: Flink's UpdateFastStrategy for the sort-limit too (a COUNT
# only grows; the aggregate sends no -U). Rows: PyFlink 2.3 (tools/flink_compare).
SORT_LIMIT_UPDATE_FAST_OF_COUNT = (
    TableTestProgram.of("sort-limit-update-fast-of-count", "the 2 keys with the largest COUNT "
                        "(Flink's UpdateFastStrategy): a growing count moves a key in")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING")
                        .producing_before_restore(["a"], ["b"], ["a"], ["c"], ["c"], ["c"])
                        .producing_after_restore(["b"], ["b"], ["d"], ["a"], ["a"]).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "cnt BIGINT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[a, 1]", "+I[b, 1]", "-U[a, 1]", "+U[a, 2]",
                                                "-D[b, 1]", "+I[c, 2]", "-U[c, 2]", "+U[c, 3]")
                      .consuming_after_restore("-D[a, 2]", "+I[b, 3]", "-D[b, 3]", "+I[a, 4]")
                      .build())
    .run_sql("INSERT INTO S SELECT k, cnt FROM (SELECT k, COUNT(*) AS cnt FROM T GROUP BY k) "
             "ORDER BY cnt DESC LIMIT 2")
    .build())

PROGRAMS = [SORT_LIMIT_ASC, SORT_LIMIT_DESC, SORT_LIMIT_BY_UNSELECTED_COLUMN,
            SORT_LIMIT_UPDATE_FAST_OF_COUNT]
