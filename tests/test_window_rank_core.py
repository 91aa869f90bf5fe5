"""Window Top-N without Spark: Flink's SyncStateWindowRankProcessor with TopNRecordsCombiner
(WindowRankOperatorTest's shapes: top N per key and window, rows emitted when the window's
timer fires, late rows dropped, state cleared after firing), and the processor on the
transformWithState stand-in. Rows are (key, score, window_end ms)."""
from __future__ import annotations

import pytest

from streamplan.changelog import OP_COLUMN, RowKind
from streamplan.errors import NotInsertOnlyError
from streamplan.runtime.window_aggregate import spark_timer
from streamplan.runtime.window_rank import (WINDOW_RANK_STATE, WindowRankCore, WindowRankParams,
                                            processor_class, state_layout)

from tws_standin import ExpiredTimerInfo, Handle, Store, TimerValues, fire_timers

I = RowKind.INSERT
S = 1000
SCORE_ASC = ((1, True, True),)


def params(rank_end=2, rank_start=1, rn=True, sort_key=SCORE_ASC):
    return WindowRankParams(window_end_index=2, sort_key=sort_key, rank_start=rank_start,
                            rank_end=rank_end, output_rank_number=rn)


class Windows:
    """One key's windows driven like the processor: fire what is due, then the batch."""

    def __init__(self, **kwargs):
        self.core = WindowRankCore(params(**kwargs))
        self.windows, self.timers, self.dirty = {}, set(), set()

    def batch(self, watermark, *rows, kind=I):
        out = []
        self.core.fire_due(self.windows, self.timers, self.dirty, watermark, out)
        late = self.core.process(self.windows, self.timers, self.dirty,
                                 [(kind, row) for row in rows], watermark)
        self.late = late
        return [list(values) for _, values in out]


def test_top_n_per_window_is_emitted_when_the_window_fires():
    w = Windows(rank_end=2)
    assert w.batch(0, ("a", 5, 10 * S), ("a", 3, 10 * S), ("a", 4, 20 * S)) == []
    assert w.batch(2 * S, ("a", 1, 10 * S), ("a", 9, 10 * S)) == []
    assert w.timers == {10 * S, 20 * S}
    assert w.batch(10 * S - 2) == []                          # timer 9999 not reached
    assert w.batch(10 * S - 1) == [["a", 1, 10 * S, 1], ["a", 3, 10 * S, 2]]
    assert set(w.windows) == {20 * S} and w.timers == {20 * S}   # clearWindow
    assert w.batch(10**12) == [["a", 4, 20 * S, 1]]
    assert w.windows == {} and w.timers == set()


def test_equal_sort_keys_rank_in_arrival_order_and_the_range_may_start_later():
    w = Windows(rank_start=2, rank_end=3)
    w.batch(0, ("x", 2, 10 * S), ("y", 1, 10 * S), ("z", 2, 10 * S), ("w", 2, 10 * S))
    assert w.batch(10 * S) == [["x", 2, 10 * S, 2], ["z", 2, 10 * S, 3]]


def test_without_the_rank_number_rows_are_emitted_as_they_are():
    w = Windows(rank_end=1, rn=False)
    w.batch(0, ("a", 2, 10 * S), ("b", 1, 10 * S))
    assert w.batch(10 * S) == [["b", 1, 10 * S]]


def test_nulls_sort_first_or_last_as_the_sort_key_says():
    first = Windows(rank_end=1, sort_key=((1, False, True),))     # DESC NULLS FIRST
    first.batch(0, ("a", 3, 10 * S), ("b", None, 10 * S))
    assert first.batch(10 * S) == [["b", None, 10 * S, 1]]
    last = Windows(rank_end=1, sort_key=((1, False, False),))     # DESC NULLS LAST
    last.batch(0, ("a", 3, 10 * S), ("b", None, 10 * S))
    assert last.batch(10 * S) == [["a", 3, 10 * S, 1]]


def test_a_row_of_a_fired_window_is_late_and_dropped():
    w = Windows()
    w.batch(0, ("a", 5, 10 * S))
    assert w.batch(10 * S - 1, ("a", 1, 10 * S)) == [["a", 5, 10 * S, 1]]
    assert w.late == 1 and w.windows == {} and w.timers == set()
    w.batch(10 * S - 1, ("a", 1, 20 * S))                    # the next window is open
    assert w.late == 0 and set(w.windows) == {20 * S}


