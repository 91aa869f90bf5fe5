"""The over aggregate's process functions (Flink's operators/over) without Spark: each function
on the cases its Flink test harness covers (rows buffered until the watermark, rows of one row
time, late rows, bounded frames retracting, processing-time arrival, state retention), and the
processor's state and timers on a stand-in for transformWithState."""
from __future__ import annotations

import datetime as dt
import pickle

import pytest

from streamplan.changelog import OP_COLUMN, RowKind
from streamplan.errors import NotInsertOnlyError
from streamplan.runtime.group_aggregate import AggCall
from streamplan.runtime.over_aggregate import (
    INPUT_STATE, LAST_TRIGGERING_TS, MIN_ID, NON_TIME_RANGE_UNBOUNDED, NON_TIME_ROWS_UNBOUNDED,
    PROCTIME_RANGE_BOUNDED, PROCTIME_ROWS_BOUNDED, PROCTIME_UNBOUNDED, ROWTIME_RANGE_BOUNDED,
    ROWTIME_RANGE_UNBOUNDED, ROWTIME_ROWS_BOUNDED, ROWTIME_ROWS_UNBOUNDED, NonTimeOverCore,
    NonTimeRowsOverCore, NonTimeState, OverAggCore, OverAggParams, OverState, processor_class,
    state_layout)
from tws_standin import ExpiredTimerInfo, Handle, Store, TimerValues

EPOCH = dt.datetime(1970, 1, 1)
# rows: (k, v, ts); SUM(v), COUNT(*), MAX(v)
CALLS = (AggCall("SUM", 1, False, "BIGINT"), AggCall("COUNT", None, False, "BIGINT"),
         AggCall("MAX", 1, False, "BIGINT"))


def at(ms: int) -> dt.datetime:
    return EPOCH + dt.timedelta(milliseconds=ms)


def row(v: int, ms: int, k: str = "a") -> tuple:
    return (k, v, at(ms))


class Key:
    """One key through the core: `feed` runs a call with rows at a watermark and a time."""

    def __init__(self, rowtime: bool, rows: bool, preceding=None, ttl_ms: int = 0):
        self.core = OverAggCore(OverAggParams(CALLS, 2 if rowtime else None, rows, preceding,
                                              ttl_ms))
        self.state = OverState()

    def feed(self, *rows, watermark: int = 0, now: int = 0) -> list[tuple]:
        out: list = []
        self.core.run(self.state, [(RowKind.INSERT, r) for r in rows], watermark, now, out)
        return [(r[1], r[3], r[4], r[5]) for _, r in out]      # v, sum, count, max


@pytest.mark.parametrize("rowtime, rows, preceding, function", [
    (True, True, None, ROWTIME_ROWS_UNBOUNDED), (True, False, None, ROWTIME_RANGE_UNBOUNDED),
    (True, True, 3, ROWTIME_ROWS_BOUNDED), (True, False, 1000, ROWTIME_RANGE_BOUNDED),
    (False, True, None, PROCTIME_UNBOUNDED), (False, False, None, PROCTIME_UNBOUNDED),
    (False, True, 3, PROCTIME_ROWS_BOUNDED), (False, False, 1000, PROCTIME_RANGE_BOUNDED)])
def test_the_function_is_flinks_choice(rowtime, rows, preceding, function):
    assert OverAggParams(CALLS, 2 if rowtime else None, rows, preceding).function == function


def test_rowtime_rows_unbounded_waits_for_the_watermark_and_emits_row_by_row():
    key = Key(rowtime=True, rows=True)
    assert key.feed(row(1, 3000), row(2, 1000), row(5, 1000)) == []   # buffered (wm 0)
    assert key.state.timers == {1}
    # the watermark reaches 2000: the rows of 1000 in arrival order; 3000 waits
    assert key.feed(watermark=2000) == [(2, 2, 1, 2), (5, 7, 2, 5)]
    assert key.state.timers == {2001} and list(key.state.rows) == [3000]
    assert key.feed(row(9, 1500), watermark=2000) == []             # late: dropped
    assert key.core.late_dropped == 1
    assert key.feed(watermark=3000) == [(1, 8, 3, 5)]
    assert key.state.rows == {} and key.state.timers == set()


def test_rowtime_range_unbounded_gives_the_rows_of_one_row_time_one_value():
    key = Key(rowtime=True, rows=False)
    key.feed(row(2, 1000), row(5, 1000), row(1, 2000), watermark=500)
    assert key.feed(watermark=5000) == [(2, 7, 2, 5), (5, 7, 2, 5), (1, 8, 3, 5)]
    # a row at the watermark is late (Flink keeps only row time > watermark)
    assert key.feed(row(4, 5000), watermark=5000) == []


