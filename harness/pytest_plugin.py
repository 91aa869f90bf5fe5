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
from .gate_report import SUITE_NOUNS, SUITES, ReportMeta, count_line, render_report  # noqa: F401


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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gate(suite, name): a check of the restore gate "
                                       "(suite: audit, restore or semantic)")
    config.stash[_RECORDS] = []
    config.stash[_STARTED] = time.monotonic()
    report = config.getoption("gate_report", None)
    config.stash[_REPORT] = Path(report).resolve() if report else None   # before any chdir


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
        gate_records(item.config).append(
            GateRecord(marker.args[0], marker.args[1], report.outcome,
                       item.stash.get(_RUN_SECONDS, report.duration), message))
    return report


def _message(report: pytest.TestReport) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    return report.longreprtext


# pytest stopped outside the checks: the records are not the whole gate.
_STOPPED = (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR)


def pytest_sessionfinish(session: pytest.Session, exitstatus) -> None:
    """Write --gate-report (before the terminal summary, which names it)."""
    config = session.config
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
                      seconds=time.monotonic() - config.stash[_STARTED], problem=problem)
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
    if not records:
        if written is not None:
            terminalreporter.write_line(f"gate report: {written}")
        return
    failed = [record for record in records if record.outcome == "failed"]
    verdict = "FAILED" if failed else "PASSED"
    terminalreporter.write_sep("=", "restore gate", bold=True)
    terminalreporter.write_line(f"gate {verdict}: {count_line(records)}", bold=True,
                                red=bool(failed), green=not failed)
    for record in failed:
        first = (record.message or "").strip().splitlines()[:1] or [""]
        terminalreporter.write_line(f"  ✗ {record.suite} {record.name}: {first[0]}")
    if written is not None:
        terminalreporter.write_line(f"gate report: {written}")
