"""What migrating each fixture of an older node version must do, recorded when the newer
version's fixtures were generated (`snapshots/migrations.json`), so the gate's expectation
never comes from the annotations it checks: a min_state_version raised by mistake would turn
a migration users rely on into a "refusal as designed", and pass, if the gate asked the
annotations what to expect. A recorded outcome is never changed; a new latest version adds
its own entries.

{"<node>_<version>/<program>": {"<latest type id>": "migrates" | "refused"}}
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from streamplan.testing import REGISTRY, Registry

from .errors import FixtureError
from .fixtures import LEDGER_FILE as LEDGER
from .fixtures import Fixture, scan_snapshots
from .migration_gate import MigrationCase, migration_case


def _root(fixture: Fixture) -> Path:
    return fixture.directory.parent.parent


def _base_id(fixture: Fixture) -> str:
    return f"{fixture.short_name}_{fixture.version}/{fixture.program_id}"


def read_ledger(snapshots: Path) -> dict[str, dict[str, str]]:
    path = Path(snapshots) / LEDGER
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as err:
        raise FixtureError(f"{path}: not JSON ({err}); restore it from git") from None


def record_outcomes(snapshots: Path, registry: Registry = REGISTRY) -> list[str]:
    """Record the outcome of every older fixture that has none for today's latest version
    (as generate does after writing the latest version's fixtures); returns what it added."""
    ledger = read_ledger(snapshots)
    added = []
    for fixture in scan_snapshots(snapshots)[0]:
        case = migration_case(fixture, registry)
        if case is None or fixture.spark_release:
            continue
        entry = ledger.setdefault(_base_id(fixture), {})
        if case.to_type not in entry:
            entry[case.to_type] = case.expected
            added.append(f"{_base_id(fixture)} -> {case.to_type}: {case.expected}")
    if added:
        text = json.dumps(dict(sorted(ledger.items())), indent=2, sort_keys=True) + "\n"
        (Path(snapshots) / LEDGER).write_text(text)
    return added


def recorded_problem(case: MigrationCase) -> Optional[str]:
    """Why the annotations' expectation for `case` is not the recorded one (None: it is)."""
    fixture = case.fixture
    recorded = read_ledger(_root(fixture)).get(_base_id(fixture), {}).get(case.to_type)
    if recorded is None:
        return (f"fixture {fixture.id}: no outcome of migrating it to {case.to_type} is recorded "
                f"in {LEDGER}; generating the fixtures of {case.to_type} records it "
                f"(`harness generate --node {fixture.short_name}`)")
    if recorded != case.expected:
        return (f"fixture {fixture.id}: migrating it to {case.to_type} was recorded to "
                f"'{recorded}' when that version's fixtures were generated, but today's "
                f"annotations say '{case.expected}' ({case.reason}). A version's promise to "
                f"users does not change: restore the annotation (min_state_version), or add a "
                f"new version")
    return None
