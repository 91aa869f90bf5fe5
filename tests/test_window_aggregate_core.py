"""The window aggregate's slicing (Flink's SliceAssigners and slicing window processors)
without Spark: slice assignment, merging and cleanup per window kind, Flink's expected rows
of WindowAggregateTestPrograms on its data, late rows, and the processor's state and timers
on a stand-in for transformWithState."""
from __future__ import annotations

import datetime as dt

import pytest

from streamplan.changelog import OP_COLUMN, RowKind
from streamplan.errors import NotInsertOnlyError
from streamplan.runtime.group_aggregate import AggCall
from streamplan.runtime.window_aggregate import (
    CUMULATE, HOP, TUMBLE, WINDOW_AGGS, WINDOW_END, WINDOW_START, SliceAssigner, WindowAggCore,
    WindowAggParams, processor_class, spark_timer, state_layout)
from tws_standin import ExpiredTimerInfo, Handle, Store, TimerValues, fire_timers

S = 1000


def test_tumbling_slices_are_windows():
    tumble = SliceAssigner(TUMBLE, 5 * S, 5 * S)
    assert tumble.assign_slice_end(4999) == 5 * S and tumble.assign_slice_end(5 * S) == 10 * S
    assert tumble.merge(10 * S) == (10 * S, [])
    assert tumble.expired_slices(10 * S) == [10 * S]
    assert tumble.last_window_end(10 * S) == 10 * S
    with_offset = SliceAssigner(TUMBLE, 5 * S, 5 * S, 1 * S)
    assert with_offset.assign_slice_end(500) == 1 * S and with_offset.assign_slice_end(1 * S) == 6 * S
    assert with_offset.window_start(6 * S) == 1 * S


def test_hopping_windows_share_slices_of_the_gcd():
    hop = SliceAssigner(HOP, 10 * S, 2 * S)                  # slices of gcd(10, 2) = 2 s
    assert hop.slice_size == 2 * S
    assert hop.assign_slice_end(3 * S) == 4 * S
    assert hop.merge(12 * S) == (None, [12 * S, 10 * S, 8 * S, 6 * S, 4 * S])   # in memory
    assert hop.expired_slices(12 * S) == [4 * S]           # the window's first slice
    assert hop.last_window_end(4 * S) == 12 * S
    assert hop.next_trigger_window(12 * S, empty=False) == 14 * S
    assert hop.next_trigger_window(12 * S, empty=True) is None
    assert hop.window_start(5 * S) == -5 * S


def test_cumulative_windows_keep_the_merged_accumulator_in_the_first_slice():
    cumulate = SliceAssigner(CUMULATE, 15 * S, 5 * S)
    assert cumulate.window_start(10 * S) == 0 and cumulate.window_start(20 * S) == 15 * S
    assert cumulate.merge(5 * S) == (5 * S, [])              # the first slice is the window
    assert cumulate.merge(10 * S) == (5 * S, [10 * S])
    assert cumulate.merge_target(10 * S) == 5 * S            # a late row of slice 10 s
    assert cumulate.expired_slices(5 * S) == []
    assert cumulate.expired_slices(10 * S) == [10 * S]
    assert cumulate.expired_slices(15 * S) == [15 * S, 5 * S]
    assert cumulate.next_trigger_window(10 * S, empty=False) == 15 * S
    assert cumulate.next_trigger_window(15 * S, empty=False) is None
    assert cumulate.last_window_end(10 * S) == 15 * S


@pytest.mark.parametrize("kind, size, slide", [(HOP, 10 * S, 3 * S), (CUMULATE, 10 * S, 3 * S),
                                               (TUMBLE, 0, 0)])
def test_windows_flink_cannot_slice_are_refused(kind, size, slide):
    with pytest.raises(ValueError):
        SliceAssigner(kind, size, slide)


# --- Flink's WindowAggregateTestPrograms: its data and expected rows ---------------------------
BEFORE = [(1, 1, "Hi", "a"), (2, 2, "Comment#1", "a"), (3, 2, "Comment#1", "a"), (4, 5, None, "a"),
          (7, 3, "Hello", "b"), (6, 6, "Hi", "b"), (8, 3, "Comment#2", "a"), (4, 5, "Hi", "a"),
          (16, 4, "Hi", "b"), (32, 7, None, None), (34, 1, "Comment#3", "b")]
