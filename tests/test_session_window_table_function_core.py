"""The SESSION window table function (Flink's UnalignedWindowTableFunctionOperator) without
Spark: the rows of one session emitted together when the watermark passes its end, a merge
of two sessions by a row in the gap, a late row, several rows of a micro-batch, Flink's
session of WindowAggregateTestPrograms#SESSION_WINDOW_EVENT_TIME on its data, and the
processor's three states and timers on a stand-in for transformWithState, with a session
open at a restore that merges and fires after it."""
from __future__ import annotations

import pytest

from streamplan.changelog import OP_COLUMN, RowKind
from streamplan.errors import ExecutionError
from streamplan.runtime.session_window_aggregate import SESSION_WINDOW_MAPPING
from streamplan.runtime.session_window_table_function import (
    SESSION_WINDOW_TVF_ACC, SESSION_WINDOW_TVF_COUNTER, SessionRows, SessionWindowTvfCore,
    SessionWindowTvfParams, processor_class, state_layout)
from streamplan.runtime.window_aggregate import spark_timer
from test_window_aggregate_core import AFTER, BEFORE, S, at
from tws_standin import Handle, Store, TimerValues, fire_timers

I = RowKind.INSERT


def core(gap: int = 5 * S) -> SessionWindowTvfCore:
    return SessionWindowTvfCore(SessionWindowTvfParams(gap, 0))


def emitted(out: list) -> list[str]:
    """Each output row as 'kind value start-end time' (seconds)."""
    return [f"{RowKind.from_code(code).short}{row[1]} {row[-3].second}-{row[-2].second} "
            f"{row[-1].second}.{row[-1].microsecond // 1000}" for code, row in out]


def test_the_rows_of_one_session_fire_together_in_arrival_order():
    session, state, out = core(), SessionRows(), []
    for seconds, value in ((3, "a"), (1, "b"), (5, "c")):
        assert session.process(state, I, (at(seconds), value), 0)
    assert state.mapping == {(1 * S, 10 * S): (3 * S, 8 * S)} and state.counter == 3
    session.fire_due(state, 10 * S - 2, out)
    assert out == []                                   # its timer is end - 1 = 9 999
    session.fire_due(state, 10 * S - 1, out)
    assert emitted(out) == ["+Ia 1-10 9.999", "+Ib 1-10 9.999", "+Ic 1-10 9.999"]
    assert state.mapping == {} and state.rows == {} and state.counter == 3


def test_a_row_in_the_gap_merges_two_sessions_and_their_rows():
    session, state, out = core(), SessionRows(), []
    session.process(state, I, (at(1), "a"), 0)
    session.process(state, I, (at(9), "b"), 0)
    assert sorted(state.rows) == [(1 * S, 6 * S), (9 * S, 14 * S)]
    session.process(state, I, (at(5), "c"), 0)         # [5 s, 10 s) bridges both
    assert state.mapping == {(1 * S, 14 * S): (1 * S, 6 * S)}
    assert state.rows == {(1 * S, 6 * S): {0: (I, (at(1), "a")), 1: (I, (at(9), "b")),
                                            2: (I, (at(5), "c"))}}
    session.fire_due(state, 14 * S, out)
    assert emitted(out) == ["+Ia 1-14 13.999", "+Ib 1-14 13.999", "+Ic 1-14 13.999"]


def test_a_late_row_is_dropped_and_still_counted():
    session, state = core(), SessionRows()
    assert not session.process(state, I, (at(1), "a"), 6 * S - 1)     # [1 s, 6 s) has fired
    assert state.mapping == {} and state.rows == {} and state.counter == 1
    # a row older than the watermark joins a session that has not fired
    assert session.process(state, I, (at(10), "b"), 9 * S)
    assert session.process(state, I, (at(7), "c"), 9 * S)
    assert state.mapping == {(7 * S, 15 * S): (10 * S, 15 * S)}
    assert not session.process(state, I, (None, "d"), 0)              # NULL time: dropped
    assert state.counter == 3


def test_a_merge_that_ends_before_the_watermark_fails():
    session, state = core(), SessionRows()
    session.process(state, I, (at(1), "a"), 0)
    state.mapping[(0, 1 * S)] = (0, 1 * S)             # an in-flight window already due
    with pytest.raises(ExecutionError):
        session.process(state, I, (at(0), "b"), 6 * S)


