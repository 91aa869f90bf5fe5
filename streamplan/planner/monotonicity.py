"""Flink's modified monotonicity (FlinkRelMdModifiedMonotonicity): how each field of a node's
output can change once emitted. CONSTANT: never updated; INCREASING / DECREASING: an update
only moves it one way; NOT_MONOTONIC: anything; `None` for the whole row: the node may
delete rows (Flink's "containsDelete"). The rank planner reads it to pick Flink's
UpdateFastStrategy (a sort key that only moves towards the top: UpdatableTopNFunction).

Ported node by node for the nodes planned here; a node Flink has no rule for, or whose rule
is not ported (window aggregates, window joins, temporal joins...), gives `None`, as Flink's
catch-all does. A SUM is monotonic when its argument is bounded on one side by zero
(getFilteredColumnInterval): here the bounds a filter puts on a column (`WHERE v > 0`,
`v BETWEEN 1 AND 9`, conjuncts comparing the column with a number, an aggregate's FILTER
clause included), as Flink derives them from the predicates (our sources have no
statistics); bounds of computed expressions are not derived.
"""
from __future__ import annotations

import re
from typing import Callable, Optional

from sqlglot import exp

from ..changelog import RowKind
from ..nodes.base import ExecNode
from ..nodes.calc import StreamExecCalc
from ..nodes.changelog_normalize import StreamExecChangelogNormalize
from ..nodes.correlate import StreamExecCorrelate
from ..nodes.deduplicate import StreamExecDeduplicate
from ..nodes.drop_update_before import StreamExecDropUpdateBefore
from ..nodes.expand import StreamExecExpand
from ..nodes.global_group_aggregate import StreamExecGlobalGroupAggregate
from ..nodes.group_aggregate import StreamExecGroupAggregate
from ..nodes.incremental_group_aggregate import StreamExecIncrementalGroupAggregate
from ..nodes.interval_join import StreamExecIntervalJoin
from ..nodes.join import StreamExecJoin
from ..nodes.local_group_aggregate import StreamExecLocalGroupAggregate
from ..nodes.lookup_join import StreamExecLookupJoin
from ..nodes.mini_batch_assigner import StreamExecMiniBatchAssigner
from ..nodes.over_aggregate import StreamExecOverAggregate
from ..nodes.rank import StreamExecRank
from ..nodes.source_scan import StreamExecTableSourceScan
from ..nodes.union import StreamExecUnion
from ..nodes.values import StreamExecValues
from ..nodes.watermark_assigner import StreamExecWatermarkAssigner
from ..types import quote_identifier

CONSTANT, INCREASING, DECREASING, NOT_MONOTONIC = ("CONSTANT", "INCREASING", "DECREASING",
                                                   "NOT_MONOTONIC")
Monotonicity = Optional[tuple[str, ...]]
Interval = tuple[Optional[float], Optional[float]]     # (lower, upper); None: unbounded

_CAST_OF = re.compile(r"^CAST\((.+) AS [^()]+(?:\([^()]*\))?\)$", re.IGNORECASE)


