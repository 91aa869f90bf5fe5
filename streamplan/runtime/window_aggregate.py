"""Event-time window aggregation over slices, as a transformWithState processor.

Flink's window aggregate (`SlicingWindowOperator` running `SliceUnsharedWindowAggProcessor` or
`SliceSharedWindowAggProcessor`) does not keep one accumulator per window: it cuts time into
slices and keeps one accumulator per slice (`SliceAssigners`):

* tumbling: a slice is a window (unshared);
* hopping: slices of gcd(size, slide); a window merges its size / slice slices in memory when it
  fires, and the oldest slice, which no later window needs, is cleared (shared);
* cumulative: slices of the step; the first slice of a window holds the merged accumulator of
  every slice fired so far (each firing merges its slice into it), so the window is the first
  slice; the last window of the max size clears the first slice and its own (shared).

A row goes into the slice of its row time, and the slice's window end gets an event-time timer
(`windowEnd - 1`, Flink's `registerEventTimeWindowTimer`). A row whose slice has fired is late: it
is dropped when the last window containing it has fired too; else (hop and cumulate) it goes into
the slice state the unfired windows merge (`sliceStateMergeTarget`) with a timer for the first
unfired window (`AbstractSliceSyncStateWindowAggProcessor.processElement`). A timer fires its
window: the merged accumulator is emitted as +I (unless the window is empty), the slices no
later window needs are cleared (`expiredSlices`), and for shared slices the next window's timer
is registered (`nextTriggerWindow`: hop until a window is empty, cumulate up to the max size).

`WindowAggCore` is that logic for one key on plain Python values (`SliceAssigner`s, slice
accumulators, the set of pending window ends); `WindowAggProcessor` loads a key's slices and
timers, runs it and writes back what changed.

Timers: Flink fires a window's event-time timer, end - 1, when the watermark reaches it. The
Spark timer of window end e is e - 2, kept for the timers checkpoints hold, and re-armed at
e - 1 when it fires before the window is due (Spark 4.3 fires a timer once the watermark reaches
it, so at a watermark of exactly e - 2): `window_timers`. Whatever calls a key's processor, a
window fires only once it is due (`fired`). Spark runs a batch's input rows before its
expired timers, with the same watermark: each call first fires the key's windows due at the
watermark, which makes the order Flink's (a late row never reaches a window that Flink had fired before it arrived).

Processing-time windows (`event_time=False`, a window TVF over a PROCTIME() attribute) run the
same slicing with the batch's stamp (the query's clock, the harness's manual clock in tests)
in place of the watermark: a row goes into the slice of the current time, so nothing is late,
and the timers are processing-time timers (on the batch stamp, re-armed the same way).
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from math import gcd
from typing import Any, Callable, Iterable, Iterator, Optional

from ..changelog import RowKind
from ..errors import ExecutionError, NotInsertOnlyError
from .batch_rows import Output, emitted, rows_of
from .group_aggregate import (AVG, COUNT, FIRST_VALUE, LAST_VALUE, MAX, MIN, SUM, SUM0, UDAF, WELFORD_M2,
                              AggCall, _result, apply_welford, call_value, merge_welford,
                              running_sum, udaf_from_state, udaf_state_ddl, udaf_to_state)
from .processor import Processor
from .timestamps import EPOCH, to_millis

TUMBLE, HOP, CUMULATE = "TUMBLE", "HOP", "CUMULATE"
WINDOW_AGGS = "window-aggs"
WINDOW_START, WINDOW_END, WINDOW_TIME = "WindowStart", "WindowEnd", "WindowTime"


def window_start_with_offset(timestamp: int, offset: int, size: int) -> int:
    """Flink's TimeWindow.getWindowStartWithOffset (Python's % is Java's with the negative fix)."""
    return timestamp - (timestamp - offset) % size


