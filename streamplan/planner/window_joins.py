"""The window join rule: a join of two relations that carry the same window (rows of a window
TVF, through calcs that keep window_start and window_end as they are), whose equalities pair
both window starts and both window ends, is a stream-exec-window-join (Flink's
StreamPhysicalWindowJoinRule with WindowJoinUtil.satisfyWindowJoin). The window equalities
leave the join keys: the node's windowing says where each side's window is; the other
equalities stay keys. Flink falls back to a regular join when only one of the two
equalities is there or the windows differ (it logs a warning); so does this rule (the
regular and interval join rules in joins.py, and the subquery rule for SEMI / ANTI, ask it
first).

Window properties (Flink's FlinkRelMdWindowProperties) are derived from the plan graph: a
window table function's three window columns, a window aggregate's window properties, and a
calc's plain references to its input's window columns.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..join_type import JoinType
from ..nodes import ExecNode
from ..nodes.calc import StreamExecCalc
from ..nodes.common import JoinSpec
from ..nodes.join import joined_names
from ..nodes.window_aggregate import FiredWindows, WindowSpec
from ..nodes.window_aggregate import WindowAttachedStrategy
from ..nodes.window_join import StreamExecWindowJoin
from ..errors import UnsupportedSqlError
from ..nodes.window_table_function import StreamExecWindowTableFunction
from ..types import RowType, quote_identifier
from .common import Relation


@dataclass(frozen=True)
class WindowProperties:
    """Flink's RelWindowProperties: the columns holding window starts and ends, the window."""

    starts: frozenset[int]
    ends: frozenset[int]
    window: WindowSpec


@dataclass(frozen=True)
class WindowJoinKeys:
    """What satisfyWindowJoin found: the window columns of each side and the other keys."""

    left: WindowAttachedStrategy
    right: WindowAttachedStrategy
    left_keys: list[int]
    right_keys: list[int]


class WindowJoinRules:
    """Window joins; a mixin of PlanBuilder (builder.py)."""

    def _window_properties(self, node: ExecNode) -> Optional[WindowProperties]:
        if isinstance(node, StreamExecWindowTableFunction):
            n = len(node.row_type.fields) - 3
            return WindowProperties(frozenset({n}), frozenset({n + 1}), node.windowing.window)
        if isinstance(node, FiredWindows):
            return WindowProperties(frozenset(node.property_indexes("WindowStart")),
                                    frozenset(node.property_indexes("WindowEnd")),
                                    node.windowing.window)
        if isinstance(node, StreamExecCalc):
            source = next(self.nodes[edge.source - 1] for edge in self.edges
                          if edge.target == node.id)
            inner = self._window_properties(source)
            if inner is None:
                return None
            names = source.row_type.names

            def mapped(columns: frozenset[int]) -> frozenset[int]:
                wanted = {quote_identifier(names[i]) for i in columns}
                return frozenset(i for i, expr in enumerate(node.projection) if expr in wanted)

            return WindowProperties(mapped(inner.starts), mapped(inner.ends), inner.window)
        return None

    def _window_join_keys(self, left: Relation, right: Relation, left_keys: list[int],
                          right_keys: list[int]) -> Optional[WindowJoinKeys]:
        """WindowJoinUtil.excludeWindowStartEqualityAndEndEqualityFromJoinInfoPairs: None
        when the join is no window join."""
        left_props = self._window_properties(left.node)
        right_props = self._window_properties(right.node)
        if left_props is None or right_props is None:
            return None
        starts, ends, rest = [], [], []
        for pair in zip(left_keys, right_keys):
            if pair[0] in left_props.starts and pair[1] in right_props.starts:
                starts.append(pair)
            elif pair[0] in left_props.ends and pair[1] in right_props.ends:
                ends.append(pair)
            else:
                rest.append(pair)
        if not starts or not ends or left_props.window != right_props.window:
            return None
        if left_props.window.is_session:
            raise UnsupportedSqlError(
                "a window join on the windows of SESSION window table functions (needs "
                "stream-exec-window-join over unaligned windows; not implemented)")
        windowing = [WindowAttachedStrategy(window=props.window, window_start=starts[0][side],
                                             window_end=ends[0][side])
                     for side, props in ((0, left_props), (1, right_props))]
        return WindowJoinKeys(windowing[0], windowing[1], [l for l, _ in rest],
                              [r for _, r in rest])

    def _add_window_join(self, left: Relation, right: Relation, join_type: JoinType,
                         keys: WindowJoinKeys, non_equi: Optional[str], output: RowType,
                         select: list[str]) -> ExecNode:
        """The stream-exec-window-join node; `output` is the joined row (the left row for a
        SEMI or ANTI join), `non_equi` Spark SQL over the joined names."""
        left_row, right_row = left.node.row_type, right.node.row_type
        joined = joined_names(left_row.names, right_row.names)
        shown = [f"({joined[l]} = {joined[len(left_row.fields) + r]})"
                 for l, r in zip(keys.left_keys, keys.right_keys)]
        if non_equi is not None:
            shown.append(non_equi.replace("`", ""))
        description = (f"WindowJoin(leftWindow=[{keys.left.describe(left_row)}], "
                       f"rightWindow=[{keys.right.describe(right_row)}], "
                       f"joinType=[{join_type.label}], where=[{' AND '.join(shown) or 'true'}], "
                       f"select=[{', '.join(select)}])")
        spec = JoinSpec(join_type=join_type.value, left_keys=keys.left_keys,
                        right_keys=keys.right_keys, filter_nulls=[True] * len(keys.left_keys),
                        non_equi_condition=non_equi)
        return self.add(StreamExecWindowJoin, [left.node, right.node], join_spec=spec,
                        left_windowing=keys.left, right_windowing=keys.right,
                        output_type=output.text, description=description)
