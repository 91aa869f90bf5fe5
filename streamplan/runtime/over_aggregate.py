"""Over aggregation (`agg(...) OVER (PARTITION BY k ORDER BY <time attribute> ROWS|RANGE
BETWEEN n PRECEDING|UNBOUNDED PRECEDING AND CURRENT ROW)`, and `ORDER BY <other column>
ROWS|RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW`), as transformWithState processors.

`OverAggCore` follows the process functions Flink's StreamExecOverAggregate picks
(flink-table-runtime, operators/over), one function per key, row by row and timer by timer:

* event time, unbounded (AbstractRowTimeUnboundedPrecedingOver.processElement / onTimer): a row
  whose row time is above the watermark waits in `inputState` under its row time with an
  event-time timer at watermark + 1 (at 0 while the watermark is below 0); a row at or behind
  the watermark is dropped. The timer takes the waiting row times at or below the watermark in
  order; the rest wait for the next watermark (a timer at watermark + 1). Per row time:
  - RowTimeRowsUnboundedPrecedingFunction.processElementsWithSameTimestampRows: accumulate and
    emit row by row;
  - RowTimeRangeUnboundedPrecedingFunction.processElementsWithSameTimestamp: accumulate every
    row of the row time, then emit them all with the same value.
* event time, bounded: rows wait under their row time with a timer at it; a row at or below
  the last fired row time (`lastTriggeringTsState`, 0 before any) is dropped, whatever the
  watermark.
  - RowTimeRowsBoundedPrecedingFunction.onTimer: per row, once `processedCountState` reached
    the offset (n + 1 rows for n PRECEDING), retract the oldest waiting row (the smallest row
    time's list, front first), accumulate, emit;
  - RowTimeRangeBoundedPrecedingFunction.onTimer: retract the rows whose row time is more than
    the offset before the timer's, accumulate the timer's rows, emit them with one value; its
    own event-time cleanup timer (`cleanupTsState`, row time + 1.5 offset + 1, registered when
    the current one is below row time + offset + 1) clears the key.
* processing time:
  - ProcTimeUnboundedPrecedingFunction.processElement: accumulate, emit (state TTL on the
    accumulators, Spark's processing-time TTL);
  - ProcTimeRowsBoundedPrecedingFunction.processElement: rows kept under their arrival time,
    the oldest (`smallestTSState`) retracted once `processedCountState` reached the offset;
  - ProcTimeRangeBoundedPrecedingFunction: rows wait under their arrival time with a
    processing-time timer at time + 1, which retracts the rows older than time - offset,
    accumulates the time's rows and emits them with one value; cleanup as the event-time range.

State retention (KeyedProcessFunctionWithCleanupState.registerProcessingCleanupTimer, the
functions above that take a min/max retention time: `table.exec.state.ttl` and 1.5 times it):
every row and event-time timer moves the key's cleanup time to now + max retention when now +
min retention passes it; when it comes, the key's state is cleared (the event-time unbounded
function and the event-time rows function only once no row waits; the processing-time rows
function always). Spark has no processing-time timers in event-time mode, so the cleanup time
is kept in state and applied when the key is next read (what the timer would have done then:
nothing else touched the key in between).

Accumulators are the group aggregate's (runtime/group_aggregate.py: COUNT, SUM, MIN, MAX, AVG,
DISTINCT, FILTER), which retract exactly, as the bounded functions need.

`NonTimeOverCore` and `NonTimeRowsOverCore` are the eighth and ninth functions,
NonTimeRangeUnboundedPrecedingFunction and NonTimeRowsUnboundedPrecedingFunction (Flink 2.1+,
the ORDER BY column no time attribute; flink-table-runtime 2.3, with their base
AbstractNonTimeUnboundedPrecedingOver, `NonTimeUnboundedOverCore`): no timers; every row of
the partition kept under an id, the sort keys in order with their ids, the accumulators up to
each sort key (RANGE: its rows share one value) or each row (ROWS). Its input may be a
changelog: a new row emits its value (+I, or +U for an update's new row) and -U/+U for the
later rows whose aggregate changed; a retracted row emits -D with its old value and the same
updates. Its four states have state TTL (`NonTimeOverProcessor`).
"""
from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field
from typing import Iterator, Optional

from ..changelog import RowKind
from ..errors import ExecutionError, NotInsertOnlyError
from .batch_rows import Output, emitted, plain, rows_of
from .group_aggregate import (AVG, COUNT, MAX, MIN, SUM, UDAF, AggCall, Accumulators, _apply,
                              _decode, _encode, _initial, _result, call_value, udaf_to_state)
from .processor import Processor
from .rank.top_n import SortField, compare_sort_keys
from .state_ttl import spark_ttl_ms
from .timestamps import to_millis

# Flink's process functions (operators/over)
ROWTIME_ROWS_UNBOUNDED = "RowTimeRowsUnboundedPrecedingFunction"
ROWTIME_RANGE_UNBOUNDED = "RowTimeRangeUnboundedPrecedingFunction"
ROWTIME_ROWS_BOUNDED = "RowTimeRowsBoundedPrecedingFunction"
ROWTIME_RANGE_BOUNDED = "RowTimeRangeBoundedPrecedingFunction"
PROCTIME_UNBOUNDED = "ProcTimeUnboundedPrecedingFunction"
PROCTIME_ROWS_BOUNDED = "ProcTimeRowsBoundedPrecedingFunction"
PROCTIME_RANGE_BOUNDED = "ProcTimeRangeBoundedPrecedingFunction"
NON_TIME_RANGE_UNBOUNDED = "NonTimeRangeUnboundedPrecedingFunction"
NON_TIME_ROWS_UNBOUNDED = "NonTimeRowsUnboundedPrecedingFunction"
NON_TIME = (NON_TIME_RANGE_UNBOUNDED, NON_TIME_ROWS_UNBOUNDED)

# Flink's state names
ACC_STATE = "accState"
INPUT_STATE = "inputState"
LAST_TRIGGERING_TS = "lastTriggeringTsState"
PROCESSED_COUNT = "processedCountState"
SMALLEST_TS = "smallestTSState"
CLEANUP_TS = "cleanupTsState"
CLEANUP_TIME = {ROWTIME_ROWS_UNBOUNDED: "RowTimeUnboundedOverCleanupTime",
                ROWTIME_RANGE_UNBOUNDED: "RowTimeUnboundedOverCleanupTime",
                ROWTIME_ROWS_BOUNDED: "RowTimeBoundedRowsOverCleanupTime",
                PROCTIME_ROWS_BOUNDED: "ProcTimeBoundedRowsOverCleanupTime"}

