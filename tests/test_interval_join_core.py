"""The interval-join logic without Spark: Flink's TimeIntervalJoin plus FLIP-497 early fire."""
from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from streamplan.planner.interval_bounds import Bounds, add_to_bounds, time_predicate
from streamplan.runtime.interval_join import (FULL, INNER, LEFT, RIGHT, UPDATE_AFTER, UPDATE_BEFORE,
                                              INSERT, IntervalJoinCore, IntervalJoinParams, SideCache)

# rows: (key, time-ms, value); left.t BETWEEN right.t - 5 s AND right.t + 5 s
NAMES = ("lk", "lt", "lv", "rk", "rt", "rv")


def params(join_type=INNER, lower=-5000, upper=5000, delay=None, condition=None, min_cleanup=0):
    return IntervalJoinParams(join_type, lower, upper, 1, 1, 3, 3, NAMES, condition, delay, min_cleanup)


class Harness:
    """Drives the core like the processor does: one key, watermark first, then rows."""

    def __init__(self, p, predicate=None):
        self.core_params, self.predicate = p, predicate
        self.left, self.right = SideCache(), SideCache()
        self.timers: set[int] = set()
        self.late_rows = 0

    def step(self, watermark, rows=(), keys_match=True):
        """keys_match=False is what the processor passes for a key with a NULL part."""
        core = IntervalJoinCore(self.core_params, self.predicate)
        out = []
        core.on_watermark(watermark, self.left, self.right, out)
        for side, row in rows:
            core.process(side == "L", row, keys_match, max(watermark, 0), self.left, self.right, out)
        self.timers |= core.timers
        self.late_rows += core.late_rows
        for cache in (self.left, self.right):
            cache.dirty.clear()
            cache.removed.clear()
        return out


L1 = ("a", 1000, "l1")
R1 = ("a", 3000, "r1")
R2 = ("a", 4000, "r2")


def test_inner_join_matches_rows_within_the_window_only():
    h = Harness(params())
    assert h.step(0, [("L", L1)]) == []
    assert h.step(0, [("R", R1)]) == [(INSERT, L1 + R1)]
    assert h.step(0, [("R", ("a", 7000, "far"))]) == []   # 1000 < 7000 - 5000


def test_left_outer_pads_unmatched_row_when_the_watermark_passes_its_window():
    h = Harness(params(LEFT))
    assert h.step(0, [("L", L1)]) == []
    assert h.step(6000) == []                              # cleanup timer is at 1000+5000+1
    assert h.step(6001) == [(INSERT, L1 + (None,) * 3)]
    assert h.left.buckets == {}


def test_right_outer_pads_unmatched_right_rows_and_not_matched_ones():
    h = Harness(params(RIGHT))
    h.step(0, [("R", R1), ("L", L1), ("R", ("a", 9000, "r9"))])
    out = h.step(20000)
    assert out == [(INSERT, (None,) * 3 + ("a", 9000, "r9"))]


def test_late_row_is_not_cached_and_is_padded_at_once_when_outer():
    h = Harness(params(LEFT))
    core_out = h.step(10000, [("L", L1)])                  # 1000 + 5000 <= watermark 10000
    assert core_out == [(INSERT, L1 + (None,) * 3)]
    assert h.left.buckets == {}


def test_early_fire_pads_then_retracts_on_first_match_and_inserts_later_matches():
    h = Harness(params(LEFT, delay=2000))
    assert h.step(0, [("L", L1)]) == []
    assert 3000 in h.timers                                # rowTime + delay
    assert h.step(2999) == []
    assert h.step(3000) == [(INSERT, L1 + (None,) * 3)]
    assert h.step(3000, [("R", R1)]) == [(UPDATE_BEFORE, L1 + (None,) * 3),
                                         (UPDATE_AFTER, L1 + R1)]
    assert h.step(3000, [("R", R2)]) == [(INSERT, L1 + R2)]
    assert h.step(100000) == []                            # matched: no padding at expiry


def test_early_fire_never_pads_twice_when_delay_is_beyond_the_window():
    h = Harness(params(LEFT, delay=20000))
    h.step(0, [("L", L1)])
    assert h.step(6001) == [(INSERT, L1 + (None,) * 3)]    # expiry pads first
    assert h.step(30000) == []                             # the early-fire timer finds nothing


def test_early_fire_and_expiry_due_together_fire_once():
    h = Harness(params(LEFT, delay=20000))
    h.step(0, [("L", L1)])
    assert h.step(50000) == [(INSERT, L1 + (None,) * 3)]


