"""Interval join: `a JOIN b ON a.k = b.k AND a.t BETWEEN b.t - X AND b.t + Y`, with EARLY_FIRE,
on event time (rowtime attributes) or processing time (PROCTIME() attributes).

Two versions, one plan JSON: version 1 groups by the join key and keeps seven state variables
per key and a timer per cleanup and early fire (`runtime/interval_join.py`); version 2 groups
join keys into buckets with one value and one timer per bucket (`runtime/interval_join_v2.py`).
A node runs the grouping, layout and processor of the version its plan says: one strategy
chosen by `self.version` (`STATE_STRATEGIES`: `PerKeyState`, `BucketState`), so checkpoints
of either version restore; new plans get version 2. Both share the join logic
(`IntervalJoinCore`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Optional

from pydantic import model_validator

from ..changelog import INSERT_AND_UPDATES, INSERT_ONLY, KEY_PREFIX, OP_COLUMN
from ..durations import parse_duration_ms
from ..join_type import JoinType
from ..options import INTERVAL_JOIN_MIN_CLEANUP_INTERVAL
from ..types import Field, RowType, parse_type, quote_identifier
from .base import ExecNode, PlanModel
from .common import JoinSpec
from .fields import Duration, FieldIndex
from .keyed import struct_ddl
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

    @model_validator(mode="after")
    def _no_semi_or_anti(self) -> "IntervalJoinSpec":
        if JoinType(self.join_spec.join_type).semi_or_anti:
            raise ValueError(f"an interval join is INNER, LEFT, RIGHT or FULL, not "
                             f"{self.join_spec.join_type} (a semi or anti join is a "
                             f"stream-exec-join)")
        return self


# Version 2 changes the state layout and the grouping, not the plan JSON: a state-breaking
# bump. Its plans and checkpoints exist from engine 0.3 on, which introduced it (0.2 was
# released with stream-exec-join version 2 and wrote interval joins at version 1).
@exec_node(name="stream-exec-interval-join", version=2, min_plan_version="0.3",
           min_state_version="0.3", consumed_options=(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL.key,))
@exec_node(name="stream-exec-interval-join", version=1, min_plan_version="0.1",
           min_state_version="0.1", consumed_options=(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL.key,))
class StreamExecIntervalJoin(ExecNode):
    STATE_DOC = ("version 1: per join key a row cache per side, early-fired markers, cleanup timers; "
                 "version 2 (new plans): per bucket of join keys one value holding every key's rows with "
                 "their flags and one timer (see [fixtures.md](fixtures.md))")
    arity = 2
    interval_join_spec: IntervalJoinSpec
    # FLIP-497, additive and omitted when the hint is absent: old plans load unchanged.
    early_fire_delay: Optional[Duration] = None
    early_fire_time_mode: Optional[Literal["ROWTIME", "PROCTIME"]] = None

    def requires_watermark(self, inputs):
        return self.event_time

    @model_validator(mode="after")
    def _one_time_domain(self) -> "StreamExecIntervalJoin":
        mode = self.early_fire_time_mode
        if mode is not None and (mode == "ROWTIME") != self.event_time:
            join = "an event-time" if self.event_time else "a processing-time"
            raise ValueError(f"earlyFireTimeMode {mode} on {join} interval join "
                             f"(windowBounds.isEventTime={str(self.event_time).lower()}) is not "
                             f"supported: a transformWithState operator has a single time mode")
        return self

    # --- shape ---------------------------------------------------------------------------
    @property
    def join_type(self) -> str:
        return self.interval_join_spec.join_spec.join_type

    @property
    def event_time(self) -> bool:
        """False: a processing-time join (Flink's ProcTimeIntervalJoin), on PROCTIME()."""
        return self.interval_join_spec.window_bounds.is_event_time

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

    def runtime_params(self, options: dict, left: RowType, right: RowType):
        from ..runtime.interval_join import IntervalJoinParams

        spec = self.interval_join_spec
        bounds = spec.window_bounds
        names = tuple(self.row_type.names)
        return IntervalJoinParams(
            join_type=spec.join_spec.join_type,
            lower_bound=bounds.left_lower_bound, upper_bound=bounds.left_upper_bound,
            left_time_index=bounds.left_time_index, right_time_index=bounds.right_time_index,
            left_arity=len(left.fields), right_arity=len(names) - len(left.fields),
            output_names=names, condition=spec.join_spec.non_equi_condition,
            early_fire_delay_ms=(parse_duration_ms(self.early_fire_delay)
                                 if self.early_fire_delay else None),
            min_cleanup_interval_ms=options["min_cleanup_interval_ms"],
            column_types=tuple(tuple(f.type.name for f in row.fields)
                               for row in (left, right, self.key_type(left))),
            event_time=self.event_time)

    @property
    def state_strategy(self) -> type["PerKeyState"]:
        """How this node's version keeps its state: chosen once, by the plan's version."""
        return STATE_STRATEGIES[self.version]

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        if self.negative_window:        # translated without transformWithState: no state
            return {}
        left, right = inputs
        return self.state_strategy.layout(left, right, self.key_type(left))

    def key_type(self, left: RowType) -> RowType:
        """The join key's columns as the translation names them (`__k0`, ...), typed as the
        left input's key columns; a join without key equalities has the constant key 0."""
        keys = self.interval_join_spec.join_spec.left_keys
        if not keys:
            return RowType((Field(f"{KEY_PREFIX}0", parse_type("INT")),))
        return RowType(tuple(Field(f"{KEY_PREFIX}{index}", left.fields[column].type)
                             for index, column in enumerate(keys)))

    def translate(self, ctx, inputs):
        from pyspark.sql import types as T

        from .two_input import keyed_union

        left, right = inputs
        left_row, right_row = ctx.input_types(self)
        if self.negative_window:
            return _negative_window(self, left, right, left_row, right_row)
        spec = self.interval_join_spec.join_spec
        union, key_names = keyed_union(left, right, spec.left_keys, spec.right_keys)
        strategy = self.state_strategy
        processor = strategy.processor_class()(
            self.runtime_params(ctx.options(self), left_row, right_row),
            self.state_layout([left_row, right_row]), (), tuple(self.row_type.names))
        output = self.row_type.to_spark().add(OP_COLUMN, T.ByteType(), False)
        return strategy.grouped(union, key_names).transformWithState(
            processor, output, "Append", "EventTime" if self.event_time else "ProcessingTime")


# --- the versions' state: chosen once per node (state_strategy) ------------------------------

class PerKeyState:
    """Version 1: grouped by the join key; seven state variables per key and a timer per
    cleanup and early fire (runtime/interval_join.py). Its layouts were recorded with the
    columns' names as they are."""

    @staticmethod
    def layout(left: RowType, right: RowType, key: RowType) -> dict[str, dict[str, str]]:
        from ..runtime.interval_join import state_layout

        return state_layout(struct_ddl(left, state_names=False), struct_ddl(right, state_names=False))

    @staticmethod
    def processor_class() -> type:
        from ..runtime.interval_join import IntervalJoinProcessor

        return IntervalJoinProcessor

    @staticmethod
    def grouped(union: "DataFrame", key_names: list[str]):
        return union.groupBy(*key_names)


class BucketState(PerKeyState):
    """Version 2: join keys grouped into buckets (Spark's Murmur3 hash, as bucketed tables),
    one value and one timer per bucket (runtime/interval_join_v2.py)."""

    @staticmethod
    def layout(left: RowType, right: RowType, key: RowType) -> dict[str, dict[str, str]]:
        from ..runtime.interval_join_v2 import state_layout

        return state_layout(struct_ddl(left, state_names=False),
                            struct_ddl(right, state_names=False), struct_ddl(key, state_names=False))

    @staticmethod
    def processor_class() -> type:
        from ..runtime.interval_join_v2 import IntervalJoinProcessorV2

        return IntervalJoinProcessorV2

    @staticmethod
    def grouped(union: "DataFrame", key_names: list[str]):
        from pyspark.sql import functions as F

        from ..runtime.interval_join_v2 import BUCKET_COLUMN, BUCKETS

        bucket = F.pmod(F.hash(*[F.col(name) for name in key_names]), F.lit(BUCKETS))
        return union.withColumn(BUCKET_COLUMN, bucket).groupBy(BUCKET_COLUMN)


STATE_STRATEGIES = {1: PerKeyState, 2: BucketState}


# --- negative windows need no state at all --------------------------------------------------

def _padded(node, frame: "DataFrame", other: RowType, frame_is_left: bool) -> "DataFrame":
    """Each row of one side, null-padded on the other, as an insert."""
    from pyspark.sql import functions as F

    nulls = [F.lit(None).cast(f.type.to_spark()) for f in other.fields]
    own = [F.col(quote_identifier(name)) for name in frame.columns if name != OP_COLUMN]
    values = own + nulls if frame_is_left else nulls + own
    return frame.select(*[value.alias(name) for value, name in zip(values, node.row_type.names)],
                        F.lit(0).cast("byte").alias(OP_COLUMN))


def _negative_window(node, left, right, left_row: RowType, right_row: RowType) -> "DataFrame":
    """Flink: a window whose lower bound is above its upper bound never matches; outer
    sides are emitted padded right away, inner joins emit nothing."""
    from pyspark.sql import functions as F

    join_type = JoinType(node.join_type)
    parts = []
    if join_type.left_outer:
        parts.append(_padded(node, left, right_row, True))
    if join_type.right_outer:
        parts.append(_padded(node, right, left_row, False))
    if not parts:                   # INNER: nothing, with the output's schema
        return _padded(node, left, right_row, True).filter(F.lit(False))
    result = parts[0]
    for part in parts[1:]:
        result = result.unionByName(part)
    return result
