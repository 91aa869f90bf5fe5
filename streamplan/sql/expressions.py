"""What an expression may use: one rule for the planner (user SQL) and the plan loader.

Expressions reach Spark as Spark SQL text (projections, filters, join conditions, computed
columns). Spark can evaluate far more than streamplan compiles: `reflect`/`java_method` call
any Java method, `raise_error` fails the query, subqueries and lambdas plan jobs of their
own. A plan is data, so a plan file may only carry what the compiler itself would write:
Flink's built-in scalar functions that Spark evaluates alike, operators, casts and literals.
The planner refuses anything else in a query (Flink knows no `reflect` either), and the
loader refuses it in a plan, naming the node and the field.
"""
from __future__ import annotations

import sys
from typing import Optional

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

EXPRESSIONS_HINT = ("streamplan compiles Flink's built-in scalar functions, operators and casts "
                    "(streamplan/sql/expressions.py lists them); Spark-only functions such as "
                    "reflect or java_method are not part of the language.")

# Longest expression text a plan may carry: generous for generated SQL, and it keeps the
# parse of a hostile plan bounded.
MAX_EXPRESSION_CHARS = 20_000

_STRUCTURE = (
    exp.Column, exp.Identifier, exp.Literal, exp.Null, exp.Boolean, exp.HexString, exp.Paren,
    exp.DataType, exp.DataTypeParam, exp.Interval, exp.Var, exp.Cast, exp.TryCast,
    exp.Case, exp.If, exp.Bracket, exp.Extract,
    # operators
    exp.Add, exp.Sub, exp.Mul, exp.Div, exp.IntDiv, exp.Mod, exp.Neg, exp.DPipe,
    exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ,
    exp.And, exp.Or, exp.Not, exp.Is, exp.In, exp.Between, exp.Like, exp.ILike, exp.Escape,
    exp.RegexpLike, exp.BitwiseAnd, exp.BitwiseOr, exp.BitwiseXor, exp.BitwiseNot,
)

# Flink built-ins as sqlglot reads them in Spark SQL (several names share a class:
# CHAR_LENGTH and LENGTH are exp.Length, LOCATE/INSTR/POSITION exp.StrPosition).
_FUNCTIONS = (
    # numeric
    exp.Abs, exp.Ceil, exp.Floor, exp.Round, exp.Trunc, exp.Pow, exp.Sqrt, exp.Cbrt, exp.Exp,
    exp.Ln, exp.Log, exp.Sign, exp.Sin, exp.Cos, exp.Tan, exp.Cot, exp.Asin, exp.Acos,
    exp.Atan, exp.Atan2, exp.Sinh, exp.Cosh, exp.Tanh, exp.Degrees, exp.Radians, exp.Pi,
    exp.Rand, exp.Hex, exp.Unhex, exp.Greatest, exp.Least, exp.IsNan,
    # string
    exp.Length, exp.Upper, exp.Lower, exp.Initcap, exp.Trim, exp.Repeat, exp.Replace,
    exp.Overlay, exp.Substring, exp.Concat, exp.ConcatWs, exp.Pad, exp.RegexpReplace,
    exp.RegexpExtract, exp.RegexpSplit, exp.Reverse, exp.StrPosition, exp.Left, exp.Right,
    exp.Ascii, exp.Chr, exp.MD5, exp.SHA, exp.SHA2, exp.ToBase64, exp.FromBase64,
    exp.Translate, exp.ParseUrl, exp.StartsWith, exp.EndsWith, exp.StrToMap, exp.Elt,
    # time
    exp.TimeToStr, exp.Year, exp.Quarter, exp.Month, exp.Week, exp.DayOfYear, exp.DayOfMonth,
    exp.DayOfWeek, exp.Hour, exp.Minute, exp.Second, exp.TsOrDsAdd, exp.TimestampDiff,
    exp.TsOrDsToDate, exp.StrToUnix, exp.UnixToStr, exp.CurrentDate, exp.CurrentTimestamp,
    exp.Localtimestamp, exp.DateDiff, exp.TimestampTrunc, exp.LastDay,
    # conditional and collections
    exp.Coalesce, exp.Nullif, exp.Array, exp.VarMap, exp.Struct, exp.ArraySize,
    exp.ArrayContains, exp.PropertyEQ,
)
# Functions sqlglot has no class for (it reads them as exp.Anonymous), by upper-case name.
_NAMED_FUNCTIONS = frozenset({
    "BIN", "BTRIM", "E", "REGEXP", "SPLIT_INDEX", "NOW", "TO_TIMESTAMP_LTZ", "TIMESTAMP_MILLIS",
    "TIMESTAMP_SECONDS", "TIMESTAMP_MICROS", "ISNULL", "ISNOTNULL", "CARDINALITY",
    "ELEMENT_AT", "NAMED_STRUCT", "TRUNCATE", "TYPEOF",
})


# Spark's widest numeric literals are DECIMAL(38) and DOUBLE (exponents up to 308): a literal
# far past that is refused before anything converts it (int('1E+999990') takes forever).
_MAX_NUMBER_CHARS = 80
_MAX_EXPONENT = 400


def numeric_literal_problem(text: str) -> Optional[str]:
    """Why a numeric literal's text is out of any SQL type's range, or None."""
    mantissa, _, exponent = text.lower().partition("e")
    digits = len(mantissa.replace(".", "").lstrip("0"))
    if len(text) > _MAX_NUMBER_CHARS or digits > 40 or (
            exponent and abs(int(exponent)) > _MAX_EXPONENT):
        shown = text if len(text) <= 24 else text[:20] + "..."
        return f"a numeric literal {shown} out of range of every numeric type"
    return None


def disallowed_construct(tree: exp.Expression) -> Optional[str]:
    """The first construct of `tree` an expression may not use, as a user would name it
    (`function REFLECT`, `subquery`), or None when every part is allowed."""
    for node in tree.walk():
        if isinstance(node, exp.Literal) and not node.is_string:
            problem = numeric_literal_problem(node.this)
            if problem is not None:
                return problem
        elif isinstance(node, exp.Anonymous):
            if node.name.upper() not in _NAMED_FUNCTIONS:
                return f"function {node.name.upper()}"
        elif isinstance(node, (exp.Select, exp.Subquery, exp.Query)):
            return "subquery"
        elif not isinstance(node, _STRUCTURE + _FUNCTIONS):
            return (f"function {node.sql_name()}" if isinstance(node, exp.Func)
                    else f"{type(node).__name__} expression")
    return None


def parse_plan_expression(text: str) -> exp.Expression:
    """A plan's expression field, parsed and checked; ValueError says what is wrong."""
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ValueError(f"an expression of {len(text)} characters; the compiler writes at most "
                         f"{MAX_EXPRESSION_CHARS}")
    try:
        tree = sqlglot.parse_one(text, read="spark")
    except (ParseError, TokenError) as err:
        raise ValueError(f"not a Spark SQL expression: {str(err).splitlines()[0]}") from None
    except RecursionError:
        raise ValueError(f"an expression nested deeper than Python can read "
                         f"({sys.getrecursionlimit()} levels)") from None
    if tree is None:
        raise ValueError("an empty expression")
    construct = disallowed_construct(tree)
    if construct is not None:
        raise ValueError(f"uses {construct}, which streamplan never compiles into a plan; a plan "
                         f"is data, not code: recompile it from its SQL")
    return tree
