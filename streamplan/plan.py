"""The compiled plan: JSON of versioned exec nodes and the edges between them.

Writing is byte-stable (fixed key order, canonical values). Loading validates the JSON,
every node's type and version against the registry, and every node's fields.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .errors import PlanFormatError
from .json_input import parse_json
from .nodes import REGISTRY, ExecNode
from .nodes.base import validation_problems
from .nodes.metadata import Registry, check_plan_version
from .runtime.rows import brief_repr
from .version import ENGINE_VERSION, SPARK_VERSION, is_version

_TOP_KEYS = ("engineVersion", "sparkVersion", "nodes", "edges")
_EDGE_KEYS = ("source", "target", "shuffle", "shuffleMode")


@dataclass(frozen=True)
class Edge:
    source: int
    target: int

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "target": self.target,
                "shuffle": {"type": "FORWARD"}, "shuffleMode": "PIPELINED"}


@dataclass
class CompiledPlan:
    nodes: list[ExecNode]
    edges: list[Edge]
    engine_version: str = ENGINE_VERSION
    spark_version: str = SPARK_VERSION
    _by_id: dict[int, ExecNode] = field(default_factory=dict, repr=False)
    # Adjacency by node id, built once: graph walks stay linear in nodes + edges.
    _inputs: dict[int, list[int]] = field(default_factory=dict, repr=False)
    _consumers: dict[int, list[int]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {node.id: node for node in self.nodes}
        for edge in self.edges:
            self._inputs.setdefault(edge.target, []).append(edge.source)
            self._consumers.setdefault(edge.source, []).append(edge.target)

    def node(self, node_id: int) -> ExecNode:
        return self._by_id[node_id]

    def inputs_of(self, node: ExecNode) -> list[ExecNode]:
        """Inputs in edge order: for a join, left then right."""
        return [self._by_id[source] for source in self._inputs.get(node.id, ())]

    def consumers_of(self, node: ExecNode) -> list[ExecNode]:
        return [self._by_id[target] for target in self._consumers.get(node.id, ())]

    @property
    def sinks(self) -> list[ExecNode]:
        return [node for node in self.nodes if not self.consumers_of(node)]

    def to_json(self) -> dict[str, Any]:
        return {"engineVersion": self.engine_version, "sparkVersion": self.spark_version,
                "nodes": [node.to_json() for node in self.nodes],
                "edges": [edge.to_json() for edge in self.edges]}

    def to_json_text(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

    def write(self, path: str | Path) -> None:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(self.to_json_text(), encoding="utf-8")
        tmp.replace(target)


def load_plan(path: str | Path, registry: Registry = REGISTRY) -> CompiledPlan:
    """Load and validate a plan file against `registry` (today's node classes by default)."""
    return parse_plan(read_plan_text(path), str(path), registry)


def read_plan_text(path: str | Path) -> str:
    source = Path(path)
    try:
        return source.read_text(encoding="utf-8")
    except OSError as err:
        raise PlanFormatError(f"{source}: cannot read plan: {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise PlanFormatError(f"{source}: not UTF-8 text (byte {err.start}); a plan is JSON "
                              f"text") from None


def parse_plan(text: str, where: str = "<plan>", registry: Registry = REGISTRY) -> CompiledPlan:
    """The first problem is raised; `load_plan_nodes` collects every problem instead."""
    raw = parse_plan_document(text, where)
    loaded, problems = load_plan_nodes(raw, where, registry)
    if problems:
        raise problems[0]
    return build_plan(raw, [node for _, node in loaded], where)


def parse_plan_document(text: str, where: str = "<plan>") -> dict[str, Any]:
    """The plan's JSON object with its top-level fields checked (nodes are not loaded yet)."""
    raw = parse_json(text, where, PlanFormatError)
    if not isinstance(raw, dict):
        raise PlanFormatError(f"{where}: a plan is a JSON object with keys {', '.join(_TOP_KEYS)}")
    missing = [key for key in _TOP_KEYS if key not in raw]
    if missing:
        raise PlanFormatError(f"{where}: missing top-level field(s): {', '.join(missing)}")
    unknown = sorted(set(raw) - set(_TOP_KEYS))
    if unknown:
        raise PlanFormatError(f"{where}: unknown top-level field(s): {', '.join(unknown)}")
    for key in ("nodes", "edges"):
        if not isinstance(raw[key], list):
            raise PlanFormatError(f"{where}: '{key}' must be a JSON list, not "
                                  f"{type(raw[key]).__name__}")
    for key in ("engineVersion", "sparkVersion"):
        if not is_version(raw[key]):
            raise PlanFormatError(f"{where}: '{key}' is a version string like \"0.3\" or "
                                  f"\"4.3.0\", not {json.dumps(raw[key])[:40]}")
    return raw


def load_plan_nodes(raw: dict[str, Any], where: str, registry: Registry = REGISTRY
                    ) -> tuple[list[tuple[dict, ExecNode]], list[PlanFormatError]]:
    """Every node through today's class of its type, collecting every problem: the
    (node JSON, loaded node) pairs that loaded, and one error per node that did not."""
    engine_version = str(raw["engineVersion"])
    loaded, problems = [], []
    for index, item in enumerate(raw["nodes"]):
        try:
            loaded.append((item, _load_node(item, index, engine_version, where, registry)))
        except PlanFormatError as err:
            problems.append(err)
    return loaded, problems


def build_plan(raw: dict[str, Any], nodes: list[ExecNode], where: str) -> CompiledPlan:
    """The plan of loaded nodes and the document's edges, its graph checked."""
    edges = [_load_edge(item, index, where) for index, item in enumerate(raw["edges"])]
    plan = CompiledPlan(nodes, edges, raw["engineVersion"], raw["sparkVersion"])
    _check_graph(plan, where)
    _check_field_indexes(plan, where)
    return plan


def _load_node(item: Any, index: int, engine_version: str, where: str,
               registry: Registry) -> ExecNode:
    if not isinstance(item, dict) or "type" not in item or "id" not in item:
        raise PlanFormatError(f"{where}: nodes[{index}] needs at least 'id' and 'type'")
    label = f"{where}: node {item['id']} ('{item['type']}')"
    cls, meta = registry.resolve(str(item["type"]), where=f"{where}: node {item['id']}")
    check_plan_version(meta, engine_version, label)
    try:
        return cls.model_validate(item, strict=True)      # JSON types as written, no coercion
    except ValidationError as err:
        raise PlanFormatError(f"{label}: today's {cls.__name__} cannot read it: "
                              f"{validation_problems(err)}") from None


def _load_edge(item: Any, index: int, where: str) -> Edge:
    if not isinstance(item, dict) or not {"source", "target"} <= set(item):
        raise PlanFormatError(f"{where}: edges[{index}] needs 'source' and 'target'")
    unknown = sorted(set(item) - set(_EDGE_KEYS))
    if unknown:
        raise PlanFormatError(f"{where}: edges[{index}]: unknown field(s) "
                              f"{', '.join(map(repr, unknown))}; an edge has "
                              f"{', '.join(_EDGE_KEYS)}")
    ends = (item["source"], item["target"])
    if not all(isinstance(end, int) and not isinstance(end, bool) for end in ends):
        raise PlanFormatError(f"{where}: edges[{index}]: 'source' and 'target' are node ids "
                              f"(integers), got {brief_repr(ends[0])} and {brief_repr(ends[1])}")
    shuffle = item.get("shuffle", {"type": "FORWARD"})
    if not (isinstance(shuffle, dict) and set(shuffle) == {"type"}
            and isinstance(shuffle["type"], str)):
        raise PlanFormatError(f"{where}: edges[{index}]: 'shuffle' is an object like "
                              f'{{"type": "FORWARD"}}, got {brief_repr(shuffle)}')
    if not isinstance(item.get("shuffleMode", ""), str):
        raise PlanFormatError(f"{where}: edges[{index}]: 'shuffleMode' is a string like "
                              f"\"PIPELINED\", got {brief_repr(item['shuffleMode'])}")
    return Edge(*ends)


def _check_graph(plan: CompiledPlan, where: str) -> None:
    ids = [node.id for node in plan.nodes]
    if len(ids) != len(set(ids)):
        twice = sorted(node_id for node_id, count in Counter(ids).items() if count > 1)
        raise PlanFormatError(f"{where}: node id(s) {', '.join(map(str, twice[:5]))} used more "
                              f"than once; every node needs its own id")
    position = {node_id: index for index, node_id in enumerate(ids)}
    for edge in plan.edges:
        for end in (edge.source, edge.target):
            if end not in position:
                raise PlanFormatError(f"{where}: edge {edge.source} -> {edge.target} names unknown node {end}")
        if position[edge.source] >= position[edge.target]:
            raise PlanFormatError(f"{where}: edge {edge.source} -> {edge.target} goes backwards; "
                                  f"nodes must be listed inputs first")
    for node in plan.nodes:
        expected = type(node).arity
        actual = len(plan.inputs_of(node))
        if actual != expected and not (type(node).variadic and actual > expected):
            raise PlanFormatError(f"{where}: node {node.id} ('{node.type}') has {actual} input(s), "
                                  f"expects {expected}{' or more' if type(node).variadic else ''}")


def _check_field_indexes(plan: CompiledPlan, where: str) -> None:
    """Every field index a node holds points into the input it indexes."""
    for node in plan.nodes:
        inputs = plan.inputs_of(node)
        for path, side, indexes in node.input_field_indexes():
            width = len(inputs[side].row_type.fields)
            bad = [index for index in indexes if index >= width]
            if bad:
                raise PlanFormatError(
                    f"{where}: node {node.id} ('{node.type}'): field '{path}': index {bad[0]} is "
                    f"out of range; its input node {inputs[side].id} has {width} field(s)")