class MonotonicityQuery:
    """`of(node)`: the node's output monotonicity, computed once per node. `inputs_of(node)`
    gives a node's input nodes in the planned graph."""

    def __init__(self, inputs_of: Callable[[ExecNode], list[ExecNode]]):
        self._inputs_of = inputs_of
        self._known: dict[int, Monotonicity] = {}

    def of(self, node: ExecNode) -> Monotonicity:
        if node.id not in self._known:
            self._known[node.id] = self._compute(node)
        return self._known[node.id]

    # --- Flink's helpers ---------------------------------------------------------------------
    def all_append(self, node: ExecNode) -> bool:
        mono = self.of(node)
        return mono is not None and all(m == CONSTANT for m in mono)

    def contains_update(self, node: ExecNode) -> bool:
        mono = self.of(node)
        return mono is not None and any(m != CONSTANT for m in mono)

    def _pass_through(self, node: ExecNode) -> Monotonicity:
        """getMonotonicity: a node that generates no update itself."""
        (source,) = self._inputs_of(node)[:1]
        count = len(node.row_type.fields)
        if self.of(source) is None:
            return None
        return (CONSTANT if self.all_append(source) else NOT_MONOTONIC,) * count

    # --- per node ------------------------------------------------------------------------------
    def _compute(self, node: ExecNode) -> Monotonicity:
        count = len(node.row_type.fields)
        if isinstance(node, StreamExecTableSourceScan):
            modes = node.output_changelog([])
            return (CONSTANT if modes == frozenset({RowKind.INSERT}) else NOT_MONOTONIC,) * count
        if isinstance(node, StreamExecValues):
            return (CONSTANT,) * count
        if isinstance(node, (StreamExecWatermarkAssigner, StreamExecMiniBatchAssigner,
                             StreamExecDropUpdateBefore, StreamExecExpand, StreamExecCorrelate,
                             StreamExecLookupJoin)):
            return self._pass_through(node)
        if isinstance(node, StreamExecCalc):
            return self._calc(node)
        if isinstance(node, (StreamExecGroupAggregate, StreamExecLocalGroupAggregate)):
            return self._aggregate(node, node.grouping, node.agg_calls)
        if isinstance(node, StreamExecIncrementalGroupAggregate):
            return self._aggregate(node, node.partial_agg_grouping, node.partial_original_agg_calls)
        if isinstance(node, StreamExecGlobalGroupAggregate):
            return self.of(self._inputs_of(node)[0])        # the local aggregate's
        if isinstance(node, StreamExecChangelogNormalize):
            keys = set(node.unique_keys)
            return tuple(CONSTANT if i in keys else NOT_MONOTONIC for i in range(count))
        if isinstance(node, (StreamExecOverAggregate, StreamExecIntervalJoin)):
            return (CONSTANT,) * count
        if isinstance(node, StreamExecDeduplicate):
            return self._deduplicate(node)
        if isinstance(node, StreamExecRank):
            return self._rank(node)
        if isinstance(node, StreamExecJoin):
            return self._join(node)
        if isinstance(node, StreamExecUnion):
            return self._union(node)
        return None

    def _calc(self, node: StreamExecCalc) -> Monotonicity:
        (source,) = self._inputs_of(node)
        source_mono = self.of(source)
        if source_mono is None:                                  # contains delete
            return None
        if self.all_append(source):
            return (CONSTANT,) * len(node.projection)
        result = [NOT_MONOTONIC] * len(node.projection)
        for index, text in enumerate(node.projection):
            column = _column_of(text, source.row_type.names)
            if column is not None:
                result[index] = source_mono[column]
        if node.condition is not None:
            moving = {source.row_type.names[i]: m for i, m in enumerate(source_mono)
                      if m != CONSTANT}
            if _needs_retract(exp.maybe_parse(node.condition, dialect="spark"), moving):
                result = [NOT_MONOTONIC] * len(result)
        return tuple(result)

    def _aggregate(self, node: ExecNode, grouping, agg_calls) -> Monotonicity:
        """getRelModifiedMonotonicityOnAggregate."""
        source = self._inputs_of(node)[0]
        source_mono = self.of(source)
        if source_mono is None or any(source_mono[i] != CONSTANT for i in grouping):
            return None
        calls = [self._call_monotonicity(source, call) for call in agg_calls]
        if self.contains_update(source):
            for index, call in enumerate(agg_calls):
                if len(call.arg_list) > 1:
                    calls[index] = NOT_MONOTONIC
                elif len(call.arg_list) == 1 and source_mono[call.arg_list[0]] != calls[index] \
                        and call.function != "COUNT":    # COUNT increases whatever its input
                    calls[index] = NOT_MONOTONIC
        return (CONSTANT,) * len(grouping) + tuple(calls)

    def _deduplicate(self, node: StreamExecDeduplicate) -> Monotonicity:
        """getPhysicalRankModifiedMonotonicity."""
        source = self._inputs_of(node)[0]
        count = len(node.row_type.fields)
        if not self.all_append(source):
            return None
        if node.keep_last_row or node.is_rowtime:
            keys = set(node.unique_keys)
            return tuple(CONSTANT if i in keys else NOT_MONOTONIC for i in range(count))
        return (CONSTANT,) * count                               # FirstRow: no updates

    def _rank(self, node: StreamExecRank) -> Monotonicity:
        source_mono = self.of(self._inputs_of(node)[0])
        partition = node.partition.fields
        if source_mono is None or any(source_mono[i] != CONSTANT for i in partition):
            return None
        count = len(node.row_type.fields)
        result = [NOT_MONOTONIC] * count
        for i in partition:
            result[i] = CONSTANT
        if node.output_row_number:
            result[-1] = CONSTANT
        if node.order_by.fields:
            first = node.order_by.fields[0]
            field_mono = source_mono[first.index]
            if field_mono in (INCREASING, CONSTANT) and not first.is_ascending:
                result[first.index] = INCREASING
            elif field_mono in (DECREASING, CONSTANT) and first.is_ascending:
                result[first.index] = DECREASING
        return tuple(result)

    def _join(self, node: StreamExecJoin) -> Monotonicity:
        spec = node.join_spec
        if spec.join_type == "ANTI":
            return None
        left, right = self._inputs_of(node)
        left_mono, right_mono = self.of(left), self.of(right)
        if left_mono is None or right_mono is None:
            return None
        keys_append = (all(left_mono[i] == CONSTANT for i in spec.left_keys)
                       and all(right_mono[i] == CONSTANT for i in spec.right_keys))
        updates = self.contains_update(left) or self.contains_update(right)
        equi = spec.non_equi_condition is None
        if not keys_append or (updates and not equi):
            return None
        return left_mono if spec.join_type == "SEMI" else left_mono + right_mono

    def _union(self, node: StreamExecUnion) -> Monotonicity:
        monos = [self.of(source) for source in self._inputs_of(node)]
        if any(mono is None for mono in monos):
            return None
        if all(mono == monos[0] for mono in monos):
            return monos[0]
        return (NOT_MONOTONIC,) * len(node.row_type.fields)


    def _call_monotonicity(self, source: ExecNode, call) -> str:
        """getMonotonicityOnAggCall."""
        if call.function in ("COUNT", "MAX"):
            return INCREASING
        if call.function == "MIN":
            return DECREASING
        if call.function in ("SUM", "SUM0"):
            lower, upper = self._filtered_interval(source, call.arg_list[0], call.filter_arg)
            if lower is not None:
                return INCREASING if lower >= 0 else NOT_MONOTONIC
            if upper is not None:
                return DECREASING if upper <= 0 else NOT_MONOTONIC
        return NOT_MONOTONIC

    # --- column intervals (FlinkRelMdColumnInterval / FlinkRelMdFilteredColumnInterval) ---------
    def _filtered_interval(self, node: ExecNode, index: int,
                           filter_arg: Optional[int]) -> Interval:
        """The bounds of field `index` of `node`'s output, within the rows an aggregate's
        FILTER field `filter_arg` (a projected predicate) lets through."""
        interval = self._interval(node, index)
        if filter_arg is None or not isinstance(node, StreamExecCalc):
            return interval
        (source,) = self._inputs_of(node)
        column = _column_of(node.projection[index], source.row_type.names)
        if column is None:
            return interval
        predicate = _strip_casts(exp.maybe_parse(node.projection[filter_arg], dialect="spark"))
        if isinstance(predicate, exp.Is) and isinstance(predicate.expression, exp.Boolean) \
                and predicate.expression.this:         # FILTER's `(...) IS TRUE`
            predicate = predicate.this
        return _intersect(interval, _bounds(predicate, source.row_type.names[column]))

    def _interval(self, node: ExecNode, index: int) -> Interval:
        if isinstance(node, StreamExecWatermarkAssigner):
            return self._interval(self._inputs_of(node)[0], index)
        if not isinstance(node, StreamExecCalc):
            return (None, None)                  # no statistics: unbounded
        (source,) = self._inputs_of(node)
        column = _column_of(node.projection[index], source.row_type.names)
        if column is None:
            return (None, None)
        interval = self._interval(source, column)
        if node.condition is not None:
            condition = exp.maybe_parse(node.condition, dialect="spark")
            interval = _intersect(interval, _bounds(condition, source.row_type.names[column]))
        return interval


