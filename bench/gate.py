"""Where the restore gate's time goes: seconds per fixture, by number of gate workers, and the
breakdown.

    .venv/bin/python bench/gate.py                        # the whole gate's work, 1 and 3 workers
    .venv/bin/python bench/gate.py --workers 3            # one configuration
    .venv/bin/python bench/gate.py --node interval-join   # one node's fixtures and programs
    .venv/bin/python bench/gate.py --limit 12             # a sample: the first 12 of each kind
    .venv/bin/python bench/gate.py --pytest               # also time `pytest restore_tests`

Each configuration runs in a fresh process (its own JVM, so none inherits another's warm-up)
and does what `restore_tests/` does, with the same harness functions: start Spark, run every
audit check, compile every program, then every fixture restore, every migration check and
every program's semantic run, kept going `workers` at a time by harness.run_ahead exactly as
the gate does. The headline is the whole gate's seconds per fixture, JVM start included: the
figure issue 9 sets at <= 3 s.

Breakdown: JVM start, audit, compile, and per run kind the count, the summed run time and the
mean; per query its micro-batches and their wall time, taken where each batch's output is
written (see BatchClock; Spark's own per-phase durations read the query's trigger clock, and
the harness runs queries on a manual clock, so they are zero). With several workers a run's
time includes waiting for the cores, so the sum of run times exceeds the wall time.
See bench/README.md for recorded figures.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

KINDS = ("restore", "migration", "semantic")


class BatchClock:
    """Wall time from a query's start to each of its micro-batches, per query.

    Every query writes through a `values` sink: a ChangelogSinkWriter made just before the
    query starts and called once per micro-batch, in this process. Timing those calls costs
    nothing the gate does not do anyway. (A StreamingQueryListener did this before, but PySpark
    turns every progress event into Python objects through dozens of py4j calls, each looking
    classes up in every jar: in a JFR profile that was 29% of the JVM's CPU, and it inflated
    the figures it measured.)"""

    def __init__(self):
        from streamplan.runtime.changelog_sink import ChangelogSinkWriter

        clock = self
        self.lock = threading.Lock()
        self.last: dict[str, float] = {}
        self.batches: dict[str, list[float]] = {}
        made, called = ChangelogSinkWriter.__init__, ChangelogSinkWriter.__call__

        def init(writer, directory, names):
            made(writer, directory, names)
            with clock.lock:
                clock.last[writer.directory] = time.perf_counter()

        def call(writer, frame, batch_id):
            called(writer, frame, batch_id)
            now = time.perf_counter()
            with clock.lock:
                clock.batches.setdefault(writer.directory, []).append(
                    now - clock.last.get(writer.directory, now))
                clock.last[writer.directory] = now

        ChangelogSinkWriter.__init__, ChangelogSinkWriter.__call__ = init, call

    def all_batches(self) -> list[list[float]]:
        with self.lock:
            return [list(times) for times in self.batches.values()]


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="1,3",
                        help="gate worker counts to measure, comma-separated (default 1,3)")
    parser.add_argument("--node", help="only this node's fixtures and programs (e.g. interval-join)")
    parser.add_argument("--limit", type=int, help="at most this many of each kind of run")
    parser.add_argument("--pytest", action="store_true",
                        help="also time `pytest restore_tests` (the real gate) per worker count")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)   # a child: one configuration
    return parser.parse_args(argv)


def mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def measure(workers: int, node: Optional[str], limit: Optional[int]) -> dict:
    """One configuration, in this process: the gate's work and its timings."""
    started = time.perf_counter()
    from streamplan.testing import spark_session

    spark = spark_session()
    jvm = time.perf_counter() - started
    from harness.audit import audit_checks
    from harness.discovery import discover_programs, select_programs
    from harness.fixtures import DEFAULT_SNAPSHOTS, scan_snapshots
    from harness.migration import migration_case
    from harness.restore import restore_fixture, restore_migrated
    from harness.run_ahead import RunAhead
    from harness.runner import compile_program, run_semantic

    every_program = programs = discover_programs()
    fixtures, _ = scan_snapshots(DEFAULT_SNAPSHOTS)
    if node:
        programs = select_programs(programs, node=node)
        ids = {program.id for program in programs}
        fixtures = [fixture for fixture in fixtures if fixture.program_id in ids]
    older = [fixture for fixture in fixtures if migration_case(fixture) is not None]
    if limit:
        programs, fixtures, older = programs[:limit], fixtures[:limit], older[:limit]
    clock = BatchClock()
    phases: dict[str, float] = {"jvm": jvm}

    begun = time.perf_counter()
    for check in audit_checks(programs, DEFAULT_SNAPSHOTS, spark=spark).values():
        check()
    phases["audit"] = time.perf_counter() - begun
    begun = time.perf_counter()
    for program in programs:
        compile_program(program, spark)
    phases["compile"] = time.perf_counter() - begun

    def timed(action: Callable[[], object]) -> Callable[[], float]:
        def run() -> float:
            start = time.perf_counter()
            action()
            return time.perf_counter() - start
        return run

    runs = ([("restore", f.id, timed(lambda f=f: restore_fixture(f, every_program, spark=spark)))
             for f in fixtures]
            + [("migration", f.id, timed(lambda f=f: restore_migrated(f, every_program, spark=spark)))
               for f in older]
            + [("semantic", p.id, timed(lambda p=p: run_semantic(p, spark))) for p in programs])
    ahead = RunAhead(workers)
    begun = time.perf_counter()
    for kind, name, action in runs:
        ahead.schedule((kind, name), action)
    seconds: dict[str, list[float]] = {kind: [] for kind in KINDS}
    try:
        for kind, name, action in runs:
            seconds[kind].append(ahead.result((kind, name), action))
    finally:
        ahead.close()
    phases["runs"] = time.perf_counter() - begun
    batches = clock.all_batches()
    return {"workers": workers, "fixtures": len(fixtures), "programs": len(programs),
            "older": len(older), "total": time.perf_counter() - started, "phases": phases,
            "runs": {kind: {"count": len(times), "sum": sum(times), "mean": mean(times)}
                     for kind, times in seconds.items()},
            "batches": {"queries": len(batches), "per_query": mean([len(b) for b in batches]),
                        "first": mean([b[0] for b in batches if b]),
                        "later": mean([t for b in batches for t in b[1:]])},
            "load": os.getloadavg()[0]}


