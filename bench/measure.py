"""What the benchmarks share: a run's figures, the CPU meter, a timed streaming query, and
streamplan's translation of a compiled plan (exactly as PlanExecutor runs it)."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable


@dataclass
class Run:
    engine: str
    input_rows: int
    output_rows: int = 0
    checksum: int = 0
    retractions: int = 0              # output rows that are not +I (an inner join has none)
    seconds: float = 0.0
    cpu_seconds: float = 0.0          # this process and its descendants (JVM, Python workers)
    batches: int = 0
    batch_ms: list[int] = field(default_factory=list)

    @property
    def rows_per_second(self) -> float:
        return self.input_rows / self.seconds if self.seconds else 0.0


class CpuMeter:
    """CPU seconds (user + system) of this process and all its descendants during a block.

    PySpark's daemon ignores SIGCHLD, so the Python workers it forks are reaped without their
    CPU time reaching any parent's cutime, and idle workers are killed after a minute: a
    process's time is only visible while it lives. So a thread samples the process tree
    every `interval` seconds and credits each process (pid and start time) with the CPU it
    used since the block began, or since it started. Only utime + stime are read (cutime
    would count reaped children twice); what a process uses after its last sample is lost,
    which makes the figure a slight undercount. The sampler's own CPU is not counted."""

    def __init__(self, interval: float = 0.2):
        import threading

        self.interval = interval
        self.ticks = os.sysconf("SC_CLK_TCK")
        self.own = os.getpid()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.latest: dict[tuple[int, int], int] = {}
        self.baseline: dict[tuple[int, int], int] = {}
        self.sampler_seconds = 0.0
        self.seconds = 0.0

    def _sample(self) -> dict[tuple[int, int], int]:
        parents, times = {}, {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    text = handle.read()
            except OSError:
                continue
            fields = text[text.rindex(")") + 2:].split()
            # fields[0] is the state: ppid 1, utime 11, stime 12, starttime 19
            pid = int(entry)
            parents[pid] = int(fields[1])
            times[(pid, int(fields[19]))] = int(fields[11]) + int(fields[12])
        children: dict[int, list[int]] = {}
        for pid, ppid in parents.items():
            children.setdefault(ppid, []).append(pid)
        tree, frontier = set(), list(children.get(self.own, []))
        while frontier:
            pid = frontier.pop()
            tree.add(pid)
            frontier.extend(children.get(pid, []))
        return {key: value for key, value in times.items() if key[0] in tree}

    def _merge(self, sample: dict[tuple[int, int], int]) -> None:
        for key, value in sample.items():
            self.latest[key] = max(value, self.latest.get(key, 0))

    def _loop(self) -> None:
        started = time.thread_time()
        while not self.stop.wait(self.interval):
            self._merge(self._sample())
        self.sampler_seconds = time.thread_time() - started

    def __enter__(self) -> "CpuMeter":
        self.own_started = os.times()
        self.baseline = self._sample()
        self.latest = dict(self.baseline)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()
        self._merge(self._sample())
        ended = os.times()
        own = (ended.user + ended.system) - (self.own_started.user + self.own_started.system)
        descendants = sum(value - self.baseline.get(key, 0) for key, value in self.latest.items())
        self.seconds = descendants / self.ticks + own - self.sampler_seconds


def timed_query(run: Run, frame, checkpoint: Path, sink: Callable, output_mode: str = "append") -> Run:
    """Start the query, process every step, stop; wall time covers start to the last batch."""
    with CpuMeter() as meter:
        started = time.perf_counter()
        query = (frame.writeStream.queryName(f"bench_{checkpoint.name}").foreachBatch(sink)
                 .outputMode(output_mode).option("checkpointLocation", str(checkpoint))
                 .trigger(processingTime="0 seconds").start())
        try:
            query.processAllAvailable()
            run.seconds = time.perf_counter() - started
        finally:
            query.stop()
    run.cpu_seconds = meter.seconds
    progress = query.recentProgress
    run.batches = len(progress)
    run.batch_ms = [p.durationMs.get("triggerExecution", 0) for p in progress]
    return run


def streamplan_frame(spark, plan, feeds: dict[str, str]):
    """The sink node's DataFrame, translated exactly as PlanExecutor._run_sink does."""
    from streamplan.nodes.base import TranslateContext
    from streamplan.executor import PlanExecutor

    executor = PlanExecutor(plan, spark)
    ctx = TranslateContext(spark, executor.config, feeds,
                           executor._scans_feeding_watermarks(), plan=plan)
    return executor._frame(plan.sinks[0], ctx, {})


def best(runs: list[Run]) -> Run:
    return min(runs, key=lambda run: run.seconds)