AFTER = [(40, 10, "Comment#4", "a"), (42, 11, "Comment#5", "d"), (43, 12, "Comment#6", "c"),
         (44, 13, "Comment#7", "d")]
CALLS = (AggCall("COUNT", None, False, "BIGINT NOT NULL"), AggCall("SUM", 1, False, "INT"),
         AggCall("COUNT", 2, True, "BIGINT NOT NULL"))


def at(seconds: int) -> dt.datetime:
    return dt.datetime(1970, 1, 1) + dt.timedelta(seconds=seconds)


def run_phases(assigner: SliceAssigner, calls=CALLS, phases=(BEFORE, AFTER), delay=S):
    """Flink's operator on per-record watermarks (max time - delay): each row sees the
    watermark of the rows before it; then windows due at the new watermark fire. Returns
    each phase's rows as Flink's strings, sorted; the last phase ends with the final
    watermark."""
    core = WindowAggCore(WindowAggParams(1, calls, assigner, 0, (WINDOW_START, WINDOW_END)))
    keys: dict = {}
    watermark, top = -10**15, None
    results = []
    for number, phase in enumerate(phases):
        out: list = []
        for seconds, *values in phase:
            name = values[-1]
            slices, timers = keys.setdefault(name, ({}, set()))
            core.process(slices, timers, set(), RowKind.INSERT, (at(seconds), *values[:-1]),
                         watermark)
            top = max(top or 0, seconds * S)
            watermark = top - delay
            for key, (slices, timers) in keys.items():
                core.fire_due((key,), slices, timers, set(), watermark, out)
        if number == len(phases) - 1:
            for key, (slices, timers) in keys.items():
                core.fire_due((key,), slices, timers, set(), 10**15, out)
        results.append(sorted(f"+I[{key}, {start:%H:%M:%S}, {end:%H:%M:%S}, {cnt}, {total}, {dv}]"
                              .replace("None", "null")
                              for _, (key, cnt, total, dv, start, end) in out))
    return results


def test_tumble_hop_and_cumulate_give_flinks_rows():
    tumble = run_phases(SliceAssigner(TUMBLE, 5 * S, 5 * S))
    assert tumble == [
        ["+I[a, 00:00:00, 00:00:05, 4, 10, 2]", "+I[a, 00:00:05, 00:00:10, 1, 3, 1]",
         "+I[b, 00:00:05, 00:00:10, 2, 9, 2]", "+I[b, 00:00:15, 00:00:20, 1, 4, 1]"],
        ["+I[a, 00:00:40, 00:00:45, 1, 10, 1]", "+I[b, 00:00:30, 00:00:35, 1, 1, 1]",
         "+I[c, 00:00:40, 00:00:45, 1, 12, 1]", "+I[d, 00:00:40, 00:00:45, 2, 24, 2]",
         "+I[null, 00:00:30, 00:00:35, 1, 7, 0]"]]
    hop = run_phases(SliceAssigner(HOP, 10 * S, 5 * S))
    # a's late row (4 s) misses [-5 s, 5 s), which fired, but counts in [0 s, 10 s)
    assert "+I[a, 23:59:55, 00:00:05, 4, 10, 2]" in hop[0]
    assert "+I[a, 00:00:00, 00:00:10, 6, 18, 3]" in hop[0]
    assert len(hop[0]) == 7 and len(hop[1]) == 10
    cumulate = run_phases(SliceAssigner(CUMULATE, 15 * S, 5 * S))
    assert cumulate[0] == [
        "+I[a, 00:00:00, 00:00:05, 4, 10, 2]", "+I[a, 00:00:00, 00:00:10, 6, 18, 3]",
        "+I[a, 00:00:00, 00:00:15, 6, 18, 3]", "+I[b, 00:00:00, 00:00:10, 2, 9, 2]",
        "+I[b, 00:00:00, 00:00:15, 2, 9, 2]", "+I[b, 00:00:15, 00:00:20, 1, 4, 1]",
        "+I[b, 00:00:15, 00:00:25, 1, 4, 1]", "+I[b, 00:00:15, 00:00:30, 1, 4, 1]"]
    assert len(cumulate[1]) == 9


