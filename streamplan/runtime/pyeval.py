"""Spark SQL scalar expressions evaluated in plain Python, with Spark 4 (ANSI) semantics.

A stateful operator (the interval join) runs inside a transformWithState Python worker,
where Spark's evaluator is out of reach, yet its extra join condition must decide exactly
what Spark would. The condition is parsed once with sqlglot and turned into a tree of
closures over a row mapping (no eval/exec of generated source).

Values are plain Python: int (TINYINT..BIGINT), Decimal (DECIMAL), float (FLOAT/DOUBLE),
str, bool, datetime (TIMESTAMP, naive = session time zone, which streamplan pins to UTC),
date, timedelta (day-time INTERVAL). Only column names are known, not column types, so
Spark's static type rules are applied to the runtime types of the values: int / int is
DOUBLE, anything with a float is DOUBLE, else anything with a Decimal is DECIMAL, a string
next to a number / timestamp / date / boolean is cast to that type, and so on.

Known differences, all from the missing static types: CASE/IF/COALESCE branches are not
unified to a common type (Spark's `IF(c, 1, 2.5D)` is 1.0, here 1); a DECIMAL quotient is
rounded at Spark's scale only for a literal divisor, else kept to 38 digits; FLOAT values
print as DOUBLE; integer overflow is not detected.
"""
from __future__ import annotations
from .timestamps import EPOCH

import datetime as dt
import math
import operator
import re
import struct
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Context, Decimal, InvalidOperation
from functools import lru_cache
from typing import Any, Callable, Collection, Mapping, Optional

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from ..durations import INTERVAL_UNITS_MS
from ..errors import PlanningError, SqlSyntaxError, UnsupportedSqlError

Row = Mapping[str, Any]
Fn = Callable[[Row], Any]
_T = exp.DataType.Type

_CTX = Context(prec=38, rounding=ROUND_HALF_UP)    # Spark's DECIMAL(38) cap, Java's HALF_UP
_WIDE = Context(prec=100, rounding=ROUND_HALF_UP)  # quantize without spurious precision errors
_WHITESPACE = "".join(map(chr, range(33)))         # Spark trims all chars <= ' ' before casts
_HINT = ("The condition is evaluated in Python inside the stateful operator (see "
         "streamplan/runtime/pyeval.py for what it supports); rewrite it with supported "
         "constructs or apply that part as a filter after the join.")


# ----------------------------------------------------------------------------- public API

def compile_predicate(sql: str, *, columns: Optional[Collection[str]] = None,
                      context: str = "a join condition") -> Callable[[Row], Optional[bool]]:
    """Compile a Spark SQL boolean expression; the callable returns True, False or None (NULL)."""
    node = root = _parse(sql)
    while isinstance(root, exp.Paren):
        root = root.this
    if isinstance(root, _VALUE_NODES):
        raise UnsupportedSqlError(f"non-BOOLEAN expression `{sql}` as {context}", hint=_HINT)
    fn = _Compiler(columns, context).build(node)

    def predicate(row: Row) -> Optional[bool]:
        value = fn(row)
        if value is None or isinstance(value, bool):
            return value
        raise TypeError(f"{context} `{sql}` evaluated to {value!r}, not a BOOLEAN")
    return predicate


def compile_expression(sql: str, *, columns: Optional[Collection[str]] = None,
                       context: str = "an expression evaluated in Python") -> Fn:
    """Compile a Spark SQL scalar expression into a callable over a row mapping."""
    return _Compiler(columns, context).build(_parse(sql))


def referenced_columns(sql: str) -> set[str]:
    """Names of the columns an expression reads (qualified ones dotted), as written."""
    return {_column_name(column) for column in _parse(sql).find_all(exp.Column)}


# ----------------------------------------------------------------------------- compiler

def _parse(sql: str) -> exp.Expression:
    try:
        return sqlglot.parse_one(sql, read="spark")
    except ParseError as error:
        first = error.errors[0] if error.errors else {}
        raise SqlSyntaxError(first.get("description", str(error)), first.get("line", 1),
                             first.get("col", 1), source="<expression>") from error
    except TokenError as error:
        raise SqlSyntaxError(str(error), 1, 1, source="<expression>") from error


def _column_name(node: exp.Column) -> str:
    return ".".join(part.name for part in node.parts)


class _Compiler:
    """Builds closures bottom-up; fails at compile time for anything it cannot evaluate."""

    def __init__(self, columns: Optional[Collection[str]], context: str):
        self.columns = None if columns is None else list(columns)
        self.context = context

    def build(self, node: exp.Expression) -> Fn:
        entry = _BUILDERS.get(type(node))
        if entry is None:
            raise self.unsupported(node)
        builder, understood = entry
        for name, value in node.args.items():
            if value and name not in understood:
                raise self.unsupported(node, f"{_describe(node)} with {name.upper()}")
        fn = builder(self, node)
        if node.find(exp.Column) is None and not isinstance(node, _LEAVES):
            try:                       # constant subtree: evaluate once (Spark folds it too)
                value = fn({})
            except (ArithmeticError, ValueError, TypeError):
                return fn              # ... but an error surfaces per row, as in Spark
            return _const(value)
        return fn

    def constant(self, node: exp.Expression, what: str) -> Any:
        """Value of an argument Spark requires to be foldable (ROUND scale, LIKE escape)."""
        if node.find(exp.Column) is not None:
            raise self.unsupported(node, f"non-constant {what}")
        return self.build(node)({})

    def resolve(self, node: exp.Column) -> str:
        """Column name as the row mapping spells it; case-insensitive like Spark when known."""
        if not isinstance(node.this, exp.Identifier):
            raise self.unsupported(node)
        name = _column_name(node)
        if self.columns is None:
            if len(node.parts) > 1:
                raise self.unsupported(node, f"qualified column reference {name}")
            return name
        if name in self.columns:
            return name
        matches = [column for column in self.columns if column.lower() == name.lower()]
        if len(matches) == 1:
            return matches[0]
        problem = "ambiguous" if matches else "unknown"
        raise PlanningError(f"{problem} column `{name}` in {self.context}; "
                            f"known columns: {', '.join(self.columns)}")

    def unsupported(self, node: exp.Expression, what: Optional[str] = None) -> UnsupportedSqlError:
        return UnsupportedSqlError(f"{what or _describe(node)} in {self.context}", hint=_HINT)


