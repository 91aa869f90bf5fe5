"""A micro-batch's rows of one key as a processor reads them, and the rows it emits.

Rows are read in arrival order: the order the upstream operator emitted them in, which is
the order Flink's next operator would see (an update arrives as -U then +U, a join's
correction as -D then +I, and an update of an upsert source as two such pairs). Spark keeps
it: within one upstream partition its shuffle and the sort that groups a key are stable,
and in local mode the upstream partitions are read in their order, so the order is also
the same run after run.
"""
from __future__ import annotations

import datetime as dt
from typing import Any, Iterable, Iterator

from ..changelog import OP_COLUMN, RowKind

Output = tuple[int, tuple]               # what a core emits: (row kind code, values)


def rows_of(rows: Iterable, names: tuple[str, ...]) -> list[tuple[RowKind, tuple]]:
    """(row kind, values of `names`) of each input row, in arrival order."""
    return [(RowKind.from_code(row[OP_COLUMN]), normalized(tuple(row[name] for name in names)))
            for row in rows]


def normalized(values: tuple) -> tuple:
    """`values` with every timestamp as the cores compare them: naive, in UTC (the session
    time zone). State hands TIMESTAMP values back naive, while an input row may carry them
    with a time zone (a PROCTIME() attribute, TIMESTAMP_LTZ): rows read from state and from
    input meet in one sort order, and a retraction finds its kept row."""
    if not any(isinstance(value, dt.datetime) and value.tzinfo is not None for value in values):
        return values
    return tuple(value.astimezone(dt.timezone.utc).replace(tzinfo=None)
                 if isinstance(value, dt.datetime) and value.tzinfo is not None else value
                 for value in values)


def emitted(out: list[tuple[int, tuple]], names: tuple[str, ...]) -> Iterator:
    """Spark rows of the (row kind code, values) a core emitted."""
    from pyspark.sql import Row

    return iter([Row(**dict(zip(names, values)), **{OP_COLUMN: code}) for code, values in out])


def plain(struct: Any) -> tuple:
    """A struct read from state (a Row, or a dict for nested structs) as a plain tuple;
    None (a NULL struct) as ()."""
    if struct is None:
        return ()
    return normalized(tuple(struct.values()) if isinstance(struct, dict) else tuple(struct))
