"""pytest is the gate's one runner.

The gate's checks are the tests in `restore_tests/` (every audit check, every fixture's
restore, every program's semantic run); `./run.sh test`, `ci/gate`, `harness gate` and a
developer's `pytest restore_tests -k ...` all run those same tests, so they cannot disagree.
This plugin (loaded by the repository's conftest.py) adds what the gate needs on top:

    --snapshots DIR        the fixture root (default: the repository's snapshots/)
    --programs PACKAGE     the package of table test programs (default: programs)
    --gate-report PATH     write the gate's self-contained HTML report here (harness.gate_report)
    --gate-workers N       restores and semantic runs kept going at once (harness.run_ahead;
                           default $STREAMPLAN_GATE_WORKERS or 3; 1 runs each in its test)
    --gate-shard K/N       run only shard K of N: the audit checks in shard 1, the restores,
                           migrations and semantic runs split by cost (harness.shard); the
                           JUnit XML then records the shard and each check's gate record,
                           for `harness report merge`

and a one-line verdict per suite at the end of the run. Tests take part in the verdict
through the marker `gate(suite, name)`.
"""
from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

import pytest

from .fixtures import DEFAULT_SNAPSHOTS
from .gate_report import (SUITE_NOUNS, SUITES, ReportMeta, count_line,  # noqa: F401
                          render_report, summary_line)
from .shard import SHARD_PROPERTY, Shard, ShardError, parse_shard, run_cost, split


@dataclass(frozen=True)
class GateRecord:
    """The outcome of one gate check, as the summary and the reports show it."""

    suite: str            # audit | restore | semantic
    name: str             # check name, fixture id or program id
    outcome: str          # passed | failed | skipped
    seconds: float
    message: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.outcome == "passed"


# Runs are mostly latency: three at a time keep two cores busy (bench/gate.py measures it).
DEFAULT_GATE_WORKERS = 3

_RECORDS = pytest.StashKey[list]()
_STARTED = pytest.StashKey[float]()
_REPORT = pytest.StashKey[Optional[Path]]()
_WRITTEN = pytest.StashKey[Path]()
_RUN_SECONDS = pytest.StashKey[float]()
_SHARD = pytest.StashKey[Optional[Shard]]()

# JUnit properties of a shard's report (harness.report_merge reads them back)
ENGINE_PROPERTY, SPARK_PROPERTY, SECONDS_PROPERTY = "gate-engine-version", "gate-spark-version", "gate-seconds"
SUITE_PROPERTY, NAME_PROPERTY, RUN_SECONDS_PROPERTY = "gate-suite", "gate-name", "gate-run-seconds"


def record_run_seconds(item: pytest.Item, seconds: float) -> None:
    """The time a gate check's run took, for its record, when the run went ahead of the test
    (harness.run_ahead): the test's own duration is then only its wait for the result."""
    item.stash[_RUN_SECONDS] = seconds


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness", "restore gate")
    group.addoption("--snapshots", default=str(DEFAULT_SNAPSHOTS), metavar="DIR",
                    help="fixture root the gate restores (default: the repository's snapshots/)")
    group.addoption("--programs", default="programs", metavar="PACKAGE",
                    help="package whose modules expose the table test programs (PROGRAMS)")
    group.addoption("--gate-workers", type=int, metavar="N",
                    default=int(os.environ.get("STREAMPLAN_GATE_WORKERS", DEFAULT_GATE_WORKERS)),
                    help="restores and semantic runs the gate keeps going at once on the one "
                         "SparkSession (default: $STREAMPLAN_GATE_WORKERS or "
                         f"{DEFAULT_GATE_WORKERS}); 1 runs each in its own test")
    group.addoption("--gate-report", default=None, metavar="PATH",
                    help="write the gate's report here: one self-contained HTML page (verdict, "
                         "restore matrix, audit checks, every failure's message)")
    group.addoption("--gate-shard", default=None, metavar="K/N",
                    help="run shard K of N of the gate (audit checks in shard 1, the runs split "
                         "by cost, the same split on every machine); merge the shards' JUnit "
                         "XML with `harness report merge`")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gate(suite, name): a check of the restore gate "
                                       "(suite: audit, restore or semantic)")
    config.stash[_RECORDS] = []
    config.stash[_STARTED] = time.monotonic()
    report = config.getoption("gate_report", None)
    config.stash[_REPORT] = Path(report).resolve() if report else None   # before any chdir
    shard = config.getoption("gate_shard", None)
    try:
        config.stash[_SHARD] = parse_shard(shard) if shard is not None else None
    except ShardError as err:
        raise pytest.UsageError(str(err)) from None


def gate_shard(config: pytest.Config) -> Optional[Shard]:
    return config.stash.get(_SHARD, None)


