"""Temporal join: `o JOIN versioned FOR SYSTEM_TIME AS OF o.rowtime ON o.k = v.k`, INNER or
LEFT, on event time (Flink's StreamExecTemporalJoin running TemporalRowTimeJoinOperator).

The versioned side is a table with a primary key and a watermark, insert-only or a changelog
(an update starts a version, a delete ends one). It needs no -U rows (Flink's
ONLY_UPDATE_AFTER): those that reach it are skipped by the join, where Flink plans a
DropUpdateBefore in front of it (a retract source) or none at all. An upsert source's
changelog normalize stays in the plan here: the watermark assigner over it asks for -U rows
(its default UpdateKindTrait), so it rebuilds them, and the join skips them. The
probe side is insert-only here. State is kept per join key (`runtime/temporal_join.py`); its
retention is `table.exec.state.ttl` (Flink's min retention; max = 1.5 x), persisted in the
plan's configuration as Flink's node has no FLIP-292 `state` entries.
Flink plans no processing-time temporal join against a versioned table (TableException
"Processing-time temporal join is not supported yet."): neither does the planner here.
"""
from __future__ import annotations

from pydantic import model_validator

from ..changelog import INSERT_ONLY, OP_COLUMN
from ..options import STATE_TTL
from ..types import RowType
from .base import ExecNode
from .common import JoinSpec
from .keyed import struct_ddl
from .metadata import exec_node

TEMPORAL_JOIN_TYPES = ("INNER", "LEFT")


@exec_node(name="stream-exec-temporal-join", version=1, min_plan_version="0.3",
           min_state_version="0.3", consumed_options=(STATE_TTL.key,))
class StreamExecTemporalJoin(ExecNode):
    STATE_DOC = ("per join key: the probe rows waiting for the watermark (by arrival index), the "
                 "versions by row time (pruned to the last one before the watermark), the next "
                 "index, the event-time timer and, with `table.exec.state.ttl`, the cleanup time")
    arity = 2
    join_spec: JoinSpec
    # LATERAL TABLE (Rates(o.t)) of a temporal table function: runs as the versioned table's
    # join does (plans with it were refused before it was planned; none changed)
    is_temporal_function_join: bool = False
    left_time_attribute_index: int
    right_time_attribute_index: int

    def requires_watermark(self, inputs):
        return True            # the event-time temporal join (the only one here)

    @model_validator(mode="after")
    def _supported(self) -> "StreamExecTemporalJoin":
        if self.join_spec.join_type not in TEMPORAL_JOIN_TYPES:
            raise ValueError(f"Temporal table join currently only support INNER JOIN and LEFT "
                             f"JOIN, but was {self.join_spec.join_type} JOIN.")
        if self.right_time_attribute_index < 0:
            raise ValueError("rightTimeAttributeIndex -1 is a processing-time temporal join, "
                             "which Flink does not run against a versioned table "
                             "(\"Processing-time temporal join is not supported yet.\")")
        return self

    def input_field_indexes(self):
        return [*self.join_spec.key_indexes("joinSpec"),
                ("leftTimeAttributeIndex", 0, [self.left_time_attribute_index]),
                ("rightTimeAttributeIndex", 1, [self.right_time_attribute_index])]

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        return INSERT_ONLY

    def check_input_changelog(self, inputs, origins) -> None:
        left = inputs[0]              # the versioned side takes any changelog
        if left != INSERT_ONLY:
            raise self.unsupported_changes(f"Temporal join node {self.id} (left input)",
                                           left - INSERT_ONLY, origins[0],
                                           "A changelog probe side is not supported here.")

    def needs_update_before(self, input_keys, downstream, input_row=None, input_modes=None):
        return False                        # Flink's ONLY_UPDATE_AFTER for the versioned side

    # --- runtime -------------------------------------------------------------------------
    def read_options(self, config):
        return {"min_retention_ms": config.get(STATE_TTL)}

    def runtime_params(self, options: dict, left: RowType, right: RowType):
        from ..runtime.temporal_join import TemporalJoinParams

        minimum = options["min_retention_ms"]
        return TemporalJoinParams(
            left_outer=self.join_spec.join_type == "LEFT",
            left_time_index=self.left_time_attribute_index,
            right_time_index=self.right_time_attribute_index,
            left_arity=len(left.fields), right_arity=len(right.fields),
            output_names=tuple(self.row_type.names),
            condition=self.join_spec.non_equi_condition,
            min_retention_ms=minimum, max_retention_ms=minimum * 3 // 2)

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        from ..runtime.temporal_join import state_layout

        left, right = inputs
        return state_layout(struct_ddl(left), struct_ddl(right))

    def translate(self, ctx, inputs):
        from pyspark.sql import types as T

        from ..runtime.temporal_join import TemporalJoinProcessor
        from .two_input import keyed_union

        left, right = inputs
        left_row, right_row = ctx.input_types(self)
        union, key_names = keyed_union(left, right, self.join_spec.left_keys,
                                       self.join_spec.right_keys)
        processor = TemporalJoinProcessor(
            self.runtime_params(ctx.options(self), left_row, right_row),
            self.state_layout([left_row, right_row]), (), tuple(self.row_type.names))
        output = self.row_type.to_spark().add(OP_COLUMN, T.ByteType(), False)
        return union.groupBy(*key_names).transformWithState(processor, output, "Append",
                                                            "EventTime")
