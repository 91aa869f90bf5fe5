"""What the planning rules share: the relation a sub-plan outputs, the context one INSERT
carries into its query blocks, and the small helpers several rules use (a quoted column,
the conjuncts of a condition, names made unique as Flink does, a calc's description).
Each is defined here once; the rule modules import them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from sqlglot import exp

from ..nodes import ExecNode
from ..sql.ast import Insert, Position
from ..types import unique_names
from .hints import QueryHints
from .scope import ScopeField

if TYPE_CHECKING:  # pragma: no cover
    from .windows import WindowTvf


@dataclass
class Relation:
    """The output of a sub-plan: its node and the columns the query can name."""

    node: ExecNode
    scope_fields: list[ScopeField]
    names: tuple[str, ...] = ()          # how the relation is known: alias, table name
    window: Optional["WindowTvf"] = None  # a window TVF over `node` (planner/windows.py)


@dataclass
class QueryContext:
    """What planning one INSERT carries down into its query blocks."""

    insert: Insert
    where: str
    hints: QueryHints
    ctes: dict[str, exp.Expression] = field(default_factory=dict)
    interval_joins: int = 0              # in the top-level block (EARLY_FIRE applies there)

    @property
    def position(self) -> Position:
        return self.insert.position


def _column(name: str) -> exp.Column:
    return exp.column(exp.to_identifier(name, quoted=True))


def _conjuncts(condition: exp.Expression) -> list[exp.Expression]:
    condition = condition.unnest() if isinstance(condition, exp.Paren) else condition
    if isinstance(condition, exp.And):
        return _conjuncts(condition.this) + _conjuncts(condition.expression)
    return [condition]


_dedupe = unique_names


def _calc_description(projection: list[str], names: list[str], condition: Optional[str]) -> str:
    select = ", ".join(expr.replace("`", "") if expr == f"`{name}`" else f"{expr} AS {name}"
                       for expr, name in zip(projection, names))
    return f"Calc(select=[{select}]" + (f", where=[{condition}])" if condition else ")")
