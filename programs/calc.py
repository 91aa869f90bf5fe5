"""Programs for stream-exec-calc: projections and filters evaluated by Spark; row kinds pass through."""
from decimal import Decimal

from harness import SinkTestStep, SourceTestStep, TableTestProgram

from . import _functions as udfs

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
def calc_program(after_expected: str = "+I[2, B]", before_expected: str = "+I[1, A]",
                 before_value: str = "a") -> TableTestProgram:
    return (TableTestProgram.of("calc-tiny", "upper-cases one column")
            .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "v STRING")
                                .producing_before_restore([1, before_value])
                                .producing_after_restore([2, "b"]).build())
            .setup_table_sink(SinkTestStep.new_builder("Out").add_schema("id INT", "v STRING")
                              .consuming_before_restore(before_expected)
                              .consuming_after_restore(after_expected).build())
            .run_sql("INSERT INTO Out SELECT id, UPPER(v) FROM T")
            .build())


CALC_PROGRAM = calc_program()

TINY = CALC_PROGRAM

CALC_PROJECTION_FILTER = (
    TableTestProgram.of("calc-projection-filter",
                        "projection with CAST, CASE and Spark built-ins, and a filter")
    .setup_table_source(
        SourceTestStep.new_builder("Orders")
        .add_schema("id BIGINT", "customer STRING", "amount DECIMAL(10, 2)", "qty INT")
        .producing_before_restore([1, "alice", "10.50", 2], [2, None, "5.00", 1],
                                  [3, "bob", "0.50", 20])
        .producing_after_restore([4, "carol", "3.25", 10], [5, "dave", "1.00", 1])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("Totals")
        .add_schema("id BIGINT", "customer STRING", "total DECIMAL(12, 2)", "size STRING",
                    "tag STRING")
        .consuming_before_restore("+I[1, ALICE, 21.00, single, alice-1]")
        .consuming_after_restore("+I[4, CAROL, 32.50, bulk, carol-4]")
        .build())
    .run_sql("INSERT INTO Totals SELECT id, UPPER(customer), CAST(amount * qty AS DECIMAL(12, 2)), "
             "CASE WHEN qty >= 10 THEN 'bulk' ELSE 'single' END, "
             "CONCAT_WS('-', customer, CAST(id AS STRING)) "
             "FROM Orders WHERE amount > 1 AND customer IS NOT NULL")
    .build())

CALC_CHANGELOG = (
    TableTestProgram.of("calc-changelog",
                        "a calc over a changelog source keeps each row's kind")
    .setup_table_source(
        SourceTestStep.new_builder("Prices")
        .add_schema("sku STRING", "price INT")
        .add_option("changelog-mode", "I,UB,UA,D")
        .producing_before_restore(["a", 1], ["b", 5],
                                  {"kind": "-U", "values": ["a", 1]},
                                  {"kind": "+U", "values": ["a", 3]})
        .producing_after_restore({"kind": "-D", "values": ["b", 5]}, ["c", -1], ["d", 2])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("Doubled")
        .add_schema("sku STRING", "price INT")
        .add_option("sink-insert-only", "false")
        .consuming_before_restore("+I[a, 2]", "+I[b, 10]", "-U[a, 2]", "+U[a, 6]")
        .consuming_after_restore("-D[b, 10]", "+I[d, 4]")
        .build())
    .run_sql("INSERT INTO Doubled SELECT sku, price * 2 FROM Prices WHERE price > 0")
    .build())

# --- Flink's own programs (CalcTestPrograms.java), transcribed as they are: SQL, schemas,
# rows and expected strings (Row.of(...) is "+I[...]"). The file is stored at another commit
# than the other ported files, read there. Flink's RestoreTestBase registers every sink with
# 'sink-insert-only' = 'false'; ported_from gives these sinks the same. Not ported
# (docs/flink-programs.md). CALC_UDF_SIMPLE and CALC_UDF_COMPLEX are below the others: their
# Java scalar functions are rewritten in Python (programs/_functions.py).
FLINK_COMMIT = "091389e1db4b4ff7a42264681efda1e2d05ee675"


def flink_program(id, description, constant, source_schema, filterable, before, after,
                  sink_schema, expected_before, expected_after, sql, source_name="source_t"):
    source = SourceTestStep.new_builder(source_name).add_schema(*source_schema)
    if filterable is not None:
        source = source.add_option("filterable-fields", filterable)
    return (TableTestProgram.of(id, description)
            .ported_from(f"CalcTestPrograms.java#{constant}", FLINK_COMMIT)
            .setup_table_source(source.producing_before_restore(*before)
                                .producing_after_restore(*after).build())
            .setup_table_sink(SinkTestStep.new_builder("sink_t").add_schema(*sink_schema)
                              .consuming_before_restore(*expected_before)
                              .consuming_after_restore(*expected_after).build())
            .run_sql(sql)
            .build())


SIMPLE_CALC = flink_program(
    "calc-simple", "validates basic calc node", "SIMPLE_CALC", ("a BIGINT", "b DOUBLE"), None,
    [[420, 42.0]], [[421, 42.1]], ("a BIGINT", "b DOUBLE"), ["+I[421, 42.0]"], ["+I[422, 42.1]"],
    "INSERT INTO sink_t SELECT a + 1, b FROM t", source_name="t")

