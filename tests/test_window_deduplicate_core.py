"""Window deduplication without Spark: Flink's RowTimeSyncStateWindowDeduplicateProcessor with
RowTimeDeduplicateRecordsCombiner (RowTimeWindowDeduplicateOperatorTest's shapes: keep the
first or last row per key and window by row time, emit it when the window fires, drop late
rows), and the processor on the transformWithState stand-in. Rows are (id, rowtime ms,
window_end ms)."""
from __future__ import annotations

import pytest

from streamplan.changelog import OP_COLUMN, RowKind
from streamplan.errors import NotInsertOnlyError
from streamplan.runtime.window_aggregate import spark_timer
from streamplan.runtime.window_deduplicate import (WINDOW_DEDUPLICATE_STATE,
                                                   WindowDeduplicateCore,
                                                   WindowDeduplicateParams, processor_class,
                                                   state_layout)

from tws_standin import ExpiredTimerInfo, Handle, Store, TimerValues, fire_timers

I = RowKind.INSERT
S = 1000


class Windows:
    def __init__(self, keep_last_row):
        self.core = WindowDeduplicateCore(WindowDeduplicateParams(2, 1, keep_last_row))
        self.windows, self.timers, self.dirty = {}, set(), set()

    def batch(self, watermark, *rows, kind=I):
        out = []
        self.core.fire_due(self.windows, self.timers, self.dirty, watermark, out)
        self.late = self.core.process(self.windows, self.timers, self.dirty,
                                      [(kind, row) for row in rows], watermark)
        return [values[0] for _, values in out]


def test_keep_first_row_takes_the_earliest_row_time_the_first_on_ties():
    w = Windows(keep_last_row=False)
    w.batch(0, ("a", 5 * S, 10 * S), ("b", 3 * S, 10 * S), ("c", 3 * S, 10 * S))
    w.batch(0, ("d", 4 * S, 10 * S), ("e", 12 * S, 20 * S))   # a later flush: b stays
    assert w.batch(10 * S - 1) == ["b"]
    assert set(w.windows) == {20 * S}
    assert w.batch(10**12) == ["e"]
    assert w.windows == {} and w.timers == set()


def test_keep_last_row_takes_the_latest_row_time_the_last_on_ties():
    w = Windows(keep_last_row=True)
    w.batch(0, ("a", 5 * S, 10 * S), ("b", 7 * S, 10 * S), ("c", 7 * S, 10 * S))
    w.batch(0, ("d", 6 * S, 10 * S))
    assert w.batch(10 * S) == ["c"]


def test_a_row_of_a_fired_window_is_late_and_dropped():
    w = Windows(keep_last_row=True)
    w.batch(0, ("a", 5 * S, 10 * S))
    assert w.batch(10 * S - 1, ("b", 9 * S, 10 * S)) == ["a"]
    assert w.late == 1 and w.windows == {} and w.timers == set()


def test_retractions_are_refused_as_flink_does():
    w = Windows(keep_last_row=False)
    with pytest.raises(NotInsertOnlyError, match="Window deduplicate does not support"):
        w.batch(0, ("a", 1, 10 * S), kind=RowKind.UPDATE_BEFORE)


NAMES = ("id", "ts", "we")


def test_the_processor_keeps_the_row_per_window_and_one_timer_each():
    p = WindowDeduplicateParams(2, 1, False)
    store = Store()
    store.key = ("k",)
    processor = processor_class(p)(p, state_layout(p, "`id`: STRING, `ts`: BIGINT, `we`: BIGINT"),
                                   NAMES, NAMES)
    processor.init(Handle(store))

    def batch(watermark, *rows):
        values = TimerValues(watermark)
        out = list(processor.handleInputRows(
            ("k",), iter([{**dict(zip(NAMES, row)), OP_COLUMN: I.code} for row in rows]),
            values)) if rows else []
        out += fire_timers(processor, store, values, watermark)
        return [row["id"] for row in out]

    assert batch(0, ("a", 4 * S, 10 * S), ("b", 2 * S, 10 * S), ("c", 11 * S, 20 * S)) == []
    windows = store.maps[(WINDOW_DEDUPLICATE_STATE, ("k",))]
    assert sorted(windows) == [(10 * S,), (20 * S,)]
    assert store.timers == {(spark_timer(10 * S), ("k",)), (spark_timer(20 * S), ("k",))}
    assert batch(10 * S, ("d", 1 * S, 10 * S)) == ["b"]         # d is late: [0, 10 s) fired
    assert sorted(windows) == [(20 * S,)]
    assert batch(10**12) == ["c"]
    assert windows == {} and store.timers == set()
