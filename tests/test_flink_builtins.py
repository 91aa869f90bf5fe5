"""Flink built-ins that Spark spells differently (streamplan/planner/flink_builtins.py): what
each rewrite produces, that the plan loader accepts it, and the calls no rewrite can keep
Flink's result for, refused by name. Their results on Spark against Flink's are the program
calc-flink-builtins (programs/calc.py), run by the gate."""
from __future__ import annotations

import re

import pytest
import sqlglot

from streamplan.errors import UnsupportedSqlError
from streamplan.planner.flink_builtins import spark_builtins
from streamplan.sql.expressions import parse_plan_expression


def rewritten(text: str) -> str:
    return spark_builtins(sqlglot.parse_one(text, read="spark"), "<test>").sql(dialect="spark")


@pytest.mark.parametrize("flink, spark", [
    ("FLOOR(ts TO HOUR)", "DATE_TRUNC('HOUR', ts)"),
    ("CEIL(ts TO DAY)", "CASE WHEN DATE_TRUNC('DAY', ts) = ts THEN DATE_TRUNC('DAY', ts) "
                        "ELSE DATE_ADD(DAY, 1, DATE_TRUNC('DAY', ts)) END"),
    ("WEEK(d)", "WEEKOFYEAR(d)"),
    ("SPLIT_INDEX(s, 'a.b', i)", "CASE WHEN i < 0 OR s = '' THEN NULL ELSE "
                                 "TRY_ELEMENT_AT(SPLIT(s, '\\\\Qa.b\\\\E', -1), i + 1) END"),
    ("FLOOR(x)", "FLOOR(x)"),               # the numeric FLOOR is Spark's own
    ("GREATEST(a, b)", "CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE GREATEST(a, b) END"),
    ("LEAST(a, 2, c)", "CASE WHEN a IS NULL OR 2 IS NULL OR c IS NULL THEN NULL "
                       "ELSE LEAST(a, 2, c) END"),
    ("TIMESTAMPDIFF(SECOND, a, b)", "CAST(TIMESTAMPDIFF(SECOND, a, b) AS INT)"),
    ("TO_TIMESTAMP(s, 'dd.MM.yyyy HH:mm')", "COALESCE(TRY_TO_TIMESTAMP(s, 'dd.MM.yyyy HH:mm'), "
                                           "TRY_CAST(TRIM(s) AS TIMESTAMP))"),
    ("SHA256(s)", "SHA2(s, 256)"),
    ("LN(x)", "CASE WHEN x < 0 THEN CAST('NaN' AS DOUBLE) WHEN x = 0 THEN "
              "CAST('-Infinity' AS DOUBLE) ELSE LN(x) END"),
    ("LOG(b, x)", "LOG(b, x)"),                # a base that is not a literal: Spark's
    ("m / 3", "m / CAST(3 AS INT)"),           # Flink's INT literal, not DECIMAL(1, 0)
    ("m / 3000000000", "m / CAST(3000000000 AS BIGINT)"),
    ("REGEXP_EXTRACT(s, 'a(b)', 1)", "CASE WHEN s RLIKE 'a(b)' THEN REGEXP_EXTRACT(s, 'a(b)') END"),
    ("SPLIT(s, '.')[2]", "TRY_ELEMENT_AT(CASE WHEN s = '' THEN ARRAY_REMOVE(SPLIT(s, '\\\\Q.\\\\E', "
                         "-1), '') ELSE SPLIT(s, '\\\\Q.\\\\E', -1) END, 2)"),
    ("ARRAY[a, b][i]", "CASE WHEN i >= 1 THEN TRY_ELEMENT_AT(ARRAY(a, b), i) END"),
    ("STR_TO_MAP(s)['k']", "STR_TO_MAP(s, ',', ':')['k']"),     # a map's key stays
    ("SHA224(s)", "SHA2(s, 224)"),
    ("TO_DATE(s)", "TRY_CAST(s AS DATE)"),
    ("TO_DATE(s, 'yyyyMMdd')", "TO_DATE(s, 'yyyyMMdd')"),
    # Flink's LIKE has no escape character unless it names one; Spark's is a backslash
    ("s LIKE '%\\\\_%'", "s LIKE '%\\\\\\\\_%'"),
    ("s NOT LIKE p", "s NOT LIKE REPLACE(p, '\\\\', '\\\\\\\\')"),
    ("s LIKE '%\\\\_%' ESCAPE '\\\\'", "s LIKE '%\\\\_%' ESCAPE '\\\\'"),
    ("s LIKE 'a_%'", "s LIKE 'a_%'"),
    # a call inside another's argument is rewritten too
    ("EXTRACT(HOUR FROM FLOOR(ts TO DAY))",
     "CAST(EXTRACT(HOUR FROM DATE_TRUNC('DAY', ts)) AS BIGINT)"),
    ("GREATEST(LEAST(a, b), c)",
     "CASE WHEN CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE LEAST(a, b) END IS NULL "
     "OR c IS NULL THEN NULL ELSE GREATEST(CASE WHEN a IS NULL OR b IS NULL THEN NULL "
     "ELSE LEAST(a, b) END, c) END"),
])
def test_each_rewrite_is_spark_sql_the_plan_loader_accepts(flink, spark):
    assert rewritten(flink) == spark
    parse_plan_expression(spark)


