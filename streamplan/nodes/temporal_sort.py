"""Temporal sort: `ORDER BY <time attribute> ASC[, other columns]` in a streaming query
(Flink's StreamExecTemporalSort). On a rowtime attribute the rows wait for the watermark and
leave in time order, ties ordered by the other columns (RowTimeSortOperator, under one
constant key: Flink's singleton exchange); rows at or before the last emitted time are late
and dropped. On the processing-time attribute alone the rows are forwarded as they come
(Flink's createSortProcTime); with further columns Flink runs ProcTimeSortOperator, which is
not implemented here (the planner refuses it by name).
"""
from __future__ import annotations

from ..changelog import INSERT_ONLY
from ..types import RowType, quote_identifier
from .keyed import KeyedNode
from .metadata import exec_node
from .rank import SortSpec


@exec_node(name="stream-exec-temporal-sort", version=1, min_plan_version="0.3",
           min_state_version="0.3")
class StreamExecTemporalSort(KeyedNode):
    STATE_DOC = ("on rowtime, under one constant key: the rows waiting per row time and the last "
                 "time emitted, an event-time timer per waiting time; on proctime alone: none")
    RUNTIME = "temporal_sort"
    order_by: SortSpec

    def requires_watermark(self, inputs):
        return self.on_rowtime(inputs[0])

    def input_field_indexes(self):
        return [("orderBy.fields", 0, [field.index for field in self.order_by.fields])]

    def on_rowtime(self, input_row: RowType) -> bool:
        return input_row.fields[self.order_by.fields[0].index].rowtime

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        return INSERT_ONLY

    def check_input_changelog(self, inputs, origins) -> None:
        if inputs[0] != INSERT_ONLY:
            raise self.unsupported_changes(f"TemporalSort node {self.id}",
                                           inputs[0] - INSERT_ONLY, origins[0])

    # --- state and runtime ---------------------------------------------------------------
    def key_indexes(self):
        return []                                  # one constant key (singleton exchange)

    def runtime_params(self, input_row: RowType):
        first, *rest = self.order_by.fields
        return self.runtime().TemporalSortParams(
            rowtime_index=first.index,
            secondary=tuple((f.index, f.is_ascending, not f.null_is_last) for f in rest))

    @property
    def time_mode(self) -> str:
        return "EventTime"

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        (row,) = inputs
        if not self.on_rowtime(row):
            return {}                               # forwarded: no state
        return super().state_layout(inputs)

    def prepare(self, frame, input_row, params):
        # Late rows are the processor's to drop (after the last emitted time, as Flink),
        # so the rowtime column loses the watermark mark that would make Spark filter
        # rows at or before the watermark first.
        rowtime = input_row.names[self.order_by.fields[0].index]
        return frame.withColumn(rowtime, frame[quote_identifier(rowtime)].alias(rowtime,
                                                                                metadata={}))

    def translate(self, ctx, inputs):
        (input_row,) = ctx.input_types(self)
        if self.on_rowtime(input_row):
            return super().translate(ctx, inputs)
        if len(self.order_by.fields) > 1:
            raise NotImplementedError(
                f"node {self.id}: a sort on the processing-time attribute and further columns "
                f"is Flink's ProcTimeSortOperator, which is not implemented")
        return inputs[0]                           # Flink forwards the rows
