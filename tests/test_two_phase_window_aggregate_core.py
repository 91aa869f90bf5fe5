"""Two-phase window aggregation without Spark: the local window aggregate's combining per
group key and slice (Flink's LocalAggCombiner), the accumulators as columns, and the global
window aggregate's slicing over them (GlobalAggCombiner) giving Flink's rows of
WindowAggregateTestPrograms' *_TWO_PHASE programs, as the one-phase aggregate does, late rows
included; the processor's state is the one-phase window aggregate's."""
from __future__ import annotations

import pytest

from streamplan.changelog import OP_COLUMN, RowKind
from streamplan.errors import ExecutionError
from streamplan.runtime.group_aggregate import AggCall
from streamplan.runtime.two_phase_window_aggregate import (
    GlobalWindowAggCore, GlobalWindowAggParams, LocalWindowAggParams, column_count, from_columns,
    local_combine, processor_class, to_columns)
from streamplan.runtime.window_aggregate import (CUMULATE, HOP, TUMBLE, WINDOW_AGGS, WINDOW_END,
                                                 WINDOW_START, SliceAssigner, WindowAggCore,
                                                 WindowAggParams, WindowedSliceAssigner,
                                                 spark_timer, state_layout)
from test_window_aggregate_core import AFTER, BEFORE, CALLS, S, at, run_phases
from tws_standin import ExpiredTimerInfo, Handle, Store, TimerValues

EVERY_KIND = (AggCall("COUNT", None, False, "BIGINT NOT NULL"), AggCall("SUM", 0, False, "INT"),
              AggCall("MIN", 0, False, "INT"), AggCall("MAX", 0, False, "INT"),
              AggCall("AVG", 0, False, "INT"), AggCall("COUNT", 0, True, "BIGINT NOT NULL"),
              AggCall("SUM", 0, True, "INT"))


def test_accumulators_travel_as_columns_and_back():
    core = WindowAggCore(WindowAggParams(0, EVERY_KIND, SliceAssigner(TUMBLE, S, S), 1, ()))
    acc = core.create()
    for value in (3, 1, 3, None):
        core.accumulate(acc, (value, None))
    columns = to_columns(acc, EVERY_KIND)
    # COUNT, SUM (sum, count), MIN, MAX, AVG (sum, count), DISTINCT COUNT, DISTINCT SUM, rows
    assert len(columns) == column_count(EVERY_KIND) == 10
    assert columns[:3] == (4, 7, 3) and columns[-1] == 4
    assert from_columns(columns, EVERY_KIND) == acc
    assert core.results(acc) == (4, 7, 1, 3, 2, 2, 4)


def test_the_local_aggregate_folds_a_key_and_slice_into_one_row():
    params = LocalWindowAggParams((3,), CALLS, SliceAssigner(HOP, 10 * S, 5 * S), 0)
    rows = [(RowKind.INSERT, (at(1), 1, "x", "a")), (RowKind.INSERT, (at(2), 2, "x", "a")),
            (RowKind.INSERT, (at(6), 4, "y", "a")), (RowKind.INSERT, (at(3), 8, None, None))]
    combined = local_combine(params, rows)
    assert [(key, end, acc[0]) for key, end, acc in combined] == [
        (("a",), 5 * S, 2), (("a",), 10 * S, 1), ((None,), 5 * S, 1)]
    assert combined[0][2][1:] == [2, [3, 2], {"x": 2}]
    with pytest.raises(ExecutionError):
        local_combine(params, [(RowKind.DELETE, (at(1), 1, "x", "a"))])


