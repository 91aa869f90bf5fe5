"""Plan migration (FLIP-190): `COMPILE PLAN 'new.json' FROM 'old.json'`.

A plan written by an older engine names node versions that today's engine may have moved
past, or dropped. Migrating rewrites every node that is not at its node's latest version
through the node's declared migrations (`@plan_migration`, version N -> N+1, chained for
longer steps), sets the plan's engine and Spark versions to today's, and validates the
result like any loaded plan. The checkpoint is not touched: it restores with the migrated
plan when the new versions read the old state.

Refused, naming the node and the versions, with what to do instead:
* the latest version cannot read the old version's state (`state_readable`): no plan
  rewrite makes the checkpoint restorable;
* a step without a declared migration whose JSON does not load as the next version;
* a node newer than this engine, or of a node name it does not know.

Each migration says what it did per node on the `streamplan.migration` logger (INFO).
"""
from __future__ import annotations

import copy
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from pydantic import ValidationError

from .errors import PlanFormatError, PlanVersionError, StreamPlanError
from .json_diff import json_changes
from .nodes import REGISTRY
from .nodes.base import validation_problems
from .nodes.metadata import Registry
from .plan import CompiledPlan, parse_plan, parse_plan_document, read_plan_text
from .version import ENGINE_VERSION, SPARK_VERSION, parse_version

log = logging.getLogger("streamplan.migration")


@dataclass(frozen=True)
class NodeMigration:
    """What migration did to one node: the version read, the version written, the steps."""

    node_id: Any
    from_type: str
    to_type: str
    steps: tuple[str, ...]          # one line per version step
    changes: tuple[str, ...]        # the node's JSON differences, by JSON path

    def describe(self) -> str:
        lines = [f"node {self.node_id}: {self.from_type} -> {self.to_type}"]
        lines += [f"  step {step}" for step in self.steps]
        lines += [f"  {change}" for change in self.changes]
        return "\n".join(lines)


@dataclass(frozen=True)
class MigrationResult:
    plan: CompiledPlan
    nodes: tuple[NodeMigration, ...]   # the nodes whose version changed
    from_engine: str                   # engineVersion of the old plan

    @property
    def changed(self) -> bool:
        return bool(self.nodes)

    def describe(self) -> str:
        head = (f"plan of engine {self.from_engine} -> engine {self.plan.engine_version}: "
                f"{len(self.nodes)} node(s) migrated")
        return "\n".join([head, *(node.describe() for node in self.nodes)])


def migrate_plan_file(path: str | Path, registry: Registry = REGISTRY) -> MigrationResult:
    return migrate_plan_text(read_plan_text(path), str(path), registry)


def state_readable(name: str, version: int, plan_engine: str, registry: Registry = REGISTRY) -> bool:
    """Whether the latest version of node `name` reads the state a `version` node wrote.

    `min_state_version` is the oldest release whose checkpoints a version restores, so the
    latest version reads every checkpoint an older one reads exactly when its minimum is not
    above the older one's (a state-breaking bump sets it to the release introducing it). A
    dropped version has no annotation left; then the plan's engine stands in for it, the
    release that chose that version."""
    latest = registry.latest(name)
    older = registry.by_type.get(f"{name}_{version}")
    floor = older[1].min_state_version if older is not None else plan_engine
    return parse_version(latest.min_state_version) <= parse_version(floor)


