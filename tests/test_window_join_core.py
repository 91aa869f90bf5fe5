"""The window join without Spark: Flink's WindowJoinOperator against the cases of its
WindowJoinOperatorTest (rows of (window end, key), one key, the join condition `true`), then
NULL keys, a non-equi condition and the processor on the transformWithState stand-in."""
from __future__ import annotations

import pytest

from streamplan.changelog import KIND_COLUMN, LEFT_ROW, RIGHT_ROW, SIDE_COLUMN, RowKind
from streamplan.errors import NotInsertOnlyError
from streamplan.runtime.window_aggregate import spark_timer
from streamplan.runtime.window_join import (LEFT_RECORDS, RIGHT_RECORDS, WindowJoinCore,
                                            WindowJoinParams, WindowJoinProcessor,
                                            state_layout)
from tws_standin import ExpiredTimerInfo, Handle, Store, TimerValues, fire_timers

I = RowKind.INSERT
NAMES = ("lend", "lk", "rend", "rk")


class Operator:
    """One join key through the core, as the operator test harness drives the operator:
    rows of either side, then watermarks (both inputs' watermarks move together)."""

    def __init__(self, join_type, key=("k1",), filter_nulls=(True,), predicate=None):
        params = WindowJoinParams(join_type, 2, 2, 0, 0, NAMES, filter_nulls,
                                  "x" if predicate else None, NAMES)
        self.core = WindowJoinCore(params, predicate)
        self.key = key
        self.left, self.right, self.dirty = {}, {}, set()
        self.wm = -(2**63)

    def element(self, side, end, value="k1"):
        return self.core.process(side == "L", I, (end, value), self.left, self.right, self.dirty,
                                 self.wm)

    def watermark(self, wm):
        self.wm = wm
        out = []
        self.core.fire_due(self.key, self.left, self.right, self.dirty, wm, out)
        return sorted(f"{RowKind.from_code(code).short}{list(values)}".replace("None", "null")
                      .replace("'", "") for code, values in out)

    @property
    def state_entries(self):
        """numKeyedStateEntries: one list per side and window end."""
        return len(self.left) + len(self.right)

    @property
    def timers(self):
        """numEventTimeTimers: one per window end of either side."""
        return len(set(self.left) | set(self.right))


# (phase 1 output at watermark 10, window 12 at 13, window 15 at 18), per join type
JOINED_3, JOINED_15 = "+I[3, k1, 3, k1]", "+I[15, k1, 15, k1]"
EXPECTED = {
    "INNER": ([JOINED_3, JOINED_3], [], [JOINED_15, JOINED_15]),
    "LEFT": ([JOINED_3, JOINED_3, "+I[6, k1, null, null]"], ["+I[12, k1, null, null]"],
             [JOINED_15, JOINED_15]),
    "RIGHT": ([JOINED_3, JOINED_3, "+I[null, null, 9, k1]"], [], [JOINED_15, JOINED_15]),
    "FULL": ([JOINED_3, JOINED_3, "+I[6, k1, null, null]", "+I[null, null, 9, k1]"],
             ["+I[12, k1, null, null]"], [JOINED_15, JOINED_15]),
    "SEMI": (["+I[3, k1]", "+I[3, k1]"], [], ["+I[15, k1]"]),
    "ANTI": (["+I[6, k1]"], ["+I[12, k1]"], []),
}


@pytest.mark.parametrize("join_type", list(EXPECTED))
def test_flink_operator_cases(join_type):
    """testInnerJoin, testLeftOuterJoin, testRightOuterJoin, testOuterJoin, testSemiJoin and
    testAntiJoin of WindowJoinOperatorTest (UTC)."""
    first, second, third = EXPECTED[join_type]
    op = Operator(join_type)
    assert op.watermark(1) == []
    assert op.element("L", 1) is False                 # late: window 1 fired at watermark 1
    assert op.timers == 0
    for side, end in (("L", 3), ("L", 3), ("R", 3), ("L", 6), ("R", 9)):
        assert op.element(side, end) is True
    assert (op.timers, op.state_entries) == (3, 4)
    assert op.watermark(10) == first
    assert (op.timers, op.state_entries) == (0, 0)     # state cleared as the windows fire
    for side, end in (("L", 12), ("L", 15), ("R", 15), ("R", 15)):
        op.element(side, end)
    assert op.state_entries == 3
    assert op.watermark(13) == second
    assert op.state_entries == 2
    assert op.watermark(18) == third
    assert op.state_entries == 0