@dataclass(frozen=True)
class SliceAssigner:
    """Flink's TumblingSliceAssigner, HoppingSliceAssigner and CumulativeSliceAssigner:
    `size` is the window size (the max size of a cumulative window), `slide` the hop's slide or
    the cumulative step (= size for a tumbling window), `offset` the window offset (ms)."""

    kind: str
    size: int
    slide: int
    offset: int = 0

    def __post_init__(self):
        if self.size <= 0 or self.slide <= 0:
            raise ValueError(f"{self.kind} window: size and slide/step must be > 0 ms, got "
                             f"{self.size} and {self.slide}")
        if self.size % self.slide:
            raise ValueError(f"{self.kind} window: the size ({self.size} ms) must be an integral "
                             f"multiple of the slide/step ({self.slide} ms)")
        if abs(self.offset) >= self.size and self.kind == TUMBLE:
            raise ValueError(f"TUMBLE window: abs(offset) must be below the size, got offset "
                             f"{self.offset} ms and size {self.size} ms")

    @property
    def shared(self) -> bool:
        return self.kind != TUMBLE

    @property
    def slice_size(self) -> int:
        """getSliceEndInterval: the distance between slice ends."""
        if self.kind == HOP:
            return gcd(self.size, self.slide)
        return self.slide if self.kind == CUMULATE else self.size

    def assign_slice_end(self, timestamp: int) -> int:
        return window_start_with_offset(timestamp, self.offset, self.slice_size) + self.slice_size

    def is_window_end(self, end: int) -> bool:
        """Whether `end` is a window's end (window ends lie a slice apart): it tells a
        window's Spark timer from a re-armed one (`timer_window_end`)."""
        return self.assign_slice_end(end - 1) == end

    def window_start(self, window_end: int) -> int:
        if self.kind == CUMULATE:
            return window_start_with_offset(window_end - 1, self.offset, self.size)
        return window_end - self.size

    def last_window_end(self, slice_end: int) -> int:
        if self.kind == HOP:
            return slice_end - self.slice_size + self.size
        if self.kind == CUMULATE:
            return self.window_start(slice_end) + self.size
        return slice_end

    def merge(self, window_end: int) -> tuple[Optional[int], list[int]]:
        """mergeSlices: the slice state the window's accumulator is kept in (None: in memory
        only) and the slices merged into it."""
        if self.kind == HOP:
            count = self.size // self.slice_size
            return None, [window_end - n * self.slice_size for n in range(count)]
        if self.kind == CUMULATE:
            first = self.window_start(window_end) + self.slide
            return first, ([] if window_end == first else [window_end])
        return window_end, []

    def merge_target(self, slice_end: int) -> int:
        """sliceStateMergeTarget: where a late (not dropped) row of a fired slice goes."""
        target, _ = self.merge(slice_end) if self.shared else (slice_end, [])
        return slice_end if target is None else target

    def expired_slices(self, window_end: int) -> list[int]:
        if self.kind == HOP:
            return [self.window_start(window_end) + self.slice_size]
        if self.kind == CUMULATE:
            start = self.window_start(window_end)
            first, last = start + self.slide, start + self.size
            if window_end == first:
                return []                  # the first slice holds the shared accumulator
            return [window_end, first] if window_end == last else [window_end]
        return [window_end]

    def next_trigger_window(self, window_end: int, empty: bool) -> Optional[int]:
        if self.kind == HOP:
            return None if empty else window_end + self.slice_size
        if self.kind == CUMULATE:
            following = window_end + self.slide
            return None if following > self.window_start(window_end) + self.size else following
        return None


@dataclass(frozen=True)
class WindowedSliceAssigner:
    """Flink's WindowedSliceAssigner (`WindowAttached` windowing of a two-phase aggregate over
    fired windows): a row carries its window's end, and each window is a slice of its own, so
    nothing is shared, merged or triggered after it. `inner` is the window's own assigner:
    it gives a window's start and tells window ends apart from re-armed timers. A row's slice
    end is its window end (`assign_slice_end` of the row's window_end is itself)."""

    inner: SliceAssigner
    shared = False

    @property
    def slice_size(self) -> int:
        return self.inner.slice_size

    def assign_slice_end(self, timestamp: int) -> int:
        """The row's window end is its slice end (`timestamp`: the row's window_end)."""
        return timestamp

    def is_window_end(self, end: int) -> bool:
        return self.inner.is_window_end(end)

    def window_start(self, window_end: int) -> int:
        return self.inner.window_start(window_end)

    def last_window_end(self, slice_end: int) -> int:
        return slice_end

    def merge(self, window_end: int) -> tuple[Optional[int], list[int]]:
        return window_end, []

    def merge_target(self, slice_end: int) -> int:
        return slice_end

    def expired_slices(self, window_end: int) -> list[int]:
        return [window_end]

    def next_trigger_window(self, window_end: int, empty: bool) -> Optional[int]:
        return None


def fired(window_end: int, watermark: int) -> bool:
    """TimeWindowUtil.isWindowFired on UTC time: the window's timer (end - 1) is due."""
    return watermark >= window_end - 1


