"""The interval-join logic without Spark: Flink's TimeIntervalJoin plus FLIP-497 early fire."""
from __future__ import annotations

import pytest

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

    def step(self, watermark, rows=()):
        core = IntervalJoinCore(self.core_params, self.predicate)
        out = []
        core.on_watermark(watermark, self.left, self.right, out)
        for side, row in rows:
            core.process(side == "L", row, True, max(watermark, 0), self.left, self.right, out)
        self.timers |= core.timers
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
