"""Generate a program's fixture under the latest version of its node.

Compile, run the before-restore data, check the sinks hold exactly the expected rows, then
write plan + portable checkpoint + manifest. Every existing fixture is frozen (it stands for
what users hold): generate writes only missing ones, and for an existing fixture whose plan
shape or state layout no longer matches today's node it names the break, which regenerating
would hide. `--force` rewrites a fixture that never landed.
"""
from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Optional

from streamplan.testing import REGISTRY, Registry, load_plan, running_spark_version

from .portable_checkpoint import make_portable
from .discovery import node_of, short_name
from .errors import FixtureError, FrozenFixtureError, ProgramError
from .migration_ledger import record_outcomes
from .fixtures import (RELEASE_PREFIX, Fixture, Manifest, encode_rows, fixture_for, json_text, read_manifest,
                       sha256_file, tree_checksums, write_checksums)
from .program import TableTestProgram
from .runner import (check_outputs, compile_program, program_environment, retry_worker_start,
                     run_phases)
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
    # A ported program is filed where Flink's restore test files it, by its id, even when its
    # plan lacks that node: GroupAggregateRestoreTest runs the *_MINI_BATCH programs, whose
    # plans hold a local and a global aggregate instead.
    if latest.type_id not in {n.type for n in plan.nodes} and program.ported_from is None:
        raise ProgramError(f"program {program.id} is filed under {node} (by its id) but its plan "
                           f"has no {latest.type_id} node: {', '.join(n.type for n in plan.nodes)}")
    if fixture.manifest_path.is_file() and not force:
        _refuse_hiding_a_break(fixture, plan, registry)
        raise FrozenFixtureError(
            f"{fixture.id} exists and is frozen: it stands for plans and checkpoints users "
            f"already hold. Add a program or a version, never rewrite a fixture (--force only "
            f"for one that never landed)")
    _write_fixture(fixture, program, env, plan, latest.type_id, write_plan=True)
    # The latest version's fixtures exist: what migrating the older ones to it must do is
    # recorded now, from the annotations as they are when the version is introduced.
    record_outcomes(snapshots, registry)
    return fixture


def existing_fixture(program: TableTestProgram, snapshots: Path, registry: Registry = REGISTRY,
                     release: Optional[str] = None) -> Optional[Fixture]:
    """The program's fixture of its node's latest version (on `release`, else the pinned
    Spark), when it exists: generate never rewrites one without --force."""
    node = node_of(program, registry)
    fixture = fixture_for(snapshots, short_name(node), registry.latest(node).version, program.id)
    if release is not None:
        fixture = fixture.on_release(release)
    return fixture if fixture.manifest_path.is_file() else None


def generate_release_fixture(program: TableTestProgram, snapshots: Path,
                             registry: Registry = REGISTRY, spark=None,
                             force: bool = False) -> Fixture:
    """The program's fixture on the Spark release this process runs (not the pinned one):
    the pinned fixture's plan and data, its own checkpoint and manifest in spark-<release>/.
    Run through `harness generate --spark <release>`, which starts this process in that
    release's environment (harness.spark_releases)."""
    node = node_of(program, registry)
    latest = registry.latest(node)
    release = running_spark_version()
    pinned = fixture_for(snapshots, short_name(node), latest.version, program.id)
    if not pinned.plan_path.is_file():
        raise FixtureError(f"{pinned.id} has no plan to share: generate the pinned fixture "
                           f"first (`harness generate --program {program.id}`)")
    fixture = pinned.on_release(release)
    if fixture.files_dir.exists() and not force:
        raise FrozenFixtureError(
            f"{fixture.id} exists and is frozen: it stands for checkpoints users of Spark "
            f"{release} already hold. Add releases, never rewrite one (--force only for a "
            f"fixture that never landed)")
    plan = load_plan(pinned.plan_path, registry)
    _write_fixture(fixture, program, program_environment(program, spark), plan,
                   latest.type_id, write_plan=False)
    return fixture


def _write_fixture(fixture: Fixture, program: TableTestProgram, env, plan, node_type: str,
                   write_plan: bool) -> None:
    """Run the before-restore data, check it, and swap the fixture's files in (atomically:
    a failed run leaves the old files)."""
    with tempfile.TemporaryDirectory(prefix="harness-generate-") as work:
        def attempt():
            checkpoint = Path(tempfile.mkdtemp(dir=work)) / "checkpoint"
            return checkpoint, run_phases(env, plan, program, ["before"], False, checkpoint)

        checkpoint, result = retry_worker_start(attempt)
        check_outputs(program, result, "before")
        make_portable(checkpoint)
        target = fixture.files_dir
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
        staged = replace(fixture, directory=staging, spark_release=None)
        try:
            if write_plan:
                plan.write(staged.plan_path)
                for release in sorted(target.glob(f"{RELEASE_PREFIX}*")):   # kept, not rewritten
                    shutil.copytree(release, staging / release.name)
            shutil.copytree(checkpoint, staged.checkpoint_dir)
            manifest = Manifest(
                program=program.id, node_type=node_type,
                plan_sha256=sha256_file(fixture.plan_path if not write_plan else staged.plan_path),
                data_sha256=program.before_data_fingerprint(),
                outputs={name: encode_rows(output.rows) for name, output in sorted(result.sinks.items())},
                state_layouts=state_layouts(plan), spark_version=running_spark_version())
            staged.manifest_path.write_text(json_text(manifest.to_json()), encoding="utf-8")
            write_checksums(staged.checksums_path, tree_checksums(staged.checkpoint_dir, staging))
            _replace(staging, target)
        finally:
            if staging.exists():        # generation failed before the swap
                shutil.rmtree(staging)


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
