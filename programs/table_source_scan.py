"""Programs for stream-exec-table-source-scan: changelog and insert-only values sources."""
from harness import SinkTestStep, SourceTestStep, TableTestProgram

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# Resuming from the checkpoint's offsets: the restored run reads only the after-restore row.
TINY = (
    TableTestProgram.of("table-source-scan-tiny", "a restored scan continues after its offset")
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "v STRING")
                        .producing_before_restore([1, "a"])
                        .producing_after_restore([2, "b"]).build())
    .setup_table_sink(SinkTestStep.new_builder("Out").add_schema("id INT", "v STRING")
                      .consuming_before_restore("+I[1, a]")
                      .consuming_after_restore("+I[2, b]").build())
    .run_sql("INSERT INTO Out SELECT * FROM T")
    .build())

TABLE_SOURCE_SCAN_CHANGELOG = (
    TableTestProgram.of("table-source-scan-changelog",
                        "a 'I,UB,UA,D' source read unchanged into a changelog sink")
    .setup_table_source(
        SourceTestStep.new_builder("Users")
        .add_schema("id INT", "name STRING")
        .add_option("changelog-mode", "I,UB,UA,D")
        .producing_before_restore([1, "ann"], [2, "bo"],
                                  {"kind": "-U", "values": [1, "ann"]},
                                  {"kind": "+U", "values": [1, "anna"]})
        .producing_after_restore({"kind": "-D", "values": [2, "bo"]}, [3, "cy"])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("UsersCopy")
        .add_schema("id INT", "name STRING")
        .add_option("sink-insert-only", "false")
        .consuming_before_restore("+I[1, ann]", "+I[2, bo]", "-U[1, ann]", "+U[1, anna]")
        .consuming_after_restore("-D[2, bo]", "+I[3, cy]")
        .build())
    .run_sql("INSERT INTO UsersCopy SELECT * FROM Users")
    .build())

TABLE_SOURCE_SCAN_STATEMENT_SET = (
    TableTestProgram.of("table-source-scan-statement-set",
                        "an insert-only source scanned by two INSERTs of one statement set")
    .setup_table_source(
        SourceTestStep.new_builder("Clicks")
        .add_schema("id INT", "url STRING", "t TIMESTAMP(3)")
        .producing_before_restore([1, "/a", "2024-01-01 10:00:00"], [2, "/b", "2024-01-01 10:00:01"])
        .producing_after_restore([3, "/c", "2024-01-01 10:00:02.500"])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("AllClicks")
        .add_schema("id INT", "url STRING", "t TIMESTAMP(3)")
        .consuming_before_restore("+I[1, /a, 2024-01-01T10:00]", "+I[2, /b, 2024-01-01T10:00:01]")
        .consuming_after_restore("+I[3, /c, 2024-01-01T10:00:02.500]")
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("ClickIds")
        .add_schema("id INT", "t TIMESTAMP(3)")
        .consuming_before_restore("+I[1, 2024-01-01T10:00]", "+I[2, 2024-01-01T10:00:01]")
        .consuming_after_restore("+I[3, 2024-01-01T10:00:02.500]")
        .build())
    .run_statement_set("INSERT INTO AllClicks SELECT * FROM Clicks",
                       "INSERT INTO ClickIds SELECT id, t FROM Clicks")
    .build())

PROGRAMS = [TABLE_SOURCE_SCAN_CHANGELOG, TABLE_SOURCE_SCAN_STATEMENT_SET]
