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


# --- Flink's own programs (TableSourceScanTestPrograms.java), transcribed as they are: SQL,
# schemas, options, rows and expected strings; DateTimeUtils.toLocalDateTime(epoch millis) is
# written as that instant's UTC local date-time. Flink's rows carry a fourth value (a
# timestamp) that a table of three physical columns never reads: Flink's values source reads
# a row's physical values, then its metadata values ('readable-metadata', ordered by key),
# and ignores the rest (`ignoring_extra_values`). Flink's RestoreTestBase registers every
# sink with 'sink-insert-only' = 'false'; ported_from gives these sinks the same.
FLINK_COMMIT = "bf63127aaa34a5863bccfe0e019b8d6036c7f9c0"

BEFORE_DATA = ([1, 1, "hi", "2020-04-15 08:00:01"],
               [2, 2, "hello", "2020-04-15 08:00:02"],
               [3, 2, "hello world", "2020-04-15 08:00:03"])
AFTER_DATA = ([4, 4, "foo", "2020-04-15 08:00:14"],
              [5, 2, "foo bar", "2020-04-15 08:00:15"])


def flink_source(schema, options=(), partition_keys=()):
    source = (SourceTestStep.new_builder("source_t").add_schema(*schema)
              .add_partition_keys(*partition_keys))
    for key, value in options:
        source = source.add_option(key, value)
    return (source.ignoring_extra_values().producing_before_restore(*BEFORE_DATA)
            .producing_after_restore(*AFTER_DATA).build())


def flink_sink(name, schema, before, after):
    return (SinkTestStep.new_builder(name).add_schema(*schema)
            .consuming_before_restore(*before).consuming_after_restore(*after).build())


def flink_program(id, description, constant, source, sinks, sql):
    program = (TableTestProgram.of(id, description)
               .ported_from(f"TableSourceScanTestPrograms.java#{constant}", FLINK_COMMIT)
               .setup_table_source(source))
    for sink in sinks:
        program = program.setup_table_sink(sink)
    if isinstance(sql, tuple):
        return program.run_statement_set(*sql).build()
    return program.run_sql(sql).build()


PROJECT_PUSHDOWN = flink_program(
    "table-source-scan-project-pushdown", "validates table source scan with project pushdown",
    "PROJECT_PUSHDOWN", flink_source(("a INT", "b BIGINT", "c VARCHAR")),
    [flink_sink("sink_t", ("a INT", "b VARCHAR"),
                ("+I[1, hi]", "+I[2, hello]", "+I[3, hello world]"),
                ("+I[4, foo]", "+I[5, foo bar]"))],
    "INSERT INTO sink_t SELECT a, c FROM source_t")

PROJECT_PUSHDOWN_DISABLED = flink_program(
    "table-source-scan-project-push-down-disabled",
    "validates table source scan with project pushdown disabled", "PROJECT_PUSHDOWN_DISABLED",
    flink_source(("a INT", "b BIGINT", "c VARCHAR", "ts TIMESTAMP(3) METADATA"),
                 (("readable-metadata", "ts:TIMESTAMP(3)"),
                  ("enable-projection-push-down", "false"))),
    [flink_sink("sink_t", ("a INT", "c VARCHAR"),
                ("+I[1, hi]", "+I[2, hello]", "+I[3, hello world]"),
                ("+I[4, foo]", "+I[5, foo bar]"))],
    "INSERT INTO sink_t SELECT a, c FROM source_t")

FILTER_PUSHDOWN = flink_program(
    "table-source-scan-filter-pushdown", "validates table source scan with filter pushdown",
    "FILTER_PUSHDOWN",
    flink_source(("a INT", "b BIGINT", "c VARCHAR"), (("filterable-fields", "a"),)),
    [flink_sink("sink_t", ("a INT", "b BIGINT", "c VARCHAR"),
                ("+I[2, 2, hello]", "+I[3, 2, hello world]"),
                ("+I[4, 4, foo]", "+I[5, 2, foo bar]"))],
    "INSERT INTO sink_t SELECT * FROM source_t WHERE a > 1")

LIMIT_PUSHDOWN = flink_program(
    "table-source-scan-limit-pushdown", "validates table source scan with limit pushdown",
    "LIMIT_PUSHDOWN", flink_source(("a INT", "b BIGINT", "c VARCHAR")),
    [flink_sink("sink_t", ("a INT", "b BIGINT", "c VARCHAR"),
                ("+I[1, 1, hi]", "+I[2, 2, hello]"), ())],
    "INSERT INTO sink_t SELECT a, b, c FROM source_t LIMIT 2")

