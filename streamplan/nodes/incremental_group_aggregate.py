"""Incremental group aggregate: split distinct aggregation under mini-batch (Flink's
StreamExecIncrementalGroupAggregate running MiniBatchIncrementalGroupAggFunction, planned by
IncrementalAggregateRule). Between the partial local aggregate and the final global one, it
is the partial global aggregate and the final local one in one operator: keyed by the partial
key, it merges a bundle's local accumulators and emits them as the final aggregate's
accumulators (runtime/incremental_group_aggregate.py). Its calls are the partial aggregate's,
indexing `partialLocalAggInputRowType` (the local aggregate's input), as in Flink."""
from __future__ import annotations

from pydantic import model_validator

from ..changelog import INSERT_ONLY
from ..errors import ChangelogModeError
from ..options import MINIBATCH_ENABLED, MINIBATCH_SIZE
from ..types import RowType, parse_row_type
from .fields import FieldIndex, RowTypeText
from .group_aggregate import (AggCallSpec, accumulator_ddls, check_calls_index,
                              mini_batch_options, runtime_calls)
from .keyed import KeyedNode, transform_keyed
from .metadata import exec_node

# What the partial aggregate of a split runs (planner/split_distinct.py refuses the rest).
PARTIAL_FUNCTIONS = ("COUNT", "SUM", "MIN", "MAX")


@exec_node(name="stream-exec-incremental-group-aggregate", version=1, min_plan_version="0.3",
           min_state_version="0.3", consumed_options=(MINIBATCH_ENABLED.key, MINIBATCH_SIZE.key))
class StreamExecIncrementalGroupAggregate(KeyedNode):
    STATE_DOC = ("per partial key, each distinct call's values with their counts (Flink's "
                 "distinct views, kept without TTL as Flink keeps them)")
    RUNTIME = "incremental_group_aggregate"
    STATE_NAMES = ("incrementalGroupAggregateState",)
    CHANGELOG_BATCH_INVARIANT = False      # one row per partial key and bundle
    partial_agg_grouping: list[FieldIndex]
    final_agg_grouping: list[FieldIndex]
    partial_original_agg_calls: list[AggCallSpec]
    partial_local_agg_input_row_type: RowTypeText
    partial_agg_need_retraction: bool

    @model_validator(mode="after")
    def _calls_and_keys(self) -> "StreamExecIncrementalGroupAggregate":
        for n, call in enumerate(self.partial_original_agg_calls):
            if call.function not in PARTIAL_FUNCTIONS or call.user_function is not None:
                raise ValueError(f"partialOriginalAggCalls[{n}] is {call.function}: the "
                                 f"partial aggregate of a split runs "
                                 f"{', '.join(PARTIAL_FUNCTIONS)}")
        check_calls_index(self.partial_original_agg_calls, self.partial_local_agg_input_row_type,
                          "partialOriginalAggCalls", "partialLocalAggInputRowType")
        for index in self.final_agg_grouping:
            if index not in self.partial_agg_grouping:
                raise ValueError(f"finalAggGrouping holds {index}, which partialAggGrouping "
                                 f"{self.partial_agg_grouping} does not")
        return self

    @property
    def local_input_row(self) -> RowType:
        return parse_row_type(self.partial_local_agg_input_row_type)

    def input_field_indexes(self):
        # the input is the local aggregate's output: the partial key first
        return [("partialAggGrouping", 0, list(range(len(self.partial_agg_grouping))))]

    def read_options(self, config):
        return mini_batch_options(config)

    def output_changelog(self, inputs):
        return INSERT_ONLY                 # accumulators, not results

    def check_input_changelog(self, inputs, origins) -> None:
        if inputs[0] != INSERT_ONLY:
            producer = origins[0][min(inputs[0] - INSERT_ONLY, key=lambda kind: kind.code)]
            raise ChangelogModeError(
                f"Incremental group aggregate node {self.id} takes the accumulators of a local "
                f"group aggregate (insert-only), but node {producer.id} '{producer.type}' "
                f"({producer.description}) emits updates or deletes.")

    # --- state and runtime ---------------------------------------------------------------
    def key_indexes(self):
        return list(range(len(self.partial_agg_grouping)))

    def runtime_params(self, input_row, size: int = 1):
        from ..runtime.incremental_group_aggregate import IncrementalAggParams

        position = {index: n for n, index in enumerate(self.partial_agg_grouping)}
        return IncrementalAggParams(len(self.partial_agg_grouping),
                                    tuple(position[index] for index in self.final_agg_grouping),
                                    runtime_calls(self.partial_original_agg_calls), size)

    def run_params(self, ctx, input_row):
        return self.runtime_params(input_row, ctx.options(self)["size"])

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        (row,) = inputs
        args, _ = accumulator_ddls(self.partial_original_agg_calls, self.local_input_row)
        return self.runtime().state_layout(self.runtime_params(row), args)

    def translate(self, ctx, inputs):
        from pyspark.sql import types as T

        from ..runtime.mini_batch_aggregate import SEQ_COLUMN
        from .keyed import build_processor

        (input_row,) = ctx.input_types(self)
        params = self.run_params(ctx, input_row)
        processor = build_processor(self.runtime(), params, self.state_layout([input_row]),
                                    input_row, self.row_type)
        return transform_keyed(inputs[0], input_row, self.key_indexes(), processor,
                               self.row_type, self.time_mode,
                               extra=((SEQ_COLUMN, T.LongType()),))