def test_a_cast_to_varchar_n_truncates_and_to_char_n_also_pads_as_flinks():
    # PyFlink 2.3: CAST('abcd' AS VARCHAR(3)) is 'abc', CAST('ab' AS CHAR(3)) 'ab ' (Spark's
    # cast ignores the length, and sqlglot's Spark dialect reads the type as STRING)
    from streamplan.sql.dialect import FlinkSql

    def flink(text: str) -> str:
        return spark_builtins(sqlglot.parse_one(text, read=FlinkSql), "<test>").sql("spark")

    assert flink("CAST(n AS VARCHAR(3))") == "SUBSTRING(CAST(n AS STRING), 1, 3)"
    assert flink("CAST(s AS CHAR(3))") == "RPAD(CAST(s AS STRING), 3, ' ')"
    assert flink("CAST(s AS VARCHAR)") == "CAST(s AS STRING)"
    parse_plan_expression("RPAD(CAST(s AS STRING), 3, ' ')")


def test_a_timestamp_column_cast_to_string_keeps_its_precision_and_extract_is_a_bigint():
    from streamplan.types import Field, RowType, parse_type

    row = RowType((Field("t", parse_type("TIMESTAMP(3)")), Field("s", parse_type("TIMESTAMP(0)")),
                   Field("k", parse_type("INT"))))

    def over_row(text: str) -> str:
        return spark_builtins(sqlglot.parse_one(text, read="spark"), "<test>", row).sql("spark")

    assert over_row("CAST(`t` AS STRING)") == "DATE_FORMAT(`t`, 'yyyy-MM-dd HH:mm:ss.SSS')"
    assert over_row("CAST(`s` AS VARCHAR)") == "DATE_FORMAT(`s`, 'yyyy-MM-dd HH:mm:ss')"
    assert over_row("CAST(`k` AS STRING)") == "CAST(`k` AS STRING)"
    assert over_row("CAST(EXTRACT(SECOND FROM `t`) AS DOUBLE)") == \
        "CAST(CAST(EXTRACT(SECOND FROM `t`) AS BIGINT) AS DOUBLE)"
    assert over_row("CAST(EXTRACT(HOUR FROM `t`) AS BIGINT)") == \
        "CAST(EXTRACT(HOUR FROM `t`) AS BIGINT)"
    parse_plan_expression(over_row("CAST(`t` AS STRING)"))


def test_a_separator_holding_the_regex_quote_end_stays_literal():
    # \E inside the separator closes the quote; it is split out and quoted on its own
    assert "'\\\\Qa\\\\E\\\\\\\\E\\\\Qb\\\\E'" in rewritten("SPLIT_INDEX(s, 'a\\\\Eb', 0)")


@pytest.mark.parametrize("text, construct", [
    ("FLOOR(ts TO WEEK)", "FLOOR(... TO WEEK)"),
    ("CEIL(ts TO WEEK)", "CEIL(... TO WEEK)"),
    ("SPLIT_INDEX(s, sep, 0)", "SPLIT_INDEX with a separator that is not a non-empty string"),
    ("SPLIT_INDEX(s, '', 0)", "SPLIT_INDEX with a separator that is not a non-empty string"),
    ("SPLIT_INDEX(s, ',')", "SPLIT_INDEX with 2 arguments"),
    ("TO_TIMESTAMP(s, 'yyyy-MM-dd''T''HH:mm')", "TO_TIMESTAMP(string, format) with a format "
                                                "that is not a string literal"),
    ("TO_TIMESTAMP(s, f)", "TO_TIMESTAMP(string, format) with a format that is not a string"),
    ("SHA256(s, t)", "SHA256 with 2 arguments"),
    ("SPLIT(s, d)", "SPLIT with a delimiter that is not a non-empty string literal"),
    ("TRUNCATE(x, 2)", "TRUNCATE(x, n) with a number of decimals"),
    ("ARRAY[a][0]", "an array index of 0"),
    ("CAST(ts AS TIME)", "CAST(... AS TIME) (Spark has no TIME type"),
])
def test_calls_no_rewrite_keeps_are_refused_with_their_place(text, construct):
    with pytest.raises(UnsupportedSqlError, match=r"at <test>") as info:
        rewritten(text)
    assert info.value.construct.startswith(construct)


@pytest.mark.parametrize("flink", ["GREATEST(a, LEAST(b, 1))", "TIMESTAMPDIFF(DAY, a, b)",
                                   "EXTRACT(SECOND FROM ts)", "CEIL(ts TO HOUR)",
                                   "TO_TIMESTAMP(s, 'yyyy-MM-dd')", "SHA512(s)",
                                   "SPLIT(s, ',')[1]", "ARRAY[a][i]"])
def test_rewriting_a_rewritten_expression_changes_nothing(flink):
    once = rewritten(flink)
    assert rewritten(once) == once