CALC_PROJECT_PUSHDOWN = flink_program(
    "calc-project-pushdown", "validates calc node with project pushdown",
    "CALC_PROJECT_PUSHDOWN", ("a BIGINT", "b DOUBLE"), "a", [[421, 42.1]], [[421, 42.1]],
    ("a BIGINT", "a1 VARCHAR"), ["+I[421, 421]"], ["+I[421, 421]"],
    "INSERT INTO sink_t SELECT a, CAST(a AS VARCHAR) FROM source_t WHERE a > CAST(1 AS BIGINT)")

CALC_FILTER = flink_program(
    "calc-filter", "validates calc node with filter", "CALC_FILTER",
    ("a BIGINT", "b INT", "c DOUBLE", "d VARCHAR"), None, [[420, 1, 42.0, "hello"]],
    [[420, 1, 42.0, "hello"]], ("a BIGINT", "b INT", "c DOUBLE", "d VARCHAR"),
    ["+I[420, 1, 42.0, hello]"], ["+I[420, 1, 42.0, hello]"],
    "INSERT INTO sink_t SELECT * FROM source_t WHERE b > 0")

CALC_FILTER_PUSHDOWN = flink_program(
    "calc-filter-pushdown", "validates calc node with filter pushdown", "CALC_FILTER_PUSHDOWN",
    ("a BIGINT", "b DOUBLE"), "a", [[421, 42.1]], [[421, 42.1]], ("a BIGINT", "b DOUBLE"),
    ["+I[421, 42.1]"], ["+I[421, 42.1]"],
    "INSERT INTO sink_t SELECT a, b FROM source_t WHERE a > CAST(420 AS BIGINT)")

CALC_SARG = flink_program(
    "calc-sarg", "validates calc node with Sarg", "CALC_SARG", ("a INT",), "a", [[1]], [[1]],
    ("a INT",), ["+I[1]"], ["+I[1]"],
    "INSERT INTO sink_t SELECT a FROM source_t WHERE a = 1 or a = 2 or a is null")

# A user-defined scalar function (programs/_functions.py) in the projection and the filter:
# the plan names it by identity and class, the calc registers it in Spark (a pandas UDF)
# before it runs, in the restore as in the first run.
CALC_UDF = (
    TableTestProgram.of("calc-udf", "a user-defined scalar function (temporary system) and a "
                        "catalog one in the projection and the filter, NULLs included")
    .setup_temporary_system_function("shout", udfs.Shout)
    .setup_catalog_function("shout_too", udfs.Shout)
    .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "s STRING")
                        .producing_before_restore([1, "hi"], [2, None], [3, "no"])
                        .producing_after_restore([4, "yes"], [5, None]).build())
    .setup_table_sink(SinkTestStep.new_builder("Out").add_schema("id INT", "a STRING", "b STRING")
                      .consuming_before_restore("+I[1, HI!, HI!]", "+I[2, null, null]")
                      .consuming_after_restore("+I[4, YES!, YES!]", "+I[5, null, null]").build())
    .run_sql("INSERT INTO Out SELECT id, shout(s), shout_too(s) FROM T "
             "WHERE shout(s) IS NULL OR shout(s) <> 'NO!'")
    .build())

CALC_UDF_SIMPLE = (
    TableTestProgram.of("calc-udf-simple", "validates calc node with simple UDF")
    .ported_from("CalcTestPrograms.java#CALC_UDF_SIMPLE", FLINK_COMMIT)
    .setup_temporary_catalog_function("udf1", udfs.JavaFunc0)
    .setup_table_source(SourceTestStep.new_builder("source_t").add_schema("a INT")
                        .producing_before_restore([5]).producing_after_restore([5]).build())
    .setup_table_sink(SinkTestStep.new_builder("sink_t").add_schema("a INT", "a1 BIGINT")
                      .consuming_before_restore("+I[5, 6]")
                      .consuming_after_restore("+I[5, 6]").build())
    .run_sql("INSERT INTO sink_t SELECT a, udf1(a) FROM source_t")
    .build())

# Flink's row holds LocalDateTime.of(2023, 12, 16, 1, 1, 1, 123): 123 nanoseconds, which a
# TIMESTAMP(3) reads as 01:01:01.000. Flink's one schema string "a BIGINT, b INT NOT NULL, ..."
# is written as its four components.
CALC_UDF_COMPLEX_ROW = [5, 11, "hello world", "2023-12-16 01:01:01"]
CALC_UDF_COMPLEX = (
    TableTestProgram.of("calc-udf-complex", "validates calc node with complex UDFs")
    .ported_from("CalcTestPrograms.java#CALC_UDF_COMPLEX", FLINK_COMMIT)
    .setup_temporary_catalog_function("udf1", udfs.JavaFunc0)
    .setup_temporary_catalog_function("udf2", udfs.JavaFunc1)
    .setup_temporary_system_function("udf3", udfs.JavaFunc2)
    .setup_temporary_system_function("udf4", udfs.UdfWithOpen)
    .setup_catalog_function("udf5", udfs.JavaFunc5)
    .setup_table_source(SourceTestStep.new_builder("source_t")
                        .add_schema("a BIGINT", "b INT NOT NULL", "c VARCHAR", "d TIMESTAMP(3)")
                        .producing_before_restore(CALC_UDF_COMPLEX_ROW)
                        .producing_after_restore(CALC_UDF_COMPLEX_ROW).build())
    .setup_table_sink(SinkTestStep.new_builder("sink_t")
                      .add_schema("a BIGINT", "a1 VARCHAR", "b INT NOT NULL", "b1 VARCHAR",
                                  "c1 VARCHAR", "c2 VARCHAR", "d1 TIMESTAMP(3)")
                      .consuming_before_restore("+I[5, 5, 11, 11 and 11 and 1702688461000, "
                                                "hello world11, $hello, 2023-12-16T01:01]")
                      .consuming_after_restore("+I[5, 5, 11, 11 and 11 and 1702688461000, "
                                               "hello world11, $hello, 2023-12-16T01:01]")
                      .build())
    .run_sql("INSERT INTO sink_t SELECT "
             "a, "
             "cast(a as VARCHAR) as a1, "
             "b, "
             "udf2(b, b, d) as b1, "
             "udf3(c, b) as c1, "
             "udf4(substring(c, 1, 5)) as c2, "
             "udf5(d, 1000) as d1 "
             "from source_t where "
             "(udf1(a) > 0 or (a * b) < 100) and b > 10")
    .build())

