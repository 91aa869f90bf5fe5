"""Timestamps as the runtime counts them: epoch milliseconds (event time, timers) and epoch
microseconds (how state stores them). A naive datetime is UTC, as Spark hands TIMESTAMP
values to Python; an aware one is taken at its instant."""
from __future__ import annotations

import datetime as dt

EPOCH = dt.datetime(1970, 1, 1)
EPOCH_UTC = EPOCH.replace(tzinfo=dt.timezone.utc)
_MILLISECOND = dt.timedelta(milliseconds=1)
_MICROSECOND = dt.timedelta(microseconds=1)


def _since_epoch(value: dt.datetime) -> dt.timedelta:
    return value - (EPOCH if value.tzinfo is None else EPOCH_UTC)


def to_millis(value: dt.datetime | int) -> int:
    """Event time of a timestamp (or of epoch milliseconds already) in epoch milliseconds."""
    if isinstance(value, int):
        return value
    return _since_epoch(value) // _MILLISECOND


def to_micros(value: dt.datetime) -> int:
    return _since_epoch(value) // _MICROSECOND


def from_micros(micros: int) -> dt.datetime:
    """Epoch microseconds as an aware UTC datetime."""
    return EPOCH_UTC + dt.timedelta(microseconds=micros)