# The value states of each function besides accState and inputState, as OverState attributes.
_VALUE_STATES = {
    ROWTIME_ROWS_UNBOUNDED: {},
    ROWTIME_RANGE_UNBOUNDED: {},
    ROWTIME_ROWS_BOUNDED: {LAST_TRIGGERING_TS: "last_triggering_ts",
                           PROCESSED_COUNT: "counter"},
    ROWTIME_RANGE_BOUNDED: {LAST_TRIGGERING_TS: "last_triggering_ts", CLEANUP_TS: "cleanup_ts"},
    PROCTIME_UNBOUNDED: {},
    PROCTIME_ROWS_BOUNDED: {PROCESSED_COUNT: "counter", SMALLEST_TS: "smallest_ts"},
    PROCTIME_RANGE_BOUNDED: {CLEANUP_TS: "cleanup_ts"},
}


def function_of(rowtime: bool, rows: bool, preceding: Optional[int],
                non_time: bool = False) -> str:
    """StreamExecOverAggregate.createUnboundedOverProcessFunction / createBoundedOverProcessFunction
    (its TimeAttribute: ROW_TIME, PROC_TIME or NON_TIME, the ORDER BY column's type)."""
    if non_time:
        if preceding is not None:         # Flink's TableException at translation
            raise ValueError("Non-time attribute sort is not supported for bounded OVER window.")
        return NON_TIME_ROWS_UNBOUNDED if rows else NON_TIME_RANGE_UNBOUNDED
    if preceding is None:
        if not rowtime:
            return PROCTIME_UNBOUNDED
        return ROWTIME_ROWS_UNBOUNDED if rows else ROWTIME_RANGE_UNBOUNDED
    if rowtime:
        return ROWTIME_ROWS_BOUNDED if rows else ROWTIME_RANGE_BOUNDED
    return PROCTIME_ROWS_BOUNDED if rows else PROCTIME_RANGE_BOUNDED


@dataclass(frozen=True)
class OverAggParams:
    """`preceding`: Flink's precedingOffset (n + 1 rows for ROWS n PRECEDING, n ms for RANGE
    INTERVAL n PRECEDING), None when unbounded; `ttl_ms`: table.exec.state.ttl (the min
    retention; the max is 1.5 times it); `sort_key`: the ORDER BY column when it is no time
    attribute, as the rank's sort keys (index, ascending, NULLs first), else None."""

    calls: tuple[AggCall, ...]
    rowtime_index: Optional[int]          # None: processing time (or no time: `sort_key`)
    rows: bool                            # ROWS (True) or RANGE
    preceding: Optional[int] = None
    ttl_ms: int = 0
    sort_key: Optional[SortField] = None

    @property
    def function(self) -> str:
        return function_of(self.rowtime_index is not None, self.rows, self.preceding,
                           self.sort_key is not None)

    @property
    def is_rowtime(self) -> bool:
        return self.rowtime_index is not None

    @property
    def retention(self) -> tuple[int, int]:
        """(min, max) retention: TableConfigUtils.getMaxIdleStateRetentionTime is 1.5 x min."""
        return self.ttl_ms, self.ttl_ms * 3 // 2


@dataclass
class OverState:
    """One key's state: the accumulators, the rows by time (`inputState`), the function's
    value states, its pending timers (event time for row time, processing time else) and the
    state-retention cleanup time."""

    acc: Optional[Accumulators] = None
    rows: dict[int, list[tuple]] = field(default_factory=dict)
    last_triggering_ts: Optional[int] = None
    counter: Optional[int] = None
    smallest_ts: Optional[int] = None
    cleanup_ts: Optional[int] = None
    cleanup_time: Optional[int] = None
    timers: set[int] = field(default_factory=set)

    def clear(self) -> None:
        timers = self.timers
        self.__init__()
        self.timers = timers               # Flink's cleanup leaves registered timers


class AggsHandle:
    """The generated AggsHandleFunction of the over functions: accumulators of the calls."""

    def __init__(self, params: OverAggParams):
        self.p = params

    def create(self) -> Accumulators:
        return Accumulators(0, [_initial(call) for call in self.p.calls])

    def _change(self, acc: Accumulators, row: tuple, sign: int) -> None:
        acc.row_count += sign
        for index, call in enumerate(self.p.calls):
            if call.takes(row):
                acc.values[index] = _apply(call, acc.values[index], call_value(call, row), sign)

    def accumulate(self, acc: Accumulators, row: tuple) -> None:
        self._change(acc, row, 1)

    def retract(self, acc: Accumulators, row: tuple) -> None:
        self._change(acc, row, -1)

    def value(self, acc: Accumulators) -> tuple:
        return tuple(_result(call, value) for call, value in zip(self.p.calls, acc.values))