@dataclass(frozen=True)
class WindowAggParams:
    key_arity: int
    calls: tuple[AggCall, ...]
    assigner: SliceAssigner
    rowtime_index: int
    properties: tuple[str, ...]        # WindowStart / WindowEnd / WindowTime, in output order
    event_time: bool = True            # False: a processing-time window (timers on the clock)
    drop_late_rows: bool = True        # False: the rows are fired windows (WindowAttached)
    # The rows are fired windows of an upstream window aggregate, read on its window_time
    # (cascading windows): Flink's upstream operator emits them before it forwards the
    # watermark that fired them, so they are never late here and go into their windows before
    # that watermark fires any (rows first, then the due windows).
    rows_before_watermark: bool = False

    def current_time(self, timer_values) -> int:
        """What fires windows: the watermark, or on processing time the batch's stamp."""
        if self.event_time:
            return timer_values.getCurrentWatermarkInMs()
        return timer_values.getCurrentProcessingTimeInMs()


# --- slice accumulators -----------------------------------------------------------------------
# A slice's accumulator: [row count, one value per call]. Inputs are insert-only, so MIN/MAX
# keep the extreme value only; SUM/AVG keep [sum, count]; COUNT a count; DISTINCT calls every
# distinct value with its count (Flink's distinct MapView), so slices merge exactly.
# FIRST_VALUE / LAST_VALUE keep the first / last non-NULL value in arrival order; they have no
# merge in Flink, so only tumbling windows (one slice a window) run them, in one phase.
_SINGLE_VALUE = (MIN, MAX, FIRST_VALUE, LAST_VALUE)


def _initial(call: AggCall) -> Any:
    if call.function == UDAF:
        return call.function_instance.create_accumulator()
    if call.distinct:
        return {}
    if call.function == WELFORD_M2:
        return [0, 0.0, 0.0]               # n, mean, m2
    if call.function in (SUM, AVG):
        return [None, 0]
    return None if call.function in _SINGLE_VALUE else 0


def _accumulate(call: AggCall, acc: Any, value: Any) -> Any:
    if call.function == UDAF:          # `value`: its arguments; it changes `acc` in place
        call.function_instance.accumulate(acc, *value)
        return acc
    if call.arg is not None and value is None:
        return acc
    if call.distinct:
        acc[value] = acc.get(value, 0) + 1
        return acc
    if call.function == WELFORD_M2:
        return apply_welford(acc, value, 1)
    if call.function in (SUM, AVG):
        total, count = acc
        return [running_sum(call, total, value), count + 1]
    if call.function == SUM0:          # Flink's Sum0AggFunction: from 0, one value
        return acc + value
    if call.function == MIN:
        return value if acc is None or value < acc else acc
    if call.function == MAX:
        return value if acc is None or value > acc else acc
    if call.function == FIRST_VALUE:
        return value if acc is None else acc
    if call.function == LAST_VALUE:
        return value
    return acc + 1


def _retract(call: AggCall, acc: Any, value: Any) -> Any:
    """A retracted input value (a session window aggregate over an updating input, Flink's
    needRetraction): COUNT, SUM, AVG, WELFORD_M2 and distinct calls; the node refuses others."""
    if call.arg is not None and value is None:
        return acc
    if call.distinct:
        count = acc.get(value, 0) - 1
        if count == 0:
            acc.pop(value, None)
        else:
            acc[value] = count             # may go negative: a retraction before its row
        return acc
    if call.function == WELFORD_M2:
        return apply_welford(acc, value, -1)
    if call.function in (SUM, AVG):
        total, count = acc
        return [running_sum(call, total, -value), count - 1]
    if call.function == COUNT:
        return acc - 1
    raise ExecutionError(f"window aggregate: {call.function} cannot retract a value")


def _merge(call: AggCall, acc: Any, other: Any) -> Any:
    if call.function == UDAF:          # into a fresh accumulator: a slice's own stays as it is
        merged = call.function_instance.create_accumulator()
        call.function_instance.merge(merged, [acc, other])
        return merged
    if call.distinct:
        merged = dict(acc)
        for value, count in other.items():
            merged[value] = merged.get(value, 0) + count
        return merged
    if call.function == WELFORD_M2:
        return merge_welford(acc, other)
    if call.function in (SUM, AVG):
        (total, count), (other_total, other_count) = acc, other
        if other_total is None:
            return [total, count]
        return [running_sum(call, total, other_total), count + other_count]
    if call.function in _SINGLE_VALUE:
        if acc is None or other is None:
            return other if acc is None else acc
        if call.function in (FIRST_VALUE, LAST_VALUE):   # `other` is the later slice
            return acc if call.function == FIRST_VALUE else other
        return min(acc, other) if call.function == MIN else max(acc, other)
    return acc + other


