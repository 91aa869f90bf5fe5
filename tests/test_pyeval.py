"""Tests of streamplan.runtime.pyeval: Python evaluation of Spark SQL conditions.

The main test is differential: every expression is evaluated by Spark (`selectExpr`, ANSI
on, session time zone UTC) and by pyeval on the same collected rows, row by row.
"""
from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import pytest
from pyspark.errors import (ArithmeticException, DateTimeException, NumberFormatException,
                            SparkRuntimeException)

from streamplan.errors import PlanningError, SqlSyntaxError, UnsupportedSqlError
from streamplan.runtime.pyeval import compile_expression, compile_predicate, referenced_columns

SCHEMA = ("i INT, j BIGINT, d DECIMAL(10,2), e DECIMAL(5,3), x DOUBLE, y DOUBLE, s STRING, "
          "u STRING, n STRING, tss STRING, b BOOLEAN, ts TIMESTAMP, ts2 TIMESTAMP, dt DATE")
T0 = dt.datetime(2024, 1, 1, 12, 0, 0)
ROWS = [
    (1, 10, Decimal("10.50"), Decimal("1.250"), 2.5, 1.0, "abc", "ABC", "12", "2024-01-01 12:00:00",
     True, T0, T0 + dt.timedelta(minutes=3), dt.date(2024, 1, 1)),
    (-3, 0, Decimal("-7.25"), Decimal("-0.500"), -1.75, float("nan"), "XYZ", "xyz", " -7 ",
     "2024-01-01T13:30:00Z", False, T0 + dt.timedelta(hours=1), T0, dt.date(2023, 12, 31)),
    (None, 5, None, Decimal("0.001"), None, None, None, "", None, None,
     None, None, T0, None),
    (0, None, Decimal("0.00"), None, 0.0, -0.0, "  a%b x ", None, "+3", "2024-1-2 3:04:05.123",
     None, T0 + dt.timedelta(seconds=30, microseconds=120000), None, dt.date(2024, 1, 2)),
    (7, -2, Decimal("12345.67"), Decimal("99.999"), 1234567.891, float("inf"), "ab_x", "abc_x",
     "0", "2024-01-01 12:00:00+02:00", True, T0 - dt.timedelta(days=2), T0 + dt.timedelta(hours=5),
     dt.date(2024, 1, 1)),
    (2, 2, Decimal("2.50"), Decimal("2.500"), 2.675, 1e300, "xxhixx", "Ünïcödé ß", "42",
     "2024-02-29", False, T0 + dt.timedelta(minutes=29, seconds=59), T0 + dt.timedelta(minutes=59),
     dt.date(2024, 2, 29)),
    (-12, 3, Decimal("-0.05"), Decimal("-1.000"), -0.5, 1e-5, "", "a\nb", "-0",
     "2024-01-01 11:59:59.999999", True, T0 + dt.timedelta(microseconds=1),
     T0 - dt.timedelta(minutes=30), dt.date(2000, 1, 1)),
]