def test_a_window_fires_when_the_watermark_reaches_its_end_minus_one():
    op = Operator("INNER")
    op.element("L", 5000)
    op.element("R", 5000)
    assert op.watermark(4998) == []
    assert op.watermark(4999) == ["+I[5000, k1, 5000, k1]"]
    assert op.element("R", 5000) is False               # the window fired: late, dropped


@pytest.mark.parametrize("join_type, expected", [
    ("INNER", []),
    ("FULL", ["+I[3, null, null, null]", "+I[null, null, 3, null]"]),
    ("ANTI", ["+I[3, null]"]),
    ("SEMI", []),
])
def test_a_null_key_matches_nothing(join_type, expected):
    """JoinConditionWithNullFilters: a NULL key with filterNulls never matches; its rows are
    still kept and fired (padded on outer sides, emitted by ANTI)."""
    op = Operator(join_type, key=(None,))
    op.element("L", 3, None)
    op.element("R", 3, None)
    assert op.watermark(10) == expected
    assert op.state_entries == 0


def test_a_null_key_matches_without_filter_nulls():
    """IS NOT DISTINCT FROM keys (filterNulls false) match NULLs."""
    op = Operator("INNER", key=(None,), filter_nulls=(False,))
    op.element("L", 3, None)
    op.element("R", 3, None)
    assert op.watermark(10) == ["+I[3, null, 3, null]"]


def test_the_non_equi_condition_decides_matches_and_padding():
    """A full outer join whose condition holds for one pair only: a right row matched once is
    not padded (FullOuterWindowJoinProcessor's emitted right records)."""
    op = Operator("FULL", predicate=lambda row: row["lk"] < row["rk"])
    op.element("L", 3, "a")
    op.element("L", 3, "c")
    op.element("R", 3, "b")
    assert op.watermark(10) == ["+I[3, a, 3, b]", "+I[3, c, null, null]"]


def test_a_retraction_is_refused():
    core = WindowJoinCore(WindowJoinParams("INNER", 2, 2, 0, 0, NAMES, (True,)))
    with pytest.raises(NotInsertOnlyError, match="insert-only"):
        core.process(True, RowKind.DELETE, (3, "k1"), {}, {}, set(), 0)


# --- the processor on the transformWithState stand-in -------------------------------------------

class KeyedRun:
    """One key's calls, as Spark makes them: the batch's input rows, then the timers that
    the watermark reached (Spark 4.3 fires a timer t once t <= watermark)."""

    def __init__(self, join_type):
        params = WindowJoinParams(join_type, 2, 2, 0, 0, NAMES, (True,))
        self.store = Store()
        self.store.key = ("k1",)
        layout = state_layout("`end`: BIGINT, `k`: STRING", "`end`: BIGINT, `k`: STRING")
        self.processor = WindowJoinProcessor(params, layout, (), NAMES)
        self.processor.init(Handle(self.store))

    def batch(self, watermark: int, *rows) -> list[str]:
        values = TimerValues(watermark)
        feed = [{SIDE_COLUMN: 0 if side == "L" else 1, KIND_COLUMN: I.code,
                 LEFT_ROW: (end, "k1") if side == "L" else None,
                 RIGHT_ROW: (end, "k1") if side == "R" else None} for side, end in rows]
        out = list(self.processor.handleInputRows(("k1",), iter(feed), values)) if rows else []
        out += fire_timers(self.processor, self.store, values, watermark)
        return sorted(f"{row['lend']}:{row['rend']}" for row in out)


def test_the_processor_keeps_rows_per_window_end_and_one_timer_per_window():
    run = KeyedRun("LEFT")
    assert run.batch(0, ("L", 5000), ("L", 5000), ("R", 5000), ("L", 10000)) == []
    left = run.store.maps[(LEFT_RECORDS, ("k1",))]
    assert sorted(left) == [(5000,), (10000,)]            # one list per window end
    assert run.store.timers == {(spark_timer(5000), ("k1",)), (spark_timer(10000), ("k1",))}
    assert run.batch(4998) == []                           # Flink's timer 4999 not reached
    assert run.batch(4999) == ["5000:5000", "5000:5000"]   # reached: window 5 s fires
    assert sorted(left) == [(10000,)]
    assert run.store.maps[(RIGHT_RECORDS, ("k1",))] == {}
    # a row of the fired window is late and dropped; one of an open window is kept
    assert run.batch(5000, ("R", 5000), ("R", 10000)) == []
    assert run.batch(10**12) == ["10000:10000"]
    assert left == {} and run.store.timers == set()
