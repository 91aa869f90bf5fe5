"""Aggregate calls of a query: which are supported, and their result types (Flink's)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional

from sqlglot import exp

from ..errors import UnsupportedSqlError
from ..functions import AGGREGATE, FunctionDefinition
from ..types import INTEGRAL_TYPES, SqlType

class WelfordM2(exp.Expression, exp.AggFunc):
    """Flink's internal $WELFORD_M2 aggregate: the sum of squared deviations from the mean,
    kept by Welford's online algorithm; what the planner reduces STDDEV_* and VAR_* to, as
    Flink 2.3 does (variance.py)."""

    arg_types = {"this": True}
    _sql_names = ["WELFORD_M2"]


_FUNCTIONS = {exp.Count: "COUNT", exp.Sum: "SUM", exp.Min: "MIN", exp.Max: "MAX", exp.Avg: "AVG",
              WelfordM2: "WELFORD_M2"}
# Aggregates over the order rows arrive in: the group aggregate runs them; the window, over
# and mini-batch aggregates refuse them by name (aggregate_rule.refuse_ordered).
_ORDERED = {exp.FirstValue: "FIRST_VALUE", exp.LastValue: "LAST_VALUE",
            exp.GroupConcat: "LISTAGG"}
ORDERED_FUNCTIONS = tuple(_ORDERED.values())
_SUPPORTED = ("supported: COUNT, SUM, MIN, MAX, AVG, each with DISTINCT and FILTER; "
              "FIRST_VALUE, LAST_VALUE and LISTAGG with FILTER; STDDEV_POP, STDDEV_SAMP, "
              "VAR_POP and VAR_SAMP in stream-exec-group-aggregate")


@dataclass(frozen=True)
class AggregateCall:
    """One aggregate call of the query: function, argument expression (None: COUNT(*))."""

    node: exp.Expression            # the call in the query (with its FILTER), replaced by its
                                    # result column
    function: str
    argument: Optional[exp.Expression]
    distinct: bool
    condition: Optional[exp.Expression] = None    # FILTER (WHERE condition)
    udf: Optional[FunctionDefinition] = None      # a user-defined aggregate function
    arguments: tuple[exp.Expression, ...] = ()    # its arguments (a UDAF takes several)

    @property
    def text(self) -> str:
        """Flink's rendering in descriptions: COUNT(*), SUM(v), COUNT(DISTINCT v)."""
        if self.udf is not None:
            return f"{self.udf.name}({', '.join(_plain(a) for a in self.arguments)})"
        if self.argument is None:
            return f"{self.function}(*)"
        inner = self.argument.sql(dialect="spark").replace("`", "")
        return f"{self.function}({'DISTINCT ' if self.distinct else ''}{inner})"


def _plain(expression: exp.Expression) -> str:
    return expression.sql(dialect="spark").replace("`", "")


def udaf_of(node: exp.Expression, functions: Mapping[str, FunctionDefinition]
            ) -> Optional[FunctionDefinition]:
    """The user-defined aggregate function a call names, if it names one."""
    if isinstance(node, exp.Anonymous):
        found = functions.get(node.name.lower())
        if found is not None and found.kind == AGGREGATE:
            return found
    return None


def is_grouping_function(node: exp.Expression) -> bool:
    """GROUPING(k) and GROUPING_ID(k, ...): which grouping set a result row belongs to. They
    make a query block an aggregate, but are no aggregate calls (grouping_sets.py)."""
    return isinstance(node, (exp.Grouping, exp.GroupingId))


# Flink's built-in aggregates that sqlglot reads as plain calls: aggregates all the same, so
# an unsupported one is refused by name, not as a column "neither grouped nor aggregated".
_PLAIN_CALL_AGGREGATES = ("COLLECT",)


def is_aggregate(node: exp.Expression, functions: Mapping[str, FunctionDefinition]) -> bool:
    return (isinstance(node, exp.AggFunc) or udaf_of(node, functions) is not None
            or (isinstance(node, exp.Anonymous) and node.name.upper() in _PLAIN_CALL_AGGREGATES))


def aggregate_calls(expression: exp.Expression,
                    functions: Mapping[str, FunctionDefinition] = {}) -> list[AggregateCall]:
    """The aggregate calls in an expression (outermost first); unsupported ones are named.
    An aggregate's FILTER (WHERE condition) is part of its call: `AVG(a) FILTER (WHERE a > 1)`
    is one call, whose condition the planner projects as a column (Flink's filterArg)."""
    calls = []
    for node in expression.walk():
        if not is_aggregate(node, functions) or is_grouping_function(node):
            continue
        ancestors = list(_ancestors(node, expression))
        if any(is_aggregate(parent, functions) for parent in ancestors):
            raise UnsupportedSqlError(f"nested aggregate {node.sql(dialect='spark')}")
        owner = next((parent for parent in ancestors if isinstance(parent, exp.Filter)
                      and parent.this is not node), None)
        if owner is not None:
            raise UnsupportedSqlError(
                f"aggregate {node.sql(dialect='spark')} in the FILTER of "
                f"{owner.sql(dialect='spark')} (a FILTER condition is over the input columns)")
        call = _call(node, functions)
        filtered = node.parent if isinstance(node.parent, exp.Filter) else None
        if filtered is not None:
            where = filtered.expression
            condition = where.this if isinstance(where, exp.Where) else where
            call = AggregateCall(filtered, call.function, call.argument, call.distinct, condition,
                                 call.udf, call.arguments)
        calls.append(call)
    return calls


