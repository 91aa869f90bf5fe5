"""Restore one fixture: the checked-in plan (never recompiled) from a temp copy of the
checked-in checkpoint (never modified), fed the after-restore data, checked against the
program's after-restore expectations."""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Optional

from streamplan.testing import (REGISTRY, check_spark_release, CompiledPlan, Registry, RunResult, StreamPlanError,
                                advances_event_time, load_plan)

from .portable_checkpoint import materialize
from .errors import FixtureError
from .fixtures import MANIFEST, Fixture, Manifest, decode_rows, read_manifest, verify_fixture
from .migration_ledger import recorded_problem
from .migration_gate import check_refusals, migrate_fixture_plan, migration_case
from .program import TableTestProgram
from .batches import PHASE
from .runner import (changelog_batch_invariant, check_outputs, program_environment,
                     retry_worker_start, run_phases)
from .version_rules import admission_problems


def restore_fixture(fixture: Fixture, programs: list[TableTestProgram],
                    registry: Registry = REGISTRY, spark=None) -> RunResult:
    program, manifest = _admitted(fixture, programs)
    check_version_rules(fixture, manifest, registry)
    _check_data_unchanged(fixture, program, manifest)
    try:
        plan = load_plan(fixture.plan_path, registry)
    except StreamPlanError as err:
        raise FixtureError(f"fixture {fixture.id}: rule 'the plan of a released version loads': "
                           f"{err}") from None
    return _restore_with(fixture, program, manifest, plan, spark)


def restore_migrated(fixture: Fixture, programs: list[TableTestProgram],
                     registry: Registry = REGISTRY, spark=None) -> Optional[RunResult]:
    """The gate's migration check of a fixture of an older node version (harness.migration_gate):
    its plan migrated to today's versions restores its checkpoint, or migration is refused
    as designed (None then)."""
    case = migration_case(fixture, registry)
    if case is None:
        raise FixtureError(f"fixture {fixture.id}: its node version is the latest; there is "
                           f"nothing to migrate")
    problem = recorded_problem(case)
    if problem:
        raise FixtureError(problem)
    program, manifest = _admitted(fixture, programs)
    _check_data_unchanged(fixture, program, manifest)
    check_refusals(case, registry)
    if case.expected == "refused":
        return None
    migrated = migrate_fixture_plan(case, registry)
    return _restore_with(fixture, program, manifest, migrated.plan, spark)


def _admitted(fixture: Fixture, programs: list[TableTestProgram]
              ) -> tuple[TableTestProgram, Manifest]:
    """The fixture's program and manifest, the fixture's files as checked in."""
    program = _program_of(fixture, programs)
    manifest = read_manifest(fixture)
    verify_fixture(fixture, manifest)
    try:        # the manifest says which Spark wrote it, also for markers that do not
        check_spark_release(manifest.spark_version, f"fixture {fixture.id}")
    except StreamPlanError as err:
        raise FixtureError(str(err)) from None
    return program, manifest


def _check_data_unchanged(fixture: Fixture, program: TableTestProgram, manifest: Manifest) -> None:
    if program.before_data_fingerprint() != manifest.data_sha256:
        raise FixtureError(
            f"fixture {fixture.id}: program {program.id} changed its sources' schemas or "
            f"before-restore rows since the fixture was generated, so the checkpoint no longer "
            f"matches its data. Revert that change (the before-restore data of a program with "
            f"fixtures of released versions is frozen) and add a new program instead, or "
            f"regenerate the fixture if version {fixture.version} is the latest.")


def _restore_with(fixture: Fixture, program: TableTestProgram, manifest: Manifest,
                  plan: CompiledPlan, spark) -> RunResult:
    """A temp copy of the fixture's checkpoint resumed with `plan`, fed the after-restore
    data and checked against the after-restore expectations. The session sets none of the
    program's options (their defaults, other values than the plan's): a node must run on what
    its plan persisted, so one that read the session instead fails here."""
    env = program_environment(program, spark, program_config=False)
    prior = {sink.table.identifier: decode_rows(
                 manifest.outputs.get(sink.table.identifier, []), sink.row_type,
                 f"fixture {fixture.id}: {MANIFEST} beforeRestoreOutput of {sink.table.identifier}")
             for sink in plan.sinks}

    resumed = PHASE if in_one_batch(fixture, plan, env.config) else None

    def attempt() -> RunResult:
        with tempfile.TemporaryDirectory(prefix="harness-restore-") as work:
            checkpoint = materialize(fixture.checkpoint_dir, Path(work) / "checkpoint")
            return run_phases(env, plan, program, ["before", "after"], True, checkpoint,
                              resumed_shape=resumed)

    result = retry_worker_start(attempt)
    check_outputs(program, result, "after", prior)
    return result


def in_one_batch(fixture: Fixture, plan: CompiledPlan, config) -> bool:
    """Whether the restore feeds the after-restore rows in as few micro-batches as the clock
    allows (harness.batches PHASE) instead of the program's shape: for a checkpoint of an older
    Spark release whose plan has no event time and a batch-invariant changelog (so the same
    expectations hold, compared as strictly). What it checks, that today's Spark and code
    read that release's state, needs no more batches: the first one reads the state of every
    key the rows touch. The program's fixture of today's Spark restores in its own shape."""
    return (fixture.spark_release is not None and not advances_event_time(plan)
            and changelog_batch_invariant(plan, config))


def _program_of(fixture: Fixture, programs: list[TableTestProgram]) -> TableTestProgram:
    for program in programs:
        if program.id == fixture.program_id:
            return program
    raise FixtureError(
        f"fixture {fixture.id}: there is no program '{fixture.program_id}', and restoring needs "
        f"its after-restore data and expectations. Re-add the program (programs with fixtures of "
        f"released versions must stay), or delete the fixture if version {fixture.version} was "
        f"never released.")


def check_version_rules(fixture: Fixture, manifest: Manifest, registry: Registry = REGISTRY) -> None:
    """The annotations must admit this fixture before it is restored (first problem raised)."""
    problems = admission_problems(fixture, manifest, registry)
    if problems:
        raise FixtureError(problems[0])