def report(result: dict) -> None:
    fixtures = max(result["fixtures"], 1)
    print(f"\n== {result['workers']} worker(s): {result['total']:.1f} s for {result['fixtures']} "
          f"fixtures, {result['older']} migration checks, {result['programs']} programs: "
          f"{result['total'] / fixtures:.2f} s per fixture (JVM start included); load average "
          f"{result['load']:.1f}")
    phases = result["phases"]
    print(f"  JVM start {phases['jvm']:.1f} s, audit {phases['audit']:.1f} s, compile "
          f"{phases['compile']:.1f} s, runs {phases['runs']:.1f} s (wall)")
    for kind, figures in result["runs"].items():
        if figures["count"]:
            print(f"  {kind:9} x{figures['count']:<4} {figures['sum']:7.1f} s summed, "
                  f"{figures['mean']:.2f} s each")
    batches = result["batches"]
    print(f"  {batches['queries']} queries, {batches['per_query']:.1f} micro-batches each; first "
          f"batch {batches['first'] * 1000:.0f} ms after the query starts, later ones "
          f"{batches['later'] * 1000:.0f} ms apart")


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure(args.one, args.node, args.limit)))
        return 0
    results = []
    for workers in [int(w) for w in args.workers.split(",")]:
        command = [sys.executable, __file__, "--one", str(workers)]
        command += ["--node", args.node] if args.node else []
        command += ["--limit", str(args.limit)] if args.limit else []
        child = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
        if child.returncode != 0:
            print(child.stdout[-2000:], child.stderr[-4000:], sep="\n", file=sys.stderr)
            return 1
        results.append(json.loads(child.stdout.strip().splitlines()[-1]))
        report(results[-1])
        if args.pytest:
            gate = [sys.executable, "-m", "pytest", "restore_tests", "-q", "-p", "no:cacheprovider",
                    f"--gate-workers={workers}"] + (["-k", args.node] if args.node else [])
            begun = time.perf_counter()
            done = subprocess.run(gate, cwd=REPO, capture_output=True, text=True)
            took = time.perf_counter() - begun
            print(f"  pytest restore_tests --gate-workers={workers}: {took:.1f} s, "
                  f"{took / max(results[-1]['fixtures'], 1):.2f} s per fixture (exit "
                  f"{done.returncode}): {(done.stdout.strip().splitlines() or [''])[-1]}")
    if len(results) > 1:
        base = results[0]["total"]
        print("\n" + ", ".join(f"{r['workers']} worker(s) {base / r['total']:.2f}x"
                               for r in results) + f" the speed of {results[0]['workers']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
