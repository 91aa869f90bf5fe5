"""The SESSION window table function, as a transformWithState processor.

Flink runs `SESSION(TABLE t [PARTITION BY k], DESCRIPTOR(ts), gap)` whose sessions no window
aggregate consumes in `UnalignedWindowTableFunctionOperator` (a SESSION is a set-semantics
window: a row's window is known only when its session closes). Per key (the partition keys;
without PARTITION BY one key for the whole stream):

* `processElement`: a row with a NULL time attribute is dropped; every other row takes the
  next number of the key's counter (`session-window-tvf-counter`, also when it turns out
  late), then opens the window [ts, ts + gap) that is merged with the key's in-flight windows
  (`MergingWindowProcessFunction.assignStateNamespace` over Flink's `MergingWindowSet`, the
  session window aggregate's `MergingWindowSet` here). The row is kept under its session's
  state window (`session-window-tvf-acc`: state window -> counter -> row); when sessions
  merge, the rows of the merged state windows are copied into the kept one (`MergingConsumer.
  accept`). A row whose (merged) window has already fired is late (`isWindowLate`) and
  dropped, its window retired at once;
* `onEventTime` (the timer at the window's end - 1): `emitWindowResult` emits the session's
  rows in counter order (the order they arrived in), each with its row kind and
  window_start, window_end, window_time (end - 1) appended, then `cleanWindowIfNeeded`
  clears the window, its state window and its mapping entry. Nothing is compacted.

Timers are the window aggregate's (`window_timers`: a window's Spark timer is its end - 2,
or end - 1 once that one fired early), and each call first fires the key's windows due at the
current watermark, as `runtime/session_window_aggregate.py` does. Flink's node declares no
state TTL, nor does this one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional

from ..changelog import RowKind
from ..errors import ExecutionError
from .batch_rows import Output, emitted, plain
from .processor import Processor
from .session_window_aggregate import SESSION_WINDOW_MAPPING, MergingWindowSet, Window, window_of
from .timestamps import to_millis
from .window_buffer import WatermarkCalls
from .window_aggregate import (WINDOW_END, WINDOW_START, WINDOW_TIME, fired,
                               rearm_window_timers, window_properties)

SESSION_WINDOW_TVF_COUNTER = "session-window-tvf-counter"
SESSION_WINDOW_TVF_ACC = "session-window-tvf-acc"
_PROPERTIES = (WINDOW_START, WINDOW_END, WINDOW_TIME)


@dataclass(frozen=True)
class SessionWindowTvfParams:
    gap: int                           # ms
    rowtime_index: int


@dataclass
class SessionRows:
    """One key's state: `mapping` (in-flight window -> state window), `rows` (state window ->
    counter -> (row kind, row)) and the counter, changed in place."""

    mapping: dict = field(default_factory=dict)
    rows: dict = field(default_factory=dict)
    counter: int = 0


class SessionWindowTvfCore:
    """UnalignedWindowTableFunctionOperator for one key (event time)."""

    def __init__(self, params: SessionWindowTvfParams):
        self.p = params

    def process(self, state: SessionRows, kind: RowKind, row: tuple, watermark: int) -> bool:
        """processElement: one input row; False when it is dropped (a NULL time, or late)."""
        time = row[self.p.rowtime_index]
        if time is None:                   # "null timestamp would be dropped"
            return False
        timestamp = to_millis(time)
        order = state.counter
        state.counter += 1
        windows = MergingWindowSet(state.mapping)

        def merge(result: Window, merged: set, state_window: Window,
                  state_windows: list) -> None:
            """MergingFunctionImpl.merge with the operator's MergingConsumer: the merged state
            windows' rows go into the kept state window, and their state is cleared."""
            if fired(result[1], watermark):
                raise ExecutionError(
                    f"session window table function: the end of an event-time window cannot "
                    f"become earlier than the current watermark by merging (watermark "
                    f"{watermark}, window {result})")
            kept = state.rows.setdefault(state_window, {})
            for window in state_windows:
                kept.update(state.rows.pop(window, {}))

        actual = windows.add_window((timestamp, timestamp + self.p.gap), merge)
        if fired(actual[1], watermark):    # isWindowLate: dropped
            windows.retire_window(actual)
            return False
        state.rows.setdefault(windows.state_window(actual), {})[order] = (kind, row)
        return True

    def fire_due(self, state: SessionRows, watermark: int, out: list[Output]) -> None:
        """The timers the watermark reached, in time order: emitWindowResult (the rows in
        counter order), then cleanWindowIfNeeded."""
        for window in sorted((w for w in state.mapping if fired(w[1], watermark)),
                             key=lambda w: (w[1], w[0])):
            kept = state.rows.pop(state.mapping.pop(window), {})
            properties = window_properties(_PROPERTIES, *window)
            for order in sorted(kept):
                kind, row = kept[order]
                out.append((kind.code, tuple(row) + properties))


