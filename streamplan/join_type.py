"""Join types: the one table of their names, which sides they pad, and Flink's labels."""
from __future__ import annotations

from enum import Enum


class JoinType(str, Enum):
    """As written in plans (`joinSpec.joinType`); a str, so plan JSON stays a string.

    SEMI and ANTI are Flink's FlinkJoinType.SEMI / ANTI (`IN` / `EXISTS` and their negations):
    the output is the left row alone, emitted when it has (SEMI) or has no (ANTI) match."""

    INNER = "INNER"
    LEFT = "LEFT"
    RIGHT = "RIGHT"
    FULL = "FULL"
    SEMI = "SEMI"
    ANTI = "ANTI"

    @property
    def left_outer(self) -> bool:
        """Unmatched left rows are emitted, padded with NULLs."""
        return self in (JoinType.LEFT, JoinType.FULL)

    @property
    def right_outer(self) -> bool:
        return self in (JoinType.RIGHT, JoinType.FULL)

    @property
    def semi_or_anti(self) -> bool:
        """Output is the left row only (Flink's StreamingSemiAntiJoinOperator)."""
        return self in (JoinType.SEMI, JoinType.ANTI)

    @property
    def left_counts_matches(self) -> bool:
        """The left state keeps each row's number of matches (an outer side, or the left
        side of a semi or anti join: Flink's OuterJoinRecordStateView)."""
        return self.left_outer or self.semi_or_anti

    @property
    def label(self) -> str:
        """Flink's name in plan descriptions: 'LeftOuterJoin', 'LeftSemiJoin'."""
        if self.semi_or_anti:
            return f"Left{self.value.title()}Join"
        return "InnerJoin" if self is JoinType.INNER else f"{self.value.title()}OuterJoin"

    @classmethod
    def from_sql(cls, side: str) -> "JoinType":
        """sqlglot's join side ('' for a plain JOIN, 'LEFT', ...) -> the join type."""
        return cls(side.upper() or "INNER")