def test_early_fire_on_full_join_fires_both_sides():
    h = Harness(params(FULL, delay=1000))
    h.step(0, [("L", L1), ("R", ("b", 9000, "r9"))])
    out = h.step(10000)
    assert (INSERT, L1 + (None,) * 3) in out
    assert (INSERT, (None,) * 3 + ("b", 9000, "r9")) in out
    assert len(out) == 2


def test_early_fire_on_right_join_retracts_the_right_row():
    h = Harness(params(RIGHT, delay=1000))
    h.step(0, [("R", R1)])
    assert h.step(4000) == [(INSERT, (None,) * 3 + R1)]
    assert h.step(4000, [("L", ("a", 5000, "l5"))]) == [
        (UPDATE_BEFORE, (None,) * 3 + R1), (UPDATE_AFTER, ("a", 5000, "l5") + R1)]


@pytest.mark.parametrize("join_type", [INNER])
def test_early_fire_is_ignored_by_inner_joins(join_type):
    h = Harness(params(join_type, delay=1000))
    h.step(0, [("L", L1)])
    assert h.timers == {6001}                              # cleanup only, no fire timer
    assert h.step(5000) == []


def test_early_fire_is_ignored_by_negative_windows():
    assert not params(LEFT, lower=1000, upper=-1000, delay=1000).early_fire


def test_non_equi_predicate_filters_matches_and_keeps_outer_row_unmatched():
    h = Harness(params(LEFT), predicate=lambda row: row["lv"] == row["rv"])
    h.step(0, [("L", L1), ("R", R1)])
    assert h.step(100000) == [(INSERT, L1 + (None,) * 3)]


def test_min_cleanup_interval_delays_expiry():
    h = Harness(params(LEFT, min_cleanup=10000))
    h.step(0, [("L", L1)])
    assert h.step(6001) == []
    assert h.step(16001) == [(INSERT, L1 + (None,) * 3)]


# --- rows exactly on the window bounds --------------------------------------------------------
# An asymmetric window, so that a mix-up of the lower and the upper bound shows:
# left.t BETWEEN right.t - 2 s AND right.t + 3 s, i.e. lower_bound = -2000, upper_bound = +3000.
# The left row at 10000 matches a right row at r iff -2000 <= 10000 - r <= 3000,
# i.e. r in [10000 - 3000, 10000 + 2000] = [7000, 12000], both ends included (Flink's
# `rightTime >= rightQualifiedLowerBound && rightTime <= rightQualifiedUpperBound`).
NULLS = (None,) * 3
BL = ("a", 10000, "l")
ON_UPPER = ("a", 7000, "r-on-upper")              # left.t == right.t + 3000
BEYOND_UPPER = ("a", 6999, "r-beyond-upper")      # left.t == right.t + 3001
ON_LOWER = ("a", 12000, "r-on-lower")             # left.t == right.t - 2000
BEYOND_LOWER = ("a", 12001, "r-beyond-lower")     # left.t == right.t - 2001
AROUND_THE_BOUNDS = (BEYOND_UPPER, ON_UPPER, ON_LOWER, BEYOND_LOWER)   # in time order


def asymmetric(join_type=INNER, lower=-2000, upper=3000, **kwargs):
    return params(join_type, lower=lower, upper=upper, **kwargs)


def arrive(h, first, left_rows, right_rows, keys_match=True):
    """Feed every row at watermark 0, one call per row: all left rows first, or all right
    rows first. The first side is cached, the second side probes it: the two orders run
    the two halves of the join (processElement1 / processElement2)."""
    lefts = [("L", row) for row in left_rows]
    rights = [("R", row) for row in right_rows]
    out = []
    for item in (lefts + rights if first == "L" else rights + lefts):
        out += h.step(0, [item], keys_match=keys_match)
    return out


@pytest.mark.parametrize("first", ["L", "R"])
def test_rows_exactly_on_the_lower_and_upper_bound_match_and_one_ms_beyond_do_not(first):
    h = Harness(asymmetric())
    # Right rows are fed (and cached) in time order, so both orders emit in time order.
    assert arrive(h, first, [BL], AROUND_THE_BOUNDS) == [(INSERT, BL + ON_UPPER),
                                                          (INSERT, BL + ON_LOWER)]


