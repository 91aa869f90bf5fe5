"""Flink-style durations ('5s', '2000 ms', '1 min', '1h', '1d') to milliseconds and back."""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Optional

_UNITS_MS = {
    "ms": 1, "milli": 1, "millis": 1, "millisecond": 1, "milliseconds": 1,
    "s": 1000, "sec": 1000, "secs": 1000, "second": 1000, "seconds": 1000,
    "min": 60_000, "mins": 60_000, "minute": 60_000, "minutes": 60_000, "m": 60_000,
    "h": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
    "d": 86_400_000, "day": 86_400_000, "days": 86_400_000,
}
# SQL interval units (INTERVAL 'n' UNIT in watermarks and join bounds), in milliseconds.
INTERVAL_UNITS_MS = {"MILLISECOND": 1, "SECOND": 1_000, "MINUTE": 60_000, "HOUR": 3_600_000,
                     "DAY": 86_400_000}
_PATTERN = re.compile(r"^\s*(-?\d+)\s*([a-zA-Z]*)\s*$")


def parse_duration_ms(text: str) -> int:
    """Parse a duration; a bare number means milliseconds, as in Flink."""
    match = _PATTERN.match(text) if len(text) <= 64 else None
    if not match:
        raise ValueError(f"'{text}' is not a duration (examples: '5 s', '2000 ms', '1 min', '1 h')")
    amount, unit = int(match.group(1)), match.group(2).lower() or "ms"
    if unit not in _UNITS_MS:
        raise ValueError(f"'{text}' has unknown time unit '{unit}' (use ms, s, min, h or d)")
    return amount * _UNITS_MS[unit]


def format_duration_ms(ms: int) -> str:
    """The canonical form written into plans, as Flink writes it: '3600000 ms'."""
    return f"{ms} ms"


# A time amount of more than ~10^15 units is no time amount: refused before any arithmetic
# (Decimal('1E999999') multiplies fine, turning it into an int takes forever).
_MAX_AMOUNT_EXPONENT = 15


def bounded_decimal(text: str) -> Optional[Decimal]:
    """`text` as a finite Decimal of at most ~10^15 in size, or None."""
    if len(text) > 64:
        return None
    try:
        amount = Decimal(text)
    except InvalidOperation:
        return None
    if not amount.is_finite() or amount.adjusted() > _MAX_AMOUNT_EXPONENT:
        return None
    return amount
