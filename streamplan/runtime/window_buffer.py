"""What the window rank and the window deduplicate share: Flink's slicing window operator over
an input that carries its windows (`WindowAttached` windowing: the rows of a window table
function or of a window aggregate, each with its `window_end`).

Flink (SlicingWindowOperator running SyncStateWindowRankProcessor or
RowTimeSyncStateWindowDeduplicateProcessor):

* `processElement`: a row whose window has fired at the current watermark
  (`TimeWindowUtil.isWindowFired`: watermark >= window end - 1) is late and dropped; every
  other row goes into the `WindowBuffer` under (key, window end);
* the buffer is flushed (`RecordsWindowBuffer.flush`: at a watermark that fires one of its
  windows, and before every checkpoint) through the node's `RecordsCombiner`, which merges
  one window's buffered rows, in arrival order, into the window's state and registers the
  window's event-time timer (window end - 1, `registerEventTimeWindowTimer`);
* the timer fires the window (`fireWindow`: the node emits from the window's state) and
  clears its state (`clearWindow`).

Over a window aggregate (`drop_late_rows` False), no row is late: Flink's window aggregate
emits a window's rows before it forwards the watermark that fired the window, so the rank
sees them ahead of that watermark; on Spark both operators run a micro-batch at its one
watermark, which has already reached the window's end, so the check would drop every row.

Here a key's rows of one micro-batch are one buffer flush: `WindowBufferCore.process` drops
the late rows, groups the rest by window in arrival order and hands each window's rows to
the node's `combine`. Flink's result does not depend on where its buffer is flushed (the
combiners keep every row that can still be output), so neither does ours.

Timers are the window aggregate's (`runtime/window_aggregate.py`: `fired`, `window_timers`):
a window's Spark timer is its end - 2, or end - 1 once that one fired early,
and each call first fires the key's windows due at the current watermark, since Spark runs a
batch's rows before its expired timers.
"""
from __future__ import annotations

from typing import Any, ClassVar, Iterator, Optional

from ..changelog import RowKind
from ..errors import ExecutionError, NotInsertOnlyError
from .batch_rows import Output, emitted, plain, rows_of
from .processor import Processor
from .timestamps import to_millis
from .window_aggregate import fired, rearm_window_timers, timer_window_end

ACCUMULATE = (RowKind.INSERT, RowKind.UPDATE_AFTER)      # RowDataUtil.isAccumulateMsg


class WindowBufferCore:
    """One key's windows: `windows` maps window end -> the node's state value of the window,
    `timers` is the set of window ends with a pending timer; both are changed in place and
    `dirty` collects the windows written or cleared. Subclasses give `combine` and `fire`."""

    NODE: ClassVar[str]                      # Flink's name, for errors

    def __init__(self, params: Any):
        self.p = params

    def window_end(self, row: tuple) -> int:
        value = row[self.p.window_end_index]
        if value is None:
            raise ExecutionError(f"{self.NODE}: a row with a NULL window_end: {list(row)}")
        return to_millis(value)

    def process(self, windows: dict, timers: set, dirty: set,
                rows: list[tuple[RowKind, tuple]], watermark: int) -> int:
        """A micro-batch's rows of the key (processElement, then one buffer flush); returns
        how many were late and dropped."""
        grouped: dict[int, list[tuple]] = {}
        late = 0
        for kind, row in rows:
            if kind not in ACCUMULATE:
                raise NotInsertOnlyError(f"{self.NODE} does not support input RowKind: "
                                         f"{kind.short} ({list(row)}); its input must be "
                                         f"insert-only")
            end = self.window_end(row)
            if self.p.drop_late_rows and fired(end, watermark):
                late += 1                    # numLateRecordsDropped
                continue
            grouped.setdefault(end, []).append(row)
        for end, records in grouped.items():
            before = windows.get(end)
            after = self.combine(before, records)
            if after is not before:
                windows[end] = after
                dirty.add(end)
            timers.add(end)                  # registerEventTimeWindowTimer
        return late

    def fire_due(self, windows: dict, timers: set, dirty: set, watermark: int,
                 out: list[Output]) -> None:
        """Every pending window whose timer the watermark reached, in time order: fireWindow,
        then clearWindow."""
        while timers:
            end = min(timers)
            if not fired(end, watermark):
                return
            timers.discard(end)
            value = windows.pop(end, None)
            if value is not None:
                self.fire(value, out)
                dirty.add(end)

    # --- the node's RecordsCombiner and fireWindow ---------------------------------------------
    def combine(self, value: Optional[Any], records: list[tuple]) -> Optional[Any]:
        """The window's state value after its buffered `records` (`value` itself when the
        combiner leaves the state untouched)."""
        raise NotImplementedError

    def fire(self, value: Any, out: list[Output]) -> None:
        raise NotImplementedError


def window_state_layout(name: str, value_ddl: str) -> dict[str, dict[str, str]]:
    """One map state per key: window end -> the window's value (Flink's window state, whose
    namespace is the window end), and the key's event-time timers."""
    return {name: {"kind": "map", "key": "windowEnd BIGINT", "value": value_ddl,
                   "timers": "event time, window end - 2"}}


class WatermarkCalls:
    """Spark's calls of a window processor whose `_run(rows, watermark, firing)` does the
    work: a key's input rows at the current watermark, an expired timer with no rows."""

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        return self._run(rows_of(rows, self.input_names), timerValues.getCurrentWatermarkInMs(),
                         None)

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator:
        return self._run([], timerValues.getCurrentWatermarkInMs(),
                         expiredTimerInfo.getExpiryTimeInMs())


class WindowBufferProcessor(WatermarkCalls, Processor):
    """Loads a key's windows and timers, fires what is due, runs the rows, writes back.
    Subclasses give the core (`CORE`) and how a window's value is stored (`decode`,
    `encode`)."""

    CORE: ClassVar[type[WindowBufferCore]]

    def init(self, handle) -> None:
        self.handle = handle
        ((name, spec),) = self.layout.items()
        self.windows_state = handle.getMapState(name, spec["key"], spec["value"])
        self.core = self.CORE(self.params)

    def decode(self, stored: tuple) -> Any:
        raise NotImplementedError

    def encode(self, value: Any) -> tuple:
        raise NotImplementedError

    def _run(self, rows, watermark: int, firing: Optional[int]) -> Iterator:
        registered = set(self.handle.listTimers())
        if firing is not None:
            registered.add(firing)
        windows = {int(plain(key)[0]): self.decode(value)
                   for key, value in self.windows_state.iterator()}
        timers = {timer_window_end(timer, windows.__contains__) for timer in registered}
        dirty: set = set()
        out: list[Output] = []
        self.core.fire_due(windows, timers, dirty, watermark, out)
        if rows:
            self.core.process(windows, timers, dirty, rows, watermark)
        for end in dirty:
            if end in windows:
                self.windows_state.updateValue((end,), self.encode(windows[end]))
            else:
                self.windows_state.removeKey((end,))
        rearm_window_timers(self.handle, timers, registered, firing)
        return emitted(out, self.output_names)

