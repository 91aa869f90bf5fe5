"""Window aggregation: `GROUP BY window_start, window_end, k` over a window table-valued
function (`TUMBLE`, `HOP`, `CUMULATE`) on event time (Flink's StreamExecWindowAggregate).

As in Flink's plan, the window TVF is folded into the aggregate: the node reads the time
attribute of its input (`windowing`, Flink's `TimeAttributeWindowingStrategy`) and appends the
window properties the query uses (`namedWindowProperties`) after the group keys and the
aggregate results. Each window emits one +I per group key when the watermark passes its end;
the state is Flink's slicing state (runtime/window_aggregate.py).
"""
from __future__ import annotations

from dataclasses import replace

from typing import Literal, Optional, Union

from pydantic import Field, model_validator

from ..changelog import INSERT_ONLY
from ..durations import parse_duration_ms
from ..errors import PlanFormatError
from ..types import RowType, parse_type
from .base import PlanModel
from .fields import Duration, FieldIndex
from .group_aggregate import AggCallSpec, _ddl, resolve_user_functions, runtime_calls, sum_type
from .keyed import GLOBAL_KEY, KeyedNode, struct_ddl
from .metadata import exec_node
from ..types import quote_identifier

WINDOW_KINDS = {"TumblingWindow": "TUMBLE", "HoppingWindow": "HOP", "CumulativeWindow": "CUMULATE",
                "SessionWindow": "SESSION"}


class WindowSpec(PlanModel):
    """Flink's TumblingWindowSpec / HoppingWindowSpec / CumulativeWindowSpec /
    SessionWindowSpec: `size` (a cumulative window's `maxSize`), `slide` (hopping) or `step`
    (cumulative), `offset`; a session's `gap` and `partition_key_indices` (Flink's JSON name,
    the input fields of `PARTITION BY`)."""

    type: Literal["TumblingWindow", "HoppingWindow", "CumulativeWindow", "SessionWindow"]
    size: Optional[Duration] = None
    max_size: Optional[Duration] = None
    slide: Optional[Duration] = None
    step: Optional[Duration] = None
    offset: Optional[Duration] = None
    gap: Optional[Duration] = None
    partition_key_indices: Optional[list[FieldIndex]] = Field(default=None,
                                                              alias="partition_key_indices")

    @model_validator(mode="after")
    def _fields_of_type(self):
        wanted = {"TumblingWindow": {"size"}, "HoppingWindow": {"size", "slide"},
                  "CumulativeWindow": {"max_size", "step"},
                  "SessionWindow": {"gap", "partition_key_indices"}}[self.type]
        given = {name for name in ("size", "max_size", "slide", "step", "gap",
                                   "partition_key_indices") if getattr(self, name) is not None}
        if given != wanted:
            raise ValueError(f"a {self.type} has {', '.join(sorted(wanted))} "
                             f"(given: {', '.join(sorted(given)) or 'none'})")
        if self.offset is not None and self.type == "SessionWindow":
            raise ValueError("a SessionWindow has no offset")
        durations = wanted - {"partition_key_indices"}
        if any(parse_duration_ms(getattr(self, name)) <= 0 for name in durations):
            raise ValueError(f"the {self.type}'s {', '.join(sorted(durations))} must be positive")
        return self

    @property
    def is_session(self) -> bool:
        return self.type == "SessionWindow"

    def assigner(self):
        from ..runtime.window_aggregate import SliceAssigner

        if self.is_session:
            raise ValueError("a session window is not sliced (it has no slice assigner)")
        kind = WINDOW_KINDS[self.type]
        size = parse_duration_ms(self.max_size or self.size)
        slide = parse_duration_ms(self.slide or self.step or self.size)
        offset = parse_duration_ms(self.offset) if self.offset is not None else 0
        return SliceAssigner(kind, size, slide, offset)

    def describe(self, time_column: str, input_names: tuple[str, ...] = ()) -> str:
        """Flink's rendering: TUMBLE(time_col=[rowtime], size=[5 s]);
        SESSION(time_col=[rowtime], gap=[5 s], partition keys=[name])."""
        parts = [f"time_col=[{time_column}]"]
        for name in ("max_size", "size", "slide", "step", "offset", "gap"):
            value = getattr(self, name)
            if value is not None:
                parts.append(f"{name}=[{_seconds(value)}]")
        if self.partition_key_indices:
            keys = ", ".join(input_names[i] for i in self.partition_key_indices)
            parts.append(f"partition keys=[{keys}]")
        return f"{WINDOW_KINDS[self.type]}({', '.join(parts)})"


