"""The gate's restores and semantic runs, started ahead of the tests that check them.

A run is a streaming query of a handful of tiny micro-batches, and most of its time is
latency: Python workers starting and answering, state stores loading and committing, logs
written between batches. One run at a time leaves the machine idle for much of that, so the
gate keeps a few runs going at once on the one SparkSession (each query has its own
checkpoint, output and query name, so runs share nothing but the JVM). Runs of one
fixture (its restore and its migration check) never overlap: both resume copies of one
checkpoint, so their queries have the same id, and Spark runs one query per id at a time.

pytest stays the one runner: each test still stands for exactly one run and fails with that
run's own error; only the work moves ahead of it. With one worker nothing runs ahead and
every test does its own run, as before. Each run's own wall time is kept for its test
(`seconds`): a test that finds its run already done waits for no time at all.
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Hashable, Optional, TypeVar

T = TypeVar("T")


class RunAhead:
    """Runs scheduled actions on `workers` threads, in the order they were scheduled; a
    test takes its action's result (or exception) with `result(key, action)`."""

    def __init__(self, workers: int, clock: Callable[[], float] = time.perf_counter):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.workers = workers
        self._pool: Optional[ThreadPoolExecutor] = (
            ThreadPoolExecutor(workers, thread_name_prefix="gate-run") if workers > 1 else None)
        self._futures: dict[Hashable, Future] = {}
        self._lock = threading.Lock()
        self._resources: dict[Hashable, threading.Lock] = {}
        self._seconds: dict[Hashable, float] = {}
        self._clock = clock

    def schedule(self, key: Hashable, action: Callable[[], T],
                 resource: Optional[Hashable] = None) -> None:
        """Start `action` when a worker is free; actions of one `resource` one at a time."""
        if self._pool is None:
            return
        run = self._exclusive(self._timed(key, action), resource)
        with self._lock:
            if key not in self._futures:
                self._futures[key] = self._pool.submit(run)

    def result(self, key: Hashable, action: Callable[[], T],
               resource: Optional[Hashable] = None) -> T:
        """The scheduled run's result (raising what it raised), or `action()` here when
        `key` was never scheduled."""
        with self._lock:
            future = self._futures.pop(key, None)
        if future is None:
            return self._exclusive(self._timed(key, action), resource)()
        return future.result()

    def seconds(self, key: Hashable) -> Optional[float]:
        """The wall time of `key`'s run, from its start to its end (waiting for a worker or
        for its resource not included), once it has ended; None before."""
        with self._lock:
            return self._seconds.get(key)

    def _timed(self, key: Hashable, action: Callable[[], T]) -> Callable[[], T]:
        def run() -> T:
            started = self._clock()
            try:
                return action()
            finally:
                ended = self._clock()
                with self._lock:
                    self._seconds[key] = ended - started
        return run

    def _exclusive(self, action: Callable[[], T], resource: Optional[Hashable]) -> Callable[[], T]:
        if resource is None:
            return action
        with self._lock:
            lock = self._resources.setdefault(resource, threading.Lock())

        def run() -> T:
            with lock:
                return action()
        return run

    def close(self) -> None:
        """Cancel what has not started and wait for what has (a query is never left running)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
