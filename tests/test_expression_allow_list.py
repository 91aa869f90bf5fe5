"""The expression allow-list (streamplan/sql/expressions.py), one rule for the planner and
the plan loader: what it refuses, category by category, and the bound on what the functions
that build sized values may build (issue 34: repeat('x', 1000000000) made a plan a memory
bomb). The allow-list itself is pinned: widening it, on purpose or not, fails a test here
until the new entry is reviewed and added below."""
from __future__ import annotations

import pytest

from sqlglot import exp

from streamplan.errors import UnsupportedSqlError
from streamplan.options import Configuration
from streamplan.planner.planner import PlanBuilder
from streamplan.sql import expressions
from streamplan.sql.expressions import MAX_BUILT_SIZE, parse_plan_expression
from streamplan.sql.parser import parse_script

# category -> (expression, the construct the refusal names)
REFUSED = {
    "Spark-only functions that run code, fail the query or read the session": [
        ("reflect('java.lang.System', 'exit', '0')", "function REFLECT"),
        ("java_method('java.lang.Runtime', 'getRuntime')", "function JAVA_METHOD"),
        ("try_reflect('java.lang.System', 'exit', '0')", "function TRY_REFLECT"),
        ("raise_error('no')", "function RAISE_ERROR"),
        ("assert_true(`a` > 0)", "function ASSERT_TRUE"),
        ("input_file_name()", "function INPUT_FILE_NAME"),
        ("current_user()", "function CURRENT_USER"),
        ("uuid()", "function UUID"),
        ("printf('%s', `a`)", "function PRINTF"),
        ("from_json(`a`, 'x INT')", "function FROM_JSON"),
    ],
    "subqueries": [
        ("`a` IN (SELECT 1)", "subquery"),
        ("(SELECT 1)", "subquery"),
        ("`a` = (SELECT max(b) FROM t)", "subquery"),
        ("EXISTS (SELECT 1)", "function EXISTS"),
    ],
    "lambdas": [
        ("transform(array(1), x -> x)", "function TRANSFORM"),
        ("filter(array(1), x -> x > 0)", "function FILTER"),
        ("aggregate(array(1), 0, (acc, x) -> acc + x)", "function REDUCE"),
        ("exists(array(1), x -> x > 0)", "function EXISTS"),
    ],
    "generators": [
        ("explode(`a`)", "function EXPLODE"),
        ("posexplode(`a`)", "function POSEXPLODE"),
        ("inline(`a`)", "function INLINE"),
        ("stack(2, 1, 2)", "function STACK"),
    ],
    "aggregates and window functions": [
        ("count(`a`)", "function COUNT"),
        ("sum(`a`)", "function SUM"),
        ("collect_list(`a`)", "function ARRAY_AGG"),
        ("row_number() OVER (ORDER BY `a`)", "Window expression"),
    ],
    "functions building sized values outside the language": [
        ("space(5)", "function SPACE"),
        ("array_repeat('x', 5)", "function ARRAY_REPEAT"),
        ("sequence(1, 5)", "function GENERATE_SERIES"),
        ("randstr(5)", "function RANDSTR"),
    ],
    "numeric literals beyond every type": [
        ("`a` > 1E+999990", r"a numeric literal 1E\+999990 out of range"),
        ("9" * 50, r"a numeric literal 9{20}\.\.\. out of range"),
    ],
    "unknown functions": [
        ("no_such_fn(`a`)", "function NO_SUCH_FN"),
    ],
}