def two_phase(assigner: SliceAssigner, phases=(BEFORE, AFTER), delay=S):
    """Local rows (one a micro-batch, as Flink's restore tests feed them) through the global
    core on per-record watermarks; the same driver as the one-phase test."""
    local = LocalWindowAggParams((3,), CALLS, assigner, 0)
    width = column_count(CALLS)
    glob = GlobalWindowAggCore(GlobalWindowAggParams(1, CALLS, assigner, 1 + width,
                                                     (WINDOW_START, WINDOW_END)))
    keys: dict = {}
    watermark, top = -10**15, 0
    results = []
    for number, phase in enumerate(phases):
        out: list = []
        for seconds, *values in phase:
            row = (at(seconds), *values)
            for key, slice_end, acc in local_combine(local, [(RowKind.INSERT, row)]):
                slices, timers = keys.setdefault(key[0], ({}, set()))
                glob.process(slices, timers, set(), RowKind.INSERT,
                             (*key, *to_columns(acc, CALLS), slice_end), watermark)
            top = max(top, seconds * S)
            watermark = top - delay
            for key, (slices, timers) in keys.items():
                glob.fire_due((key,), slices, timers, set(), watermark, out)
        if number == len(phases) - 1:
            for key, (slices, timers) in keys.items():
                glob.fire_due((key,), slices, timers, set(), 10**15, out)
        results.append(sorted(f"+I[{key}, {start:%H:%M:%S}, {end:%H:%M:%S}, {cnt}, {total}, {dv}]"
                              .replace("None", "null")
                              for _, (key, cnt, total, dv, start, end) in out))
    return results


@pytest.mark.parametrize("assigner", [SliceAssigner(TUMBLE, 5 * S, 5 * S),
                                      SliceAssigner(TUMBLE, 5 * S, 5 * S, 1 * S),
                                      SliceAssigner(HOP, 10 * S, 5 * S),
                                      SliceAssigner(HOP, 10 * S, 5 * S, 1 * S),
                                      SliceAssigner(CUMULATE, 15 * S, 5 * S),
                                      SliceAssigner(CUMULATE, 15 * S, 5 * S, 1 * S)])
def test_two_phases_give_the_one_phase_rows(assigner):
    """Flink's *_TWO_PHASE programs expect the rows of the one-phase programs: the late row
    at 4 s (after 8 s) is kept by a hop's [0 s, 10 s) and dropped by the tumbling window."""
    assert two_phase(assigner) == run_phases(assigner)


# --- the processor on the transformWithState stand-in -------------------------------------------
NAMES = ("k", "count1$0", "sum$1", "count$2", "distinct$3", "count1$4", "$slice_end")
OUT = ("k", "cnt", "total", "dv", "window_start", "window_end")


def test_the_global_processor_keeps_the_one_phase_state():
    assigner = SliceAssigner(HOP, 10 * S, 5 * S)
    params = GlobalWindowAggParams(1, CALLS, assigner, 6, (WINDOW_START, WINDOW_END))
    store = Store()
    store.key = ("a",)
    layout = state_layout("`k`: STRING", CALLS, [None, "INT", "STRING"], [None, "INT", None])
    processor = processor_class(params)(params, layout, NAMES, OUT)
    processor.init(Handle(store))
    local = LocalWindowAggParams((3,), CALLS, assigner, 0)
    rows = [(RowKind.INSERT, (at(1), 1, "x", "a")), (RowKind.INSERT, (at(2), 2, "y", "a"))]
    (key, slice_end, acc), = local_combine(local, rows)
    record = dict(zip(NAMES, (*key, *to_columns(acc, CALLS), slice_end)))
    assert list(processor.handleInputRows(("a",), iter([{**record, OP_COLUMN: 0}]),
                                          TimerValues(0))) == []
    assert sorted(store.maps[(WINDOW_AGGS, ("a",))]) == [(5 * S,)]
    assert store.timers == {(spark_timer(5 * S), ("a",))}
    out = list(processor.handleExpiredTimer(("a",), TimerValues(5 * S),
                                            ExpiredTimerInfo(spark_timer(5 * S))))
    assert [(row["cnt"], row["total"], row["dv"]) for row in out] == [(2, 3, 2)]