def _scalar_program(id: str, description: str, schema: tuple[str, ...], before: list,
                    after: list, sink: str, sink_schema: tuple[str, ...],
                    expected_before: list[str], expected_after: list[str], sql: str):
    """A program of scalar functions over an append-only table `Events` into `sink`."""
    return (TableTestProgram.of(id, description)
            .setup_table_source(SourceTestStep.new_builder("Events").add_schema(*schema)
                                .producing_before_restore(*before)
                                .producing_after_restore(*after).build())
            .setup_table_sink(SinkTestStep.new_builder(sink).add_schema(*sink_schema)
                              .consuming_before_restore(*expected_before)
                              .consuming_after_restore(*expected_after).build())
            .run_sql(sql)
            .build())


# DATE_FORMAT over a TIMESTAMP(3) column and over a timestamp string, with Java date
# patterns (Flink's SimpleDateFormat and Spark's DateTimeFormatter agree on these letters);
# checked on Flink 2.3 (tools/flink_compare).
CALC_DATE_FORMAT = _scalar_program(
    "calc-date-format", "DATE_FORMAT of a timestamp column and of a timestamp string",
    ("id INT", "ts TIMESTAMP(3)", "s STRING"),
    [[1, "2024-03-09 07:05:02.250", "2024-12-31 23:59:59"], [2, None, None]],
    [[3, "1999-01-01 00:00:00", "2000-02-29 12:00:00"]],
    "Formatted", ("id INT", "day STRING", "minute STRING", "year_of_s STRING"),
    ["+I[1, 2024-03-09, 03/09 07:05:02.250, 2024]", "+I[2, null, null, null]"],
    ["+I[3, 1999-01-01, 01/01 00:00:00.000, 2000]"],
    "INSERT INTO Formatted SELECT id, DATE_FORMAT(ts, 'yyyy-MM-dd'), "
    "DATE_FORMAT(ts, 'MM/dd HH:mm:ss.SSS'), DATE_FORMAT(s, 'yyyy') FROM Events")

# Flink built-ins Spark spells differently (streamplan/planner/flink_builtins.py): SPLIT_INDEX
# (a literal separator, empty pieces counted, NULL past the end, for a negative index and
# for an empty string), FLOOR / CEIL (ts TO unit), WEEK and TIMESTAMPADD; checked on Flink 2.3
# (tools/flink_compare).
CALC_FLINK_BUILTINS = _scalar_program(
    "calc-flink-builtins", "SPLIT_INDEX, FLOOR and CEIL TO a unit, WEEK and TIMESTAMPADD as "
    "Flink computes them",
    ("id INT", "s STRING", "ts TIMESTAMP(3)"),
    [[1, "a,b,,c", "2024-03-09 07:05:02.250"], [2, "", "2024-03-10 00:00:00"], [3, None, None]],
    [[4, "x.y,z.", "2024-12-31 23:59:59.999"]],
    "Pieces", ("id INT", "p0 STRING", "p2 STRING", "p3 STRING", "p9 STRING", "dot1 STRING",
               "neg STRING", "fh TIMESTAMP(3)", "cd TIMESTAMP(3)", "fm TIMESTAMP(3)",
               "cs TIMESTAMP(3)", "wk BIGINT", "later TIMESTAMP(3)"),
    ["+I[1, a, , c, null, null, null, 2024-03-09T07:00, 2024-03-10T00:00, "
     "2024-03-01T00:00, 2024-03-09T07:05:03, 10, 2024-03-10T08:05:02.250]",
     "+I[2, null, null, null, null, null, null, 2024-03-10T00:00, 2024-03-10T00:00, "
     "2024-03-01T00:00, 2024-03-10T00:00, 10, 2024-03-11T01:00]",
     "+I[3, null, null, null, null, null, null, null, null, null, null, null, null]"],
    ["+I[4, x.y, null, null, null, y,z, null, 2024-12-31T23:00, 2025-01-01T00:00, "
     "2024-12-01T00:00, 2025-01-01T00:00, 1, 2025-01-02T00:59:59.999]"],
    "INSERT INTO Pieces SELECT id, SPLIT_INDEX(s, ',', 0), SPLIT_INDEX(s, ',', 2), "
    "SPLIT_INDEX(s, ',', 3), SPLIT_INDEX(s, ',', 9), SPLIT_INDEX(s, '.', 1), "
    "SPLIT_INDEX(s, ',', -1), FLOOR(ts TO HOUR), CEIL(ts TO DAY), FLOOR(ts TO MONTH), "
    "CEIL(ts TO SECOND), WEEK(ts), TIMESTAMPADD(HOUR, 25, ts) FROM Events")

