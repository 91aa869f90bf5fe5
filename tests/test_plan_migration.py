"""Plan migration (FLIP-190): `COMPILE PLAN 'new.json' FROM 'old.json'`, `streamplan migrate`
and the life of a node version (introduce, evolve, drop, migrate) on a test node. No Spark:
migration reads and writes plan JSON only."""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Optional

import pytest
from pydantic import model_validator
from typer.testing import CliRunner

from harness_support import registry_with
from streamplan.api import TableEnvironment
from streamplan.cli import app
from streamplan.errors import PlanningError, PlanVersionError, RegistryError
from streamplan.migration import migrate_plan_file, migrate_plan_text, state_readable
from streamplan.nodes.calc import StreamExecCalc
from streamplan.nodes.metadata import Registry, exec_node, plan_migration
from streamplan.plan import load_plan, parse_plan
from streamplan.version import ENGINE_VERSION

SNAPSHOTS = Path(__file__).resolve().parents[1] / "snapshots"
JOIN_1 = sorted(SNAPSHOTS.glob("join_1/*/plan/*.json"))
EARLY_FIRE_1 = SNAPSHOTS / "interval-join_1/interval-join-early-fire/plan/interval-join-early-fire.json"
CALC_1 = SNAPSHOTS / "calc_1/calc-projection-filter/plan/calc-projection-filter.json"


def node_of(plan_json: dict, prefix: str) -> dict:
    (node,) = [node for node in plan_json["nodes"] if node["type"].startswith(prefix)]
    return node


# --- the regular join: version 1 -> 2 ------------------------------------------------------------

@pytest.mark.parametrize("old", JOIN_1, ids=lambda path: path.parent.parent.name)
def test_a_join_1_plan_migrates_to_what_version_2_compiles(old):
    """The migration fills `state` from the persisted table.exec.state.ttl, so the migrated
    plan is the join_2 fixture's plan of the same program, but for the engine version."""
    migrated = migrate_plan_file(old)
    counterpart = SNAPSHOTS / "join_2" / old.parent.parent.name / "plan" / old.name
    expected = json.loads(counterpart.read_text())
    actual = json.loads(migrated.plan.to_json_text())
    assert actual["engineVersion"] == ENGINE_VERSION
    assert {**actual, "engineVersion": expected["engineVersion"]} == expected
    (node,) = migrated.nodes
    assert (node.from_type, node.to_type) == ("stream-exec-join_1", "stream-exec-join_2")


def test_the_persisted_ttl_becomes_both_inputs_state_entries():
    old = SNAPSHOTS / "join_1/join-state-ttl-option/plan/join-state-ttl-option.json"
    assert node_of(json.loads(old.read_text()), "stream-exec-join")["configuration"] == {
        "table.exec.state.ttl": "86400000 ms"}
    node = node_of(migrate_plan_file(old).plan.to_json(), "stream-exec-join")
    assert node["configuration"] == {}
    assert node["state"] == [{"index": 0, "ttl": "86400000 ms", "name": "leftState"},
                             {"index": 1, "ttl": "86400000 ms", "name": "rightState"}]


def test_migration_reports_each_changed_node_by_json_path_and_leaves_the_rest_as_written():
    old = JOIN_1[0]
    result = migrate_plan_file(old)
    text = result.describe()
    assert "node 3: stream-exec-join_1 -> stream-exec-join_2" in text
    assert "step 1 -> 2: the persisted table.exec.state.ttl becomes both inputs' `state` TTL" in text
    assert 'configuration.table.exec.state.ttl: removed (was "0 ms")' in text
    assert 'type: "stream-exec-join_1" → "stream-exec-join_2"' in text
    before = {node["id"]: node for node in json.loads(old.read_text())["nodes"]}
    after = {node["id"]: node for node in result.plan.to_json()["nodes"]}
    untouched = [node_id for node_id, node in before.items() if node_id != 3]
    assert untouched and all(after[node_id] == before[node_id] for node_id in untouched)


def test_a_plan_at_the_latest_versions_only_gets_the_engine_version():
    latest = SNAPSHOTS / "join_2/join-inner/plan/join-inner.json"
    result = migrate_plan_file(latest)
    assert not result.changed
    assert result.plan.engine_version == ENGINE_VERSION


