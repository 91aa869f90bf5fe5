"""The restore gate, as tests: every audit check, every fixture's restore (every registered
node version x program x Spark release that wrote the checkpoint), every older-version fixture's restore through its migrated
plan (harness.migration_gate), and every program's semantic run (for a statement that must be
refused, a FAILING_PROGRAMS program, the check of its error).

    pytest restore_tests                                  # the whole gate
    pytest restore_tests -k interval-join_1               # one node version's restores
    pytest restore_tests --junitxml out/gate.xml          # what ci/gate runs

Failures carry the harness's own message (what broke, where, what to do), not a traceback.
"""
from __future__ import annotations

import pytest

from harness.audit import CHECKS, audit_checks
from harness.discovery import discover_failing_programs, discover_programs
from harness.errors import AuditFailure, HarnessError
from harness.fixtures import scan_snapshots
from harness.migration_gate import is_dropped, migration_case
from harness.pytest_plugin import gate_workers, programs_package, record_run_seconds, snapshots_root
from harness.restore import restore_fixture, restore_migrated
from harness.run_ahead import RunAhead
from harness.runner import check_refused, run_semantic
from harness.spark_releases import known_break
from streamplan.errors import StreamPlanError


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    config = metafunc.config
    if "check" in metafunc.fixturenames:
        metafunc.parametrize("check", [pytest.param(name, id=name, marks=pytest.mark.gate("audit", name))
                                       for name in CHECKS])
    if "fixture" in metafunc.fixturenames:
        fixtures, _ = scan_snapshots(snapshots_root(config))   # strays: a completeness finding
        # A dropped version's fixtures restore only through migration (test_migration).
        metafunc.parametrize("fixture", [
            pytest.param(f, id=f.id, marks=restore_marks(f)) for f in fixtures
            if not is_dropped(f)])
    if "migrating" in metafunc.fixturenames:
        fixtures, _ = scan_snapshots(snapshots_root(config))
        metafunc.parametrize("migrating", [
            pytest.param(f, id=f.id, marks=pytest.mark.gate("migration", f.id))
            for f in fixtures if migration_case(f) is not None])
    if "program" in metafunc.fixturenames:
        package = programs_package(config)
        try:       # programs that run, and statements that must be refused (FAILING_PROGRAMS)
            programs = discover_programs(package) + discover_failing_programs(package)
        except HarnessError:
            programs = []          # test_audit_programs_load reports why
        metafunc.parametrize("program", [
            pytest.param(p, id=p.id, marks=pytest.mark.gate("semantic", p.id)) for p in programs])


def restore_marks(fixture) -> list:
    """A checkpoint of an older Spark that today's cannot read is an expected failure, with
    its reason and Spark issue; strict, so a fix (or a different break) shows too."""
    marks = [pytest.mark.gate("restore", fixture.id)]
    known = known_break(fixture.id, fixture.spark_release)
    if known is not None:
        marks.append(pytest.mark.xfail(strict=True, reason=f"{known.spark_issue}: {known.reason}"))
    return marks


@pytest.fixture(scope="session")
def programs(pytestconfig):
    return expect(lambda: discover_programs(programs_package(pytestconfig)))


@pytest.fixture(scope="session")
def runs(request, programs, spark):
    """Starts the restores and semantic runs of the selected tests ahead of them, in test
    order, a few at a time (--gate-workers); each test then checks its own run."""
    ahead = RunAhead(gate_workers(request.config))
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if getattr(item, "originalname", None) == "test_restore":
            fixture = params["fixture"]
            ahead.schedule(("restore", fixture.id), restore_action(fixture, programs, spark),
                           resource=fixture.id)
        elif getattr(item, "originalname", None) == "test_migration":
            fixture = params["migrating"]
            ahead.schedule(("migration", fixture.id), migration_action(fixture, programs, spark),
                           resource=fixture.id)
        elif getattr(item, "originalname", None) == "test_semantic":
            program = params["program"]
            ahead.schedule(("semantic", program.id), semantic_action(program, spark))
    yield ahead
    ahead.close()


def restore_action(fixture, programs, spark):
    return lambda: restore_fixture(fixture, programs, spark=spark)


def migration_action(fixture, programs, spark):
    return lambda: restore_migrated(fixture, programs, spark=spark)


def semantic_action(program, spark):
    if program.refusal is not None:
        return lambda: check_refused(program, spark)
    return lambda: run_semantic(program, spark)


def expect(action):
    """Run a gate check; an expected failure fails the test with the harness's message."""
    try:
        return action()
    except (HarnessError, StreamPlanError) as err:
        message = str(err)
    pytest.fail(message, pytrace=False)      # outside `except`: no chained traceback


@pytest.mark.gate("audit", "programs")
def test_audit_programs_load(programs, pytestconfig):
    assert programs, "the programs package holds no program"
    expect(lambda: discover_failing_programs(programs_package(pytestconfig)))


@pytest.mark.spark
def test_audit(check, programs, pytestconfig, spark):
    findings = expect(audit_checks(programs, snapshots_root(pytestconfig), spark=spark,
                                   package=programs_package(pytestconfig))[check])
    if findings:
        pytest.fail(str(AuditFailure(findings)), pytrace=False)


@pytest.mark.spark
def test_restore(fixture, programs, spark, runs, request):
    check_run(request, runs, ("restore", fixture.id), restore_action(fixture, programs, spark),
              resource=fixture.id)


@pytest.mark.spark
def test_migration(migrating, programs, spark, runs, request):
    check_run(request, runs, ("migration", migrating.id),
              migration_action(migrating, programs, spark), resource=migrating.id)


@pytest.mark.spark
def test_semantic(program, spark, runs, request):
    check_run(request, runs, ("semantic", program.id), semantic_action(program, spark))


def check_run(request, runs, key, action, resource=None):
    """The test of one run: its result, and its own time for the gate's record."""
    try:
        expect(lambda: runs.result(key, action, resource=resource))
    finally:
        seconds = runs.seconds(key)
        if seconds is not None:
            record_run_seconds(request.node, seconds)
