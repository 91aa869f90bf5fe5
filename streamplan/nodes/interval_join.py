"""Interval join: `a JOIN b ON a.k = b.k AND a.t BETWEEN b.t - X AND b.t + Y`, with EARLY_FIRE."""
from __future__ import annotations

from typing import Optional

from ..changelog import INSERT_AND_UPDATES, INSERT_ONLY, mode_names
from ..durations import parse_duration_ms
from ..errors import ChangelogModeError
from ..options import INTERVAL_JOIN_MIN_CLEANUP_INTERVAL
from ..types import RowType
from .base import ExecNode, PlanModel
from .metadata import exec_node


class JoinSpec(PlanModel):
    join_type: str                                   # INNER | LEFT | RIGHT | FULL
    left_keys: list[int]
    right_keys: list[int]
    filter_nulls: list[bool]
    non_equi_condition: Optional[str] = None         # Spark SQL over the output fields


class WindowBounds(PlanModel):
    is_event_time: bool
    left_lower_bound: int                            # left.t >= right.t + leftLowerBound (ms)
    left_upper_bound: int                            # left.t <= right.t + leftUpperBound (ms)
    left_time_index: int
    right_time_index: int


class IntervalJoinSpec(PlanModel):
    join_spec: JoinSpec
    window_bounds: WindowBounds


@exec_node(name="stream-exec-interval-join", version=1, min_plan_version="0.1",
           min_state_version="0.1", consumed_options=(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL.key,),
           produced_operators=("interval-join", "filter-all", "pad-left", "pad-right"))
class StreamExecIntervalJoin(ExecNode):
    arity = 2
    interval_join_spec: IntervalJoinSpec
    # FLIP-497, additive and omitted when the hint is absent: old plans load unchanged.
    early_fire_delay: Optional[str] = None
    early_fire_time_mode: Optional[str] = None

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
        return (self.early_fire_delay is not None and self.join_type != "INNER"
                and not self.negative_window)

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
                producer = origin[min(kinds - INSERT_ONLY, key=lambda kind: kind.code)]
                raise ChangelogModeError(
                    f"Interval join node {self.id} doesn't support consuming update and delete "
                    f"changes ({', '.join(mode_names(kinds - INSERT_ONLY))}) on its {side} input, "
                    f"which are produced by node {producer.id} '{producer.type}' "
                    f"({producer.description}).")

    # --- runtime -------------------------------------------------------------------------
    def runtime_params(self, config, left_arity: int):
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
            min_cleanup_interval_ms=config.get(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL))

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        from ..runtime.interval_join import state_layout

        if self.negative_window:        # translated without transformWithState: no state
            return {}
        left, right = inputs
        return state_layout(struct_ddl(left), struct_ddl(right))

    def translate(self, ctx, inputs):
        from ..runtime.interval_join_translation import translate_interval_join

        return translate_interval_join(self, ctx, inputs)


def struct_ddl(row: RowType) -> str:
    """Spark DDL of a row's fields, as state schemas declare them."""
    return ", ".join(f"`{f.name}`: {f.type.to_spark().simpleString().upper()}" for f in row.fields)
