"""Interval join (event or processing time) with EARLY_FIRE, as a transformWithState processor.

The join logic (`IntervalJoinCore`) follows Flink's TimeIntervalJoin / RowTimeIntervalJoin /
ProcTimeIntervalJoin and FLIP-497 and works on plain in-memory caches, so it is
unit-testable without Spark. On processing time (`event_time=False`) the "watermark" every
method takes is the current processing time (the micro-batch's stamp), a row's time is the
processing time it arrives at (ProcTimeIntervalJoin.getTimeForLeftStream), and the
processor's timers are processing-time timers.
`IntervalJoinProcessor` loads one key's state once per call, runs the core, and writes
back only the buckets that changed.

Timers: Flink fires every timer <= watermark before the next row arrives; Spark runs a
batch's input rows before its expired timers. So each call first does the work that is
due at the current watermark (`on_watermark`), which makes the order Flink's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

from ..changelog import LEFT_ROW, RIGHT_ROW, SIDE_COLUMN, RowKind
from ..join_type import JoinType
from .batch_rows import Output, emitted
from .join_condition import join_condition
from .processor import Processor
from .timestamps import to_millis

INNER, LEFT, RIGHT, FULL = JoinType.INNER, JoinType.LEFT, JoinType.RIGHT, JoinType.FULL
INSERT, UPDATE_BEFORE, UPDATE_AFTER = (RowKind.INSERT.code, RowKind.UPDATE_BEFORE.code,
                                       RowKind.UPDATE_AFTER.code)


@dataclass(frozen=True)
class IntervalJoinParams:
    """Everything the processor needs; picklable, built from the plan node."""

    join_type: str
    lower_bound: int                  # left.t >= right.t + lower_bound
    upper_bound: int                  # left.t <= right.t + upper_bound
    left_time_index: int
    right_time_index: int
    left_arity: int
    right_arity: int
    output_names: tuple[str, ...]
    condition: Optional[str] = None   # Spark SQL over output_names
    early_fire_delay_ms: Optional[int] = None
    min_cleanup_interval_ms: int = 0
    # SQL type names of the left, right and join-key columns: version 2 encodes rows by them
    column_types: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] = ((), (), ())
    event_time: bool = True           # False: ProcTimeIntervalJoin (timers on processing time)

    def current_time(self, timer_values) -> int:
        """What drives the join: the watermark, or on processing time the batch's stamp."""
        if self.event_time:
            return timer_values.getCurrentWatermarkInMs()
        return timer_values.getCurrentProcessingTimeInMs()

    @property
    def left_outer(self) -> bool:
        return JoinType(self.join_type).left_outer

    @property
    def right_outer(self) -> bool:
        return JoinType(self.join_type).right_outer

    @property
    def early_fire(self) -> bool:
        """EARLY_FIRE only affects outer joins with a non-negative window (FLIP-497)."""
        return (self.early_fire_delay_ms is not None and self.join_type != INNER
                and self.lower_bound <= self.upper_bound)


@dataclass(slots=True)
class Entry:
    """One cached row: `emitted` = joined at least once, `fired` = padded early."""

    row: tuple
    emitted: bool
    fired: bool = False


@dataclass
class SideCache:
    """One side's state for one key: row buckets by event time plus its cleanup timer."""

    buckets: dict[int, list[Entry]] = field(default_factory=dict)
    cleanup_time: Optional[int] = None
    dirty: set[int] = field(default_factory=set)
    removed: set[int] = field(default_factory=set)
    timer_dirty: bool = False

    def add(self, time: int, entry: Entry) -> None:
        self.buckets.setdefault(time, []).append(entry)
        self.dirty.add(time)
        self.removed.discard(time)

    def remove(self, time: int) -> None:
        del self.buckets[time]
        self.dirty.discard(time)
        self.removed.add(time)

    def set_cleanup_time(self, time: Optional[int]) -> None:
        self.cleanup_time = time
        self.timer_dirty = True