# --- the Spark side ---------------------------------------------------------------------------

_WINDOW_DDL = "windowStart BIGINT, windowEnd BIGINT"


def state_layout(params: SessionWindowTvfParams, row_ddl: str,
                 grouping_ddl: str) -> dict[str, dict[str, str]]:
    """Flink's three states, keyed by `grouping_ddl` (the partition keys, or the one global
    key): the counter, the rows per (state window, counter) with their row kind, and the
    `session-window-mapping`; the key's event-time timers at each in-flight window's end - 2."""
    return {SESSION_WINDOW_TVF_COUNTER: {"kind": "value", "value": "counter BIGINT",
                                         "grouping": grouping_ddl},
            SESSION_WINDOW_TVF_ACC: {"kind": "map", "key": f"{_WINDOW_DDL}, counter BIGINT",
                                     "value": f"kind TINYINT, row STRUCT<{row_ddl}>",
                                     "grouping": grouping_ddl,
                                     "timers": "event time, in-flight session window end - 2"},
            SESSION_WINDOW_MAPPING: {"kind": "map", "key": _WINDOW_DDL,
                                     "value": "stateWindowStart BIGINT, stateWindowEnd BIGINT",
                                     "grouping": grouping_ddl}}


class SessionWindowTvfProcessor(WatermarkCalls, Processor):
    """Loads a key's sessions and rows, fires what is due, runs the rows, writes back what
    changed."""

    def init(self, handle) -> None:
        self.handle = handle
        counter, acc, mapping = (self.layout[name] for name in (
            SESSION_WINDOW_TVF_COUNTER, SESSION_WINDOW_TVF_ACC, SESSION_WINDOW_MAPPING))
        self.counter_state = handle.getValueState(SESSION_WINDOW_TVF_COUNTER, counter["value"])
        self.acc_state = handle.getMapState(SESSION_WINDOW_TVF_ACC, acc["key"], acc["value"])
        self.mapping_state = handle.getMapState(SESSION_WINDOW_MAPPING, mapping["key"],
                                                mapping["value"])
        self.core = SessionWindowTvfCore(self.params)

    def _load(self) -> tuple[SessionRows, dict, set]:
        stored = self.counter_state.get()
        state = SessionRows(counter=int(stored[0]) if stored is not None else 0)
        state.mapping = {window_of(k): window_of(v) for k, v in self.mapping_state.iterator()}
        entries = set()
        for key, value in self.acc_state.iterator():
            start, end, order = (int(part) for part in plain(key))
            kind, row = plain(value)
            state.rows.setdefault((start, end), {})[order] = (RowKind.from_code(kind), plain(row))
            entries.add((start, end, order))
        return state, dict(state.mapping), entries

    def _run(self, rows, watermark: int, firing: Optional[int]) -> Iterator:
        state, loaded_mapping, loaded_entries = self._load()
        loaded_counter = state.counter
        out: list[Output] = []
        self.core.fire_due(state, watermark, out)
        for kind, row in rows:
            self.core.process(state, kind, row, watermark)
        if state.counter != loaded_counter:
            self.counter_state.update((state.counter,))
        entries = {(*window, order): value for window, kept in state.rows.items()
                   for order, value in kept.items()}
        for entry in loaded_entries - entries.keys():
            self.acc_state.removeKey(entry)
        for entry in entries.keys() - loaded_entries:
            kind, row = entries[entry]
            self.acc_state.updateValue(entry, (kind.code, tuple(row)))
        for window in loaded_mapping.keys() - state.mapping.keys():
            self.mapping_state.removeKey(window)
        for window, state_window in state.mapping.items():
            if loaded_mapping.get(window) != state_window:
                self.mapping_state.updateValue(window, state_window)
        registered = set(self.handle.listTimers())
        rearm_window_timers(self.handle, {end for _, end in state.mapping}, registered, firing)
        return emitted(out, self.output_names)


def processor_class(params: SessionWindowTvfParams) -> type:
    return SessionWindowTvfProcessor