class OverAggCore(AggsHandle):
    """Flink's time-attribute over process functions for one key (see the module docstring)."""

    def __init__(self, params: OverAggParams):
        super().__init__(params)
        self.function = params.function
        self.cleaning = params.ttl_ms > 1 and self.function in CLEANUP_TIME
        self.late_dropped = 0              # Flink's numLateRecordsDropped

    def _acc(self, state: OverState) -> Accumulators:
        if state.acc is None:
            state.acc = self.create()
        return state.acc

    # --- one call: due timers, then the rows -----------------------------------------------
    def run(self, state: OverState, rows: list[tuple[RowKind, tuple]], watermark: int, now: int,
            out: list[Output], until: Optional[int] = None) -> None:
        """What Flink does for the key up to now: the cleanup timer if it came, the timers the
        watermark (event time) or the clock (processing time) reached, in time order (only
        those up to `until` when given), then the rows in arrival order."""
        self._retention_due(state, now)
        due = watermark if self.p.is_rowtime else now
        self.fire_due(state, due if until is None else min(due, until), watermark, now, out)
        for kind, row in rows:
            if kind is not RowKind.INSERT:
                raise NotInsertOnlyError(
                    f"over aggregate: a {kind.short} row reached it; its input must be "
                    f"insert-only ({self.function})")
            self.process(state, row, watermark, now, out)

    def fire_due(self, state: OverState, time: int, watermark: int, now: int,
                 out: list[Output]) -> None:
        while state.timers:
            timer = min(state.timers)
            if timer > time:
                return
            state.timers.discard(timer)
            self.on_timer(state, timer, watermark, now, out)

    # --- processElement --------------------------------------------------------------------
    def process(self, state: OverState, row: tuple, watermark: int, now: int,
                out: list[Output]) -> None:
        f = self.function
        if f == PROCTIME_UNBOUNDED:
            acc = self._acc(state)
            self.accumulate(acc, row)
            out.append((RowKind.INSERT.code, row + self.value(acc)))
            return
        if f == PROCTIME_ROWS_BOUNDED:
            self._proctime_rows_bounded(state, row, now, out)
            return
        if f == PROCTIME_RANGE_BOUNDED:
            if now not in state.rows:
                state.rows[now] = []
                state.timers.add(now + 1)
                self._register_cleanup_ts(state, now)
            state.rows[now].append(row)
            return
        self._register_retention(state, now)
        ts = self._rowtime(row)
        if f in (ROWTIME_ROWS_UNBOUNDED, ROWTIME_RANGE_UNBOUNDED):
            if ts > watermark:
                state.timers.add(0 if watermark < 0 else watermark + 1)
                state.rows.setdefault(ts, []).append(row)
            else:
                self.late_dropped += 1
            return
        last = state.last_triggering_ts or 0
        if ts > last:
            if ts not in state.rows:
                state.rows[ts] = []
                state.timers.add(ts)
            state.rows[ts].append(row)
            if f == ROWTIME_RANGE_BOUNDED:
                self._register_cleanup_ts(state, ts)
        else:
            self.late_dropped += 1

    def _rowtime(self, row: tuple) -> int:
        value = row[self.p.rowtime_index]
        if value is None:
            raise ExecutionError("over aggregate: a row with a NULL row time")
        return to_millis(value)

    # ProcTimeRowsBoundedPrecedingFunction.processElement
    def _proctime_rows_bounded(self, state: OverState, row: tuple, now: int,
                               out: list[Output]) -> None:
        self._register_retention(state, now)
        acc = self._acc(state)
        if state.smallest_ts is None:
            state.smallest_ts = now
        counter = state.counter or 0
        if counter == self.p.preceding:
            retract_list = state.rows.get(state.smallest_ts)
            if retract_list is not None:
                self.retract(acc, retract_list.pop(0))
            if not retract_list:        # none left at the smallest time: find the next
                state.rows.pop(state.smallest_ts, None)
                state.smallest_ts = min(state.rows, default=2 ** 63 - 1)
        else:
            state.counter = counter + 1
        state.rows.setdefault(now, []).append(row)
        self.accumulate(acc, row)
        out.append((RowKind.INSERT.code, row + self.value(acc)))

    # --- onTimer ---------------------------------------------------------------------------
    def on_timer(self, state: OverState, timestamp: int, watermark: int, now: int,
                 out: list[Output]) -> None:
        f = self.function
        if f in (ROWTIME_ROWS_UNBOUNDED, ROWTIME_RANGE_UNBOUNDED):
            self._rowtime_unbounded_timer(state, watermark, now, out)
        elif f == ROWTIME_ROWS_BOUNDED:
            self._rowtime_rows_bounded_timer(state, timestamp, now, out)
        elif f in (ROWTIME_RANGE_BOUNDED, PROCTIME_RANGE_BOUNDED):
            self._range_bounded_timer(state, timestamp, out)

    # AbstractRowTimeUnboundedPrecedingOver.onTimer (event time)
    def _rowtime_unbounded_timer(self, state: OverState, watermark: int, now: int,
                                 out: list[Output]) -> None:
        if state.rows:
            due = sorted(ts for ts in state.rows if ts <= watermark)
            early = len(due) < len(state.rows)
            acc = self._acc(state)
            for ts in due:
                same = state.rows.pop(ts)
                if self.function == ROWTIME_ROWS_UNBOUNDED:
                    for row in same:
                        self.accumulate(acc, row)
                        out.append((RowKind.INSERT.code, row + self.value(acc)))
                else:
                    for row in same:
                        self.accumulate(acc, row)
                    value = self.value(acc)
                    out.extend((RowKind.INSERT.code, row + value) for row in same)
            if early:
                state.timers.add(watermark + 1)
        self._register_retention(state, now)

    # RowTimeRowsBoundedPrecedingFunction.onTimer (event time)
    def _rowtime_rows_bounded_timer(self, state: OverState, timestamp: int, now: int,
                                    out: list[Output]) -> None:
        inputs = state.rows.get(timestamp)
        if inputs is not None:
            count = state.counter or 0
            acc = self._acc(state)
            retract_ts, retract_list, retract_cnt = None, None, 0
            for row in inputs:
                retract_row = None
                if count >= self.p.preceding:
                    if retract_list is None:
                        retract_ts = min(state.rows)
                        retract_list = state.rows[retract_ts]
                    retract_row = retract_list[retract_cnt]
                    retract_cnt += 1
                    if len(retract_list) == retract_cnt:
                        del state.rows[retract_ts]
                        retract_list, retract_cnt = None, 0
                else:
                    count += 1
                if retract_row is not None:
                    self.retract(acc, retract_row)
                self.accumulate(acc, row)
                out.append((RowKind.INSERT.code, row + self.value(acc)))
            if retract_ts in state.rows and retract_cnt > 0:
                state.rows[retract_ts] = retract_list[retract_cnt:]
            state.counter = count
        state.last_triggering_ts = timestamp
        self._register_retention(state, now)

    # RowTimeRangeBoundedPrecedingFunction.onTimer / ProcTimeRangeBoundedPrecedingFunction.onTimer
    def _range_bounded_timer(self, state: OverState, timestamp: int, out: list[Output]) -> None:
        if state.cleanup_ts is not None and state.cleanup_ts <= timestamp:
            state.clear()
            return
        proctime = self.function == PROCTIME_RANGE_BOUNDED
        current = timestamp - 1 if proctime else timestamp
        inputs = state.rows.get(current)
        if inputs is None:
            if not proctime:
                state.last_triggering_ts = timestamp
            return
        acc = self._acc(state)
        if proctime:              # rows older than current - offset
            expired = [ts for ts in state.rows if ts < current - self.p.preceding]
        else:                     # rows more than offset before the timer
            expired = [ts for ts in state.rows if timestamp - ts > self.p.preceding]
        for ts in expired:
            for row in state.rows[ts]:
                self.retract(acc, row)
        for row in inputs:
            self.accumulate(acc, row)
        value = self.value(acc)
        out.extend((RowKind.INSERT.code, row + value) for row in inputs)
        for ts in expired:
            del state.rows[ts]
        if not proctime:
            state.last_triggering_ts = timestamp

    def _register_cleanup_ts(self, state: OverState, timestamp: int) -> None:
        """registerCleanupTimer of the range-bounded functions."""
        offset = self.p.preceding
        minimum = timestamp + offset + 1
        maximum = timestamp + int(offset * 1.5) + 1
        if state.cleanup_ts is None or state.cleanup_ts < minimum:
            state.timers.add(maximum)
            state.cleanup_ts = maximum

    # --- state retention (KeyedProcessFunctionWithCleanupState) ----------------------------
    def _register_retention(self, state: OverState, now: int) -> None:
        """CleanupState.registerProcessingCleanupTimer."""
        if not self.cleaning:
            return
        minimum, maximum = self.p.retention
        if state.cleanup_time is None or now + minimum > state.cleanup_time:
            state.cleanup_time = now + maximum

    def _retention_due(self, state: OverState, now: int) -> None:
        """The processing-time cleanup timer, if it came before `now` (onTimer, processing
        time), with the time it fired at."""
        if not self.cleaning or state.cleanup_time is None or state.cleanup_time > now:
            return
        fired_at = state.cleanup_time
        f = self.function
        if f == PROCTIME_ROWS_BOUNDED:
            waiting = False
        elif f == ROWTIME_ROWS_BOUNDED:
            last = state.last_triggering_ts or 0
            waiting = any(ts > last for ts in state.rows)
        else:
            waiting = bool(state.rows)
        if waiting:                     # rows wait for a watermark: keep, look again later
            state.cleanup_time = None
            self._register_retention(state, fired_at)
        else:
            state.clear()