def test_rowtime_rows_bounded_retracts_the_oldest_row():
    key = Key(rowtime=True, rows=True, preceding=2)       # ROWS 1 PRECEDING: 2 rows
    key.feed(row(1, 1000), row(2, 2000), row(3, 2000), row(4, 3000), watermark=0)
    assert key.state.timers == {1000, 2000, 3000}
    assert key.feed(watermark=10_000) == [(1, 1, 1, 1), (2, 3, 2, 2), (3, 5, 2, 3),
                                          (4, 7, 2, 4)]
    # the rows still in the frame stay in inputState: 2000's second row, and 3000's
    assert key.state.rows == {2000: [row(3, 2000)], 3000: [row(4, 3000)]}
    assert key.state.last_triggering_ts == 3000 and key.state.counter == 2


def test_rowtime_bounded_drops_rows_at_or_before_the_last_fired_row_time_not_the_watermark():
    key = Key(rowtime=True, rows=True, preceding=2)
    key.feed(row(1, 1000), watermark=0)
    assert key.feed(row(2, 3000), watermark=2000) == [(1, 1, 1, 1)]
    # behind the watermark but after the last fired row time (1000): kept, fires at once
    assert key.feed(row(7, 1500), watermark=2000) == []
    assert key.feed(watermark=2000) == [(7, 8, 2, 7)]
    assert key.feed(row(9, 1200), watermark=2000) == []  # before 1500: dropped
    assert key.core.late_dropped == 1
    assert key.feed(watermark=4000) == [(2, 9, 2, 7)]


def test_rowtime_range_bounded_retracts_rows_out_of_the_interval_and_cleans_up():
    key = Key(rowtime=True, rows=False, preceding=1000)   # RANGE INTERVAL '1' SECOND
    key.feed(row(1, 1000), row(2, 1500), row(3, 1500), row(4, 2600), watermark=0)
    assert key.state.cleanup_ts == 2600 + 1500 + 1
    assert key.feed(watermark=3000) == [(1, 1, 1, 1), (2, 6, 3, 3), (3, 6, 3, 3),
                                        (4, 4, 1, 4)]
    assert list(key.state.rows) == [2600]
    # the cleanup timer (row time + 1.5 offset + 1) clears the key
    assert key.feed(watermark=4101) == []
    assert key.state.rows == {} and key.state.acc is None and key.state.cleanup_ts is None


def test_proctime_unbounded_emits_at_once():
    key = Key(rowtime=False, rows=True)
    assert key.feed(row(1, 0), row(2, 0), now=10) == [(1, 1, 1, 1), (2, 3, 2, 2)]
    assert key.feed(row(-4, 0), now=20) == [(-4, -1, 3, 2)]


def test_proctime_rows_bounded_retracts_the_oldest_arrival():
    key = Key(rowtime=False, rows=True, preceding=2)
    assert key.feed(row(1, 0), row(2, 0), now=10) == [(1, 1, 1, 1), (2, 3, 2, 2)]
    assert key.feed(row(5, 0), now=20) == [(5, 7, 2, 5)]
    assert key.state.smallest_ts == 10 and key.state.rows == {10: [row(2, 0)], 20: [row(5, 0)]}
    assert key.feed(row(0, 0), now=30) == [(0, 5, 2, 5)]
    assert key.state.smallest_ts == 20


def test_proctime_range_bounded_emits_a_millisecond_later_with_one_value():
    key = Key(rowtime=False, rows=False, preceding=1000)
    assert key.feed(row(1, 0), row(2, 0), now=10) == []
    assert key.state.timers == {11, 10 + 1500 + 1}
    assert key.feed(row(4, 0), now=600) == [(1, 3, 2, 2), (2, 3, 2, 2)]
    assert key.feed(now=1200) == [(4, 7, 3, 4)]
    assert key.feed(row(8, 0), now=1500) == []
    assert key.feed(now=1700) == [(8, 12, 2, 8)]        # 10 is out of [500, 1500]


def test_state_retention_clears_a_key_once_no_row_waits():
    key = Key(rowtime=True, rows=True, ttl_ms=1000)      # min 1000, max 1500
    key.feed(row(1, 1000), watermark=0, now=0)
    assert key.state.cleanup_time == 1500
    # the cleanup time came while a row still waited: kept, moved to then + 1500
    key.feed(watermark=0, now=2000)
    assert key.state.rows and key.state.cleanup_time == 3000
    assert key.feed(watermark=1000, now=2100) == [(1, 1, 1, 1)]
    assert key.state.cleanup_time == 3600                # 2100 + 1000 passed 3000: moved
    key.feed(watermark=1000, now=2200)
    assert key.state.cleanup_time == 3600                # 2200 + 1000 does not pass it
    assert key.feed(row(2, 5000), watermark=1000, now=3700) == []
    assert key.state.acc is None                         # cleared before the row came
    assert key.feed(watermark=6000, now=3800) == [(2, 2, 1, 2)]


def test_no_retention_without_a_ttl_and_for_proctime_unbounded():
    key = Key(rowtime=True, rows=False)
    key.feed(row(1, 1000), watermark=0, now=0)
    assert key.state.cleanup_time is None
    assert Key(rowtime=False, rows=True, ttl_ms=1000).core.cleaning is False


