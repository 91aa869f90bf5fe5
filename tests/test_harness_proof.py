"""The gate catches the breakages it exists for, and the happy path works end to end.

One module-scoped generation (a tiny calc and a tiny interval-join program) feeds every test;
each test works on a copy in its own temp dir. Nothing here writes into the real snapshots/.
"""
from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

import pytest

import streamplan.options as options
from harness.audit import (CHECKS, check_annotations, check_consumed_options, check_restore_completeness,
                           check_version_rules)
from harness.errors import ExpectationMismatch, FixtureError, FrozenFixtureError
from streamplan.errors import ExecutionError
from harness.fixtures import fixture_for, read_manifest, scan_snapshots
from harness.gate import run_gate
from harness.generate import generate_fixture
from harness.restore import restore_fixture, restore_migrated
from harness.runner import run_semantic
from programs.changelog_normalize import TINY as CHANGELOG_NORMALIZE_TINY
from programs.group_aggregate import TINY as GROUP_AGGREGATE_TINY
from programs.join import JOIN_TINY
from harness_support import (CALC_PROGRAM, GATE_PROGRAMS, JOIN_PROGRAM, PROGRAMS, CalcV2,
                             JoinBumpedWithoutMigration, JoinWithVersion1AndItsMigrationDropped,
                             JoinWithVersion1Dropped,
                             LowerCaseCalc, RebucketedJoin, RenamedFieldCalc, RequiredFieldCalc,
                             RetypedStateJoin, RenamedStateJoin, TtlDeclaringCalc, TtlReadingJoin,
                             calc_program,
                             raised_min_versions, registry_with, tree_digest)
from streamplan.nodes.interval_join import StreamExecIntervalJoin
from streamplan.nodes.join import StreamExecJoin
from streamplan.nodes import REGISTRY
from streamplan.nodes.metadata import ExecNodeMetadata, exec_node
from streamplan.version import ENGINE_VERSION, parse_version

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def generated(spark, tmp_path_factory):
    """A snapshots root holding one fixture per program of tests/gate_programs (latest
    versions), plus the fixtures of version 1 of stream-exec-join, stream-exec-interval-join,
    stream-exec-changelog-normalize and stream-exec-group-aggregate, generated the way they
    were released: while version 1 was the latest."""
    root = tmp_path_factory.mktemp("generated")
    for older, program in (("stream-exec-join_2", JOIN_TINY),
                           ("stream-exec-interval-join_2", JOIN_PROGRAM),
                           ("stream-exec-changelog-normalize_2", CHANGELOG_NORMALIZE_TINY),
                           ("stream-exec-group-aggregate_2", GROUP_AGGREGATE_TINY)):
        with pytest.MonkeyPatch.context() as patch:
            patch.delitem(REGISTRY.by_type, older)
            generate_fixture(program, root, spark=spark)
    for program in PROGRAMS:
        generate_fixture(program, root, spark=spark)
    return root


@pytest.fixture
def snapshots(generated, tmp_path):
    """A private copy of the generated fixtures."""
    root = tmp_path / "snapshots"
    shutil.copytree(generated, root)
    return root


# the tiny fixtures whose plans hold a stream-exec-calc node
def calc_fixtures(root) -> set[str]:
    """The fixtures whose plans hold a stream-exec-calc node, read from the plan files (the
    join and window plans project around their node, so they hold one too)."""
    return {f.id for f in scan_snapshots(root)[0]
            if '"type": "stream-exec-calc_1"' in f.plan_path.read_text()}


def join_fixture(root, version=1):
    return fixture_for(root, "interval-join", version, JOIN_PROGRAM.id)


def calc_fixture(root, version=1):
    return fixture_for(root, "calc", version, CALC_PROGRAM.id)


# --- generate ------------------------------------------------------------------------------------

def test_generate_writes_a_small_portable_fixture_with_its_manifest(generated):
    fixture = join_fixture(generated)
    names = sorted(p.relative_to(fixture.directory).as_posix() for p in fixture.directory.rglob("*")
                   if p.is_file())
    assert "plan/interval-join-tiny.json" in names and "manifest.json" in names
    assert "checkpoint.sha256" in names and "checkpoint/streamplan.json" in names
    assert not [name for name in names if name.endswith(".crc")]
    assert sum(p.stat().st_size for p in fixture.directory.rglob("*") if p.is_file()) < 64_000
    manifest = read_manifest(fixture)
    assert manifest.node_type == "stream-exec-interval-join_1"
    assert manifest.outputs == {"J": []}
    (layout,) = manifest.state_layouts.values()
    assert layout["type"] == "stream-exec-interval-join_1"
    assert {"left-cache", "right-cache"} <= set(layout["layout"])
    # the latest version's fixture, beside it: its own layout (one value per bucket of keys)
    (latest,) = read_manifest(join_fixture(generated, 2)).state_layouts.values()
    assert latest["type"] == "stream-exec-interval-join_2"
    assert list(latest["layout"]) == ["join-state"]