def _seconds(duration: str) -> str:
    ms = parse_duration_ms(duration)
    return f"{ms // 1000} s" if ms % 1000 == 0 else f"{ms} ms"


class WindowingStrategy(PlanModel):
    """Flink's TimeAttributeWindowingStrategy: the window over the input's time attribute,
    a rowtime attribute or (`isRowtime` false) a processing-time one."""

    strategy: Literal["TimeAttribute"] = "TimeAttribute"
    window: WindowSpec
    time_attribute_index: FieldIndex
    is_rowtime: bool = True


class WindowAttachedStrategy(PlanModel):
    """Flink's WindowAttachedWindowingStrategy: the input has the window's start and end
    columns (a window table function's or a window aggregate's output). The window rank,
    deduplicate and join, and the window aggregates over fired windows, hold it."""

    strategy: Literal["WindowAttached"] = "WindowAttached"
    window: WindowSpec
    window_start: FieldIndex
    window_end: FieldIndex
    is_rowtime: Literal[True] = True

    def describe(self, input_row: RowType) -> str:
        """Flink's rendering: TUMBLE(win_start=[window_start], win_end=[window_end], size=[10 s])."""
        parts = [f"win_start=[{input_row.names[self.window_start]}]",
                 f"win_end=[{input_row.names[self.window_end]}]"]
        for name in ("max_size", "size", "slide", "step", "offset"):
            value = getattr(self.window, name)
            if value is not None:
                parts.append(f"{name}=[{_seconds(value)}]")
        return f"{WINDOW_KINDS[self.window.type]}({', '.join(parts)})"


class NamedWindowProperty(PlanModel):
    name: str
    property: Literal["WindowStart", "WindowEnd", "WindowTime"]


class FiredWindows:
    """A node whose rows are fired windows (the one-phase window aggregate and the global one):
    its group keys, its aggregate calls, then its named window properties. The nodes after it
    read its windows from those columns, and never take its rows for late."""

    def property_indexes(self, kind: str) -> list[int]:
        """The output columns holding the window property `kind` (WindowStart, ...)."""
        offset = len(self.grouping) + len(self.agg_calls)
        return [offset + i for i, p in enumerate(self.named_window_properties)
                if p.property == kind]

    def output_unique_keys(self, inputs, input_keys):
        """The group keys with the window (Flink: keys + window_start or window_end)."""
        base = list(range(len(self.grouping)))
        return [base + self.property_indexes(kind)[:1] for kind in ("WindowStart", "WindowEnd")
                if self.property_indexes(kind)]


def reads_fired_windows(ctx, node) -> bool:
    """Whether the node's input rows are a window aggregate's (through calcs): fired windows,
    never late for it (runtime/window_buffer.py)."""
    from .calc import StreamExecCalc

    (node,) = ctx.plan.inputs_of(node)
    while isinstance(node, StreamExecCalc):
        (node,) = ctx.plan.inputs_of(node)
    return isinstance(node, FiredWindows)


RETRACTING_WINDOW_CALLS = ("COUNT", "SUM", "AVG", "WELFORD_M2")   # and distinct calls


class WindowAggCallSpec(AggCallSpec):
    """An aggregate call of the one-phase window aggregate: also FIRST_VALUE and LAST_VALUE,
    which have no merge (Flink's FirstValueAggFunction, LastValueAggFunction), so tumbling
    windows only (one slice a window)."""
    function: Literal["COUNT", "SUM", "SUM0", "MIN", "MAX", "AVG", "UDAF", "FIRST_VALUE",
                      "LAST_VALUE", "WELFORD_M2"]


@exec_node(name="stream-exec-window-aggregate", version=1, min_plan_version="0.3",
           min_state_version="0.3")