def test_a_state_breaking_bump_is_refused_naming_node_versions_and_what_to_do():
    with pytest.raises(PlanVersionError) as caught:
        migrate_plan_file(EARLY_FIRE_1)
    message = str(caught.value)
    assert "node 5 ('stream-exec-interval-join_1'): cannot migrate to stream-exec-interval-join_2" in message
    assert ("its min_state_version is 0.3, above stream-exec-interval-join_1's 0.1, so it cannot "
            "read the state stream-exec-interval-join_1 wrote") in message
    assert "Keep restoring with the plan as it is (version 1 is still supported)" in message
    assert "drain the query, recompile it from its SQL" in message


def test_state_compatibility_comes_from_the_annotations_not_from_the_engine():
    """Version 2 of the join keeps version 1's min_state_version (0.1): it reads its state.
    Version 2 of the interval join raised it to 0.3: it reads no version 1 state, whichever
    engine wrote the plan (a 0.3 engine running a version 1 plan still writes version 1 state)."""
    assert state_readable("stream-exec-join", 1, "0.1")
    assert not state_readable("stream-exec-interval-join", 1, "0.3")
    raised = json.loads(EARLY_FIRE_1.read_text())
    raised["engineVersion"] = "0.3"
    with pytest.raises(PlanVersionError, match="a state-breaking version change"):
        migrate_plan_text(json.dumps(raised), "plan.json")


def test_migration_logs_what_it_did_per_node(caplog):
    with caplog.at_level(logging.INFO, logger="streamplan.migration"):
        migrate_plan_file(JOIN_1[0])
    assert any("node 3 read as stream-exec-join_1, migrated (1 -> 2: the persisted" in record.message
               and "executes as stream-exec-join_2" in record.message for record in caplog.records)


# --- the statement, the Python API and the command line -----------------------------------------

def test_compile_plan_from_writes_the_migrated_plan_and_honours_if_not_exists(tmp_path):
    old = tmp_path / "old.json"
    old.write_bytes(JOIN_1[0].read_bytes())
    env = TableEnvironment(base_dir=tmp_path)
    (result,) = env.execute_sql("COMPILE PLAN 'new.json' FROM 'old.json'")
    assert result.kind == "migrated" and "stream-exec-join_1 -> stream-exec-join_2" in result.detail
    written = (tmp_path / "new.json").read_bytes()
    assert written == migrate_plan_file(old).plan.to_json_text().encode()
    assert load_plan(tmp_path / "new.json").engine_version == ENGINE_VERSION
    (skipped,) = env.execute_sql("COMPILE PLAN 'new.json' IF NOT EXISTS FROM 'old.json'")
    assert skipped.kind == "skipped"
    with pytest.raises(PlanningError, match=r"<script>:1:1: plan file .*new.json already exists; "
                                            r"delete it or write COMPILE PLAN '...' IF NOT EXISTS "
                                            r"FROM '...'"):
        env.execute_sql("COMPILE PLAN 'new.json' FROM 'old.json'")
    assert (tmp_path / "new.json").read_bytes() == written