def test_generate_is_deterministic(spark, generated, tmp_path):
    again = generate_fixture(CALC_PROGRAM, tmp_path, spark=spark)
    first = calc_fixture(generated)
    assert again.plan_path.read_bytes() == first.plan_path.read_bytes()
    assert again.manifest_path.read_bytes() == first.manifest_path.read_bytes()


def test_generate_fails_with_a_diff_and_writes_nothing_when_the_output_differs(spark, tmp_path):
    with pytest.raises(ExpectationMismatch) as caught:
        generate_fixture(calc_program(before_expected="+I[1, a]"), tmp_path, spark=spark)
    assert "program calc-tiny, before restore" in str(caught.value)
    assert "- +I[1, a]\n+ +I[1, A]" in caught.value.diff
    assert scan_snapshots(tmp_path)[0] == []


def test_generate_refuses_frozen_versions_and_hiding_a_layout_break(spark, snapshots):
    registry = registry_with(extra=(CalcV2,))
    with pytest.raises(FrozenFixtureError, match="fixtures of stream-exec-calc_1 are frozen: "
                                                 "generate only writes fixtures of the latest "
                                                 "version \\(stream-exec-calc_2\\)"):
        generate_fixture(CALC_PROGRAM, snapshots, registry, spark=spark, version=1)
    before = tree_digest(snapshots)
    with pytest.raises(FixtureError, match="(?s)not regenerating interval-join_2/interval-join-tiny.*"
                                           "state variable 'join-state' grouping changed from "
                                           "'pmod\\(hash\\(join key\\), 1024\\)' to "
                                           "'pmod\\(hash\\(join key\\), 2048\\)'.*Bump the version"):
        generate_fixture(JOIN_PROGRAM, snapshots, registry_with(RebucketedJoin), spark=spark)
    assert tree_digest(snapshots) == before


def test_generate_refuses_to_rewrite_a_fixture_that_exists(spark, snapshots):
    before = tree_digest(snapshots)
    with pytest.raises(FrozenFixtureError, match="calc_1/calc-tiny exists and is frozen.*--force"):
        generate_fixture(CALC_PROGRAM, snapshots, spark=spark)
    assert tree_digest(snapshots) == before


# --- restore -------------------------------------------------------------------------------------

def test_a_node_that_reads_the_session_instead_of_its_plan_fails_the_restore(spark, generated):
    """sink-tiny persists 'table.exec.sink.not-null-enforcer' = 'DROP' in its plan; a restore
    runs under a session that sets none of the program's options (the default: ERROR). A sink
    that read the session instead of its plan fails on the NULL row after the restore."""
    from streamplan.options import NodeConfiguration
    from streamplan.nodes.sink import StreamExecSink

    @exec_node(name="stream-exec-sink", version=1, min_plan_version="0.1", min_state_version="0.1",
               consumed_options=("table.exec.sink.not-null-enforcer",))
    class SessionReadingSink(StreamExecSink):
        def options_view(self, session):
            return NodeConfiguration(f"node {self.id}", self.metadata.consumed_options, {},
                                     session)

    (fixture,) = [f for f in scan_snapshots(generated)[0] if f.program_id == "sink-tiny"]
    restore_fixture(fixture, PROGRAMS, spark=spark)               # today's sink: passes
    with pytest.raises(ExecutionError, match="NOT NULL"):
        restore_fixture(fixture, PROGRAMS, registry_with(SessionReadingSink), spark=spark)


def test_restore_resumes_state_from_a_copy_and_never_touches_the_fixture(spark, generated):
    before = tree_digest(generated)
    result = restore_fixture(join_fixture(generated), PROGRAMS, spark=spark)
    assert result.sinks["J"].texts == ["+I[1, 1]"]
    assert tree_digest(generated) == before


def test_restore_reports_a_readable_diff(spark, snapshots):
    with pytest.raises(ExpectationMismatch) as caught:
        restore_fixture(calc_fixture(snapshots), [calc_program(after_expected="+I[2, b]")], spark=spark)
    assert str(caught.value).startswith("program calc-tiny, after restore: the sink output differs")
    assert caught.value.diff.splitlines()[-2:] == ["- +I[2, b]", "+ +I[2, B]"]


