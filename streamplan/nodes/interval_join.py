"""Interval join: `a JOIN b ON a.k = b.k AND a.t BETWEEN b.t - X AND b.t + Y`, with EARLY_FIRE.

Two versions, one plan JSON: version 1 groups by the join key and keeps seven state variables
per key and a timer per cleanup and early fire (`runtime/interval_join.py`); version 2 groups
join keys into buckets with one value and one timer per bucket (`runtime/interval_join_v2.py`).
A node runs the translation, layout and processor of the version its plan says
(`self.version`), so checkpoints of either version restore; new plans get version 2. Both
share the join logic (`IntervalJoinCore`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Optional

from ..changelog import INSERT_AND_UPDATES, INSERT_ONLY, OP_COLUMN
from ..durations import parse_duration_ms
from ..join_type import JoinType
from ..options import INTERVAL_JOIN_MIN_CLEANUP_INTERVAL
from ..types import Field, RowType, parse_type, quote_identifier
from .base import ExecNode, PlanModel
from .common import JoinSpec
from .fields import Duration, FieldIndex
from .metadata import exec_node

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame


class WindowBounds(PlanModel):
    is_event_time: bool
    left_lower_bound: int                            # left.t >= right.t + leftLowerBound (ms)
    left_upper_bound: int                            # left.t <= right.t + leftUpperBound (ms)
    left_time_index: FieldIndex
    right_time_index: FieldIndex


class IntervalJoinSpec(PlanModel):
    join_spec: JoinSpec
    window_bounds: WindowBounds


# Version 2 changes the state layout and the grouping, not the plan JSON: a state-breaking
# bump. Its plans and checkpoints exist from engine 0.3 on, which introduced it (0.2 was
# released with stream-exec-join version 2 and wrote interval joins at version 1).
@exec_node(name="stream-exec-interval-join", version=2, min_plan_version="0.3",
           min_state_version="0.3", consumed_options=(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL.key,))
@exec_node(name="stream-exec-interval-join", version=1, min_plan_version="0.1",
           min_state_version="0.1", consumed_options=(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL.key,))
class StreamExecIntervalJoin(ExecNode):
    arity = 2
    interval_join_spec: IntervalJoinSpec
    # FLIP-497, additive and omitted when the hint is absent: old plans load unchanged.
    early_fire_delay: Optional[Duration] = None
    early_fire_time_mode: Optional[Literal["ROWTIME", "PROCTIME"]] = None

    # --- shape ---------------------------------------------------------------------------
    @property
    def join_type(self) -> str:
        return self.interval_join_spec.join_spec.join_type

    @property
    def negative_window(self) -> bool:
        bounds = self.interval_join_spec.window_bounds
        return bounds.left_lower_bound > bounds.left_upper_bound

    @property
    def produces_early_fire_updates(self) -> bool:
        return (self.early_fire_delay is not None and self.join_type != JoinType.INNER
                and not self.negative_window)

    def input_field_indexes(self):
        spec = self.interval_join_spec
        bounds = spec.window_bounds
        return [*spec.join_spec.key_indexes("intervalJoinSpec.joinSpec"),
                ("intervalJoinSpec.windowBounds.leftTimeIndex", 0, [bounds.left_time_index]),
                ("intervalJoinSpec.windowBounds.rightTimeIndex", 1, [bounds.right_time_index])]

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        return INSERT_AND_UPDATES if self.produces_early_fire_updates else INSERT_ONLY

    def changelog_reason(self) -> str:
        if not self.produces_early_fire_updates:
            return ""
        return (f" The EARLY_FIRE('delay'='{self.early_fire_delay}') hint makes this {self.join_type} "
                f"interval join emit null-padded rows early and retract them (-U/+U) when a match "
                f"arrives.")

    def check_input_changelog(self, inputs, origins) -> None:
        for side, kinds, origin in zip(("left", "right"), inputs, origins):
            if kinds != INSERT_ONLY:
                raise self.unsupported_changes(
                    f"Interval join node {self.id} ({side} input)", kinds - INSERT_ONLY, origin)

    # --- runtime -------------------------------------------------------------------------
    def read_options(self, config):
        return {"min_cleanup_interval_ms": config.get(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL)}

    def runtime_params(self, options: dict, left_arity: int):
        from ..runtime.interval_join import IntervalJoinParams

        spec = self.interval_join_spec
        bounds = spec.window_bounds
        names = tuple(self.row_type.names)
        return IntervalJoinParams(
            join_type=spec.join_spec.join_type,
            lower_bound=bounds.left_lower_bound, upper_bound=bounds.left_upper_bound,
            left_time_index=bounds.left_time_index, right_time_index=bounds.right_time_index,
            left_arity=left_arity, right_arity=len(names) - left_arity, output_names=names,
            condition=spec.join_spec.non_equi_condition,
            early_fire_delay_ms=(parse_duration_ms(self.early_fire_delay)
                                 if self.early_fire_delay else None),
            min_cleanup_interval_ms=options["min_cleanup_interval_ms"])

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        if self.negative_window:        # translated without transformWithState: no state
            return {}
        left, right = inputs
        if self.version == 1:
            from ..runtime.interval_join import state_layout

            return state_layout(struct_ddl(left), struct_ddl(right))
        from ..runtime.interval_join_v2 import state_layout

        return state_layout(struct_ddl(left), struct_ddl(right), struct_ddl(self.key_type(left)))

    def key_type(self, left: RowType) -> RowType:
        """The join key's columns as the translation names them (`__k0`, ...), typed as the
        left input's key columns; a join without key equalities has the constant key 0."""
        keys = self.interval_join_spec.join_spec.left_keys
        if not keys:
            return RowType((Field(f"{KEY_PREFIX}0", parse_type("INT")),))
        return RowType(tuple(Field(f"{KEY_PREFIX}{index}", left.fields[column].type)
                             for index, column in enumerate(keys)))

    def make_processor(self, ctx, params):
        """The transformWithState processor of this node's version."""
        left, right = ctx.input_types(self)
        if self.version == 1:
            from ..runtime.interval_join import make_processor_class

            return make_processor_class()(params, self.state_layout([left, right]))
        from ..runtime.interval_join_v2 import make_processor_class

        return make_processor_class()(params, *([f.type.name for f in row.fields]
                                                for row in (left, right, self.key_type(left))))

    def translate(self, ctx, inputs):
        return _translate(self, ctx, inputs)


