"""The restore gate, as tests: every audit check, every fixture's restore (every registered
node version x program x fixture) and every program's semantic run.

    pytest restore_tests                                  # the whole gate
    pytest restore_tests -k interval-join_1               # one node version's restores
    pytest restore_tests --junitxml out/gate.xml          # what ci/gate runs

Failures carry the harness's own message (what broke, where, what to do), not a traceback.
"""
from __future__ import annotations

import pytest

from harness.audit import CHECKS, audit_checks
from harness.discovery import discover_programs
from harness.errors import AuditFailure, HarnessError
from harness.fixtures import scan_snapshots
from harness.pytest_plugin import programs_package, snapshots_root
from harness.restore import restore_fixture
from harness.runner import run_semantic
from streamplan.errors import StreamPlanError


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    config = metafunc.config
    if "check" in metafunc.fixturenames:
        metafunc.parametrize("check", [pytest.param(name, id=name, marks=pytest.mark.gate("audit", name))
                                       for name in CHECKS])
    if "fixture" in metafunc.fixturenames:
        fixtures, _ = scan_snapshots(snapshots_root(config))   # strays: a completeness finding
        metafunc.parametrize("fixture", [
            pytest.param(f, id=f.id, marks=pytest.mark.gate("restore", f.id)) for f in fixtures])
    if "program" in metafunc.fixturenames:
        try:
            programs = discover_programs(programs_package(config))
        except HarnessError:
            programs = []          # test_audit_programs_load reports why
        metafunc.parametrize("program", [
            pytest.param(p, id=p.id, marks=pytest.mark.gate("semantic", p.id)) for p in programs])


@pytest.fixture(scope="session")
def programs(pytestconfig):
    return expect(lambda: discover_programs(programs_package(pytestconfig)))


def expect(action):
    """Run a gate check; an expected failure fails the test with the harness's message."""
    try:
        return action()
    except (HarnessError, StreamPlanError) as err:
        message = str(err)
    pytest.fail(message, pytrace=False)      # outside `except`: no chained traceback


@pytest.mark.gate("audit", "programs")
def test_audit_programs_load(programs):
    assert programs, "the programs package holds no program"


@pytest.mark.spark
def test_audit(check, programs, pytestconfig, spark):
    findings = expect(audit_checks(programs, snapshots_root(pytestconfig), spark=spark)[check])
    if findings:
        pytest.fail(str(AuditFailure(findings)), pytrace=False)


@pytest.mark.spark
def test_restore(fixture, programs, spark):
    expect(lambda: restore_fixture(fixture, programs, spark=spark))


@pytest.mark.spark
def test_semantic(program, spark):
    expect(lambda: run_semantic(program, spark))