class StreamExecWindowAggregate(FiredWindows, KeyedNode):
    STATE_DOC = ("per group key one accumulator per slice end (Flink's slicing: a tumbling "
                 "window is one slice, hopping windows share slices of gcd(size, slide) merged "
                 "when a window fires, cumulative windows keep their merged accumulator in the "
                 "first slice) and an event-time timer per pending window end; slices are "
                 "cleared when the last window needing them fires; session windows (Flink's "
                 "unslicing operator): per group key one accumulator per state window and the "
                 "session-window-mapping of in-flight windows to state windows, merged as "
                 "sessions merge, with a timer per in-flight window end; a UDAF's "
                 "accumulator as its declared type")
    RUNTIME = "window_aggregate"
    grouping: list[FieldIndex]
    agg_calls: list[WindowAggCallSpec]
    windowing: Union[WindowingStrategy, WindowAttachedStrategy] = Field(
        discriminator="strategy")      # WindowAttached: over fired windows (a split's final)
    named_window_properties: list[NamedWindowProperty]
    need_retraction: Optional[bool] = None     # Flink's needRetraction (absent: false)

    @model_validator(mode="after")
    def _retracts_in_sessions_only(self) -> "StreamExecWindowAggregate":
        """An updating input goes into session windows only (Flink's unslicing operator
        retracts), with calls that can retract."""
        if self.window_attached and self.windowing.window.is_session:
            raise ValueError("windowing: WindowAttached windowing takes aligned windows (TUMBLE, "
                             "HOP, CUMULATE), not a session")
        if not self.need_retraction:
            return self
        if not self.windowing.window.is_session:
            raise ValueError("needRetraction: only a SESSION window aggregate takes an updating "
                             "input")
        for n, call in enumerate(self.agg_calls):
            if call.function not in RETRACTING_WINDOW_CALLS and not call.distinct:
                raise ValueError(f"aggCalls[{n}]: {call.function} cannot retract, so it takes "
                                 f"no updating input (needRetraction)")
        return self

    @property
    def window_attached(self) -> bool:
        return isinstance(self.windowing, WindowAttachedStrategy)

    def requires_watermark(self, inputs):
        return self.windowing.is_rowtime

    def input_field_indexes(self):
        windows = ([("windowing.windowStart", 0, [self.windowing.window_start]),
                    ("windowing.windowEnd", 0, [self.windowing.window_end])]
                   if self.window_attached else
                   [("windowing.timeAttributeIndex", 0, [self.windowing.time_attribute_index]),
                    ("windowing.window.partition_key_indices", 0,
                     self.windowing.window.partition_key_indices or [])])
        return [("grouping", 0, self.grouping), *windows,
                *((f"aggCalls[{n}].argList", 0, call.arg_list) for n, call in enumerate(self.agg_calls)),
                *((f"aggCalls[{n}].filterArg", 0, [call.filter_arg])
                  for n, call in enumerate(self.agg_calls) if call.filter_arg is not None)]

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        return INSERT_ONLY

    def check_input_changelog(self, inputs, origins) -> None:
        if inputs[0] != INSERT_ONLY and not self.need_retraction:
            raise self.unsupported_changes(f"Window aggregate node {self.id}",
                                           inputs[0] - INSERT_ONLY, origins[0])

    # --- state and runtime ---------------------------------------------------------------
    def key_indexes(self):
        return self.grouping

    def translate(self, ctx, inputs):
        resolve_user_functions(self, self.agg_calls)
        if self.window_attached and not reads_fired_windows(ctx, self):
            raise PlanFormatError(
                f"node {self.id} ('{self.type}'): WindowAttached windowing aggregates fired "
                f"windows: its input must be a window aggregate's rows (through calcs)")
        return super().translate(ctx, inputs)

    def run_params(self, ctx, input_row):
        """Windows on the window_time of an upstream window aggregate's rows (cascading
        windows, through calcs): those rows are never late and come ahead of the watermark
        that fired them (WindowAggParams.rows_before_watermark)."""
        params = self.runtime_params(input_row)
        if self.window_attached or not self.windowing.is_rowtime \
                or self.windowing.window.is_session or not reads_fired_windows(ctx, self):
            return params
        return replace(params, drop_late_rows=False, rows_before_watermark=True)

    @property
    def time_mode(self) -> str:
        return "EventTime" if self.windowing.is_rowtime else "ProcessingTime"

    def _check_input(self, input_row: RowType) -> None:
        if self.window_attached:
            index = self.windowing.window_end
            field = input_row.fields[index]
            if field.type.name != "TIMESTAMP":
                raise PlanFormatError(
                    f"node {self.id} ('{self.type}'): field 'windowing.windowEnd': input field "
                    f"{index} ({field.name} {field.type.text}) is not a TIMESTAMP")
        else:
            self._check_time_attribute(input_row)
        self._check_calls(input_row)

    def _check_time_attribute(self, input_row: RowType) -> None:
        index = self.windowing.time_attribute_index
        field = input_row.fields[index]
        rowtime = self.windowing.is_rowtime
        if not (field.rowtime if rowtime else field.proctime):
            raise PlanFormatError(
                f"node {self.id} ('{self.type}'): field 'windowing.timeAttributeIndex': input "
                f"field {index} ({field.name} {field.type.text}) is not a "
                f"{'rowtime' if rowtime else 'processing-time'} attribute")
        if not rowtime and self.windowing.window.is_session:
            raise PlanFormatError(
                f"node {self.id} ('{self.type}'): field 'windowing': processing-time session "
                f"windows are not supported (event-time sessions are)")

    def _check_calls(self, input_row: RowType) -> None:
        for n, call in enumerate(self.agg_calls):
            if call.function in ("FIRST_VALUE", "LAST_VALUE") and (
                    self.windowing.window.type != "TumblingWindow" or call.distinct):
                raise PlanFormatError(
                    f"node {self.id} ('{self.type}'): field 'aggCalls[{n}]': {call.function} "
                    f"runs in a tumbling window only, without distinct (it has no merge)")
            if call.filter_arg is not None and input_row.fields[call.filter_arg].type.name != "BOOLEAN":
                bad = input_row.fields[call.filter_arg]
                raise PlanFormatError(
                    f"node {self.id} ('{self.type}'): field 'aggCalls[{n}].filterArg': input "
                    f"field {call.filter_arg} ({bad.name} {bad.type.text}) is not BOOLEAN")

    def runtime_params(self, input_row):
        from ..runtime.window_aggregate import WindowAggParams

        self._check_input(input_row)
        calls = runtime_calls(self.agg_calls)
        properties = tuple(p.property for p in self.named_window_properties)
        window = self.windowing.window
        if window.is_session:
            from ..runtime.session_window_aggregate import SessionWindowAggParams

            self._check_partition_keys()
            return SessionWindowAggParams(len(self.grouping), calls, parse_duration_ms(window.gap),
                                          self.windowing.time_attribute_index, properties,
                                          bool(self.need_retraction))
        try:
            assigner = self.windowing.window.assigner()
        except ValueError as err:
            raise PlanFormatError(f"node {self.id} ('{self.type}'): field 'windowing.window': "
                                  f"{err}") from None
        if self.window_attached:         # a window is its slice, from the row's window_end
            from ..runtime.window_aggregate import WindowedSliceAssigner

            return WindowAggParams(len(self.grouping), calls, WindowedSliceAssigner(assigner),
                                   self.windowing.window_end, properties, drop_late_rows=False)
        return WindowAggParams(len(self.grouping), calls, assigner,
                               self.windowing.time_attribute_index, properties,
                               self.windowing.is_rowtime)

    def _check_partition_keys(self) -> None:
        """Flink folds a SESSION window into the aggregate only when its partition keys are
        the group keys: the state is keyed by the group keys, so a session is per group."""
        keys = self.windowing.window.partition_key_indices or []
        if sorted(keys) != sorted(self.grouping):
            raise PlanFormatError(
                f"node {self.id} ('{self.type}'): field 'windowing.window.partition_key_indices': "
                f"the session's partition keys {keys} are not the grouping {self.grouping}")

    def prepare(self, frame, input_row, params):
        # Event-time timers; late rows are the processor's to drop, as Flink drops them, so
        # the time attribute loses the watermark mark that would make Spark filter them first.
        if not self.windowing.is_rowtime or self.window_attached:
            return frame
        return without_watermark(frame, input_row.names[self.windowing.time_attribute_index])

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        (row,) = inputs
        layout = slicing_state_layout(row, self.grouping, self.agg_calls, row,
                                      self.windowing.is_rowtime)
        if self.windowing.window.is_session:
            from ..runtime.session_window_aggregate import state_layout as session_layout
            from ..runtime.window_aggregate import WINDOW_AGGS

            return session_layout(layout[WINDOW_AGGS]["grouping"], layout)
        return layout