def test_a_late_row_is_dropped_when_its_last_window_fired():
    core = WindowAggCore(WindowAggParams(0, CALLS[:1], SliceAssigner(TUMBLE, 5 * S, 5 * S), 0,
                                         (WINDOW_END,)))
    slices, timers, dirty = {}, set(), set()
    assert core.process(slices, timers, dirty, RowKind.INSERT, (at(1), 0, ""), watermark=0)
    out: list = []
    core.fire_due((), slices, timers, dirty, 5 * S - 1, out)
    assert [row for _, row in out] == [(1, at(5))]
    assert slices == {} and timers == set()                 # cleared after firing
    assert not core.process(slices, timers, dirty, RowKind.INSERT, (at(2), 0, ""), 5 * S - 1)
    assert slices == {} and timers == set()
    with pytest.raises(NotInsertOnlyError):
        core.process(slices, timers, dirty, RowKind.DELETE, (at(9), 0, ""), 0)


def test_a_hop_key_stops_at_its_first_empty_window():
    core = WindowAggCore(WindowAggParams(0, CALLS[:1], SliceAssigner(HOP, 10 * S, 5 * S), 0,
                                         (WINDOW_START,)))
    slices, timers, out = {}, set(), []
    core.process(slices, timers, set(), RowKind.INSERT, (at(1), 0, ""), 0)
    core.fire_due((), slices, timers, set(), 10**15, out)
    assert [row for _, row in out] == [(1, at(-5)), (1, at(0))]   # [5 s, 15 s) is empty
    assert slices == {} and timers == set()


# --- the processor on the transformWithState stand-in -------------------------------------------
NAMES = ("ts", "v", "c")
OUT = ("k", "cnt", "total", "dv", "window_start", "window_end")


class KeyedRun:
    """One key's calls, as Spark makes them: the batch's input rows, then the timers that
    the watermark reached (Spark 4.3 fires a timer t once t <= watermark)."""

    def __init__(self, assigner: SliceAssigner):
        params = WindowAggParams(1, CALLS, assigner, 0, (WINDOW_START, WINDOW_END))
        self.store = Store()
        self.store.key = ("a",)
        layout = state_layout("`k`: STRING", CALLS, [None, "INT", "STRING"],
                              [None, "INT", None])
        self.processor = processor_class(params)(params, layout, NAMES, OUT)
        self.processor.init(Handle(self.store))

    def batch(self, watermark: int, *rows) -> list[str]:
        values = TimerValues(watermark)
        out = list(self.processor.handleInputRows(
            ("a",), iter([{**dict(zip(NAMES, (at(s), v, c))), OP_COLUMN: RowKind.INSERT.code}
                          for s, v, c in rows]), values)) if rows else []
        out += fire_timers(self.processor, self.store, values, watermark)
        return [f"{row['window_end']:%S}:{row['cnt']}:{row['total']}" for row in out]


def test_the_processor_keeps_slices_and_one_timer_per_pending_window():
    run = KeyedRun(SliceAssigner(HOP, 10 * S, 5 * S))
    assert run.batch(0, (1, 1, "x"), (6, 2, "y")) == []
    slices = run.store.maps[(WINDOW_AGGS, ("a",))]
    assert sorted(slices) == [(5 * S,), (10 * S,)]            # one accumulator per slice
    assert run.store.timers == {(spark_timer(5 * S), ("a",)), (spark_timer(10 * S), ("a",))}
    assert run.batch(5 * S - 2) == []                        # Flink's timer 4999 not reached
    # Spark fired timer 4998 at that watermark, a millisecond early: the window keeps one, 4999
    assert run.store.timers == {(5 * S - 1, ("a",)), (spark_timer(10 * S), ("a",))}
    assert run.batch(5 * S - 1) == ["05:1:1"]                # reached: [-5 s, 5 s) fires
    assert sorted(slices) == [(5 * S,), (10 * S,)]            # slice 0 s never existed
    # before the next window is due, a late row for slice 5 s still counts in [0 s, 10 s)
    assert run.batch(7 * S, (4, 4, "x")) == []
    assert run.batch(10 * S) == ["10:3:7"]
    assert sorted(slices) == [(10 * S,)]                      # slice 5 s is no longer needed
    assert run.batch(10**12) == ["15:1:2"]                   # then [10 s, 20 s) is empty
    assert slices == {} and run.store.timers == set()


