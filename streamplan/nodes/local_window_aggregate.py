"""Local window aggregate: the first phase of a two-phase window aggregate (Flink's
StreamExecLocalWindowAggregate running LocalSlicingWindowAggOperator). Stateless: per
micro-batch partition it folds the rows of each group key and slice into fresh accumulators
and emits them with their slice end (`$slice_end`, last) to the global window aggregate
(runtime/two_phase_window_aggregate.py). Over fired windows (`WindowAttached` windowing: the
final phase of a split distinct window aggregate) a row's slice is its window, whose end the
row carries, and the end travels as `$window_end`."""
from __future__ import annotations

from typing import Union

from pydantic import Field as PydanticField

from ..changelog import INSERT_ONLY
from ..errors import PlanFormatError
from ..types import Field, RowType, SqlType
from .base import ExecNode
from .fields import FieldIndex
from .global_group_aggregate import GlobalAggCallSpec
from .group_aggregate import AggCallSpec, check_filter_args, resolve_user_functions, runtime_calls
from .local_group_aggregate import accumulator_fields
from .metadata import exec_node
from .window_aggregate import WindowAttachedStrategy, WindowingStrategy, reads_fired_windows

SLICE_END = "$slice_end"
WINDOW_END = "$window_end"            # the slice end of WindowAttached windowing


def local_window_row(input_row: RowType, grouping: list[int], calls: list[AggCallSpec],
                     end_name: str = SLICE_END) -> RowType:
    """The keys, the accumulators as the local aggregate names them, the slice end."""
    accs = accumulator_fields(calls, input_row)
    return RowType(tuple(input_row.fields[i] for i in grouping)
                   + tuple(field for own in accs for field in own)
                   + (Field(end_name, SqlType("BIGINT", nullable=False)),))


@exec_node(name="stream-exec-local-window-aggregate", version=1, min_plan_version="0.3",
           min_state_version="0.3")
class StreamExecLocalWindowAggregate(ExecNode):
    STATE_DOC = "none: a micro-batch's accumulators per group key and slice are emitted at once"
    CHANGELOG_BATCH_INVARIANT = False      # one row per key, slice and batch
    grouping: list[FieldIndex]
    agg_calls: list[GlobalAggCallSpec]
    windowing: Union[WindowingStrategy, WindowAttachedStrategy] = PydanticField(
        discriminator="strategy")

    @property
    def window_attached(self) -> bool:
        return isinstance(self.windowing, WindowAttachedStrategy)

    def requires_watermark(self, inputs):
        return self.windowing.is_rowtime

    def input_field_indexes(self):
        windows = ([("windowing.windowStart", 0, [self.windowing.window_start]),
                    ("windowing.windowEnd", 0, [self.windowing.window_end])]
                   if self.window_attached else
                   [("windowing.timeAttributeIndex", 0, [self.windowing.time_attribute_index])])
        return [("grouping", 0, self.grouping), *windows,
                *((f"aggCalls[{n}].argList", 0, call.arg_list) for n, call in enumerate(self.agg_calls)),
                *((f"aggCalls[{n}].filterArg", 0, [call.filter_arg])
                  for n, call in enumerate(self.agg_calls) if call.filter_arg is not None)]

    def output_changelog(self, inputs):
        return INSERT_ONLY                 # accumulators, not results

    def check_input_changelog(self, inputs, origins) -> None:
        if inputs[0] != INSERT_ONLY:
            raise self.unsupported_changes(f"Local window aggregate node {self.id}",
                                           inputs[0] - INSERT_ONLY, origins[0])

    def output_unique_keys(self, inputs, input_keys):
        return []

    def runtime_params(self, input_row: RowType):
        from ..runtime.two_phase_window_aggregate import LocalWindowAggParams

        if self.window_attached:
            index = self.windowing.window_end
            if input_row.fields[index].type.name != "TIMESTAMP":
                field = input_row.fields[index]
                raise PlanFormatError(
                    f"node {self.id} ('{self.type}'): field 'windowing.windowEnd': input field "
                    f"{index} ({field.name} {field.type.text}) is not a TIMESTAMP")
        else:
            index = self.windowing.time_attribute_index
        if not self.window_attached and not input_row.fields[index].rowtime:
            field = input_row.fields[index]
            raise PlanFormatError(
                f"node {self.id} ('{self.type}'): field 'windowing.timeAttributeIndex': input "
                f"field {index} ({field.name} {field.type.text}) is not a rowtime attribute")
        if self.windowing.window.is_session:
            raise PlanFormatError(f"node {self.id} ('{self.type}'): field 'windowing.window': a "
                                  f"session window is not sliced, so it has no local phase")
        check_filter_args(self, self.agg_calls, input_row)
        try:
            assigner = self.windowing.window.assigner()
        except ValueError as err:
            raise PlanFormatError(f"node {self.id} ('{self.type}'): field 'windowing.window': "
                                  f"{err}") from None
        return LocalWindowAggParams(tuple(self.grouping), runtime_calls(self.agg_calls), assigner,
                                    index, self.window_attached)

    def translate(self, ctx, inputs):
        resolve_user_functions(self, self.agg_calls)
        if self.window_attached and not reads_fired_windows(ctx, self):
            raise PlanFormatError(
                f"node {self.id} ('{self.type}'): WindowAttached windowing aggregates fired "
                f"windows: its input must be a window aggregate's rows (through calcs)")
        from pyspark.sql import types as T
        from pyspark.sql.pandas.types import to_arrow_schema

        from ..changelog import OP_COLUMN
        from ..runtime.two_phase_window_aggregate import LocalWindowAggregate

        (input_row,) = ctx.input_types(self)
        params = self.runtime_params(input_row)
        schema = self.row_type.to_spark().add(OP_COLUMN, T.ByteType(), False)
        function = LocalWindowAggregate(params, tuple(input_row.names), to_arrow_schema(schema))
        return inputs[0].mapInArrow(function, schema)
