"""The event-time temporal join without Spark: Flink's TemporalRowTimeJoinOperator (probe rows
buffered until the watermark, versions per key pruned to the last one before it, one
event-time timer per key) and BaseTwoInputStreamOperatorWithStateRetention's cleanup."""
from __future__ import annotations

from streamplan.changelog import RowKind
from streamplan.runtime.pyeval import compile_predicate
from streamplan.runtime.temporal_join import (MAX_TIME, TemporalJoinCore, TemporalJoinParams,
                                              TemporalJoinState)

I, UB, UA, D = (RowKind.INSERT.code, RowKind.UPDATE_BEFORE.code, RowKind.UPDATE_AFTER.code,
                RowKind.DELETE.code)
# probe rows (currency, amount, t-ms); versions (currency, rate, t-ms)
NAMES = ("lc", "amount", "lt", "rc", "rate", "rt")
NULLS = (None, None, None)


def params(left_outer=False, condition=None, ttl=0):
    return TemporalJoinParams(left_outer=left_outer, left_time_index=2, right_time_index=2,
                              left_arity=3, right_arity=3, output_names=NAMES,
                              condition=condition, min_retention_ms=ttl,
                              max_retention_ms=ttl * 3 // 2)


class Harness:
    """Drives the core as the processor does: one key, due timer first, then the rows."""

    def __init__(self, p, now=0):
        predicate = compile_predicate(p.condition, columns=NAMES) if p.condition else None
        self.core = TemporalJoinCore(p, predicate)
        self.state = TemporalJoinState()
        self.now = now

    def step(self, watermark, rows=()):
        out = []
        self.core.cleanup_if_due(self.state, self.now)
        self.core.on_watermark(self.state, watermark, self.now, out)
        for side, kind, row in rows:
            (self.core.process_left if side == "L" else self.core.process_right)(
                self.state, kind, row, self.now)
        return out


def test_probe_rows_wait_for_the_watermark_and_join_the_version_valid_at_their_time():
    h = Harness(params())
    assert h.step(0, [("R", I, ("Euro", 114, 1000)), ("L", I, ("Euro", 2, 2000))]) == []
    assert h.state.timer == 1000                       # the smallest time: the version's
    assert h.step(1500, [("R", I, ("Euro", 116, 3000)), ("L", I, ("Euro", 3, 4000))]) == []
    # the version at 3000 came before the watermark reached the probe row at 2000: not its
    assert h.step(4000) == [(I, ("Euro", 2, 2000, "Euro", 114, 1000)),
                            (I, ("Euro", 3, 4000, "Euro", 116, 3000))]
    assert h.state.left == {} and h.state.timer is None


def test_versions_before_the_watermark_are_pruned_but_the_latest_is_kept():
    h = Harness(params())
    h.step(0, [("R", I, ("USD", 102, 1000)), ("R", I, ("USD", 103, 2000)),
               ("R", I, ("USD", 104, 5000))])
    h.step(3000)
    assert sorted(h.state.right) == [2000, 5000]        # firstIndexToKeep: 1000 dropped
    assert h.state.timer is None            # nothing waits: no timer, so no later pruning
    h.step(6000)
    assert sorted(h.state.right) == [2000, 5000]


def test_a_late_probe_row_finds_only_the_versions_left_after_pruning():
    h = Harness(params(left_outer=True))
    h.step(0, [("R", I, ("USD", 102, 1000)), ("R", I, ("USD", 104, 5000))])
    h.step(6000)                                         # 1000 pruned, 5000 kept
    assert h.step(6000, [("L", I, ("USD", 1, 2000))]) == []
    assert h.state.timer == 2000
    assert h.step(6000) == [(I, ("USD", 1, 2000) + NULLS)]


def test_inner_join_drops_and_left_join_pads_probe_rows_without_a_version():
    for outer, expected in ((False, []), (True, [(I, ("Yen", 50, 1000) + NULLS)])):
        h = Harness(params(left_outer=outer))
        h.step(0, [("L", I, ("Yen", 50, 1000)), ("R", I, ("Yen", 1, 2000))])
        assert h.step(2000) == expected


def test_a_delete_ends_the_version_and_an_update_after_starts_one():
    h = Harness(params(left_outer=True))
    h.step(0, [("R", I, ("Euro", 114, 1000)), ("R", D, ("Euro", 114, 3000)),
               ("R", UA, ("Euro", 120, 5000)),
               ("L", I, ("Euro", 1, 2000)), ("L", I, ("Euro", 2, 4000)),
               ("L", I, ("Euro", 3, 6000))])
    assert h.step(6000) == [(I, ("Euro", 1, 2000, "Euro", 114, 1000)),
                            (I, ("Euro", 2, 4000) + NULLS),
                            (I, ("Euro", 3, 6000, "Euro", 120, 5000))]


def test_update_before_rows_of_the_versioned_side_are_skipped():
    h = Harness(params())
    h.step(0, [("R", I, ("Euro", 114, 1000)), ("R", UB, ("Euro", 114, 1000)),
               ("R", UA, ("Euro", 116, 3000)), ("L", I, ("Euro", 1, 2000))])
    assert h.step(3000) == [(I, ("Euro", 1, 2000, "Euro", 114, 1000))]


def test_a_later_version_of_the_same_time_replaces_the_earlier_one():
    h = Harness(params())
    h.step(0, [("R", I, ("Euro", 114, 1000)), ("R", I, ("Euro", 115, 1000)),
               ("L", I, ("Euro", 1, 1000))])
    assert h.step(1000) == [(I, ("Euro", 1, 1000, "Euro", 115, 1000))]


def test_probe_rows_are_emitted_in_arrival_order_and_the_rest_keeps_the_timer():
    h = Harness(params())
    h.step(0, [("R", I, ("Euro", 114, 0)), ("L", I, ("Euro", 1, 3000)),
               ("L", I, ("Euro", 2, 1000)), ("L", I, ("Euro", 3, 9000))])
    assert h.state.timer == 0
    assert h.step(3000) == [(I, ("Euro", 1, 3000, "Euro", 114, 0)),
                            (I, ("Euro", 2, 1000, "Euro", 114, 0))]
    assert h.state.timer == 9000                        # the oldest unprocessed probe row


def test_the_non_equi_condition_filters_or_pads():
    h = Harness(params(left_outer=True, condition="`amount` < `rate`"))
    h.step(0, [("R", I, ("Euro", 10, 0)), ("L", I, ("Euro", 5, 1000)),
               ("L", I, ("Euro", 50, 2000))])
    assert h.step(2000) == [(I, ("Euro", 5, 1000, "Euro", 10, 0)),
                            (I, ("Euro", 50, 2000) + NULLS)]


def test_state_retention_clears_the_key_after_the_max_retention():
    h = Harness(params(ttl=1000), now=0)
    h.step(0, [("R", I, ("Euro", 114, 0))])
    assert h.state.cleanup_time == 1500                 # now + max retention (1.5 x)
    h.now = 600                                          # 600 + 1000 > 1500: pushed on
    h.step(0, [("R", I, ("Euro", 116, 100))])
    assert h.state.cleanup_time == 2100
    h.now = 2100
    assert h.step(5000, [("L", I, ("Euro", 1, 5000))]) == []
    assert h.state.right == {} and h.state.left == {0: (I, ("Euro", 1, 5000))}
    assert h.step(5000) == []                            # no version left to join


def test_the_timer_pushes_the_cleanup_time_on_while_state_is_left():
    h = Harness(params(ttl=1000), now=0)
    h.step(0, [("R", I, ("Euro", 114, 0)), ("L", I, ("Euro", 1, 3000))])
    assert h.state.cleanup_time == 1500
    h.now = 1000
    assert h.step(3000) == [(I, ("Euro", 1, 3000, "Euro", 114, 0))]
    assert h.state.cleanup_time == 2500                 # the version is kept: pushed on


def test_without_retention_no_cleanup_time_is_kept():
    h = Harness(params(ttl=1), now=0)                   # min retention must be > 1 ms
    h.step(0, [("R", I, ("Euro", 114, 0))])
    assert h.state.cleanup_time is None


def test_the_cleanup_timer_goes_once_nothing_waits_and_no_version_is_left():
    h = Harness(params(ttl=1000))
    h.step(0, [("L", I, ("Euro", 1, 1000))])
    assert h.step(1000) == []
    assert h.state.cleanup_time is None and h.state.next_index is None
    assert h.state.timer is None and MAX_TIME > 0