@pytest.mark.parametrize("first", ["L", "R"])
def test_full_join_on_the_bounds_pads_only_the_rows_one_ms_beyond(first):
    h = Harness(asymmetric(FULL))
    assert arrive(h, first, [BL], AROUND_THE_BOUNDS) == [(INSERT, BL + ON_UPPER),
                                                          (INSERT, BL + ON_LOWER)]
    # At expiry the left row (matched) is not padded; of the right rows only the two beyond
    # the bounds are, in time order (left cache first, then the right cache, as Flink's timers).
    assert h.step(100000) == [(INSERT, NULLS + BEYOND_UPPER), (INSERT, NULLS + BEYOND_LOWER)]
    assert h.left.buckets == {} and h.right.buckets == {}


# --- strict and non-strict time predicates ----------------------------------------------------
# The planner turns `>` / `<` into inclusive bounds 1 ms tighter (interval_bounds.add_to_bounds):
#   L.t >= R.t - INTERVAL '2' SECOND -> lower -2000      L.t > R.t - INTERVAL '2' SECOND -> -1999
#   L.t <= R.t + INTERVAL '3' SECOND -> upper  3000      L.t < R.t + INTERVAL '3' SECOND ->  2999
# The core treats both bounds as inclusive: the left row at 10000 matches a right row at r iff
# lower <= 10000 - r <= upper.
NEAR_THE_BOUNDS = (6999, 7000, 7001, 11999, 12000, 12001)


def right_at(time):
    return ("a", time, f"r{time}")


@pytest.mark.parametrize("first", ["L", "R"])
@pytest.mark.parametrize("lower, upper, matched", [
    (-2000, 3000, (7000, 7001, 11999, 12000)),   # >= and <=
    (-1999, 3000, (7000, 7001, 11999)),          # >  and <= : 12000 (10000 - r = -2000) is out
    (-2000, 2999, (7001, 11999, 12000)),         # >= and <  : 7000 (10000 - r = 3000) is out
    (-1999, 2999, (7001, 11999)),                # >  and <
])
def test_strict_predicates_are_inclusive_bounds_one_ms_tighter(first, lower, upper, matched):
    h = Harness(asymmetric(lower=lower, upper=upper))
    out = arrive(h, first, [BL], [right_at(t) for t in NEAR_THE_BOUNDS])
    assert out == [(INSERT, BL + right_at(t)) for t in matched]


# The planner half, without Spark: interval_bounds is pure code over sqlglot trees.
def planned_bounds(condition: str) -> tuple[int, int]:
    """(lower, upper) as the planner derives them from the time predicates of `condition`."""
    def is_time_column(column):        # the rowtime attributes are L.t and R.t
        return column.table if column.name == "t" and column.table in ("L", "R") else None

    def conjuncts(node):
        if isinstance(node, exp.And):
            return conjuncts(node.this) + conjuncts(node.expression)
        return [node]

    bounds = Bounds()
    for conjunct in conjuncts(sqlglot.parse_one(condition, read="spark")):
        predicates = time_predicate(conjunct, is_time_column)
        assert predicates is not None, f"not a time predicate: {conjunct.sql()}"
        add_to_bounds(bounds, predicates, "test")
    return bounds.lower, bounds.upper


# Each condition with the same condition written as Python, to derive what must match.
SQL_WINDOWS = [
    ("L.t > R.t - INTERVAL '2' SECOND AND L.t <= R.t + INTERVAL '3' SECOND",
     lambda l, r: l > r - 2000 and l <= r + 3000, (-1999, 3000)),
    ("L.t >= R.t - INTERVAL '2' SECOND AND L.t < R.t + INTERVAL '3' SECOND",
     lambda l, r: l >= r - 2000 and l < r + 3000, (-2000, 2999)),
    # the same with R.t on the left-hand side: R.t < L.t + 2 s  <=>  L.t > R.t - 2 s
    ("R.t < L.t + INTERVAL '2' SECOND AND R.t >= L.t - INTERVAL '3' SECOND",
     lambda l, r: r < l + 2000 and r >= l - 3000, (-1999, 3000)),
    ("R.t <= L.t + INTERVAL '2' SECOND AND R.t > L.t - INTERVAL '3' SECOND",
     lambda l, r: r <= l + 2000 and r > l - 3000, (-2000, 2999)),
    ("L.t BETWEEN R.t - INTERVAL '2' SECOND AND R.t + INTERVAL '3' SECOND",
     lambda l, r: r - 2000 <= l <= r + 3000, (-2000, 3000)),
    ("R.t BETWEEN L.t - INTERVAL '3' SECOND AND L.t + INTERVAL '2' SECOND",
     lambda l, r: l - 3000 <= r <= l + 2000, (-2000, 3000)),
]


