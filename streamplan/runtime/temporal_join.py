"""Event-time temporal join (`JOIN versioned FOR SYSTEM_TIME AS OF o.rowtime`), as a
transformWithState processor keyed by the join key.

The join logic (`TemporalJoinCore`) follows Flink's TemporalRowTimeJoinOperator and its
TemporalRowTimeJoinHelper, with the state retention of
BaseTwoInputStreamOperatorWithStateRetention, on plain in-memory state
(`TemporalJoinState`), so it is unit-testable without Spark:

- `process_left` (processElement1): the probe row is buffered under the next sequence
  index, the key's single event-time timer moves to the smallest time seen
  (registerSmallestTimer), and the processing-time cleanup timer is pushed on
  (registerProcessingCleanupTimer);
- `process_right` (processElement2): the version is kept under its row time (a later row of
  the same time replaces it, whatever its row kind), with the same timers;
- `on_event_time` (onEventTime / emitResultAndCleanUpState): every buffered probe row at or
  before the watermark is joined, in arrival order, with the latest version at or before its
  time (latestRightRowToJoin) when that version is an insert or update-after and the
  non-equi condition holds, else padded with NULLs for a LEFT join; versions older than the
  watermark are dropped except the latest of them (firstIndexToKeep);
- `cleanup_if_due` (onProcessingTime / cleanupState): with `table.exec.state.ttl` > 1 ms
  (min retention; max retention = 1.5 x), the key's whole state is dropped when its
  cleanup time has passed. Spark's operator has one time mode (event time here), so the
  processing-time timer is a stored time checked when the key is next touched: the state is
  gone before any later row or timer sees it, as in Flink.

Timers: Flink fires a timer <= watermark before the next row arrives; Spark runs a batch's
input rows before its expired timers. So each call first does the work due at the current
watermark (`on_watermark`), which makes the order Flink's.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

from ..changelog import KIND_COLUMN, LEFT_ROW, RIGHT_ROW, SIDE_COLUMN, RowKind
from .batch_rows import Output, emitted, plain
from .join_condition import join_condition
from .processor import Processor
from .timestamps import to_millis

MAX_TIME = 2 ** 63 - 1                        # Long.MAX_VALUE
ACCUMULATE = (RowKind.INSERT.code, RowKind.UPDATE_AFTER.code)


@dataclass(frozen=True)
class TemporalJoinParams:
    """Everything the processor needs; picklable, built from the plan node."""

    left_outer: bool                          # LEFT join, else INNER
    left_time_index: int
    right_time_index: int
    left_arity: int
    right_arity: int
    output_names: tuple[str, ...]
    condition: Optional[str] = None           # Spark SQL over output_names (the non-equi part)
    min_retention_ms: int = 0                 # table.exec.state.ttl
    max_retention_ms: int = 0                 # Flink: 1.5 x the min retention

    @property
    def state_cleaning_enabled(self) -> bool:
        """BaseTwoInputStreamOperatorWithStateRetention: `minRetentionTime > 1`."""
        return self.min_retention_ms > 1


@dataclass
class TemporalJoinState:
    """One join key's state, with what changed since it was loaded."""

    left: dict[int, tuple[int, tuple]] = field(default_factory=dict)    # seq -> (kind, row)
    right: dict[int, tuple[int, tuple]] = field(default_factory=dict)   # time -> (kind, row)
    next_index: Optional[int] = None
    timer: Optional[int] = None               # the key's one event-time timer
    cleanup_time: Optional[int] = None        # latestRegisteredCleanupTimer (processing time)
    left_put: set[int] = field(default_factory=set)
    left_removed: set[int] = field(default_factory=set)
    right_put: set[int] = field(default_factory=set)
    right_removed: set[int] = field(default_factory=set)

    def put_left(self, index: int, value: tuple[int, tuple]) -> None:
        self.left[index] = value
        self.left_put.add(index)
        self.left_removed.discard(index)

    def remove_left(self, index: int) -> None:
        del self.left[index]
        self.left_put.discard(index)
        self.left_removed.add(index)

    def put_right(self, time: int, value: tuple[int, tuple]) -> None:
        self.right[time] = value
        self.right_put.add(time)
        self.right_removed.discard(time)

    def remove_right(self, time: int) -> None:
        del self.right[time]
        self.right_put.discard(time)
        self.right_removed.add(time)