def test_restore_refuses_modified_fixtures_and_changed_programs(snapshots):
    fixture = calc_fixture(snapshots)
    with pytest.raises(FixtureError, match="program calc-tiny changed its sources' schemas or "
                                           "before-restore rows"):
        restore_fixture(fixture, [calc_program(before_value="z")])
    offsets = sorted((fixture.checkpoint_dir / "sink-3" / "offsets").iterdir())[-1]
    offsets.write_text(offsets.read_text() + " ")
    with pytest.raises(FixtureError, match=r"checkpoint/sink-3/offsets/\d+ modified.*restore it from git"):
        restore_fixture(fixture, PROGRAMS)


def test_semantic_mode_runs_all_data_without_a_restore(spark):
    result = run_semantic(CALC_PROGRAM, spark)
    assert result.sinks["Out"].texts == ["+I[1, A]", "+I[2, B]"]


# --- the breakages the audit exists for ------------------------------------------------------------

def test_clean_fixtures_pass_the_version_rules(spark, generated):
    assert check_version_rules(PROGRAMS, generated, spark=spark) == []


def test_state_layout_change_without_a_bump_is_caught(snapshots):
    findings = check_version_rules(PROGRAMS, snapshots, registry_with(RenamedStateJoin), compile=False)
    messages = [f.message for f in findings if f.subject == "interval-join_1/interval-join-tiny"]
    assert len(messages) == 2
    layout, checkpoint = messages
    assert layout.startswith("stream-exec-interval-join_1 (node 5): state layout changed: state "
                             "variable 'left-cache' removed; state variable 'left-rows' added.")
    # the remedy names the next free version (version 2 exists already)
    assert ("A new version with new fixtures is needed: bump the version of "
            "stream-exec-interval-join (add @exec_node(name='stream-exec-interval-join', version=3"
            in layout)
    holds, declares = checkpoint.split(
        " but today's nodes (stream-exec-interval-join_1 node 5) declare ")
    assert holds.startswith("the checkpoint of sink node 7 holds state variables {")
    assert "left-cache: MapState" in holds and "left-rows" not in holds
    assert "left-rows: MapState" in declares and "left-cache" not in declares


def test_plan_field_renamed_without_a_bump_is_caught(spark, snapshots):
    findings = check_version_rules(PROGRAMS, snapshots, registry_with(RenamedFieldCalc), spark=spark)
    assert {f.subject for f in findings} == calc_fixtures(snapshots) >= {
        "calc_1/calc-tiny", "join_1/join-tiny", "interval-join_1/interval-join-tiny"}
    messages = [f.message for f in findings if f.subject == "calc_1/calc-tiny"]
    assert [m.split(" in ")[0] for m in messages] == [
        "stream-exec-calc_1 (node 2): plan field 'projection' removed; plan field 'projections' added"] * 2
    assert "in the JSON today's class writes compared with the fixture's plan" in messages[0]
    assert "in today's compiled plan compared with the fixture's plan" in messages[1]
    assert all("but the version was not bumped. A new version with new fixtures is needed: bump the "
               "version of stream-exec-calc" in m for m in messages)
    # the JSON-path report (deepdiff) under each finding, values included
    for message in messages:
        assert message.splitlines()[-3:] == [
            "  the node's JSON, fixture → today:",
            '    projection: removed (was ["`id`", "UPPER(`v`)"])',
            '    projections: added (["`id`", "UPPER(`v`)"])']


@exec_node(name="stream-exec-interval-join", version=2, min_plan_version="0.3", min_state_version="0.3",
           consumed_options=("table.exec.interval-join.min-cleanup-interval",))
@exec_node(name="stream-exec-interval-join", version=1, min_plan_version="0.1", min_state_version="0.1",
           consumed_options=("table.exec.interval-join.min-cleanup-interval",))
class RetypedBoundJoin(StreamExecIntervalJoin):
    """Writes the window bounds as strings: a type change inside a nested spec."""

    def to_json(self):
        raw = super().to_json()
        bounds = raw["intervalJoinSpec"]["windowBounds"]
        bounds["leftLowerBound"] = f"{bounds['leftLowerBound']} ms"
        return raw


def test_a_nested_type_change_is_reported_with_its_json_path(snapshots):
    findings = check_version_rules(PROGRAMS, snapshots, registry_with(RetypedBoundJoin), compile=False)
    (message,) = [f.message for f in findings if f.subject == "interval-join_1/interval-join-tiny"]
    assert message.startswith("stream-exec-interval-join_1 (node 5): plan field "
                              "'intervalJoinSpec.windowBounds.leftLowerBound' changed kind "
                              "(number -> string)")
    assert message.splitlines()[-1] == ("    intervalJoinSpec.windowBounds.leftLowerBound: type "
                                        'changed from int -2000 to str "-2000 ms"')