# family -> (expression, the construct the refusal names): size arguments are integer
# literals, and what a call builds from the expression's literals is at most MAX_BUILT_SIZE.
OVERSIZED = {
    "REPEAT": [
        ("repeat('x', 1000000000)", r"function REPEAT with a count of 1000000000 \(at most "
                                    r"10000\)"),
        ("repeat(`a`, `n`)", r"function REPEAT with a count that is not an integer literal from 0 "
                             r"to 10000 \(`n`\)"),
        ("repeat('x', 1e3)", r"function REPEAT with a count that is not an integer literal "
                             r".*\(1e3\)"),
        ("repeat('x', CAST(5 AS INT))", r"function REPEAT with a count that is not an integer"),
        ("repeat('xyz', 5000)", r"function REPEAT building up to 15000 characters from the "
                                r"expression's literals \(at most 10000\)"),
        ("repeat(repeat('x', 200), 200)", r"function REPEAT nested in REPEAT building up to "
                                          r"40000 characters"),
    ],
    "LPAD and RPAD": [
        ("lpad(`a`, 2000000000, 'x')", r"function LPAD with a length of 2000000000 \(at most "
                                       r"10000\)"),
        ("rpad(`a`, 10001)", r"function RPAD with a length of 10001 \(at most 10000\)"),
        ("lpad(`a`, `n`, '0')", r"function LPAD with a length that is not an integer literal "
                                r"from 0 to 10000 \(`n`\)"),
        ("rpad(`a`, -1)", r"function RPAD with a length that is not an integer literal .*\(-1\)"),
        ("repeat(lpad(`a`, 5000), 3)", r"function LPAD nested in REPEAT building up to 15000"),
    ],
}

WITHIN_BOUNDS = ["repeat('x', 10000)", "repeat(`a`, 3)", "repeat(repeat('x', 100), 100)",
                 "lpad(`a`, 10000, '0')", "rpad(`a`, 0)", "lpad(repeat('x', 100), 5000)",
                 "concat(repeat('-', 80), `a`)"]


def cases(table: dict) -> list:
    return [pytest.param(text, construct, id=f"{category}: {text}"[:80])
            for category, entries in table.items() for text, construct in entries]


@pytest.mark.parametrize("text, construct", cases(REFUSED) + cases(OVERSIZED))
def test_the_plan_loader_refuses_it_by_name(text, construct):
    with pytest.raises(ValueError, match=rf"^uses {construct}.*, which streamplan never "
                                         r"compiles into a plan; a plan is data, not code"):
        parse_plan_expression(text)


def test_every_category_refuses_something():
    assert all(REFUSED.values()) and all(OVERSIZED.values())
    assert MAX_BUILT_SIZE == 10_000               # the messages above say so


@pytest.mark.parametrize("text", WITHIN_BOUNDS)
def test_sized_functions_within_the_bound_are_allowed(text):
    parse_plan_expression(text)


class _NoSpark:
    def resolve(self, *args, **kwargs):
        raise AssertionError("the planner asked Spark before refusing the expression")


@pytest.mark.parametrize("text, construct", cases(OVERSIZED))
def test_the_planner_refuses_the_same_with_its_position(text, construct):
    statements = parse_script("CREATE TABLE T (a STRING, n INT) WITH ('connector' = 'values');\n"
                              "CREATE TABLE S (a STRING) WITH ('connector' = 'values');\n"
                              f"INSERT INTO S SELECT {text.replace('`', '')} FROM T")
    catalog = {statement.name: statement for statement in statements[:2]}
    with pytest.raises(UnsupportedSqlError, match=rf"^unsupported: {construct}.* at "
                                                  r"<script>:3:1\. streamplan compiles"):
        PlanBuilder(catalog, Configuration(), _NoSpark()).plan([statements[2]])


# The allow-list as reviewed. A new entry must be added here too, after asking: can it run
# code, read the environment, fail the query, or build a value of a size its argument asks
# for (then it needs a bound in expressions.size_problem)?
ALLOWED_STRUCTURE = [
    "Add", "And", "Between", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor", "Boolean",
    "Bracket", "Case", "Cast", "Column", "DPipe", "DataType", "DataTypeParam", "Div", "EQ",
    "Escape", "Extract", "GT", "GTE", "HexString", "ILike", "Identifier", "If", "In", "IntDiv",
    "Interval", "Is", "LT", "LTE", "Like", "Literal", "Mod", "Mul", "NEQ", "Neg", "Not", "Null",
    "NullSafeEQ", "NullSafeNEQ", "Or", "Paren", "RegexpLike", "SimilarTo", "Sub", "TryCast",
    "Var"]