# --- translation: tagged union of both inputs, grouped by the join key (version 1) or by a
# bucket of join keys (version 2), into the transformWithState processor of the node's
# version; negative windows need no state at all.

SIDE, LEFT_ROW, RIGHT_ROW, KEY_PREFIX = "__side", "__l", "__r", "__k"


def _payload(frame: "DataFrame") -> list[str]:
    return [name for name in frame.columns if name != OP_COLUMN]


def _padded(node, frame: "DataFrame", other, frame_is_left: bool) -> "DataFrame":
    """Each row of one side, null-padded on the other, as an insert."""
    from pyspark.sql import functions as F

    nulls = [F.lit(None).cast(f.dataType) for f in other.fields]
    own = [F.col(name) for name in _payload(frame)]
    values = own + nulls if frame_is_left else nulls + own
    names = node.row_type.names
    return frame.select(*[value.alias(name) for value, name in zip(values, names)],
                        F.lit(0).cast("byte").alias(OP_COLUMN))


def _translate(node: "StreamExecIntervalJoin", ctx, inputs: list) -> "DataFrame":
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    left, right = inputs
    left_struct = T.StructType([f for f in left.schema.fields if f.name != OP_COLUMN])
    right_struct = T.StructType([f for f in right.schema.fields if f.name != OP_COLUMN])
    if node.negative_window:
        return _negative_window(node, left, right, left_struct, right_struct)

    spec = node.interval_join_spec.join_spec
    left_names, right_names = _payload(left), _payload(right)
    key_names = [f"{KEY_PREFIX}{i}" for i in range(max(len(spec.left_keys), 1))]

    def keys(frame: "DataFrame", names: list[str], indexes: list[int]):
        if not indexes:
            return [F.lit(0).alias(key_names[0])]
        return [F.col(names[i]).alias(key) for i, key in zip(indexes, key_names)]

    def tagged(frame, names, indexes, side, own_alias):
        own = F.struct(*[F.col(n) for n in names])
        left_value = own if side == 0 else F.lit(None).cast(left_struct)
        right_value = own if side == 1 else F.lit(None).cast(right_struct)
        return frame.select(*keys(frame, names, indexes), F.lit(side).cast("byte").alias(SIDE),
                            left_value.alias(LEFT_ROW), right_value.alias(RIGHT_ROW))

    union = tagged(left, left_names, spec.left_keys, 0, LEFT_ROW).unionByName(
        tagged(right, right_names, spec.right_keys, 1, RIGHT_ROW))
    params = node.runtime_params(ctx.options(node), len(left_names))
    output = node.row_type.to_spark().add(OP_COLUMN, T.ByteType(), False)
    processor = node.make_processor(ctx, params)
    if node.version == 1:
        return union.groupBy(*key_names).transformWithState(
            processor, output, "Append", "EventTime")
    from ..runtime.interval_join_v2 import BUCKET_COLUMN, BUCKETS

    # Version 2: a call per bucket of join keys (Spark's Murmur3 hash, as bucketed tables).
    bucket = F.pmod(F.hash(*[F.col(name) for name in key_names]), F.lit(BUCKETS))
    return union.withColumn(BUCKET_COLUMN, bucket).groupBy(BUCKET_COLUMN).transformWithState(
        processor, output, "Append", "EventTime")


def _negative_window(node, left, right, left_struct, right_struct) -> "DataFrame":
    """Flink: a window whose lower bound is above its upper bound never matches; outer
    sides are emitted padded right away, inner joins emit nothing."""
    from pyspark.sql import functions as F

    join_type = JoinType(node.join_type)
    parts = []
    if join_type.left_outer:
        parts.append(_padded(node, left, right_struct, True))
    if join_type.right_outer:
        parts.append(_padded(node, right, left_struct, False))
    if not parts:                   # INNER: nothing, with the output's schema
        return _padded(node, left, right_struct, True).filter(F.lit(False))
    result = parts[0]
    for part in parts[1:]:
        result = result.unionByName(part)
    return result


def struct_ddl(row: RowType) -> str:
    """Spark DDL of a row's fields, as state schemas declare them."""
    return ", ".join(f"{quote_identifier(f.name)}: {f.type.to_spark().simpleString().upper()}" for f in row.fields)