def _describe(node: exp.Expression) -> str:
    if isinstance(node, exp.Anonymous):
        return f"function {node.name.upper()}"
    if isinstance(node, exp.Func):
        return f"function {node.sql_name()}"
    return f"{type(node).__name__.upper()} `{node.sql(dialect='spark')}`"


class _Const:
    """A folded constant; recognisable so a NULL argument can fold its parent to NULL."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __call__(self, row: Row) -> Any:
        return self.value


_const = _Const


def _is_null(fn: Fn) -> bool:
    return isinstance(fn, _Const) and fn.value is None


# ----------------------------------------------------------------------------- value rules

def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)


def _type_name(v: Any) -> str:
    return type(v).__name__


def _dec(v: Decimal) -> Decimal:
    """Java's BigDecimal has no negative zero; Python's Decimal does (e.g. -0.5 * 0)."""
    return v.copy_abs() if v.is_zero() else v


def _naive(v: dt.datetime) -> dt.datetime:
    return v if v.tzinfo is None else v.astimezone(dt.timezone.utc).replace(tzinfo=None)


def _comparable(a: Any, b: Any) -> tuple[Any, Any]:
    """Spark's implicit casts before a comparison: widen numbers, cast strings to the peer."""
    if type(a) is type(b):
        return (_naive(a), _naive(b)) if isinstance(a, dt.datetime) else (a, b)
    if isinstance(a, str) and type(b) in _STRING_PEER:
        return _comparable(_STRING_PEER[type(b)](a), b)
    if isinstance(b, str) and type(a) in _STRING_PEER:
        return _comparable(a, _STRING_PEER[type(a)](b))
    if _is_number(a) and _is_number(b):
        return (float(a), float(b)) if isinstance(a, float) or isinstance(b, float) else (a, b)
    if isinstance(a, dt.date) and isinstance(b, dt.date):   # DATE widens to TIMESTAMP
        return _to_timestamp(a), _to_timestamp(b)
    if isinstance(a, dt.timedelta) and isinstance(b, dt.timedelta):
        return a, b
    raise TypeError(f"cannot compare {_type_name(a)} {a!r} with {_type_name(b)} {b!r}")


def _compare(a: Any, b: Any, op: Callable[[Any, Any], bool]) -> bool:
    a, b = _comparable(a, b)
    if isinstance(a, float) and (a != a or b != b):        # Spark: NaN = NaN, NaN > all
        a, b = ((1, 0.0) if a != a else (0, a)), ((1, 0.0) if b != b else (0, b))
    return op(a, b)


def _arith_operands(a: Any, b: Any) -> tuple[Any, Any]:
    """Widen for arithmetic: any DOUBLE makes both DOUBLE, else any DECIMAL both DECIMAL."""
    if isinstance(a, str) and _is_number(b):
        a = _to_int(a) if type(b) is int else _to_double(a)
    elif isinstance(b, str) and _is_number(a):
        b = _to_int(b) if type(a) is int else _to_double(b)
    if not (_is_number(a) and _is_number(b)):
        raise TypeError(f"arithmetic on {_type_name(a)} {a!r} and {_type_name(b)} {b!r}")
    if isinstance(a, float) or isinstance(b, float):
        return float(a), float(b)
    if isinstance(a, Decimal) or isinstance(b, Decimal):
        return Decimal(a), Decimal(b)
    return a, b


class _Days(dt.timedelta):
    """An INTERVAL DAY (from a DAY/WEEK literal or DATE - DATE): a DATE plus it stays a DATE."""

    @classmethod
    def of(cls, delta: dt.timedelta) -> "_Days":
        return cls(delta.days, delta.seconds, delta.microseconds)


def _is_date(v: Any) -> bool:
    return isinstance(v, dt.date) and not isinstance(v, dt.datetime)


def _shift(t: Any, delta: dt.timedelta, sign: int) -> Any:
    """DATE/TIMESTAMP/INTERVAL plus (sign 1) or minus (sign -1) an interval."""
    moved = t + delta if sign > 0 else t - delta
    if isinstance(delta, _Days) and isinstance(t, _Days):
        return _Days.of(moved)
    if _is_date(t) and not isinstance(delta, _Days):   # DATE + hours is a TIMESTAMP
        return _to_timestamp(t) + delta if sign > 0 else _to_timestamp(t) - delta
    return moved


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, dt.timedelta) and isinstance(b, dt.date):
        a, b = b, a
    if isinstance(b, dt.timedelta) and isinstance(a, (dt.date, dt.timedelta)):
        return _shift(a, b, 1)
    if _is_date(a) and type(b) is int:
        return a + dt.timedelta(days=b)                     # DATE + INT is date_add
    a, b = _arith_operands(a, b)
    return _dec(_CTX.add(a, b)) if isinstance(a, Decimal) else a + b