def test_to_timestamp_ltz_of_epoch_seconds_and_milliseconds_gives_flinks_rows(spark):
    """TO_TIMESTAMP_LTZ(numeric[, precision]) as PyFlink 2.3 printed it for the same rows
    (a print sink, table.local-time-zone UTC): milliseconds without a precision, a fraction
    floored to the millisecond, NULL in and NULL out; its text keeps three digits."""
    from harness import SinkTestStep, SourceTestStep, TableTestProgram
    from harness.runner import run_semantic

    program = (
        TableTestProgram.of("to-timestamp-ltz", "epoch seconds and milliseconds")
        .setup_config("table.local-time-zone", "UTC")
        .setup_table_source(SourceTestStep.new_builder("V")
                            .add_schema("k STRING", "v BIGINT", "d DOUBLE")
                            .producing_before_restore(["a", 1500, 1.5], ["b", None, None])
                            .producing_after_restore(["c", -2001, -2.0015]).build())
        .setup_table_sink(SinkTestStep.new_builder("S")
                          .add_schema("k STRING", "a TIMESTAMP_LTZ(3)", "b TIMESTAMP_LTZ(3)",
                                      "c TIMESTAMP_LTZ(3)", "d TIMESTAMP_LTZ(3)", "e STRING",
                                      "f TIMESTAMP_LTZ(3)")
                          .consuming_before_restore(
                              "+I[a, 1970-01-01T00:00:01.500Z, 1970-01-01T00:25:00Z, "
                              "1970-01-01T00:00:01.500Z, 1970-01-01T00:00:01.500Z, "
                              "1970-01-01 00:00:01.500, 1970-01-01T00:00:00.001Z]",
                              "+I[b, null, null, null, null, null, null]")
                          .consuming_after_restore(
                              "+I[c, 1969-12-31T23:59:57.999Z, 1969-12-31T23:26:39Z, "
                              "1969-12-31T23:59:57.998Z, 1969-12-31T23:59:57.999Z, "
                              "1969-12-31 23:59:57.999, 1969-12-31T23:59:59.997Z]").build())
        .run_sql("INSERT INTO S SELECT k, TO_TIMESTAMP_LTZ(v, 3), TO_TIMESTAMP_LTZ(v, 0), "
                 "TO_TIMESTAMP_LTZ(d, 0), TO_TIMESTAMP_LTZ(v), CAST(TO_TIMESTAMP_LTZ(v, 3) AS "
                 "STRING), TO_TIMESTAMP_LTZ(d, 3) FROM V")
        .build())
    run_semantic(program, spark)          # checks the expected rows


def test_to_date_of_text_it_cannot_read_is_null_as_flinks(spark):
    """TO_DATE(s) as PyFlink 2.3 printed it for the same rows: a date, NULL for text that is
    none (Spark's own TO_DATE fails the query on it). Flink also reads '42' as the year 42 and
    rejects '2024-03-09T10:00'; Spark's cast does the opposite (not in these rows)."""
    from harness import SinkTestStep, SourceTestStep, TableTestProgram
    from harness.runner import run_semantic

    texts = ["2024-03-09", "2024-3-9", "2024-03-09 10:00:00", "x", "", " 2024-03-09",
             "2024-02-30", None, "2024"]
    flink = ["2024-03-09", "2024-03-09", "2024-03-09", "null", "null", "2024-03-09", "null",
             "null", "2024-01-01"]
    program = (
        TableTestProgram.of("to-date", "TO_DATE of text")
        .setup_table_source(SourceTestStep.new_builder("V").add_schema("i INT", "s STRING")
                            .producing_before_restore(*([i, t] for i, t in enumerate(texts)))
                            .producing_after_restore().build())
        .setup_table_sink(SinkTestStep.new_builder("S").add_schema("i INT", "d DATE")
                          .consuming_before_restore(*(f"+I[{i}, {d}]" for i, d in enumerate(flink)))
                          .consuming_after_restore().build())
        .run_sql("INSERT INTO S SELECT i, TO_DATE(s) FROM V")
        .build())
    run_semantic(program, spark)          # checks the expected rows


@pytest.mark.parametrize("text, message", [
    ("TO_TIMESTAMP_LTZ(v, 6)", "the supported value is '0' for second or '3' for millisecond"),
    ("TO_TIMESTAMP_LTZ(v + 1)", "TO_TIMESTAMP_LTZ of one argument whose type is not known here"),
])
def test_to_timestamp_ltz_calls_flink_reads_otherwise_are_refused(text, message):
    with pytest.raises(UnsupportedSqlError, match=message):
        rewritten(text)


def test_an_expression_spark_fails_on_internally_is_a_planning_error_naming_it(spark):
    """Spark's own to_timestamp_ltz of a number fails outside its analysis, as a JVM error
    (SparkException INTERNAL_ERROR); the planner reports it typed, with the expression."""
    from streamplan.errors import PlanningError
    from streamplan.planner.type_resolver import SparkTypeResolver
    from streamplan.types import Field, RowType, parse_type

    row = RowType((Field("v", parse_type("BIGINT")),))
    with pytest.raises(PlanningError, match=r"<where>: Spark could not resolve the "
                                            r"expression\(s\) to_timestamp_ltz\(v, 3\)"):
        SparkTypeResolver(spark).resolve(row, ["to_timestamp_ltz(v, 3)"], None, "<where>")


def over_row(*fields: tuple[str, str, tuple]):
    """A rewrite of Spark SQL text over a row of (name, type, params) columns."""
    from streamplan.types import Field, RowType, SqlType

    row = RowType(tuple(Field(name, SqlType(kind, params)) for name, kind, params in fields))
    return lambda text: spark_builtins(sqlglot.parse_one(text, read="spark"), "<test>",
                                       row).sql(dialect="spark")


def test_a_boolean_cast_to_string_is_upper_case_as_in_flink():
    rewrite = over_row(("ok", "BOOLEAN", ()), ("a", "INT", ()))
    assert rewrite("CAST(ok AS STRING)") == \
        "CASE WHEN ok THEN 'TRUE' WHEN NOT (ok) THEN 'FALSE' END"
    assert rewrite("CAST(a > 1 AS STRING)") == \
        "CASE WHEN a > 1 THEN 'TRUE' WHEN NOT (a > 1) THEN 'FALSE' END"
    assert rewrite("CAST(a AS STRING)") == "CAST(a AS STRING)"      # not a BOOLEAN
    assert rewrite("CAST(CAST('true' AS BOOLEAN) AS STRING)") == (
        "CASE WHEN CAST('true' AS BOOLEAN) THEN 'TRUE' WHEN NOT (CAST('true' AS BOOLEAN)) "
        "THEN 'FALSE' END")
    assert rewrite("CAST(a LIKE 'x!_' ESCAPE '!' AS STRING)") == (
        "CASE WHEN a LIKE 'x!_' ESCAPE '!' THEN 'TRUE' WHEN NOT (a LIKE 'x!_' ESCAPE '!') "
        "THEN 'FALSE' END")


