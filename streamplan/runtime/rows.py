"""Row values between JSON (feeds, data files, sink batches) and Python, and Flink-style text.

Text follows Flink's Row.toString, so expectations read like Flink's restore tests:
`+I[1, Alice, 2020-04-15T08:00:01]`.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, Iterable, Sequence

from ..changelog import RowKind
from ..types import INTEGRAL_TYPES, RowType, SqlType


def to_python(value: Any, sql_type: SqlType) -> Any:
    """A JSON value as the Python value Spark expects for the column type."""
    if value is None:
        return None
    name = sql_type.name
    if sql_type.is_timestamp:
        if isinstance(value, dt.datetime):
            return value
        return dt.datetime.fromisoformat(str(value).replace("T", " ").replace("Z", ""))
    if name == "DATE":
        return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value))
    if name == "DECIMAL":
        return Decimal(str(value))
    if name in INTEGRAL_TYPES:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ValueError(f"{value!r} is not an integer")
        return int(value)
    if name in ("FLOAT", "DOUBLE"):
        return float(value)
    if name == "BOOLEAN":
        if not isinstance(value, bool):
            raise ValueError(f"{value!r} is not a boolean")
        return value
    if name == "BYTES":
        return bytes.fromhex(value) if isinstance(value, str) else bytes(value)
    return str(value)


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
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and sql_type is not None and sql_type.is_timestamp:
        value = to_python(value, sql_type)
    if isinstance(value, dt.datetime):
        return _java_datetime(value)
    if isinstance(value, float):
        if sql_type is not None and sql_type.name == "FLOAT":
            import numpy

            return _java_floating(value, repr(float(str(numpy.float32(value)))))
        return _java_floating(value, repr(value))
    return str(value)


def format_row(kind: RowKind, values: Sequence[Any], row_type: RowType | None = None) -> str:
    types: Iterable[SqlType | None] = ([f.type for f in row_type.fields] if row_type
                                       else [None] * len(values))
    return f"{kind.short}[" + ", ".join(format_value(v, t) for v, t in zip(values, types)) + "]"
