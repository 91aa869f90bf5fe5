"""Event-time session windows of the window aggregate, as a transformWithState processor.

Flink runs `SESSION(...)` windows in the unslicing window operator
(`UnslicingWindowOperator` with `UnsliceSyncStateWindowAggProcessor`): a session cannot be
cut into aligned slices, so every row opens a window [ts, ts + gap) (`SessionWindowAssigner.
assignWindows`) that is merged with the key's in-flight windows it intersects
(`MergingWindowSet.addWindow`, `SessionWindowAssigner.mergeWindows`: only the floor and the
ceiling of the new window in the windows sorted by (start, end) are candidates; windows that
touch, `start <= other.end && end >= other.start`, merge too). The merged window keeps the
accumulator of one of the merged windows (its "state window": Flink avoids copying
accumulators) and the other accumulators are merged into it
(`MergingWindowProcessFunction.MergingFunctionImpl.merge`).

Over an updating input (Flink's `needRetraction`) a -U or -D row goes into its session as any
row does and retracts its values there (`isAccumulateMsg`: +I and +U accumulate); a session
whose rows were all retracted emits nothing when it fires.

A row whose (merged) window has already fired is late (`isWindowLate`: its end - 1 is at or
below the watermark) and dropped; its window is retired at once. Each in-flight window has
one event-time timer at end - 1 (registered for the row's actual window, moved to the merge
result when windows merge); when it fires, the window's accumulator is emitted as +I (unless
empty) and the window and its state window are cleared (`fireWindow`,
`cleanWindowIfNeeded`). So the timers are exactly the ends of the in-flight windows, which is
how the processor keeps them.

State, as Flink names it: `window-aggs` (state window -> accumulator) and
`session-window-mapping` (in-flight window -> its state window). A session open at a
checkpoint keeps both there, and a row after the restore merges into it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Optional

from ..changelog import RowKind
from ..errors import ExecutionError, NotInsertOnlyError
from .batch_rows import Output, emitted, rows_of
from .group_aggregate import AggCall
from .processor import Processor
from .timestamps import to_millis
from .window_aggregate import (WINDOW_AGGS, WindowAccumulators, _decode, _encode, _pair,
                               fired, rearm_window_timers, window_properties)

SESSION_WINDOW_MAPPING = "session-window-mapping"

Window = tuple[int, int]              # Flink's TimeWindow: (start, end), end exclusive


@dataclass(frozen=True)
class SessionWindowAggParams:
    key_arity: int
    calls: tuple[AggCall, ...]
    gap: int                           # ms
    rowtime_index: int
    properties: tuple[str, ...]        # WindowStart / WindowEnd / WindowTime, in output order
    need_retraction: bool = False      # an updating input: -U / -D rows retract


def intersects(window: Window, other: Window) -> bool:
    """TimeWindow.intersects: windows that overlap or touch."""
    return window[0] <= other[1] and window[1] >= other[0]


def cover(window: Window, other: Window) -> Window:
    return min(window[0], other[0]), max(window[1], other[1])


# MergeFunction.merge(mergeResult, mergedWindows, stateWindowResult, stateWindowsToBeMerged)
MergeFunction = Callable[[Window, set, Window, list], None]


class MergingWindowSet:
    """Flink's MergingWindowSet over `mapping` (in-flight window -> state window), changed in
    place."""

    def __init__(self, mapping: dict):
        self.mapping = mapping

    def state_window(self, window: Window) -> Window:
        return self.mapping[window]

    def retire_window(self, window: Window) -> None:
        if self.mapping.pop(window, None) is None:
            raise ExecutionError(f"session window {window} is not in the in-flight window set")

    @staticmethod
    def merge_windows(new: Window, windows: list[Window]) -> Optional[tuple[Window, set]]:
        """SessionWindowAssigner.mergeWindows: the ceiling, then the floor of `new` among the
        sorted in-flight windows, each merged when it intersects what is merged so far."""
        ceiling = min((w for w in windows if w >= new), default=None)
        floor = max((w for w in windows if w <= new), default=None)
        merged: set = set()
        result = new
        for other in (ceiling, floor):
            if other is not None and intersects(result, other):
                merged.add(other)
                result = cover(result, other)
        if not merged:
            return None
        merged.add(new)
        return result, merged

    def add_window(self, new: Window, merge: MergeFunction) -> Window:
        """MergingWindowSet.addWindow: the window `new` ended up in (itself or a merge result)."""
        found = self.merge_windows(new, list(self.mapping))
        if found is None:
            self.mapping[new] = new
            return new
        result, merged = found
        merged.discard(new)                # the new window had no state of its own
        if not merged:                     # the same window is in flight already
            return result
        # Flink picks the state window of "any" merged window (a HashSet's first): the
        # earliest here, so that the choice is deterministic.
        state_window = self.mapping[min(merged)]
        merged_state_windows = []
        for window in sorted(merged):
            kept = self.mapping.pop(window, None)
            if kept is not None and kept != state_window:
                merged_state_windows.append(kept)
        self.mapping[result] = state_window
        if not (result in merged and len(merged) == 1):
            merge(result, merged, state_window, merged_state_windows)
        return result


class SessionWindowAggCore(WindowAccumulators):
    """UnsliceSyncStateWindowAggProcessor for one key: `mapping` (in-flight window -> state
    window) and `accs` (state window -> accumulator) are changed in place; `dirty` collects
    the state windows whose accumulator was written or cleared."""

    def __init__(self, params: SessionWindowAggParams):
        super().__init__(params.calls)
        self.p = params

    def process(self, mapping: dict, accs: dict, dirty: set, kind: RowKind, row: tuple,
                watermark: int) -> bool:
        """processElement: one input row; False when it is late and dropped."""
        if kind is not RowKind.INSERT and not self.p.need_retraction:
            raise NotInsertOnlyError(f"window aggregate: a {kind.short} row reached it; its input "
                                     f"must be insert-only")
        time = row[self.p.rowtime_index]
        if time is None:
            raise ExecutionError("window aggregate: a row with a NULL time attribute")
        timestamp = to_millis(time)
        windows = MergingWindowSet(mapping)

        def merge(result: Window, merged: set, state_window: Window, state_windows: list) -> None:
            """MergingFunctionImpl.merge (the merged windows' timers go with their entries)."""
            if fired(result[1], watermark):
                raise ExecutionError(
                    f"session window aggregate: the end of an event-time window cannot become "
                    f"earlier than the current watermark by merging (watermark {watermark}, "
                    f"window {result})")
            if state_windows:
                target = accs.get(state_window) or self.create()
                for window in state_windows:
                    acc = accs.pop(window, None)
                    if acc is not None:
                        target = self.merged(target, acc)
                    dirty.add(window)
                accs[state_window] = target
                dirty.add(state_window)

        actual = windows.add_window((timestamp, timestamp + self.p.gap), merge)
        if fired(actual[1], watermark):    # isWindowLate
            windows.retire_window(actual)
            return False
        state_window = windows.state_window(actual)
        acc = accs.get(state_window)
        if acc is None:
            acc = accs[state_window] = self.create()
        if kind in (RowKind.INSERT, RowKind.UPDATE_AFTER):       # RowDataUtil.isAccumulateMsg
            self.accumulate(acc, row)
        else:
            self.retract(acc, row)
        dirty.add(state_window)
        return True

    def fire_due(self, key: tuple, mapping: dict, accs: dict, dirty: set, watermark: int,
                 out: list[Output]) -> None:
        """The timers the watermark reached, in time order: fireWindow, then clearWindow."""
        for window in sorted((w for w in mapping if fired(w[1], watermark)),
                             key=lambda w: (w[1], w[0])):
            state_window = mapping.pop(window)
            acc = accs.pop(state_window, None)
            dirty.add(state_window)
            if acc is not None and acc[0] != 0:
                out.append((RowKind.INSERT.code, key + self.results(acc)
                            + window_properties(self.p.properties, *window)))


# --- the Spark side ---------------------------------------------------------------------------

_WINDOW_DDL = "windowStart BIGINT, windowEnd BIGINT"


def state_layout(grouping_ddl: str, slicing_layout: dict) -> dict[str, dict[str, str]]:
    """`window-aggs` per state window (the slicing layout's accumulator) and the
    `session-window-mapping`; the key's event-time timers at each in-flight window's end - 2."""
    acc = slicing_layout[WINDOW_AGGS]["value"]
    return {WINDOW_AGGS: {"kind": "map", "key": _WINDOW_DDL, "value": acc,
                          "grouping": grouping_ddl,
                          "timers": "event time, in-flight session window end - 2"},
            SESSION_WINDOW_MAPPING: {"kind": "map", "key": _WINDOW_DDL,
                                     "value": "stateWindowStart BIGINT, stateWindowEnd BIGINT",
                                     "grouping": grouping_ddl}}


def window_of(struct) -> Window:
    start, end = _pair(struct)
    return int(start), int(end)


class SessionWindowAggProcessor(Processor):
    """Loads a key's windows, fires what is due, runs the rows, writes back what changed."""

    def init(self, handle) -> None:
        self.handle = handle
        aggs, mapping = self.layout[WINDOW_AGGS], self.layout[SESSION_WINDOW_MAPPING]
        self.accs_state = handle.getMapState(WINDOW_AGGS, aggs["key"], aggs["value"])
        self.mapping_state = handle.getMapState(SESSION_WINDOW_MAPPING, mapping["key"],
                                                mapping["value"])
        self.core = SessionWindowAggCore(self.params)

    def _run(self, key, rows, watermark: int, firing: Optional[int]) -> Iterator:
        key = tuple(key)[:self.params.key_arity]
        calls = self.params.calls
        mapping = {window_of(k): window_of(v) for k, v in self.mapping_state.iterator()}
        loaded = dict(mapping)
        accs = {window_of(k): _decode(v, calls) for k, v in self.accs_state.iterator()}
        dirty: set = set()
        out: list[Output] = []
        self.core.fire_due(key, mapping, accs, dirty, watermark, out)
        for kind, row in rows:
            self.core.process(mapping, accs, dirty, kind, row, watermark)
        for window in dirty:
            if window in accs:
                self.accs_state.updateValue(window, _encode(accs[window], calls))
            else:
                self.accs_state.removeKey(window)
        for window in loaded.keys() - mapping.keys():
            self.mapping_state.removeKey(window)
        for window, state_window in mapping.items():
            if loaded.get(window) != state_window:
                self.mapping_state.updateValue(window, state_window)
        registered = set(self.handle.listTimers())
        rearm_window_timers(self.handle, {end for _, end in mapping}, registered, firing)
        return emitted(out, self.output_names)

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        return self._run(key, rows_of(rows, self.input_names),
                         timerValues.getCurrentWatermarkInMs(), None)

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator:
        return self._run(key, [], timerValues.getCurrentWatermarkInMs(),
                         expiredTimerInfo.getExpiryTimeInMs())