# --- the non-time ORDER BY (NonTimeRangeUnboundedPrecedingFunction) ---------------------------

MIN_ID = -2 ** 63                          # Long.MIN_VALUE, the first id (getNextId)
# The row kind a removed row is retracted with (sendUpdateForChangedRow: collectDelete)
RETRACTED_ROW_KIND = RowKind.DELETE
# Flink's state names (AbstractNonTimeUnboundedPrecedingOver.open)
ID_STATE = "idState"
SORTED_LIST_STATE = "sortedListState"
VALUE_MAP_STATE = "valueMapState"
ACC_MAP_STATE = "accMapState"


@dataclass
class NonTimeState:
    """One partition's state, Flink's four states: the next id (`idState`), the sort keys in
    order with the ids of their rows in arrival order (`sortedListState`), the row of each id
    (`valueMapState`) and the accumulators up to and including each sort key (RANGE) or row
    (ROWS: under its id) (`accMapState`). `written_accs` / `list_written` record what Flink writes (each write
    renews the entry's TTL)."""

    next_id: Optional[int] = None
    sorted_list: list[tuple[tuple, list[int]]] = field(default_factory=list)
    values: dict[int, tuple] = field(default_factory=dict)
    accs: dict[object, Accumulators] = field(default_factory=dict)
    written_accs: set[object] = field(default_factory=set)
    list_written: bool = False


def flink_accumulator(call: AggCall, acc) -> object:
    """What Flink's accumulators of one call hold in an unbounded over aggregate (no
    retraction), which NonTimeRangeUnboundedPrecedingFunction compares (`prevAcc.equals(
    currAcc)`): Calcite plans SUM(x) OVER as COUNT(x) and $SUM0(x) (AVG likewise), so the
    non-NULL values' sum and count; Min/MaxAggFunction the value; a count its count; a
    DISTINCT call its inner accumulators over the distinct values; a user-defined aggregate
    function its accumulator as its declared ACCUMULATOR_TYPE holds it (Flink compares the
    accumulator's row)."""
    if call.function == UDAF:
        return udaf_to_state(call, acc)
    if call.keeps_values:
        if call.function in (MIN, MAX):
            return _result(call, acc)
        present = sorted(value for value, count in acc.items() if count > 0)
        if call.function == COUNT:
            return len(present)
        return (sum(present) if present else None, len(present))
    if call.function in (SUM, AVG):
        return tuple(acc)
    return acc