def _column_of(text: str, names: list[str]) -> Optional[int]:
    """The input column a projection is, through CASTs (Flink: RexInputRef, AS, CAST)."""
    position = {quote_identifier(name): i for i, name in enumerate(names)}
    while True:
        match = _CAST_OF.match(text.strip())
        if not match:
            return position.get(text.strip())
        text = match.group(1)


def _intersect(a: Interval, b: Interval) -> Interval:
    lowers = [x for x in (a[0], b[0]) if x is not None]
    uppers = [x for x in (a[1], b[1]) if x is not None]
    return (max(lowers) if lowers else None, min(uppers) if uppers else None)


def _number(node: exp.Expression) -> Optional[float]:
    node = _strip_casts(node)
    if isinstance(node, exp.Neg):
        value = _number(node.this)
        return None if value is None else -value
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return float(node.this)
        except ValueError:
            return None
    return None


def _bounds(predicate: exp.Expression, name: str) -> Interval:
    """The bounds a predicate's conjuncts put on column `name` (comparisons with a number,
    BETWEEN); anything else bounds nothing."""
    predicate = _strip_casts(predicate)
    if isinstance(predicate, exp.And):
        return _intersect(_bounds(predicate.this, name), _bounds(predicate.expression, name))
    if isinstance(predicate, exp.Between):
        column = _strip_casts(predicate.this)
        low, high = _number(predicate.args["low"]), _number(predicate.args["high"])
        if isinstance(column, exp.Column) and column.name == name:
            return (low, high)
        return (None, None)
    if not isinstance(predicate, (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ)):
        return (None, None)
    left, right = _strip_casts(predicate.this), _strip_casts(predicate.expression)
    flipped = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE, exp.EQ: exp.EQ}
    kind = type(predicate)
    if isinstance(right, exp.Column) and right.name == name:
        left, right, kind = right, left, flipped[kind]
    value = _number(right)
    if not (isinstance(left, exp.Column) and left.name == name) or value is None:
        return (None, None)
    if kind in (exp.GT, exp.GTE):
        return (value, None)
    if kind in (exp.LT, exp.LTE):
        return (None, value)
    return (value, value)