class IntervalJoinCore:
    """Flink's row-time interval join for one key, with FLIP-497 early fire."""

    def __init__(self, params: IntervalJoinParams,
                 predicate: Optional[Callable[[dict[str, Any]], Optional[bool]]] = None):
        self.p = params
        self.left_relative_size = -params.lower_bound
        self.right_relative_size = params.upper_bound
        self.predicate = predicate
        self.left_nulls = (None,) * params.left_arity
        self.right_nulls = (None,) * params.right_arity
        self.timers: set[int] = set()      # timers to register after this call
        self.late_rows = 0                 # rows not cached because the watermark passed them

    # --- helpers --------------------------------------------------------------------------
    def _matches(self, left: tuple, right: tuple) -> bool:
        if self.predicate is None:
            return True
        return self.predicate(dict(zip(self.p.output_names, left + right))) is True

    def _expiration(self, operator_time: int, relative_size: int) -> int:
        return operator_time - relative_size - 1

    def _register_cleanup(self, cache: SideCache, row_time: int, relative_size: int) -> None:
        time = row_time + relative_size + self.p.min_cleanup_interval_ms + 1
        cache.set_cleanup_time(time)
        self.timers.add(time)

    def _pad(self, side_is_left: bool, row: tuple) -> tuple:
        return row + self.right_nulls if side_is_left else self.left_nulls + row

    # --- row processing (processElement1/2) ---------------------------------------------------
    def process(self, side_is_left: bool, row: tuple, keys_match: bool, operator_time: int,
                left: SideCache, right: SideCache, out: list[Output]) -> None:
        p = self.p
        if side_is_left:
            own, other = left, right
            raw_time = row[p.left_time_index]
            own_relative, other_relative = self.left_relative_size, self.right_relative_size
            own_outer, other_outer = p.left_outer, p.right_outer
        else:
            own, other = right, left
            raw_time = row[p.right_time_index]
            own_relative, other_relative = self.right_relative_size, self.left_relative_size
            own_outer, other_outer = p.right_outer, p.left_outer
        if not p.event_time:
            time = operator_time         # the processing time it arrives at
        elif raw_time is None:
            return  # Flink cannot order a row without event time; it never matches
        else:
            time = to_millis(raw_time)
        qualified_lower = time - other_relative
        qualified_upper = time + own_relative
        emitted = False
        expiration = self._expiration(operator_time, other_relative)
        if expiration < qualified_upper:
            for other_time in sorted(other.buckets):
                entries = other.buckets[other_time]
                if keys_match and qualified_lower <= other_time <= qualified_upper:
                    for entry in entries:
                        pair = (row, entry.row) if side_is_left else (entry.row, row)
                        if not self._matches(*pair):
                            continue
                        emitted = True
                        self._emit_match(pair, entry, other_outer, other, other_time, out)
                if other_time <= expiration:
                    if other_outer:
                        out.extend((INSERT, self._pad(not side_is_left, entry.row))
                                   for entry in entries if not entry.emitted and not entry.fired)
                    other.remove(other_time)
        if operator_time < qualified_upper:
            own.add(time, Entry(row, emitted))
            if own.cleanup_time is None:
                self._register_cleanup(own, time, own_relative)
            if own_outer and not emitted and self.p.early_fire:
                self.timers.add(time + self.p.early_fire_delay_ms)
        else:
            if p.event_time:             # on processing time a row is never late, only uncached
                self.late_rows += 1
            if not emitted and own_outer:
                out.append((INSERT, self._pad(side_is_left, row)))

    def _emit_match(self, pair: tuple[tuple, tuple], entry: Entry, entry_outer: bool,
                    cache: SideCache, entry_time: int, out: list[Output]) -> None:
        """Emit a joined row; retract the cached row's early padding on its first match."""
        joined = pair[0] + pair[1]
        if entry_outer and entry.fired and not entry.emitted:
            entry_is_left = pair[0] is entry.row
            out.append((UPDATE_BEFORE, self._pad(entry_is_left, entry.row)))
            out.append((UPDATE_AFTER, joined))
        else:
            out.append((INSERT, joined))
        if entry_outer and not entry.emitted:
            entry.emitted = True
            cache.dirty.add(entry_time)

    # --- timers (onTimer) ---------------------------------------------------------------------
    def on_watermark(self, watermark: int, left: SideCache, right: SideCache,
                     out: list[Output]) -> None:
        """Everything Flink's timers would have done by this watermark, in timestamp order."""
        if self.p.early_fire:
            self._early_fire(watermark, left, True, out)
            self._early_fire(watermark, right, False, out)
        for cache, is_left, relative in ((left, True, self.left_relative_size),
                                         (right, False, self.right_relative_size)):
            if cache.cleanup_time is not None and cache.cleanup_time <= watermark:
                self._remove_expired(self._expiration(watermark, relative), cache, is_left,
                                     relative, out)

    def _early_fire(self, watermark: int, cache: SideCache, is_left: bool,
                    out: list[Output]) -> None:
        outer = self.p.left_outer if is_left else self.p.right_outer
        if not outer:
            return
        for time in sorted(cache.buckets):
            if time + self.p.early_fire_delay_ms > watermark:
                break
            for entry in cache.buckets[time]:
                if not entry.emitted and not entry.fired:
                    out.append((INSERT, self._pad(is_left, entry.row)))
                    entry.fired = True
                    cache.dirty.add(time)

    def _remove_expired(self, expiration: int, cache: SideCache, is_left: bool, relative: int,
                        out: list[Output]) -> None:
        outer = self.p.left_outer if is_left else self.p.right_outer
        for time in sorted(cache.buckets):
            if time > expiration:
                break
            if outer:
                out.extend((INSERT, self._pad(is_left, entry.row))
                           for entry in cache.buckets[time] if not entry.emitted and not entry.fired)
            cache.remove(time)
        if cache.buckets:
            self._register_cleanup(cache, min(cache.buckets), relative)
        else:
            cache.set_cleanup_time(None)