def _value(call: AggCall, acc: Any) -> Any:
    if call.function == UDAF:
        return call.function_instance.get_value(acc)
    if call.distinct:
        return _result(call, acc)          # the group aggregate's DISTINCT over present values
    if call.function in _SINGLE_VALUE:
        return acc
    if call.function in (SUM, AVG, WELFORD_M2):
        return _result(call, acc)
    return acc


class WindowAccumulators:
    """A window's accumulator over the calls: [row count, one value per call] (Flink's
    generated NamespaceAggsHandleFunction: createAccumulators, accumulate, merge, getValue).
    Shared by the slicing windows here and the session windows
    (runtime/session_window_aggregate.py)."""

    def __init__(self, calls: tuple[AggCall, ...]):
        self.calls = calls

    def create(self) -> list:
        return [0, *(_initial(call) for call in self.calls)]

    def accumulate(self, acc: list, row: tuple) -> None:
        acc[0] += 1
        for index, call in enumerate(self.calls, start=1):
            if call.takes(row):
                acc[index] = _accumulate(call, acc[index], call_value(call, row))

    def retract(self, acc: list, row: tuple) -> None:
        acc[0] -= 1
        for index, call in enumerate(self.calls, start=1):
            if call.takes(row):
                acc[index] = _retract(call, acc[index], call_value(call, row))

    def merged(self, acc: list, other: list) -> list:
        return [acc[0] + other[0], *(_merge(call, a, b) for call, a, b
                                     in zip(self.calls, acc[1:], other[1:]))]

    def results(self, acc: list) -> tuple:
        return tuple(_value(call, value) for call, value in zip(self.calls, acc[1:]))


def window_properties(kinds: tuple[str, ...], start: int, end: int) -> tuple:
    """The window's named properties in output order (window_time is end - 1)."""
    values = {WINDOW_START: start, WINDOW_END: end, WINDOW_TIME: end - 1}
    return tuple(EPOCH + dt.timedelta(milliseconds=values[kind]) for kind in kinds)


class WindowAggCore(WindowAccumulators):
    """Flink's slicing window aggregate for one key. `slices` maps slice end -> accumulator
    ([row count, values...]); `timers` is the set of window ends with a pending timer. Both
    are changed in place; `dirty` collects the slices written or cleared."""

    def __init__(self, params: WindowAggParams):
        super().__init__(params.calls)
        self.p = params
        self.assigner = params.assigner

    # AbstractSliceSyncStateWindowAggProcessor.processElement (+ the AggCombiner's timer)
    def process(self, slices: dict, timers: set, dirty: set, kind: RowKind, row: tuple,
                watermark: int) -> bool:
        """One input row; False when it is late and dropped."""
        if kind is not RowKind.INSERT:
            raise NotInsertOnlyError(f"window aggregate: a {kind.short} row reached it; its input "
                                     f"must be insert-only")
        slice_end = self.slice_end(row, watermark)
        if fired(slice_end, watermark) and self.p.drop_late_rows:
            if fired(self.assigner.last_window_end(slice_end), watermark):
                return False
            target = self.assigner.merge_target(slice_end)
            self._add(slices, dirty, target, row)
            first_unfired = slice_end
            while fired(first_unfired, watermark):
                first_unfired += self.assigner.slice_size
            timers.add(first_unfired)
            return True
        self._add(slices, dirty, slice_end, row)
        timers.add(slice_end)
        return True

    def slice_end(self, row: tuple, now: int) -> int:
        """SliceAssigner.assignSliceEnd: the slice of the row's time attribute, or on
        processing time of the current time (`now`: then no slice has fired, nothing is late)."""
        if not self.p.event_time:
            return self.assigner.assign_slice_end(now)
        time = row[self.p.rowtime_index]
        if time is None:
            raise ExecutionError("window aggregate: a row with a NULL time attribute")
        return self.assigner.assign_slice_end(to_millis(time))

    def _add(self, slices: dict, dirty: set, slice_end: int, row: tuple) -> None:
        acc = slices.get(slice_end)
        if acc is None:
            acc = slices[slice_end] = self.create()
        self.accumulate(acc, row)
        dirty.add(slice_end)

    def fire_due(self, key: tuple, slices: dict, timers: set, dirty: set, watermark: int,
                 out: list[Output]) -> None:
        """Every pending window whose timer the watermark reached, in time order (a window
        registered while firing fires too when it is due, as Flink's timer service does)."""
        while timers:
            window_end = min(timers)
            if not fired(window_end, watermark):
                return
            timers.discard(window_end)
            self.fire(key, window_end, slices, timers, dirty, out)

    # Slice(Un)sharedSyncStateWindowAggProcessor.fireWindow, then clearWindow
    def fire(self, key: tuple, window_end: int, slices: dict, timers: set, dirty: set,
             out: list[Output]) -> None:
        target, to_merge = self.assigner.merge(window_end)
        acc = slices.get(target) if target is not None else None
        acc = self.create() if acc is None else acc
        for slice_end in to_merge:
            if slice_end in slices:
                acc = self.merged(acc, slices[slice_end])
        if target is not None and to_merge:
            slices[target] = acc
            dirty.add(target)
        empty = acc[0] == 0
        if not empty:
            out.append((RowKind.INSERT.code, key + self.results(acc) + self.properties(window_end)))
        following = self.assigner.next_trigger_window(window_end, empty)
        if following is not None:
            timers.add(following)
        for slice_end in self.assigner.expired_slices(window_end):
            if slices.pop(slice_end, None) is not None:
                dirty.add(slice_end)

    def properties(self, window_end: int) -> tuple:
        return window_properties(self.p.properties, self.assigner.window_start(window_end),
                                 window_end)