def without_watermark(frame, rowtime: str):
    """`frame` with its time attribute `rowtime` no longer marked as Spark's event time: late
    rows are the processor's to drop, as Flink drops them, not Spark's to filter first."""
    return frame.withColumn(rowtime, frame[quote_identifier(rowtime)].alias(rowtime, metadata={}))


def slicing_state_layout(row: RowType, grouping: list[int], agg_calls: list[AggCallSpec],
                         arg_row: RowType, event_time: bool = True) -> dict[str, dict[str, str]]:
    """The slicing `window-aggs` state: keyed by `grouping` of `row`, an accumulator per slice
    typed by the calls' arguments in `arg_row` (the global window aggregate's calls index the
    local aggregate's input)."""
    from ..runtime.window_aggregate import state_layout

    grouping_ddl = struct_ddl(row, grouping) or f"`{GLOBAL_KEY}`: INT"
    args = [arg_row.fields[call.arg_list[0]].type if call.arg_list else None
            for call in agg_calls]
    sums = [sum_type(call.function, arg, parse_type(call.type)) if arg else None
            for call, arg in zip(agg_calls, args)]
    calls = runtime_calls(agg_calls)
    return state_layout(grouping_ddl, calls, [_ddl(arg) if arg else None for arg in args],
                        [_ddl(total) if total else None for total in sums], event_time)
