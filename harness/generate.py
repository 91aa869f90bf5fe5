"""Generate a program's fixture under the latest version of its node.

Compile, run the before-restore data, check the sinks hold exactly the expected rows, then
write plan + portable checkpoint + manifest. Fixtures of older versions are frozen, and an
existing fixture whose plan shape or state layout no longer matches today's node is not
overwritten: regenerating it would hide exactly the break the version rules exist for.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Optional

from streamplan.testing import REGISTRY, Registry

from .checkpoint import make_portable
from .discovery import node_of, short_name
from .errors import FixtureError, FrozenFixtureError, ProgramError
from .fixtures import (Fixture, Manifest, encode_rows, fixture_for, json_text, read_manifest,
                       sha256_file, tree_checksums, write_checksums)
from .program import TableTestProgram
from .runner import check_outputs, compile_program, retry_worker_start, run_phases
from .version_rules import state_layouts, version_rule_findings


def generate_fixture(program: TableTestProgram, snapshots: Path, registry: Registry = REGISTRY,
                     spark=None, version: Optional[int] = None, force: bool = False) -> Fixture:
    node = node_of(program, registry)
    latest = registry.latest(node)
    if version is not None and version != latest.version:
        raise FrozenFixtureError(
            f"fixtures of {node}_{version} are frozen: generate only writes fixtures of the latest "
            f"version ({latest.type_id}). Old fixtures are never regenerated in place; they prove "
            f"that plans and checkpoints written by released versions still restore.")
    fixture = fixture_for(snapshots, short_name(node), latest.version, program.id)
    env, plan = compile_program(program, spark)
    if latest.type_id not in {n.type for n in plan.nodes}:
        raise ProgramError(f"program {program.id} is filed under {node} (by its id) but its plan "
                           f"has no {latest.type_id} node: {', '.join(n.type for n in plan.nodes)}")
    if fixture.directory.exists() and not force:
        _refuse_hiding_a_break(fixture, plan, registry)
    with tempfile.TemporaryDirectory(prefix="harness-generate-") as work:
        def attempt():
            checkpoint = Path(tempfile.mkdtemp(dir=work)) / "checkpoint"
            return checkpoint, run_phases(env, plan, program, ["before"], False, checkpoint)

        checkpoint, result = retry_worker_start(attempt)
        check_outputs(program, result, "before")
        make_portable(checkpoint)
        staging = Path(tempfile.mkdtemp(prefix=f".{program.id}-", dir=_parent(fixture)))
        staged = Fixture(staging, fixture.short_name, fixture.version, program.id)
        try:
            plan.write(staged.plan_path)
            shutil.copytree(checkpoint, staged.checkpoint_dir)
            manifest = Manifest(
                program=program.id, node_type=latest.type_id,
                plan_sha256=sha256_file(staged.plan_path),
                data_sha256=program.before_data_fingerprint(),
                outputs={name: encode_rows(output.rows) for name, output in sorted(result.sinks.items())},
                state_layouts=state_layouts(plan))
            staged.manifest_path.write_text(json_text(manifest.to_json()), encoding="utf-8")
            write_checksums(staged.checksums_path, tree_checksums(staged.checkpoint_dir, staging))
            _replace(staging, fixture.directory)
        finally:
            if staging.exists():        # generation failed before the swap
                shutil.rmtree(staging)
    return fixture


def _parent(fixture: Fixture) -> Path:
    fixture.directory.parent.mkdir(parents=True, exist_ok=True)
    return fixture.directory.parent


def _replace(staging: Path, target: Path) -> None:
    """Swap the new fixture in; the old one is removed only once the new one is in place."""
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old")
        if old.exists():                # left by an interrupted earlier swap
            shutil.rmtree(old)
        target.rename(old)
    staging.rename(target)
    if old is not None:
        shutil.rmtree(old)


def _refuse_hiding_a_break(fixture: Fixture, plan, registry: Registry) -> None:
    try:
        manifest = read_manifest(fixture)
    except FixtureError:
        return      # a broken fixture of the latest version is simply replaced
    findings = version_rule_findings(fixture, manifest, registry, compiled=plan)
    if findings:
        details = "\n".join(f"  - {finding.message}" for finding in findings)
        raise FixtureError(
            f"not regenerating {fixture.id}: today's node differs from what the fixture holds:\n"
            f"{details}\nRegenerating would hide the break. Bump the version instead, or pass "
            f"--force if version {fixture.version} was never released.")