def test_a_consumed_option_that_no_longer_exists_is_caught(monkeypatch):
    monkeypatch.delitem(options.OPTIONS, "table.exec.sink.not-null-enforcer")
    (finding,) = check_annotations(REGISTRY)
    assert finding.subject == "stream-exec-sink_1"
    assert finding.message.startswith("consumes option 'table.exec.sink.not-null-enforcer', which "
                                      "does not exist (by key or fallback key)")
    assert check_consumed_options(PROGRAMS, REGISTRY) == []      # reported once, not twice


def test_a_consumed_option_no_program_exercises_is_caught():
    assert check_consumed_options(PROGRAMS, REGISTRY) == []       # every option exercised
    findings = check_consumed_options([CALC_PROGRAM], REGISTRY)
    # every node version that consumes an option, none of which the calc program sets
    consuming = {meta.type_id for meta in REGISTRY.all_metadata() if meta.consumed_options}
    assert {f.subject for f in findings} == consuming >= {
        "stream-exec-sink_1", "stream-exec-interval-join_1", "stream-exec-interval-join_2",
        "stream-exec-join_1", "stream-exec-window-table-function_1",
        "stream-exec-local-group-aggregate_1", "stream-exec-global-group-aggregate_1"}
    exercised = check_consumed_options([CALC_PROGRAM, _with_config(
        "table.exec.sink.not-null-enforcer", "DROP")], REGISTRY)
    assert {f.subject for f in exercised} == consuming - {"stream-exec-sink_1"}
    finding = next(f for f in exercised if f.subject == "stream-exec-interval-join_1")
    assert finding.message.startswith(
        "consumes option 'table.exec.interval-join.min-cleanup-interval', but no program sets it "
        "to a non-default value; add a program with .setup_config(")


def _with_config(key, value):
    from harness import TableTestProgram
    built = calc_program()
    builder = TableTestProgram.of("calc-configured", "x").setup_config(key, value)
    for step in built.steps:
        builder = builder.add_step(step)
    return builder.build()


def test_a_node_version_without_a_fixture_is_caught(snapshots):
    findings = check_restore_completeness(PROGRAMS, snapshots, registry_with(extra=(CalcV2,)))
    by_subject = {f.subject: f.message for f in findings}
    assert by_subject["stream-exec-calc_2"].startswith(
        "no fixture under snapshots/calc_2/: nothing proves that plans and checkpoints of this "
        "version restore. Run `harness generate --node calc`")
    assert "program calc-tiny has no fixture for the latest version" in by_subject["calc_2/calc-tiny"]
    assert "stream-exec-calc_1" not in by_subject      # version 1 keeps its fixture


def test_a_fixture_of_an_unregistered_version_is_caught(snapshots):
    shutil.copytree(calc_fixture(snapshots).directory, snapshots / "calc_9" / "calc-tiny")
    findings = check_restore_completeness(PROGRAMS, snapshots)
    (finding,) = [f for f in findings if f.subject == "calc_9/calc-tiny"]
    # the same rule, worded the same, in the audit and in the restore
    assert finding.message.startswith(
        "fixture calc_9/calc-tiny: rule 'every fixture belongs to a registered node version': "
        "version 9 of stream-exec-calc is not registered (registered: 1). Remedy: restore the "
        "@exec_node(")
    with pytest.raises(FixtureError, match="rule 'every fixture belongs to a registered node "
                                           "version': version 9 of stream-exec-calc is not "
                                           "registered \\(registered: 1\\). Remedy: restore"):
        restore_fixture(calc_fixture(snapshots, 9), PROGRAMS)


# --- plan migration (FLIP-190): older fixtures restore through their migrated plans ---------------

def join_1_fixture(root):
    return fixture_for(root, "join", 1, JOIN_TINY.id)


def test_an_older_fixture_restores_through_its_migrated_plan(spark, generated):
    fixture = join_1_fixture(generated)
    before = tree_digest(fixture.directory)
    assert restore_migrated(fixture, PROGRAMS, spark=spark) is not None
    assert tree_digest(fixture.directory) == before


def test_a_state_breaking_bump_is_migrated_by_refusal(generated):
    # interval join 1 -> 2 changed the state: migration must be refused, not attempted
    assert restore_migrated(join_fixture(generated), PROGRAMS) is None


def test_a_bump_that_changes_the_plan_json_without_a_migration_is_an_audit_finding(snapshots):
    registry = registry_with(JoinBumpedWithoutMigration)
    fixture = join_1_fixture(snapshots)
    (finding,) = [f for f in check_version_rules(PROGRAMS, snapshots, registry, compile=False)
                  if f.subject == fixture.id]
    assert str(finding).startswith(
        "[version-rules] join_1/join-tiny: fixture join_1/join-tiny: rule 'a plan of an older "
        "version migrates to the latest and restores': fixture join_1/join-tiny: node 3 "
        "('stream-exec-join_1'): the migrated node does not load as stream-exec-join_2 (")
    assert str(finding).endswith(
        "No migration is declared for version step(s) 1 -> 2 of stream-exec-join; declare one "
        "on JoinBumpedWithoutMigration with @plan_migration(from_version=N).")


