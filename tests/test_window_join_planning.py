"""Planning window joins as Flink's WindowJoinUtil.satisfyWindowJoin decides: both inputs
windowed alike and both window equalities present make a stream-exec-window-join, whose
windowing holds the window columns and whose join keys are the other equalities; otherwise
the join is planned as before (a regular join), as Flink falls back."""
from __future__ import annotations

import pytest


pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE L (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'values');
CREATE TABLE R (k STRING, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'values');
CREATE TABLE S (k STRING, v INT, w INT)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""
TUMBLE = "TABLE(TUMBLE(TABLE {t}, DESCRIPTOR(ts), INTERVAL '5' SECOND))"
HOP = "TABLE(HOP(TABLE {t}, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))"


def joins(env, left, right, condition):
    plan = env.compile_sql(f"INSERT INTO S SELECT l.k, l.v, r.w FROM {left.format(t='L')} l "
                           f"JOIN (SELECT k, w, window_start, window_end "
                           f"FROM {right.format(t='R')}) r ON {condition}")
    return [n for n in plan.nodes if "join" in n.type]


WINDOWS = "l.window_start = r.window_start AND l.window_end = r.window_end"


def test_both_window_equalities_make_a_window_join_keyed_by_the_other_equalities(env):
    (join,) = joins(env, TUMBLE, TUMBLE, f"l.k = r.k AND {WINDOWS} AND l.v < r.w")
    assert join.type == "stream-exec-window-join_1"
    assert (join.join_spec.left_keys, join.join_spec.right_keys) == ([0], [0])
    assert join.join_spec.non_equi_condition == "`v` < `w`"
    # the window columns: the table function's (k, v, ts, start, end, time) on the left, the
    # subquery's calc (k, w, start, end) on the right
    assert (join.left_windowing.window_start, join.left_windowing.window_end) == (3, 4)
    assert (join.right_windowing.window_start, join.right_windowing.window_end) == (2, 3)
    assert join.left_windowing.window.type == "TumblingWindow"


def test_without_a_join_key_the_window_join_has_no_keys(env):
    (join,) = joins(env, HOP, HOP, WINDOWS)
    assert join.type == "stream-exec-window-join_1"
    assert join.join_spec.left_keys == [] and "HOP(win_start=[window_start]" in join.description


@pytest.mark.parametrize("left, right, condition", [
    (TUMBLE, TUMBLE, "l.k = r.k AND l.window_start = r.window_start"),   # only one equality
    (TUMBLE, HOP, f"l.k = r.k AND {WINDOWS}"),                             # different windows
])
def test_otherwise_it_is_a_regular_join_as_flink_falls_back(env, left, right, condition):
    (join,) = joins(env, left, right, condition)
    assert join.type.startswith("stream-exec-join_")
