"""Restore one fixture: the checked-in plan (never recompiled) from a temp copy of the
checked-in checkpoint (never modified), fed the after-restore data, checked against the
program's after-restore expectations."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from streamplan.errors import StreamPlanError
from streamplan.nodes import REGISTRY
from streamplan.nodes.metadata import Registry, check_state_version
from streamplan.plan import load_plan
from streamplan.runtime.executor import CHECKPOINT_MARKER, RunResult

from .checkpoint import materialize
from .discovery import node_names, short_name
from .errors import FixtureError
from .fixtures import Fixture, Manifest, decode_rows, read_manifest, verify_fixture
from .program import TableTestProgram
from .runner import check_outputs, program_environment, retry_worker_start, run_phases
from .version_rules import load_nodes, read_plan_json


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
    """The annotations must allow this fixture: its version registered, its plan and state
    not older than min_plan_version / min_state_version."""
    name = f"stream-exec-{fixture.short_name}"
    type_id = f"{name}_{fixture.version}"
    if type_id not in registry.by_type:
        known = sorted(meta.version for meta in registry.all_metadata() if meta.name == name)
        if name not in node_names(registry):
            problem = f"no exec node '{name}' is registered"
        else:
            problem = f"version {fixture.version} of {name} is not registered (registered: " \
                      f"{', '.join(map(str, known))})"
        raise FixtureError(
            f"fixture {fixture.id}: rule 'every fixture belongs to a registered node version': "
            f"{problem}. Remedy: restore the @exec_node(name='{name}', version={fixture.version}, "
            f"...) annotation, since plans and checkpoints of that version exist; delete "
            f"snapshots/{short_name(name)}_{fixture.version}/ only if that version was never released.")
    if manifest.node_type != type_id:
        raise FixtureError(f"fixture {fixture.id}: its manifest says it was generated for "
                           f"{manifest.node_type}, not {type_id}; the fixture was moved by hand. "
                           f"Move it back under the directory of its version.")
    loaded, problems = load_nodes(read_plan_json(fixture), registry, f"fixture {fixture.id}")
    if problems:
        raise FixtureError(f"fixture {fixture.id}: rule 'the plan of a registered version loads "
                           f"(min_plan_version)': " + " ".join(problems))
    marker = fixture.checkpoint_dir / CHECKPOINT_MARKER
    try:
        written_by = json.loads(marker.read_text())["engineVersion"]
        for _, node in loaded:
            check_state_version(registry.by_type[node.type][1], written_by,
                                f"fixture {fixture.id}: rule 'min_state_version': node {node.id}")
    except StreamPlanError as err:
        raise FixtureError(str(err)) from None
    except (OSError, ValueError, KeyError) as err:
        raise FixtureError(f"fixture {fixture.id}: cannot read {marker.name} of its checkpoint "
                           f"({err}); restore the fixture from git") from None
