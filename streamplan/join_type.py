"""Join types: the one table of their names, which sides they pad, and Flink's labels."""
from __future__ import annotations

from enum import Enum


class JoinType(str, Enum):
    """As written in plans (`joinSpec.joinType`); a str, so plan JSON stays a string."""

    INNER = "INNER"
    LEFT = "LEFT"
    RIGHT = "RIGHT"
    FULL = "FULL"

    @property
    def left_outer(self) -> bool:
        """Unmatched left rows are emitted, padded with NULLs."""
        return self in (JoinType.LEFT, JoinType.FULL)

    @property
    def right_outer(self) -> bool:
        return self in (JoinType.RIGHT, JoinType.FULL)

    @property
    def label(self) -> str:
        """Flink's name in plan descriptions: 'LeftOuterJoin'."""
        return "InnerJoin" if self is JoinType.INNER else f"{self.value.title()}OuterJoin"

    @classmethod
    def from_sql(cls, side: str) -> "JoinType":
        """sqlglot's join side ('' for a plain JOIN, 'LEFT', ...) -> the join type."""
        return cls(side.upper() or "INNER")
