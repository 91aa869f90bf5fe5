"""The version rules, checked per fixture: a node version's plan JSON and state layout must
stay what its fixtures hold. A difference means the version should have been bumped.

1. the fixture's plan loads with today's classes (registry), annotations allowing it;
2. today's compiled JSON of each node has the fixture node's shape (keys, value kinds);
3. today's `state_layout` of each stateful node equals the one the manifest recorded, and
   the state variables in the checkpoint are the ones the node declares.
"""
from __future__ import annotations

from typing import Optional

from pydantic import ValidationError

from streamplan.testing import (REGISTRY, CheckpointError, CompiledPlan, ExecNode, PlanFormatError,
                                Registry, StreamPlanError, build_plan, check_restorable,
                                describe_changes, load_plan_nodes, parse_plan_document,
                                read_plan_text)

from .portable_checkpoint import state_variables
from .discovery import short_name
from .errors import Finding, FixtureError
from .fixtures import Fixture, Manifest
from .migration_gate import MigrationCase, migrate_fixture_plan, migration_case
from .plan_shape import describe, shape_changes

CHECK = "version-rules"
_SPARK_STATE_TYPES = {"map": "MapState", "value": "ValueState", "list": "ListState"}


def bump_remedy(node_type: str, registry: Registry = REGISTRY) -> str:
    name, _, version = node_type.rpartition("_")
    try:
        next_version = registry.latest(name).version + 1
    except StreamPlanError:
        next_version = int(version) + 1
    return (f"A new version with new fixtures is needed: bump the version of {name} "
            f"(add @exec_node(name='{name}', version={next_version}, ...) and keep version "
            f"{version} restoring what its fixtures hold), then generate fixtures for the new "
            f"version with `harness generate --node {short_name(name)}`.")


def read_plan_json(fixture: Fixture) -> dict:
    """The fixture's plan document (top level checked, nodes not loaded yet)."""
    try:
        return parse_plan_document(read_plan_text(fixture.plan_path), f"fixture {fixture.id}")
    except PlanFormatError as err:
        raise FixtureError(f"fixture {fixture.id}: its plan cannot be read: {err}") from None


def load_nodes(raw: dict, registry: Registry, where: str) -> tuple[list[tuple[dict, ExecNode]], list[str]]:
    """Rule 1: each node through today's class of its type (every problem, not the first)."""
    loaded, problems = load_plan_nodes(raw, where, registry)
    return loaded, [str(problem) for problem in problems]


def layout_of(plan: CompiledPlan, node: ExecNode) -> dict[str, dict[str, str]]:
    return node.state_layout([producer.row_type for producer in plan.inputs_of(node)])


def state_layouts(plan: CompiledPlan) -> dict[str, dict]:
    """Stateful nodes by id: their type and `state_layout(input row types)`."""
    layouts = {}
    for node in plan.nodes:
        layout = layout_of(plan, node)
        if layout:
            layouts[str(node.id)] = {"type": node.type, "layout": layout}
    return layouts


# ------------------------------------------------------------------------------------ rules

RULE_REGISTERED = "every fixture belongs to a registered node version"
RULE_PLAN_LOADS = "the plan of a registered version loads (min_plan_version)"
RULE_STATE = "min_state_version"


def registration_problem(fixture: Fixture, registry: Registry) -> Optional[str]:
    """Rule: the fixture's node version is registered (released plans of it exist)."""
    name = f"stream-exec-{fixture.short_name}"
    if f"{name}_{fixture.version}" in registry.by_type:
        return None
    known = sorted(meta.version for meta in registry.all_metadata() if meta.name == name)
    if (name, fixture.version) in registry.migrations:
        return (f"fixture {fixture.id}: rule '{RULE_REGISTERED}': version {fixture.version} of "
                f"{name} was dropped (registered: {', '.join(map(str, known))}), and its plans "
                f"migrate: a checkpoint of it restores only with its plan migrated, COMPILE PLAN "
                f"'new.json' FROM 'old.json' (the gate's migration check restores it that way).")
    if known:
        problem = (f"version {fixture.version} of {name} is not registered (registered: "
                   f"{', '.join(map(str, known))})")
    else:
        problem = f"no exec node '{name}' is registered"
    return (f"fixture {fixture.id}: rule '{RULE_REGISTERED}': {problem}. Remedy: restore the "
            f"@exec_node(name='{name}', version={fixture.version}, ...) annotation, since plans "
            f"and checkpoints of that version exist; delete snapshots/{fixture.short_name}_"
            f"{fixture.version}/ only if that version was never released.")


def checkpoint_problem(fixture: Fixture, nodes: list[ExecNode]) -> Optional[str]:
    """Rule: every node's min_state_version admits the engine that wrote the checkpoint."""
    try:
        check_restorable(nodes, fixture.checkpoint_dir, f"fixture {fixture.id}: rule '{RULE_STATE}'")
    except CheckpointError as err:
        return f"fixture {fixture.id}: {err}; restore the fixture from git"
    except StreamPlanError as err:
        return str(err)
    return None