def test_the_text_of_a_computed_timestamp_keeps_its_precision():
    rewrite = over_row(("ts", "TIMESTAMP", (3,)), ("s", "STRING", ()))
    assert rewrite("CAST(ts + INTERVAL '1' HOUR AS STRING)") == \
        "DATE_FORMAT(ts + INTERVAL '1' HOUR, 'yyyy-MM-dd HH:mm:ss.SSS')"
    assert rewrite("CAST(TO_TIMESTAMP(s) AS STRING)") == \
        "DATE_FORMAT(CAST(s AS TIMESTAMP), 'yyyy-MM-dd HH:mm:ss.SSS')"
    # CAST(x AS TIMESTAMP) is a TIMESTAMP(6) in Flink, TO_TIMESTAMP(s) a TIMESTAMP(3)
    assert rewrite("CAST(CAST(s AS TIMESTAMP) AS STRING)") == \
        "DATE_FORMAT(CAST(s AS TIMESTAMP), 'yyyy-MM-dd HH:mm:ss.SSSSSS')"
    assert rewrite("CAST(CAST(s AS TIMESTAMP(0)) AS STRING)") == \
        "DATE_FORMAT(CAST(s AS TIMESTAMP), 'yyyy-MM-dd HH:mm:ss')"
    assert rewrite("CAST(TIMESTAMPADD(SECOND, 1, ts) AS STRING)") == \
        "DATE_FORMAT(DATE_ADD(SECOND, 1, ts), 'yyyy-MM-dd HH:mm:ss.SSS')"
    assert rewrite("CAST(CAST(s AS TIMESTAMP_LTZ(3)) AS STRING)") == \
        "DATE_FORMAT(CAST(s AS TIMESTAMP_LTZ), 'yyyy-MM-dd HH:mm:ss.SSS')"
    # a TIMESTAMP literal has the precision it is written with (Flink 2.3 prints
    # TIMESTAMP '2024-01-01 10:00:00' as 2024-01-01 10:00:00)
    assert rewrite("CAST(TIMESTAMP '2024-01-01 10:00:00' AS STRING)") == \
        "DATE_FORMAT(CAST('2024-01-01 10:00:00' AS TIMESTAMP), 'yyyy-MM-dd HH:mm:ss')"
    assert rewrite("CAST(TIMESTAMP '2024-01-01 10:00:00.120' AS STRING)") == \
        "DATE_FORMAT(CAST('2024-01-01 10:00:00.120' AS TIMESTAMP), 'yyyy-MM-dd HH:mm:ss.SSS')"
    assert rewrite("CAST(s AS STRING)") == "CAST(s AS STRING)"


def test_regexp_replace_takes_its_replacement_literally_as_flink_does(spark):
    """Flink's REGEXP_REPLACE writes '$1' and backslashes as they are (PyFlink 2.3 printed
    'he$1$1$1$1o' for the first call on 'hello'); Spark's would read them as group references
    and escapes. A datetime pattern with a week-based letter is refused while planning (Spark
    fails the running query on it)."""
    from harness import SinkTestStep, SourceTestStep, TableTestProgram
    from harness.runner import run_semantic

    program = (
        TableTestProgram.of("regexp-replace-literal", "literal replacements")
        .setup_table_source(SourceTestStep.new_builder("V").add_schema("s STRING", "r STRING")
                            .producing_before_restore(["hello", "$0"])
                            .producing_after_restore([None, "x"]).build())
        .setup_table_sink(SinkTestStep.new_builder("S")
                          .add_schema("a STRING", "b STRING", "c STRING")
                          .consuming_before_restore("+I[he$1$1$1$1o, he_o, he$0$0o]")
                          .consuming_after_restore("+I[null, null, null]").build())
        .run_sql("INSERT INTO S SELECT REGEXP_REPLACE(s, '(l)', '$1$1'), "
                 "REGEXP_REPLACE(s, 'l+', '_'), REGEXP_REPLACE(s, 'l', r) FROM V")
        .build())
    run_semantic(program, spark)
    with pytest.raises(UnsupportedSqlError, match="the datetime pattern letter 'w'"):
        rewritten("DATE_FORMAT(ts, 'yyyy-ww')")


class ResolvedTypes:
    """The planner's type resolver over fixed column types (Spark's analysis not needed)."""

    def __init__(self, **columns: str):
        from streamplan.types import parse_type

        self.columns = {name: parse_type(text) for name, text in columns.items()}

    def resolve(self, input_row, projection, condition, where):
        return [self.columns[text.strip("`")] for text in projection]


