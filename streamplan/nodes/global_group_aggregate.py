"""Global group aggregate: the second phase of a mini-batch aggregate (Flink's
StreamExecGlobalGroupAggregate running MiniBatchGlobalGroupAggFunction). Keyed by the group
keys, it merges the local aggregates' accumulators of a bundle into the key's state and emits
the result's change once per bundle. Its calls index the local aggregate's input
(`localAggInputRowType`), as in Flink."""
from __future__ import annotations

from typing import Literal

from pydantic import model_validator

from ..changelog import INSERT_ONLY, RowKind
from ..errors import ChangelogModeError
from ..options import MINIBATCH_ENABLED, MINIBATCH_SIZE
from ..types import RowType, parse_row_type
from .fields import FieldIndex, RowTypeText
from .group_aggregate import (AggCallSpec, accumulator_ddls, check_calls_index, check_filter_args,
                              mini_batch_options, resolve_user_functions, runtime_calls)
from .keyed import GLOBAL_KEY, KeyedNode, struct_ddl
from .metadata import exec_node


class GlobalAggCallSpec(AggCallSpec):
    """A call of the global group aggregate and of the local and global window aggregates:
    also $SUM0, the final aggregate of a split COUNT (Flink's split distinct aggregation under
    mini-batch or in a window aggregate, planner/split_distinct.py)."""
    function: Literal["COUNT", "SUM", "SUM0", "MIN", "MAX", "AVG", "UDAF", "WELFORD_M2"]

    @classmethod
    def of(cls, calls: list[AggCallSpec]) -> list["GlobalAggCallSpec"]:
        """The planner's calls as a global aggregate's."""
        return [cls.model_validate(call.model_dump()) for call in calls]


@exec_node(name="stream-exec-global-group-aggregate", version=1, min_plan_version="0.3",
           min_state_version="0.3", consumed_options=(MINIBATCH_ENABLED.key, MINIBATCH_SIZE.key))
class StreamExecGlobalGroupAggregate(KeyedNode):
    STATE_DOC = ("one accumulator per group key, as `stream-exec-group-aggregate` keeps it, "
                 "merged from the local aggregates' once per bundle; TTL from `state`")
    RUNTIME = "mini_batch_aggregate"
    STATE_NAMES = ("globalGroupAggregateState",)
    CHANGELOG_BATCH_INVARIANT = False      # one change per key and bundle
    grouping: list[FieldIndex]
    agg_calls: list[GlobalAggCallSpec]
    local_agg_input_row_type: RowTypeText
    generate_update_before: bool
    need_retraction: bool

    @model_validator(mode="after")
    def _calls_index_the_local_input(self) -> "StreamExecGlobalGroupAggregate":
        check_calls_index(self.agg_calls, self.local_agg_input_row_type, "aggCalls",
                          "localAggInputRowType")
        return self

    @property
    def local_input_row(self) -> RowType:
        return parse_row_type(self.local_agg_input_row_type)

    def input_field_indexes(self):
        return [("grouping", 0, self.grouping)]

    def read_options(self, config):
        return mini_batch_options(config)

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        kinds = {RowKind.INSERT, RowKind.UPDATE_AFTER}
        if self.generate_update_before:
            kinds.add(RowKind.UPDATE_BEFORE)
        if self.need_retraction:
            kinds.add(RowKind.DELETE)      # a key whose rows are all retracted
        return frozenset(kinds)

    def check_input_changelog(self, inputs, origins) -> None:
        if inputs[0] != INSERT_ONLY:
            producer = origins[0][min(inputs[0] - INSERT_ONLY, key=lambda kind: kind.code)]
            raise ChangelogModeError(
                f"Global group aggregate node {self.id} takes the accumulators of a local group "
                f"aggregate (insert-only), but node {producer.id} '{producer.type}' "
                f"({producer.description}) emits updates or deletes.")

    def output_unique_keys(self, inputs, input_keys):
        return [list(range(len(self.grouping)))]

    # --- state and runtime ---------------------------------------------------------------
    def key_indexes(self):
        return self.grouping

    def translate(self, ctx, inputs):
        resolve_user_functions(self, self.agg_calls)
        return super().translate(ctx, inputs)

    def runtime_params(self, input_row, size: int = 1):
        from ..runtime.mini_batch_aggregate import GlobalAggParams

        check_filter_args(self, self.agg_calls, self.local_input_row)
        return GlobalAggParams(len(self.grouping), runtime_calls(self.agg_calls), size,
                               self.generate_update_before, self.state_ttl_ms())

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        """The one-phase aggregate's accumulator per key, typed by the local input's
        arguments."""
        (row,) = inputs
        grouping = struct_ddl(row, self.grouping) or f"`{GLOBAL_KEY}`: INT"
        return self.runtime().state_layout(grouping, runtime_calls(self.agg_calls),
                                           *accumulator_ddls(self.agg_calls, self.local_input_row))

    def run_params(self, ctx, input_row):
        return self.runtime_params(input_row, ctx.options(self)["size"])