def admission_problems(fixture: Fixture, manifest: Manifest, registry: Registry) -> list[str]:
    """What keeps a fixture from being restored at all, in the order a restore meets it:
    an unregistered version, a moved fixture, a plan today's classes cannot load, a
    checkpoint older than min_state_version."""
    registered = registration_problem(fixture, registry)
    if registered:
        return [registered]
    type_id = f"stream-exec-{fixture.short_name}_{fixture.version}"
    if manifest.node_type != type_id:
        return [f"fixture {fixture.id}: its manifest says it was generated for "
                f"{manifest.node_type}, not {type_id}; the fixture was moved by hand. Move it "
                f"back under the directory of its version."]
    loaded, problems = load_nodes(read_plan_json(fixture), registry, f"fixture {fixture.id}")
    if problems:
        return [f"fixture {fixture.id}: rule '{RULE_PLAN_LOADS}': " + " ".join(problems)]
    state = checkpoint_problem(fixture, [node for _, node in loaded])
    return [state] if state else []


def _shape_finding(fixture: Fixture, node_type: str, node_id, changes, registry: Registry,
                   today: str, old: dict, new: dict) -> Finding:
    # The rule is decided by the pydantic-guided shape walk (plan_shape): deepdiff knows no
    # model, so it cannot tell an additive Optional field from a breaking one. deepdiff
    # words the whole difference, values included, for the reader.
    return Finding(CHECK, fixture.id, (
        f"{node_type} (node {node_id}): {describe(changes)} in {today} compared with the "
        f"fixture's plan, but the version was not bumped. " + bump_remedy(node_type, registry)
        + f"\n  the node's JSON, fixture → today:{describe_changes(old, new)}"))


def round_trip_findings(fixture: Fixture, loaded: list[tuple[dict, ExecNode]],
                        registry: Registry) -> list[Finding]:
    """Rule 2 without Spark: today's class writes each fixture node back in the old shape
    (catches renamed fields that still load through an alias)."""
    findings = []
    for item, node in loaded:
        changes = shape_changes(item, node.to_json(), type(node))
        if changes:
            findings.append(_shape_finding(fixture, node.type, node.id, changes, registry,
                                           "the JSON today's class writes", item, node.to_json()))
    return findings


def plan_shape_findings(fixture: Fixture, raw: dict, compiled: CompiledPlan,
                        registry: Registry) -> list[Finding]:
    """Rule 2: nodes of the same type, paired in plan order, compared through today's class
    of that type (the registry's, which may differ from the planner's in simulations)."""
    findings = []
    for node_type in sorted({str(item.get("type")) for item in raw["nodes"]}):
        if node_type not in registry.by_type:
            continue        # rule 1 reports it
        old_nodes = [item for item in raw["nodes"] if item.get("type") == node_type]
        new_nodes = [node for node in compiled.nodes if node.type == node_type]
        cls = registry.by_type[node_type][0]
        for old, new in zip(old_nodes, new_nodes):
            try:
                today = cls.model_validate(new.model_dump()).to_json()
            except ValidationError as err:
                findings.append(Finding(CHECK, fixture.id, f"{node_type}: today's {cls.__name__} "
                                        f"cannot take the compiled node: {err.errors()[0]['msg']}"))
                continue
            changes = shape_changes(old, today, cls)
            if changes:
                findings.append(_shape_finding(fixture, node_type, old.get("id"), changes, registry,
                                               "today's compiled plan", old, today))
    return findings


def state_layout_findings(fixture: Fixture, plan: CompiledPlan, manifest: Manifest,
                          registry: Registry) -> list[Finding]:
    """Rule 3: the layout today's classes compute from the fixture's plan vs the recorded one."""
    findings = []
    today = state_layouts(plan)
    recorded = manifest.state_layouts
    for node_id in sorted(set(today) | set(recorded), key=int):
        node_type = (today.get(node_id) or recorded.get(node_id))["type"]
        old = recorded.get(node_id, {}).get("layout", {})
        new = today.get(node_id, {}).get("layout", {})
        changes = _layout_changes(old, new)
        if changes:
            findings.append(Finding(CHECK, fixture.id, (
                f"{node_type} (node {node_id}): state layout changed: {'; '.join(changes)}. The "
                f"fixture's checkpoint holds the old layout and the version was not bumped. "
                + bump_remedy(node_type, registry))))
    return findings


def _layout_changes(old: dict, new: dict) -> list[str]:
    """A layout is {variable: {kind, key, value}}: deepdiff's paths, worded per variable."""
    changes = []
    from deepdiff import DeepDiff      # here: it imports pandas (see streamplan.json_diff)

    tree = DeepDiff(old, new, view="tree")
    for kind, verb in (("dictionary_item_removed", "removed"), ("dictionary_item_added", "added"),
                       ("values_changed", "changed"), ("type_changes", "changed")):
        for level in sorted(tree.get(kind, ()), key=lambda lv: lv.path(output_format="list")):
            path = level.path(output_format="list")
            if len(path) == 1:
                changes.append(f"state variable '{path[0]}' {verb}")
            elif verb == "changed":
                changes.append(f"state variable '{path[0]}' {path[1]} changed from "
                               f"'{level.t1}' to '{level.t2}'")
            else:
                shown = level.t2 if verb == "added" else level.t1
                changes.append(f"state variable '{path[0]}' {path[1]} {verb} ('{shown}')")
    return sorted(changes, key=_change_order)