@pytest.mark.parametrize("flink, spark", [
    ("CEIL(d)", "CASE WHEN NOT (ABS(d) < 4503599627370496) OR d = 0 THEN d WHEN d < 0 AND d > -1 "
                "THEN CAST('-0.0' AS DOUBLE) ELSE CAST(CEIL(d) AS DOUBLE) END"),
    ("FLOOR(f)", "CASE WHEN NOT (ABS(f) < 8388608) OR f = 0 THEN f "
                 "ELSE CAST(FLOOR(f) AS FLOAT) END"),
    ("TRUNCATE(d)", "CASE WHEN NOT (ABS(d) < 4503599627370496) THEN d "
                    "ELSE CAST(CAST(d AS BIGINT) AS DOUBLE) END"),
    ("CEIL(m)", "CEIL(m)"),                              # a DECIMAL's is Spark's own
    ("SIGN(m)", "CAST(SIGN(m) AS DECIMAL(10, 2))"),
    ("SIGN(n)", "CAST(SIGN(n) AS INT)"),
    ("SIGN(d)", "SIGN(d)"),
    ("TIMESTAMPADD(MONTH, 1, dt)", "CAST(DATE_ADD(MONTH, 1, dt) AS DATE)"),
    ("TIMESTAMPADD(HOUR, 1, dt)", "CAST(DATE_ADD(HOUR, 1, dt) AS TIMESTAMP)"),
    ("TIMESTAMPADD(HOUR, 1, ts)", "DATE_ADD(HOUR, 1, ts)"),
    ("SIGN(CEIL(m))", "CAST(SIGN(CEIL(m)) AS DECIMAL(10, 2))"),   # innermost first
])
def test_calls_whose_result_type_follows_their_argument_get_flinks(flink, spark):
    from streamplan.planner.flink_result_types import flink_result_types
    from streamplan.types import RowType

    types = ResolvedTypes(d="DOUBLE", f="FLOAT", m="DECIMAL(10, 2)", n="INT", dt="DATE",
                          ts="TIMESTAMP(3)")
    types.columns["CEIL(m)"] = types.columns["m"]
    typed = flink_result_types(sqlglot.parse_one(flink, read="spark"), RowType(()), types, "<test>")
    assert typed.sql(dialect="spark") == spark
    parse_plan_expression(spark)


def test_is_digit_and_is_alpha_test_every_char_as_java_does():
    # Character.isDigit / isLetter of each char: any script, none past the BMP (a surrogate
    # is neither); FALSE for NULL and for '' (COALESCE, and + needs one char)
    assert rewritten("IS_DIGIT(s)") == \
        "COALESCE(s RLIKE '\\\\A[\\\\p{Nd}&&[\\\\x{0}-\\\\x{FFFF}]]+\\\\z', FALSE)"
    assert rewritten("IS_ALPHA(s)") == \
        "COALESCE(s RLIKE '\\\\A[\\\\p{L}&&[\\\\x{0}-\\\\x{FFFF}]]+\\\\z', FALSE)"
    decimal = rewritten("IS_DECIMAL(s)")
    assert decimal.startswith("COALESCE(s RLIKE '\\\\A[\\\\x00-\\\\x20]*[+-]?(NaN|Infinity|")
    assert "TRY_CAST(TRANSLATE(s, '\u0660\u0661" in decimal and decimal.endswith(
        "AS BIGINT) IS NULL), FALSE)")
    for text in ("IS_DIGIT(s)", "IS_ALPHA(s)", "IS_DECIMAL(s)", "INITCAP(s)"):
        parse_plan_expression(rewritten(text))
        assert rewritten(rewritten(text)) == rewritten(text)
    with pytest.raises(UnsupportedSqlError, match="IS_DIGIT with 2 arguments"):
        rewritten("IS_DIGIT(s, t)")


def test_initcap_capitalizes_after_anything_but_an_ascii_letter_or_digit():
    text = rewritten("INITCAP(s)")
    assert text.startswith("REGEXP_REPLACE(" * 26 + "TRANSLATE(s, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', "
                           "'abcdefghijklmnopqrstuvwxyz'), '(?<![A-Za-z0-9])a', 'A')")
    assert text.endswith(", '(?<![A-Za-z0-9])z', 'Z')")


def test_a_boolean_built_in_cast_to_string_is_upper_case():
    rewrite = over_row(("s", "STRING", ()))
    assert rewrite("CAST(IS_ALPHA(s) AS STRING)") == (
        "CASE WHEN COALESCE(s RLIKE '\\\\A[\\\\p{L}&&[\\\\x{0}-\\\\x{FFFF}]]+\\\\z', FALSE) "
        "THEN 'TRUE' WHEN NOT (COALESCE(s RLIKE '\\\\A[\\\\p{L}&&[\\\\x{0}-\\\\x{FFFF}]]+\\\\z', "
        "FALSE)) THEN 'FALSE' END")


