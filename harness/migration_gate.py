"""Plan migration in the gate (FLIP-190): every fixture of an older node version is also
restored through its plan migrated to today's versions, the way a user holding that plan
and checkpoint moves on with `COMPILE PLAN 'new.json' FROM 'old.json'`.

What a fixture of version N of a node (N below the latest, L) must show:

* L reads N's state (L's min_state_version is not above N's; streamplan.migration.state_readable):
  the plan migrates (declared @plan_migration steps, or the JSON as is where N and N+1 share
  it) and the checkpoint restores with the migrated plan, meeting the program's after-restore
  expectations;
* L does not (a state-breaking bump, like the interval join's 1 -> 2): migration is refused
  with the min_state_version message, which tells the user to drain and start fresh;
* N was dropped (no annotation left): restoring the old plan directly is refused with the
  message that says to migrate it, and the migrated restore above must hold, since it is the
  only way left for users of version N.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional

from streamplan.testing import (REGISTRY, MigrationResult, PlanVersionError, Registry,
                                StreamPlanError, load_plan, migrate_plan_text,
                                parse_plan_document, read_plan_text, state_readable)

from .errors import FixtureError
from .fixtures import Fixture

RULE = "a plan of an older version migrates to the latest and restores"
REMEDY = "COMPILE PLAN 'new.json' FROM 'old.json'"      # what a dropped version's error says

Outcome = Literal["migrates", "refused"]


@dataclass(frozen=True)
class MigrationCase:
    """A fixture whose node version is not the latest, and what migrating it must do."""

    fixture: Fixture
    from_type: str
    to_type: str
    expected: Outcome
    dropped: bool             # the fixture's version is no longer registered

    @property
    def reason(self) -> str:
        if self.expected == "refused":
            return (f"{self.to_type} cannot read the state of {self.from_type} "
                    f"(min_state_version): migration is refused as designed")
        return f"{self.from_type} migrates to {self.to_type}"


def migration_case(fixture: Fixture, registry: Registry = REGISTRY) -> Optional[MigrationCase]:
    """The case of a fixture whose node has a newer registered version (None otherwise)."""
    name = f"stream-exec-{fixture.short_name}"
    try:
        latest = registry.latest(name)
    except StreamPlanError:
        return None                  # no such node: restore-completeness reports it
    if fixture.version >= latest.version:
        return None
    try:
        plan_engine = str(parse_plan_document(read_plan_text(fixture.plan_path),
                                              fixture.id)["engineVersion"])
        readable = state_readable(name, fixture.version, plan_engine, registry)
    except (StreamPlanError, ValueError):
        readable = True              # an unreadable plan: migrating it reports why
    return MigrationCase(fixture, f"{name}_{fixture.version}", latest.type_id,
                         "migrates" if readable else "refused",
                         f"{name}_{fixture.version}" not in registry.by_type)


def is_dropped(fixture: Fixture, registry: Registry = REGISTRY) -> bool:
    """The fixture's version is no longer registered, in favour of a newer one."""
    case = migration_case(fixture, registry)
    return case is not None and case.dropped


def migrate_fixture_plan(case: MigrationCase, registry: Registry = REGISTRY) -> MigrationResult:
    """The fixture's plan migrated for its checkpoint; FixtureError says why it cannot be."""
    fixture = case.fixture
    try:
        return migrate_plan_text(read_plan_text(fixture.plan_path), f"fixture {fixture.id}",
                                 registry)
    except StreamPlanError as err:
        raise FixtureError(f"fixture {fixture.id}: rule '{RULE}': {err}") from None


def check_refusals(case: MigrationCase, registry: Registry = REGISTRY) -> None:
    """What a user meets must be the designed refusal: a state-breaking migration refused
    with the min_state_version message, a dropped version's plan refused with the remedy."""
    fixture = case.fixture
    if case.dropped:
        try:
            load_plan(fixture.plan_path, registry)
        except StreamPlanError as err:
            if not isinstance(err, PlanVersionError) or REMEDY not in str(err):
                raise FixtureError(
                    f"fixture {fixture.id}: restoring the plan of dropped version "
                    f"{case.from_type} fails without the remedy to migrate it: {err}. Declare "
                    f"a @plan_migration from version {fixture.version}.") from None
        else:
            raise FixtureError(f"fixture {fixture.id}: version {case.from_type} is not registered "
                               f"but its plan still loads directly")
    if case.expected == "refused":
        try:
            migrate_fixture_plan(case, registry)
        except FixtureError as err:
            if "min_state_version" not in str(err):
                raise
            return
        raise FixtureError(f"fixture {fixture.id}: {case.to_type} cannot read the state of "
                           f"{case.from_type} (its min_state_version), yet the plan migrated: a "
                           f"user would get a plan that cannot restore the checkpoint")