def over_aggregate_call(window: exp.Window,
                        functions: Mapping[str, FunctionDefinition] = {}) -> bool:
    """Whether an OVER window applies an aggregate function of the over aggregate, a
    user-defined one included (its other functions, ROW_NUMBER() and RANK() among them, are
    the rank rule's to name)."""
    return (type(window.this) in _FUNCTIONS or isinstance(window.this, exp.Lag)
            or type(window.this) in (exp.FirstValue, exp.LastValue)
            or udaf_of(window.this, functions) is not None)


def _ancestors(node: exp.Expression, root: exp.Expression):
    parent = node.parent
    while parent is not None and parent is not root.parent:
        yield parent
        parent = parent.parent


def _call(node: exp.Expression, functions: Mapping[str, FunctionDefinition]) -> AggregateCall:
    udf = udaf_of(node, functions)
    if udf is not None:
        arguments = tuple(node.expressions)
        if any(isinstance(a, (exp.Star, exp.Distinct)) for a in arguments):
            raise UnsupportedSqlError(f"{node.sql(dialect='spark')}: * or DISTINCT in a call of "
                                      f"the user-defined aggregate function {udf.name}")
        return AggregateCall(node, "UDAF", None, False, udf=udf, arguments=arguments)
    if type(node) in _ORDERED:
        return _ordered_call(node, _ORDERED[type(node)])
    function = _FUNCTIONS.get(type(node))
    if function is None:
        name = (node.name.upper() if isinstance(node, exp.Anonymous) else
                node.sql_name() if hasattr(node, "sql_name") else type(node).__name__)
        raise UnsupportedSqlError(f"aggregate function {name} ({_SUPPORTED})")
    argument = node.this
    distinct = isinstance(argument, exp.Distinct)
    if distinct:
        if len(argument.expressions) != 1:
            raise UnsupportedSqlError(f"{function}(DISTINCT ...) of several columns")
        argument = argument.expressions[0]
        # MIN and MAX ignore DISTINCT (Calcite's Optionality.IGNORED): Flink plans
        # MIN(DISTINCT a) as MIN(a), distinct false
        distinct = function not in ("MIN", "MAX")
    if isinstance(argument, exp.Star):
        if function != "COUNT":
            raise UnsupportedSqlError(f"{function}(*)")
        argument = None
    elif argument is None:
        raise UnsupportedSqlError(f"{function}() without an argument")
    if node.args.get("expressions"):
        raise UnsupportedSqlError(f"{function} with several arguments")
    return AggregateCall(node, function, argument, distinct)


def _ordered_call(node: exp.Expression, function: str) -> AggregateCall:
    """FIRST_VALUE(x), LAST_VALUE(x), LISTAGG(x [, 'delimiter']): one argument (LISTAGG's
    delimiter a string literal, projected as a column below the aggregate as Flink does)."""
    argument = node.this
    if isinstance(argument, exp.Distinct):
        raise UnsupportedSqlError(f"{function}(DISTINCT ...) (Flink feeds a distinct aggregate "
                                  f"its values in another order than they arrive)")
    if argument is None or isinstance(argument, exp.Star):
        raise UnsupportedSqlError(f"{function} without a column argument")
    extra = [value for key, value in node.args.items()
             if key not in ("this", "separator") and value]
    if extra:
        raise UnsupportedSqlError(f"{function} with several arguments (it takes one column"
                                  f"{' and a delimiter' if function == 'LISTAGG' else ''})")
    separator = node.args.get("separator")
    if separator is not None and not (isinstance(separator, exp.Literal) and separator.is_string):
        raise UnsupportedSqlError("LISTAGG with a delimiter that is not a string literal")
    arguments = (argument,) if separator is None else (argument, separator)
    return AggregateCall(node, function, argument, False, arguments=arguments)


def result_type(function: str, argument: Optional[SqlType]) -> SqlType:
    """Flink's return types: COUNT is BIGINT NOT NULL; SUM keeps integral and floating types
    and widens DECIMAL(p, s) to DECIMAL(38, s); AVG keeps integral and floating types and
    gives DECIMAL(38, max(s, 6)); MIN and MAX keep the argument's type. All but COUNT are
    nullable (NULL over no non-NULL value)."""
    if function == "COUNT":
        return SqlType("BIGINT", (), nullable=False)
    assert argument is not None
    if function == "WELFORD_M2":
        return SqlType("DOUBLE")
    if function in ("MIN", "MAX", "FIRST_VALUE", "LAST_VALUE"):
        return argument.with_nullable(True)
    if function == "LISTAGG":
        if argument.name not in ("STRING", "VARCHAR", "CHAR"):
            raise UnsupportedSqlError(f"LISTAGG of a {argument.text} argument (it concatenates "
                                      f"strings; CAST it to STRING)")
        return SqlType("STRING")
    name = argument.name
    if name not in INTEGRAL_TYPES + ("DECIMAL", "FLOAT", "DOUBLE"):
        raise UnsupportedSqlError(f"{function} of a {argument.text} argument (it needs a number)")
    if name == "DECIMAL":
        scale = argument.params[1] if len(argument.params) > 1 else 0
        return SqlType("DECIMAL", (38, scale if function == "SUM" else max(scale, 6)))
    return SqlType(name)