class TemporalJoinCore:
    """Flink's TemporalRowTimeJoinOperator for one key."""

    def __init__(self, params: TemporalJoinParams,
                 predicate: Optional[Callable[[dict[str, Any]], Optional[bool]]] = None):
        self.p = params
        self.predicate = predicate
        self.right_nulls = (None,) * params.right_arity

    # --- rows (processElement1/2) ----------------------------------------------------------
    def process_left(self, state: TemporalJoinState, kind: int, row: tuple, now: int) -> None:
        index = 0 if state.next_index is None else state.next_index      # getNextLeftIndex
        state.next_index = index + 1
        state.put_left(index, (kind, row))
        self._register_smallest_timer(state, self.left_time(row))
        self._register_processing_cleanup_timer(state, now)

    def process_right(self, state: TemporalJoinState, kind: int, row: tuple, now: int) -> None:
        if kind == RowKind.UPDATE_BEFORE.code:
            return              # Flink drops them in front of the join (DropUpdateBefore)
        time = self.right_time(row)
        state.put_right(time, (kind, row))
        self._register_smallest_timer(state, time)
        self._register_processing_cleanup_timer(state, now)

    # --- timers ----------------------------------------------------------------------------
    def on_watermark(self, state: TemporalJoinState, watermark: int, now: int,
                     out: list[Output]) -> None:
        """Fire the key's event-time timer when the watermark has reached it."""
        if state.timer is not None and state.timer <= watermark:
            self.on_event_time(state, watermark, now, out)

    def on_event_time(self, state: TemporalJoinState, watermark: int, now: int,
                      out: list[Output]) -> None:
        """onEventTime: emit what the watermark completes, keep a timer for the rest; with
        retention, push the cleanup time on while state is left, else drop it."""
        state.timer = None
        last_unprocessed = self._emit_result_and_clean_up_state(state, watermark, out)
        if last_unprocessed < MAX_TIME:
            state.timer = last_unprocessed
        if self.p.state_cleaning_enabled:
            if last_unprocessed < MAX_TIME or state.right:
                self._register_processing_cleanup_timer(state, now)
            else:
                state.cleanup_time = None                      # cleanupLastTimer
                state.next_index = None

    def cleanup_if_due(self, state: TemporalJoinState, now: int) -> bool:
        """onProcessingTime / cleanupState: drop the key's state once its cleanup time has
        passed. Returns whether it did."""
        if not self.p.state_cleaning_enabled or state.cleanup_time is None \
                or state.cleanup_time > now:
            return False
        for index in list(state.left):
            state.remove_left(index)
        for time in list(state.right):
            state.remove_right(time)
        state.next_index = None
        state.timer = None
        state.cleanup_time = None
        return True

    # --- helpers ---------------------------------------------------------------------------
    def left_time(self, row: tuple) -> int:
        return to_millis(row[self.p.left_time_index])

    def right_time(self, row: tuple) -> int:
        return to_millis(row[self.p.right_time_index])

    @staticmethod
    def _register_smallest_timer(state: TemporalJoinState, time: int) -> None:
        if state.timer is None or state.timer > time:
            state.timer = time

    def _register_processing_cleanup_timer(self, state: TemporalJoinState, now: int) -> None:
        if not self.p.state_cleaning_enabled:
            return
        if state.cleanup_time is None or now + self.p.min_retention_ms > state.cleanup_time:
            state.cleanup_time = now + self.p.max_retention_ms

    def _emit_result_and_clean_up_state(self, state: TemporalJoinState, watermark: int,
                                        out: list[Output]) -> int:
        right_times = sorted(state.right)
        last_unprocessed = MAX_TIME
        for index in sorted(state.left):                      # arrival order
            kind, row = state.left[index]
            time = self.left_time(row)
            if time <= watermark:
                state.remove_left(index)
                self._emit(kind, row, self._latest_right_row(state, right_times, time), out)
            else:
                last_unprocessed = min(last_unprocessed, time)
        self._cleanup_expired_versions(state, right_times, watermark)
        return last_unprocessed

    def _emit(self, kind: int, left: tuple, right: Optional[tuple[int, tuple]],
              out: list[Output]) -> None:
        """emitTriggeredLeftRecordsInOrder for one probe row: the joined row carries the
        probe row's kind."""
        if right is not None and right[0] in ACCUMULATE and self._matches(left, right[1]):
            out.append((kind, left + right[1]))
        elif self.p.left_outer:
            out.append((kind, left + self.right_nulls))

    def _matches(self, left: tuple, right: tuple) -> bool:
        if self.predicate is None:
            return True
        return self.predicate(dict(zip(self.p.output_names, left + right))) is True

    @staticmethod
    def _latest_right_row(state: TemporalJoinState, right_times: list[int],
                          time: int) -> Optional[tuple[int, tuple]]:
        """latestRightRowToJoin: the version with the largest time <= `time`."""
        position = bisect_right(right_times, time)
        return state.right[right_times[position - 1]] if position > 0 else None

    @staticmethod
    def _cleanup_expired_versions(state: TemporalJoinState, right_times: list[int],
                                  watermark: int) -> None:
        """cleanupExpiredVersionInState / firstIndexToKeep: drop the versions before the
        last one at or before the watermark."""
        newer = next((i for i, time in enumerate(right_times) if time > watermark), -1)
        keep_from = len(right_times) - 1 if newer < 0 else newer - 1
        for time in right_times[:max(keep_from, 0)]:
            state.remove_right(time)