EXPRESSIONS = [
    # comparisons, NULL propagation, three-valued logic
    "i > j", "i + j * 2 >= d", "d > e * 2 AND UPPER(s) <> 'XYZ'", "i = j OR s = u",
    "NOT (i > 0)", "b AND i > 0", "b OR i > 0", "NOT b", "i <=> j", "s <=> u",
    "i IS NULL OR s IS NOT NULL", "b IS TRUE", "b IS NOT FALSE", "s < u", "s >= 'b'",
    "i != 1", "x = d", "x * 2 > d", "e + x", "i > 1e0", "y = y", "y > 1e300", "y < x",
    # arithmetic
    "i / NULLIF(j, 0)", "d / 3", "d / 2.0", "d / e > 1", "i % 3", "-i % 3", "x % 2",
    "d % 0.7", "1.5 * i", "i * 1.5D", "-d", "-(i)", "i DIV 2", "d DIV 3", "j - i * 2",
    # predicates on sets / patterns
    "i IN (1, 2, NULL)", "i NOT IN (1, 2)", "s IN ('abc', 'XYZ')", "i BETWEEN -1 AND 5",
    "x NOT BETWEEN 0 AND 10", "d BETWEEN 0 AND NULL", "s LIKE 'a%'", "s NOT LIKE '%_x'",
    "s ILIKE 'A%'", "s LIKE '%!%%' ESCAPE '!'", "u LIKE 'a_b'", "s LIKE u",
    # conditionals
    "CASE WHEN i > 2 THEN 'big' WHEN i > 0 THEN 'small' ELSE s END",
    "CASE s WHEN 'abc' THEN 1 WHEN 'XYZ' THEN 2 END", "COALESCE(i, j, 0)", "IF(i > 0, s, u)",
    "NULLIF(s, 'abc')", "IF(b, 1, 2)",
    # casts
    "CAST(d AS INT)", "CAST(x AS BIGINT)", "CAST(i AS STRING)", "CAST(x AS STRING)",
    "CAST(y AS STRING)", "CAST(d AS STRING)", "CAST(ts AS STRING)", "CAST(dt AS STRING)",
    "CAST(b AS STRING)", "CAST(n AS INT)", "CAST(n AS DECIMAL(6,2))", "CAST(n AS DOUBLE)",
    "CAST(x AS DECIMAL(12,1))", "CAST(ts AS DATE)", "CAST(dt AS TIMESTAMP)",
    "CAST(tss AS TIMESTAMP)", "CAST(tss AS DATE)", "TRY_CAST(s AS INT)", "CAST(i AS BOOLEAN)",
    "CAST(e AS DOUBLE)", "CAST(ts AS BIGINT)", "i = '1'", "x > '1.5'", "d = '10.50'",
    # strings
    "UPPER(u)", "LOWER(u)", "LENGTH(u)", "CHAR_LENGTH(s)", "TRIM(s)", "LTRIM(s)", "RTRIM(s)",
    "TRIM(BOTH 'x' FROM s)", "CONCAT(s, '-', i, '-', d, '-', x, '-', b)", "s || u",
    "SUBSTRING(s, 2)", "SUBSTR(s, -3, 2)", "SUBSTRING(s, 0, i)", "SUBSTRING(u, i, 2)",
    # math
    "ABS(i)", "ABS(d)", "ROUND(x, 2)", "ROUND(d, 1)", "ROUND(i, -1)", "ROUND(x)", "ROUND(d)",
    "FLOOR(x)", "CEIL(x)", "FLOOR(d)", "CEIL(d)",
    # time
    "ts + INTERVAL '5' MINUTE > ts2", "ts - INTERVAL 1 HOUR", "ts + INTERVAL '1500' MILLISECOND",
    "ts2 BETWEEN ts - INTERVAL '1' DAY AND ts + INTERVAL '10' SECOND", "ts > dt",
    "ts >= '2024-01-01 12:00:00'", "dt + INTERVAL '1' DAY", "dt + INTERVAL '3' HOUR",
    "ts2 - ts > INTERVAL '30' MINUTE", "ts2 - ts", "dt = '2024-01-01'", "dt + 1",
    "ts < TIMESTAMP '2024-01-01 12:30:00'", "ts + INTERVAL 2 HOURS 30 MINUTES",
    "ts2 - ts < INTERVAL '1' DAY", "dt - DATE '2023-12-01' > INTERVAL '10' DAY",
    "dt + INTERVAL '72' HOUR", "dt - INTERVAL '1' WEEK", "dt + (dt - DATE '2023-12-30')",
    # evaluation order and NULL folding: Spark evaluates a divisor first
    "(1e1 / j) % IF(b, 2, NULL)", "s NOT ILIKE 'a%'", "CONCAT(NULL, CAST(u AS INT))",
    "1e1 % j > 0 AND 1 = 2", "1e1 % j > 0 OR 2 > 1",
]


@pytest.fixture(scope="module")
def frame(spark):
    return spark.createDataFrame(ROWS, SCHEMA)


@pytest.fixture(scope="module")
def table(frame):
    """The rows as Python sees them after a round trip, plus Spark's answer per expression."""
    df = frame
    rows = [row.asDict() for row in df.collect()]
    expected = {}
    for start in range(0, len(EXPRESSIONS), 25):      # a few projections: codegen stays small
        chunk = EXPRESSIONS[start:start + 25]
        answers = df.selectExpr(*[f"{e} AS c{k}" for k, e in enumerate(chunk)]).collect()
        expected.update({e: [answer[k] for answer in answers] for k, e in enumerate(chunk)})
    return rows, expected