def _sub(a: Any, b: Any) -> Any:
    if isinstance(b, dt.timedelta) and isinstance(a, (dt.date, dt.timedelta)):
        return _shift(a, b, -1)
    if _is_date(a) and _is_date(b):
        return _Days.of(a - b)
    if isinstance(a, dt.date) and isinstance(b, dt.date):   # an INTERVAL DAY TO SECOND
        return _to_timestamp(a) - _to_timestamp(b)
    if _is_date(a) and type(b) is int:
        return a - dt.timedelta(days=b)                     # DATE - INT is date_sub
    a, b = _arith_operands(a, b)
    return _dec(_CTX.subtract(a, b)) if isinstance(a, Decimal) else a - b


def _mul(a: Any, b: Any) -> Any:
    a, b = _arith_operands(a, b)
    return _dec(_CTX.multiply(a, b)) if isinstance(a, Decimal) else a * b


def _div(a: Any, b: Any, divisor_precision: Optional[int] = None) -> Any:
    """`/`: DOUBLE unless a DECIMAL is involved; ANSI raises on a zero divisor.

    Spark's DECIMAL quotient has scale max(6, s1 + p2 + 1); p2 (the divisor's declared
    precision) is only known for a literal divisor, otherwise 38 significant digits are kept.
    """
    a, b = _arith_operands(a, b)
    if b == 0:
        raise ZeroDivisionError("[DIVIDE_BY_ZERO] Division by zero")
    if not isinstance(a, Decimal):
        return float(a) / float(b)
    if divisor_precision is None:
        return _dec(_CTX.divide(a, b))
    scale = max(6, max(0, -a.as_tuple().exponent) + divisor_precision + 1)
    return _dec(_WIDE.divide(a, b).quantize(Decimal(1).scaleb(-scale), context=_WIDE))


def _mod(a: Any, b: Any) -> Any:
    """`%` with Java's sign rule: the remainder takes the dividend's sign."""
    a, b = _arith_operands(a, b)
    if b == 0:
        raise ZeroDivisionError("[REMAINDER_BY_ZERO] Remainder by zero")
    if isinstance(a, float):
        return math.fmod(a, b)
    if isinstance(a, Decimal):
        return _dec(_CTX.remainder(a, b))
    remainder = abs(a) % abs(b)
    return -remainder if a < 0 else remainder


def _intdiv(a: Any, b: Any) -> int:
    """DIV: integral quotient truncated toward zero; DOUBLE operands are a type error."""
    a, b = _arith_operands(a, b)
    if isinstance(a, float):
        raise TypeError("DIV needs integral or DECIMAL operands")
    if b == 0:
        raise ZeroDivisionError("[DIVIDE_BY_ZERO] Division by zero")
    if isinstance(a, Decimal):
        return int(_WIDE.divide_int(a, b))
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def _negate(v: Any) -> Any:
    if isinstance(v, Decimal):
        return _dec(_CTX.minus(v))
    if isinstance(v, _Days):
        return _Days.of(-v)
    if _is_number(v) or isinstance(v, dt.timedelta):
        return -v
    raise TypeError(f"cannot negate {_type_name(v)} {v!r}")


def _abs(v: Any) -> Any:
    if isinstance(v, Decimal):
        return _CTX.abs(v)
    if _is_number(v) or isinstance(v, dt.timedelta):
        return abs(v)
    raise TypeError(f"ABS of {_type_name(v)} {v!r}")


def _round_half_up(v: Any, digits: int) -> Any:
    """ROUND: HALF_UP; a DOUBLE is rounded through its shortest decimal form, as Spark does."""
    if not _is_number(v):
        raise TypeError(f"ROUND of {_type_name(v)} {v!r}")
    step = Decimal(1).scaleb(-digits)
    if isinstance(v, float):
        if not math.isfinite(v):
            return v
        try:
            return float(Decimal(repr(v)).quantize(step, context=_WIDE))
        except InvalidOperation:   # more digits than a double holds: nothing to round
            return v
    if isinstance(v, int):
        return v if digits >= 0 else int(Decimal(v).quantize(step, context=_WIDE))
    if digits >= -v.as_tuple().exponent:
        return v
    rounded = _dec(v.quantize(step, context=_WIDE))
    return rounded if digits >= 0 else rounded.quantize(Decimal(1), context=_WIDE)


def _integral(rounding: str) -> Callable[[Any], Any]:
    """FLOOR/CEIL: DOUBLE gives BIGINT (NaN is 0, ANSI overflow error), DECIMAL gives scale 0."""
    to_int = math.floor if rounding == ROUND_FLOOR else math.ceil

    def apply(v: Any) -> Any:
        if isinstance(v, Decimal):
            return _dec(v.to_integral_value(rounding=rounding, context=_WIDE))
        if isinstance(v, float):
            if v != v:
                return 0
            n = to_int(v) if math.isfinite(v) else None
            if n is None or not -(1 << 63) <= n < 1 << 63:
                raise OverflowError(f"[ARITHMETIC_OVERFLOW] {v!r} does not fit a BIGINT")
            return n
        if _is_number(v):
            return v
        raise TypeError(f"FLOOR/CEIL of {_type_name(v)} {v!r}")
    return apply