def test_only_inserts():
    key = Key(rowtime=True, rows=True)
    with pytest.raises(NotInsertOnlyError):
        key.core.run(key.state, [(RowKind.UPDATE_AFTER, row(1, 1))], 0, 0, [])


def test_state_layout_names_flinks_states():
    params = OverAggParams(CALLS, 2, True, 3, 1000)
    layout = state_layout(params, "k: STRING", "STRUCT<rowCount: BIGINT>", "`k`: STRING")
    assert set(layout) == {"accState", INPUT_STATE, LAST_TRIGGERING_TS, "processedCountState",
                           "RowTimeBoundedRowsOverCleanupTime"}
    unbounded = state_layout(OverAggParams(CALLS, None, True), "k: STRING", "STRUCT<rowCount: BIGINT>",
                             "`k`: STRING")
    assert set(unbounded) == {"accState"} and unbounded["accState"]["ttl"] == "processing-time"


# --- the processor on a stand-in for transformWithState --------------------------------------

NAMES = ("k", "v", "ts")
OUT = ("k", "v", "ts", "s", "c", "m")


class KeyedRun:
    """One key's calls, as Spark makes them: the batch's rows, then the timers the watermark
    reached (Spark 4.3 calls a timer t once t <= watermark)."""

    def __init__(self, params: OverAggParams):
        self.store = Store()
        self.store.key = ("a",)
        layout = state_layout(params, "k: STRING, v: BIGINT, ts: TIMESTAMP",
                              "STRUCT<rowCount: BIGINT>", "`k`: STRING")
        self.processor = processor_class(params)(params, layout, NAMES, OUT)
        self.processor.init(Handle(self.store))

    def batch(self, watermark: int, *rows) -> list[tuple]:
        values = TimerValues(watermark)
        out = list(self.processor.handleInputRows(
            ("a",), iter([{**dict(zip(NAMES, r)), OP_COLUMN: RowKind.INSERT.code} for r in rows]),
            values)) if rows else []
        # Spark lists the expired timers first, then calls for each (even one deleted since)
        for time, key in sorted(t for t in self.store.timers if t[0] <= watermark):
            out += self.processor.handleExpiredTimer(key, values, ExpiredTimerInfo(time))
            self.store.timers.discard((time, key))
        return [(r["v"], r["s"]) for r in out]


def test_the_processor_keeps_rows_by_row_time_and_flinks_timers():
    run = KeyedRun(OverAggParams(CALLS, 2, True, 2))
    assert run.batch(0, row(1, 1000), row(2, 2000)) == []
    assert sorted(run.store.maps[(INPUT_STATE, ("a",))]) == [(1000,), (2000,)]
    assert run.store.timers == {(1000, ("a",)), (2000, ("a",))}   # Flink's timers
    assert run.batch(1500) == [(1, 1)]
    assert run.batch(1500, row(3, 2000)) == []                     # joins 2000's list
    assert run.batch(2000) == [(2, 3), (3, 5)]
    assert sorted(run.store.maps[(INPUT_STATE, ("a",))]) == [(2000,)]
    assert run.store.values[(LAST_TRIGGERING_TS, ("a",))] is not None
    assert run.store.timers == set()


def test_a_timer_call_fires_the_timers_up_to_its_own():
    """Two timers expire in one batch: each call fires its own, none twice (the rows of a
    bounded frame stay in state after their timer)."""
    run = KeyedRun(OverAggParams(CALLS, 2, True, 2))
    assert run.batch(0, row(1, 1000), row(2, 2000)) == []
    assert run.batch(4000) == [(1, 1), (2, 3)]
    assert run.batch(5000) == []


def test_an_unbounded_timer_at_the_next_watermark_survives_its_call():
    """RowTimeRowsUnboundedPrecedingFunction's timer is at watermark + 1: Spark's call at
    that watermark is the timer's, which then fires (none is lost before it is due)."""
    run = KeyedRun(OverAggParams(CALLS, 2, True))
    assert run.batch(0, row(1, 1000)) == []
    assert run.store.timers == {(1, ("a",))}
    assert run.batch(500, row(2, 3000)) == []
    assert run.batch(1000) == [(1, 1)]
    assert run.store.timers == {(1001, ("a",))}
    assert run.batch(3000) == [(2, 3)] and run.store.timers == set()


def test_the_processor_fires_due_timers_before_a_batchs_rows():
    run = KeyedRun(OverAggParams(CALLS, 2, True))                  # ROWS unbounded
    assert run.batch(0, row(1, 1000)) == []
    # the watermark passed 1000 before this batch: Flink emitted 1000 before the late row came
    assert run.batch(1500, row(2, 1200)) == [(1, 1)]
    assert run.batch(5000) == []
    assert run.store.timers == set()


# --- a non-time ORDER BY: NonTimeRangeUnboundedPrecedingFunction -------------------------------
# Flink's NonTimeRangeUnboundedPrecedingFunctionTest: rows (key, val, ts), SUM(val) OVER
# (PARTITION BY key ORDER BY val RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW); the
# expected rows are that test's.