def test_a_dropped_version_restores_only_through_its_migrated_plan(spark, snapshots):
    registry = registry_with(JoinWithVersion1Dropped)
    fixture = join_1_fixture(snapshots)
    assert [f for f in check_restore_completeness(PROGRAMS, snapshots, registry)
            if f.subject == fixture.id] == []
    assert [f for f in check_version_rules(PROGRAMS, snapshots, registry, compile=False)
            if f.subject == fixture.id] == []
    with pytest.raises(FixtureError, match=r"version 1 of stream-exec-join was dropped \(registered: "
                                           r"2\), and its plans migrate: a checkpoint of it restores "
                                           r"only with its plan migrated, COMPILE PLAN 'new.json' "
                                           r"FROM 'old.json'"):
        restore_fixture(fixture, PROGRAMS, registry, spark=spark)
    assert restore_migrated(fixture, PROGRAMS, registry, spark=spark) is not None


def test_a_dropped_version_without_its_migration_fails_the_audit_with_the_remedy(snapshots):
    registry = registry_with(JoinWithVersion1AndItsMigrationDropped)
    fixture = join_1_fixture(snapshots)
    (finding,) = [f for f in check_restore_completeness(PROGRAMS, snapshots, registry)
                  if f.subject == fixture.id]
    assert ("version 1 of stream-exec-join is no longer registered, and its plans do not migrate "
            "to stream-exec-join_2, so users holding them are stuck") in finding.message
    assert "No migration is declared for version step(s) 1 -> 2 of stream-exec-join" in finding.message
    assert finding.message.endswith("Declare @plan_migration(from_version=1) on the node class, or "
                                    "restore the version's annotation.")
    with pytest.raises(FixtureError, match="fails without the remedy to migrate it"):
        restore_migrated(fixture, PROGRAMS, registry)


def test_a_min_state_version_that_claims_too_much_is_caught_by_the_migration_rule(snapshots):
    # version 2 claims to read version 1's state, but its layout differs: the audit says so
    class WiderJoin(JoinWithVersion1Dropped):
        _state_ttl_into_the_plan = JoinWithVersion1Dropped.__dict__["_state_ttl_into_the_plan"]

        def state_layout(self, inputs):
            layout = super().state_layout(inputs)
            layout["left-records"] = {**layout["left-records"], "value": "kept STRUCT<count: INT>"}
            return layout

    registry = registry_with(exec_node(name="stream-exec-join", version=2, min_plan_version="0.2",
                                       min_state_version="0.1")(WiderJoin))
    findings = [f for f in check_version_rules(PROGRAMS, snapshots, registry, compile=False)
                if f.subject == join_1_fixture(snapshots).id]
    assert any("migrated to stream-exec-join_2: stream-exec-join_2 (node 3): state layout changed"
               in f.message and "raise min_state_version of stream-exec-join_2" in f.message
               for f in findings), findings


def test_annotation_sanity():
    registry = registry_with()
    too_new = ExecNodeMetadata("stream-exec-calc", 3, "9.9", "0.1")

    @exec_node(name="stream-exec-calc", version=4, min_plan_version="0.1", min_state_version="0.1")
    @exec_node(name="stream-exec-calc", version=4, min_plan_version="0.1", min_state_version="0.1")
    class Twice(CalcV2):
        pass

    registry.by_type["stream-exec-calc_3"] = (CalcV2, too_new)
    registry.by_type["stream-exec-calc_4"] = (Twice, Twice._exec_node_metadata[0])
    messages = {f"{f.subject}: {f.message}" for f in check_annotations(registry)}
    assert messages == {
        f"stream-exec-calc_3: min_plan_version 9.9 is above the engine version {ENGINE_VERSION}: "
        f"no release could have written what it claims to restore; lower it to at most "
        f"{ENGINE_VERSION}",
        "stream-exec-calc_4: Twice is annotated more than once with version 4; every version of "
        "a node needs its own number"}
    assert check_annotations(REGISTRY) == []


# --- the happy path: bump, generate, both versions restore -----------------------------------------

