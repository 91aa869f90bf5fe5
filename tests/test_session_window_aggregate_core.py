"""The window aggregate's session windows (Flink's UnsliceSyncStateWindowAggProcessor over a
MergingWindowSet) without Spark: merging by the floor and ceiling windows, the state window a
merge keeps, late rows, Flink's expected rows of WindowAggregateTestPrograms#
SESSION_WINDOW_PARTITION_EVENT_TIME on its data, and the processor's two map states and
timers on a stand-in for transformWithState, with a session merging across a restore."""
from __future__ import annotations

import pytest

from streamplan.changelog import OP_COLUMN, RowKind
from streamplan.errors import ExecutionError, NotInsertOnlyError
from streamplan.runtime.session_window_aggregate import (
    SESSION_WINDOW_MAPPING, MergingWindowSet, SessionWindowAggCore, SessionWindowAggParams,
    state_layout)
from streamplan.runtime.window_aggregate import (WINDOW_AGGS, WINDOW_END, WINDOW_START,
                                                 processor_class, spark_timer)
from streamplan.runtime.window_aggregate import state_layout as slicing_layout
from test_window_aggregate_core import AFTER, BEFORE, CALLS, S, at
from tws_standin import ExpiredTimerInfo, Handle, Store, TimerValues, fire_timers


def merges(mapping: dict, new) -> tuple:
    calls: list = []
    result = MergingWindowSet(mapping).add_window(
        new, lambda *args: calls.append((args[0], sorted(args[1]), args[2], list(args[3]))))
    return result, calls


def test_a_window_that_intersects_none_is_its_own_state_window():
    mapping: dict = {(0, 5): (0, 5)}
    assert merges(mapping, (6, 11)) == ((6, 11), [])
    assert mapping == {(0, 5): (0, 5), (6, 11): (6, 11)}


def test_touching_windows_merge_and_keep_one_state_window():
    mapping: dict = {(0, 5): (0, 5)}
    result, calls = merges(mapping, (5, 10))                # [0, 5) and [5, 10) touch
    assert result == (0, 10)
    assert mapping == {(0, 10): (0, 5)}                      # the old accumulator is kept
    assert calls == [((0, 10), [(0, 5)], (0, 5), [])]        # nothing to merge into it


def test_a_bridging_window_merges_its_floor_and_ceiling():
    mapping: dict = {(0, 5): (0, 5), (7, 12): (7, 12)}
    result, calls = merges(mapping, (4, 9))
    assert result == (0, 12)
    assert mapping == {(0, 12): (0, 5)}
    assert calls == [((0, 12), [(0, 5), (7, 12)], (0, 5), [(7, 12)])]


def test_a_window_inside_one_in_flight_takes_it_unchanged():
    mapping: dict = {(0, 10): (0, 5)}
    assert merges(mapping, (2, 7)) == ((0, 10), [])
    assert merges(mapping, (0, 10)) == ((0, 10), [])        # the same window again
    assert mapping == {(0, 10): (0, 5)}


def test_retiring_a_window_not_in_flight_fails():
    with pytest.raises(ExecutionError):
        MergingWindowSet({}).retire_window((0, 5))


def core(gap: int = 5 * S, calls=CALLS) -> SessionWindowAggCore:
    return SessionWindowAggCore(SessionWindowAggParams(1, calls, gap, 0,
                                                       (WINDOW_START, WINDOW_END)))


def test_merging_sessions_merge_their_accumulators():
    session = core()
    mapping, accs, dirty, out = {}, {}, set(), []
    session.process(mapping, accs, dirty, RowKind.INSERT, (at(1), 1, "x"), 0)
    session.process(mapping, accs, dirty, RowKind.INSERT, (at(8), 2, "y"), 0)
    assert mapping == {(1 * S, 6 * S): (1 * S, 6 * S), (8 * S, 13 * S): (8 * S, 13 * S)}
    session.process(mapping, accs, dirty, RowKind.INSERT, (at(4), 4, "x"), 0)   # bridges both
    assert mapping == {(1 * S, 13 * S): (1 * S, 6 * S)}
    assert list(accs) == [(1 * S, 6 * S)] and dirty == {(1 * S, 6 * S), (8 * S, 13 * S)}
    session.fire_due(("k",), mapping, accs, dirty, 13 * S - 2, out)
    assert out == []                                          # its timer is 12 999
    session.fire_due(("k",), mapping, accs, dirty, 13 * S - 1, out)
    assert out == [(RowKind.INSERT.code, ("k", 3, 7, 2, at(1), at(13)))]
    assert mapping == {} and accs == {}


def test_a_late_row_is_dropped_and_its_window_retired():
    session = core()
    mapping, accs, dirty = {}, {}, set()
    assert not session.process(mapping, accs, dirty, RowKind.INSERT, (at(1), 1, "x"), 6 * S - 1)
    assert mapping == {} and accs == {} and dirty == set()
    # a row older than the watermark still counts when it joins an unfired session
    assert session.process(mapping, accs, dirty, RowKind.INSERT, (at(10), 1, "x"), 9 * S)
    assert session.process(mapping, accs, dirty, RowKind.INSERT, (at(7), 2, "y"), 9 * S)
    assert mapping == {(7 * S, 15 * S): (10 * S, 15 * S)}
    with pytest.raises(NotInsertOnlyError):
        session.process(mapping, accs, dirty, RowKind.DELETE, (at(9), 0, ""), 0)