def same(ours, theirs) -> bool:
    """Equal values of the same kind; NaN equals NaN; bool never equals a number."""
    if ours is None or theirs is None:
        return ours is None and theirs is None
    if isinstance(ours, bool) or isinstance(theirs, bool):
        return type(ours) is type(theirs) and ours == theirs
    if isinstance(ours, float) and isinstance(theirs, float):
        return (math.isnan(ours) and math.isnan(theirs)) or ours == theirs
    if isinstance(ours, (int, float, Decimal)) and isinstance(theirs, (int, float, Decimal)):
        return ours == theirs
    return type(ours) is type(theirs) and ours == theirs


@pytest.mark.spark
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_matches_spark(table, expression):
    rows, expected = table
    fn = compile_expression(expression, columns=rows[0].keys())
    ours = [fn(row) for row in rows]
    mismatches = [(k, ours[k], expected[expression][k]) for k in range(len(rows))
                  if not same(ours[k], expected[expression][k])]
    assert not mismatches, f"{expression}: (row, pyeval, spark) {mismatches}"


# (expression, Spark's error condition, the PySpark class Spark's error arrives as, the class
# pyeval raises). pyeval puts Spark's condition in brackets at the start of its message.
ERRORS = [
    ("i / j", "DIVIDE_BY_ZERO", ArithmeticException, ZeroDivisionError),              # j = 0
    ("i % j", "REMAINDER_BY_ZERO", ArithmeticException, ZeroDivisionError),
    ("CAST(s AS INT)", "CAST_INVALID_INPUT", NumberFormatException, ValueError),      # 'abc'
    ("CAST(u AS BOOLEAN)", "CAST_INVALID_INPUT", SparkRuntimeException, ValueError),  # 'ABC'
    ("CAST(y AS BIGINT)", "CAST_OVERFLOW", ArithmeticException, OverflowError),       # NaN
    ("CAST(d AS DECIMAL(4,2))", "NUMERIC_VALUE_OUT_OF_RANGE", ArithmeticException,    # 12345.67
     OverflowError),
    ("i = s", "CAST_INVALID_INPUT", NumberFormatException, ValueError),               # s -> BIGINT
    ("CAST(tss || 'x' AS TIMESTAMP)", "CAST_INVALID_INPUT", DateTimeException, ValueError),
]


@pytest.mark.spark
@pytest.mark.parametrize("expression, condition, spark_error, pyeval_error", ERRORS)
def test_raises_where_spark_raises(frame, table, expression, condition, spark_error, pyeval_error):
    """ANSI mode: division by zero, malformed casts and overflow fail the query, and pyeval
    fails for the same reason (the same error condition)."""
    with pytest.raises(spark_error, match=rf"^\[{condition}[\].]"):
        frame.selectExpr(expression).collect()
    fn = compile_expression(expression)
    with pytest.raises(pyeval_error, match=rf"^\[{condition}\]"):
        for row in table[0]:
            fn(row)


# ----------------------------------------------------------------------------- unit tests

@pytest.mark.parametrize("a", [True, False, None])
@pytest.mark.parametrize("b", [True, False, None])
def test_three_valued_logic(a, b):
    row = {"a": a, "b": b}
    known = [v for v in (a, b) if v is not None]
    expect_and = False if False in known else (None if None in (a, b) else True)
    expect_or = True if True in known else (None if None in (a, b) else False)
    assert compile_predicate("a AND b")(row) is expect_and
    assert compile_predicate("a OR b")(row) is expect_or
    assert compile_predicate("NOT a")(row) is (None if a is None else not a)
    assert compile_predicate("a <=> b")(row) is (a is b)
    assert compile_predicate("a = b")(row) is (None if None in (a, b) else a == b)


def test_null_comparisons_and_in_list():
    p = compile_predicate
    assert p("a > 1")({"a": None}) is None
    assert p("a IN (1, NULL)")({"a": 1}) is True
    assert p("a IN (1, NULL)")({"a": 2}) is None
    assert p("a NOT IN (1, NULL)")({"a": 2}) is None
    assert p("a NOT IN (1, 3)")({"a": 2}) is True
    assert p("a IS NULL")({"a": None}) is True
    assert p("a BETWEEN 1 AND NULL")({"a": 0}) is False