# A timestamp as Flink prints and takes it apart: CAST(ts AS STRING) with the column's
# precision in fractional digits (Spark drops trailing zeros), EXTRACT as a BIGINT (SECOND the
# whole seconds; Spark's has the fraction); checked on Flink 2.3 (tools/flink_compare).
CALC_TIMESTAMP_PARTS = _scalar_program(
    "calc-timestamp-parts", "CAST of a timestamp to STRING keeps its precision; EXTRACT gives "
    "whole BIGINTs",
    ("id INT", "ts TIMESTAMP(3)", "stamp TIMESTAMP(0)"),
    [[1, "2024-03-09 07:05:02.000", "2024-03-09 00:00:00"], [2, None, None]],
    [[3, "1999-12-31 23:59:59.120", "1999-12-31 12:34:56"]],
    "Parts", ("id INT", "ts_text STRING", "stamp_text STRING", "sec BIGINT", "sec_double DOUBLE",
              "hour_plus_minute BIGINT", "yr BIGINT"),
    ["+I[1, 2024-03-09 07:05:02.000, 2024-03-09 00:00:00, 2, 2.0, 12, 2024]",
     "+I[2, null, null, null, null, null, null]"],
    ["+I[3, 1999-12-31 23:59:59.120, 1999-12-31 12:34:56, 59, 59.0, 82, 1999]"],
    "INSERT INTO Parts SELECT id, CAST(ts AS STRING), CAST(stamp AS VARCHAR), "
    "EXTRACT(SECOND FROM ts), CAST(EXTRACT(SECOND FROM ts) AS DOUBLE), "
    "EXTRACT(HOUR FROM ts) + EXTRACT(MINUTE FROM ts), EXTRACT(YEAR FROM ts) FROM Events")

# GREATEST / LEAST are NULL when any argument is (Spark's skip NULLs), TIMESTAMPDIFF is an INT
# (Spark's a BIGINT): rewritten as Flink computes them (streamplan/planner/flink_builtins.py);
# the rows were printed by Flink 2.3 (PyFlink) for the same statement.
CALC_NULL_GREATEST_TIMESTAMPDIFF = _scalar_program(
    "calc-null-greatest-timestampdiff", "GREATEST and LEAST with NULL arguments; TIMESTAMPDIFF "
    "as an INT",
    ("id INT", "a INT", "b INT", "ts TIMESTAMP(3)", "s STRING"),
    [[1, 7, 3, "2024-01-01 00:01:30.500", "apple"], [2, None, 3, "2024-02-29 23:59:59", "zebra"],
     [3, 4, None, None, None]],
    [[4, -2, 9, "2023-12-31 23:00:00", "mango"]],
    "Ranked", ("id INT", "hi INT", "lo INT", "hs STRING", "secs INT", "days INT"),
    ["+I[1, 7, 3, m, 90, 59]", "+I[2, null, null, zebra, 5183999, 0]",
     "+I[3, null, null, null, null, null]"],
    ["+I[4, 9, -2, mango, -3600, 60]"],
    "INSERT INTO Ranked SELECT id, GREATEST(a, b), LEAST(a, b, 5), GREATEST(s, 'm'), "
    "TIMESTAMPDIFF(SECOND, TIMESTAMP '2024-01-01 00:00:00', ts), "
    "TIMESTAMPDIFF(DAY, ts, TIMESTAMP '2024-03-01 00:00:00') FROM Events")

# TO_TIMESTAMP(string, format) as Flink's DateTimeUtils.parseTimestampData reads it: with the
# pattern, else as JDBC timestamp or date text ('2024-3-9 07:05:02', '2024-03-09'), else NULL,
# never an error; SHA256 / SHA512 as lowercase hex (streamplan/planner/flink_builtins.py). The
# rows were printed by Flink 2.3 (tools/flink_compare).
CALC_PARSED_TIMESTAMPS_AND_DIGESTS = _scalar_program(
    "calc-parsed-timestamps-and-digests", "TO_TIMESTAMP with a format falls back to JDBC text "
    "and gives NULL for what it cannot read; SHA256 and SHA512",
    ("id INT", "s STRING"),
    [[1, "09.03.2024 07:05"], [2, "2024-3-9 07:05:02"], [3, "not a time"], [4, None]],
    [[5, "2024-03-09"], [6, "31.12.1999 23:59"]],
    "Parsed", ("id INT", "ts TIMESTAMP(3)", "day TIMESTAMP(3)", "digest STRING",
               "long_digest STRING"),
    ["+I[1, 2024-03-09T07:05, null, "
      "8bd9206f19f2a32831f79c3655746d17fdc8e196e67a370e7d1b9eb5e48f5871, "
      "83440ce9d008a792e301934b4d8d1cbab60870c48603773aefc579262a687be0c75be2e658c61d4c"
      "aef0d1f72322f0eb410ca99e8a6377f7c2bb0f5020f764f9]",
     "+I[2, 2024-03-09T07:05:02, 2024-03-09T07:05:02, "
      "2d390f95ad63ffc42ded0db7a768ef8bf0269d5514573dd1895daa84826988a8, "
      "9a74698d83ef7e8f125a69ae87c9fde38f9ecd4b00e282f12c81b8d22fc34c3529af5cbe8bf3421e"
      "bae8bd0c80d8c56c9f8ffed7522c3d4a9b45bbc3fcec6d18]",
     "+I[3, null, null, "
      "cbfcf9d71dc7cd538151f9768818690e059791f4a919c402e6936a63844e19a5, "
      "953489ce2847dc62b749a43bb74e700854eac445bece7adcd5b32406aabda77be183e890769484db"
      "01a748266b9603ba1d185647fc5f032cce1b9a421961037b]",
     "+I[4, null, null, null, null]"],
    ["+I[5, 2024-03-09T00:00, 2024-03-09T00:00, "
      "c7d2b86f148b781454e42a2f3a5ed884437063df7729c7299d53fbdc20d9ae26, "
      "1f5f60a550fbe6a45af8a93a2deb6ddd46f26c6aeeaf5e6b2ea70ddbdb3249a205aa8c20caf5787c"
      "f44579b01fce4d3c42723561e2b8c6dd8c3d4cfe2d78043c]",
     "+I[6, 1999-12-31T23:59, null, "
      "7669e3e5c3a7b03c778b71cb4862d3387f243b477a624fe969f8a83efed29a21, "
      "602a48c5df9f29425bb5ac989a3e94f97849aabc8b3925bf625e77cde8869b89797c500103c0aef0"
      "afe0273d5cb8c8d38c19df0b313fe0b383bd90a03551a033]"],
    "INSERT INTO Parsed SELECT id, TO_TIMESTAMP(s, 'dd.MM.yyyy HH:mm'), "
    "TO_TIMESTAMP(s, 'yyyy-MM-dd'), SHA256(s), SHA512(s) FROM Events")

