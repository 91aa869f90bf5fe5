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

import re
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterable, Iterator, Optional

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
    exp.RegexpLike, exp.SimilarTo, exp.BitwiseAnd, exp.BitwiseOr, exp.BitwiseXor, exp.BitwiseNot,
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
    exp.Localtimestamp, exp.DateDiff, exp.TimestampTrunc, exp.LastDay, exp.TimestampAdd,
    exp.WeekOfYear, exp.StrToTime, exp.UnixMillis, exp.UnixMicros,
    # conditional and collections
    exp.Coalesce, exp.Nullif, exp.Array, exp.VarMap, exp.Struct, exp.ArraySize,
    exp.ArrayContains, exp.PropertyEQ, exp.ArrayRemove,
)
# Functions sqlglot has no class for (it reads them as exp.Anonymous), by upper-case name.
_NAMED_FUNCTIONS = frozenset({
    "BIN", "BTRIM", "E", "REGEXP", "SPLIT_INDEX", "NOW", "TO_TIMESTAMP_LTZ", "TIMESTAMP_MILLIS",
    "TIMESTAMP_SECONDS", "TIMESTAMP_MICROS", "ISNULL", "ISNOTNULL", "CARDINALITY",
    "ELEMENT_AT", "NAMED_STRUCT", "TRUNCATE", "TYPEOF", "TRY_TO_TIMESTAMP",
    "SHA224", "SHA256", "SHA384", "SHA512", "IS_DIGIT", "IS_ALPHA", "IS_DECIMAL",
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


# Functions that build a value of the size an argument asks for: REPEAT(s, n) is n times s,
# LPAD/RPAD(s, n) n characters. Spark allocates what they build, so a plan (which is data)
# could ask for gigabytes: repeat('x', 1000000000). Bounded rather than refused, as they are
# Flink built-ins that queries use: the size argument must be an integer literal (known at
# load; a column would make the size the data's to choose), and what the call builds from
# the plan's own text — the size times the literal text it repeats, times the counts of the
# REPEATs around it — is at most MAX_BUILT_SIZE characters. SPACE, ARRAY_REPEAT and SEQUENCE
# build sized values too and are not in the language at all (_FUNCTIONS).
MAX_BUILT_SIZE = 10_000
_SIZE_ARGUMENTS = {exp.Repeat: ("times", "count"), exp.Pad: ("expression", "length")}
_INTEGER = re.compile(r"[0-9]{1,12}")


def _sized_name(node: exp.Expression) -> str:
    if isinstance(node, exp.Pad):
        return "LPAD" if node.args.get("is_left") else "RPAD"
    return node.sql_name()


def _size(node: exp.Expression) -> Optional[int]:
    """The size argument of a REPEAT or PAD call when it is an integer literal."""
    argument = node.args.get(_SIZE_ARGUMENTS[type(node)][0])
    if isinstance(argument, exp.Literal) and not argument.is_string and \
            _INTEGER.fullmatch(argument.this):
        return int(argument.this)
    return None


def size_problem(node: exp.Expression) -> Optional[str]:
    """Why a REPEAT or PAD call may build more than MAX_BUILT_SIZE characters, or None."""
    name, (key, what) = _sized_name(node), _SIZE_ARGUMENTS[type(node)]
    size = _size(node)
    if size is None:
        argument = node.args.get(key)
        shown = argument.sql(dialect="spark") if argument is not None else "none"
        shown = shown if len(shown) <= 30 else shown[:27] + "..."
        return (f"function {name} with a {what} that is not an integer literal from 0 to "
                f"{MAX_BUILT_SIZE} ({shown})")
    if size > MAX_BUILT_SIZE:
        return f"function {name} with a {what} of {size} (at most {MAX_BUILT_SIZE})"
    built = size
    if isinstance(node, exp.Repeat):        # LPAD/RPAD build `size` characters, whatever they pad
        built *= max(1, sum(len(text.this) for text in node.this.find_all(exp.Literal)
                            if text.is_string))
    outer = [parent for parent in _ancestors(node) if isinstance(parent, exp.Repeat)]
    for parent in outer:
        built *= _size(parent) or 1         # a parent without a literal count is refused itself
    if built > MAX_BUILT_SIZE:
        around = " nested in REPEAT" if outer else ""
        return (f"function {name}{around} building up to {built} characters from the "
                f"expression's literals (at most {MAX_BUILT_SIZE})")
    return None


def _ancestors(node: exp.Expression):
    parent = node.parent
    while parent is not None:
        yield parent
        parent = parent.parent


# User-defined scalar functions an expression may call besides the built-ins: those a calc
# names in its `functions` (the planner and the plan loader set them while they check it).
_USER_FUNCTIONS: ContextVar[frozenset] = ContextVar("user_functions", default=frozenset())


@contextmanager
def user_functions(names: Iterable[str]) -> Iterator[None]:
    token = _USER_FUNCTIONS.set(frozenset(name.upper() for name in names))
    try:
        yield
    finally:
        _USER_FUNCTIONS.reset(token)


def user_functions_declared() -> frozenset:
    """The user-defined function names expressions may call here (see user_functions)."""
    return _USER_FUNCTIONS.get()


def _is_date_format_argument(node: exp.Expression) -> bool:
    """sqlglot reads DATE_FORMAT(ts, fmt) as TimeToStr(TimeStrToTime(ts), fmt) and writes the
    same DATE_FORMAT back: that wrapper is part of DATE_FORMAT, not a function of its own."""
    return isinstance(node, exp.TimeStrToTime) and isinstance(node.parent, exp.TimeToStr) \
        and node.arg_key == "this"


def disallowed_construct(tree: exp.Expression) -> Optional[str]:
    """The first construct of `tree` an expression may not use, as a user would name it
    (`function REFLECT`, `subquery`), or None when every part is allowed."""
    declared = _USER_FUNCTIONS.get()
    for node in tree.walk():
        if isinstance(node, exp.Literal) and not node.is_string:
            problem = numeric_literal_problem(node.this)
            if problem is not None:
                return problem
        elif isinstance(node, tuple(_SIZE_ARGUMENTS)):
            problem = size_problem(node)
            if problem is not None:
                return problem
        elif isinstance(node, exp.Anonymous):
            if node.name.upper() not in _NAMED_FUNCTIONS | declared:
                return f"function {node.name.upper()}"
        elif isinstance(node, (exp.Select, exp.Subquery, exp.Query)):
            return "subquery"
        elif _is_date_format_argument(node):
            continue
        elif isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
            continue                  # a ROW column's field, r.f (planner/field_access.py)
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
