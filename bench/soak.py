"""Soak the restore gate: run it N times in a row and report every run whose verdict, or any
check's outcome or output, differs from the first run's.

    .venv/bin/python bench/soak.py --runs 20                          # the whole gate, 20 times
    .venv/bin/python bench/soak.py --runs 2 -k group-aggregate        # a subset (pytest -k)
    .venv/bin/python bench/soak.py --runs 5 --gate-workers 1          # one run at a time
    .venv/bin/python bench/soak.py --runs 3 --keep out/soak -- -x     # keep every run's files;
                                                                      # after --: more pytest args

Each run is the gate exactly as `ci/gate` runs it (`python -m harness.gate --junit ...
--gate-report ...`), in a fresh process with its own JVM. This file is also a pytest plugin,
loaded into each run with `-p soak`: it notes the gate's own record of every check (suite,
name, outcome, message: what the verdict, the JUnit XML and the HTML report are made of) and
the output every restore, migration check and semantic run produced (each sink's changelog
as text; a migration refused as designed has none). Outputs are compared because a check
passes on a materialized view even when its changelog came out differently.

After each run it prints the verdict, the counts, the wall time and what differs from run 1
(a check missing or added, an outcome, a failure's first line with temp paths, ids and
durations masked, a sink's changelog); at the end, the runs that differ.
Exit status 0 only when every run passed and none differs from run 1. The files of each run
(gate.xml, gate.html, soak.json, pytest.log) stay in --keep DIR, else in a temp dir that is
removed at the end unless a run differed or failed. See bench/README.md for recorded results.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Optional

REPO = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
CAPTURE = "STREAMPLAN_SOAK_CAPTURE"        # the plugin writes its JSON there
PLUGIN = Path(__file__).stem               # `-p soak`, with bench/ on PYTHONPATH


# --- the plugin, inside each gate run --------------------------------------------------------

_outputs: dict[str, Any] = {}
_lock = threading.Lock()


def _noting(suite: str, function: Callable, name_of: Callable[[Any], str]) -> Callable:
    def run(*args, **kwargs):
        result = function(*args, **kwargs)
        sinks = None if result is None else {
            table: sink.texts for table, sink in sorted(result.sinks.items())}
        with _lock:
            _outputs[f"{suite} {name_of(args[0])}"] = sinks
        return result
    run.__wrapped__ = function
    return run


def pytest_configure(config) -> None:
    """Wrap the harness functions the gate's tests call (restore_tests/test_gate.py imports
    them when it is collected, after this), so each run's output is noted."""
    if not os.environ.get(CAPTURE):
        return
    import harness.restore
    import harness.runner

    harness.restore.restore_fixture = _noting("restore", harness.restore.restore_fixture,
                                              lambda fixture: fixture.id)
    harness.restore.restore_migrated = _noting("migration", harness.restore.restore_migrated,
                                               lambda fixture: fixture.id)
    harness.runner.run_semantic = _noting("semantic", harness.runner.run_semantic,
                                          lambda program: program.id)


def pytest_sessionfinish(session, exitstatus) -> None:
    target = os.environ.get(CAPTURE)
    if not target:
        return
    import pytest

    from harness.gate_report import count_line, verdict
    from harness.pytest_plugin import gate_records

    records = gate_records(session.config)
    stopped = exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR,
                             pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.NO_TESTS_COLLECTED)
    problem = f"pytest exit status {int(exitstatus)}" if stopped else None
    with _lock:
        outputs = dict(sorted(_outputs.items()))
    Path(target).write_text(json.dumps({
        "exitstatus": int(exitstatus), "verdict": verdict(records, problem), "problem": problem,
        "counts": count_line(records),
        "records": [{"suite": r.suite, "name": r.name, "outcome": r.outcome,
                     "seconds": round(r.seconds, 3), "message": r.message} for r in records],
        "outputs": outputs}, indent=1))


# --- the soak, outside ---------------------------------------------------------------------------

