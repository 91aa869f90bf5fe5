"""harness.run_ahead: the gate's runs start ahead of their tests, a few at a time, and each
test gets exactly its own run's result or exception."""
from __future__ import annotations

import threading
import time

import pytest

from harness.run_ahead import RunAhead


def test_scheduled_runs_go_ahead_concurrently_and_each_key_gets_its_own_result():
    ahead = RunAhead(3)
    started = threading.Barrier(3, timeout=10)     # breaks unless three run at once

    def run(value):
        def action():
            started.wait()
            return value
        return action

    for key in "abc":
        ahead.schedule(key, run(key.upper()))
    try:
        assert [ahead.result(key, lambda: pytest.fail("ran inline")) for key in "cab"] == ["C", "A", "B"]
    finally:
        ahead.close()


def test_a_runs_exception_reaches_its_test_and_nothing_else():
    ahead = RunAhead(2)

    def boom():
        raise ValueError("the run failed")

    ahead.schedule("bad", boom)
    ahead.schedule("good", lambda: 42)
    try:
        with pytest.raises(ValueError, match="the run failed"):
            ahead.result("bad", lambda: None)
        assert ahead.result("good", lambda: None) == 42
    finally:
        ahead.close()


def test_an_unscheduled_key_and_one_worker_run_inline_in_the_test():
    ahead = RunAhead(1)
    calls = []
    ahead.schedule("a", lambda: calls.append("scheduled"))     # one worker: nothing runs ahead
    assert calls == []
    assert ahead.result("a", lambda: "inline") == "inline"
    assert RunAhead(2).result("never scheduled", lambda: "inline") == "inline"


def test_close_cancels_what_has_not_started_and_waits_for_what_has():
    ahead = RunAhead(2)
    finished, started = [], []

    def slow(name):
        def action():
            started.append(name)
            time.sleep(0.3)
            finished.append(name)
        return action

    for name in ("a", "b", "c", "d"):
        ahead.schedule(name, slow(name))
    time.sleep(0.1)
    ahead.close()
    assert sorted(finished) == sorted(started) == ["a", "b"]


def test_at_least_one_worker():
    with pytest.raises(ValueError, match="workers must be at least 1, not 0"):
        RunAhead(0)


def test_runs_of_one_resource_never_overlap_while_others_go_ahead():
    """A fixture's restore and migration check resume copies of one checkpoint: the same
    Spark query id, which Spark runs once at a time."""
    ahead = RunAhead(3)
    running: dict[str, int] = {}
    overlaps, lock = [], threading.Lock()

    def run(resource):
        def action():
            with lock:
                running[resource] = running.get(resource, 0) + 1
                overlaps.append(running[resource] > 1)
            time.sleep(0.1)
            with lock:
                running[resource] -= 1
            return resource
        return action

    try:
        for key, resource in [("restore a", "a"), ("migration a", "a"), ("restore b", "b")]:
            ahead.schedule(key, run(resource), resource=resource)
        assert [ahead.result(key, lambda: None, resource=key[-1])
                for key in ("restore a", "migration a", "restore b")] == ["a", "a", "b"]
        assert overlaps == [False, False, False]
    finally:
        ahead.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_runs_seconds_are_its_own_run_time_not_the_tests_wait(workers):
    """The gate's report shows each run's time; a test that finds its run done waits 0 s."""
    ticks = iter([10.0, 12.5, 20.0, 20.25])      # start and end of each run, in order
    ahead = RunAhead(workers, clock=lambda: next(ticks))

    def boom():
        raise ValueError("the run failed")

    ahead.schedule("first", lambda: "done")
    try:
        assert ahead.result("first", lambda: "done") == "done"
        assert ahead.seconds("first") == 2.5
        with pytest.raises(ValueError):
            ahead.result("failing", boom)            # never scheduled: runs here, timed too
        assert ahead.seconds("failing") == 0.25
    finally:
        ahead.close()