PARTITION_PUSHDOWN = flink_program(
    "table-source-scan-partition-pushdown", "validates table source scan with partition pushdown",
    "PARTITION_PUSHDOWN",
    flink_source(("a INT", "b BIGINT", "c VARCHAR"), (("partition-list", "b:1,b:2"),),
                 partition_keys=("b",)),
    [flink_sink("sink_t", ("a INT", "b BIGINT", "c VARCHAR"),
                ("+I[2, 2, hello]", "+I[3, 2, hello world]"), ("+I[5, 2, foo bar]",))],
    "INSERT INTO sink_t SELECT a, b, c FROM source_t WHERE b = 2")

READING_METADATA = flink_program(
    "table-source-scan-reading-metadata", "validates table source scan by reading metadata",
    "READING_METADATA",
    flink_source(("a INT", "b BIGINT", "c VARCHAR", "d TIMESTAMP(3) METADATA"),
                 (("readable-metadata", "d:TIMESTAMP(3)"),)),
    [flink_sink("sink_t", ("a INT", "c VARCHAR", "d TIMESTAMP(3)"),
                ("+I[1, hi, 2020-04-15T08:00:01]", "+I[2, hello, 2020-04-15T08:00:02]",
                 "+I[3, hello world, 2020-04-15T08:00:03]"),
                ("+I[4, foo, 2020-04-15T08:00:14]", "+I[5, foo bar, 2020-04-15T08:00:15]"))],
    "INSERT INTO sink_t SELECT a, c, d FROM source_t")

MULTIPLE_PUSHDOWNS = flink_program(
    "table-source-scan-multiple-pushdowns", "validates table source scan with multiple pushdowns",
    "MULTIPLE_PUSHDOWNS",
    flink_source(("a INT", "b BIGINT", "c VARCHAR", "ts TIMESTAMP(3) METADATA",
                  "watermark for ts as ts - interval '1' second"),
                 (("readable-metadata", "ts:TIMESTAMP(3)"), ("filterable-fields", "a"),
                  ("enable-watermark-push-down", "true"), ("disable-lookup", "true"),
                  ("partition-list", "b:1;b:2;b:3;b:4;b:5;b:6"))),
    [flink_sink("sink_t", ("a INT",), ("+I[3]",), ("+I[5]",))],
    "INSERT INTO sink_t SELECT a FROM source_t WHERE b = 2 AND a > 2")

SOURCE_WATERMARK = flink_program(
    "table-source-scan-source-watermark", "validates table source scan using source watermark",
    "SOURCE_WATERMARK",
    flink_source(("a INT", "b BIGINT", "c VARCHAR", "ts TIMESTAMP(3) METADATA",
                  "watermark for ts as SOURCE_WATERMARK()"),
                 (("readable-metadata", "ts:TIMESTAMP(3)"), ("enable-watermark-push-down", "true"),
                  ("disable-lookup", "true"))),
    [flink_sink("sink_t", ("a INT", "c VARCHAR"),
                ("+I[1, hi]", "+I[2, hello]", "+I[3, hello world]"),
                ("+I[4, foo]", "+I[5, foo bar]"))],
    "INSERT INTO sink_t SELECT a, c FROM source_t")

REUSE_SOURCE = flink_program(
    "table-source-scan-reuse-source",
    "validates table source scan by verifying if source is resused", "REUSE_SOURCE",
    flink_source(("a INT", "b BIGINT", "c VARCHAR", "d TIMESTAMP(3)"),
                 (("enable-projection-push-down", "false"),)),
    [flink_sink("sink_one_t", ("a INT", "c VARCHAR"),
                ("+I[1, hi]", "+I[2, hello]", "+I[3, hello world]"),
                ("+I[4, foo]", "+I[5, foo bar]")),
     flink_sink("sink_two_t", ("a INT", "b BIGINT"), ("+I[1, 1]", "+I[2, 2]", "+I[3, 2]"),
                ("+I[4, 4]", "+I[5, 2]"))],
    ("INSERT INTO sink_one_t SELECT a, c FROM source_t",
     "INSERT INTO sink_two_t SELECT a, b FROM source_t"))

PROGRAMS = [TABLE_SOURCE_SCAN_CHANGELOG, TABLE_SOURCE_SCAN_STATEMENT_SET, PROJECT_PUSHDOWN,
            PROJECT_PUSHDOWN_DISABLED, FILTER_PUSHDOWN, PARTITION_PUSHDOWN, READING_METADATA,
            MULTIPLE_PUSHDOWNS, SOURCE_WATERMARK, REUSE_SOURCE]

# Ported, not passing yet: kept as Flink wrote it, out of PROGRAMS (the table in
# docs/flink-programs.md).
NOT_PASSING = {
    LIMIT_PUSHDOWN.id: "LIMIT: Flink plans it as stream-exec-limit (a rank without partition "
                       "key and without row number, over the limit pushed into the source); "
                       "that exec node is not implemented here",
}