SUM_VAL = (AggCall("SUM", 1, False, "BIGINT"),)
NON_TIME = OverAggParams(SUM_VAL, None, False, sort_key=(1, True, True))
NON_TIME_ROWS = OverAggParams(SUM_VAL, None, True, sort_key=(1, True, True))
I, UB, UA, D = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE


class Partitions:
    """One core, a state per partition key (the key column), row by row."""

    def __init__(self, params: OverAggParams = NON_TIME):
        self.core = (NonTimeRowsOverCore if params.rows else NonTimeOverCore)(params)
        self.states: dict = {}

    def feed(self, *changes) -> list[tuple]:
        out: list = []
        for kind, values in changes:
            self.core.process(self.states.setdefault(values[0], NonTimeState()), kind, values,
                              out)
        return [(RowKind.from_code(code), *values) for code, values in out]


def ins(*values):
    return (I, values)


def test_the_non_time_function_is_flinks_choice():
    assert NON_TIME.function == NON_TIME_RANGE_UNBOUNDED
    assert NON_TIME_ROWS.function == NON_TIME_ROWS_UNBOUNDED == \
        "NonTimeRowsUnboundedPrecedingFunction"
    with pytest.raises(ValueError, match="bounded OVER window"):
        OverAggParams(SUM_VAL, None, False, 1000, sort_key=(1, True, True)).function


def test_non_time_inserts_in_order_and_out_of_order():
    """testInsertOnlyRecordsWithCustomSortKey: a row with an earlier sort key updates every
    later row of its partition."""
    run = Partitions()
    assert run.feed(ins("key1", 1, 100), ins("key1", 2, 200), ins("key1", 5, 500),
                    ins("key1", 6, 600), ins("key2", 1, 100), ins("key2", 2, 200),
                    ins("key1", 4, 400)) == [
        (I, "key1", 1, 100, 1), (I, "key1", 2, 200, 3), (I, "key1", 5, 500, 8),
        (I, "key1", 6, 600, 14), (I, "key2", 1, 100, 1), (I, "key2", 2, 200, 3),
        (I, "key1", 4, 400, 7), (UB, "key1", 5, 500, 8), (UA, "key1", 5, 500, 12),
        (UB, "key1", 6, 600, 14), (UA, "key1", 6, 600, 18)]


def test_non_time_rows_of_one_sort_key_share_one_value():
    """testInsertOnlyRecordsWithDuplicateSortKeys: RANGE gives every row of a sort key the
    same value; a new row of a known key updates the rows before it, then comes itself."""
    run = Partitions()
    assert run.feed(ins("key1", 1, 100), ins("key1", 2, 200), ins("key1", 5, 500),
                    ins("key1", 5, 502), ins("key1", 5, 501), ins("key1", 6, 600),
                    ins("key2", 1, 100), ins("key2", 2, 200), ins("key1", 2, 203),
                    ins("key1", 2, 201), ins("key1", 4, 400)) == [
        (I, "key1", 1, 100, 1), (I, "key1", 2, 200, 3), (I, "key1", 5, 500, 8),
        (UB, "key1", 5, 500, 8), (UA, "key1", 5, 500, 13), (I, "key1", 5, 502, 13),
        (UB, "key1", 5, 500, 13), (UA, "key1", 5, 500, 18), (UB, "key1", 5, 502, 13),
        (UA, "key1", 5, 502, 18), (I, "key1", 5, 501, 18), (I, "key1", 6, 600, 24),
        (I, "key2", 1, 100, 1), (I, "key2", 2, 200, 3),
        (UB, "key1", 2, 200, 3), (UA, "key1", 2, 200, 5), (I, "key1", 2, 203, 5),
        (UB, "key1", 5, 500, 18), (UA, "key1", 5, 500, 20), (UB, "key1", 5, 502, 18),
        (UA, "key1", 5, 502, 20), (UB, "key1", 5, 501, 18), (UA, "key1", 5, 501, 20),
        (UB, "key1", 6, 600, 24), (UA, "key1", 6, 600, 26),
        (UB, "key1", 2, 200, 5), (UA, "key1", 2, 200, 7), (UB, "key1", 2, 203, 5),
        (UA, "key1", 2, 203, 7), (I, "key1", 2, 201, 7),
        (UB, "key1", 5, 500, 20), (UA, "key1", 5, 500, 22), (UB, "key1", 5, 502, 20),
        (UA, "key1", 5, 502, 22), (UB, "key1", 5, 501, 20), (UA, "key1", 5, 501, 22),
        (UB, "key1", 6, 600, 26), (UA, "key1", 6, 600, 28),
        (I, "key1", 4, 400, 11), (UB, "key1", 5, 500, 22), (UA, "key1", 5, 500, 26),
        (UB, "key1", 5, 502, 22), (UA, "key1", 5, 502, 26), (UB, "key1", 5, 501, 22),
        (UA, "key1", 5, 501, 26), (UB, "key1", 6, 600, 28), (UA, "key1", 6, 600, 32)]


