"""Row values between JSON (feeds, data files, sink batches) and Python, and Flink-style text.

Text follows Flink's Row.toString, so expectations read like Flink's restore tests:
`+I[1, Alice, 2020-04-15T08:00:01]`.
"""
from __future__ import annotations

import datetime as dt
import reprlib
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any, Iterable, Sequence

from ..changelog import RowKind
from ..types import (INTEGRAL_RANGES, INTEGRAL_TYPES, RowType, SqlType,
                     decimal_precision_scale)


def to_python(value: Any, sql_type: SqlType) -> Any:
    """A JSON value as the Python value Spark expects for the column type. A value the type
    cannot hold is a ValueError, found before converting (BYTES never allocates an int's size)."""
    if value is None:
        return None
    name = sql_type.name
    if sql_type.is_composite:
        return _to_composite(value, sql_type)
    if sql_type.is_timestamp:
        if isinstance(value, dt.datetime):
            return value
        try:
            if not isinstance(value, (str, dt.date)):
                raise ValueError(type(value).__name__)
            return dt.datetime.fromisoformat(str(value).replace("T", " ").replace("Z", ""))
        except ValueError as err:
            raise ValueError(f"{brief_repr(value)} is not a timestamp like "
                             f"'2024-01-01 10:00:00' ({err})") from None
    if name == "DATE":
        if isinstance(value, dt.date):
            return value
        try:
            if not isinstance(value, str):
                raise ValueError(type(value).__name__)
            return dt.date.fromisoformat(value)
        except ValueError as err:
            raise ValueError(f"{brief_repr(value)} is not a date like '2024-01-01' ({err})") \
                from None
    if name == "DECIMAL":
        return _to_decimal(value, sql_type)
    if name in INTEGRAL_TYPES:
        return _to_integral(value, name)
    if name in ("FLOAT", "DOUBLE"):
        if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
            raise ValueError(f"{brief_repr(value)} is not a number")
        try:
            return float(value)
        except ValueError:
            raise ValueError(f"{brief_repr(value)} is not a {name} number") from None
        except OverflowError:
            raise ValueError(f"{brief_repr(value)} is out of range for {name}") from None
    if name == "BOOLEAN":
        if not isinstance(value, bool):
            raise ValueError(f"{brief_repr(value)} is not a boolean")
        return value
    if name == "BYTES":
        return _to_bytes(value)
    if isinstance(value, (dict, list, tuple, set, frozenset, bytes, bytearray)):
        raise ValueError(f"{brief_repr(value)} is not a string")
    try:
        return str(value)
    except ValueError:      # an int past Python's 4300-digit limit
        raise ValueError(f"{brief_repr(value)} is too long for a string") from None


def _to_composite(value: Any, sql_type: SqlType) -> Any:
    """An ARRAY is a list, a MAP a dict, a ROW a list or tuple of its fields' values (or a
    dict by field name); their parts are converted for their own types."""
    if sql_type.name == "ARRAY":
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"{brief_repr(value)} is not a list (an {sql_type.text})")
        (element,) = sql_type.children
        return [to_python(item, element) for item in value]
    if sql_type.name == "MAP":
        if not isinstance(value, dict):
            raise ValueError(f"{brief_repr(value)} is not a dict (a {sql_type.text})")
        key_type, value_type = sql_type.children
        return {to_python(key, key_type): to_python(item, value_type)
                for key, item in value.items()}
    fields = sql_type.children
    if isinstance(value, dict):
        unknown = set(value) - {name for name, _ in fields}
        if unknown:
            raise ValueError(f"{brief_repr(value)} names no field {sorted(unknown)[0]!r} of "
                             f"{sql_type.text}")
        value = [value.get(name) for name, _ in fields]
    if not isinstance(value, (list, tuple)) or len(value) != len(fields):
        raise ValueError(f"{brief_repr(value)} is not a list of {len(fields)} value(s) (a "
                         f"{sql_type.text})")
    return tuple(to_python(item, field_type) for item, (_, field_type) in zip(value, fields))


def _to_integral(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"{brief_repr(value)} is not an integer")
    try:
        number = int(value)
    except ValueError:      # also digit strings past Python's 4300-digit limit
        raise ValueError(f"{brief_repr(value)} is not an integer") from None
    low, high = INTEGRAL_RANGES[name]
    if not low <= number <= high:
        # Spark would refuse it mid-query (or wrap it around): say so now.
        raise ValueError(f"{brief_repr(value)} is out of range for {name} ({low} to {high})")
    return number


def _to_decimal(value: Any, sql_type: SqlType) -> Decimal:
    precision, scale = decimal_precision_scale(sql_type)
    problem = f"{brief_repr(value)} does not fit DECIMAL({precision},{scale})"
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
        raise ValueError(f"{brief_repr(value)} is not a decimal number")
    if isinstance(value, int) and value.bit_length() > 128:     # > 38 digits: skip the str()
        raise ValueError(f"{problem} (at most {precision - scale} digit(s) before the point)")
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        raise ValueError(f"{brief_repr(value)} is not a decimal number") from None
    if not number.is_finite():
        raise ValueError(f"{brief_repr(value)} is not a finite decimal number")
    # Spark rounds to the scale (half up) and turns what then overflows into null.
    fits = number.is_zero() or number.adjusted() < precision - scale
    if fits and not number.is_zero():
        with localcontext() as context:
            context.prec = 2 * 38 + 2
            rounded = number.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
        fits = rounded.is_zero() or rounded.adjusted() < precision - scale
    if not fits:
        raise ValueError(f"{problem} (at most {precision - scale} digit(s) before the point)")
    return number


