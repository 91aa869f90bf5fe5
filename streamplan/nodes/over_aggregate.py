"""Over aggregation: `agg(...) OVER (PARTITION BY k ORDER BY <time attribute> ROWS|RANGE
BETWEEN n PRECEDING|UNBOUNDED PRECEDING AND CURRENT ROW)` (Flink's StreamExecOverAggregate),
and `agg(...) OVER (PARTITION BY k ORDER BY <other column> ROWS|RANGE BETWEEN UNBOUNDED
PRECEDING AND CURRENT ROW)`.

The node's output is its input row followed by one result per aggregate call. `overSpec` is
Flink's OverSpec with one group (Flink refuses several: "All aggregates must be computed on the
same window"): the partition, the group's ORDER BY (one ascending column), ROWS or RANGE, the
lower bound (unbounded, or n rows / an interval before) and the calls. The runtime picks
Flink's process function from them and from the ORDER BY column's type
(runtime/over_aggregate.py), as StreamExecOverAggregate's TimeAttribute: on a time attribute
one output row per input row, insert-only; on any other column (NON_TIME, an unbounded frame
only) NonTimeRangeUnboundedPrecedingFunction or NonTimeRowsUnboundedPrecedingFunction, whose
input may be a changelog and whose output updates the rows after a new or retracted one.
"""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import model_validator

from ..changelog import ALL_KINDS, INSERT_ONLY, RowKind
from ..durations import parse_duration_ms
from ..errors import PlanFormatError
from ..types import RowType, quote_identifier
from .base import PlanModel
from .fields import Duration
from .group_aggregate import (AggCallSpec, accumulator_ddls, check_filter_args,
                              resolve_user_functions, runtime_calls)
from .keyed import GLOBAL_KEY, KeyedNode, struct_ddl
from .metadata import exec_node
from .rank import PartitionSpec, SortSpec

UNBOUNDED_PRECEDING, PRECEDING, CURRENT_ROW = "UNBOUNDED_PRECEDING", "PRECEDING", "CURRENT_ROW"


class WindowBound(PlanModel):
    """Flink's OverWindowBound: UNBOUNDED_PRECEDING, CURRENT_ROW, or PRECEDING with `rows`
    (ROWS n PRECEDING) or `interval` (RANGE INTERVAL ... PRECEDING)."""

    kind: Literal["UNBOUNDED_PRECEDING", "PRECEDING", "CURRENT_ROW"]
    rows: Optional[int] = None
    interval: Optional[Duration] = None

    @model_validator(mode="after")
    def _offset_of_kind(self):
        given = [name for name in ("rows", "interval") if getattr(self, name) is not None]
        if self.kind == PRECEDING and len(given) != 1:
            raise ValueError("a PRECEDING bound has either `rows` or `interval`")
        if self.kind != PRECEDING and given:
            raise ValueError(f"a {self.kind} bound has no offset")
        if self.rows is not None and self.rows < 0:
            raise ValueError("`rows` must be >= 0")
        if self.interval is not None and parse_duration_ms(self.interval) < 0:
            raise ValueError("`interval` must be >= 0")
        return self


class OverAggCallSpec(AggCallSpec):
    """An aggregate call of the over aggregate: also LAG(value[, offset[, default]]), whose
    offset (an INT) and default (of the value's type) are input columns, constants the planner
    projects below the node (Flink's OverSpec constants)."""
    function: Literal["COUNT", "SUM", "MIN", "MAX", "AVG", "UDAF", "LAG", "FIRST_VALUE",
                      "LAST_VALUE"]


class OverGroup(PlanModel):
    order_by: SortSpec
    is_rows: bool
    lower_bound: WindowBound
    upper_bound: WindowBound
    agg_calls: list[OverAggCallSpec]

    @model_validator(mode="after")
    def _supported_frame(self):
        if self.upper_bound.kind != CURRENT_ROW:
            raise ValueError("the upper bound must be CURRENT_ROW (Flink: OVER RANGE FOLLOWING "
                             "windows are not supported yet)")
        if self.lower_bound.kind == CURRENT_ROW:
            raise ValueError("the lower bound must be PRECEDING or UNBOUNDED_PRECEDING")
        if self.lower_bound.kind == PRECEDING and (self.lower_bound.rows is not None) != self.is_rows:
            raise ValueError("a ROWS frame's bound counts `rows`, a RANGE frame's is an `interval`")
        if len(self.order_by.fields) != 1:
            raise ValueError("The window can only be ordered by a single time column.")
        if not self.order_by.fields[0].is_ascending:
            raise ValueError("The window can only be ordered in ASCENDING mode.")
        return self

    @property
    def preceding_offset(self) -> Optional[int]:
        """Flink's precedingOffset: n + 1 rows for ROWS n PRECEDING, the interval in ms."""
        bound = self.lower_bound
        if bound.kind == UNBOUNDED_PRECEDING:
            return None
        return bound.rows + 1 if bound.rows is not None else parse_duration_ms(bound.interval)


