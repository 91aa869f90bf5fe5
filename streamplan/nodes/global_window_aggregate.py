"""Global window aggregate: the second phase of a two-phase window aggregate (Flink's
StreamExecGlobalWindowAggregate: the slicing window operator with a GlobalAggCombiner).
Keyed by the group keys, it merges the local window aggregates' accumulators into their
slices (`windowing`: Flink's SliceAttachedWindowingStrategy, the window over the local row's
`$slice_end`) and fires windows as the one-phase window aggregate does, with the same state.
Its calls index the local aggregate's input (`localAggInputRowType`), as in Flink. Over fired
windows (`WindowAttached` windowing, the final phase of a split distinct window aggregate) a
window is its own slice, read from the local row's `$window_end`, and no row is late."""
from __future__ import annotations

from dataclasses import replace

from typing import Literal, Union

from pydantic import Field as PydanticField
from pydantic import model_validator

from ..changelog import INSERT_ONLY
from ..errors import PlanFormatError
from ..types import RowType, parse_row_type
from .base import PlanModel
from .fields import FieldIndex, RowTypeText
from .global_group_aggregate import GlobalAggCallSpec
from .group_aggregate import (check_calls_index, check_filter_args, resolve_user_functions,
                              runtime_calls)
from .keyed import KeyedNode
from .metadata import exec_node
from .window_aggregate import (FiredWindows, NamedWindowProperty, WindowSpec, reads_fired_windows,
                               slicing_state_layout)


class SliceAttachedWindowingStrategy(PlanModel):
    """Flink's SliceAttachedWindowingStrategy: the window, and the input field holding each
    row's slice end."""

    strategy: Literal["SliceAttached"] = "SliceAttached"
    window: WindowSpec
    slice_end: FieldIndex
    is_rowtime: Literal[True] = True


class WindowEndAttachedStrategy(PlanModel):
    """Flink's WindowAttachedWindowingStrategy as the global phase over fired windows holds it:
    the local row carries only the window end (`$window_end`), so `windowStart` is -1."""

    strategy: Literal["WindowAttached"] = "WindowAttached"
    window: WindowSpec
    window_start: Literal[-1] = -1
    window_end: FieldIndex
    is_rowtime: Literal[True] = True


@exec_node(name="stream-exec-global-window-aggregate", version=1, min_plan_version="0.3",
           min_state_version="0.3")
class StreamExecGlobalWindowAggregate(FiredWindows, KeyedNode):
    STATE_DOC = ("as `stream-exec-window-aggregate` keeps a sliced window: per group key one "
                 "accumulator per slice end, merged from the local window aggregates', and an "
                 "event-time timer per pending window end")
    RUNTIME = "two_phase_window_aggregate"
    grouping: list[FieldIndex]
    agg_calls: list[GlobalAggCallSpec]
    windowing: Union[SliceAttachedWindowingStrategy, WindowEndAttachedStrategy] = PydanticField(
        discriminator="strategy")
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

    @property
    def window_attached(self) -> bool:
        return isinstance(self.windowing, WindowEndAttachedStrategy)

    @property
    def end_index(self) -> int:
        """The local row's slice end (`$slice_end`, or `$window_end` over fired windows)."""
        return self.windowing.window_end if self.window_attached else self.windowing.slice_end

    def input_field_indexes(self):
        label = "windowing.windowEnd" if self.window_attached else "windowing.sliceEnd"
        return [("grouping", 0, self.grouping), (label, 0, [self.end_index])]

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
        from ..runtime.window_aggregate import WindowedSliceAssigner

        check_filter_args(self, self.agg_calls, self.local_input_row)
        calls = runtime_calls(self.agg_calls)
        if list(self.grouping) != list(range(len(self.grouping))) or \
                self.end_index != len(self.grouping) + column_count(calls):
            raise PlanFormatError(
                f"node {self.id} ('{self.type}'): its input is the local window aggregate's "
                f"row: the group keys first, then the accumulators, then the slice end")
        try:
            assigner = self.windowing.window.assigner()
        except ValueError as err:
            raise PlanFormatError(f"node {self.id} ('{self.type}'): field 'windowing.window': "
                                  f"{err}") from None
        if self.window_attached:
            assigner = WindowedSliceAssigner(assigner)
        return GlobalWindowAggParams(len(self.grouping), calls, assigner, self.end_index,
                                     tuple(p.property for p in self.named_window_properties),
                                     drop_late_rows=not self.window_attached)

    def run_params(self, ctx, input_row: RowType):
        from .local_window_aggregate import StreamExecLocalWindowAggregate

        (local,) = ctx.plan.inputs_of(self)
        if self.window_attached and not (isinstance(local, StreamExecLocalWindowAggregate)
                                         and local.window_attached):
            raise PlanFormatError(
                f"node {self.id} ('{self.type}'): WindowAttached windowing merges fired windows: "
                f"its input must be a local window aggregate with WindowAttached windowing")
        params = self.runtime_params(input_row)
        if not self.window_attached and isinstance(local, StreamExecLocalWindowAggregate) \
                and local.windowing.is_rowtime and reads_fired_windows(ctx, local):
            # cascading windows: see StreamExecWindowAggregate.run_params
            return replace(params, drop_late_rows=False, rows_before_watermark=True)
        return params

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        (row,) = inputs
        return slicing_state_layout(row, self.grouping, self.agg_calls, self.local_input_row)