# --- the Spark side ---------------------------------------------------------------------------

LEFT_CACHE, RIGHT_CACHE = "left-cache", "right-cache"
LEFT_FIRED, RIGHT_FIRED = "left-early-fired", "right-early-fired"
LEFT_CLEANUP, RIGHT_CLEANUP = "left-cleanup-time", "right-cleanup-time"
LATE_ROWS = "late-rows"


def state_layout(left_struct_ddl: str, right_struct_ddl: str) -> dict[str, dict[str, str]]:
    """The state variables and their schemas: what the version-rules audit compares."""
    def cache(row_ddl: str) -> dict[str, str]:
        return {"kind": "map", "key": "time BIGINT",
                "value": f"rows ARRAY<STRUCT<row: STRUCT<{row_ddl}>, emitted: BOOLEAN>>"}

    fired = {"kind": "map", "key": "time BIGINT", "value": "fired ARRAY<BOOLEAN>"}
    timer = {"kind": "value", "value": "time BIGINT"}
    return {LEFT_CACHE: cache(left_struct_ddl), RIGHT_CACHE: cache(right_struct_ddl),
            LEFT_FIRED: fired, RIGHT_FIRED: fired, LEFT_CLEANUP: timer, RIGHT_CLEANUP: timer,
            LATE_ROWS: {"kind": "value", "value": "count BIGINT"}}


def _values(struct) -> tuple:
    """A struct value as a tuple: Spark hands nested structs over as dicts or Rows."""
    return tuple(struct.values()) if isinstance(struct, dict) else tuple(struct)