def test_the_processor_fires_due_windows_before_a_batchs_rows():
    """Spark runs a batch's rows before its timers; Flink had fired the window first, so a
    row late for it must not reach it."""
    run = KeyedRun(SliceAssigner(HOP, 10 * S, 5 * S))
    run.batch(0, (1, 1, "x"))
    assert run.batch(6 * S, (3, 5, "z")) == ["05:1:1"]
    assert run.batch(10**12) == ["10:2:6"]


def test_a_timer_listed_before_an_earlier_call_fired_its_window_fires_nothing():
    """PySpark lists a batch's expired timers before it calls the handlers: the first call
    fires both due windows and deletes the second timer, which is still handed over. Flink
    fires each window once."""
    run = KeyedRun(SliceAssigner(HOP, 10 * S, 5 * S))
    run.batch(0, (1, 1, "x"), (6, 2, "y"))
    listed = sorted(run.store.timers)                        # both due at the next watermark
    values = TimerValues(11 * S)
    fired = []
    for time, key in listed:                                 # as PySpark hands them over
        fired += run.processor.handleExpiredTimer(key, values, ExpiredTimerInfo(time))
        run.store.timers.discard((time, key))
    assert [f"{row['window_end']:%S}:{row['cnt']}" for row in fired] == ["05:1", "10:2"]


def test_a_processing_time_window_takes_the_clock_not_the_row():
    """On processing time (Flink's slicing operator with `isEventTime` false) a row goes into
    the slice of the current time whatever its time attribute holds, nothing is late, and the
    window fires when the clock (the batch's stamp) reaches its end - 1."""
    params = WindowAggParams(1, CALLS, SliceAssigner(TUMBLE, 10 * S, 10 * S), 0,
                             (WINDOW_START, WINDOW_END), event_time=False)
    store = Store()
    store.key = ("a",)
    layout = state_layout("`k`: STRING", CALLS, [None, "INT", "STRING"], [None, "INT", None],
                          event_time=False)
    assert layout[WINDOW_AGGS]["timers"] == "processing time, window end - 2"
    processor = processor_class(params)(params, layout, NAMES, OUT)
    processor.init(Handle(store))
    rows = [{**dict(zip(NAMES, (at(999), v, "x"))), OP_COLUMN: RowKind.INSERT.code}
            for v in (1, 2)]
    clock = 20 * S + 3                                       # the row's own time is ignored
    assert list(processor.handleInputRows(("a",), iter(rows), TimerValues(-10**9, clock))) == []
    assert sorted(store.maps[(WINDOW_AGGS, ("a",))]) == [(30 * S,)]
    assert store.timers == {(spark_timer(30 * S), ("a",))}
    late = TimerValues(10**12, 30 * S - 2)                   # a watermark changes nothing
    assert list(processor.handleExpiredTimer(("a",), late, ExpiredTimerInfo(0))) == []
    out = list(processor.handleExpiredTimer(("a",), TimerValues(0, 30 * S - 1),
                                            ExpiredTimerInfo(spark_timer(30 * S))))
    assert [(row["cnt"], row["total"], row["window_start"]) for row in out] == [(2, 3, at(20))]


def test_first_and_last_value_keep_the_first_and_last_non_null_in_arrival_order():
    """FIRST_VALUE / LAST_VALUE of a window: the first and last non-NULL values as they
    arrive (Flink's FirstValueAggFunction / LastValueAggFunction); merging a later slice keeps
    the earlier first and the later last, and an empty side leaves the other."""
    from streamplan.runtime.window_aggregate import WindowAccumulators

    first, last = AggCall("FIRST_VALUE", 0, False, "INT"), AggCall("LAST_VALUE", 0, False, "INT")
    accumulators = WindowAccumulators((first, last))
    acc = accumulators.create()
    for value in (None, 4, 9, None, 2, None):
        accumulators.accumulate(acc, (value,))
    assert accumulators.results(acc) == (4, 2)
    later = accumulators.create()
    accumulators.accumulate(later, (7,))
    assert accumulators.results(accumulators.merged(acc, later)) == (4, 7)
    assert accumulators.results(accumulators.merged(accumulators.create(), acc)) == (4, 2)
    assert accumulators.results(accumulators.merged(acc, accumulators.create())) == (4, 2)
