"""A join's non-equi condition as its processor runs it: compiled on the first row it tests.

Spark calls a processor's init() in the transformWithState driver worker too, a fresh
interpreter started for each stateful node at each query start, which only reads the state
schemas; compiling there imported sqlglot (runtime.pyeval) into every one of them for nothing.
"""
from __future__ import annotations

from typing import Collection, Optional


class JoinCondition:
    def __init__(self, sql: str, columns: Collection[str]):
        self.sql = sql
        self.columns = tuple(columns)
        self._test = None

    def __call__(self, row) -> Optional[bool]:
        if self._test is None:
            from .pyeval import compile_predicate

            self._test = compile_predicate(self.sql, columns=self.columns)
        return self._test(row)


def join_condition(sql: Optional[str], columns: Collection[str]) -> Optional[JoinCondition]:
    """The condition to test joined rows with; None when the join has none."""
    return JoinCondition(sql, columns) if sql else None