def test_non_time_retraction():
    """testRetractingRecordsWithCustomSortKey: -U removes the row (retracted with its old
    value as -D, collectDelete) and updates the later rows; +U inserts as +U."""
    run = Partitions()
    out = run.feed(ins("key1", 1, 100), ins("key1", 2, 200), ins("key1", 5, 500),
                   ins("key1", 6, 600), (UB, ("key1", 2, 200)), (UA, ("key1", 3, 200)))
    assert out[4:] == [
        (D, "key1", 2, 200, 3), (UB, "key1", 5, 500, 8), (UA, "key1", 5, 500, 6),
        (UB, "key1", 6, 600, 14), (UA, "key1", 6, 600, 12), (UA, "key1", 3, 200, 4),
        (UB, "key1", 5, 500, 6), (UA, "key1", 5, 500, 9), (UB, "key1", 6, 600, 12),
        (UA, "key1", 6, 600, 15)]
    assert run.feed(ins("key1", 4, 400), (UB, ("key1", 3, 200)), (UA, ("key1", 3, 300))) == [
        (I, "key1", 4, 400, 8), (UB, "key1", 5, 500, 9), (UA, "key1", 5, 500, 13),
        (UB, "key1", 6, 600, 15), (UA, "key1", 6, 600, 19),
        (D, "key1", 3, 200, 4), (UB, "key1", 4, 400, 8), (UA, "key1", 4, 400, 5),
        (UB, "key1", 5, 500, 13), (UA, "key1", 5, 500, 10), (UB, "key1", 6, 600, 19),
        (UA, "key1", 6, 600, 16),
        (UA, "key1", 3, 300, 4), (UB, "key1", 4, 400, 5), (UA, "key1", 4, 400, 8),
        (UB, "key1", 5, 500, 10), (UA, "key1", 5, 500, 13), (UB, "key1", 6, 600, 16),
        (UA, "key1", 6, 600, 19)]
    state = run.states["key1"]
    assert [key for key, _ in state.sorted_list] == [(1,), (3,), (4,), (5,), (6,)]
    assert len(state.values) == 5 and state.next_id == MIN_ID + 7


def test_non_time_retraction_within_one_sort_key_and_of_an_unknown_row():
    run = Partitions()
    run.feed(ins("key1", 1, 100), ins("key1", 2, 200), ins("key1", 2, 201), ins("key1", 5, 500))
    # the other row of sort key 2 and the later row are updated
    assert run.feed((D, ("key1", 2, 200))) == [
        (D, "key1", 2, 200, 5), (UB, "key1", 2, 201, 5), (UA, "key1", 2, 201, 3),
        (UB, "key1", 5, 500, 10), (UA, "key1", 5, 500, 8)]
    # no such row, no such sort key: skipped (Flink's numOfIdsNotFound, numOfSortKeysNotFound)
    assert run.feed((D, ("key1", 2, 999)), (D, ("key1", 9, 900))) == []
    assert (run.core.ids_not_found, run.core.sort_keys_not_found) == (1, 1)


def test_non_time_skips_the_updates_of_an_unchanged_aggregate():
    """emitUpdatesForIds / processRemainingElements compare the accumulators (Flink's SUM(x)
    OVER is COUNT(x) and $SUM0(x)): a row that leaves them as they were updates no other row;
    a 0 counts, so it updates them, to the same value."""
    params = OverAggParams((AggCall("SUM", 2, False, "BIGINT"),), None, False,
                           sort_key=(1, True, True))   # SUM(ts) OVER (ORDER BY val)
    run = Partitions(params)
    run.feed(ins("k", 1, 10), ins("k", 3, 30))
    assert run.feed(ins("k", 1, None)) == [(I, "k", 1, None, 10)]   # joins 1: the same sum
    assert run.feed((D, ("k", 1, None))) == [(D, "k", 1, None, 10)]
    assert run.feed(ins("k", 0, None)) == [(I, "k", 0, None, None)]
    assert run.feed(ins("k", 2, 0)) == [(I, "k", 2, 0, 10), (UB, "k", 3, 30, 40),
                                        (UA, "k", 3, 30, 40)]


def test_non_time_null_sort_keys_come_first_or_last():
    first = Partitions()
    first.feed(ins("k", 2, 1))
    assert first.feed(ins("k", None, 2)) == [(I, "k", None, 2, None)]   # before 2; sum NULL
    last = Partitions(OverAggParams(SUM_VAL, None, False, sort_key=(1, True, False)))
    last.feed(ins("k", 2, 1))
    # after 2; the second NULL leaves the sum as it was: no update of the first
    assert last.feed(ins("k", None, 2), ins("k", None, 3)) == [
        (I, "k", None, 2, 2), (I, "k", None, 3, 2)]


def test_non_time_state_layout_names_flinks_states():
    layout = state_layout(NON_TIME, "`key`: STRING, `val`: BIGINT, `ts`: BIGINT",
                          "STRUCT<rowCount: BIGINT, a0: STRUCT<total: BIGINT, count: BIGINT>>",
                          "`key`: STRING", "`val`: BIGINT")
    assert list(layout) == ["idState", "sortedListState", "valueMapState", "accMapState"]
    assert {spec["ttl"] for spec in layout.values()} == {"processing-time"}
    assert layout["accMapState"]["key"] == "sortKey STRUCT<`val`: BIGINT>"