def test_row_kinds_pass_through():
    session, state, out = core(), SessionRows(), []
    session.process(state, RowKind.UPDATE_BEFORE, (at(1), "a"), 0)
    session.process(state, RowKind.UPDATE_AFTER, (at(2), "b"), 0)
    session.fire_due(state, 10 * S, out)
    assert emitted(out) == ["-Ua 1-7 6.999", "+Ub 1-7 6.999"]


def test_flinks_session_of_the_whole_stream():
    """WindowAggregateTestPrograms#SESSION_WINDOW_EVENT_TIME's window table function: one key,
    per-record watermarks (max time - 1 s); the sessions each row makes due fire after it."""
    session, state = core(), SessionRows()
    watermark, top = -10**15, 0
    fired = []
    for phase in (BEFORE, AFTER):
        out: list = []
        for seconds, value, comment, name in phase:
            session.process(state, I, (at(seconds), name, value), watermark)
            top = max(top, seconds * S)
            watermark = top - S
            session.fire_due(state, watermark, out)
        fired.append([f"{row[1]}:{row[2]} {row[-3].second}-{row[-2].second}" for _, row in out])
    assert fired == [
        ["a:1 1-13", "a:2 1-13", "a:2 1-13", "a:5 1-13", "b:3 1-13", "b:6 1-13", "a:3 1-13",
         "a:5 1-13", "b:4 16-21"],
        # the session of 32 s and 34 s is open at the restore and fires after it
        ["None:7 32-39", "b:1 32-39"]]
    assert state.mapping == {(40 * S, 49 * S): (40 * S, 45 * S)}


# --- the processor on the transformWithState stand-in -------------------------------------------
NAMES = ("ts", "v")
OUT = ("ts", "v", "window_start", "window_end", "window_time")


class Run:
    """The one key's calls, as Spark makes them: the batch's input rows, then the timers the
    watermark reached."""

    def __init__(self, store: Store):
        params = SessionWindowTvfParams(5 * S, 0)
        self.store = store
        self.store.key = (0,)
        layout = state_layout(params, "`ts`: TIMESTAMP, `v`: STRING", "`__g`: INT")
        self.processor = processor_class(params)(params, layout, NAMES, OUT)
        self.processor.init(Handle(self.store))

    def batch(self, watermark: int, *rows) -> list[str]:
        values = TimerValues(watermark)
        out = list(self.processor.handleInputRows(
            (0,), iter([{"ts": at(s), "v": v, OP_COLUMN: I.code} for s, v in rows]),
            values)) if rows else []
        out += fire_timers(self.processor, self.store, values, watermark)
        return [f"{row['v']} {row['window_start'].second}-{row['window_end'].second}"
                for row in out]


def test_a_session_open_at_the_restore_merges_and_fires_after_it():
    store = Store()
    run = Run(store)
    assert run.batch(0, (1, "a"), (9, "b")) == []              # two rows in one batch
    key = (0,)
    mapping = store.maps[(SESSION_WINDOW_MAPPING, key)]
    acc = store.maps[(SESSION_WINDOW_TVF_ACC, key)]
    assert sorted(mapping) == [(1 * S, 6 * S), (9 * S, 14 * S)]
    assert sorted(acc) == [(1 * S, 6 * S, 0), (9 * S, 14 * S, 1)]
    assert store.timers == {(spark_timer(6 * S), key), (spark_timer(14 * S), key)}
    # the restore: a new processor over the same state; a row bridges the two sessions
    run = Run(store)
    assert run.batch(3 * S, (5, "c")) == []
    assert sorted(mapping) == [(1 * S, 14 * S)]
    assert sorted(acc) == [(1 * S, 6 * S, 0), (1 * S, 6 * S, 1), (1 * S, 6 * S, 2)]
    assert store.timers == {(spark_timer(14 * S), key)}
    assert run.batch(14 * S - 2) == []                         # Flink's timer 13 999 not reached
    assert run.batch(14 * S - 1) == ["a 1-14", "b 1-14", "c 1-14"]
    assert mapping == {} and acc == {} and store.timers == set()
    assert store.values[(SESSION_WINDOW_TVF_COUNTER, key)] is not None
    assert run.batch(20 * S, (2, "late")) == []                # its session has fired: dropped
    assert mapping == {} and acc == {}