# JSON_VALUE / JSON_QUERY / JSON_EXISTS with Flink's defaults (streamplan/functions/builtins.py):
# numbers printed as Java's BigDecimal prints them (1.50, 1E+3), NULL for objects, arrays, JSON
# null, missing paths and text that is not JSON. The rows were printed by Flink 2.3
# (tools/flink_compare).
CALC_JSON_FUNCTIONS = _scalar_program(
    "calc-json-functions", "JSON_VALUE, JSON_QUERY and JSON_EXISTS as Flink reads JSON",
    ("id INT", "doc STRING"),
    [[1, '{"user": {"name": "ann", "tags": ["a", "b"]}, "amount": 12.50, "n": 1e3}'],
     [2, '{"user": {"name": null}, "amount": 7, "n": -0.0, "odd key": true}'],
     [3, "not json"], [4, None]],
    [[5, '[{"amount": 1}]'], [6, '{"user": {"name": "bo\\"b", "tags": []}, "amount": 0.1}']],
    "Extracted", ("id INT", "name STRING", "amount STRING", "n STRING", "tag STRING",
                  "odd STRING", "user_json STRING", "tags STRING", "has_name BOOLEAN",
                  "has_tags BOOLEAN"),
    ["+I[1, ann, 12.50, 1E+3, b, null, {\"name\":\"ann\",\"tags\":[\"a\",\"b\"]}, [\"a\",\"b\"], true, true]",
     "+I[2, null, 7, 0.0, null, true, {\"name\":null}, null, false, false]",
     "+I[3, null, null, null, null, null, null, null, false, false]",
     "+I[4, null, null, null, null, null, null, null, null, null]"],
    ["+I[5, null, null, null, null, null, null, null, false, false]",
     "+I[6, bo\"b, 0.1, null, null, null, {\"name\":\"bo\\\"b\",\"tags\":[]}, [], true, true]"],
    "INSERT INTO Extracted SELECT id, JSON_VALUE(doc, '$.user.name'), "
    "JSON_VALUE(doc, '$.amount'), JSON_VALUE(doc, '$.n'), JSON_VALUE(doc, '$.user.tags[1]'), "
    "JSON_VALUE(doc, '$[''odd key'']'), JSON_QUERY(doc, '$.user'), "
    "JSON_QUERY(doc, '$.user.tags'), JSON_EXISTS(doc, '$.user.name'), "
    "JSON_EXISTS(doc, '$.user.tags') FROM Events")

# Arrays in expressions as Flink reads them (streamplan/planner/flink_builtins.py): SPLIT at a
# literal delimiter (Spark's splits at a regular expression), empty pieces kept, an empty array
# for ''; a subscript from 1 (Spark's [] from 0), NULL past the end. The rows were printed by
# Flink 2.3 (tools/flink_compare).
CALC_ARRAY_SUBSCRIPTS = _scalar_program(
    "calc-array-subscripts", "SPLIT at a literal delimiter and array subscripts from 1",
    ("id INT", "s STRING", "i INT"),
    [[1, "a.b", 1], [2, "a,b,,c", 2], [3, "", 3], [4, None, None]],
    [[5, "x::y::", 0], [6, "a,b,", 9]],
    "Pieces", ("id INT", "first_dot STRING", "second_comma STRING", "nth_comma STRING",
               "pieces INT", "colons INT", "last_colon STRING", "picked STRING"),
    ["+I[1, a, null, a.b, 1, 1, null, p]",
     "+I[2, a,b,,c, b, b, 4, 1, null, q]",
     "+I[3, null, null, null, 0, 0, null, ]",
     "+I[4, null, null, null, null, null, null, null]"],
    ["+I[5, x::y::, null, null, 1, 3, , null]",
     "+I[6, a,b,, b, null, 3, 1, null, null]"],
    "INSERT INTO Pieces SELECT id, SPLIT(s, '.')[1], SPLIT(s, ',')[2], SPLIT(s, ',')[i], "
    "CARDINALITY(SPLIT(s, ',')), CARDINALITY(SPLIT(s, '::')), SPLIT(s, '::')[3], "
    "ARRAY['p', 'q', s][i] FROM Events")