def _substr(s: str, pos: int, length: int) -> str:
    """UTF8String.substringSQL: 1-based, 0 means 1, negative counts from the end."""
    start = pos - 1 if pos > 0 else (len(s) + pos if pos < 0 else 0)
    end = start + length
    start = max(start, 0)
    return s[start:end] if start < end else ""


@lru_cache(maxsize=256)
def _like_regex(pattern: str, escape: str) -> re.Pattern:
    """Spark's StringUtils.escapeLikeRegex: % and _ wildcards, escape only before % _ or itself."""
    out, chars = [], iter(pattern)
    for ch in chars:
        if ch == escape:
            following = next(chars, None)
            if following is None:
                raise ValueError(f"LIKE pattern {pattern!r} must not end with the escape character")
            if following not in ("_", "%", escape):
                raise ValueError(f"LIKE pattern {pattern!r}: the escape character is not "
                                 f"allowed to precede {following!r}")
            out.append(re.escape(following))
        else:
            out.append("." if ch == "_" else ".*" if ch == "%" else re.escape(ch))
    return re.compile("".join(out), re.DOTALL)


# ----------------------------------------------------------------------------- casts (ANSI)

_INT_RE = re.compile(r"[+-]?[0-9]+")
_DECIMAL_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_DOUBLE_RE = re.compile(_DECIMAL_RE.pattern + "[dDfF]?")
_SPECIAL_DOUBLES = {"nan": math.nan, "inf": math.inf, "+inf": math.inf, "infinity": math.inf,
                    "+infinity": math.inf, "-inf": -math.inf, "-infinity": -math.inf}
_TRUE, _FALSE = {"t", "true", "y", "yes", "1"}, {"f", "false", "n", "no", "0"}
_DATE_RE = re.compile(r"([0-9]{4})(?:-([0-9]{1,2})(?:-([0-9]{1,2}))?)?(?:[ T].*)?", re.DOTALL)
_TIMESTAMP_RE = re.compile(
    r"([0-9]{4})(?:-([0-9]{1,2})(?:-([0-9]{1,2}))?)?"
    r"(?:[ T]([0-9]{1,2})(?::([0-9]{1,2})(?::([0-9]{1,2})(?:\.([0-9]*))?)?)?)?"
    r"\s*(Z|UTC|GMT|[+-][0-9]{1,2}(?::?[0-9]{2})?)?")


def _invalid(v: Any, target: str) -> ValueError:
    return ValueError(f"[CAST_INVALID_INPUT] The value {v!r} cannot be cast to {target}")


def _to_int(v: Any, bits: int = 64) -> int:
    if isinstance(v, bool):
        n = int(v)
    elif isinstance(v, int):
        n = v
    elif isinstance(v, str):
        text = v.strip(_WHITESPACE)
        n = int(text) if _INT_RE.fullmatch(text) else None
        if n is None or not -(1 << (bits - 1)) <= n < 1 << (bits - 1):
            raise _invalid(v, f"a {bits}-bit integer")
    elif isinstance(v, float):
        if not math.isfinite(v):
            raise OverflowError(f"[CAST_OVERFLOW] {v!r} cannot be cast to an integer")
        n = (1 << 63) - 1 if bits == 64 and v == 2.0 ** 63 else int(v)  # Java saturates here
    elif isinstance(v, Decimal):
        n = int(v)
    elif isinstance(v, dt.datetime):
        n = (_naive(v) - EPOCH) // dt.timedelta(seconds=1)
    else:
        raise TypeError(f"cannot cast {_type_name(v)} {v!r} to an integer")
    if not -(1 << (bits - 1)) <= n < 1 << (bits - 1):
        raise OverflowError(f"[CAST_OVERFLOW] {v!r} does not fit a {bits}-bit integer")
    return n


def _to_double(v: Any) -> float:
    if isinstance(v, bool):
        return float(v)
    if _is_number(v):
        return float(v)
    if isinstance(v, str):
        text = v.strip(_WHITESPACE)
        if text.lower() in _SPECIAL_DOUBLES:
            return _SPECIAL_DOUBLES[text.lower()]
        if not _DOUBLE_RE.fullmatch(text):
            raise _invalid(v, "DOUBLE")
        return float(text.rstrip("dDfF"))
    if isinstance(v, dt.datetime):
        return (_naive(v) - EPOCH) / dt.timedelta(seconds=1)
    raise TypeError(f"cannot cast {_type_name(v)} {v!r} to DOUBLE")


def _to_float32(v: Any) -> float:
    return struct.unpack("f", struct.pack("f", _to_double(v)))[0]


def _to_decimal(v: Any, precision: int, scale: int) -> Decimal:
    if isinstance(v, (bool, int)):
        d = Decimal(int(v))
    elif isinstance(v, Decimal):
        d = v
    elif isinstance(v, float):
        if not math.isfinite(v):
            raise OverflowError(f"[CAST_OVERFLOW] {v!r} cannot be cast to DECIMAL")
        d = Decimal(repr(v))                     # Spark goes through Double.toString
    elif isinstance(v, str):
        text = v.strip(_WHITESPACE)
        if not _DECIMAL_RE.fullmatch(text):
            raise _invalid(v, f"DECIMAL({precision},{scale})")
        d = Decimal(text)
    else:
        raise TypeError(f"cannot cast {_type_name(v)} {v!r} to DECIMAL")
    try:
        rounded = d.quantize(Decimal(1).scaleb(-scale), context=_WIDE)
    except InvalidOperation:
        rounded = None
    if rounded is None or abs(rounded) >= Decimal(10) ** (precision - scale):
        raise OverflowError(f"[NUMERIC_VALUE_OUT_OF_RANGE] {v!r} cannot be represented "
                            f"as DECIMAL({precision},{scale})")
    return _dec(rounded)


