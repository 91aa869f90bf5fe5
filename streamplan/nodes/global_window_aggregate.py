"""Global window aggregate: the second phase of a two-phase window aggregate (Flink's
StreamExecGlobalWindowAggregate: the slicing window operator with a GlobalAggCombiner).
Keyed by the group keys, it merges the local window aggregates' accumulators into their
slices (`windowing`: Flink's SliceAttachedWindowingStrategy, the window over the local row's
`$slice_end`) and fires windows as the one-phase window aggregate does, with the same state.
Its calls index the local aggregate's input (`localAggInputRowType`), as in Flink."""
from __future__ import annotations

from typing import Literal

from pydantic import model_validator

from ..changelog import INSERT_ONLY
from ..errors import PlanFormatError
from ..types import RowType, parse_row_type
from .base import PlanModel
from .fields import FieldIndex, RowTypeText
from .group_aggregate import (AggCallSpec, check_calls_index, check_filter_args,
                              resolve_user_functions, runtime_calls)
from .keyed import KeyedNode
from .metadata import exec_node
from .window_aggregate import FiredWindows, NamedWindowProperty, WindowSpec, slicing_state_layout


class SliceAttachedWindowingStrategy(PlanModel):
    """Flink's SliceAttachedWindowingStrategy: the window, and the input field holding each
    row's slice end."""

    strategy: Literal["SliceAttached"] = "SliceAttached"
    window: WindowSpec
    slice_end: FieldIndex
    is_rowtime: Literal[True] = True


@exec_node(name="stream-exec-global-window-aggregate", version=1, min_plan_version="0.3",
           min_state_version="0.3")
class StreamExecGlobalWindowAggregate(FiredWindows, KeyedNode):
    STATE_DOC = ("as `stream-exec-window-aggregate` keeps a sliced window: per group key one "
                 "accumulator per slice end, merged from the local window aggregates', and an "
                 "event-time timer per pending window end")
    RUNTIME = "two_phase_window_aggregate"
    grouping: list[FieldIndex]
    agg_calls: list[AggCallSpec]
    windowing: SliceAttachedWindowingStrategy
    named_window_properties: list[NamedWindowProperty]
    local_agg_input_row_type: RowTypeText

    def translate(self, ctx, inputs):
        resolve_user_functions(self, self.agg_calls)
        return super().translate(ctx, inputs)

    def requires_watermark(self, inputs):
        return self.windowing.is_rowtime

    @model_validator(mode="after")
    def _calls_index_the_local_input(self) -> "StreamExecGlobalWindowAggregate":
        check_calls_index(self.agg_calls, self.local_agg_input_row_type, "aggCalls",
                          "localAggInputRowType")
        if self.windowing.window.is_session:
            raise ValueError("a session window is not sliced, so it has no global phase")
        return self

    @property
    def local_input_row(self) -> RowType:
        return parse_row_type(self.local_agg_input_row_type)

    def input_field_indexes(self):
        return [("grouping", 0, self.grouping), ("windowing.sliceEnd", 0, [self.windowing.slice_end])]

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        return INSERT_ONLY

    def check_input_changelog(self, inputs, origins) -> None:
        if inputs[0] != INSERT_ONLY:
            raise self.unsupported_changes(f"Global window aggregate node {self.id}",
                                           inputs[0] - INSERT_ONLY, origins[0])

    # --- state and runtime ---------------------------------------------------------------
    def key_indexes(self):
        return self.grouping

    @property
    def time_mode(self) -> str:
        return "EventTime"

    def runtime_params(self, input_row: RowType):
        from ..runtime.two_phase_window_aggregate import GlobalWindowAggParams, column_count

        check_filter_args(self, self.agg_calls, self.local_input_row)
        calls = runtime_calls(self.agg_calls)
        if list(self.grouping) != list(range(len(self.grouping))) or \
                self.windowing.slice_end != len(self.grouping) + column_count(calls):
            raise PlanFormatError(
                f"node {self.id} ('{self.type}'): its input is the local window aggregate's "
                f"row: the group keys first, then the accumulators, then the slice end")
        try:
            assigner = self.windowing.window.assigner()
        except ValueError as err:
            raise PlanFormatError(f"node {self.id} ('{self.type}'): field 'windowing.window': "
                                  f"{err}") from None
        return GlobalWindowAggParams(len(self.grouping), calls, assigner, self.windowing.slice_end,
                                     tuple(p.property for p in self.named_window_properties))

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        (row,) = inputs
        return slicing_state_layout(row, self.grouping, self.agg_calls, self.local_input_row)