class NonTimeUnboundedOverCore(AggsHandle):
    """Flink's AbstractNonTimeUnboundedPrecedingOver for one partition key, row by row
    (`process`, Flink's processElement): +I/+U rows go into the sorted list
    (insertIntoSortedList), -U/-D rows come out of it (removeFromSortedList); the row's own
    result is emitted, then -U/+U for every later row whose aggregate changed
    (processRemainingElements), stopping at the first whose accumulators did not change. The
    frame's functions say where the accumulators are kept and which rows share a value:
    `NonTimeOverCore` (RANGE), `NonTimeRowsOverCore` (ROWS). As Flink's, the state is no
    cleanup timer but state TTL on each of the four states."""

    def __init__(self, params: OverAggParams):
        super().__init__(params)
        self.sort_key = params.sort_key
        self.sort_keys_not_found = 0       # Flink's numOfSortKeysNotFound
        self.ids_not_found = 0             # Flink's numOfIdsNotFound

    def process(self, state: NonTimeState, kind: RowKind, row: tuple, out: list[Output]) -> None:
        """processElement: INSERT / UPDATE_AFTER insert, DELETE / UPDATE_BEFORE remove."""
        if kind.is_accumulate:
            self.insert_into_sorted_list(state, kind, row, out)
        else:
            self.remove_from_sorted_list(state, row, out)

    def insert_into_sorted_list(self, state: NonTimeState, kind: RowKind, row: tuple,
                                out: list[Output]) -> None:
        raise NotImplementedError

    def remove_from_sorted_list(self, state: NonTimeState, row: tuple,
                                out: list[Output]) -> None:
        raise NotImplementedError

    def send_updates_for_ids(self, state: NonTimeState, ids: list[int], changed: int,
                             kind: RowKind, changed_row: tuple, before: tuple, after: tuple,
                             out: list[Output]) -> None:
        raise NotImplementedError

    # --- helpers of AbstractNonTimeUnboundedPrecedingOver ----------------------------------
    def key_of(self, row: tuple) -> tuple:
        return (row[self.sort_key[0]],)

    def find_index_of_sort_key(self, state: NonTimeState, key: tuple,
                               is_equals: bool) -> tuple[int, bool]:
        """findIndexOfSortKey: (the first equal or greater sort key's position, whether the
        key is new there); (-1, True): after the last."""
        for index, (current, _) in enumerate(state.sorted_list):
            if is_equals and current == key:
                return index, True
            comparison = compare_sort_keys((self.sort_key,), current, key)
            if comparison == 0:
                return index, False
            if comparison > 0:
                return index, True
        return -1, True

    def sort_key_of_removed(self, state: NonTimeState, row: tuple
                            ) -> Optional[tuple[int, tuple, list]]:
        """Where a retracted row's sort key sits: (its position, the key, a copy of its row
        ids), or None, counted, when no row of that key is kept (removeFromSortedList skips
        the row)."""
        index, _ = self.find_index_of_sort_key(state, self.key_of(row), True)
        if index == -1:
            self.sort_keys_not_found += 1
            return None
        return index, state.sorted_list[index][0], list(state.sorted_list[index][1])

    def same(self, previous: Optional[Accumulators], current: Accumulators) -> bool:
        """`prevAcc.equals(currAcc)` on Flink's accumulators (`flink_accumulator`)."""
        if previous is None:
            return False
        return all(flink_accumulator(call, a) == flink_accumulator(call, b)
                   for call, a, b in zip(self.p.calls, previous.values, current.values))

    def stored_acc(self, state: NonTimeState, key) -> Accumulators:
        """A copy of the accumulators kept under `key` (fresh ones when they are gone)."""
        stored = state.accs.get(key)
        return self.create() if stored is None else deepcopy(stored)

    def value_of(self, acc: Optional[Accumulators]) -> tuple:
        return self.value(acc if acc is not None else self.create())

    def _put_acc(self, state: NonTimeState, key, acc: Accumulators) -> None:
        state.accs[key] = deepcopy(acc)
        state.written_accs.add(key)

    def _update(self, out: list[Output], row: tuple, before: tuple, after: tuple) -> None:
        out.append((RowKind.UPDATE_BEFORE.code, row + before))
        out.append((RowKind.UPDATE_AFTER.code, row + after))

    def emit_updates_for_ids(self, state: NonTimeState, ids: list[int], changed: int,
                             prev_acc: Optional[Accumulators], curr_acc: Accumulators,
                             kind: RowKind, changed_row: tuple, out: list[Output]) -> None:
        """emitUpdatesForIds: the changed row's own change only when the accumulators stayed
        the same, else the frame's sendUpdatesForIds."""
        before, after = self.value_of(prev_acc), self.value(curr_acc)
        if self.same(prev_acc, curr_acc):
            self.send_update_for_changed_row(kind, changed_row, before, after, out)
        else:
            self.send_updates_for_ids(state, ids, changed, kind, changed_row, before, after, out)

    def send_update_for_changed_row(self, kind: RowKind, row: tuple, before: tuple,
                                    after: tuple, out: list[Output]) -> None:
        """sendUpdateForChangedRow: a removed row is retracted with its old value
        (collectDelete), an inserted one emitted as it came (+I or +U) with the new one."""
        if kind is RowKind.DELETE:
            out.append((RETRACTED_ROW_KIND.code, row + before))
        else:
            out.append((kind.code, row + after))

    def _remove_id(self, state: NonTimeState, index: int, key: tuple, ids: list[int],
                   deleted: int) -> int:
        """removeIdFromSortedList (the key's other ids stay, or the key goes) and the removed
        row; the position of the next sort key."""
        if ids:
            state.sorted_list[index] = (key, ids)
            index += 1
        else:
            del state.sorted_list[index]
        del state.values[deleted]
        state.list_written = True
        return index

    def _place(self, state: NonTimeState, row: tuple) -> tuple[int, tuple, int, bool]:
        """insertIntoSortedList's first step: a new id for the row, and its sort key's index
        in the sorted list; a sort key not there yet is inserted in order with the id, and
        `is_insert` says so (the caller appends the id to a known key's ids)."""
        id_ = self._next_id(state)
        key = self.key_of(row)
        index, is_insert = self.find_index_of_sort_key(state, key, False)
        if is_insert:
            if index == -1:
                state.sorted_list.append((key, [id_]))
                index = len(state.sorted_list) - 1
            else:
                state.sorted_list.insert(index, (key, [id_]))
        return id_, key, index, is_insert

    def _next_id(self, state: NonTimeState) -> int:
        """getNextId: Long.MIN_VALUE first."""
        return MIN_ID if state.next_id is None else state.next_id

    def _store_inserted(self, state: NonTimeState, id_: int, row: tuple, acc_key,
                        acc: Accumulators) -> None:
        """insertIntoSortedList's writes: the row, its accumulators, the list, the next id."""
        state.values[id_] = row
        self._put_acc(state, acc_key, acc)
        state.list_written = True
        state.next_id = id_ + 1