# --- the Spark side ---------------------------------------------------------------------------

def state_layout(grouping_ddl: str, calls: tuple[AggCall, ...], arg_ddls: list[Optional[str]],
                 sum_ddls: list[Optional[str]], event_time: bool = True
                 ) -> dict[str, dict[str, str]]:
    """Flink's `window-aggs` state: per grouping key, one accumulator per slice end (the
    namespace), and the key's event-time timers (Spark's timer store, at window end - 2)."""
    fields = ["rowCount: BIGINT"]
    for index, (call, arg, total) in enumerate(zip(calls, arg_ddls, sum_ddls)):
        if call.function == UDAF:
            fields.append(f"a{index}: {udaf_state_ddl(call)}")
        elif call.distinct:
            fields.append(f"a{index}: ARRAY<STRUCT<v: {arg}, c: BIGINT>>")
        elif call.function in (SUM, AVG):
            fields.append(f"a{index}: STRUCT<total: {total}, count: BIGINT>")
        elif call.function == WELFORD_M2:
            fields.append(f"a{index}: STRUCT<n: BIGINT, mean: DOUBLE, m2: DOUBLE>")
        elif call.function in (*_SINGLE_VALUE, SUM0):
            fields.append(f"a{index}: {arg}")
        else:
            fields.append(f"a{index}: BIGINT")
    return {WINDOW_AGGS: {"kind": "map", "key": "sliceEnd BIGINT",
                          "value": f"acc STRUCT<{', '.join(fields)}>", "grouping": grouping_ddl,
                          "timers": f"{'event' if event_time else 'processing'} time, "
                                    f"window end - 2"}}


def _encode(acc: list, calls: tuple[AggCall, ...]) -> tuple:
    values = []
    for call, value in zip(calls, acc[1:]):
        if call.function == UDAF:
            values.append(udaf_to_state(call, value))
        elif call.distinct:
            values.append(sorted(([v, c] for v, c in value.items()), key=lambda item: repr(item[0])))
        elif call.function in (SUM, AVG, WELFORD_M2):
            values.append(tuple(value))
        else:
            values.append(value)
    return ((acc[0], *values),)


def _decode(stored: tuple, calls: tuple[AggCall, ...]) -> list:
    (struct,) = stored
    fields = list(struct.values()) if isinstance(struct, dict) else list(struct)
    values = []
    for call, value in zip(calls, fields[1:]):
        if call.function == UDAF:
            values.append(udaf_from_state(call, value))
        elif call.distinct:
            values.append({_pair(item)[0]: _pair(item)[1] for item in value or []})
        elif call.function in (SUM, AVG, WELFORD_M2):
            values.append(list(_pair(value)))
        else:
            values.append(value)
    return [fields[0], *values]


def _pair(struct: Any) -> tuple:
    return tuple(struct.values()) if isinstance(struct, dict) else tuple(struct)