def test_bumping_a_version_keeps_old_fixtures_and_adds_new_ones(spark, snapshots, monkeypatch):
    meta = CalcV2._exec_node_metadata[0]
    monkeypatch.setitem(REGISTRY.by_type, meta.type_id, (CalcV2, meta))   # the bump, everywhere
    old = calc_fixture(snapshots)
    old_digest = tree_digest(old.directory)
    new = generate_fixture(CALC_PROGRAM, snapshots, spark=spark)
    assert new.id == "calc_2/calc-tiny"
    assert read_manifest(new).node_type == "stream-exec-calc_2"
    for fixture in (old, new):
        assert restore_fixture(fixture, PROGRAMS, spark=spark).sinks["Out"].texts == ["+I[2, B]"]
    assert tree_digest(old.directory) == old_digest
    assert not [f for f in check_restore_completeness(PROGRAMS, snapshots) if "calc" in f.subject]


def test_state_variable_type_change_without_a_bump_is_caught(snapshots):
    findings = check_version_rules(PROGRAMS, snapshots, registry_with(RetypedStateJoin), compile=False)
    messages = [f.message for f in findings if f.subject == "interval-join_1/interval-join-tiny"]
    assert len(findings) == len(messages) == 2
    layout, checkpoint = messages
    assert layout.startswith(
        "stream-exec-interval-join_1 (node 5): state layout changed: state variable 'late-rows' "
        "kind changed from 'value' to 'list'; state variable 'left-cleanup-time' value changed "
        "from 'time BIGINT' to 'time INT'.")
    # Spark's own operator metadata records kinds, not schemas: it sees the kind change only.
    assert "late-rows: ValueState" in checkpoint.split(" but ")[0]
    assert "late-rows: ListState" in checkpoint.split(" but ")[1]


def test_a_plan_that_no_longer_loads_is_caught_by_audit_and_restore(snapshots):
    registry = registry_with(RequiredFieldCalc)
    findings = check_version_rules(PROGRAMS, snapshots, registry, compile=False)
    calc = [f.message for f in findings if f.subject == "calc_1/calc-tiny"]
    assert calc == [
        "the fixture's plan no longer loads with today's classes: fixture calc_1/calc-tiny: node 2 "
        "('stream-exec-calc_1'): today's RequiredFieldCalc cannot read it: field 'nullHandling': "
        "Field required. Either the node's plan JSON changed incompatibly (then a new version with "
        "new fixtures is needed: bump the version and keep a class reading the old JSON), or its "
        "version was removed (restore the annotation)."]
    with pytest.raises(FixtureError, match=r"rule 'the plan of a registered version loads "
                                           r"\(min_plan_version\)': .*field 'nullHandling': Field required"):
        restore_fixture(calc_fixture(snapshots), PROGRAMS, registry)


NOW = ENGINE_VERSION                                           # what wrote the tiny fixtures
NEXT = ".".join(map(str, parse_version(NOW)[:-1] + (parse_version(NOW)[-1] + 1,)))


@pytest.mark.parametrize("raised, rule", [
    ({"plan": NEXT}, rf"needs a plan written by engine >= {NEXT} \(min_plan_version\), but it "
                     rf"was written by engine {NOW}. Migrate: recompile"),
    ({"state": NEXT}, rf"rule 'min_state_version': node 2: node type 'stream-exec-calc_1' needs a "
                      rf"checkpoint written by engine >= {NEXT} \(min_state_version\), but it was "
                      rf"written by engine {NOW}. Migrate: drain the query")])
def test_a_raised_min_version_on_a_registered_version_fails_its_fixtures(snapshots, monkeypatch,
                                                                         raised, rule):
    import streamplan.nodes.metadata as metadata
    import streamplan.version as version

    for module in (version, metadata):        # the next release, which drops support for NOW
        monkeypatch.setattr(module, "ENGINE_VERSION", NEXT)
    registry = registry_with(raised_min_versions(**raised))
    with pytest.raises(FixtureError, match=rule):
        restore_fixture(calc_fixture(snapshots), PROGRAMS, registry)
    if "plan" in raised:
        findings = check_version_rules(PROGRAMS, snapshots, registry, compile=False)
        # every fixture whose plan holds a calc node (the joins project after the join)
        assert {f.subject for f in findings} == calc_fixtures(snapshots)
        assert all("(min_plan_version)" in f.message for f in findings)


def test_a_behaviour_change_under_the_same_version_fails_the_restore_with_a_diff(spark, snapshots):
    registry = registry_with(LowerCaseCalc)
    assert check_version_rules(PROGRAMS, snapshots, registry, compile=False) == []   # same shape
    with pytest.raises(ExpectationMismatch) as caught:
        restore_fixture(calc_fixture(snapshots), PROGRAMS, registry, spark=spark)
    assert str(caught.value).startswith("program calc-tiny, after restore: the sink output differs")
    assert caught.value.diff.splitlines()[-2:] == ["- +I[2, B]", "+ +I[2, b]"]