class NonTimeOverCore(NonTimeUnboundedOverCore):
    """NonTimeRangeUnboundedPrecedingFunction: the accumulators up to and including each sort
    key, kept under the sort key; the rows of one sort key share one value."""

    def acc_of_prev_row(self, state: NonTimeState, prev_index: int) -> Accumulators:
        """setAccumulatorOfPrevRow: a copy of the previous sort key's accumulators (fresh
        ones before the first, or when they are gone)."""
        if prev_index < 0:
            return self.create()
        return self.stored_acc(state, state.sorted_list[prev_index][0])

    def send_updates_for_ids(self, state, ids, changed, kind, changed_row, before, after, out):
        """sendUpdatesForIds (RANGE): the changed row's change, -U/+U for the key's others."""
        for index, id_ in enumerate(ids):
            if index == changed:
                self.send_update_for_changed_row(kind, changed_row, before, after, out)
            else:
                self._update(out, state.values[id_], before, after)

    def process_remaining_elements(self, state: NonTimeState, start: int,
                                   curr_acc: Accumulators, out: list[Output]) -> None:
        """processRemainingElements: the later sort keys' accumulators again, -U/+U for their
        rows, until a sort key's accumulators did not change (nor will the rest)."""
        for key, ids in state.sorted_list[start:]:
            curr_acc = deepcopy(curr_acc)
            for id_ in ids:
                self.accumulate(curr_acc, state.values[id_])
            prev_acc = state.accs.get(key)
            if self.same(prev_acc, curr_acc):
                return
            before, after = self.value_of(prev_acc), self.value(curr_acc)
            for id_ in ids:
                self._update(out, state.values[id_], before, after)
            self._put_acc(state, key, curr_acc)

    def insert_into_sorted_list(self, state: NonTimeState, kind: RowKind, row: tuple,
                                out: list[Output]) -> None:
        """insertIntoSortedList: a new sort key gets its place and the row its value (emitted
        as +I, or +U for an update's new row); a known one re-accumulates its rows with the
        new one last, which all get the new value."""
        id_, key, index, is_insert = self._place(state, row)
        if is_insert:
            acc = self.acc_of_prev_row(state, index - 1)
            self.accumulate(acc, row)
            out.append((kind.code, row + self.value(acc)))
        else:
            ids = state.sorted_list[index][1] + [id_]
            state.sorted_list[index] = (key, ids)
            acc = self.acc_of_prev_row(state, index - 1)
            for other in ids[:-1]:                      # reAccumulateIdsAfterInsert
                self.accumulate(acc, state.values[other])
            self.accumulate(acc, row)
            self.emit_updates_for_ids(state, ids, len(ids) - 1, state.accs.get(key), acc,
                                      kind, row, out)
        self._store_inserted(state, id_, row, key, acc)
        self.process_remaining_elements(state, index + 1, acc, out)

    def remove_from_sorted_list(self, state: NonTimeState, row: tuple,
                                out: list[Output]) -> None:
        """removeFromSortedList: the row is found by its sort key, then among that key's rows
        by all its values; its old value retracted, the key's other rows and the later ones
        updated. A row not found is skipped. As Flink's reAccumulateIdsAndGetRemoveIndex,
        every row equal to it is left out of the key's accumulators and the last of them is
        removed."""
        found = self.sort_key_of_removed(state, row)
        if found is None:
            return
        index, current, ids = found
        acc = self.acc_of_prev_row(state, index - 1)
        remove_index = -1
        for position, id_ in enumerate(ids):
            value = state.values.get(id_)
            if value == row:
                remove_index = position
            elif value is not None:
                self.accumulate(acc, value)
        if remove_index == -1:
            self.ids_not_found += 1
            return
        self.emit_updates_for_ids(state, ids, remove_index, state.accs.get(current), acc,
                                  RowKind.DELETE, row, out)
        deleted = ids.pop(remove_index)
        index = self._remove_id(state, index, current, ids, deleted)
        if ids:
            self._put_acc(state, current, acc)
        else:
            state.accs.pop(current, None)
        self.process_remaining_elements(state, index, acc, out)


class NonTimeRowsOverCore(NonTimeUnboundedOverCore):
    """NonTimeRowsUnboundedPrecedingFunction: the accumulators up to and including each row,
    kept under the row's id (`accMapState` keyed by id); every row has its own value, rows of
    one sort key in arrival order. Flink stores the aggregate's value where it updates a later
    row (processRemainingElements: `accMapState.put(id, getValue())`) and compares values with
    accumulators; for the aggregates here (SUM and AVG as $SUM0 and COUNT, COUNT, MIN, MAX
    without retraction) the two are the same."""

    def acc_of_prev_id(self, state: NonTimeState, prev_index: int, id_index: int) -> Accumulators:
        """setAccumulatorOfPrevId: a copy of the accumulators of the id at `id_index` of the
        sort key at `prev_index` (its last id for -1; fresh ones before the first key, or when
        they are gone)."""
        if prev_index < 0:
            return self.create()
        ids = state.sorted_list[prev_index][1]
        return self.stored_acc(state, ids[-1 if id_index == -1 else id_index])

    def previous_accumulator(self, state: NonTimeState, index: int,
                             position: int) -> Accumulators:
        """getPreviousAccumulator: the accumulators of the row before the one at `position`
        of sort key `index` (the previous key's last row for the first), fresh ones when
        there is none."""
        if position == 0:
            return self.acc_of_prev_id(state, index - 1, -1)
        return self.acc_of_prev_id(state, index, position - 1)

    def send_updates_for_ids(self, state, ids, changed, kind, changed_row, before, after, out):
        """sendUpdatesForIds (ROWS): only the changed row's change."""
        self.send_update_for_changed_row(kind, changed_row, before, after, out)

    def process_remaining_elements(self, state: NonTimeState, start: int,
                                   curr_acc: Accumulators, out: list[Output]) -> None:
        """processRemainingElements: the later rows' accumulators again, row by row, -U/+U
        for each, until one's did not change (nor will the rest)."""
        curr_acc = deepcopy(curr_acc)
        for _, ids in state.sorted_list[start:]:
            for id_ in ids:
                row = state.values[id_]
                self.accumulate(curr_acc, row)
                stored = state.accs.get(id_)
                if self.same(stored, curr_acc):
                    return
                self._update(out, row, self.value_of(stored), self.value(curr_acc))
                self._put_acc(state, id_, curr_acc)

    def insert_into_sorted_list(self, state: NonTimeState, kind: RowKind, row: tuple,
                                out: list[Output]) -> None:
        """insertIntoSortedList: the row after the previous row's accumulators (the previous
        key's last row for a new sort key, the key's last row for a known one), emitted as it
        came (+I or +U); the later rows updated."""
        id_, key, index, is_insert = self._place(state, row)
        if is_insert:
            acc = self.acc_of_prev_id(state, index - 1, -1)
            self.accumulate(acc, row)
            out.append((kind.code, row + self.value(acc)))
        else:
            ids = state.sorted_list[index][1] + [id_]
            state.sorted_list[index] = (key, ids)
            acc = self.acc_of_prev_id(state, index, len(ids) - 2)
            self.accumulate(acc, row)                   # reAccumulateIdsAfterInsert
            self.emit_updates_for_ids(state, ids, len(ids) - 1, state.accs.get(ids[-2]), acc,
                                      kind, row, out)
        self._store_inserted(state, id_, row, id_, acc)
        self.process_remaining_elements(state, index + 1, acc, out)

    def remove_from_sorted_list(self, state: NonTimeState, row: tuple,
                                out: list[Output]) -> None:
        """removeFromSortedList: the row is found by its sort key, then the first of that
        key's rows equal to it (findIndexOfIdToBeRemoved); it is retracted (-D) with its old
        value, and the key's later rows updated from the row before it
        (reAccumulateIdsAndEmitUpdates, which stops at the first unchanged one), then the
        later keys' rows (processRemainingElements). A row not found is skipped."""
        found = self.sort_key_of_removed(state, row)
        if found is None:
            return
        index, current, ids = found
        remove_index = next((position for position, id_ in enumerate(ids)
                             if state.values.get(id_) == row), -1)
        if remove_index == -1:
            self.ids_not_found += 1
            return
        acc = self.previous_accumulator(state, index, remove_index)
        for position in range(remove_index, len(ids)):  # reAccumulateIdsAndEmitUpdates
            id_ = ids[position]
            value, stored = state.values[id_], state.accs.get(id_)
            if position == remove_index:
                out.append((RETRACTED_ROW_KIND.code, value + self.value_of(stored)))
                continue
            self.accumulate(acc, value)
            if self.same(stored, acc):
                break
            self._update(out, value, self.value_of(stored), self.value(acc))
            self._put_acc(state, id_, acc)
        deleted = ids.pop(remove_index)
        index = self._remove_id(state, index, current, ids, deleted)
        state.accs.pop(deleted, None)
        self.process_remaining_elements(state, index, acc, out)