def test_the_combiner_keeps_only_rows_that_can_still_rank():
    """TopNRecordsCombiner: a buffered row enters the flush's TopNBuffer only when
    checkSortKeyInBufferRange(sortKey, rankEnd) lets it; state rows are never evicted."""
    w = Windows(rank_end=2)
    w.batch(0, ("a", 1, 10 * S), ("b", 2, 10 * S), ("c", 3, 10 * S), ("d", 0, 10 * S))
    kept = w.windows[10 * S]
    assert {key: [r[0] for r in rows] for key, rows in kept.items()} == \
        {(0,): ["d"], (1,): ["a"], (2,): ["b"]}             # c came when 2 rows were better
    w.batch(0, ("e", 5, 10 * S))                              # a new flush: its buffer is empty
    assert (5,) in w.windows[10 * S]
    assert w.batch(10 * S) == [["d", 0, 10 * S, 1], ["a", 1, 10 * S, 2]]


def test_retractions_are_refused_as_flink_does():
    w = Windows()
    with pytest.raises(NotInsertOnlyError, match="Window rank does not support input RowKind"):
        w.batch(0, ("a", 1, 10 * S), kind=RowKind.DELETE)


# --- the processor on the transformWithState stand-in -------------------------------------------
NAMES = ("k", "v", "we")
OUT = ("k", "v", "we", "rn")


class KeyedRun:
    def __init__(self):
        p = params(rank_end=2)
        self.store = Store()
        self.store.key = ("a",)
        layout = state_layout(p, "`k`: STRING, `v`: INT, `we`: BIGINT")
        self.processor = processor_class(p)(p, layout, NAMES, OUT)
        self.processor.init(Handle(self.store))

    def batch(self, watermark, *rows):
        values = TimerValues(watermark)
        out = list(self.processor.handleInputRows(
            ("a",), iter([{**dict(zip(NAMES, row)), OP_COLUMN: I.code} for row in rows]),
            values)) if rows else []
        out += fire_timers(self.processor, self.store, values, watermark)
        return [(row["v"], row["we"], row["rn"]) for row in out]


def test_the_processor_keeps_one_map_entry_and_one_timer_per_pending_window():
    run = KeyedRun()
    assert run.batch(0, ("a", 3, 10 * S), ("a", 1, 10 * S), ("a", 7, 20 * S)) == []
    windows = run.store.maps[(WINDOW_RANK_STATE, ("a",))]
    assert sorted(windows) == [(10 * S,), (20 * S,)]
    assert run.store.timers == {(spark_timer(10 * S), ("a",)), (spark_timer(20 * S), ("a",))}
    assert run.batch(10 * S - 2) == []                        # Flink's timer 9999 not reached
    assert run.batch(10 * S - 1) == [(1, 10 * S, 1), (3, 10 * S, 2)]   # Spark's 9998 passed
    assert sorted(windows) == [(20 * S,)]
    assert run.batch(10**12) == [(7, 20 * S, 1)]
    assert windows == {} and run.store.timers == set()


def test_the_processor_fires_due_windows_before_a_batchs_rows():
    """Spark runs a batch's rows before its timers; Flink had fired the window before a row
    late for it arrived, so the late row must not reach it."""
    run = KeyedRun()
    run.batch(0, ("a", 5, 10 * S))
    assert run.batch(11 * S, ("a", 1, 10 * S)) == [(5, 10 * S, 1)]
    assert run.store.maps[(WINDOW_RANK_STATE, ("a",))] == {}


def test_over_a_window_aggregate_no_row_is_late():
    """The window aggregate's rows arrive in the micro-batch whose watermark fired their
    window; Flink's rank saw them before that watermark, so none is dropped."""
    core = WindowRankCore(WindowRankParams(2, SCORE_ASC, 1, 2, True, drop_late_rows=False))
    windows, timers, out = {}, set(), []
    assert core.process(windows, timers, set(), [(I, ("a", 3, 10 * S)), (I, ("b", 1, 10 * S))],
                        10 * S) == 0
    core.fire_due(windows, timers, set(), 10 * S, out)
    assert [values for _, values in out] == [("b", 1, 10 * S, 1), ("a", 3, 10 * S, 2)]