@pytest.mark.parametrize("condition, holds, bounds", SQL_WINDOWS)
def test_planner_turns_strict_predicates_into_bounds_one_ms_tighter(condition, holds, bounds):
    assert planned_bounds(condition) == bounds


@pytest.mark.parametrize("first", ["L", "R"])
@pytest.mark.parametrize("condition, holds, bounds", SQL_WINDOWS)
def test_planned_bounds_match_exactly_the_rows_the_sql_condition_accepts(condition, holds, bounds,
                                                                        first):
    lower, upper = planned_bounds(condition)
    times = [t for edge in (7000, 12000) for t in range(edge - 3, edge + 4)]
    h = Harness(asymmetric(lower=lower, upper=upper))
    out = arrive(h, first, [BL], [right_at(t) for t in times])
    expected = [(INSERT, BL + right_at(t)) for t in times if holds(BL[1], t)]
    assert expected, "the grid must reach inside the window"
    assert out == expected


# --- expiry at the window's end ---------------------------------------------------------------
# A left row at t can match right rows up to t + 2000 (lower_bound -2000): it must stay cached
# while watermark <= t + 2000 and go (padded, when outer) at watermark t + 2001, Flink's
# `expiration = operatorTime - relativeSize - 1` and cleanup timer `t + relativeSize + 1`.
def test_cleanup_timer_expires_rows_one_ms_after_their_window_and_keeps_the_next_one():
    early, late = ("a", 9999, "l-early"), ("a", 10000, "l-late")
    h = Harness(asymmetric(LEFT))
    assert h.step(0, [("L", early), ("L", late)]) == []
    assert h.timers == {9999 + 2000 + 1}
    assert h.step(11999) == []
    assert h.step(12000) == [(INSERT, early + NULLS)]      # 9999 + 2000 < 12000; 10000 + 2000 is not
    assert sorted(h.left.buckets) == [10000]
    assert h.left.cleanup_time == 10000 + 2000 + 1
    assert h.step(12001) == [(INSERT, late + NULLS)]
    assert h.left.buckets == {} and h.left.cleanup_time is None


def test_a_row_at_the_end_of_its_window_is_not_expired_eagerly_and_still_matches():
    h = Harness(asymmetric(LEFT))
    h.step(0, [("L", BL)])
    # Watermark 12000 = 10000 + 2000: BL can still match a right row at 12000. A right row
    # elsewhere must not expire it eagerly (Flink removes only `time <= operatorTime - 2000 - 1`).
    assert h.step(12000, [("R", ("a", 20000, "far"))]) == []
    assert sorted(h.left.buckets) == [10000]
    assert h.step(12000, [("R", ON_LOWER)]) == [(INSERT, BL + ON_LOWER)]
    assert h.step(12001) == []                              # matched: not padded at expiry
    assert h.left.buckets == {}


@pytest.mark.parametrize("join_type, side, boundary_time, relative", [
    (LEFT, "L", 10000, 2000),      # a left row waits for right rows up to t - lower_bound
    (RIGHT, "R", 9000, 3000),      # a right row waits for left rows up to t + upper_bound
])
def test_a_row_is_late_exactly_when_the_watermark_reached_the_end_of_its_window(
        join_type, side, boundary_time, relative):
    watermark = boundary_time + relative                    # 12000 for both
    on_time = ("a", boundary_time + 1, "on-time")
    late = ("a", boundary_time, "late")
    pad = (lambda row: row + NULLS) if side == "L" else (lambda row: NULLS + row)
    h = Harness(asymmetric(join_type))
    assert h.step(watermark, [(side, on_time)]) == []
    assert h.late_rows == 0
    assert h.step(watermark, [(side, late)]) == [(INSERT, pad(late))]
    assert h.late_rows == 1
    cache = h.left if side == "L" else h.right
    assert sorted(cache.buckets) == [boundary_time + 1]


# --- NULL join keys ---------------------------------------------------------------------------
# The processor passes keys_match=False when a key part is NULL (`_run`), like Flink's
# IntervalJoinFunction (`joinKey.anyNull()` -> no join). The rows are still cached as any
# other row, so an outer row is padded when it expires; an inner row never produces output.
@pytest.mark.parametrize("first", ["L", "R"])
@pytest.mark.parametrize("join_type, left_padded, right_padded", [
    (INNER, False, False), (LEFT, True, False), (RIGHT, False, True), (FULL, True, True)])