def non_time_processor(params):
    """A non-time over processor of `key1` over a fresh store: (its layout, the store, a
    function feeding one micro-batch of (kind, values) and returning its output rows)."""
    names, out_names = ("key", "val", "ts"), ("key", "val", "ts", "sum_val")
    layout = state_layout(params, "`key`: STRING, `val`: BIGINT, `ts`: BIGINT",
                          "STRUCT<rowCount: BIGINT, a0: STRUCT<total: BIGINT, count: BIGINT>>",
                          "`key`: STRING", "`val`: BIGINT")
    store = Store()
    store.key = ("key1",)
    processor = processor_class(params)(params, layout, names, out_names)
    processor.init(Handle(store))

    def batch(*changes):
        rows = [{**dict(zip(names, values)), OP_COLUMN: kind.code} for kind, values in changes]
        return [(RowKind.from_code(r[OP_COLUMN]), *(r[n] for n in out_names))
                for r in processor.handleInputRows(("key1",), iter(rows), TimerValues(0))]
    return layout, store, batch


NON_TIME_BATCHES = ([ins("key1", 5, 500), ins("key1", 2, 200), ins("key1", 2, 201),
                     ins("key1", None, 1)],
                    [ins("key1", 1, 100), (UB, ("key1", 2, 200)), (UA, ("key1", 6, 200))])


def test_the_non_time_processor_runs_a_batch_as_the_core_runs_its_rows():
    """Several rows of one partition in one micro-batch, then another batch from state: the
    same changelog as the core row by row; each state read once a batch."""
    _, store, batch = non_time_processor(NON_TIME)
    first, second = NON_TIME_BATCHES
    expected = Partitions()
    assert batch(*first) == expected.feed(*first)
    store.calls.clear()
    assert batch(*second) == expected.feed(*second)
    assert store.calls["value.get"] == 2 and store.calls["map.iterator"] == 2
    assert store.values[("idState", ("key1",))] == pickle.dumps((MIN_ID + 6,))
    assert sorted(store.maps[("valueMapState", ("key1",))]) == [
        (MIN_ID + n,) for n in (0, 2, 3, 4, 5)]
    assert len(store.maps[("accMapState", ("key1",))]) == 5       # NULL, 1, 2, 5, 6


# --- ROWS: NonTimeRowsUnboundedPrecedingFunction ------------------------------------------------
# Flink's NonTimeRowsUnboundedPrecedingFunctionTest: the same rows, SUM(val) OVER (PARTITION BY
# key ORDER BY val ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW); expected rows that test's.

def test_non_time_rows_each_row_of_one_sort_key_has_its_own_value():
    """testInsertOnlyRecordsWithDuplicateSortKeys: a new row of a known sort key comes after
    its rows and updates none of them, only the later keys' rows."""
    run = Partitions(NON_TIME_ROWS)
    assert run.feed(ins("key1", 1, 100), ins("key1", 2, 200), ins("key1", 5, 500),
                    ins("key1", 5, 502), ins("key1", 5, 501), ins("key1", 6, 600),
                    ins("key2", 1, 100), ins("key2", 2, 200), ins("key1", 2, 203),
                    ins("key1", 2, 201), ins("key1", 4, 400)) == [
        (I, "key1", 1, 100, 1), (I, "key1", 2, 200, 3), (I, "key1", 5, 500, 8),
        (I, "key1", 5, 502, 13), (I, "key1", 5, 501, 18), (I, "key1", 6, 600, 24),
        (I, "key2", 1, 100, 1), (I, "key2", 2, 200, 3), (I, "key1", 2, 203, 5),
        (UB, "key1", 5, 500, 8), (UA, "key1", 5, 500, 10), (UB, "key1", 5, 502, 13),
        (UA, "key1", 5, 502, 15), (UB, "key1", 5, 501, 18), (UA, "key1", 5, 501, 20),
        (UB, "key1", 6, 600, 24), (UA, "key1", 6, 600, 26), (I, "key1", 2, 201, 7),
        (UB, "key1", 5, 500, 10), (UA, "key1", 5, 500, 12), (UB, "key1", 5, 502, 15),
        (UA, "key1", 5, 502, 17), (UB, "key1", 5, 501, 20), (UA, "key1", 5, 501, 22),
        (UB, "key1", 6, 600, 26), (UA, "key1", 6, 600, 28), (I, "key1", 4, 400, 11),
        (UB, "key1", 5, 500, 12), (UA, "key1", 5, 500, 16), (UB, "key1", 5, 502, 17),
        (UA, "key1", 5, 502, 21), (UB, "key1", 5, 501, 22), (UA, "key1", 5, 501, 26),
        (UB, "key1", 6, 600, 28), (UA, "key1", 6, 600, 32)]