# --- the Spark side ---------------------------------------------------------------------------

def state_layout(params: OverAggParams, row_ddl: str, acc_ddl: str, grouping_ddl: str,
                 sort_key_ddl: Optional[str] = None) -> dict[str, dict[str, str]]:
    """Flink's states of the function: `accState` (the group aggregate's accumulators),
    `inputState` (rows by time) and the function's value states; the state-retention
    cleanup time; timers in Spark's timer store. A non-time ORDER BY has its own four."""
    f = params.function
    if f in NON_TIME:
        return non_time_state_layout(row_ddl, acc_ddl, grouping_ddl, sort_key_ddl,
                                     f == NON_TIME_ROWS_UNBOUNDED)
    time_domain = "event time" if params.is_rowtime else "processing time"
    layout = {ACC_STATE: {"kind": "value", "value": f"acc {acc_ddl}", "grouping": grouping_ddl}}
    if f == PROCTIME_UNBOUNDED:
        layout[ACC_STATE]["ttl"] = "processing-time"
        return layout
    layout[INPUT_STATE] = {"kind": "map", "key": "ts BIGINT",
                           "value": f"rows ARRAY<STRUCT<{row_ddl}>>",
                           "timers": f"{time_domain}, at Flink's timers"}
    for name in _VALUE_STATES[f]:
        layout[name] = {"kind": "value", "value": "v BIGINT"}
    if f in CLEANUP_TIME:
        layout[CLEANUP_TIME[f]] = {"kind": "value", "value": "v BIGINT",
                                   "ttl": "processing-time cleanup time, applied when read"}
    return layout


def spark_timer(params: OverAggParams, timer: int) -> int:
    """The Spark timer of a Flink timer: the same time. Spark (4.3) calls a timer once the
    watermark (or the clock) reaches it, as Flink fires it; a call never comes before the
    timer is due, so the timer Spark deletes after the call is never one still pending."""
    return timer


def flink_timer(params: OverAggParams, timer: int) -> int:
    return timer


class OverAggProcessor(Processor):
    """Loads a key's state and timers, runs the core, writes back what it holds. A batch's
    rows come after the key's timers the watermark reached (fired first, in Flink's order);
    a timer call fires the timers up to its own."""

    def init(self, handle) -> None:
        self.handle = handle
        p = self.params
        f = p.function
        ttl = spark_ttl_ms(p.ttl_ms) if f == PROCTIME_UNBOUNDED else None
        self.acc_state = (handle.getValueState(ACC_STATE, self.layout[ACC_STATE]["value"], ttl)
                          if ttl is not None else
                          handle.getValueState(ACC_STATE, self.layout[ACC_STATE]["value"]))
        self.values = {}
        if f != PROCTIME_UNBOUNDED:
            spec = self.layout[INPUT_STATE]
            self.input_state = handle.getMapState(INPUT_STATE, spec["key"], spec["value"])
            names = dict(_VALUE_STATES[f])
            if f in CLEANUP_TIME:
                names[CLEANUP_TIME[f]] = "cleanup_time"
            self.values = {attribute: handle.getValueState(name, self.layout[name]["value"])
                           for name, attribute in names.items()}
        self.core = OverAggCore(p)

    def _load(self) -> OverState:
        state = OverState()
        stored = self.acc_state.get()
        if stored is not None:
            state.acc = _decode(stored, self.params.calls)
        if self.params.function == PROCTIME_UNBOUNDED:
            return state
        for key, value in self.input_state.iterator():
            (rows,) = value
            state.rows[int(plain(key)[0])] = [plain(row) for row in rows or []]
        for attribute, variable in self.values.items():
            stored = variable.get()
            setattr(state, attribute, None if stored is None else int(stored[0]))
        state.timers = {flink_timer(self.params, t) for t in self.handle.listTimers()}
        return state

    def _save(self, loaded: OverState, state: OverState, firing: Optional[int]) -> None:
        if state.acc is None:
            self.acc_state.clear()
        else:
            self.acc_state.update(_encode(state.acc, self.params.calls))
        if self.params.function == PROCTIME_UNBOUNDED:
            return
        for ts in set(loaded.rows) - set(state.rows):
            self.input_state.removeKey((ts,))
        for ts, rows in state.rows.items():
            self.input_state.updateValue((ts,), (list(rows),))
        for attribute, variable in self.values.items():
            value = getattr(state, attribute)
            if value is None:
                variable.clear()
            elif value != getattr(loaded, attribute):
                variable.update((value,))
        registered = {spark_timer(self.params, t) for t in loaded.timers}
        wanted = {spark_timer(self.params, t) for t in state.timers}
        for timer in registered - wanted:
            if timer != firing:            # Spark deletes the timer it fires itself
                self.handle.deleteTimer(timer)
        for timer in wanted - registered:
            self.handle.registerTimer(timer)

    def _run(self, rows, timer_values, firing: Optional[int]) -> Iterator:
        loaded = self._load()
        if firing is not None:
            loaded.timers.add(flink_timer(self.params, firing))
        state = OverState(loaded.acc, {ts: list(r) for ts, r in loaded.rows.items()},
                          loaded.last_triggering_ts, loaded.counter, loaded.smallest_ts,
                          loaded.cleanup_ts, loaded.cleanup_time, set(loaded.timers))
        out: list[Output] = []
        # A timer call fires the key's timers up to its own only: Spark lists a batch's expired
        # timers before it calls for them, so a later one fired here would be called again.
        self.core.run(state, rows, timer_values.getCurrentWatermarkInMs(),
                      timer_values.getCurrentProcessingTimeInMs(), out,
                      None if firing is None else flink_timer(self.params, firing))
        self._save(loaded, state, firing)
        return emitted(out, self.output_names)

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        return self._run(rows_of(rows, self.input_names), timerValues, None)

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator:
        return self._run([], timerValues, expiredTimerInfo.getExpiryTimeInMs())


