"""The changelog rule: after a statement is planned, two properties flow through the graph
as in Flink's changelog inference: which nodes' consumers need update-before rows (-U),
which decides whether an aggregate, deduplicate, rank or changelog normalize emits them
(a normalize that only rebuilds -U is then dropped), and each node's changelog kinds,
inferred again and recorded on the sink. `check_changelog` does the same inference for a
loaded plan.
"""
from __future__ import annotations

from ..changelog import RowKind, mode_names
from ..nodes import ExecNode
from ..plan import CompiledPlan, Edge


class ChangelogRules:
    """Update-before inference over the planned graph; a mixin of PlanBuilder (builder.py)."""

    def _generate_update_before_where_needed(self) -> None:
        """Nodes that generate updates (aggregates, deduplicate, rank, changelog normalize)
        emit -U only when a consumer needs it (Flink's UpdateKindTrait): sinks without a
        primary key, or whose key is not the input's unique key, and filters need it;
        aggregates and ranks need it from their inputs, joins unless each updating input's
        unique key holds its join key; projections pass the need on. A
        changelog normalize that only rebuilds -U for an upsert source is dropped when no
        consumer needs -U, as Flink does."""
        consumers: dict[int, list[ExecNode]] = {node.id: [] for node in self.nodes}
        by_id = {node.id: node for node in self.nodes}
        for edge in self.edges:
            consumers[edge.source].append(by_id[edge.target])
        needs: dict[int, bool] = {}
        plan = CompiledPlan(self.nodes, self.edges)

        def needs_update_before(node: ExecNode) -> bool:
            if node.id not in needs:
                needs[node.id] = any(requires(consumer, node) for consumer in consumers[node.id])
            return needs[node.id]

        def requires(consumer: ExecNode, producer: ExecNode) -> bool:
            input_modes = [self.modes[source.id] for source in plan.inputs_of(consumer)]
            return consumer.needs_update_before(self.unique_keys[producer.id],
                                                needs_update_before(consumer), producer.row_type,
                                                input_modes)

        wanted = {node.id: node.generates_update_before(needs_update_before(node), self.config)
                  for node in self.nodes if "generate_update_before" in type(node).model_fields}
        dropped = {node_id for node_id in self.optional_normalizes if not wanted[node_id]}
        self.nodes = [node if node.id not in wanted or node.id in dropped
                      or wanted[node.id] == node.generate_update_before
                      else node.model_copy(update={"generate_update_before": wanted[node.id]})
                      for node in self.nodes]
        for node_id in sorted(dropped, reverse=True):    # later ids first: earlier ones stay
            self._bypass(node_id)
        self._reinfer_changelog()

    def _bypass(self, node_id: int) -> None:
        """Remove a one-input node, connecting its input to its consumers, and number the
        nodes again in order (plans list nodes inputs first, with ids in that order)."""
        (source,) = [edge.source for edge in self.edges if edge.target == node_id]
        edges = [Edge(source if edge.source == node_id else edge.source, edge.target)
                 for edge in self.edges if edge.target != node_id]
        kept = [node for node in self.nodes if node.id != node_id]
        renumber = {node.id: index + 1 for index, node in enumerate(kept)}
        self.nodes = [node.model_copy(update={"id": renumber[node.id]}) for node in kept]
        self.edges = [Edge(renumber[edge.source], renumber[edge.target]) for edge in edges]
        self.unique_keys = {renumber[old]: keys for old, keys in self.unique_keys.items()
                            if old in renumber}
        self.optional_normalizes = {renumber[old] for old in self.optional_normalizes
                                    if old in renumber}

    def _reinfer_changelog(self) -> None:
        plan = CompiledPlan(self.nodes, self.edges)
        for index, node in enumerate(self.nodes):
            inputs = plan.inputs_of(node)
            self.modes[node.id], self.origins[node.id] = infer_node_changelog(
                node, inputs, self.modes, self.origins)
            if "input_changelog_mode" in type(node).model_fields:     # the sink records it
                self.nodes[index] = node.model_copy(update={
                    "input_changelog_mode": mode_names(self.modes[inputs[0].id])})


def infer_node_changelog(node: ExecNode, inputs: list[ExecNode], modes: dict, origins: dict,
                         while_planning: bool = False):
    """A node's output kinds and where each came from; the node rejects what it cannot consume.
    `while_planning`: the statement is still being planned, and a sink (whose input's -U are
    decided only then: _generate_update_before_where_needed) is checked when it is done."""
    input_modes = [modes[source.id] for source in inputs]
    input_origins = [origins[source.id] for source in inputs]
    if not (while_planning and node.CHECKED_AFTER_UPDATE_BEFORE):
        node.check_input_changelog(input_modes, input_origins)
    output = node.output_changelog(input_modes)
    inherited = {kind: origin for per_input in input_origins for kind, origin in per_input.items()}
    return output, {kind: inherited.get(kind, node) for kind in output}


def check_changelog(plan: CompiledPlan) -> dict[int, frozenset[RowKind]]:
    """Re-infer a loaded plan's changelog modes; nodes reject what they cannot consume."""
    modes: dict[int, frozenset[RowKind]] = {}
    origins: dict[int, dict[RowKind, ExecNode]] = {}
    for node in plan.nodes:
        modes[node.id], origins[node.id] = infer_node_changelog(
            node, plan.inputs_of(node), modes, origins)
    return modes