# Where Spark's function means something else by default (streamplan/sql/dialect.py,
# streamplan/planner/flink_builtins.py): REGEXP_EXTRACT without a group is the whole match and
# NULL when nothing matches (Spark: group 1, ''); STR_TO_MAP splits keys from values at '='
# (Spark: ':'); a BOOLEAN cast to STRING is TRUE / FALSE (Spark: true / false). The rows were
# printed by Flink 2.3 (tools/flink_compare).
CALC_FLINK_DEFAULTS = _scalar_program(
    "calc-flink-defaults", "REGEXP_EXTRACT, STR_TO_MAP and BOOLEAN text with Flink's defaults",
    ("id INT", "s STRING", "ok BOOLEAN"),
    [[1, "user=ann,age=7", True], [2, "nothing here", False], [3, None, None]],
    [[4, "age=12", True]],
    "Defaults", ("id INT", "whole STRING", "digits STRING", "age STRING", "ok_text STRING",
                 "matched STRING"),
    ["+I[1, age=7, 7, 7, TRUE, TRUE]",
     "+I[2, null, null, null, FALSE, FALSE]",
     "+I[3, null, null, null, null, null]"],
    ["+I[4, age=12, 12, 12, TRUE, TRUE]"],
    "INSERT INTO Defaults SELECT id, REGEXP_EXTRACT(s, 'age=[0-9]+'), "
    "REGEXP_EXTRACT(s, 'age=([0-9]+)', 1), STR_TO_MAP(s)['age'], CAST(ok AS STRING), "
    "CAST(s LIKE '%=%' AS STRING) FROM Events")

# Logarithms at and below 0 (Flink's -Infinity and NaN; Spark's NULL) and the text of computed
# timestamps (their precision's fractional digits, as Flink prints a TIMESTAMP(3); Spark drops
# trailing zeros) (streamplan/planner/flink_builtins.py). The rows were printed by Flink 2.3
# (tools/flink_compare).
CALC_LOGARITHMS_AND_TIMESTAMP_TEXT = _scalar_program(
    "calc-logarithms-and-timestamp-text", "LN and LOG at and below 0; the text of computed "
    "timestamps keeps their precision",
    ("id INT", "d DOUBLE", "ts TIMESTAMP(3)", "s STRING"),
    [[1, 2.25, "2024-03-09 07:05:02.250", "2024-03-09 07:05:02"], [2, 0.0, None, None],
     [3, None, "1999-12-31 23:59:59.999", "2000-01-01 00:00:00"]],
    [[4, -0.5, "2024-02-29 12:00:00", "2024-02-29 12:00:00.5"]],
    "Logs", ("id INT", "ln_d DOUBLE", "log10_d DOUBLE", "log2_d DOUBLE", "later STRING",
             "day STRING", "parsed STRING"),
    ["+I[1, 0.8109302162163288, 0.3521825181113625, 1.1699250014423124, "
      "2024-03-09 08:35:02.250, 2024-03-09 00:00:00.000, 2024-03-09 07:05:02.000]",
     "+I[2, -Infinity, -Infinity, -Infinity, null, null, null]",
     "+I[3, null, null, null, 2000-01-01 01:29:59.999, 1999-12-31 00:00:00.000, "
      "2000-01-01 00:00:00.000]"],
    ["+I[4, NaN, NaN, NaN, 2024-02-29 13:30:00.000, 2024-02-29 00:00:00.000, "
      "2024-02-29 12:00:00.500]"],
    "INSERT INTO Logs SELECT id, LN(d), LOG10(d), LOG2(d), "
    "CAST(ts + INTERVAL '90' MINUTE AS STRING), CAST(FLOOR(ts TO DAY) AS STRING), "
    "CAST(TO_TIMESTAMP(s) AS STRING) FROM Events")

# DECIMAL division by an integer literal keeps Flink's digits: Flink types the literal as an INT
# (DECIMAL(10, 0), so the quotient's scale is max(6, s1 + 10 + 1)), Spark as DECIMAL(1, 0)
# (streamplan/planner/flink_builtins.py casts it). The rows were printed by Flink 2.3 (a
# differential probe through tools/flink_compare).
CALC_DECIMAL_DIVISION = _scalar_program(
    "calc-decimal-division", "DECIMAL division by an integer literal with Flink's scale",
    ("a INT", "m DECIMAL(10, 2)"),
    [[1, Decimal("3.45")]],
    [[2, Decimal("-1.25")]],
    "Quotients", ("a INT", "third STRING", "literal_third STRING", "scaled_third STRING",
                  "rounded DECIMAL(10, 4)"),
    ["+I[1, 1.1500000000000, 0.333333333333, 0.333333333333, 1.1500]"],
    ["+I[2, -0.4166666666667, 0.333333333333, 0.666666666667, -0.4167]"],
    "INSERT INTO Quotients SELECT a, CAST(m / 3 AS STRING), CAST(1.0 / 3 AS STRING), "
    "CAST(a * 1.0 / 3 AS STRING), m / 3 FROM Events")

