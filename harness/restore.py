"""Restore one fixture: the checked-in plan (never recompiled) from a temp copy of the
checked-in checkpoint (never modified), fed the after-restore data, checked against the
program's after-restore expectations."""
from __future__ import annotations

import tempfile
from pathlib import Path

from streamplan.testing import REGISTRY, Registry, RunResult, StreamPlanError, load_plan

from .checkpoint import materialize
from .errors import FixtureError
from .fixtures import Fixture, Manifest, decode_rows, read_manifest, verify_fixture
from .program import TableTestProgram
from .runner import check_outputs, program_environment, retry_worker_start, run_phases
from .version_rules import admission_problems


def restore_fixture(fixture: Fixture, programs: list[TableTestProgram],
                    registry: Registry = REGISTRY, spark=None) -> RunResult:
    program = _program_of(fixture, programs)
    manifest = read_manifest(fixture)
    verify_fixture(fixture, manifest)
    check_version_rules(fixture, manifest, registry)
    if program.before_data_fingerprint() != manifest.data_sha256:
        raise FixtureError(
            f"fixture {fixture.id}: program {program.id} changed its sources' schemas or "
            f"before-restore rows since the fixture was generated, so the checkpoint no longer "
            f"matches its data. Revert that change (the before-restore data of a program with "
            f"fixtures of released versions is frozen) and add a new program instead, or "
            f"regenerate the fixture if version {fixture.version} is the latest.")
    try:
        plan = load_plan(fixture.plan_path, registry)
    except StreamPlanError as err:
        raise FixtureError(f"fixture {fixture.id}: rule 'the plan of a released version loads': "
                           f"{err}") from None
    env = program_environment(program, spark)

    def attempt() -> RunResult:
        with tempfile.TemporaryDirectory(prefix="harness-restore-") as work:
            checkpoint = materialize(fixture.checkpoint_dir, Path(work) / "checkpoint")
            return run_phases(env, plan, program, ["before", "after"], True, checkpoint)

    result = retry_worker_start(attempt)
    prior = {sink.table.identifier: decode_rows(manifest.outputs.get(sink.table.identifier, []),
                                                sink.row_type) for sink in plan.sinks}
    check_outputs(program, result, "after", prior)
    return result


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