def test_null_keys_never_match_and_outer_rows_are_padded_at_expiry(first, join_type, left_padded,
                                                                   right_padded):
    h = Harness(params(join_type))                          # window [-5000, 5000]
    assert arrive(h, first, [L1], [R1], keys_match=False) == []   # 3000 - 1000 is inside it
    assert sorted(h.left.buckets) == [1000] and sorted(h.right.buckets) == [3000]
    assert h.step(6000) == []
    assert h.step(6001) == ([(INSERT, L1 + NULLS)] if left_padded else [])    # 1000 + 5000 + 1
    assert h.step(8000) == []
    assert h.step(8001) == ([(INSERT, NULLS + R1)] if right_padded else [])   # 3000 + 5000 + 1
    assert h.left.buckets == {} and h.right.buckets == {}


def test_late_outer_row_with_a_null_key_is_padded_at_once():
    h = Harness(params(LEFT))
    assert h.step(10000, [("L", L1)], keys_match=False) == [(INSERT, L1 + NULLS)]
    assert h.left.buckets == {}


# --- NULL event times -------------------------------------------------------------------------
# In Flink a row whose rowtime is NULL never reaches the interval join: the watermark assigner
# fails the job ("RowTime field should not be null ..."). streamplan's watermark assigner does
# the same (tests/test_streamplan_runtime.py); the core's own guard only keeps a NULL time
# from crashing it: such a row is neither cached nor joined.
@pytest.mark.parametrize("join_type", [INNER, LEFT, FULL])
def test_a_null_event_time_never_reaches_the_cache(join_type):
    h = Harness(params(join_type))
    h.step(0, [("R", R1)])
    assert h.step(0, [("L", ("a", None, "no-time"))]) == []
    assert h.left.buckets == {}



# --- the order of a call's input rows ------------------------------------------------------------

def test_input_rows_are_ordered_by_time_then_left_first_then_by_their_text():
    from streamplan.runtime.interval_join import ordered_input

    p = params()
    rows = [{"__side": side, "__l": values if side == 0 else None,
             "__r": values if side == 1 else None}
            for side, values in [(1, ("a", 2000, "r2")), (0, ("a", 2000, "l2b")),
                                 (0, ("a", 2000, "l2a")), (1, ("a", 1000, "r1")),
                                 (0, ("a", None, "no time")), (1, ("a", 2000, "r2"))]]
    expected = sorted(((values[1] or 0, side == 1, repr(values)), side == 0, values)
                      for side, values in ((r["__side"], r["__l"] or r["__r"]) for r in rows))
    assert ordered_input(rows, p) == [(left, values) for _, left, values in expected]
    assert ordered_input(rows, p)[:2] == [(True, ("a", None, "no time")), (False, ("a", 1000, "r1"))]


# --- processing time (Flink's ProcTimeIntervalJoin): `step`'s time is the processing time ---

def proc_params(join_type=INNER, lower=-5000, upper=5000, delay=None):
    from dataclasses import replace

    return replace(params(join_type, lower, upper, delay), event_time=False)


def test_on_processing_time_a_row_is_at_the_time_it_arrives_not_at_its_time_column():
    h = Harness(proc_params())
    assert h.step(100_000, [("L", ("a", 1, "l"))]) == []      # its column says 1 ms
    assert h.left.buckets.keys() == {100_000}
    assert h.step(105_000, [("R", ("a", 1, "r"))]) == [(INSERT, ("a", 1, "l", "a", 1, "r"))]
    assert h.step(110_002, [("R", ("a", 1, "r2"))]) == []     # the left row expired at 105,001


def test_on_processing_time_outer_rows_pad_when_the_clock_passes_their_window():
    h = Harness(proc_params(LEFT))
    h.step(100_000, [("L", L1)])
    assert h.timers == {105_001}
    assert h.step(105_000) == []
    assert h.step(105_001) == [(INSERT, L1 + (None,) * 3)]


def test_on_processing_time_an_uncached_row_is_not_counted_late():
    # A window that closes at the row's own time caches nothing on its side (leftRelativeSize 0).
    h = Harness(proc_params(LEFT, lower=0, upper=0))
    assert h.step(100_000, [("R", R1)]) == []
    assert h.right.buckets == {} and h.late_rows == 0


def test_processing_time_early_fire_pads_after_the_delay_on_the_clock():
    h = Harness(proc_params(LEFT, delay=2000))
    h.step(100_000, [("L", L1)])
    assert h.step(101_999) == []
    assert h.step(102_000) == [(INSERT, L1 + (None,) * 3)]
    assert h.step(103_000, [("R", R1)]) == [(UPDATE_BEFORE, L1 + (None,) * 3),
                                           (UPDATE_AFTER, L1 + R1)]
