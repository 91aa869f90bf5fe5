"""Aggregate calls of a query: which are supported, and their result types (Flink's)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sqlglot import exp

from ..errors import UnsupportedSqlError
from ..types import INTEGRAL_TYPES, SqlType

_FUNCTIONS = {exp.Count: "COUNT", exp.Sum: "SUM", exp.Min: "MIN", exp.Max: "MAX", exp.Avg: "AVG"}


@dataclass(frozen=True)
class AggregateCall:
    """One aggregate call of the query: function, argument expression (None: COUNT(*))."""

    node: exp.Expression            # the call in the query, replaced by its result column
    function: str
    argument: Optional[exp.Expression]
    distinct: bool

    @property
    def text(self) -> str:
        """Flink's rendering in descriptions: COUNT(*), SUM(v), COUNT(DISTINCT v)."""
        if self.argument is None:
            return f"{self.function}(*)"
        inner = self.argument.sql(dialect="spark").replace("`", "")
        return f"{self.function}({'DISTINCT ' if self.distinct else ''}{inner})"


def aggregate_calls(expression: exp.Expression) -> list[AggregateCall]:
    """The aggregate calls in an expression (outermost first); unsupported ones are named."""
    calls = []
    for node in expression.find_all(exp.AggFunc):
        if any(isinstance(parent, exp.AggFunc) for parent in _ancestors(node, expression)):
            raise UnsupportedSqlError(f"nested aggregate {node.sql(dialect='spark')}")
        calls.append(_call(node))
    return calls


def _ancestors(node: exp.Expression, root: exp.Expression):
    parent = node.parent
    while parent is not None and parent is not root.parent:
        yield parent
        parent = parent.parent


def _call(node: exp.Expression) -> AggregateCall:
    function = _FUNCTIONS.get(type(node))
    if function is None:
        raise UnsupportedSqlError(
            f"aggregate function {node.sql_name() if hasattr(node, 'sql_name') else type(node).__name__}"
            f" (supported: COUNT, COUNT(DISTINCT), SUM, MIN, MAX, AVG)")
    argument = node.this
    distinct = isinstance(argument, exp.Distinct)
    if distinct:
        if function != "COUNT":
            raise UnsupportedSqlError(f"{function}(DISTINCT ...) (only COUNT(DISTINCT x) is "
                                      f"supported)")
        if len(argument.expressions) != 1:
            raise UnsupportedSqlError("COUNT(DISTINCT ...) of several columns")
        argument = argument.expressions[0]
    if isinstance(argument, exp.Star):
        if function != "COUNT":
            raise UnsupportedSqlError(f"{function}(*)")
        argument = None
    elif argument is None:
        raise UnsupportedSqlError(f"{function}() without an argument")
    if node.args.get("expressions"):
        raise UnsupportedSqlError(f"{function} with several arguments")
    return AggregateCall(node, function, argument, distinct)


def result_type(function: str, argument: Optional[SqlType]) -> SqlType:
    """Flink's return types: COUNT is BIGINT NOT NULL; SUM keeps integral and floating types
    and widens DECIMAL(p, s) to DECIMAL(38, s); AVG keeps integral and floating types and
    gives DECIMAL(38, max(s, 6)); MIN and MAX keep the argument's type. All but COUNT are
    nullable (NULL over no non-NULL value)."""
    if function == "COUNT":
        return SqlType("BIGINT", (), nullable=False)
    assert argument is not None
    if function in ("MIN", "MAX"):
        return argument.with_nullable(True)
    name = argument.name
    if name not in INTEGRAL_TYPES + ("DECIMAL", "FLOAT", "DOUBLE"):
        raise UnsupportedSqlError(f"{function} of a {argument.text} argument (it needs a number)")
    if name == "DECIMAL":
        scale = argument.params[1] if len(argument.params) > 1 else 0
        return SqlType("DECIMAL", (38, scale if function == "SUM" else max(scale, 6)))
    return SqlType(name)