# Flink's string literals and result types (streamplan/sql/dialect.py,
# streamplan/planner/flink_result_types.py, flink_builtins.py): a backslash is a plain
# character ('(\d+)' is a regex of digits, '\' a backslash) and LIKE has no escape character
# unless it names one (Spark: a backslash escapes, in literals and in LIKE patterns); CEIL,
# FLOOR and TRUNCATE of a DOUBLE are DOUBLEs (FLOOR(d) / 2 divides DOUBLEs; Spark: BIGINTs);
# SIGN keeps its argument's type (Spark: DOUBLE); TIMESTAMPADD of days to a DATE is a DATE;
# CAST(date AS TIMESTAMP(3)) prints three fractional digits. The rows were printed by Flink 2.3
# (tools/flink_compare).
CALC_LITERALS_AND_RESULT_TYPES = _scalar_program(
    "calc-literals-and-result-types", "backslashes in literals and LIKE patterns; result types "
    "of CEIL, FLOOR, TRUNCATE, SIGN and TIMESTAMPADD as Flink's",
    ("id INT", "d DOUBLE", "m DECIMAL(10, 2)", "n INT", "s STRING", "dt DATE"),
    [[1, 2.5, Decimal("-3.75"), -7, "abc 123\\x_y", "2024-03-09"],
     [2, -0.5, Decimal("0.00"), 3, "a%b_c", "2000-02-29"],
     [3, None, None, None, None, None]],
    [[4, -2.25, Decimal("12.50"), 0, "path\\to 42", "2023-12-31"]],
    "Typed", ("id INT", "digits STRING", "slashed STRING", "like_backslash BOOLEAN",
              "ceil_d STRING", "floor_half STRING", "trunc_d STRING", "sign_m STRING",
              "sign_n INT", "next_day STRING", "next_month STRING", "midnight STRING"),
    ["+I[1, 123, abc 123/x_y, true, 3.0, 1.0, 2.0, -1.00, -1, 2024-03-10, 2024-04-09, "
     "2024-03-09 00:00:00.000]",
     "+I[2, null, a%b_c, false, -0.0, -0.5, 0.0, 0.00, 1, 2000-03-01, 2000-03-29, "
     "2000-02-29 00:00:00.000]",
     "+I[3, null, null, null, null, null, null, null, null, null, null, null]"],
    ["+I[4, 42, path/to 42, true, -2.0, -1.5, -2.0, 1.00, 0, 2024-01-01, 2024-01-31, "
     "2023-12-31 00:00:00.000]"],
    "INSERT INTO Typed SELECT id, REGEXP_EXTRACT(s, '(\\d+)', 1), REPLACE(s, '\\', '/'), "
    "s LIKE '%\\_%', CAST(CEIL(d) AS STRING), CAST(FLOOR(d) / 2 AS STRING), "
    "CAST(TRUNCATE(d) AS STRING), CAST(SIGN(m) AS STRING), SIGN(n), "
    "CAST(TIMESTAMPADD(DAY, 1, dt) AS STRING), CAST(TIMESTAMPADD(MONTH, 1, dt) AS STRING), "
    "CAST(CAST(dt AS TIMESTAMP(3)) AS STRING) FROM Events")

# The text of timestamps whose precision follows from the expression, and of BOOLEAN casts
# (streamplan/planner/flink_builtins.py, flink_result_types.py): a TIMESTAMP literal has the
# digits it is written with, TIMESTAMPADD keeps its timestamp's precision (of hours to a DATE:
# six digits), CAST(x AS TIMESTAMP_LTZ(p)) has p digits, CAST(s AS BOOLEAN) prints TRUE /
# FALSE. Spark's text drops trailing zeros and prints booleans in lower case. The rows were
# printed by Flink 2.3 (tools/flink_compare).
CALC_TIMESTAMP_AND_BOOLEAN_TEXT = _scalar_program(
    "calc-timestamp-and-boolean-text", "the text of timestamp literals, TIMESTAMPADD, "
    "TIMESTAMP_LTZ casts and BOOLEAN casts as Flink prints them",
    ("id INT", "ts TIMESTAMP(3)", "dt DATE", "flag STRING"),
    [[1, "2024-03-09 07:05:02.250", "2024-03-09", "true"], [2, None, None, None]],
    [[3, "1999-12-31 23:59:59.000", "2000-02-29", "FALSE"]],
    "Texts", ("id INT", "literal STRING", "literal_millis STRING", "later STRING",
              "hour_of_day STRING", "ltz STRING", "flag_text STRING"),
    ["+I[1, 2024-01-01 10:00:00, 2024-01-01 10:00:00.120, 2024-03-09 07:05:03.250, "
     "2024-03-09 01:00:00.000000, 2024-03-09 00:00:00.000, TRUE]",
     "+I[2, 2024-01-01 10:00:00, 2024-01-01 10:00:00.120, null, null, null, null]"],
    ["+I[3, 2024-01-01 10:00:00, 2024-01-01 10:00:00.120, 2000-01-01 00:00:00.000, "
     "2000-02-29 01:00:00.000000, 2000-02-29 00:00:00.000, FALSE]"],
    "INSERT INTO Texts SELECT id, CAST(TIMESTAMP '2024-01-01 10:00:00' AS STRING), "
    "CAST(TIMESTAMP '2024-01-01 10:00:00.120' AS STRING), "
    "CAST(TIMESTAMPADD(SECOND, 1, ts) AS STRING), CAST(TIMESTAMPADD(HOUR, 1, dt) AS STRING), "
    "CAST(CAST(dt AS TIMESTAMP_LTZ(3)) AS STRING), CAST(CAST(flag AS BOOLEAN) AS STRING) "
    "FROM Events")

