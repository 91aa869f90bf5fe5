"""Restore every checked-in fixture (every registered node version x program x fixture), and
fail when a registered version has no fixture.

    pytest restore_tests                       # all
    pytest restore_tests -k interval-join_1    # one node version
"""
from __future__ import annotations

import pytest

from harness.audit import check_restore_completeness, require_clean
from harness.discovery import discover_programs
from harness.fixtures import DEFAULT_SNAPSHOTS, scan_snapshots
from harness.restore import restore_fixture

FIXTURES, _ = scan_snapshots(DEFAULT_SNAPSHOTS)


@pytest.fixture(scope="module")
def programs():
    return discover_programs()


@pytest.mark.spark
@pytest.mark.parametrize("fixture", FIXTURES, ids=[fixture.id for fixture in FIXTURES])
def test_restore(fixture, programs, spark):
    restore_fixture(fixture, programs, spark=spark)


def test_every_registered_node_version_has_programs_and_fixtures(programs):
    require_clean({"restore-completeness": check_restore_completeness(programs, DEFAULT_SNAPSHOTS)})