def ordered_input(rows, params: IntervalJoinParams) -> list[tuple[bool, tuple]]:
    """A call's input rows (the translation's tagged union: `__side`, `__l`, `__r`) as
    (side is left, values), in a fixed order: Spark gives no order within a batch, and the
    outputs must be the same run after run. The order is by event time, left before right,
    then by the values' text (computed for such ties only)."""
    decoded = []
    for row in rows:
        side_is_left = row[SIDE_COLUMN] == 0
        values = _values(row[LEFT_ROW] if side_is_left else row[RIGHT_ROW])
        time = values[params.left_time_index if side_is_left else params.right_time_index]
        decoded.append((to_millis(time) if time is not None else 0, not side_is_left, values))
    decoded.sort(key=lambda item: item[:2])
    ordered, start = [], 0
    while start < len(decoded):
        end = start + 1
        while end < len(decoded) and decoded[end][:2] == decoded[start][:2]:
            end += 1
        run = decoded[start:end]
        if len(run) > 1:
            run.sort(key=lambda item: repr(item[2]))
        ordered.extend((not right, values) for _, right, values in run)
        start = end
    return ordered



class IntervalJoinProcessor(Processor):
    """Version 1: seven state variables per join key, a timer per cleanup and early fire."""

    def init(self, handle) -> None:
        self.handle = handle
        spec = self.layout
        self.caches = {side: handle.getMapState(name, spec[name]["key"], spec[name]["value"])
                       for side, name in (("L", LEFT_CACHE), ("R", RIGHT_CACHE))}
        self.fired = {side: handle.getMapState(name, spec[name]["key"], spec[name]["value"])
                      for side, name in (("L", LEFT_FIRED), ("R", RIGHT_FIRED))}
        self.cleanup = {side: handle.getValueState(name, spec[name]["value"])
                        for side, name in (("L", LEFT_CLEANUP), ("R", RIGHT_CLEANUP))}
        # Per key; readable with Spark's state data source (stateVarName='late-rows').
        self.late_rows = handle.getValueState(LATE_ROWS, spec[LATE_ROWS]["value"])
        self.predicate = join_condition(self.params.condition, self.params.output_names)

    # one read of each state variable per key and call
    def _load(self, side: str) -> SideCache:
        fired = {key[0]: list(value[0]) for key, value in self.fired[side].iterator()}
        buckets = {}
        for key, value in self.caches[side].iterator():
            flags = fired.get(key[0], [])
            buckets[key[0]] = [
                Entry(_values(item["row"]), bool(item["emitted"]),
                      index < len(flags) and bool(flags[index]))
                for index, item in enumerate(value[0])]
        stored = self.cleanup[side].get()
        return SideCache(buckets, stored[0] if stored else None)

    def _store(self, side: str, cache: SideCache) -> None:
        for time in cache.removed:
            self.caches[side].removeKey((time,))
            self.fired[side].removeKey((time,))
        for time in cache.dirty:
            entries = cache.buckets[time]
            self.caches[side].updateValue(
                (time,), ([(entry.row, entry.emitted) for entry in entries],))
            if any(entry.fired for entry in entries):
                self.fired[side].updateValue((time,), ([entry.fired for entry in entries],))
        if cache.timer_dirty:
            if cache.cleanup_time is None:
                self.cleanup[side].clear()
            else:
                self.cleanup[side].update((cache.cleanup_time,))

    def _run(self, key, rows, watermark: int) -> Iterator:
        core = IntervalJoinCore(self.params, self.predicate)
        left, right = self._load("L"), self._load("R")
        out: list[Output] = []
        core.on_watermark(watermark, left, right, out)
        keys_match = all(part is not None for part in key)
        operator_time = max(watermark, 0)
        for side_is_left, row in rows:
            core.process(side_is_left, row, keys_match, operator_time, left, right, out)
        self._store("L", left)
        self._store("R", right)
        if core.late_rows:
            counted = self.late_rows.get()
            self.late_rows.update(((counted[0] if counted else 0) + core.late_rows,))
        for time in sorted(core.timers):
            self.handle.registerTimer(time)
        return emitted(out, self.params.output_names)

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        now = self.params.current_time(timerValues)
        return iter(list(self._run(key, ordered_input(rows, self.params), now)))

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator:
        return iter(list(self._run(key, [], self.params.current_time(timerValues))))
