"""Window join on event time, as a transformWithState processor.

Flink's WindowJoinOperator (flink-table-runtime .../operators/join/window/, its join logic in
`utils/WindowJoinHelper`): both inputs are rows of a window TVF, keyed by the join keys left
after the window equalities. A row is buffered in its side's list state under its window end
(`processElement`: `recordState.add(windowEnd, row)` and `registerEventTimeWindowTimer(
windowEnd)`), unless its window has fired already (`isWindowFired`): then it is late and
dropped. When the watermark reaches the window's end (`onEventTime`, timer end - 1), the two
lists are joined (`WindowJoinProcessor.doJoin` of the join type) and both are cleared. Every
output row is +I; an outer side's unmatched rows are padded with NULLs; a SEMI / ANTI join
emits each left row that has / has no match. A NULL join key matches nothing
(`JoinConditionWithNullFilters`), so its rows only ever come out padded (or from ANTI).

`WindowJoinCore` is that logic for one join key over plain Python lists;
`WindowJoinProcessor` reads a key's two sides, fires what is due, buffers the batch's rows and
writes back the windows that changed. Timers and the order of firing and buffering are the
window aggregate's (runtime/window_aggregate.py): the Spark timer of window end e is e - 2,
and each call first fires the windows due at the current watermark.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

from ..changelog import KIND_COLUMN, LEFT_ROW, RIGHT_ROW, SIDE_COLUMN, RowKind
from ..errors import NotInsertOnlyError
from ..join_type import JoinType
from .batch_rows import Output, emitted, plain
from .join_condition import join_condition
from .processor import Processor
from .timestamps import to_millis
from .window_aggregate import fired, rearm_window_timers

LEFT_RECORDS, RIGHT_RECORDS = "left-records", "right-records"     # Flink's state names


@dataclass(frozen=True)
class WindowJoinParams:
    join_type: str
    left_arity: int
    right_arity: int
    left_window_end: int               # index of window_end in a left row
    right_window_end: int
    output_names: tuple[str, ...]
    filter_nulls: tuple[bool, ...] = ()   # per join key: a NULL matches nothing
    condition: Optional[str] = None    # Spark SQL over condition_names
    condition_names: tuple[str, ...] = ()  # the joined row's names (left, then right)


Windows = dict[int, list[tuple]]       # window end -> rows of one side, in arrival order


class WindowJoinCore:
    """WindowJoinOperator for one join key. `left` and `right` map window end -> rows;
    `dirty` collects the (side, window end) entries written or cleared."""

    def __init__(self, params: WindowJoinParams,
                 predicate: Optional[Callable[[dict[str, Any]], Optional[bool]]] = None):
        self.p = params
        self.join_type = JoinType(params.join_type)
        self.predicate = predicate
        self.left_nulls = (None,) * params.left_arity
        self.right_nulls = (None,) * params.right_arity

    def keys_match(self, key: tuple) -> bool:
        """JoinConditionWithNullFilters: a NULL in a key that filters NULLs matches nothing."""
        return all(value is not None for value, filtered in zip(key, self.p.filter_nulls)
                   if filtered)

    # WindowJoinHelper.processElement
    def process(self, is_left: bool, kind: RowKind, row: tuple, left: Windows, right: Windows,
                dirty: set, watermark: int) -> bool:
        """Buffers one input row under its window end; False when it is late and dropped."""
        window_end = to_millis(row[self.p.left_window_end if is_left else self.p.right_window_end])
        if fired(window_end, watermark):
            return False
        if not kind.is_accumulate:
            raise NotInsertOnlyError(f"window join: a {kind.short} row reached it; its inputs "
                                     f"must be insert-only")
        (left if is_left else right).setdefault(window_end, []).append(row)
        dirty.add((is_left, window_end))
        return True

    def due(self, left: Windows, right: Windows, watermark: int) -> list[int]:
        """The window ends whose timers the watermark reached, in time order."""
        return sorted(end for end in set(left) | set(right) if fired(end, watermark))

    # onEventTime -> WindowJoinHelper.joinAndClear
    def fire(self, key: tuple, window_end: int, left: Windows, right: Windows, dirty: set,
             out: list[Output]) -> None:
        left_rows, right_rows = left.pop(window_end, None), right.pop(window_end, None)
        for is_left, rows in ((True, left_rows), (False, right_rows)):
            if rows is not None:
                dirty.add((is_left, window_end))
        self.join(left_rows, right_rows, self.keys_match(key), out)

    def _matches(self, left_row: tuple, right_row: tuple, keys_match: bool) -> bool:
        if not keys_match:
            return False
        if self.predicate is None:
            return True
        names = self.p.condition_names or self.p.output_names
        return self.predicate(dict(zip(names, left_row + right_row))) is True

    def join(self, left_rows: Optional[list], right_rows: Optional[list], keys_match: bool,
             out: list[Output]) -> None:
        """WindowJoinProcessor.doJoin of the join type (None: the side has no rows)."""
        insert = RowKind.INSERT.code
        join_type = self.join_type
        if join_type.semi_or_anti:        # SemiAntiWindowJoinProcessor
            anti = join_type is JoinType.ANTI
            for left_row in left_rows or ():
                matched = any(self._matches(left_row, right_row, keys_match)
                              for right_row in right_rows or ())
                if matched != anti:
                    out.append((insert, left_row))
            return
        if join_type is JoinType.RIGHT:   # RightOuterWindowJoinProcessor: right rows outside
            for right_row in right_rows or ():
                matched = False
                for left_row in left_rows or ():
                    if self._matches(left_row, right_row, keys_match):
                        out.append((insert, left_row + right_row))
                        matched = True
                if not matched:
                    out.append((insert, self.left_nulls + right_row))
            return
        # Inner, LeftOuter and FullOuterWindowJoinProcessor: left rows outside
        emitted_right: set[int] = set()
        for left_row in left_rows or ():
            matched = False
            for index, right_row in enumerate(right_rows or ()):
                if self._matches(left_row, right_row, keys_match):
                    out.append((insert, left_row + right_row))
                    matched = True
                    emitted_right.add(index)
            if not matched and join_type.left_outer:
                out.append((insert, left_row + self.right_nulls))
        if join_type is JoinType.FULL:
            out.extend((insert, self.left_nulls + right_row)
                       for index, right_row in enumerate(right_rows or ())
                       if index not in emitted_right)

    def fire_due(self, key: tuple, left: Windows, right: Windows, dirty: set, watermark: int,
                 out: list[Output]) -> None:
        for window_end in self.due(left, right, watermark):
            self.fire(key, window_end, left, right, dirty, out)


# --- the Spark side ---------------------------------------------------------------------------

def state_layout(left_ddl: str, right_ddl: str) -> dict[str, dict[str, str]]:
    """Flink's `left-records` / `right-records` list states, namespaced by window end: here a
    map per side from window end to the rows of that window, in arrival order; the key's
    event-time timers are Spark's timer store (window end - 2)."""
    return {name: {"kind": "map", "key": "windowEnd BIGINT",
                   "value": f"rows ARRAY<STRUCT<{ddl}>>", "timers": "event time, window end - 2"}
            for name, ddl in ((LEFT_RECORDS, left_ddl), (RIGHT_RECORDS, right_ddl))}