def test_a_stale_timer_does_not_fire_a_window_again():
    """Two windows of a key due at one watermark fire in the first timer's call, which deletes
    the second timer; PySpark listed that one as expired before the call and still hands it
    over: the global window aggregate ignores it (Flink fires each window once)."""
    assigner = SliceAssigner(HOP, 10 * S, 5 * S)
    params = GlobalWindowAggParams(1, CALLS, assigner, 6, (WINDOW_START, WINDOW_END))
    store = Store()
    store.key = ("a",)
    layout = state_layout("`k`: STRING", CALLS, [None, "INT", "STRING"], [None, "INT", None])
    processor = processor_class(params)(params, layout, NAMES, OUT)
    processor.init(Handle(store))
    local = LocalWindowAggParams((3,), CALLS, assigner, 0)
    for seconds in (1, 6):
        (key, slice_end, acc), = local_combine(local, [(RowKind.INSERT, (at(seconds), 1, "x", "a"))])
        record = dict(zip(NAMES, (*key, *to_columns(acc, CALLS), slice_end)))
        list(processor.handleInputRows(("a",), iter([{**record, OP_COLUMN: 0}]), TimerValues(0)))
    assert store.timers == {(spark_timer(5 * S), ("a",)), (spark_timer(10 * S), ("a",))}
    values = TimerValues(11 * S)
    first = list(processor.handleExpiredTimer(("a",), values, ExpiredTimerInfo(spark_timer(5 * S))))
    store.timers.discard((spark_timer(5 * S), ("a",)))          # Spark deletes the fired one
    assert [(row["window_end"], row["cnt"]) for row in first] == [(at(5), 1), (at(10), 2)]
    stale = list(processor.handleExpiredTimer(("a",), values, ExpiredTimerInfo(spark_timer(10 * S))))
    assert stale == []


# --- the final phase of a split distinct window aggregate (WindowAttached) ----------------------
FINAL_CALLS = (AggCall("SUM0", 3, False, "BIGINT NOT NULL"), AggCall("SUM", 4, False, "INT"))


@pytest.mark.parametrize("window, start", [(SliceAssigner(TUMBLE, 5 * S, 5 * S), 5 * S),
                                           (SliceAssigner(HOP, 10 * S, 5 * S), 0),
                                           (SliceAssigner(CUMULATE, 15 * S, 5 * S), 0)])
def test_the_final_phase_merges_fired_windows_it_gets_after_their_end(window, start):
    """The partial rows of a window (one per bucket) come from a window that fired, so the
    watermark is past the window's end when they arrive: over fired windows nothing is late.
    The local aggregate takes each row's slice from its window end; the global one keeps the
    window as its slice (WindowedSliceAssigner), sums the partial counts with $SUM0 and gives
    the window's start by the window's own assigner."""
    end = 10 * S
    # the calc after the partial aggregate: key, window_start, window_end, count, sum
    partials = [("a", at((end - 5 * S) // S), at(end // S), 2, 7),
                ("a", at((end - 5 * S) // S), at(end // S), 1, None),
                ("b", at((end - 5 * S) // S), at(end // S), 0, None)]
    local = LocalWindowAggParams((0,), FINAL_CALLS, window, 2, window_attached=True)
    combined = local_combine(local, [(RowKind.INSERT, row) for row in partials])
    assert [(key, slice_end) for key, slice_end, _ in combined] == [(("a",), end), (("b",), end)]
    glob = GlobalWindowAggCore(GlobalWindowAggParams(
        1, FINAL_CALLS, WindowedSliceAssigner(window), 1 + column_count(FINAL_CALLS),
        (WINDOW_START, WINDOW_END), drop_late_rows=False))
    watermark, out = end + 3 * S, []
    for key, slice_end, acc in combined:
        slices, timers = {}, set()
        assert glob.process(slices, timers, set(), RowKind.INSERT,
                            (*key, *to_columns(acc, FINAL_CALLS), slice_end), watermark)
        assert timers == {end} and list(slices) == [end]
        glob.fire_due(key, slices, timers, set(), watermark, out)
        assert slices == {} and timers == set()        # a window is its own slice: cleared
    assert [row for _, row in out] == [("a", 3, 7, at(start // S), at(end // S)),
                                       ("b", 0, None, at(start // S), at(end // S))]


def test_the_sliced_global_aggregate_still_drops_what_fired():
    """drop_late_rows stays on for the global aggregate over sliced rows: a row of a slice
    whose last window fired is dropped, as before."""
    window = SliceAssigner(TUMBLE, 5 * S, 5 * S)
    glob = GlobalWindowAggCore(GlobalWindowAggParams(1, FINAL_CALLS, window, 4,
                                                     (WINDOW_START, WINDOW_END)))
    assert not glob.process({}, set(), set(), RowKind.INSERT, ("a", 1, 1, 1, 1, 5 * S), 6 * S)