# --- the gate: pytest over restore_tests/, exactly what ./run.sh test and ci/gate run ------------

def junit_cases(path):
    return {case.get("name"): case for case in ET.parse(path).getroot().iter("testcase")}


def test_the_gate_passes_on_clean_fixtures_in_two_shards_that_merge_into_the_whole(
        snapshots, tmp_path, capsys):
    """The gate of the proof fixtures, run as two shards (each check once, half the runs each;
    the unsharded gate runs in this suite as restore_tests): the shards partition it and their
    reports merge into the whole gate's report and verdict."""
    from harness.report_merge import merge_reports

    shards = [tmp_path / f"shard{k}.xml" for k in (1, 2)]
    for k, shard in enumerate(shards, 1):
        assert run_gate(snapshots, shard, programs=GATE_PROGRAMS, shard=f"{k}/2") == 0
        assert f"gate PASSED (shard {k}/2): " in capsys.readouterr().out
    one, two = (set(junit_cases(shard)) for shard in shards)
    assert one and two and not one & two
    assert "test_audit_programs_load" in one
    summary = merge_reports(tmp_path / "merged.xml", tmp_path / "merged.html", shards)
    cases = junit_cases(tmp_path / "merged.xml")
    assert set(cases) == one | two
    older = {"join_1/join-tiny", "interval-join_1/interval-join-tiny",
             "changelog-normalize_1/changelog-normalize-tiny",
             "group-aggregate_1/group-aggregate-tiny"}
    expected = ({f"test_audit[{check}]" for check in CHECKS} | {"test_audit_programs_load"}
                | {f"test_restore[{f.id}]" for f in scan_snapshots(snapshots)[0]}
                | {f"test_migration[{fixture}]" for fixture in older}
                | {f"test_semantic[{p.id}]" for p in PROGRAMS})
    # the audit checks and the programs' loading, one fixture per program at its latest
    # version + version 1 of join, interval join, changelog normalize and group aggregate, the
    # older fixtures through migration, one semantic run per program
    assert set(cases) == expected
    assert len(expected) == ((len(CHECKS) + 1) + (len(PROGRAMS) + len(older)) + len(older)
                             + len(PROGRAMS))
    assert not [name for name, case in cases.items() if case.find("failure") is not None]
    # the audit's count: its checks and the programs' loading
    fixtures, programs, checks = len(PROGRAMS) + len(older), len(PROGRAMS), len(CHECKS) + 1
    assert summary == (f"gate PASSED: audit {checks}/{checks} checks passed, restore "
                       f"{fixtures}/{fixtures} fixtures restored, migration "
                       f"{len(older)}/{len(older)} older fixtures migrated, semantic "
                       f"{programs}/{programs} programs passed")
    assert (tmp_path / "merged.html").read_text().count('class="verdict-PASSED"') == 1