def _to_bytes(value: Any) -> bytes:
    if isinstance(value, str):
        try:
            return bytes.fromhex(value)
        except ValueError:
            raise ValueError(f"{brief_repr(value)} is not hex text like '0aff'") from None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, (list, tuple)) and all(
            type(b) is int and 0 <= b <= 255 for b in value):
        return bytes(value)
    # bytes(n) of an int n would be n zero bytes: never what a row means.
    raise ValueError(f"{brief_repr(value)} is not bytes; give hex text like '0aff', bytes or "
                     f"a list of ints 0-255")


class _BriefRepr(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 64:     # repr() of a huge int is slow, or refused past 4300 digits
            return f"<an integer of {x.bit_length()} bits>"
        return super().repr_int(x, level)


_BRIEF = _BriefRepr()
_BRIEF.maxstring = _BRIEF.maxother = 80


def brief_repr(value: Any) -> str:
    """repr() for error messages: short even for huge or deeply nested values."""
    return _BRIEF.repr(value)


def to_json(value: Any) -> Any:
    """A Python value from Spark as JSON (timestamps ISO text, decimals exact text)."""
    if isinstance(value, dt.datetime):
        # Milliseconds unless the value carries microseconds (TIMESTAMP(6)): nothing is lost.
        spec = "microseconds" if value.microsecond % 1000 else "milliseconds"
        return value.isoformat(sep=" ", timespec=spec)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    if isinstance(value, (list, tuple)):         # an ARRAY, or a ROW (Spark's Row)
        return [to_json(item) for item in value]
    if isinstance(value, dict):                  # a MAP: JSON keys are text
        return {str(to_json(key)): to_json(item) for key, item in value.items()}
    return value


def _java_datetime(value: dt.datetime) -> str:
    """Java LocalDateTime.toString: seconds and fraction only when non-zero."""
    text = value.strftime("%Y-%m-%dT%H:%M")
    if value.second or value.microsecond:
        text += f":{value.second:02d}"
    if value.microsecond:
        text += f".{value.microsecond // 1000:03d}" if value.microsecond % 1000 == 0 \
            else f".{value.microsecond:06d}"
    return text


def _java_instant(value: dt.datetime) -> str:
    """Java Instant.toString, as Flink prints a TIMESTAMP_LTZ: UTC, seconds always, 'Z'."""
    if value.tzinfo is not None:
        value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond // 1000:03d}" if value.microsecond % 1000 == 0 \
            else f".{value.microsecond:06d}"
    return text + "Z"


def _java_floating(value: float, shortest: str) -> str:
    """Java's Double/Float.toString from the shortest round-trip digits: plain notation for
    1e-3 <= |v| < 1e7, else d.dddE±n."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if str(value).startswith("-") else "0.0"
    sign, digits, exponent = Decimal(shortest).normalize().as_tuple()
    text = "".join(map(str, digits))
    point = len(text) + exponent                 # digits before the decimal point
    prefix = "-" if sign else ""
    if 1e-3 <= abs(value) < 1e7:
        if point <= 0:
            return f"{prefix}0.{'0' * -point}{text}"
        whole, fraction = text[:point].ljust(point, "0"), text[point:]
        return f"{prefix}{whole}.{fraction or '0'}"
    return f"{prefix}{text[0]}.{text[1:] or '0'}E{point - 1}"


def format_value(value: Any, sql_type: SqlType | None = None) -> str:
    if value is None:
        return "null"
    if isinstance(value, (list, dict, tuple)) and not isinstance(value, (bytes, bytearray)):
        return _format_composite(value, sql_type)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and sql_type is not None and sql_type.is_timestamp:
        value = to_python(value, sql_type)
    if isinstance(value, dt.datetime) and sql_type is not None and sql_type.name == "TIMESTAMP_LTZ":
        return _java_instant(value)
    if isinstance(value, dt.datetime):
        return _java_datetime(value)
    if isinstance(value, float):
        if sql_type is not None and sql_type.name == "FLOAT":
            import numpy

            return _java_floating(value, repr(float(str(numpy.float32(value)))))
        return _java_floating(value, repr(value))
    return str(value)


def _format_composite(value: Any, sql_type: SqlType | None) -> str:
    """As Flink's Row.toString prints the external values: an ARRAY `[1, 2]`, a MAP
    `{k=v, ...}` in java.util.HashMap's order, a ROW `+I[a, 1]`."""
    children = sql_type.children if sql_type is not None and sql_type.is_composite else ()
    if isinstance(value, dict):
        key_type, value_type = children or (None, None)
        keys = list(value)
        if key_type is not None:
            from .java_hash_order import java_map_order

            keys = [keys[position] for position in java_map_order(keys, key_type.name)]
        return "{" + ", ".join(f"{format_value(key, key_type)}={format_value(value[key], value_type)}"
                               for key in keys) + "}"
    if isinstance(value, list):
        element = children[0] if children else None
        return "[" + ", ".join(format_value(item, element) for item in value) + "]"
    types = [field_type for _, field_type in children] or [None] * len(value)
    return "+I[" + ", ".join(format_value(item, t) for item, t in zip(value, types)) + "]"


def format_row(kind: RowKind, values: Sequence[Any], row_type: RowType | None = None) -> str:
    types: Iterable[SqlType | None] = ([f.type for f in row_type.fields] if row_type
                                       else [None] * len(values))
    return f"{kind.short}[" + ", ".join(format_value(v, t) for v, t in zip(values, types)) + "]"