@pytest.mark.parametrize("flink, spark", [
    ("EXTRACT(MILLISECOND FROM ts)", "(UNIX_MILLIS(ts) % 1000)"),
    ("EXTRACT(MICROSECOND FROM ts)",
     "(UNIX_MILLIS(ts) % 1000 * 1000 + (UNIX_MICROS(ts) - UNIX_MILLIS(ts) * 1000))"),
    ("EXTRACT(NANOSECOND FROM ts)",
     "((UNIX_MILLIS(ts) % 1000 * 1000 + (UNIX_MICROS(ts) - UNIX_MILLIS(ts) * 1000)) * 1000)"),
    ("EXTRACT(EPOCH FROM ts)", "(UNIX_MILLIS(ts) DIV 1000)"),
    ("EXTRACT(EPOCH FROM lt)", "(UNIX_MILLIS(lt) DIV 1000)"),
    ("EXTRACT(EPOCH FROM dt)",
     "(CAST(DATEDIFF(DAY, CAST('1970-01-01' AS DATE), dt) AS BIGINT) * 86400)"),
    # Flink reads a DATE's day number as milliseconds
    ("EXTRACT(MILLISECOND FROM dt)",
     "(CAST(DATEDIFF(DAY, CAST('1970-01-01' AS DATE), dt) AS BIGINT) % 1000)"),
    ("EXTRACT(HOUR FROM ts)", "EXTRACT(HOUR FROM ts)"),      # spark_builtins' BIGINT cast
    ("IS_DIGIT(n)", "TRUE"), ("IS_DECIMAL(n)", "TRUE"), ("IS_ALPHA(n)", "FALSE"),
    ("IS_DIGIT(d)", "FALSE"), ("IS_DECIMAL(d)", "TRUE"),
    ("IS_DIGIT(m)", "FALSE"), ("IS_DECIMAL(m)", "FALSE"),
    ("IS_DIGIT(s)", "IS_DIGIT(s)"),                          # a string: spark_builtins'
    ("IS_DIGIT('12')", "IS_DIGIT('12')"),
    ("IS_DIGIT(n + 1)", "TRUE"),                             # typed by Spark's analysis
])
def test_calls_whose_result_follows_their_argument_type_get_flinks(flink, spark):
    from streamplan.planner.typed_builtins import typed_builtins
    from streamplan.types import Field, RowType, parse_type

    columns = dict(ts="TIMESTAMP(6)", lt="TIMESTAMP_LTZ(3)", dt="DATE", n="INT", d="DOUBLE",
                   m="DECIMAL(10, 2)", s="STRING")
    row = RowType(tuple(Field(name, parse_type(text)) for name, text in columns.items()))
    types = ResolvedTypes(**columns)
    types.columns["n + 1"] = types.columns["n"]
    typed = typed_builtins(sqlglot.parse_one(flink, read="spark"), row, types, "<test>")
    assert typed.sql(dialect="spark") == spark
    parse_plan_expression(spark)


@pytest.mark.parametrize("text, message", [
    ("EXTRACT(MICROSECOND FROM dt)", "EXTRACT\\(MICROSECOND FROM ...\\) of a DATE"),
    ("IS_ALPHA(b)", "IS_ALPHA of a BOOLEAN"),
])
def test_typed_calls_flink_refuses_are_refused(text, message):
    from streamplan.planner.typed_builtins import typed_builtins
    from streamplan.types import Field, RowType, parse_type

    row = RowType((Field("dt", parse_type("DATE")), Field("b", parse_type("BOOLEAN"))))
    with pytest.raises(UnsupportedSqlError, match=message):
        typed_builtins(sqlglot.parse_one(text, read="spark"), row, ResolvedTypes(), "<test>")


_ARABIC_LONG_MIN = "-" + "".join(chr(0x660 + int(digit)) for digit in "9223372036854775808")

# PyFlink 2.3's IS_DIGIT, IS_ALPHA, IS_DECIMAL (T / F, in that order) and INITCAP of each text
# (a print of `SELECT ... FROM (VALUES ...)`); NULL gives FALSE, FALSE, FALSE and NULL.
FLINK_TEXT_TESTS = [
    ('\xe9Lan', 'FTF', '\xe9Lan'),
    ('\U0001d518', 'FFF', '\U0001d518'),
    ('\U0001d7ce\U0001d7cf', 'FFF', '\U0001d7ce\U0001d7cf'),
    ('1d', 'FFT', '1d'),
    ('1f', 'FFT', '1f'),
    ('NaN', 'FTT', 'Nan'),
    ('Infinity', 'FTT', 'Infinity'),
    ('-Infinity', 'FFT', '-Infinity'),
    ('0x1p3', 'FFT', '0x1p3'),
    ('0x1.8P1', 'FFT', '0x1.8p1'),
    (' 12 ', 'FFT', ' 12 '),
    ('\t12', 'FFT', '\t12'),
    ('12\n', 'FFT', '12\n'),
    ('+5', 'FFT', '+5'),
    ('+', 'FFF', '+'),
    ('-', 'FFF', '-'),
    ('1e', 'FFF', '1e'),
    ('e5', 'FFF', 'E5'),
    ('12345678901234567890123', 'TFT', '12345678901234567890123'),
    ('\u0661\u0662\u0663.\u0665', 'FFF', '\u0661\u0662\u0663.\u0665'),
    ("\u0661" * 25, "TFF", "\u0661" * 25),          # past a BIGINT: not a decimal
    ("\u0669" * 19, "TFF", "\u0669" * 19),
    ("\u0660" * 5 + "\u0661" * 18, "TFT", "\u0660" * 5 + "\u0661" * 18),
    ("\u0660" * 30, "TFT", "\u0660" * 30),
    ('9223372036854775808', 'TFT', '9223372036854775808'),
    (_ARABIC_LONG_MIN, "FFT", _ARABIC_LONG_MIN),            # -2^63 in Arabic digits
    ('a\xc4b ABC', 'FFF', 'A\xc4B Abc'),
    ('x\U0001d518yz', 'FFF', 'X\U0001d518Yz'),
    ('\tabc def', 'FFF', '\tAbc Def'),
    ('a\nb', 'FFF', 'A\nB'),
    ('1.5e-3D', 'FFT', '1.5e-3d'),
    ('1__0', 'FFF', '1__0'),
    ('00012', 'TFT', '00012'),
    ('\u06612', 'TFT', '\u06612'),
    ('nan', 'FTF', 'Nan'),
    ('infinity', 'FTF', 'Infinity'),
    ('+NaN', 'FFT', '+Nan'),
    ('1.', 'FFT', '1.'),
    ('\u0661e5', 'FFF', '\u0661E5'),
    ('\u01c5x \u01c6x', 'FFF', '\u01c5X \u01c6X'),
    ('\ufb01x', 'FTF', '\ufb01X'),
    ('a1B2 c3D4', 'FFF', 'A1b2 C3d4'),
]
# PyFlink 2.3's EXTRACT(MILLISECOND | MICROSECOND | NANOSECOND | EPOCH FROM ts) of a
# TIMESTAMP(6): from the epoch milliseconds with Java's remainder and division.
FLINK_SUBSECONDS = [
    ('1969-12-31 23:59:59.000001', "0, 1, 1000, -1"),
    ('1969-12-31 23:00:00.000000', "0, 0, 0, -3600"),
    ('1969-12-31 23:59:58.000000', "0, 0, 0, -2"),
    ('1969-12-31 23:59:58.500000', "-500, -500000, -500000000, -1"),
    ('1000-01-01 00:00:00.000001', "0, 1, 1000, -30610224000"),
    ('9999-12-31 23:59:59.999999', "999, 999999, 999999000, 253402300799"),
    ('1970-01-01 00:00:00.999999', "999, 999999, 999999000, 0"),
    ('1960-06-15 12:34:56.789012', "-211, -210988, -210988000, -301231503"),
]