def _to_boolean(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if _is_number(v):
        return v != 0
    if isinstance(v, str):
        text = v.strip(_WHITESPACE).lower()
        if text in _TRUE or text in _FALSE:
            return text in _TRUE
        raise _invalid(v, "BOOLEAN")
    raise TypeError(f"cannot cast {_type_name(v)} {v!r} to BOOLEAN")


def _java_double(x: float) -> str:
    """Java's Double.toString, which Spark uses for CAST(double AS STRING)."""
    if x != x:
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    if 1e-3 <= abs(x) < 1e7:
        return repr(x)               # Python's shortest repr is positional in this range
    sign, digits, exponent = Decimal(repr(x)).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) - 1 + exponent
    return f"{'-' if sign else ''}{text[0]}.{text[1:] or '0'}E{power}"


def _timestamp_text(v: dt.datetime) -> str:
    v = _naive(v)
    text = (f"{v.year:04d}-{v.month:02d}-{v.day:02d} "
            f"{v.hour:02d}:{v.minute:02d}:{v.second:02d}")
    return text + f".{v.microsecond:06d}".rstrip("0") if v.microsecond else text


def _to_string(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _java_double(v)
    if isinstance(v, Decimal):
        return format(v, "f")
    if isinstance(v, dt.datetime):
        return _timestamp_text(v)
    if isinstance(v, dt.date):
        return v.isoformat()
    raise TypeError(f"cannot cast {_type_name(v)} {v!r} to STRING")


def _to_timestamp(v: Any) -> dt.datetime:
    if isinstance(v, dt.datetime):
        return _naive(v)
    if isinstance(v, dt.date):
        return dt.datetime(v.year, v.month, v.day)
    if isinstance(v, str):
        match = _TIMESTAMP_RE.fullmatch(v.strip(_WHITESPACE))
        if not match:
            raise _invalid(v, "TIMESTAMP")
        year, month, day, hour, minute, second, fraction, zone = match.groups()
        micros = int((fraction or "")[:6].ljust(6, "0"))
        try:
            value = dt.datetime(int(year), int(month or 1), int(day or 1), int(hour or 0),
                                int(minute or 0), int(second or 0), micros)
        except ValueError:
            raise _invalid(v, "TIMESTAMP") from None
        if zone and zone not in ("Z", "UTC", "GMT"):   # convert to the (UTC) session zone
            digits = zone[1:].replace(":", "")
            offset = dt.timedelta(hours=int(digits[:-2] if len(digits) > 2 else digits),
                                  minutes=int(digits[-2:]) if len(digits) > 2 else 0)
            value -= offset if zone[0] == "+" else -offset
        return value
    if isinstance(v, Decimal):
        return EPOCH + dt.timedelta(microseconds=int(v * 1_000_000))
    if _is_number(v):
        return EPOCH + dt.timedelta(seconds=v)
    raise TypeError(f"cannot cast {_type_name(v)} {v!r} to TIMESTAMP")


def _to_date(v: Any) -> dt.date:
    if isinstance(v, dt.datetime):
        return _naive(v).date()
    if isinstance(v, dt.date):
        return v
    if isinstance(v, str):
        match = _DATE_RE.fullmatch(v.strip(_WHITESPACE))
        try:
            return dt.date(int(match[1]), int(match[2] or 1), int(match[3] or 1))
        except (TypeError, ValueError):
            raise _invalid(v, "DATE") from None
    raise TypeError(f"cannot cast {_type_name(v)} {v!r} to DATE")


_STRING_PEER = {int: _to_int, float: _to_double, Decimal: _to_double, bool: _to_boolean,
                dt.datetime: _to_timestamp, dt.date: _to_date}
_INT_BITS = {_T.TINYINT: 8, _T.SMALLINT: 16, _T.INT: 32, _T.BIGINT: 64}
_CASTS = {_T.DOUBLE: _to_double, _T.FLOAT: _to_float32, _T.BOOLEAN: _to_boolean, _T.DATE: _to_date,
          _T.TEXT: _to_string, _T.VARCHAR: _to_string, _T.CHAR: _to_string,
          _T.TIMESTAMP: _to_timestamp, _T.TIMESTAMPTZ: _to_timestamp,
          _T.TIMESTAMPLTZ: _to_timestamp, _T.TIMESTAMPNTZ: _to_timestamp}


# ----------------------------------------------------------------------------- builders

_BINARY = ("this", "expression")


def _strict(op: Callable[..., Any], *arg_names: str,
            divisor_first: bool = False) -> Callable[[_Compiler, exp.Expression], Fn]:
    """Builder for a NULL-propagating operator; like Spark, stops at the first NULL argument.

    Spark's / % DIV evaluate the divisor first, so `(1/0) % NULL` is NULL, not an error.
    """
    def builder(c: _Compiler, node: exp.Expression) -> Fn:
        args = [c.build(node.args[name]) for name in arg_names]
        if any(map(_is_null, args)):   # Spark's NullPropagation: f(.., NULL, ..) is NULL
            return _const(None)
        if len(args) == 1:
            arg = args[0]
            return lambda row: None if (v := arg(row)) is None else op(v)
        first, second = args[::-1] if divisor_first else args

        def fn(row: Row) -> Any:
            a = first(row)
            if a is None:
                return None
            b = second(row)
            if b is None:
                return None
            return op(b, a) if divisor_first else op(a, b)
        return fn
    return builder


def _comparison(op: Callable[[Any, Any], bool]):
    return _strict(lambda a, b: _compare(a, b, op), "this", "expression")


def _column(c: _Compiler, node: exp.Column) -> Fn:
    name = c.resolve(node)
    return lambda row: row[name]


def _literal(c: _Compiler, node: exp.Literal) -> Fn:
    """Spark literal types: 1 is INT/BIGINT, 1.5 is DECIMAL, 1.5e0 is DOUBLE."""
    text = node.this
    if node.is_string:
        return _const(text)
    if "e" in text.lower():
        return _const(float(text))
    return _const(Decimal(text) if "." in text else int(text))


def _decided_by(fns: tuple[Fn, Fn], value: bool) -> bool:
    """Spark's BooleanSimplification: x AND FALSE is FALSE (x OR TRUE is TRUE) unevaluated."""
    return any(isinstance(fn, _Const) and fn.value is value for fn in fns)


def _junction(dominant: bool):
    """AND (dominant FALSE) and OR (dominant TRUE) in three-valued logic, short-circuiting."""
    def build(c: _Compiler, node: exp.Connector) -> Fn:
        left, right = c.build(node.this), c.build(node.expression)
        if _decided_by((left, right), dominant):
            return _const(dominant)

        def fn(row: Row) -> Optional[bool]:
            a = left(row)
            if a is dominant:
                return dominant
            b = right(row)
            if b is dominant:
                return dominant
            return None if a is None or b is None else not dominant
        return fn
    return build


_and = _junction(False)
_or = _junction(True)


def _not(c: _Compiler, node: exp.Not) -> Fn:
    arg = c.build(node.this)
    return lambda row: None if (v := arg(row)) is None else not v


def _null_safe(negate: bool):
    def builder(c: _Compiler, node: exp.Expression) -> Fn:
        left, right = c.build(node.this), c.build(node.expression)

        def fn(row: Row) -> bool:
            a, b = left(row), right(row)
            if a is None or b is None:
                return (a is None and b is None) is not negate
            return _compare(a, b, operator.eq) is not negate
        return fn
    return builder


def _is(c: _Compiler, node: exp.Is) -> Fn:
    arg, target = c.build(node.this), node.expression
    if isinstance(target, exp.Null):
        return lambda row: arg(row) is None
    if isinstance(target, exp.Boolean):
        wanted = target.this
        return lambda row: arg(row) is wanted
    raise c.unsupported(node)


def _between(c: _Compiler, node: exp.Between) -> Fn:
    """x BETWEEN lo AND hi is x >= lo AND x <= hi, with three-valued AND."""
    value, low, high = c.build(node.this), c.build(node.args["low"]), c.build(node.args["high"])

    def fn(row: Row) -> Optional[bool]:
        x = value(row)
        if x is None:
            return None
        lo = low(row)
        above = None if lo is None else _compare(x, lo, operator.ge)
        if above is False:
            return False
        hi = high(row)
        below = None if hi is None else _compare(x, hi, operator.le)
        if below is False:
            return False
        return None if above is None or below is None else True
    return fn


def _in(c: _Compiler, node: exp.In) -> Fn:
    """IN (list): TRUE on a match, else NULL if the value or any item is NULL, else FALSE."""
    value, items = c.build(node.this), [c.build(item) for item in node.expressions]

    def fn(row: Row) -> Optional[bool]:
        x = value(row)
        if x is None:
            return None
        saw_null = False
        for item in items:
            y = item(row)
            if y is None:
                saw_null = True
            elif _compare(x, y, operator.eq):
                return True
        return None if saw_null else False
    return fn


def _like(c: _Compiler, node: exp.Expression, escape: str = "\\") -> Fn:
    """[NOT] LIKE / ILIKE; ILIKE lower-cases both sides like Spark."""
    fold = str.lower if isinstance(node, exp.ILike) else str
    subject, pattern = c.build(node.this), c.build(node.expression)
    negate = bool(node.args.get("negate"))
    if isinstance(pattern, _Const) and pattern.value is not None:
        _like_regex(fold(_to_string(pattern.value)), escape)   # a bad pattern fails now

    def fn(row: Row) -> Optional[bool]:
        s = subject(row)
        if s is None:
            return None
        p = pattern(row)
        if p is None:
            return None
        matched = _like_regex(fold(_to_string(p)), escape).fullmatch(fold(_to_string(s)))
        return (matched is None) if negate else (matched is not None)
    return fn


def _escape(c: _Compiler, node: exp.Escape) -> Fn:
    escape = c.constant(node.expression, "LIKE escape")
    if not isinstance(node.this, (exp.Like, exp.ILike)) or not isinstance(escape, str) \
            or len(escape) != 1:
        raise c.unsupported(node)
    return _like(c, node.this, escape)


def _divide(c: _Compiler, node: exp.Div) -> Fn:
    divisor = node.expression
    while isinstance(divisor, (exp.Paren, exp.Neg)):
        divisor = divisor.this
    precision = None
    if isinstance(divisor, exp.Literal) and not divisor.is_string \
            and "e" not in divisor.this.lower():
        _, digits, exponent = Decimal(divisor.this).as_tuple()
        precision = max(len(digits), -exponent)            # Spark's DecimalType.fromLiteral
    return _strict(lambda a, b: _div(a, b, precision), *_BINARY, divisor_first=True)(c, node)


def _case(c: _Compiler, node: exp.Case) -> Fn:
    """Searched CASE takes the first TRUE branch; simple CASE x WHEN v is x = v."""
    subject = c.build(node.this) if node.this else None
    branches = [(c.build(branch.this), c.build(branch.args["true"])) for branch in node.args["ifs"]]
    default = c.build(node.args["default"]) if node.args.get("default") else _const(None)
    if subject is None:   # Spark's SimplifyConditionals: drop constant-FALSE/NULL branches ...
        branches = [(when, then) for when, then in branches
                    if not (isinstance(when, _Const) and when.value is not True)]
        if not branches:
            return default
        if isinstance(branches[0][0], _Const):   # ... and a leading TRUE one decides it
            return branches[0][1]

    def fn(row: Row) -> Any:
        key = None if subject is None else subject(row)
        for condition, value in branches:
            when = condition(row)
            if (when is True) if subject is None else (
                    key is not None and when is not None and _compare(key, when, operator.eq)):
                return value(row)
        return default(row)
    return fn


def _if(c: _Compiler, node: exp.If) -> Fn:
    condition, yes = c.build(node.this), c.build(node.args["true"])
    no = c.build(node.args["false"]) if node.args.get("false") else _const(None)
    if isinstance(condition, _Const):
        return yes if condition.value is True else no
    return lambda row: yes(row) if condition(row) is True else no(row)


def _coalesce(c: _Compiler, node: exp.Coalesce) -> Fn:
    args = [c.build(node.this)] + [c.build(arg) for arg in node.expressions]

    def fn(row: Row) -> Any:
        for arg in args:
            value = arg(row)
            if value is not None:
                return value
        return None
    return fn


def _nullif(c: _Compiler, node: exp.Nullif) -> Fn:
    left, right = c.build(node.this), c.build(node.expression)

    def fn(row: Row) -> Any:
        a = left(row)
        if a is None:
            return None
        b = right(row)
        return None if b is not None and _compare(a, b, operator.eq) else a
    return fn


def _cast(c: _Compiler, node: exp.Cast) -> Fn:
    """CAST is ANSI (a bad value raises ValueError/ArithmeticError); TRY_CAST gives NULL."""
    to = node.to
    kind = to.this
    if kind in _INT_BITS:
        bits = _INT_BITS[kind]
        convert = lambda v: _to_int(v, bits)
    elif kind == _T.DECIMAL:
        params = [int(param.this.this) for param in to.expressions] or [10]
        precision, scale = params[0], params[1] if len(params) > 1 else 0
        convert = lambda v: _to_decimal(v, precision, scale)
    elif kind in _CASTS:
        convert = _CASTS[kind]
    else:
        raise c.unsupported(node, f"CAST to {to.sql(dialect='spark')}")
    arg = c.build(node.this)
    if not node.args.get("safe"):
        return lambda row: None if (v := arg(row)) is None else convert(v)

    def try_cast(row: Row) -> Any:
        v = arg(row)
        try:
            return None if v is None else convert(v)
        except (ValueError, ArithmeticError):
            return None
    return try_cast


def _trim(c: _Compiler, node: exp.Trim) -> Fn:
    """TRIM/LTRIM/RTRIM: Spark trims only ' ' unless given a set of characters."""
    position = str(node.args.get("position") or "BOTH").upper()
    strip = {"BOTH": str.strip, "LEADING": str.lstrip, "TRAILING": str.rstrip}[position]
    if node.expression is None:
        return _strict(lambda s: strip(_to_string(s), " "), "this")(c, node)
    return _strict(lambda s, chars: strip(_to_string(s), _to_string(chars)),
                   "this", "expression")(c, node)


def _concat(c: _Compiler, node: exp.Expression) -> Fn:
    """CONCAT and ||: NULL if any part is NULL; non-strings cast to STRING."""
    parts = [c.build(part) for part in (node.expressions or [node.this, node.expression])]
    if any(map(_is_null, parts)):
        return _const(None)

    def fn(row: Row) -> Optional[str]:
        values = [part(row) for part in parts]      # Spark evaluates every part first
        return None if None in values else "".join(map(_to_string, values))
    return fn


def _substring(c: _Compiler, node: exp.Substring) -> Fn:
    source, start = c.build(node.this), c.build(node.args["start"])
    length = c.build(node.args["length"]) if node.args.get("length") else _const((1 << 31) - 1)

    def fn(row: Row) -> Optional[str]:
        s = source(row)
        pos = None if s is None else start(row)
        n = None if pos is None else length(row)
        return None if n is None else _substr(_to_string(s), _to_int(pos, 32), _to_int(n, 32))
    return fn


def _round(c: _Compiler, node: exp.Round) -> Fn:
    digits = c.constant(node.args["decimals"], "ROUND scale") if node.args.get("decimals") else 0
    if digits is None:
        return _const(None)
    digits = _to_int(digits, 32)
    return _strict(lambda v: _round_half_up(v, digits), "this")(c, node)


_UNIT_MICROS = {"MICROSECOND": 1, "WEEK": 7 * 86_400_000_000,
                **{unit: ms * 1_000 for unit, ms in INTERVAL_UNITS_MS.items()}}


def _interval(c: _Compiler, node: exp.Interval) -> Fn:
    """INTERVAL 'n' UNIT as a timedelta (day-time intervals only; seconds may be fractional)."""
    unit = node.args.get("unit")
    name = unit.name.upper() if isinstance(unit, exp.Var) else ""
    name = name[:-1] if name.endswith("S") else name
    text = node.this.this if isinstance(node.this, exp.Literal) else None
    if name not in _UNIT_MICROS or text is None:
        raise c.unsupported(node, f"INTERVAL `{node.sql(dialect='spark')}`")
    pattern = r"[+-]?[0-9]+(\.[0-9]{1,6})?" if name == "SECOND" else r"[+-]?[0-9]+"
    if not re.fullmatch(pattern, text.strip()):
        raise c.unsupported(node, f"INTERVAL value {text!r} for unit {name}")
    delta = dt.timedelta(microseconds=int(Decimal(text.strip()) * _UNIT_MICROS[name]))
    return _const(_Days.of(delta) if name in ("DAY", "WEEK") else delta)


# sqlglot node class -> (builder, the node arguments the builder understands); any other
# argument that is set makes the construct unsupported instead of silently ignored.
_BUILDERS: dict[type, tuple[Callable[[_Compiler, Any], Fn], tuple[str, ...]]] = {
    exp.Column: (_column, ("this", "table", "db", "catalog")),
    exp.Literal: (_literal, ("this", "is_string")),
    exp.Boolean: (lambda c, node: _const(bool(node.this)), ("this",)),
    exp.Null: (lambda c, node: _const(None), ()),
    exp.Paren: (lambda c, node: c.build(node.this), ("this",)),
    exp.And: (_and, _BINARY),
    exp.Or: (_or, _BINARY),
    exp.Not: (_not, ("this",)),
    exp.EQ: (_comparison(operator.eq), _BINARY),
    exp.NEQ: (_comparison(operator.ne), _BINARY),
    exp.LT: (_comparison(operator.lt), _BINARY),
    exp.LTE: (_comparison(operator.le), _BINARY),
    exp.GT: (_comparison(operator.gt), _BINARY),
    exp.GTE: (_comparison(operator.ge), _BINARY),
    exp.NullSafeEQ: (_null_safe(False), _BINARY),
    exp.NullSafeNEQ: (_null_safe(True), _BINARY),
    exp.Is: (_is, _BINARY),
    exp.Between: (_between, ("this", "low", "high")),
    exp.In: (_in, ("this", "expressions")),
    exp.Like: (_like, ("this", "expression", "negate")),
    exp.ILike: (_like, ("this", "expression", "negate")),
    exp.Escape: (_escape, _BINARY),
    exp.Add: (_strict(_add, *_BINARY), _BINARY),
    exp.Sub: (_strict(_sub, *_BINARY), _BINARY),
    exp.Mul: (_strict(_mul, *_BINARY), _BINARY),
    exp.Div: (_divide, _BINARY + ("typed", "safe")),
    exp.Mod: (_strict(_mod, *_BINARY, divisor_first=True), _BINARY),
    exp.IntDiv: (_strict(_intdiv, *_BINARY, divisor_first=True), _BINARY),
    exp.Neg: (_strict(_negate, "this"), ("this",)),
    exp.Case: (_case, ("this", "ifs", "default")),
    exp.If: (_if, ("this", "true", "false")),
    exp.Coalesce: (_coalesce, ("this", "expressions")),
    exp.Nullif: (_nullif, _BINARY),
    exp.Cast: (_cast, ("this", "to")),
    exp.TryCast: (_cast, ("this", "to", "safe")),
    exp.Upper: (_strict(lambda v: _to_string(v).upper(), "this"), ("this",)),
    exp.Lower: (_strict(lambda v: _to_string(v).lower(), "this"), ("this",)),
    exp.Length: (_strict(lambda v: len(_to_string(v)), "this"), ("this",)),
    exp.Trim: (_trim, ("this", "expression", "position")),
    exp.Concat: (_concat, ("expressions", "safe")),
    exp.DPipe: (_concat, _BINARY + ("safe",)),
    exp.Substring: (_substring, ("this", "start", "length")),
    exp.Abs: (_strict(_abs, "this"), ("this",)),
    exp.Round: (_round, ("this", "decimals")),
    exp.Floor: (_strict(_integral(ROUND_FLOOR), "this"), ("this",)),
    exp.Ceil: (_strict(_integral(ROUND_CEILING), "this"), ("this",)),
    exp.Interval: (_interval, ("this", "unit")),
}
_LEAVES = (exp.Literal, exp.Boolean, exp.Null, exp.Interval)
# Roots that can never be BOOLEAN, rejected as a predicate at compile time.
_VALUE_NODES = (exp.Literal, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.IntDiv, exp.Neg,
                exp.Upper, exp.Lower, exp.Length, exp.Trim, exp.Concat, exp.DPipe,
                exp.Substring, exp.Abs, exp.Round, exp.Floor, exp.Ceil, exp.Interval)