# --- the Spark side ---------------------------------------------------------------------------

LEFT_STATE, RIGHT_STATE = "left", "right"
NEXT_INDEX_STATE, TIMER_STATE, CLEANUP_STATE = "next-index", "timer", "cleanup-timestamp"


def state_layout(left_struct_ddl: str, right_struct_ddl: str) -> dict[str, dict[str, str]]:
    """The state variables (Flink's names) and their schemas: what fixtures record."""
    def rows(key: str, row_ddl: str) -> dict[str, str]:
        return {"kind": "map", "key": key, "value": f"kind TINYINT, row STRUCT<{row_ddl}>"}

    return {LEFT_STATE: rows("index BIGINT", left_struct_ddl),
            RIGHT_STATE: rows("time BIGINT", right_struct_ddl),
            NEXT_INDEX_STATE: {"kind": "value", "value": "index BIGINT"},
            TIMER_STATE: {"kind": "value", "value": "time BIGINT"},
            CLEANUP_STATE: {"kind": "value", "value": "time BIGINT",
                            "ttl": "checked on read (processing time)"}}


class TemporalJoinProcessor(Processor):
    """One key's state read once per call, the core run, the changes written back."""

    def init(self, handle) -> None:
        self.handle = handle
        spec = self.layout
        self.left = handle.getMapState(LEFT_STATE, spec[LEFT_STATE]["key"],
                                       spec[LEFT_STATE]["value"])
        self.right = handle.getMapState(RIGHT_STATE, spec[RIGHT_STATE]["key"],
                                        spec[RIGHT_STATE]["value"])
        self.values = {name: handle.getValueState(name, spec[name]["value"])
                       for name in (NEXT_INDEX_STATE, TIMER_STATE, CLEANUP_STATE)}
        predicate = join_condition(self.params.condition, self.params.output_names)
        self.core = TemporalJoinCore(self.params, predicate)

    def _value(self, name: str) -> Optional[int]:
        stored = self.values[name].get()
        return None if stored is None else stored[0]

    def _load(self) -> TemporalJoinState:
        return TemporalJoinState(
            left={key[0]: (value[0], plain(value[1])) for key, value in self.left.iterator()},
            right={key[0]: (value[0], plain(value[1])) for key, value in self.right.iterator()},
            next_index=self._value(NEXT_INDEX_STATE), timer=self._value(TIMER_STATE),
            cleanup_time=self._value(CLEANUP_STATE))

    def _store(self, state: TemporalJoinState, loaded_timer: Optional[int],
               loaded: dict[str, Optional[int]]) -> None:
        for index in state.left_removed:
            self.left.removeKey((index,))
        for index in state.left_put:
            self.left.updateValue((index,), state.left[index])
        for time in state.right_removed:
            self.right.removeKey((time,))
        for time in state.right_put:
            self.right.updateValue((time,), state.right[time])
        now = {NEXT_INDEX_STATE: state.next_index, TIMER_STATE: state.timer,
               CLEANUP_STATE: state.cleanup_time}
        for name, value in now.items():
            if value != loaded[name]:
                if value is None:
                    self.values[name].clear()
                else:
                    self.values[name].update((value,))
        if state.timer != loaded_timer:
            if loaded_timer is not None:
                self.handle.deleteTimer(loaded_timer)
            if state.timer is not None:
                self.handle.registerTimer(state.timer)

    def _run(self, rows, timer_values) -> Iterator:
        watermark = timer_values.getCurrentWatermarkInMs()
        now = timer_values.getCurrentProcessingTimeInMs()
        state = self._load()
        loaded = {NEXT_INDEX_STATE: state.next_index, TIMER_STATE: state.timer,
                  CLEANUP_STATE: state.cleanup_time}
        out: list[Output] = []
        self.core.cleanup_if_due(state, now)
        self.core.on_watermark(state, watermark, now, out)
        for row in rows:
            side_is_left = row[SIDE_COLUMN] == 0
            kind = row[KIND_COLUMN]
            values = plain(row[LEFT_ROW] if side_is_left else row[RIGHT_ROW])
            if side_is_left:
                self.core.process_left(state, kind, values, now)
            else:
                self.core.process_right(state, kind, values, now)
        self._store(state, loaded[TIMER_STATE], loaded)
        return emitted(out, self.params.output_names)

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        return iter(list(self._run(rows, timerValues)))

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator:
        return iter(list(self._run((), timerValues)))