def test_text_predicates_initcap_and_subsecond_extracts_give_flinks_rows(spark):
    """The rewrites run on Spark over the texts and timestamps above give PyFlink 2.3's rows:
    digits and letters of every script but none past the Basic Multilingual Plane, Java's
    floating-point text and BIGINT range for IS_DECIMAL, INITCAP only changing ASCII letters,
    sub-second units and epoch seconds negative before 1970."""
    from harness import SinkTestStep, SourceTestStep, TableTestProgram
    from harness.runner import run_semantic

    def flag(letter: str) -> str:
        return "true" if letter == "T" else "false"

    texts = [[i, text] for i, (text, _, _) in enumerate(FLINK_TEXT_TESTS)] + [[-1, None]]
    expected = [f"+I[{i}, {', '.join(flag(letter) for letter in flags)}, {initcap}]"
                for i, (_, flags, initcap) in enumerate(FLINK_TEXT_TESTS)]
    program = (
        TableTestProgram.of("text-predicates", "IS_DIGIT, IS_ALPHA, IS_DECIMAL, INITCAP")
        .setup_table_source(SourceTestStep.new_builder("V").add_schema("i INT", "s STRING")
                            .producing_before_restore(*texts).producing_after_restore().build())
        .setup_table_source(SourceTestStep.new_builder("T").add_schema("i INT", "ts TIMESTAMP(6)")
                            .producing_before_restore(*([i, ts] for i, (ts, _) in
                                                        enumerate(FLINK_SUBSECONDS)))
                            .producing_after_restore().build())
        .setup_table_sink(SinkTestStep.new_builder("S")
                          .add_schema("i INT", "d BOOLEAN", "a BOOLEAN", "m BOOLEAN", "c STRING")
                          .consuming_before_restore(*expected,
                                                    "+I[-1, false, false, false, null]")
                          .consuming_after_restore().build())
        .setup_table_sink(SinkTestStep.new_builder("U")
                          .add_schema("i INT", "ms BIGINT", "us BIGINT", "ns BIGINT", "e BIGINT")
                          .consuming_before_restore(*(f"+I[{i}, {values}]" for i, (_, values)
                                                      in enumerate(FLINK_SUBSECONDS)))
                          .consuming_after_restore().build())
        .run_statement_set(
            "INSERT INTO S SELECT i, IS_DIGIT(s), IS_ALPHA(s), IS_DECIMAL(s), INITCAP(s) FROM V",
            "INSERT INTO U SELECT i, EXTRACT(MILLISECOND FROM ts), EXTRACT(MICROSECOND FROM ts), "
            "EXTRACT(NANOSECOND FROM ts), EXTRACT(EPOCH FROM ts) FROM T")
        .build())
    run_semantic(program, spark)          # checks the expected rows


# PyFlink 2.3's `s SIMILAR TO ...` for each text below, one letter per predicate in
# SIMILAR_PREDICATES' order (T, F; - for NULL): Flink's pattern is a Java regex as
# SqlLikeUtils.sqlToRegexSimilar makes it ('.' any char, '$' and a backslash literal).
SIMILAR_PREDICATES = [
    "SIMILAR TO '%a%'",
    "SIMILAR TO 'a_c'",
    "SIMILAR TO 'a.c'",
    "SIMILAR TO '(abc)+'",
    "SIMILAR TO '[a-c]+'",
    "SIMILAR TO '[^a]%'",
    "SIMILAR TO 'a|abc'",
    "SIMILAR TO '[[:digit:]]+'",
    "SIMILAR TO '[[:ALPHA:]]+[[:DIGIT:]]*'",
    "SIMILAR TO 'a$c'",
    "SIMILAR TO 'a\\c'",
    "SIMILAR TO '%'",
    "SIMILAR TO 'a%'",
    "SIMILAR TO 'a{1,2}b?c*'",
    "SIMILAR TO ''",
    "SIMILAR TO 'A%'",
    "SIMILAR TO 'a-b'",
    "SIMILAR TO '(a|b)*c'",
    "SIMILAR TO '[[:alnum:]]+'",
    "SIMILAR TO '[a\\-c]%'",
    "SIMILAR TO 'a\\_b' ESCAPE '\\'",
    "SIMILAR TO 'a!%b' ESCAPE '!'",
    "NOT SIMILAR TO '%b%'",
    "SIMILAR TO 'a!|b' ESCAPE '!'",
    "SIMILAR TO '[a!-c]+' ESCAPE '!'",
]
FLINK_SIMILAR = [
    ('abc', 'TTTTTFTFTFFTTTFFFTTTFFFFF'),
    ('a.c', 'TTTFFFFFFFFTTFFFFFFTFFTFF'),
    ('aXc', 'TTTFFFFFTFFTTFFFFFTTFFTFF'),
    ('a$c', 'TTTFFFFFFTFTTFFFFFFTFFTFF'),
    ('a\\c', 'TTTFFFFFFFTTTFFFFFFTFFTFF'),
    ('abcabc', 'TFFTTFFFTFFTTFFFFFTTFFFFF'),
    ('', 'FFFFFFFFFFFTFFTFFFFFFFTFF'),
    (None, '-------------------------'),
    ('a\nb', 'TFFFFFFFFFFTTFFFFFFTFFFFF'),
    ('AB12', 'FFFFFTFFTFFTFFFTFFTFFFTFF'),
    ('123', 'FFFFFTFTFFFTFFFFFFTFFFTFF'),
    ('a-b', 'TFFFFFFFFFFTTFFFTFFTFFFFF'),
    ('a|b', 'TFFFFFFFFFFTTFFFFFFTFFFTF'),
    ('a_b', 'TFFFFFFFFFFTTFFFFFFTTFFFF'),
    ('a%b', 'TFFFFFFFFFFTTFFFFFFTFTFFF'),
    ('ab', 'TFFFTFFFTFFTTTFFFFTTFFFFF'),
    ('aab', 'TFFFTFFFTFFTTTFFFFTTFFFFF'),
    ('c', 'FFFFTTFFTFFTFFFFFTTTFFTFT'),
    ('bbc', 'FFFFTTFFTFFTFFFFFTTFFFFFF'),
    ('\xe91', 'FFFFFTFFFFFTFFFFFFFFFFTFF'),
]



