"""Temporal sort: `ORDER BY rowtime[, other columns]` in a streaming query (Flink's
StreamExecTemporalSort running RowTimeSortOperator), as a transformWithState processor
under one constant key.

`RowTimeSortCore` follows RowTimeSortOperator on plain state (`SortState`), so it is
unit-testable without Spark:

- `process` (processElement): a row whose time is after the last fired time is kept with the
  rows of its time (`dataState`), and a new time gets an event-time timer; a row at or before
  the last fired time is late and dropped;
- `fire` (onEventTime): the rows of the timer's time, sorted by the other ORDER BY columns
  (stable, as Java's List.sort), are emitted, dropped from the state, and the time becomes
  the last fired one (`lastTriggeringTsState`).

A sort on the processing-time attribute alone forwards its rows (Flink's createSortProcTime
with one sort field): no processor at all.

Timers: Flink fires every timer <= watermark before the next row arrives; Spark runs a
batch's input rows before its expired timers. So each call first fires the times due at the
current watermark, in ascending order, which makes the order Flink's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Iterator, Optional

from ..changelog import RowKind
from .batch_rows import Output, emitted, plain, rows_of
from .processor import Processor
from .rank.top_n import SortField, compare_sort_keys
from .timestamps import to_millis


@dataclass(frozen=True)
class TemporalSortParams:
    rowtime_index: int
    secondary: tuple[SortField, ...] = ()     # the other ORDER BY columns: (index, asc, nulls first)


@dataclass
class SortState:
    """The rows waiting per time, the last fired time, and what changed since loading."""

    data: dict[int, list[tuple]] = field(default_factory=dict)
    last_triggering: Optional[int] = None
    put: set[int] = field(default_factory=set)
    removed: set[int] = field(default_factory=set)
    new_timers: set[int] = field(default_factory=set)
    last_dirty: bool = False


class RowTimeSortCore:
    """Flink's RowTimeSortOperator."""

    def __init__(self, params: TemporalSortParams):
        self.p = params
        self._key = cmp_to_key(lambda a, b: compare_sort_keys(
            params.secondary, tuple(a[i] for i, _, _ in params.secondary),
            tuple(b[i] for i, _, _ in params.secondary)))

    def process(self, state: SortState, row: tuple) -> None:
        time = to_millis(row[self.p.rowtime_index])
        if state.last_triggering is not None and time <= state.last_triggering:
            return                                   # late: dropped
        rows = state.data.get(time)
        if rows is None:
            state.data[time] = [row]
            state.new_timers.add(time)
        else:
            rows.append(row)
        state.put.add(time)
        state.removed.discard(time)

    def fire(self, state: SortState, time: int, out: list[Output]) -> None:
        rows = state.data.pop(time, None)
        if rows is None:
            return
        if self.p.secondary:
            rows = sorted(rows, key=self._key)
        out.extend((RowKind.INSERT.code, row) for row in rows)
        state.put.discard(time)
        state.removed.add(time)
        state.new_timers.discard(time)
        state.last_triggering = time
        state.last_dirty = True

    def fire_due(self, state: SortState, watermark: int, out: list[Output]) -> list[int]:
        """Every time <= the watermark, ascending; returns the times fired."""
        due = sorted(time for time in state.data if time <= watermark)
        for time in due:
            self.fire(state, time, out)
        return due


# --- the Spark side ---------------------------------------------------------------------------

DATA_STATE, LAST_TRIGGERING_STATE = "dataState", "lastTriggeringTsState"


def state_layout(params: TemporalSortParams, row_ddl: str) -> dict[str, dict[str, str]]:
    """RowTimeSortOperator's two states (Flink's names) and their schemas."""
    return {DATA_STATE: {"kind": "map", "key": "time BIGINT",
                         "value": f"rows ARRAY<STRUCT<{row_ddl}>>"},
            LAST_TRIGGERING_STATE: {"kind": "value", "value": "time BIGINT"}}


class RowTimeSortProcessor(Processor):
    """The sort's state read once per call, the core run, the changes written back."""

    def init(self, handle) -> None:
        self.handle = handle
        spec = self.layout
        self.data = handle.getMapState(DATA_STATE, spec[DATA_STATE]["key"],
                                       spec[DATA_STATE]["value"])
        self.last = handle.getValueState(LAST_TRIGGERING_STATE,
                                         spec[LAST_TRIGGERING_STATE]["value"])
        self.core = RowTimeSortCore(self.params)

    def _load(self) -> SortState:
        stored = self.last.get()
        return SortState(data={key[0]: [plain(row) for row in value[0]]
                               for key, value in self.data.iterator()},
                         last_triggering=None if stored is None else stored[0])

    def _store(self, state: SortState) -> None:
        for time in state.removed:
            self.data.removeKey((time,))
        for time in state.put:
            self.data.updateValue((time,), (state.data[time],))
        if state.last_dirty:
            self.last.update((state.last_triggering,))
        for time in sorted(state.new_timers):
            self.handle.registerTimer(time)

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        state = self._load()
        out: list[Output] = []
        for time in self.core.fire_due(state, timerValues.getCurrentWatermarkInMs(), out):
            self.handle.deleteTimer(time)           # fired here, before this batch's rows
        for _, row in rows_of(rows, self.input_names):
            self.core.process(state, row)
        self._store(state)
        return iter(list(emitted(out, self.output_names)))

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator:
        state = self._load()
        out: list[Output] = []
        self.core.fire(state, expiredTimerInfo.getExpiryTimeInMs(), out)
        self._store(state)
        return iter(list(emitted(out, self.output_names)))


def processor_class(params: TemporalSortParams) -> type[Processor]:
    return RowTimeSortProcessor