def migrate_plan_text(text: str, where: str = "<plan>", registry: Registry = REGISTRY
                      ) -> MigrationResult:
    """Migrate a plan document to today's node versions (see the module docstring)."""
    raw = parse_plan_document(text, where)
    engine = raw["engineVersion"]
    if not isinstance(engine, str):
        raise PlanFormatError(f"{where}: engineVersion must be a string like '0.1', not {engine!r}")
    try:
        parse_version(engine)
    except ValueError:
        raise PlanFormatError(f"{where}: engineVersion {engine!r} is not a version like '0.1'") from None
    nodes, migrated = [], []
    for index, item in enumerate(raw["nodes"]):
        new_item, record = _migrate_node(item, index, engine, where, registry)
        nodes.append(new_item)
        if record is not None:
            migrated.append(record)
    document = {**raw, "engineVersion": ENGINE_VERSION, "sparkVersion": SPARK_VERSION,
                "nodes": nodes}
    plan = parse_plan(json.dumps(document), f"{where} (migrated)", registry)
    for record in migrated:
        log.info("%s: node %s read as %s, migrated (%s), executes as %s", where, record.node_id,
                 record.from_type, "; ".join(record.steps), record.to_type)
    return MigrationResult(plan, tuple(migrated), engine)


def _migrate_node(item: Any, index: int, plan_engine: str, where: str, registry: Registry
                  ) -> tuple[Any, Optional[NodeMigration]]:
    if not isinstance(item, dict) or not isinstance(item.get("type"), str) or "id" not in item:
        raise PlanFormatError(f"{where}: nodes[{index}] needs at least 'id' and a string 'type'")
    type_id, node_id = item["type"], item["id"]
    name, _, text = type_id.rpartition("_")
    label = f"{where}: node {node_id} ('{type_id}')"
    if not text.isdigit() or not name:
        raise PlanFormatError(f"{label}: a node type is '<name>_<version>', e.g. "
                              f"'stream-exec-join_2'")
    version = int(text)
    try:
        latest = registry.latest(name)
    except StreamPlanError:
        registry.resolve(type_id, where=f"{where}: node {node_id}")    # raises the known-types error
        raise
    if version == latest.version:
        return item, None
    if version > latest.version:
        raise PlanVersionError(f"{label}: version {version} is newer than engine {ENGINE_VERSION} "
                               f"knows (latest: {latest.type_id}); migrate with that engine or a "
                               f"newer one")
    if not state_readable(name, version, plan_engine, registry):
        still = f"{name}_{version}" in registry.by_type
        floor = registry.by_type[type_id][1].min_state_version if still else plan_engine
        raise PlanVersionError(
            f"{label}: cannot migrate to {latest.type_id}: its min_state_version is "
            f"{latest.min_state_version}, above {type_id}'s {floor}, so it cannot read the "
            f"state {type_id} wrote (a state-breaking version change). A migrated plan would "
            f"not restore the checkpoint. "
            + ("Keep restoring with the plan as it is (version "
               f"{version} is still supported), or " if still else "")
            + "drain the query, recompile it from its SQL (COMPILE PLAN ... FOR ...) and start "
              "from a fresh checkpoint.")
    node = copy.deepcopy(item)
    steps = []
    for step in range(version, latest.version):
        migration = registry.migrations.get((name, step))
        if migration is not None:
            node = migration.function(copy.deepcopy(node))
            if not isinstance(node, dict):
                raise PlanFormatError(f"{label}: the migration from version {step} of {name} "
                                      f"returned {type(node).__name__}, not a node JSON object")
            steps.append(f"{step} -> {step + 1}: {migration.summary}")
        else:
            steps.append(f"{step} -> {step + 1}: no migration declared; the JSON is kept as is")
        node["type"] = f"{name}_{step + 1}"
    cls, _ = registry.by_type[latest.type_id]
    try:
        cls.model_validate(node, strict=True)
    except ValidationError as err:
        problems = validation_problems(err)
        missing = [s.split(":")[0] for s in steps if "no migration declared" in s]
        raise PlanVersionError(
            f"{label}: the migrated node does not load as {latest.type_id} ({problems}). "
            + (f"No migration is declared for version step(s) {', '.join(missing)} of {name}; "
               f"declare one on {cls.__name__} with @plan_migration(from_version=N)."
               if missing else f"The migrations of {name} produce an invalid node; fix them.")
        ) from None
    changes = tuple(json_changes(item, node))
    return node, NodeMigration(node_id, type_id, node["type"], tuple(steps), changes)