def test_condition_from_the_brief():
    p = compile_predicate("o_amount > s_amount * 2 AND UPPER(`s status`) <> 'CANCELLED'",
                          columns=["o_amount", "s_amount", "s status"])
    assert p({"o_amount": Decimal("10.01"), "s_amount": 5, "s status": "ok"}) is True
    assert p({"o_amount": Decimal("10.00"), "s_amount": 5, "s status": "ok"}) is False
    assert p({"o_amount": 11, "s_amount": 5, "s status": "cancelled"}) is False
    assert p({"o_amount": 11, "s_amount": None, "s status": "ok"}) is None


def test_unsupported_function_fails_at_compile_time():
    with pytest.raises(UnsupportedSqlError, match="^unsupported: function REGEXP_EXTRACT in a join condition"):
        compile_predicate("regexp_extract(s, 'a(b)', 1) = 'b'")
    with pytest.raises(UnsupportedSqlError, match="^unsupported: function MY_UDF in a join condition"):
        compile_predicate("my_udf(s) > 1")
    with pytest.raises(UnsupportedSqlError, match=r"^unsupported: IN `a IN \(SELECT 1\)` with QUERY"):
        compile_predicate("a IN (SELECT 1)")
    with pytest.raises(UnsupportedSqlError, match="^unsupported: INTERVAL `INTERVAL '1' MONTH`"):
        compile_predicate("t + INTERVAL 1 MONTH > u")
    with pytest.raises(UnsupportedSqlError, match=r"^unsupported: non-BOOLEAN expression `a \+ 1` as a join"):
        compile_predicate("a + 1")


def test_unknown_column_fails_at_compile_time_when_the_columns_are_known_else_at_run_time():
    with pytest.raises(PlanningError, match="^unknown column `zz` in a join condition; known columns: a, b$"):
        compile_predicate("a > 1 AND zz < 2", columns=["a", "b"])
    predicate = compile_predicate("zz > 1")            # no columns given: nothing to check against
    with pytest.raises(KeyError, match="^'zz'$"):
        predicate({"a": 1})


def test_column_names_resolve_case_insensitively_when_known():
    p = compile_predicate("AMOUNT > 1 AND `Status` = 'x'", columns=["amount", "status"])
    assert p({"amount": 2, "status": "x"}) is True


def test_syntax_error():
    text = "a > (1"
    with pytest.raises(SqlSyntaxError, match=r"^<expression>:1:6: syntax error: Expecting \)$") as info:
        compile_predicate(text)
    # sqlglot reports the last token read, the `1` at the end where the ')' is missing
    assert (info.value.line, info.value.column) == (1, len(text))


def test_bad_constant_like_pattern_fails_at_compile_time():
    # A plain ValueError, not a streamplan error like the other compile-time failures.
    with pytest.raises(ValueError, match=r"^LIKE pattern 'a\\\\' must not end with the escape character$"):
        compile_predicate("s LIKE 'a\\\\'")


def test_referenced_columns():
    assert referenced_columns("o.amount > `s amount` * 2 AND UPPER(status) <> 'X'") == {
        "o.amount", "s amount", "status"}
    assert referenced_columns("1 = 1") == set()


def test_literal_types_follow_spark():
    # `==` alone cannot see the type (1.5 == Decimal("1.5"), 3.0 == 3): check it too.
    # Spark: 1.5 is DECIMAL(2,1), 1.5e0 DOUBLE, INT / INT is DOUBLE, DIV gives BIGINT, % INT.
    value = compile_expression("1.5")({})
    assert type(value) is Decimal and value == Decimal("1.5")
    assert isinstance(compile_expression("1.5e0")({}), float)
    value = compile_expression("7 / 2")({})
    assert type(value) is float and value == 3.5
    value = compile_expression("7 DIV 2")({})
    assert type(value) is int and value == 3
    value = compile_expression("-7 % 3")({})
    assert type(value) is int and value == -1
    assert compile_expression("TRY_CAST('x' AS INT)")({}) is None
    assert compile_expression("CAST('2024-01-01 10:00:00' AS TIMESTAMP)")({}) == dt.datetime(
        2024, 1, 1, 10)


def test_predicate_rejects_non_boolean_values_at_run_time():
    with pytest.raises(TypeError, match=r"^a join condition `a` evaluated to 1, not a BOOLEAN$"):
        compile_predicate("a")({"a": 1})
