"""`harness audit`: the checks that keep exec-node annotations honest.

- annotations:          the registry's rules (streamplan.nodes.metadata.annotation_problems):
                        unique versions >= 1, consumed options exist, min versions parse and
                        are not above the engine version;
- consumed-options:     some program sets each consumed option to a non-default value;
- restore-completeness: every registered node version has a program and a fixture, every
                        program a fixture for its node's latest version, every fixture a
                        registered version (or a dropped one whose plans migrate) and a
                        program;
- version-rules:        per fixture, see harness.version_rules;
- function-accumulators: the user-defined functions fixtures hold still declare the
                        accumulator type (and signature) they were compiled against
                        (harness.function_rules).

Every function takes the registry and the snapshots root, so tests can audit simulated
breakages (fake node classes in a fresh Registry, fixtures in a temp dir).
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Callable, Optional

from streamplan.testing import (REGISTRY, Configuration, Registry, StreamPlanError,
                                annotation_problems, load_plan_nodes, lookup_option, option_exists,
                                parse_plan_document, read_plan_text)

from .discovery import node_of, short_name
from .errors import AuditFailure, Finding, HarnessError
from .fixtures import Fixture, read_manifest, scan_snapshots
from .function_rules import FUNCTION_ACCUMULATORS, check_function_accumulators
from .migration_gate import migrate_fixture_plan, migration_case
from .ported import check_ported, ported_programs
from .program import TableTestProgram
from .runner import compile_program
from .spark_releases import tracked_releases
from .version_rules import registration_problem, version_rule_findings

ANNOTATIONS = "annotations"
OPTIONS = "consumed-options"
COMPLETENESS = "restore-completeness"
VERSION_RULES = "version-rules"
FLINK_PROGRAMS = "flink-programs"
CHECKS = (ANNOTATIONS, OPTIONS, COMPLETENESS, VERSION_RULES, FLINK_PROGRAMS, FUNCTION_ACCUMULATORS)


def check_annotations(registry: Registry = REGISTRY) -> list[Finding]:
    """The registry's own rules (annotation_problems), over every registered version: a
    registry built by hand or patched after import is held to them too."""
    findings = []
    for type_id, (cls, meta) in sorted(registry.by_type.items()):
        if type_id != meta.type_id:
            findings.append(Finding(ANNOTATIONS, type_id, f"registered under '{type_id}' but its "
                                    f"annotation says '{meta.type_id}'"))
        findings += [Finding(ANNOTATIONS, type_id, problem) for problem in annotation_problems(cls, meta)]
    return findings


def options_read(snapshots: Path, registry: Registry = REGISTRY) -> dict[str, set[str]]:
    """Per node type, the options its `read_options` reads, over every fixture's plan (the
    one way a node reads configuration, so this is every code path that reads one)."""
    reads: dict[str, set[str]] = defaultdict(set)
    for fixture in scan_snapshots(snapshots)[0]:
        try:
            raw = parse_plan_document(read_plan_text(fixture.plan_path), fixture.id)
        except StreamPlanError:
            continue            # the version rules report unreadable plans
        for _, node in load_plan_nodes(raw, fixture.id, registry)[0]:
            view = node.options_view(Configuration())
            try:
                node.read_options(view)
            except StreamPlanError:
                continue        # an undeclared read: it fails compile and restore loudly
            reads[node.type] |= view.reads
    return reads


def check_consumed_options(programs: list[TableTestProgram], registry: Registry = REGISTRY,
                           snapshots: Optional[Path] = None) -> list[Finding]:
    exercised = set()
    for program in programs:
        for step in program.config_steps:
            if not option_exists(step.key):
                continue        # an option removed after the program was built: reported below
            option = lookup_option(step.key)
            if step.value != option.normalize(option.default):
                exercised.add(option.key)
    reads = options_read(snapshots, registry) if snapshots is not None else None
    findings = []
    for meta in registry.all_metadata():
        for key in meta.consumed_options:
            # an option that does not exist is an annotation problem (check_annotations)
            if option_exists(key) and lookup_option(key).key not in exercised:
                findings.append(Finding(OPTIONS, meta.type_id, (
                    f"consumes option '{key}', but no program sets it to a non-default value; "
                    f"add a program with .setup_config('{key}', <non-default value>) so its "
                    f"persisted value is restored by a fixture")))
            if (reads is not None and meta.type_id in reads and option_exists(key)
                    and lookup_option(key).key not in reads[meta.type_id]):
                findings.append(Finding(OPTIONS, meta.type_id, (
                    f"declares option '{key}' in consumed_options, but no code path of the node "
                    f"reads it (read_options, over every fixture's plan); it is persisted into "
                    f"plans for nothing. Read it, or drop it from consumed_options in a new "
                    f"version (the plan's configuration changes)")))
    return findings


def check_restore_completeness(programs: list[TableTestProgram], snapshots: Path,
                               registry: Registry = REGISTRY) -> list[Finding]:
    fixtures, problems = scan_snapshots(snapshots)
    findings = [Finding(COMPLETENESS, "snapshots", problem) for problem in problems]
    by_node: dict[str, list[TableTestProgram]] = defaultdict(list)
    for program in programs:
        by_node[node_of(program, registry)].append(program)
    have = {(f.short_name, f.version, f.program_id) for f in fixtures}
    have_releases = {(f.short_name, f.version, f.program_id, f.spark_release) for f in fixtures}
    try:
        releases = tracked_releases(snapshots)
    except HarnessError as err:
        releases = ()
        findings.append(Finding(COMPLETENESS, "snapshots", str(err)))
    for meta in registry.all_metadata():
        short = short_name(meta.name)
        node_programs = by_node.get(meta.name, [])
        if not node_programs:
            findings.append(Finding(COMPLETENESS, meta.type_id, (
                f"no program tests {meta.name}; add one to programs/{short.replace('-', '_')}.py "
                f"(ids starting with '{short}-')")))
        elif not any((short, meta.version, p.id) in have for p in node_programs):
            findings.append(Finding(COMPLETENESS, meta.type_id, (
                f"no fixture under snapshots/{short}_{meta.version}/: nothing proves that plans "
                f"and checkpoints of this version restore. Run `harness generate --node {short}` "
                f"(fixtures are written for the latest version only)")))
        if meta.version == registry.latest(meta.name).version:
            for program in node_programs:
                if (short, meta.version, program.id) not in have:
                    findings.append(Finding(COMPLETENESS, f"{short}_{meta.version}/{program.id}", (
                        f"program {program.id} has no fixture for the latest version "
                        f"{meta.type_id}; run `harness generate --program {program.id}`")))
                for release in releases:
                    if (short, meta.version, program.id, release) not in have_releases:
                        findings.append(Finding(
                            COMPLETENESS, f"{short}_{meta.version}/{program.id}/spark-{release}", (
                                f"program {program.id} has no fixture written by Spark {release} "
                                f"(a release users upgrade from); run `harness generate --spark "
                                f"{release} --program {program.id}`")))
    findings += _fixture_ownership(fixtures, programs, registry)
    return findings


def _fixture_ownership(fixtures: list[Fixture], programs: list[TableTestProgram],
                       registry: Registry) -> list[Finding]:
    program_ids = {program.id for program in programs}
    findings = []
    for fixture in fixtures:
        name = f"stream-exec-{fixture.short_name}"
        registered = registration_problem(fixture, registry)
        if registered:
            findings += _dropped_version_findings(fixture, registered, registry)
        if fixture.program_id not in program_ids:
            findings.append(Finding(COMPLETENESS, fixture.id, (
                f"no program '{fixture.program_id}' exists, so this fixture cannot be restored; "
                f"re-add the program, or delete the fixture if its version never shipped")))
        elif node_of(next(p for p in programs if p.id == fixture.program_id), registry) != name:
            findings.append(Finding(COMPLETENESS, fixture.id, (
                f"program {fixture.program_id} tests another node than {name}; the fixture is in "
                f"the wrong directory")))
        if not fixture.manifest_path.is_file():
            findings.append(Finding(COMPLETENESS, fixture.id, "has no manifest.json; regenerate "
                                    "it or restore it from git"))
    return findings


def _dropped_version_findings(fixture: Fixture, unregistered: str, registry: Registry
                              ) -> list[Finding]:
    """A fixture of an unregistered version is fine only if that version was dropped in
    favour of a newer one its plans migrate to (FLIP-190's drop step)."""
    case = migration_case(fixture, registry)
    if case is None or not case.dropped:
        return [Finding(COMPLETENESS, fixture.id, unregistered)]
    if case.expected == "refused":
        return [Finding(COMPLETENESS, fixture.id, (
            f"version {fixture.version} of stream-exec-{fixture.short_name} is no longer "
            f"registered and {case.to_type} cannot read its state (min_state_version), so "
            f"nothing restores this fixture any more. Dropping a state-incompatible version "
            f"drops its checkpoints: delete snapshots/{fixture.short_name}_{fixture.version}/ "
            f"in the same change, or restore the annotation."))]
    try:
        migrate_fixture_plan(case, registry)
    except HarnessError as err:
        return [Finding(COMPLETENESS, fixture.id, (
            f"version {fixture.version} of stream-exec-{fixture.short_name} is no longer "
            f"registered, and its plans do not migrate to {case.to_type}, so users holding them "
            f"are stuck: {err}. Declare @plan_migration(from_version={fixture.version}) on the "
            f"node class, or restore the version's annotation."))]
    return []


def check_version_rules(programs: list[TableTestProgram], snapshots: Path,
                        registry: Registry = REGISTRY, spark=None,
                        compile: bool = True) -> list[Finding]:
    """Rules 1 and 3 need no Spark; rule 2 compiles each program (with `compile`)."""
    fixtures, _ = scan_snapshots(snapshots)
    by_id = {program.id: program for program in programs}
    compiled: dict[str, object] = {}
    findings = []
    for fixture in fixtures:
        try:
            manifest = read_manifest(fixture)
        except HarnessError as err:
            findings.append(Finding(VERSION_RULES, fixture.id, str(err)))
            continue
        plan = None
        program = by_id.get(fixture.program_id)
        if compile and program is not None:
            if program.id not in compiled:
                try:
                    compiled[program.id] = compile_program(program, spark)[1]
                except HarnessError as err:
                    compiled[program.id] = None
                    findings.append(Finding(VERSION_RULES, fixture.id, f"cannot compile: {err}"))
            plan = compiled[program.id]
        findings += version_rule_findings(fixture, manifest, registry, compiled=plan)
    return list(dict.fromkeys(findings))


def audit_checks(programs: list[TableTestProgram], snapshots: Path, registry: Registry = REGISTRY,
                 spark=None, compile: bool = True,
                 package: str = "programs") -> dict[str, Callable[[], list[Finding]]]:
    """Every check by name, ready to run; an empty result means the check passed."""
    return {
        ANNOTATIONS: lambda: check_annotations(registry),
        OPTIONS: lambda: check_consumed_options(programs, registry, snapshots),
        COMPLETENESS: lambda: check_restore_completeness(programs, snapshots, registry),
        VERSION_RULES: lambda: check_version_rules(programs, snapshots, registry, spark, compile),
        FLINK_PROGRAMS: lambda: check_ported(ported_programs(package), snapshots, FLINK_PROGRAMS),
        FUNCTION_ACCUMULATORS: lambda: check_function_accumulators(snapshots),
    }


def run_audit(programs: list[TableTestProgram], snapshots: Path, registry: Registry = REGISTRY,
              spark=None, compile: bool = True, package: str = "programs") -> dict[str, list[Finding]]:
    return {name: check() for name, check in
            audit_checks(programs, snapshots, registry, spark, compile, package).items()}


def require_clean(results: dict[str, list[Finding]]) -> None:
    """Raise AuditFailure carrying every finding, if there is any."""
    findings = [finding for check in results.values() for finding in check]
    if findings:
        raise AuditFailure(findings)
