"""Correlate: a table function applied to each input row (Flink's StreamExecCorrelate running
its generated TableFunction collector, CorrelateCodeGenerator). For each row the function's
`eval` yields zero or more result rows; each is joined to the input row, which keeps its row
kind. An INNER correlate drops a row the function yields nothing for; a LEFT one pads it
with NULLs (Flink's LEFT JOIN LATERAL ... ON TRUE).

`expand` is the whole semantics, without Spark; on Spark the function runs as a Python UDF
returning an array of result structs, which `inline` (`inline_outer` for LEFT) joins to the
row.
"""
from __future__ import annotations

from typing import Any, Iterable


def expand(rows: Iterable[Any], arity: int, atomic: bool) -> list[tuple]:
    """What `eval` yielded as result rows: an atomic result type yields values, a ROW result
    type tuples of its `arity` fields."""
    result = []
    for row in rows or ():
        values = (row,) if atomic else tuple(row)
        if len(values) != arity:
            raise ValueError(f"the table function yielded {values!r}, not a row of {arity} "
                             f"field(s) of its RESULT_TYPE")
        result.append(values)
    return result


def correlate(function: Any, args: tuple, arity: int, atomic: bool, left: bool) -> list[tuple]:
    """The result rows one input row is joined to (one NULL row for an empty LEFT result)."""
    rows = expand(function.eval(*args), arity, atomic)
    if not rows and left:
        return [(None,) * arity]
    return rows


class TableFunctionCall:
    """The Python UDF body: one input row's arguments -> the list of its result rows
    (picklable: a module-level class holding the function's class path)."""

    def __init__(self, implementation: str, arity: int, atomic: bool):
        self.implementation = implementation
        self.arity = arity
        self.atomic = atomic

    def __call__(self, *args):
        from ..functions import instance_of

        return expand(instance_of(self.implementation).eval(*args), self.arity, self.atomic)