class WindowJoinProcessor(Processor):
    """Loads a key's buffered windows, fires what is due, buffers the rows, writes back."""

    def init(self, handle) -> None:
        self.handle = handle
        self.sides = {is_left: handle.getMapState(name, self.layout[name]["key"],
                                                  self.layout[name]["value"])
                      for is_left, name in ((True, LEFT_RECORDS), (False, RIGHT_RECORDS))}
        predicate = join_condition(self.params.condition,
                                   self.params.condition_names or self.params.output_names)
        self.core = WindowJoinCore(self.params, predicate)

    def _load(self, is_left: bool) -> Windows:
        return {int(plain(k)[0]): [plain(row) for row in plain(v)[0] or ()]
                for k, v in self.sides[is_left].iterator()}

    def _run(self, key, rows: list, watermark: int, firing: Optional[int]) -> Iterator:
        key = tuple(key)[:max(len(self.params.filter_nulls), 1)]
        registered = set(self.handle.listTimers())
        left, right = self._load(True), self._load(False)
        dirty: set = set()
        out: list[Output] = []
        self.core.fire_due(key, left, right, dirty, watermark, out)
        for is_left, kind, row in rows:
            self.core.process(is_left, kind, row, left, right, dirty, watermark)
        for is_left, window_end in dirty:
            windows = left if is_left else right
            if window_end in windows:
                self.sides[is_left].updateValue((window_end,), (windows[window_end],))
            else:
                self.sides[is_left].removeKey((window_end,))
        rearm_window_timers(self.handle, set(left) | set(right), registered, firing)
        return emitted(out, self.params.output_names)

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        decoded = []
        for row in rows:
            is_left = row[SIDE_COLUMN] == 0
            decoded.append((is_left, RowKind.from_code(row[KIND_COLUMN]),
                            plain(row[LEFT_ROW] if is_left else row[RIGHT_ROW])))
        return self._run(key, decoded, timerValues.getCurrentWatermarkInMs(), None)

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator:
        return self._run(key, [], timerValues.getCurrentWatermarkInMs(),
                         expiredTimerInfo.getExpiryTimeInMs())
