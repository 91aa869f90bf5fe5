"""Recognise an interval join's time bounds in its ON condition, as Flink's IntervalJoinUtil.

Each time predicate is normalised to `left.t <op> right.t + c` (c in ms): `>=` gives the
lower bound c, `>` gives c + 1, `<=` the upper bound c, `<` gives c - 1, `=` both.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sqlglot import exp

from ..durations import INTERVAL_UNITS_MS, bounded_decimal
from ..errors import PlanningError

_FLIP = {exp.GTE: exp.LTE, exp.GT: exp.LT, exp.LTE: exp.GTE, exp.LT: exp.GT, exp.EQ: exp.EQ}


@dataclass
class Bounds:
    lower: Optional[int] = None
    upper: Optional[int] = None


def interval_ms(node: exp.Interval) -> int:
    """INTERVAL '10' SECOND, INTERVAL 10 SECONDS or INTERVAL '10 SECOND' in milliseconds."""
    text = node.this.name if isinstance(node.this, exp.Literal) else node.this.sql()
    unit = node.unit.name if node.unit else ""
    if not unit and " " in text.strip():
        text, unit = text.strip().split(None, 1)
    unit = unit.upper().rstrip("S") or "SECOND"
    if unit not in INTERVAL_UNITS_MS:
        raise PlanningError(f"interval unit {unit} is not supported in a join time bound "
                            f"(use MILLISECOND, SECOND, MINUTE, HOUR or DAY)")
    amount = bounded_decimal(text)
    if amount is None:
        raise PlanningError(f"'{text[:40]}' is not a number of at most 10^15 in INTERVAL "
                            f"'...' {unit}") from None
    return int(amount * INTERVAL_UNITS_MS[unit])


def _time_term(node: exp.Expression, is_time_column) -> Optional[tuple[str, int]]:
    """`col`, `col + INTERVAL`, `col - INTERVAL` on a rowtime column -> (side, offset ms)."""
    node = node.unnest() if isinstance(node, exp.Paren) else node
    if isinstance(node, exp.Column):
        side = is_time_column(node)
        return (side, 0) if side else None
    if isinstance(node, (exp.Add, exp.Sub)) and isinstance(node.expression, exp.Interval):
        inner = _time_term(node.this, is_time_column)
        if inner is None:
            return None
        offset = interval_ms(node.expression)
        return inner[0], inner[1] + (offset if isinstance(node, exp.Add) else -offset)
    return None


def time_predicate(conjunct: exp.Expression, is_time_column) -> Optional[list[tuple[type, int]]]:
    """[(op, c)] meaning `left.t op right.t + c`, or None if this is no time predicate.

    `is_time_column(column)` returns 'L' / 'R' for the rowtime attribute of a side, else None.
    """
    if isinstance(conjunct, exp.Between):
        low = time_predicate(exp.GTE(this=conjunct.this, expression=conjunct.args["low"]),
                             is_time_column)
        high = time_predicate(exp.LTE(this=conjunct.this, expression=conjunct.args["high"]),
                              is_time_column)
        if low is None or high is None:
            return None
        return low + high
    if type(conjunct) not in _FLIP:
        return None
    a = _time_term(conjunct.this, is_time_column)
    b = _time_term(conjunct.expression, is_time_column)
    if a is None or b is None or a[0] == b[0]:
        return None
    op = type(conjunct)
    if a[0] == "L":            # l.t + a op r.t + b  =>  l.t op r.t + (b - a)
        return [(op, b[1] - a[1])]
    return [(_FLIP[op], a[1] - b[1])]   # r.t + a op l.t + b  =>  l.t flip(op) r.t + (a - b)


def add_to_bounds(bounds: Bounds, predicates: list[tuple[type, int]], where: str) -> None:
    for op, offset in predicates:
        lower = {exp.GTE: offset, exp.GT: offset + 1, exp.EQ: offset}.get(op)
        upper = {exp.LTE: offset, exp.LT: offset - 1, exp.EQ: offset}.get(op)
        if lower is not None:
            if bounds.lower is not None:
                raise PlanningError(f"{where}: the join condition has two lower time bounds")
            bounds.lower = lower
        if upper is not None:
            if bounds.upper is not None:
                raise PlanningError(f"{where}: the join condition has two upper time bounds")
            bounds.upper = upper
