"""Where the restore gate's time goes: seconds per fixture, and the breakdown.

    .venv/bin/python bench/gate.py                       # the whole gate's work, in-process
    .venv/bin/python bench/gate.py --node interval-join  # one node's fixtures and programs
    .venv/bin/python bench/gate.py --pytest              # also time the real gate (pytest)
    .venv/bin/python bench/gate.py --conf spark.sql.streaming.stateStore.maintenanceInterval=600s

It does what `restore_tests/` does, with the same harness functions, one after the other in
one process: start Spark, run every audit check, restore every fixture, run every program
in semantic mode, and times each part. A StreamingQueryListener records every micro-batch's
durations as Spark reports them (planning, running the batch, writing the offset log and the
commit log), so a run's time splits into query start and stop (the run minus its batches)
and its micro-batches. The headline figure is the whole gate's seconds per fixture,
JVM start included: the figure the gate's goal is set in (issue 9: <= 3 s).

`--pytest` also runs `pytest restore_tests` in a subprocess (what `ci/gate` runs) and prints
its wall time per fixture, as a check that the in-process figure is the gate's. See
bench/README.md for recorded figures.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PHASES = ("queryPlanning", "addBatch", "walCommit", "commitOffsets", "latestOffset", "getBatch")


@dataclass
class Batch:
    total_ms: int
    phases: dict[str, int]


@dataclass
class Timed:
    kind: str                     # restore | semantic | audit | compile
    name: str
    seconds: float
    batches: list[Batch] = field(default_factory=list)

    @property
    def batch_seconds(self) -> float:
        return sum(batch.total_ms for batch in self.batches) / 1000


class BatchRecorder:
    """Collects the micro-batch progress of every query while a run is active."""

    def __init__(self, spark):
        from pyspark.sql.streaming import StreamingQueryListener

        recorder = self
        self.lock = threading.Lock()
        self.batches: list[Batch] = []

        class Listener(StreamingQueryListener):
            def onQueryStarted(self, event):
                pass

            def onQueryProgress(self, event):
                durations = dict(event.progress.durationMs)
                with recorder.lock:
                    recorder.batches.append(Batch(durations.get("triggerExecution", 0),
                                                  {k: durations.get(k, 0) for k in PHASES}))

            def onQueryIdle(self, event):
                pass

            def onQueryTerminated(self, event):
                pass

        spark.streams.addListener(Listener())

    def run(self, kind: str, name: str, action: Callable[[], object]) -> Timed:
        with self.lock:
            self.batches = []
        started = time.perf_counter()
        action()
        seconds = time.perf_counter() - started
        time.sleep(0.3)                           # the listener bus is asynchronous
        with self.lock:
            batches, self.batches = self.batches, []
        return Timed(kind, name, seconds, batches)


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--node", help="only this node's fixtures and programs (e.g. interval-join)")
    parser.add_argument("--limit", type=int, help="at most this many fixtures and programs each")
    parser.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                        help="an extra Spark conf for the session (repeatable), to measure it")
    parser.add_argument("--pytest", action="store_true",
                        help="also time `pytest restore_tests` (the real gate) in a subprocess")
    parser.add_argument("--no-semantic", action="store_true", help="skip the semantic runs")
    return parser.parse_args(argv)


def mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    import streamplan.runtime.session as session

    for item in args.conf:
        key, _, value = item.partition("=")
        session._CONF[key] = value

    started = time.perf_counter()
    spark = session.spark_session()
    jvm_seconds = time.perf_counter() - started

    from harness.audit import audit_checks
    from harness.discovery import discover_programs, select_programs, short_name
    from harness.fixtures import DEFAULT_SNAPSHOTS, scan_snapshots
    from harness.restore import restore_fixture
    from harness.runner import compile_program, run_semantic

    every_program = programs = discover_programs()
    fixtures, _ = scan_snapshots(DEFAULT_SNAPSHOTS)
    if args.node:
        chosen = select_programs(programs, node=args.node)
        ids = {program.id for program in chosen}
        programs = chosen
        fixtures = [fixture for fixture in fixtures if fixture.program_id in ids]
    if args.limit:
        programs, fixtures = programs[:args.limit], fixtures[:args.limit]
    recorder = BatchRecorder(spark)
    timed: list[Timed] = []

    def note(item: Timed) -> None:
        timed.append(item)
        extra = (f", {len(item.batches)} batches ({item.batch_seconds:.1f} s)"
                 if item.batches else "")
        print(f"  {item.kind:8} {item.name}: {item.seconds:.1f} s{extra}", flush=True)

    print(f"JVM start: {jvm_seconds:.1f} s; {len(fixtures)} fixtures, {len(programs)} programs",
          flush=True)
    for name, check in audit_checks(programs, DEFAULT_SNAPSHOTS, spark=spark).items():
        note(recorder.run("audit", name, check))
    for program in programs:
        note(recorder.run("compile", program.id, lambda: compile_program(program, spark)))
    for fixture in fixtures:
        note(recorder.run("restore", fixture.id,
                          lambda: restore_fixture(fixture, every_program, spark=spark)))
    if not args.no_semantic:
        for program in programs:
            note(recorder.run("semantic", program.id, lambda: run_semantic(program, spark)))
    total = time.perf_counter() - started

    runs = [item for item in timed if item.kind in ("restore", "semantic")]
    batches = [batch for item in runs for batch in item.batches]
    by_kind = {kind: [item for item in timed if item.kind == kind]
               for kind in ("audit", "compile", "restore", "semantic")}
    print()
    print(f"gate work in-process: {total:.1f} s for {len(fixtures)} fixtures "
          f"({total / max(len(fixtures), 1):.2f} s per fixture, JVM start included); "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"  JVM start           {jvm_seconds:6.1f} s")
    for kind, items in by_kind.items():
        if items:
            seconds = sum(item.seconds for item in items)
            print(f"  {kind:8} x{len(items):<4}    {seconds:6.1f} s  ({mean([i.seconds for i in items]):.2f} s each)")
    if runs:
        overhead = [item.seconds - item.batch_seconds for item in runs]
        print(f"  per run: {mean([len(i.batches) for i in runs]):.1f} micro-batches, query start "
              f"+ stop + harness work {mean(overhead):.2f} s")
    if batches:
        print(f"  per micro-batch: {mean([b.total_ms for b in batches]):.0f} ms "
              f"(first of a run {mean([i.batches[0].total_ms for i in runs if i.batches]):.0f} ms), of which "
              + ", ".join(f"{phase} {mean([b.phases[phase] for b in batches]):.0f} ms"
                          for phase in PHASES))

    if args.pytest:
        command = [sys.executable, "-m", "pytest", "restore_tests", "-q", "-p", "no:cacheprovider"]
        if args.node:
            command += ["-k", short_name(args.node) if args.node.startswith("stream-exec-")
                        else args.node]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        begun = time.perf_counter()
        result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - begun
        print(f"\npytest restore_tests: {seconds:.1f} s, {seconds / max(len(fixtures), 1):.2f} s "
              f"per fixture (exit {result.returncode}): "
              f"{(result.stdout.strip().splitlines() or [''])[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