def test_over_an_updating_input_retractions_go_into_their_session():
    """needRetraction (Flink's unslicing operator over a changelog): -U / -D rows join their
    session as any row and retract there; +U accumulates; a session whose rows were all
    retracted fires empty and emits nothing. The rows of window-aggregate-session-retract-
    across-restore, as PyFlink 2.3 gives them."""
    session = SessionWindowAggCore(SessionWindowAggParams(1, CALLS, 5 * S, 0,
                                                          (WINDOW_START, WINDOW_END), True))
    mapping, accs, dirty, out = {}, {}, set(), []
    for kind, row in [(RowKind.INSERT, (at(1), 1, "x")), (RowKind.INSERT, (at(2), 2, "y")),
                      (RowKind.UPDATE_BEFORE, (at(1), 1, "x")),
                      (RowKind.UPDATE_AFTER, (at(3), 4, "x"))]:
        assert session.process(mapping, accs, dirty, kind, row, 0)
    session.fire_due(("a",), mapping, accs, dirty, 8 * S, out)
    assert out == [(RowKind.INSERT.code, ("a", 2, 6, 2, at(1), at(8)))]
    session.process(mapping, accs, dirty, RowKind.INSERT, (at(2), 5, "z"), 0)
    session.process(mapping, accs, dirty, RowKind.DELETE, (at(2), 5, "z"), 0)
    session.fire_due(("b",), mapping, accs, dirty, 8 * S, out)
    assert len(out) == 1 and mapping == {} and accs == {}    # b's emptied session: nothing


def test_flinks_partitioned_session_rows():
    """WindowAggregateTestPrograms#SESSION_WINDOW_PARTITION_EVENT_TIME: per-record watermarks
    (max time - 1 s), the sessions due after each row fired in time order."""
    session = core()
    keys: dict = {}
    watermark, top = -10**15, 0
    results = []
    for number, phase in enumerate((BEFORE, AFTER)):
        out: list = []
        for seconds, *values in phase:
            mapping, accs = keys.setdefault(values[-1], ({}, {}))
            session.process(mapping, accs, set(), RowKind.INSERT, (at(seconds), *values[:-1]),
                            watermark)
            top = max(top, seconds * S)
            watermark = top - S
            for key, (mapping, accs) in keys.items():
                session.fire_due((key,), mapping, accs, set(), watermark, out)
        if number == 1:
            for key, (mapping, accs) in keys.items():
                session.fire_due((key,), mapping, accs, set(), 10**15, out)
        results.append(sorted(f"+I[{key}, {start:%H:%M:%S}, {end:%H:%M:%S}, {cnt}, {total}, {dv}]"
                              .replace("None", "null")
                              for _, (key, cnt, total, dv, start, end) in out))
    assert results == [
        ["+I[a, 00:00:01, 00:00:13, 6, 18, 3]", "+I[b, 00:00:06, 00:00:12, 2, 9, 2]",
         "+I[b, 00:00:16, 00:00:21, 1, 4, 1]"],
        ["+I[a, 00:00:40, 00:00:45, 1, 10, 1]", "+I[b, 00:00:34, 00:00:39, 1, 1, 1]",
         "+I[c, 00:00:43, 00:00:48, 1, 12, 1]", "+I[d, 00:00:42, 00:00:49, 2, 24, 2]",
         "+I[null, 00:00:32, 00:00:37, 1, 7, 0]"]]


# --- the processor on the transformWithState stand-in -------------------------------------------
NAMES = ("ts", "v", "c")
OUT = ("k", "cnt", "total", "dv", "window_start", "window_end")


class KeyedRun:
    """One key's calls, as Spark makes them: the batch's input rows, then the timers that
    the watermark reached (Spark 4.3 fires a timer t once t <= watermark)."""

    def __init__(self, store: Store):
        params = SessionWindowAggParams(1, CALLS, 5 * S, 0, (WINDOW_START, WINDOW_END))
        self.store = store
        self.store.key = ("a",)
        layout = state_layout("`k`: STRING", slicing_layout(
            "`k`: STRING", CALLS, [None, "INT", "STRING"], [None, "INT", None]))
        self.processor = processor_class(params)(params, layout, NAMES, OUT)
        self.processor.init(Handle(self.store))

    def batch(self, watermark: int, *rows) -> list[str]:
        values = TimerValues(watermark)
        out = list(self.processor.handleInputRows(
            ("a",), iter([{**dict(zip(NAMES, (at(s), v, c))), OP_COLUMN: RowKind.INSERT.code}
                          for s, v, c in rows]), values)) if rows else []
        out += fire_timers(self.processor, self.store, values, watermark)
        return [f"{row['window_start']:%S}-{row['window_end']:%S}:{row['cnt']}:{row['total']}"
                for row in out]


def test_a_session_merges_across_the_restore():
    store = Store()
    run = KeyedRun(store)
    assert run.batch(0, (1, 1, "x"), (9, 2, "y")) == []
    mapping = store.maps[(SESSION_WINDOW_MAPPING, ("a",))]
    accs = store.maps[(WINDOW_AGGS, ("a",))]
    assert sorted(mapping) == [(1 * S, 6 * S), (9 * S, 14 * S)]
    assert store.timers == {(spark_timer(6 * S), ("a",)), (spark_timer(14 * S), ("a",))}
    # the restore: a new processor over the same state; a row bridges the two sessions
    run = KeyedRun(store)
    assert run.batch(3 * S, (5, 4, "x")) == []
    assert sorted(mapping) == [(1 * S, 14 * S)] and sorted(accs) == [(1 * S, 6 * S)]
    assert store.timers == {(spark_timer(14 * S), ("a",))}
    assert run.batch(14 * S - 2) == []                      # Flink's timer 13 999 not reached
    assert run.batch(14 * S - 1) == ["01-14:3:7"]
    assert mapping == {} and accs == {} and store.timers == set()
