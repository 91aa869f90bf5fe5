"""Table test programs for stream-exec-limit: `LIMIT n` without ORDER BY, the first n rows to
arrive, kept as Flink keeps them: a rank under a constant key. Rows after the n-th, before or
after a restore, are dropped."""
from harness import SinkTestStep, SourceTestStep, TableTestProgram

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# The one row let through before the restore fills the limit: the row after it is dropped.
TINY = (
    TableTestProgram.of("limit-tiny", "a limit filled before the restore drops rows after it")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "v STRING")
                        .producing_before_restore([1, "a"]).producing_after_restore([2, "b"])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("id INT", "v STRING")
                      .consuming_before_restore("+I[1, a]").consuming_after_restore().build())
    .run_sql("INSERT INTO S SELECT id, v FROM T LIMIT 1")
    .build())

# --- Flink's own program (LimitTestPrograms.java), transcribed as it is: SQL, schemas, rows
# and expected strings (Row.of(...) is "+I[...]"). Flink's RestoreTestBase registers every
# sink with 'sink-insert-only' = 'false'; ported_from gives this sink the same.
FLINK_COMMIT = "6082923fb831df0ef986097b5b8ab2218f058a58"

DATA1 = ([2, "a", 6], [4, "b", 8], [6, "c", 10], [1, "a", 5], [3, "b", 7], [5, "c", 9])
DATA2 = ([8, "d", 3], [7, "e", 2])

LIMIT = (
    TableTestProgram.of("limit", "validates limit node")
    .ported_from("LimitTestPrograms.java#LIMIT", FLINK_COMMIT)
    .setup_table_source(
        SourceTestStep.new_builder("source_t")
        .add_schema("a INT", "b VARCHAR", "c INT")
        .producing_before_restore(*DATA1)
        .producing_after_restore(*DATA2)
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("sink_t")
        .add_schema("a INT", "b VARCHAR", "c BIGINT")
        .consuming_before_restore("+I[2, a, 6]", "+I[4, b, 8]", "+I[6, c, 10]")
        .consuming_after_restore()
        .build())
    .run_sql("INSERT INTO sink_t SELECT * from source_t LIMIT 3")
    .build())

PROGRAMS = [LIMIT]
