"""The window Top-N rule: a ROW_NUMBER() whose PARTITION BY holds the `window_start` and
`window_end` of one window (a window table function's columns, or a window aggregate's
window properties, read through plain projections) is, as Flink plans it
(StreamPhysicalWindowRankRule, StreamPhysicalWindowDeduplicateRule), a window rank or a
window deduplicate over the windows its input carries (Flink's WindowAttached windowing):

* `rn = 1` (`rn <= 1`, `rn < 2`) ordered by the row-time attribute alone, ascending or
  descending: `stream-exec-window-deduplicate` (keep the first or the last row), the row
  number a constant after it (Flink's RankNumberColumnRemoveRule);
* otherwise `stream-exec-window-rank`, with the row number in its output when the query
  reads it and it is not a constant.

ranks.py asks `_attached_window` once it has planned the ranked subquery; this module
builds the node.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..errors import UnsupportedSqlError
from ..nodes.base import ExecNode
from ..nodes.calc import StreamExecCalc
from ..nodes.rank import PartitionSpec, RankRange, SortField, SortSpec
from ..nodes.window_aggregate import FiredWindows, WindowAttachedStrategy, WindowSpec
from ..nodes.window_deduplicate import StreamExecWindowDeduplicate
from ..nodes.window_rank import StreamExecWindowRank
from ..nodes.window_table_function import StreamExecWindowTableFunction
from ..types import Field, RowType, SqlType, quote_identifier
from .common import QueryContext, _dedupe

_PROPERTIES = ("WindowStart", "WindowEnd", "WindowTime")


@dataclass(frozen=True)
class AttachedWindow:
    """The window a ranked input carries: its spec and its start and end columns."""

    spec: WindowSpec
    start: int
    end: int


class WindowRankRules:
    """Window rank and window deduplicate; a mixin of PlanBuilder (builder.py)."""

    def _input_node(self, node: ExecNode) -> Optional[ExecNode]:
        sources = [edge.source for edge in self.edges if edge.target == node.id]
        return self.nodes[sources[0] - 1] if len(sources) == 1 else None

    def _origin(self, node: ExecNode, index: int) -> tuple[ExecNode, int]:
        """The node and field a column comes from, through calcs that project it as is."""
        while isinstance(node, StreamExecCalc):
            source = self._input_node(node)
            names = [quote_identifier(name) for name in source.row_type.names]
            expression = node.projection[index]
            if expression not in names:
                break
            node, index = source, names.index(expression)
        return node, index

    def _window_property(self, node: ExecNode, index: int
                         ) -> Optional[tuple[ExecNode, str, WindowSpec]]:
        """(the window node, WindowStart/WindowEnd/WindowTime, its window) of a column that
        is a window property, else None."""
        node, index = self._origin(node, index)
        if isinstance(node, StreamExecWindowTableFunction):
            offset = index - len(self._input_node(node).row_type.fields)
            if 0 <= offset < len(_PROPERTIES):
                return node, _PROPERTIES[offset], node.windowing.window
        if isinstance(node, FiredWindows):
            offset = index - len(node.grouping) - len(node.agg_calls)
            if offset >= 0:
                return node, node.named_window_properties[offset].property, node.windowing.window
        return None

    def _attached_window(self, node: ExecNode, partition: list[int]) -> Optional[AttachedWindow]:
        """The window whose start and end both are partition keys of a rank over `node`."""
        found: dict[str, tuple[int, ExecNode, WindowSpec]] = {}
        for index in partition:
            prop = self._window_property(node, index)
            if prop is not None and prop[1] in ("WindowStart", "WindowEnd"):
                found.setdefault(prop[1], (index, prop[0], prop[2]))
        if set(found) != {"WindowStart", "WindowEnd"}:
            return None
        (start, start_node, spec), (end, end_node, _) = found["WindowStart"], found["WindowEnd"]
        if start_node is not end_node:
            return None
        if spec.is_session:
            raise UnsupportedSqlError(
                "a window rank or deduplicate partitioned by the window of a SESSION window "
                "table function (needs stream-exec-window-rank / -deduplicate over unaligned "
                "windows; not implemented)")
        return AttachedWindow(spec, start, end)

    def _time_kind(self, node: ExecNode, index: int) -> Optional[str]:
        """'rowtime' or 'proctime' when the column is (projected from) a time attribute."""
        origin, at = self._origin(node, index)
        field = origin.row_type.fields[at]
        return "rowtime" if field.rowtime else "proctime" if field.proctime else None

    def _window_rank(self, window: AttachedWindow, input_node: ExecNode, partition: list[int],
                     sort: list[tuple[int, bool, bool]], start: int, end: int, uses_rn: bool,
                     rn: str, ctx: QueryContext) -> ExecNode:
        """The window deduplicate or window rank node (and the constant row number after
        it); its output has the input's fields, then the row number when read."""
        row = input_node.row_type
        keys = [i for i in partition if i not in (window.start, window.end)]
        windowing = WindowAttachedStrategy(window=window.spec, window_start=window.start,
                                           window_end=window.end)
        described = windowing.describe(row)
        out_row = RowType(tuple(Field(f.name, f.type) for f in row.fields))
        rn_name = _dedupe([*out_row.names, rn])[-1]
        order_field = row.fields[sort[0][0]]
        if any(self._time_kind(input_node, i) == "proctime" for i, _, _ in sort):
            raise UnsupportedSqlError(
                f"ROW_NUMBER() over windows ordered by a processing-time attribute (needs a "
                f"processing-time window deduplicate or rank; windows run on event time only)",
                ctx.position.line, ctx.position.column, ctx.position.source)
        if (start, end) == (1, 1) and len(sort) == 1 and self._time_kind(input_node, sort[0][0]) == "rowtime":
            keep_last = not sort[0][1]
            node = self.add(
                StreamExecWindowDeduplicate, [input_node], partition_keys=keys,
                order_key=sort[0][0], keep_last_row=keep_last, windowing=windowing,
                output_type=out_row.text,
                description=f"WindowDeduplicate(window=[{described}], keep=["
                            f"{'LastRow' if keep_last else 'FirstRow'}], partitionKeys=["
                            f"{', '.join(row.names[i] for i in keys)}], orderKey=["
                            f"{order_field.name}], order=[ROWTIME])")
        else:
            output_rn = uses_rn and start != end
            if output_rn:
                out_row = RowType(out_row.fields + (Field(rn_name, SqlType("BIGINT", (), False)),))
            order_text = ", ".join(f"{row.names[i]} {'ASC' if asc else 'DESC'}"
                                   for i, asc, _ in sort)
            node = self.add(
                StreamExecWindowRank, [input_node], rank_type="ROW_NUMBER",
                partition_spec=PartitionSpec(fields=keys),
                sort_spec=SortSpec(fields=[SortField(index=i, is_ascending=asc,
                                                     null_is_last=not nulls_first)
                                           for i, asc, nulls_first in sort]),
                rank_range=RankRange(start=start, end=end), output_row_number=output_rn,
                windowing=windowing, output_type=out_row.text,
                description=f"WindowRank(window=[{described}], rankType=[ROW_NUMBER], "
                            f"rankRange=[rankStart={start}, rankEnd={end}], partitionBy=["
                            f"{', '.join(row.names[i] for i in keys)}], orderBy=[{order_text}], "
                            f"select=[{', '.join(out_row.names)}])")
            if output_rn or not uses_rn:
                return node
        if not uses_rn:
            return node
        names = list(node.row_type.names)
        return self._calc(node, [quote_identifier(n) for n in names] + [f"CAST({start} AS BIGINT)"],
                          [*names, rn_name], None, ctx.where)