def spark_timer(window_end: int) -> int:
    """A window's Spark timer as first registered: Flink's timer (end - 1) minus one."""
    return window_end - 2


def window_timers(ends: Iterable[int], registered: set[int], firing: Optional[int]) -> set[int]:
    """The Spark timers that the pending windows `ends` need. A window's timer is end - 2
    (Flink's end - 1, minus one): a Spark that fires a timer once the watermark passes it fires
    it when Flink would. Spark 4.3 fires a timer once the watermark reaches it
    (tests/test_spark_timer_boundary.py), so at a watermark of exactly end - 2 that timer comes
    a millisecond early, when the window is not due yet (`fired`); the window then keeps a
    timer at end - 1, which fires when Flink's does, instead of losing its timer. `registered`
    are the key's timers (a window re-armed so keeps end - 1); `firing` the one Spark fires."""
    timers = set()
    for end in ends:
        rearmed = end - 1
        first = spark_timer(end)
        timers.add(rearmed if rearmed in registered or first == firing else first)
    return timers


def rearm_window_timers(handle, ends: Iterable[int], registered: set[int],
                        firing: Optional[int]) -> None:
    """Leave the key exactly the timers `window_timers` wants for the pending windows `ends`:
    delete the others (not the one Spark is firing: Spark deletes it itself), register the
    missing ones."""
    wanted = window_timers(ends, registered, firing)
    for timer in registered - wanted:
        if timer != firing:
            handle.deleteTimer(timer)
    for timer in wanted - registered:
        handle.registerTimer(timer)


def timer_window_end(timer: int, is_window_end: Callable[[int], bool]) -> int:
    """The window end a Spark timer of `window_timers` stands for: the timer + 2, or + 1 when
    the timer was re-armed (window ends lie a slice apart, so at most one of them is one)."""
    return timer + 2 if is_window_end(timer + 2) else timer + 1


class WindowAggProcessor(Processor):
    """Loads a key's slices and timers, fires what is due, runs the rows, writes back.

    A call fires every window due at the watermark, so it may delete a timer of the same key
    that Spark has already listed as expired in this batch (PySpark lists a batch's expired
    timers before it calls the handlers): that stale timer then arrives although its window
    fired, and is ignored (a window fires once, as in Flink; the state is untouched)."""

    def init(self, handle) -> None:
        self.handle = handle
        spec = self.layout[WINDOW_AGGS]
        self.slices_state = handle.getMapState(WINDOW_AGGS, spec["key"], spec["value"])
        self.core = self.make_core()

    def make_core(self) -> WindowAggCore:
        return WindowAggCore(self.params)

    def _slices(self) -> dict:
        calls = self.params.calls
        return {int(_pair(k)[0]): _decode(v, calls) for k, v in self.slices_state.iterator()}

    def _run(self, key, rows, watermark: int, firing: Optional[int]) -> Iterator:
        key = tuple(key)[:self.params.key_arity]
        registered = set(self.handle.listTimers())
        firing = firing if firing in registered else None      # stale: its window fired
        assigner = self.params.assigner
        timers = {timer_window_end(timer, assigner.is_window_end)
                  for timer in registered}
        slices = self._slices()
        dirty: set = set()
        out: list[Output] = []
        if not self.params.rows_before_watermark:
            self.core.fire_due(key, slices, timers, dirty, watermark, out)
        for kind, row in rows:
            self.core.process(slices, timers, dirty, kind, row, watermark)
        if self.params.rows_before_watermark:
            self.core.fire_due(key, slices, timers, dirty, watermark, out)
        for slice_end in dirty:
            if slice_end in slices:
                self.slices_state.updateValue((slice_end,), _encode(slices[slice_end],
                                                                    self.params.calls))
            else:
                self.slices_state.removeKey((slice_end,))
        rearm_window_timers(self.handle, timers, registered, firing)
        return emitted(out, self.output_names)

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        return self._run(key, rows_of(rows, self.input_names),
                         self.params.current_time(timerValues), None)

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator:
        return self._run(key, [], self.params.current_time(timerValues),
                         expiredTimerInfo.getExpiryTimeInMs())


def processor_class(params) -> type[Processor]:
    """Slicing windows here; session windows in runtime/session_window_aggregate.py."""
    from .session_window_aggregate import SessionWindowAggParams, SessionWindowAggProcessor

    if isinstance(params, SessionWindowAggParams):
        return SessionWindowAggProcessor
    return WindowAggProcessor
