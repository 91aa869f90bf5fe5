"""pytest is the gate's one runner.

The gate's checks are the tests in `restore_tests/` (every audit check, every fixture's
restore, every program's semantic run); `./run.sh test`, `ci/gate`, `harness gate` and a
developer's `pytest restore_tests -k ...` all run those same tests, so they cannot disagree.
This plugin (loaded by the repository's conftest.py) adds what the gate needs on top:

    --snapshots DIR        the fixture root (default: the repository's snapshots/)
    --programs PACKAGE     the package of table test programs (default: programs)

and a one-line verdict per suite at the end of the run. Tests take part in the verdict
through the marker `gate(suite, name)`.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

from .fixtures import DEFAULT_SNAPSHOTS

SUITES = ("audit", "restore", "semantic")
SUITE_NOUNS = {"audit": "checks passed", "restore": "fixtures restored",
               "semantic": "programs passed"}


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


_RECORDS = pytest.StashKey[list]()
_STARTED = pytest.StashKey[float]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness", "restore gate")
    group.addoption("--snapshots", default=str(DEFAULT_SNAPSHOTS), metavar="DIR",
                    help="fixture root the gate restores (default: the repository's snapshots/)")
    group.addoption("--programs", default="programs", metavar="PACKAGE",
                    help="package whose modules expose the table test programs (PROGRAMS)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gate(suite, name): a check of the restore gate "
                                       "(suite: audit, restore or semantic)")
    config.stash[_RECORDS] = []
    config.stash[_STARTED] = time.monotonic()


def snapshots_root(config: pytest.Config) -> Path:
    return Path(config.getoption("snapshots"))


def programs_package(config: pytest.Config) -> str:
    return config.getoption("programs")


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
            GateRecord(marker.args[0], marker.args[1], report.outcome, report.duration, message))
    return report


def _message(report: pytest.TestReport) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    return report.longreprtext


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    records = gate_records(config)
    if not records:
        return
    failed = [record for record in records if record.outcome == "failed"]
    counts = []
    for suite in SUITES:
        mine = [record for record in records if record.suite == suite]
        if mine:
            counts.append(f"{suite} {sum(r.ok for r in mine)}/{len(mine)} {SUITE_NOUNS[suite]}")
    verdict = "FAILED" if failed else "PASSED"
    terminalreporter.write_sep("=", "restore gate", bold=True)
    terminalreporter.write_line(f"gate {verdict}: {', '.join(counts)}", bold=True,
                                red=bool(failed), green=not failed)
    for record in failed:
        first = (record.message or "").strip().splitlines()[:1] or [""]
        terminalreporter.write_line(f"  ✗ {record.suite} {record.name}: {first[0]}")