def test_non_time_rows_retraction():
    """testRetractingRecordsWithCustomSortKey: the same changelog as RANGE (one row a key)."""
    run = Partitions(NON_TIME_ROWS)
    out = run.feed(ins("key1", 1, 100), ins("key1", 2, 200), ins("key1", 5, 500),
                   ins("key1", 6, 600), (UB, ("key1", 2, 200)), (UA, ("key1", 3, 200)),
                   ins("key2", 1, 100), ins("key2", 2, 200), ins("key3", 1, 100),
                   ins("key1", 4, 400), (UB, ("key1", 3, 200)), (UA, ("key1", 3, 300)))
    assert out[4:] == [
        (D, "key1", 2, 200, 3), (UB, "key1", 5, 500, 8), (UA, "key1", 5, 500, 6),
        (UB, "key1", 6, 600, 14), (UA, "key1", 6, 600, 12), (UA, "key1", 3, 200, 4),
        (UB, "key1", 5, 500, 6), (UA, "key1", 5, 500, 9), (UB, "key1", 6, 600, 12),
        (UA, "key1", 6, 600, 15), (I, "key2", 1, 100, 1), (I, "key2", 2, 200, 3),
        (I, "key3", 1, 100, 1), (I, "key1", 4, 400, 8), (UB, "key1", 5, 500, 9),
        (UA, "key1", 5, 500, 13), (UB, "key1", 6, 600, 15), (UA, "key1", 6, 600, 19),
        (D, "key1", 3, 200, 4), (UB, "key1", 4, 400, 8), (UA, "key1", 4, 400, 5),
        (UB, "key1", 5, 500, 13), (UA, "key1", 5, 500, 10), (UB, "key1", 6, 600, 19),
        (UA, "key1", 6, 600, 16), (UA, "key1", 3, 300, 4), (UB, "key1", 4, 400, 5),
        (UA, "key1", 4, 400, 8), (UB, "key1", 5, 500, 10), (UA, "key1", 5, 500, 13),
        (UB, "key1", 6, 600, 16), (UA, "key1", 6, 600, 19)]


DUPLICATES = (ins("key1", 1, 100), ins("key1", 2, 200), ins("key1", 2, 201),
              ins("key1", 5, 500), ins("key1", 5, 502), ins("key1", 5, 501), ins("key1", 6, 600))


@pytest.mark.parametrize("removed, expected", [
    # testRetractWithFirstDuplicateSortKey
    (500, [(D, "key1", 5, 500, 10), (UB, "key1", 5, 502, 15), (UA, "key1", 5, 502, 10),
           (UB, "key1", 5, 501, 20), (UA, "key1", 5, 501, 15), (UB, "key1", 6, 600, 26),
           (UA, "key1", 6, 600, 21)]),
    # testRetractWithMiddleDuplicateSortKey
    (502, [(D, "key1", 5, 502, 15), (UB, "key1", 5, 501, 20), (UA, "key1", 5, 501, 15),
           (UB, "key1", 6, 600, 26), (UA, "key1", 6, 600, 21)]),
    # testRetractWithLastDuplicateSortKey
    (501, [(D, "key1", 5, 501, 20), (UB, "key1", 6, 600, 26), (UA, "key1", 6, 600, 21)]),
])
def test_non_time_rows_retraction_within_one_sort_key(removed, expected):
    """The removed row's old value as -D; the key's later rows from the row before it."""
    run = Partitions(NON_TIME_ROWS)
    assert [row[-1] for row in run.feed(*DUPLICATES)] == [1, 3, 5, 10, 15, 20, 26]
    assert run.feed((UB, ("key1", 5, removed))) == expected


def test_non_time_rows_descending_sort():
    """testRetractWithDescendingSort."""
    run = Partitions(OverAggParams(SUM_VAL, None, True, sort_key=(1, False, False)))
    assert run.feed(ins("key1", 1, 100), ins("key1", 2, 200), ins("key1", 2, 201),
                    ins("key1", 5, 500), ins("key1", 6, 600), (UB, ("key1", 2, 200))) == [
        (I, "key1", 1, 100, 1), (I, "key1", 2, 200, 2), (UB, "key1", 1, 100, 1),
        (UA, "key1", 1, 100, 3), (I, "key1", 2, 201, 4), (UB, "key1", 1, 100, 3),
        (UA, "key1", 1, 100, 5), (I, "key1", 5, 500, 5), (UB, "key1", 2, 200, 2),
        (UA, "key1", 2, 200, 7), (UB, "key1", 2, 201, 4), (UA, "key1", 2, 201, 9),
        (UB, "key1", 1, 100, 5), (UA, "key1", 1, 100, 10), (I, "key1", 6, 600, 6),
        (UB, "key1", 5, 500, 5), (UA, "key1", 5, 500, 11), (UB, "key1", 2, 200, 7),
        (UA, "key1", 2, 200, 13), (UB, "key1", 2, 201, 9), (UA, "key1", 2, 201, 15),
        (UB, "key1", 1, 100, 10), (UA, "key1", 1, 100, 16), (D, "key1", 2, 200, 13),
        (UB, "key1", 2, 201, 15), (UA, "key1", 2, 201, 13), (UB, "key1", 1, 100, 16),
        (UA, "key1", 1, 100, 14)]