def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s [options] [-- PYTEST ARGS...]")
    parser.add_argument("--runs", type=int, default=20, help="gate runs in a row (default 20)")
    parser.add_argument("-k", dest="select", metavar="EXPR",
                        help="only the gate's checks whose test ids match (pytest -k), e.g. "
                             "group-aggregate or 'interval-join_2 or annotations'")
    parser.add_argument("--gate-workers", type=int,
                        help="runs the gate keeps going at once (its default: "
                             "$STREAMPLAN_GATE_WORKERS or 3)")
    parser.add_argument("--snapshots", type=Path, help="fixture root (default: snapshots/)")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep each run's gate.xml, gate.html, soak.json and pytest.log in "
                             "DIR/run-<n>")
    args = parser.parse_args(own)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    args.pytest = extra
    return args


def gate_command(args: argparse.Namespace, run_dir: Path) -> list[str]:
    command = [sys.executable, "-m", "harness.gate", "--junit", str(run_dir / "gate.xml"),
               "--gate-report", str(run_dir / "gate.html")]
    if args.snapshots:
        command += ["--snapshots", str(args.snapshots.resolve())]
    command += ["--", "-p", PLUGIN, "-q"]
    if args.select:
        command += ["-k", args.select]
    if args.gate_workers:
        command.append(f"--gate-workers={args.gate_workers}")
    return command + args.pytest


def run_gate(args: argparse.Namespace, run_dir: Path) -> tuple[dict, float]:
    run_dir.mkdir(parents=True, exist_ok=True)
    capture = run_dir / "soak.json"
    capture.unlink(missing_ok=True)
    env = {**os.environ, CAPTURE: str(capture),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(BENCH), str(REPO),
                                                       os.environ.get("PYTHONPATH")]))}
    begun = time.perf_counter()
    with (run_dir / "pytest.log").open("w") as log:
        done = subprocess.run(gate_command(args, run_dir), cwd=REPO, env=env, stdout=log,
                              stderr=subprocess.STDOUT)
    took = time.perf_counter() - begun
    if not capture.exists():
        return {"exitstatus": done.returncode, "verdict": "FAILED", "counts": "",
                "problem": f"the gate wrote no results (exit status {done.returncode}); see "
                           f"{run_dir / 'pytest.log'}", "records": [], "outputs": {}}, took
    return json.loads(capture.read_text()), took


def differences(first: dict, other: dict) -> list[str]:
    """What differs between two runs' results, one line each."""
    found = []
    if first["verdict"] != other["verdict"]:
        found.append(f"verdict {first['verdict']} -> {other['verdict']}")
    if first.get("problem") != other.get("problem"):
        found.append(f"problem {first.get('problem')!r} -> {other.get('problem')!r}")
    checks = {(r["suite"], r["name"]): r for r in first["records"]}
    again = {(r["suite"], r["name"]): r for r in other["records"]}
    for key in sorted(checks.keys() | again.keys()):
        was, now = checks.get(key), again.get(key)
        if was is None or now is None:
            found.append(f"{key[0]} {key[1]}: {'added' if was is None else 'missing'}")
        elif was["outcome"] != now["outcome"]:
            found.append(f"{key[0]} {key[1]}: {was['outcome']} -> {now['outcome']}"
                         + (f" ({first_line(now['message'])})" if now["message"] else ""))
        elif was["outcome"] == "failed" and signature(was["message"]) != signature(now["message"]):
            found.append(f"{key[0]} {key[1]}: failed differently: {first_line(was['message'])} "
                         f"-> {first_line(now['message'])}")
    outputs, repeated = first["outputs"], other["outputs"]
    for key in sorted(outputs.keys() | repeated.keys()):
        if key not in outputs or key not in repeated:
            found.append(f"{key}: output {'only in this run' if key in repeated else 'missing'}")
        elif outputs[key] != repeated[key]:
            found.append(f"{key}: output differs: {output_difference(outputs[key], repeated[key])}")
    return found