def non_time_state_layout(row_ddl: str, acc_ddl: str, grouping_ddl: str, sort_key_ddl: str,
                          rows: bool = False) -> dict[str, dict[str, str]]:
    """AbstractNonTimeUnboundedPrecedingOver's four states, each with state TTL (Flink's
    StateTtlConfig of table.exec.state.ttl; here Spark's processing-time TTL, renewed by a
    write): the next id, the sorted list of (sort key, ids), the rows by id, the
    accumulators by sort key (RANGE) or by id (ROWS: Flink's accKeyRowTypeInfo BIGINT)."""
    ttl = "processing-time"
    sort_key = f"sortKey STRUCT<{sort_key_ddl}>"
    return {
        ID_STATE: {"kind": "value", "value": "v BIGINT", "grouping": grouping_ddl, "ttl": ttl},
        SORTED_LIST_STATE: {"kind": "value", "ttl": ttl, "value":
                            f"list ARRAY<STRUCT<sortKey: STRUCT<{sort_key_ddl}>, "
                            f"ids: ARRAY<BIGINT>>>"},
        VALUE_MAP_STATE: {"kind": "map", "key": "id BIGINT", "value": f"row STRUCT<{row_ddl}>",
                          "ttl": ttl},
        ACC_MAP_STATE: {"kind": "map", "key": "id BIGINT" if rows else sort_key,
                        "value": f"acc {acc_ddl}", "ttl": ttl},
    }


class NonTimeOverProcessor(Processor):
    """NonTimeRange/RowsUnboundedPrecedingFunction on Spark: a partition's four states read
    once a batch, its rows through `NonTimeOverCore` / `NonTimeRowsOverCore` in arrival order, and written back what Flink
    would have written (a map entry only when Flink puts or removes it: a write renews its
    TTL)."""

    def init(self, handle) -> None:
        ttl = spark_ttl_ms(self.params.ttl_ms)
        layout = self.layout
        self.id_state = handle.getValueState(ID_STATE, layout[ID_STATE]["value"], ttl)
        self.list_state = handle.getValueState(SORTED_LIST_STATE,
                                               layout[SORTED_LIST_STATE]["value"], ttl)
        self.value_state, self.acc_state = (
            handle.getMapState(name, layout[name]["key"], layout[name]["value"], ttl)
            for name in (VALUE_MAP_STATE, ACC_MAP_STATE))
        self.rows = self.params.function == NON_TIME_ROWS_UNBOUNDED
        self.core = (NonTimeRowsOverCore if self.rows else NonTimeOverCore)(self.params)

    def _load(self) -> NonTimeState:
        state = NonTimeState()
        stored = self.id_state.get()
        state.next_id = None if stored is None else int(stored[0])
        stored = self.list_state.get()
        for entry in (stored[0] or []) if stored is not None else []:
            sort_key, ids = plain(entry)
            state.sorted_list.append((plain(sort_key), [int(i) for i in ids or []]))
        for key, (row,) in self.value_state.iterator():
            state.values[int(plain(key)[0])] = plain(row)
        for key, stored in self.acc_state.iterator():
            acc_key = plain(key)[0]
            state.accs[int(acc_key) if self.rows else plain(acc_key)] = _decode(
                stored, self.params.calls)
        return state

    def _save(self, state: NonTimeState, loaded: NonTimeState) -> None:
        if state.next_id != loaded.next_id:
            self.id_state.update((state.next_id,))
        if state.list_written:
            self.list_state.update(([(key, ids) for key, ids in state.sorted_list],))
        for id_ in loaded.values.keys() - state.values.keys():
            self.value_state.removeKey((id_,))
        for id_ in state.values.keys() - loaded.values.keys():
            self.value_state.updateValue((id_,), (state.values[id_],))
        for key in loaded.accs.keys() - state.accs.keys():
            self.acc_state.removeKey((key,))
        for key in state.written_accs & state.accs.keys():
            self.acc_state.updateValue((key,), _encode(state.accs[key], self.params.calls))

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        loaded = self._load()
        state = NonTimeState(loaded.next_id, [(k, list(ids)) for k, ids in loaded.sorted_list],
                             dict(loaded.values), dict(loaded.accs))
        out: list[Output] = []
        for kind, row in rows_of(rows, self.input_names):
            self.core.process(state, kind, row, out)
        self._save(state, loaded)
        return emitted(out, self.output_names)


def processor_class(params: OverAggParams) -> type[Processor]:
    if params.function in NON_TIME:
        return NonTimeOverProcessor
    return OverAggProcessor