def _strip_casts(node: exp.Expression) -> exp.Expression:
    while isinstance(node, (exp.Cast, exp.Alias, exp.Paren)):
        node = node.this
    return node


def _needs_retract(node: exp.Expression, moving: dict[str, str]) -> bool:
    """isNeedRetract: whether a filter over fields that change (`moving`: name -> their
    monotonicity) can turn an update into a row that no longer passes."""
    node = _strip_casts(node)
    if isinstance(node, exp.Column):
        return node.name in moving
    if isinstance(node, (exp.And, exp.Or)):
        return _needs_retract(node.this, moving) or _needs_retract(node.expression, moving)
    operands = [_strip_casts(op) for op in (node.args.get("this"), node.args.get("expression"))
                if isinstance(op, exp.Expression)]
    columns = [op.name for op in operands if isinstance(op, exp.Column) and op.name in moving]
    if isinstance(node, (exp.GT, exp.GTE)):
        return bool(columns) and moving[columns[0]] != INCREASING
    if isinstance(node, (exp.LT, exp.LTE)):
        return bool(columns) and moving[columns[0]] != DECREASING
    if isinstance(node, (exp.EQ, exp.NEQ, exp.In)):
        return bool(columns)
    if isinstance(node, (exp.Not, exp.Is)):
        return _needs_retract(node.this, moving)
    return False