def output_difference(was: Optional[dict], now: Optional[dict]) -> str:
    if was is None or now is None:
        return f"{'no run' if was is None else 'sinks'} -> {'no run' if now is None else 'sinks'}"
    for table in sorted(was.keys() | now.keys()):
        rows, again = was.get(table), now.get(table)
        if rows != again:
            if rows is None or again is None:
                return f"sink {table} {'added' if rows is None else 'missing'}"
            index = next((i for i, (a, b) in enumerate(zip(rows, again)) if a != b),
                         min(len(rows), len(again)))
            return (f"sink {table}, row {index}: "
                    f"{rows[index] if index < len(rows) else '(none)'} -> "
                    f"{again[index] if index < len(again) else '(none)'} "
                    f"({len(rows)} -> {len(again)} rows)")
    return "?"


# What varies between two runs of the same failure: temp paths, ids, durations.
_VARYING = re.compile(r"(?:/tmp|/var/tmp|" + re.escape(tempfile.gettempdir()) + r")/[^\s'\"),]*"
                      r"|[0-9a-f]{8}-[0-9a-f-]{27,}|\bo\d+\.|\b[0-9a-f]{12,}\b"
                      r"|\b\d+(?:\.\d+)? ?(?:ms|s)\b")


def signature(message: Optional[str]) -> str:
    """A failure's first line without what varies from run to run."""
    return _VARYING.sub("<...>", first_line(message))


def first_line(message: Optional[str]) -> str:
    """The harness's message's first line; for a traceback, its exception (a Spark error
    class when there is one), not the test's parameters."""
    lines = (message or "").strip().splitlines()
    raised = [line[1:].strip() for line in lines if line.startswith("E ") and line[1:].strip()]
    classed = [line for line in raised if _ERROR_CLASS.search(line)]
    line = (classed or raised or lines or [""])[0]
    return line.lstrip(": ")[:200]


_ERROR_CLASS = re.compile(r"\[[A-Z][A-Z_]+(?:\.[A-Z_]+)?\]")


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    root = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="gate-soak-"))
    print(f"soak: {args.runs} gate run(s)"
          + (f", -k {args.select!r}" if args.select else ", the whole gate")
          + (f", pytest args {' '.join(args.pytest)}" if args.pytest else "")
          + f"; files in {root}", flush=True)
    first: Optional[dict] = None
    differing, failing, times = [], [], []
    started = time.perf_counter()
    for number in range(1, args.runs + 1):
        print(f"run {number}/{args.runs}: started {time.strftime('%H:%M:%S')}", flush=True)
        result, took = run_gate(args, root / f"run-{number}")
        times.append(took)
        summary = (f"run {number}/{args.runs}: {result['verdict']} in {took:.1f} s; "
                   f"{result['counts'] or result.get('problem') or 'no checks'}; "
                   f"{len(result['outputs'])} outputs")
        if result["verdict"] != "PASSED":
            failing.append(number)
            for record in result["records"]:
                if record["outcome"] == "failed":
                    summary += f"\n    failed: {record['suite']} {record['name']}: " \
                               f"{first_line(record['message'])}"
        if first is None:
            first = result
            print(summary + " (the reference)", flush=True)
            continue
        found = differences(first, result)
        if found:
            differing.append(number)
            shown = found[:30] + ([f"... and {len(found) - 30} more"] if len(found) > 30 else [])
            print(summary + f"; DIFFERS from run 1 in {len(found)} place(s):\n    "
                  + "\n    ".join(shown), flush=True)
        else:
            print(summary + "; same as run 1", flush=True)
    total = time.perf_counter() - started
    print(f"soak: {args.runs} run(s) in {total / 60:.1f} min (each {min(times):.0f}-"
          f"{max(times):.0f} s); "
          + (f"runs differing from run 1: {', '.join(map(str, differing))}" if differing
             else "every run the same as run 1")
          + (f"; runs not PASSED: {', '.join(map(str, failing))}" if failing else
             "; every run PASSED"))
    if not args.keep:
        if differing or failing:
            print(f"soak: the runs' files are kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 1 if differing or failing else 0


if __name__ == "__main__":
    sys.exit(main())