def _change_order(change: str) -> tuple:
    """Removed before added before changed, then by variable name (stable reports)."""
    rank = 0 if change.endswith(" removed") else 1 if change.endswith(" added") else 2
    return (rank, change)


def checkpoint_state_findings(fixture: Fixture, plan: CompiledPlan) -> list[Finding]:
    """Rule 3, against Spark's own record: the state variables (names and kinds) in the
    checkpoint's operator metadata vs what the plan's stateful nodes declare today."""
    findings = []
    recorded = state_variables(fixture.checkpoint_dir)
    for sink in plan.sinks:
        declared: dict[str, str] = {}
        stateful = []
        for node in _upstream(plan, sink):
            layout = layout_of(plan, node)
            if layout:
                stateful.append(f"{node.type} node {node.id}")
            declared.update({name: _SPARK_STATE_TYPES.get(spec.get("kind", ""), spec.get("kind", ""))
                             for name, spec in layout.items()})
        stored = recorded.get(f"sink-{sink.id}", {})
        if declared != stored:
            findings.append(Finding(CHECK, fixture.id, (
                f"the checkpoint of sink node {sink.id} holds state variables {_names(stored)} "
                f"but today's nodes ({', '.join(sorted(stateful)) or 'none stateful'}) declare "
                f"{_names(declared)}; the state layout changed without a version bump, or the "
                f"fixture was edited. Restore the old layout, or bump the node version and "
                f"generate new fixtures.")))
    return findings


def _names(variables: dict[str, str]) -> str:
    return "{" + ", ".join(f"{name}: {kind}" for name, kind in sorted(variables.items())) + "}"


def _upstream(plan: CompiledPlan, node: ExecNode) -> list[ExecNode]:
    seen, stack = {}, [node]
    while stack:
        current = stack.pop()
        if current.id not in seen:
            seen[current.id] = current
            stack.extend(plan.inputs_of(current))
    return list(seen.values())


def migration_findings(case: MigrationCase, manifest: Manifest,
                       registry: Registry = REGISTRY) -> list[Finding]:
    """Rule 4, for a fixture of an older version whose state the latest version reads (its
    min_state_version says so): the plan migrates, and the migrated plan's state layout is
    the one the checkpoint holds. A bump that changed the plan JSON without declaring a
    migration, or a min_state_version that claims more than the layout keeps, fails here."""
    fixture = case.fixture
    if case.expected != "migrates":
        return []
    try:
        plan = migrate_fixture_plan(case, registry).plan
    except FixtureError as err:
        return [Finding(CHECK, fixture.id, str(err))]
    findings = []
    for finding in state_layout_findings(fixture, plan, manifest, registry):
        findings.append(Finding(CHECK, fixture.id, (
            f"migrated to {case.to_type}: {finding.message.split('. The fixture')[0]}, although "
            f"{case.to_type}'s min_state_version says it reads the state of {case.from_type}. "
            f"Keep the layout, or raise min_state_version of {case.to_type} (then migration is "
            f"refused and users drain instead).")))
    return findings + checkpoint_state_findings(fixture, plan)


def version_rule_findings(fixture: Fixture, manifest: Manifest, registry: Registry = REGISTRY,
                          compiled: Optional[CompiledPlan] = None) -> list[Finding]:
    """All rules for one fixture; rule 2 also compares with a freshly compiled plan when given.
    A fixture of a dropped version is held to rule 4 only: the migrated plan is all users
    of that version have left."""
    case = migration_case(fixture, registry)
    if case is not None and case.dropped:
        return migration_findings(case, manifest, registry)
    try:
        raw = read_plan_json(fixture)
    except FixtureError as err:
        return [Finding(CHECK, fixture.id, str(err))]
    loaded, problems = load_nodes(raw, registry, f"fixture {fixture.id}")
    findings = [Finding(CHECK, fixture.id, (
        f"the fixture's plan no longer loads with today's classes: {problem}. Either the node's "
        f"plan JSON changed incompatibly (then a new version with new fixtures is needed: bump "
        f"the version and keep a class reading the old JSON), or its version was removed "
        f"(restore the annotation)."))
        for problem in problems]
    findings += round_trip_findings(fixture, loaded, registry)
    if compiled is not None:
        findings += plan_shape_findings(fixture, raw, compiled, registry)
    if problems:
        return findings        # layouts need every node
    try:
        plan = build_plan(raw, [node for _, node in loaded], f"fixture {fixture.id}")
    except PlanFormatError as err:
        return findings + [Finding(CHECK, fixture.id, f"the fixture's plan is malformed: {err}")]
    findings += state_layout_findings(fixture, plan, manifest, registry)
    findings += checkpoint_state_findings(fixture, plan)
    state = checkpoint_problem(fixture, plan.nodes)
    if state:
        findings.append(Finding(CHECK, fixture.id, state))
    if case is not None:
        findings += migration_findings(case, manifest, registry)
    return findings