def test_a_failing_gate_carries_the_failure_into_junit_and_the_summary(snapshots, tmp_path, capsys,
                                                                       monkeypatch):
    # A programs package whose calc program now expects other after-restore rows.
    package = tmp_path / "changed_programs"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for module in ("group_aggregate", "interval_join", "join", "sink", "table_source_scan",
                   "watermark_assigner"):
        (package / f"{module}.py").write_text(f"from programs.{module} import TINY\n"
                                              f"PROGRAMS = [TINY]\n")
    (package / "calc.py").write_text("from programs.calc import calc_program\n"
                                     "PROGRAMS = [calc_program(after_expected='+I[2, b]')]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    junit = tmp_path / "gate.xml"
    assert run_gate(snapshots, junit, programs="changed_programs",
                    extra=["-k", "test_restore and calc"]) == 1
    (case,) = junit_cases(junit).values()
    failure = case.find("failure")
    assert case.get("name") == "test_restore[calc_1/calc-tiny]"
    assert failure.get("message").startswith(
        "Failed: program calc-tiny, after restore: the sink output differs from the expectation")
    assert failure.text.splitlines()[-2:] == ["- +I[2, b]", "+ +I[2, B]"]
    out = capsys.readouterr().out
    assert "gate FAILED: restore 0/1 fixtures restored" in out
    assert ("✗ restore calc_1/calc-tiny: program calc-tiny, after restore: the sink output differs "
            "from the expectation (- expected, + actual):") in out


def test_the_gate_fails_on_audit_findings(tmp_path, capsys):
    junit = tmp_path / "gate.xml"
    assert run_gate(tmp_path / "empty", junit, programs=GATE_PROGRAMS, extra=["-k", "audit"]) == 1
    cases = junit_cases(junit)
    assert cases["test_audit[annotations]"].find("failure") is None
    failure = cases["test_audit[restore-completeness]"].find("failure")
    assert "no fixture under snapshots/calc_1/" in failure.text
    # one check of the audit's (its checks and the programs' loading) fails
    assert f"gate FAILED: audit {len(CHECKS)}/{len(CHECKS) + 1} checks passed" in \
        capsys.readouterr().out


# --- consumed options are enforced, not trusted ---------------------------------------------------

def test_a_node_reading_an_undeclared_option_fails_at_compile_time(spark, monkeypatch):
    from harness.runner import compile_program
    from harness.errors import ProgramError

    meta = TtlReadingJoin._exec_node_metadata[0]
    monkeypatch.setitem(REGISTRY.by_type, meta.type_id, (TtlReadingJoin, meta))
    with pytest.raises(ProgramError, match=r"program interval-join-tiny: node 5 "
                                           r"\(stream-exec-interval-join_2\) reads option "
                                           r"'table.exec.state.ttl', which it does not declare.*"
                                           r"Add 'table.exec.state.ttl' to consumed_options"):
        compile_program(JOIN_PROGRAM, spark)


def test_a_node_reading_an_undeclared_option_fails_at_translate_time(snapshots):
    from streamplan.errors import UndeclaredOptionError
    from streamplan.nodes.base import TranslateContext
    from streamplan.options import Configuration
    from streamplan.plan import load_plan

    plan = load_plan(join_fixture(snapshots).plan_path, registry_with(TtlReadingJoin))
    (join,) = [node for node in plan.nodes if isinstance(node, TtlReadingJoin)]
    ctx = TranslateContext(spark=None, config=Configuration(), plan=plan)
    with pytest.raises(UndeclaredOptionError, match=r"node 5 \(stream-exec-interval-join_1\) reads "
                                                    r"option 'table.exec.state.ttl'"):
        ctx.options(join)
    # what it declares comes from the plan, never from the session
    session = Configuration()
    session.set("table.exec.interval-join.min-cleanup-interval", "9 s")
    ctx = TranslateContext(spark=None, config=session, plan=plan)
    assert StreamExecIntervalJoin.read_options(join, join.options_view(session)) == {
        "min_cleanup_interval_ms": 1000}


def test_a_declared_option_no_code_path_reads_is_reported(snapshots):
    registry = registry_with(TtlDeclaringCalc)
    findings = check_consumed_options(PROGRAMS, registry, snapshots)
    unread = [f for f in findings if "no code path" in f.message]
    assert [(f.subject, f.message.split(" in consumed_options")[0]) for f in unread] == [
        ("stream-exec-calc_1", "declares option 'table.exec.state.ttl'")]
    assert check_consumed_options(PROGRAMS, REGISTRY, snapshots) == []


def test_the_harness_imports_only_the_public_testing_surface_of_streamplan():
    import ast
    from pathlib import Path

    import harness

    offenders = []
    for path in sorted(Path(harness.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            offenders += [f"{path.name}: {name}" for name in names
                          if name.startswith("streamplan") and name != "streamplan.testing"]
    assert offenders == []


# --- recorded migration outcomes ----------------------------------------------------------------

def test_the_gate_expects_what_was_recorded_not_what_the_annotations_say(snapshots, spark):
    """Generating join_2's fixtures recorded that join_1/join-tiny migrates. Raising version
    2's min_state_version by mistake would make the annotations expect a refusal "as
    designed"; the gate holds the version to its recorded promise instead."""
    from harness.migration_ledger import LEDGER, read_ledger

    assert read_ledger(snapshots)["join_1/join-tiny"] == {"stream-exec-join_2": "migrates"}
    (fixture,) = [f for f in scan_snapshots(snapshots)[0] if f.id == "join_1/join-tiny"]

    @exec_node(name="stream-exec-join", version=1, min_plan_version="0.1",
               min_state_version="0.1", consumed_options=(options.STATE_TTL.key,))
    @exec_node(name="stream-exec-join", version=2, min_plan_version="0.2",
               min_state_version="0.3")
    class JoinClaimingABreak(StreamExecJoin):
        pass

    with pytest.raises(FixtureError, match=r"join_1/join-tiny: migrating it to stream-exec-join_2 "
                                           r"was recorded to 'migrates'.*today's annotations say "
                                           r"'refused'"):
        restore_migrated(fixture, PROGRAMS, registry_with(JoinClaimingABreak), spark=spark)
    (snapshots / LEDGER).unlink()
    with pytest.raises(FixtureError, match="no outcome of migrating it to stream-exec-join_2 is "
                                           "recorded"):
        restore_migrated(fixture, PROGRAMS, spark=spark)