def test_the_cli_shows_a_dry_run_and_writes_with_output(tmp_path):
    runner = CliRunner()
    target = tmp_path / "new.json"
    dry = runner.invoke(app, ["migrate", str(JOIN_1[0]), "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "state: added" in dry.output and "dry run: nothing written" in dry.output
    written = runner.invoke(app, ["migrate", str(JOIN_1[0]), "-o", str(target)])
    assert written.exit_code == 0, written.output
    assert parse_plan(target.read_text()).nodes
    again = runner.invoke(app, ["migrate", str(JOIN_1[0]), "-o", str(target)])
    assert again.exit_code == 1 and "already exists" in again.output
    refused = runner.invoke(app, ["migrate", str(EARLY_FIRE_1), "-o", str(tmp_path / "x.json")])
    assert refused.exit_code == 1 and "cannot migrate to stream-exec-interval-join_2" in refused.output
    assert not (tmp_path / "x.json").exists()
    neither = runner.invoke(app, ["migrate", str(JOIN_1[0])])
    assert neither.exit_code == 2 and "--dry-run" in neither.output


# --- the life of a version, on a test node (a calc in a temp registry) --------------------------

V1 = exec_node(name="stream-exec-calc", version=1, min_plan_version="0.1", min_state_version="0.1")
V2 = exec_node(name="stream-exec-calc", version=2, min_plan_version="0.3", min_state_version="0.1")
V3 = exec_node(name="stream-exec-calc", version=3, min_plan_version="0.3", min_state_version="0.1")


class NullHandling(StreamExecCalc):
    """Versions 2 and 3 of the test node carry a required field version 1 did not have."""

    null_handling: Optional[str] = None

    @model_validator(mode="after")
    def _required_from_version_2(self) -> "NullHandling":
        if self.version >= 2 and self.null_handling is None:
            raise ValueError("versions 2 and up need 'nullHandling'")
        return self


def with_migration(cls):
    @plan_migration(from_version=1)
    def _null_handling(node: dict) -> dict:
        """adds nullHandling, PROPAGATE: what version 1 did"""
        return {**node, "nullHandling": "PROPAGATE"}

    cls._null_handling = _null_handling
    return cls


def calc_registry(*annotations, migrate: bool, name: str) -> Registry:
    cls = type(name, (NullHandling,), {"__module__": __name__})
    if migrate:
        cls = with_migration(cls)
    for annotation in reversed(annotations):
        cls = annotation(cls)
    return registry_with(cls)


def test_the_life_of_a_version_introduce_evolve_drop_migrate():
    plan_1 = CALC_1.read_text()
    # introduced: version 1 only
    introduced = calc_registry(V1, migrate=False, name="Introduced")
    assert parse_plan(plan_1, registry=introduced).nodes
    # evolved: version 2 beside 1, with a migration; old plans still load as they are
    evolved = calc_registry(V2, V1, migrate=True, name="Evolved")
    assert [n.type for n in parse_plan(plan_1, registry=evolved).nodes if "calc" in n.type] == [
        "stream-exec-calc_1"]
    migrated = migrate_plan_text(plan_1, "plan.json", evolved)
    assert node_of(migrated.plan.to_json(), "stream-exec-calc")["nullHandling"] == "PROPAGATE"
    # dropped: version 1's annotation is gone, its migration stays
    dropped = calc_registry(V2, migrate=True, name="Dropped")
    with pytest.raises(PlanVersionError, match=r"version 1 of 'stream-exec-calc' is no longer "
                                               r"supported .* Migrate the plan and restore with "
                                               r"the migrated one: COMPILE PLAN 'new.json' FROM "
                                               r"'old.json' \(or `streamplan migrate old.json -o "
                                               r"new.json`\)"):
        parse_plan(plan_1, registry=dropped)
    assert migrate_plan_text(plan_1, "plan.json", dropped).plan.to_json() == migrated.plan.to_json()
    # a longer step: versions 1 and 2 dropped, 2 -> 3 keeps the JSON as it is
    chained = migrate_plan_text(plan_1, "plan.json", calc_registry(V3, migrate=True, name="Chained"))
    (node,) = chained.nodes
    assert node.steps == ("1 -> 2: adds nullHandling, PROPAGATE: what version 1 did",
                          "2 -> 3: no migration declared; the JSON is kept as is")
    assert node.to_type == "stream-exec-calc_3"


def test_dropping_a_changed_version_without_a_migration_names_the_missing_step():
    stuck = calc_registry(V2, migrate=False, name="Stuck")
    with pytest.raises(PlanVersionError) as caught:
        migrate_plan_text(CALC_1.read_text(), "plan.json", stuck)
    message = str(caught.value)
    assert "the migrated node does not load as stream-exec-calc_2" in message
    assert "versions 2 and up need 'nullHandling'" in message
    assert ("No migration is declared for version step(s) 1 -> 2 of stream-exec-calc; declare one "
            "on Stuck with @plan_migration(from_version=N).") in message


def test_a_migration_must_lead_to_a_registered_version():
    cls = with_migration(type("Ahead", (NullHandling,), {"__module__": __name__}))
    with pytest.raises(RegistryError, match=r"Ahead: @plan_migration\(from_version=1\) of "
                                            r"stream-exec-calc leads to version 2, but the "
                                            r"registered versions end at 1"):
        Registry().register(V1(cls))