RUN_PARAMS = {"fixture": "restore", "migrating": "migration", "program": "semantic"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """--gate-shard K/N: keep shard K's tests (harness.shard), deselect the others."""
    shard = gate_shard(config)
    if shard is None:
        return
    costs, pinned = {}, []
    programs = None
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        run = next((p for p in RUN_PARAMS if p in params), None)
        marker = item.get_closest_marker("gate")
        if run is None or marker is None or marker.args[0] == "audit":
            pinned.append(item.nodeid)
            continue
        if programs is None:
            programs = _programs_by_id(config)
        value = params[run]
        program = value if run == "program" else programs.get(getattr(value, "program_id", None))
        costs[item.nodeid] = run_cost(RUN_PARAMS[run], program)
    assigned = split(costs, shard.count, pinned)
    keep = [item for item in items if assigned[item.nodeid] == shard.index]
    deselected = [item for item in items if assigned[item.nodeid] != shard.index]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = keep


def _programs_by_id(config: pytest.Config) -> dict:
    from .discovery import discover_programs
    from .errors import HarnessError

    try:
        return {program.id: program for program in discover_programs(programs_package(config))}
    except (HarnessError, ImportError):
        return {}                  # test_audit_programs_load reports why


def pytest_sessionstart(session: pytest.Session) -> None:
    """A shard's JUnit XML says which shard it is (and the versions, for the merged report)."""
    shard = gate_shard(session.config)
    xml = _junit_xml(session.config)
    if shard is None or xml is None:
        return
    xml.add_global_property(SHARD_PROPERTY, str(shard))
    xml.add_global_property(ENGINE_PROPERTY, _engine_version())
    xml.add_global_property(SPARK_PROPERTY, _spark_version())


def _junit_xml(config: pytest.Config):
    try:
        from _pytest.junitxml import xml_key
    except ImportError:            # pragma: no cover - pytest moved it: no properties then
        return None
    return config.stash.get(xml_key, None)


def snapshots_root(config: pytest.Config) -> Path:
    return Path(config.getoption("snapshots"))


def programs_package(config: pytest.Config) -> str:
    return config.getoption("programs")


def gate_workers(config: pytest.Config) -> int:
    workers = config.getoption("gate_workers")
    if workers < 1:
        raise pytest.UsageError(f"--gate-workers must be at least 1, not {workers}")
    return workers


def gate_records(config: pytest.Config) -> list[GateRecord]:
    return config.stash[_RECORDS]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    marker = item.get_closest_marker("gate")
    # One record per test: its call, or the setup that failed or skipped it.
    if marker is not None and (report.when == "call" or (report.when == "setup" and not report.passed)):
        message = None if report.passed else _message(report)
        record = GateRecord(marker.args[0], marker.args[1], report.outcome,
                            item.stash.get(_RUN_SECONDS, report.duration), message)
        gate_records(item.config).append(record)
        if gate_shard(item.config) is not None:       # for the merged report (junit teardown)
            item.user_properties += [(SUITE_PROPERTY, record.suite), (NAME_PROPERTY, record.name),
                                     (RUN_SECONDS_PROPERTY, f"{record.seconds:.3f}")]
    return report


def _message(report: pytest.TestReport) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    return report.longreprtext


# pytest stopped outside the checks: the records are not the whole gate.
_STOPPED = (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR)


@pytest.hookimpl(wrapper=True)           # around junitxml writing the file (a shard's time)
def pytest_sessionfinish(session: pytest.Session, exitstatus):
    shard = gate_shard(session.config)
    if shard is not None and exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        exitstatus = pytest.ExitCode.OK               # more shards than checks: an empty shard
    finish_gate(session, exitstatus)
    result = yield
    if shard is not None and session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        session.exitstatus = pytest.ExitCode.OK
    return result


def finish_gate(session: pytest.Session, exitstatus) -> None:
    """Write --gate-report (before the terminal summary, which names it)."""
    config = session.config
    shard = gate_shard(config)
    xml = _junit_xml(config)
    if shard is not None and xml is not None:
        xml.add_global_property(SECONDS_PROPERTY, f"{time.monotonic() - config.stash[_STARTED]:.3f}")
    path = config.stash.get(_REPORT, None)
    if path is None:
        return
    problem = None
    if exitstatus in _STOPPED:
        problem = (f"pytest stopped early (exit status {int(exitstatus)}, "
                   f"{pytest.ExitCode(exitstatus).name.lower().replace('_', ' ')}): "
                   f"the checks below are not the whole gate")
    meta = ReportMeta(engine_version=_engine_version(), spark_version=_spark_version(),
                      generated_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                      seconds=time.monotonic() - config.stash[_STARTED], problem=problem,
                      shard=str(shard) if shard is not None else None)
    write_atomically(path, render_report(gate_records(config), meta))
    config.stash[_WRITTEN] = path


def write_atomically(path: Path, text: str) -> None:
    """Write to a temp file beside `path`, then replace: a reader never sees half a report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _engine_version() -> str:
    from streamplan.testing import ENGINE_VERSION

    return ENGINE_VERSION


def _spark_version() -> str:
    try:
        import pyspark
    except ImportError:
        return "not installed"
    return pyspark.__version__


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    records = gate_records(config)
    written = config.stash.get(_WRITTEN, None)
    shard = gate_shard(config)
    if not records and shard is not None:
        terminalreporter.write_sep("=", "restore gate", bold=True)
        terminalreporter.write_line(f"gate shard {shard}: no check in this shard")
    if not records:
        if written is not None:
            terminalreporter.write_line(f"gate report: {written}")
        return
    failed = [record for record in records if record.outcome == "failed"]
    verdict = "FAILED" if failed else "PASSED"
    terminalreporter.write_sep("=", "restore gate", bold=True)
    terminalreporter.write_line(summary_line(verdict, records, str(shard) if shard else None), bold=True,
                                red=bool(failed), green=not failed)
    for record in failed:
        first = (record.message or "").strip().splitlines()[:1] or [""]
        terminalreporter.write_line(f"  ✗ {record.suite} {record.name}: {first[0]}")
    if written is not None:
        terminalreporter.write_line(f"gate report: {written}")