def test_non_time_rows_retraction_stops_at_the_first_unchanged_row():
    """testRetractWithEarlyOut, with MAX(val) for Flink's test's sum-only aggregate (SQL's
    SUM also counts its values, so removing a 0 would change every later row's count):
    removing one of three rows of 0 leaves the next row's accumulators as they were, so
    nothing after it is updated."""
    run = Partitions(OverAggParams((AggCall("MAX", 1, False, "BIGINT"),), None, True,
                                   sort_key=(1, True, True)))
    rows = [(0, 100), (0, 101), (0, 102), (1, 100), (2, 200), (2, 201), (5, 500), (5, 502),
            (5, 501), (6, 600)]
    assert [row[-1] for row in run.feed(*(ins("key1", *r) for r in rows))] == \
        [0, 0, 0, 1, 2, 2, 5, 5, 5, 6]
    assert run.feed((UB, ("key1", 0, 100))) == [(D, "key1", 0, 100, 0)]


def test_non_time_rows_insert_and_retract_all():
    """testInsertAndRetractAllWithStateValidation: 28 rows in all, every row found, the state
    empty at the end (the accumulators under the rows' ids)."""
    run = Partitions(NON_TIME_ROWS)
    out = run.feed(*DUPLICATES)
    state = run.states["key1"]
    assert sorted(state.accs) == [MIN_ID + n for n in range(7)]
    for removed in ((5, 502), (6, 600), (2, 201), (2, 200), (5, 500), (5, 501), (1, 100)):
        out += run.feed((UB, ("key1", *removed)))
    assert len(out) == 28
    assert (run.core.sort_keys_not_found, run.core.ids_not_found) == (0, 0)
    assert (state.sorted_list, state.values, state.accs, state.next_id) == ([], {}, {},
                                                                            MIN_ID + 7)


def test_the_non_time_rows_processor_keeps_accumulators_by_id():
    layout, store, batch = non_time_processor(NON_TIME_ROWS)
    assert layout["accMapState"]["key"] == "id BIGINT"
    first, second = NON_TIME_BATCHES
    expected = Partitions(NON_TIME_ROWS)
    assert batch(*first) == expected.feed(*first)
    assert batch(*second) == expected.feed(*second)
    assert sorted(store.maps[("accMapState", ("key1",))]) == [
        (MIN_ID + n,) for n in (0, 2, 3, 4, 5)]


# LAG (Flink's LagAggFunction): rows (k, v, ts, offset, default); LAG(v), LAG(v, 2, -1)
LAG_CALLS = (AggCall("LAG", 1, False, "BIGINT", args=(1,)),
             AggCall("LAG", 1, False, "BIGINT", args=(1, 3, 4)))


def lag_feed(rows_frame: bool, rows: list[tuple], watermark: int) -> list[tuple]:
    core, state = OverAggCore(OverAggParams(LAG_CALLS, 2, rows_frame, None, 0)), OverState()
    out: list = []
    core.run(state, [(RowKind.INSERT, r + (2, -1)) for r in rows], 0, 0, out)   # buffered
    core.run(state, [], watermark, 0, out)                                      # fired
    return [(r[1], r[5], r[6]) for _, r in out]                 # v, LAG(v), LAG(v, 2, -1)


def test_lag_gives_the_value_rows_back_and_the_default_before_it_and_for_a_null():
    # NULLs count as rows; a NULL value gives the default (Flink 2.3's output)
    rows = [row(1, 10), row(None, 20), row(3, 30), row(4, 40)]
    assert lag_feed(True, rows, 100) == [(1, None, -1), (None, 1, -1), (3, None, 1),
                                         (4, 3, -1)]


def test_lag_in_a_range_frame_gives_the_rows_of_one_row_time_one_value():
    # RowTimeRangeUnboundedPrecedingFunction accumulates every row of a row time first
    rows = [row(1, 10), row(2, 20), row(3, 20), row(4, 30)]
    assert lag_feed(False, rows, 100) == [(1, None, -1), (2, 2, 1), (3, 2, 1), (4, 3, 2)]


def test_lag_keeps_its_buffer_offset_and_default_through_the_state_encoding():
    from streamplan.runtime.group_aggregate import _apply, _decode, _encode, _initial, _result
    from streamplan.runtime.group_aggregate import Accumulators

    call = LAG_CALLS[1]
    acc = _initial(call)
    for value in (5, None, 7, 8):
        acc = _apply(call, acc, (value, 2, -1), 1)
    assert acc == [[None, 7, 8], 2, -1] and _result(call, acc) == -1
    stored = _encode(Accumulators(4, [acc]), (call,))
    assert _decode(stored, (call,)).values == [[[None, 7, 8], 2, -1]]
    with pytest.raises(ValueError, match="cannot retract"):
        _apply(call, acc, (8, 2, -1), -1)