ALLOWED_FUNCTIONS = [
    "Abs", "Acos", "Array", "ArrayContains", "ArrayRemove", "ArraySize", "Ascii", "Asin", "Atan", "Atan2",
    "Cbrt", "Ceil", "Chr", "Coalesce", "Concat", "ConcatWs", "Cos", "Cosh", "Cot", "CurrentDate",
    "CurrentTimestamp", "DateDiff", "DayOfMonth", "DayOfWeek", "DayOfYear", "Degrees", "Elt",
    "EndsWith", "Exp", "Floor", "FromBase64", "Greatest", "Hex", "Hour", "Initcap", "IsNan",
    "LastDay", "Least", "Left", "Length", "Ln", "Localtimestamp", "Log", "Lower", "MD5",
    "Minute", "Month", "Nullif", "Overlay", "Pad", "ParseUrl", "Pi", "Pow", "PropertyEQ",
    "Quarter", "Radians", "Rand", "RegexpExtract", "RegexpReplace", "RegexpSplit", "Repeat",
    "Replace", "Reverse", "Right", "Round", "SHA", "SHA2", "Second", "Sign", "Sin", "Sinh",
    "Sqrt", "StartsWith", "StrPosition", "StrToMap", "StrToTime", "StrToUnix", "Struct", "Substring", "Tan",
    "Tanh", "TimeToStr", "TimestampAdd", "TimestampDiff", "TimestampTrunc", "ToBase64", "Translate", "Trim",
    "Trunc", "TsOrDsAdd", "TsOrDsToDate", "Unhex", "UnixMicros", "UnixMillis", "UnixToStr", "Upper", "VarMap", "Week", "WeekOfYear", "Year"]
ALLOWED_NAMED = [
    "BIN", "BTRIM", "CARDINALITY", "E", "ELEMENT_AT", "ISNOTNULL", "ISNULL", "IS_ALPHA",
    "IS_DECIMAL", "IS_DIGIT", "NAMED_STRUCT",
    "NOW", "REGEXP", "SHA224", "SHA256", "SHA384", "SHA512", "SPLIT_INDEX", "TIMESTAMP_MICROS",
    "TIMESTAMP_MILLIS", "TIMESTAMP_SECONDS", "TO_TIMESTAMP_LTZ", "TRUNCATE", "TRY_TO_TIMESTAMP",
    "TYPEOF"]
SIZED = ["Pad", "Repeat"]


def test_the_allow_list_is_the_reviewed_one():
    assert sorted(kind.__name__ for kind in expressions._STRUCTURE) == ALLOWED_STRUCTURE
    assert sorted(kind.__name__ for kind in expressions._FUNCTIONS) == ALLOWED_FUNCTIONS
    assert sorted(expressions._NAMED_FUNCTIONS) == ALLOWED_NAMED
    assert sorted(kind.__name__ for kind in expressions._SIZE_ARGUMENTS) == SIZED


def test_a_field_access_is_allowed_and_other_dotted_calls_are_not():
    import sqlglot

    from streamplan.planner.field_access import with_field_access
    from streamplan.sql.dialect import FlinkSql

    query = with_field_access(sqlglot.parse_one("SELECT r.f, o.r.g.h FROM o", read=FlinkSql), {"o"})
    assert all(isinstance(item, exp.Dot) for item in query.expressions)
    assert [expressions.disallowed_construct(item) for item in query.expressions] == [None, None]
    call = exp.Dot(this=exp.column("r"), expression=exp.Anonymous(this="reflect"))
    assert expressions.disallowed_construct(call) is not None