# IS_DIGIT / IS_ALPHA / IS_DECIMAL as Flink's SqlFunctionUtils tests a string (digits and
# letters of every script, FALSE for NULL and ''; IS_DECIMAL what Java's Long.parseLong or
# Double.parseDouble reads) and a number (the number itself: an INT is a digit, a NULL one
# too); INITCAP capitalizing after anything but an ASCII letter or digit; EXTRACT(MILLISECOND
# | MICROSECOND | EPOCH ...) from the epoch milliseconds with Java's remainder and division
# (negative before 1970; of a DATE, EPOCH is its days' seconds). Spark has none of these as
# Flink computes them (streamplan/planner/flink_builtins.py, typed_builtins.py). The rows
# were printed by Flink 2.3 (tools/flink_compare).
CALC_FLINK_TEXT_PREDICATES = _scalar_program(
    "calc-flink-text-predicates", "IS_DIGIT, IS_ALPHA, IS_DECIMAL, INITCAP and EXTRACT of "
    "milliseconds, microseconds and epoch seconds as Flink computes them",
    ("id INT", "s STRING", "n INT", "ts TIMESTAMP(6)", "dt DATE"),
    [[1, "\u0661\u0662\u0663", -5, "2024-03-09 10:00:02.123456", "2024-03-09"],
     [2, "hello-world_foo bar", 7, "1969-12-31 23:59:58.500000", "1969-12-31"],
     [3, "\u00e9LAN", None, "1969-12-31 23:59:59.000001", "1900-01-01"],
     [4, None, None, None, None],
     [5, "", 0, "1970-01-01 00:00:00.000000", "1970-01-01"]],
    [[6, " 12.5e3 ", 1, "2024-03-09 10:00:59.999999", "2024-03-10"],
     [7, "o'neil 3AM mcDONALD", 2, "1960-06-15 12:34:56.789012", "1960-06-15"],
     [8, "-\u0669\u0662\u0662\u0663\u0663\u0667\u0662\u0660\u0663\u0666\u0668\u0665"
         "\u0664\u0667\u0667\u0665\u0668\u0660\u0669", 3, "2000-01-01 00:00:00.000001",
      "2000-01-01"]],
    "Predicates", ("id INT", "is_digit BOOLEAN", "is_alpha BOOLEAN", "is_decimal BOOLEAN",
                   "initcap STRING", "millis BIGINT", "micros BIGINT", "epoch BIGINT",
                   "day_epoch BIGINT", "n_is_digit BOOLEAN"),
    ["+I[1, true, false, true, \u0661\u0662\u0663, 123, 123456, 1709978402, 1709942400, true]",
     "+I[2, false, false, false, Hello-World_Foo Bar, -500, -500000, -1, -86400, true]",
     "+I[3, false, true, false, \u00e9Lan, 0, 1, -1, -2208988800, true]",
     "+I[4, false, false, false, null, null, null, null, null, true]",
     "+I[5, false, false, false, , 0, 0, 0, 0, true]"],
    ["+I[6, false, false, true,  12.5e3 , 999, 999999, 1709978459, 1710028800, true]",
     "+I[7, false, false, false, O'Neil 3am Mcdonald, -211, -210988, -301231503, -301276800, "
     "true]",
     "+I[8, false, false, false, -\u0669\u0662\u0662\u0663\u0663\u0667\u0662\u0660\u0663"
     "\u0666\u0668\u0665\u0664\u0667\u0667\u0665\u0668\u0660\u0669, 0, 1, 946684800, "
     "946684800, true]"],
    "INSERT INTO Predicates SELECT id, IS_DIGIT(s), IS_ALPHA(s), IS_DECIMAL(s), INITCAP(s), "
    "EXTRACT(MILLISECOND FROM ts), EXTRACT(MICROSECOND FROM ts), EXTRACT(EPOCH FROM ts), "
    "EXTRACT(EPOCH FROM dt), IS_DIGIT(n) FROM Events")

PROGRAMS = [CALC_PROJECTION_FILTER, CALC_CHANGELOG, SIMPLE_CALC, CALC_FILTER,
            CALC_PROJECT_PUSHDOWN, CALC_FILTER_PUSHDOWN, CALC_SARG, CALC_UDF, CALC_UDF_SIMPLE,
            CALC_UDF_COMPLEX, CALC_DATE_FORMAT, CALC_FLINK_BUILTINS, CALC_TIMESTAMP_PARTS,
            CALC_NULL_GREATEST_TIMESTAMPDIFF, CALC_PARSED_TIMESTAMPS_AND_DIGESTS, CALC_JSON_FUNCTIONS,
            CALC_ARRAY_SUBSCRIPTS, CALC_FLINK_DEFAULTS, CALC_LOGARITHMS_AND_TIMESTAMP_TEXT,
            CALC_DECIMAL_DIVISION, CALC_LITERALS_AND_RESULT_TYPES, CALC_TIMESTAMP_AND_BOOLEAN_TEXT,
            CALC_FLINK_TEXT_PREDICATES]