def test_similar_to_gives_flinks_rows(spark):
    """SIMILAR TO, its pattern made a Java regex at planning time as Flink makes it, run on
    Spark over the texts above gives PyFlink 2.3's rows."""
    from harness import SinkTestStep, SourceTestStep, TableTestProgram
    from harness.runner import run_semantic

    letters = " || ".join(f"CASE WHEN s {predicate} THEN 'T' WHEN NOT (s {predicate}) THEN 'F' "
                          f"ELSE '-' END" for predicate in SIMILAR_PREDICATES)
    program = (
        TableTestProgram.of("similar-to", "SIMILAR TO as Flink matches it")
        .setup_table_source(SourceTestStep.new_builder("V").add_schema("i INT", "s STRING")
                            .producing_before_restore(*([i, text] for i, (text, _)
                                                        in enumerate(FLINK_SIMILAR)))
                            .producing_after_restore().build())
        .setup_table_sink(SinkTestStep.new_builder("S").add_schema("i INT", "m STRING")
                          .consuming_before_restore(*(f"+I[{i}, {flink}]" for i, (_, flink)
                                                      in enumerate(FLINK_SIMILAR)))
                          .consuming_after_restore().build())
        .run_sql(f"INSERT INTO S SELECT i, {letters} FROM V")
        .build())
    run_semantic(program, spark)          # checks the expected rows


@pytest.mark.parametrize("text, message", [
    ("s SIMILAR TO p", "SIMILAR TO with a pattern that is not a string literal"),
    ("s SIMILAR TO 'a]'", "SIMILAR TO 'a]' (Flink fails on it"),
    ("s SIMILAR TO '[ab'", "SIMILAR TO '[ab' (Flink fails on it"),
    ("s SIMILAR TO '[[:word:]]'", "SIMILAR TO '[[:word:]]' (Flink fails on it"),
    ("s SIMILAR TO 'a!b' ESCAPE '!'", "SIMILAR TO 'a!b' (Flink fails on it"),
    ("s SIMILAR TO 'a' ESCAPE '!!'", "SIMILAR TO with a pattern that is not a string literal"),
])
def test_similar_to_patterns_flink_fails_on_are_refused(text, message):
    with pytest.raises(UnsupportedSqlError, match=re.escape(message)):
        rewritten(text)


# PyFlink 2.3's HASH_CODE of each text (Math.abs of Java's String.hashCode; the hash of
# 'polygenelubricants' is -2^31, which Math.abs leaves as it is).
FLINK_HASH_CODES = [
    ("polygenelubricants", "-2147483648"), ("hello-world_foo bar", "696810415"),
    ("\xe9Lan", "7017456"), ("\U0001d518x", "54945109"), ("", "0"), (None, "null"),
    ("a\nb", "93625"), ("Aa", "2112"), ("BB", "2112"), ("z" * 44, "241934208"),
]


def test_hash_code_gives_flinks_rows(spark):
    """HASH_CODE runs as a Python function (streamplan/functions/builtins.py), an INT."""
    from harness import SinkTestStep, SourceTestStep, TableTestProgram
    from harness.runner import run_semantic

    program = (
        TableTestProgram.of("hash-code", "HASH_CODE as Flink's")
        .setup_table_source(SourceTestStep.new_builder("V").add_schema("i INT", "s STRING")
                            .producing_before_restore(*([i, text] for i, (text, _)
                                                        in enumerate(FLINK_HASH_CODES)))
                            .producing_after_restore().build())
        .setup_table_sink(SinkTestStep.new_builder("S").add_schema("i INT", "h INT", "k INT")
                          .consuming_before_restore(*(f"+I[{i}, {flink}, 96354]" for i, (_, flink)
                                                      in enumerate(FLINK_HASH_CODES)))
                          .consuming_after_restore().build())
        .run_sql("INSERT INTO S SELECT i, HASH_CODE(s), HASH_CODE('abc') FROM V")
        .build())
    run_semantic(program, spark)          # checks the expected rows