class OverSpec(PlanModel):
    partition: PartitionSpec
    groups: list[OverGroup]

    @model_validator(mode="after")
    def _one_group(self):
        if len(self.groups) != 1:
            raise ValueError("All aggregates must be computed on the same window (one group).")
        return self


@exec_node(name="stream-exec-over-aggregate", version=1, min_plan_version="0.3",
           min_state_version="0.3")
class StreamExecOverAggregate(KeyedNode):
    STATE_DOC = ("per partition key Flink's states of the over function: the accumulators, the "
                 "rows by time not yet emitted or still in a bounded frame, the last fired row "
                 "time, the row count, and a cleanup time (event-time timers per pending row "
                 "time; the state-retention cleanup from `state` is applied when the key is "
                 "read); on a non-time ORDER BY the next row id, the sort keys in order with "
                 "their row ids, the rows by id and the accumulators by sort key (RANGE) or by "
                 "row id (ROWS), each with the TTL from `state`")
    RUNTIME = "over_aggregate"
    STATE_NAMES = ("overAggregateState",)
    over_spec: OverSpec

    def requires_watermark(self, inputs):
        return self.time_mode == "EventTime"

    def translate(self, ctx, inputs):
        resolve_user_functions(self, self.group.agg_calls)
        return super().translate(ctx, inputs)

    @property
    def group(self) -> OverGroup:
        return self.over_spec.groups[0]

    @property
    def order_index(self) -> int:
        return self.group.order_by.fields[0].index

    def input_field_indexes(self):
        calls = self.group.agg_calls
        return [("overSpec.partition.fields", 0, self.over_spec.partition.fields),
                ("overSpec.groups[0].orderBy.fields", 0, [self.order_index]),
                *((f"overSpec.groups[0].aggCalls[{n}].argList", 0, call.arg_list)
                  for n, call in enumerate(calls)),
                *((f"overSpec.groups[0].aggCalls[{n}].filterArg", 0, [call.filter_arg])
                  for n, call in enumerate(calls) if call.filter_arg is not None)]

    @property
    def non_time(self) -> bool:
        """Whether the ORDER BY column is no time attribute (Flink's TimeAttribute.NON_TIME;
        the output row keeps the input's fields and their time attributes)."""
        field = self.row_type.fields[self.order_index]
        return not (field.rowtime or field.proctime)

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        # FlinkChangelogModeInferenceProgram: only a non-time ORDER BY updates (and deletes)
        return ALL_KINDS if self.non_time else INSERT_ONLY

    def check_input_changelog(self, inputs, origins) -> None:
        kinds = inputs[0]
        if not self.non_time:
            if kinds != INSERT_ONLY:
                raise self.unsupported_changes(f"Over aggregate node {self.id}",
                                               kinds - INSERT_ONLY, origins[0])
        elif RowKind.UPDATE_AFTER in kinds and RowKind.UPDATE_BEFORE not in kinds:
            raise self.unsupported_changes(f"Over aggregate node {self.id}", frozenset(
                {RowKind.UPDATE_AFTER}), origins[0], "It needs update-before rows (-U).")

    def output_unique_keys(self, inputs, input_keys):
        # The input row as it is, and one result: the input's keys, those that contain the
        # partition key (Flink's FlinkRelMdUpsertKeys.getUpsertKeysOnOver: rows are
        # distributed by it, so only such a key still names one row's updates).
        partition = set(self.over_spec.partition.fields)
        return [key for key in input_keys[0] if partition <= set(key)]

    # --- state and runtime ---------------------------------------------------------------
    def key_indexes(self):
        return self.over_spec.partition.fields

    def _is_rowtime(self, input_row: RowType) -> bool:
        return input_row.fields[self.order_index].rowtime

    def _sort_key(self, input_row: RowType):
        """The non-time ORDER BY as the runtime's sort key (index, ascending, NULLs first), None
        on a time attribute. Flink's StreamExecOverAggregate refuses a bounded frame on it;
        an unbounded one runs NonTimeRangeUnboundedPrecedingFunction (RANGE) or
        NonTimeRowsUnboundedPrecedingFunction (ROWS)."""
        field = input_row.fields[self.order_index]
        if field.rowtime or field.proctime:
            return None
        where = (f"node {self.id} ('{self.type}'): field 'overSpec.groups[0]': ORDER BY input "
                 f"field {self.order_index} ({field.name} {field.type.text}), no time attribute")
        if self.group.preceding_offset is not None:
            raise PlanFormatError(f"{where}: Non-time attribute sort is not supported for "
                                  f"bounded OVER window.")
        (order,) = self.group.order_by.fields
        return (self.order_index, True, not order.null_is_last)

    def check_lag_calls(self, input_row: RowType) -> None:
        """LAG takes its value, maybe an INT offset and a default of the value's type, without
        DISTINCT or FILTER, in an unbounded frame over a time attribute: Flink's
        LagAggFunction cannot retract, which a bounded frame and a non-time ORDER BY need."""
        for n, call in enumerate(self.group.agg_calls):
            if call.function != "LAG":
                continue
            where = f"node {self.id} ('{self.type}'): field 'overSpec.groups[0].aggCalls[{n}]'"
            if not 1 <= len(call.arg_list) <= 3:
                raise PlanFormatError(f"{where}: LAG takes 1 to 3 arguments, the plan gives "
                                      f"{len(call.arg_list)}")
            if call.distinct or call.filter_arg is not None:
                raise PlanFormatError(f"{where}: LAG with distinct or a filterArg (not supported)")
            if self.group.preceding_offset is not None or self.non_time:
                raise PlanFormatError(f"{where}: LAG in a bounded frame or over a non-time ORDER "
                                      f"BY (LAG cannot retract); it needs UNBOUNDED PRECEDING "
                                      f"over a time attribute")
            value = input_row.fields[call.arg_list[0]].type
            for position, index in enumerate(call.arg_list[1:], 1):
                field = input_row.fields[index]
                wanted = "INT" if position == 1 else value.with_nullable(True).text
                if field.type.with_nullable(True).text != wanted:
                    raise PlanFormatError(f"{where}: LAG's {'offset' if position == 1 else 'default'}"
                                          f" is input field {index} ({field.name} "
                                          f"{field.type.text}), not {wanted}")

    def runtime_params(self, input_row):
        from ..runtime.over_aggregate import OverAggParams

        check_filter_args(self, self.group.agg_calls, input_row)
        self.check_lag_calls(input_row)
        rowtime = self._is_rowtime(input_row)
        return OverAggParams(runtime_calls(self.group.agg_calls),
                             self.order_index if rowtime else None, self.group.is_rows,
                             self.group.preceding_offset, self.state_ttl_ms(),
                             self._sort_key(input_row))

    @property
    def time_mode(self) -> str:
        """Event time for row time (the output keeps the input's time attributes)."""
        return "EventTime" if self.row_type.fields[self.order_index].rowtime else "ProcessingTime"

    def prepare(self, frame, input_row, params):
        # Event-time timers; late rows are the function's to drop, as Flink drops them, so the
        # row time loses the watermark mark that would make Spark filter them first.
        if not self._is_rowtime(input_row):
            return frame
        rowtime = input_row.names[self.order_index]
        return frame.withColumn(rowtime, frame[quote_identifier(rowtime)].alias(rowtime,
                                                                                metadata={}))

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        from ..runtime.group_aggregate import acc_struct_ddl

        (row,) = inputs
        params = self.runtime_params(row)
        grouping = struct_ddl(row, self.key_indexes()) or f"`{GLOBAL_KEY}`: INT"
        acc = acc_struct_ddl(params.calls, *accumulator_ddls(self.group.agg_calls, row))
        return self.runtime().state_layout(params, struct_ddl(row), acc, grouping,
                                           struct_ddl(row, [self.order_index]))
