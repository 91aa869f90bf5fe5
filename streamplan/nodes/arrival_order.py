"""Flink's arrival order between keyed nodes within a micro-batch.

A Flink operator emits as each row arrives, so the next keyed operator sees the upstream's
outputs in the order of the rows that caused them, interleaved across keys. A Spark stateful
node runs its micro-batch key by key and hands its outputs on grouped by key. Between two
keyed nodes that run row by row (`KeyedNode.positioned`), joined directly or through calcs,
the upstream one numbers its input rows (their position in the micro-batch, before the
shuffle: runtime/positions.py), emits each row with the position of the input row it emitted
it for, and the downstream one takes each key's rows in that order, as Flink's operator
would. Calcs between them carry the position. Nothing of it is in the plan or the state; a
node whose outputs reach anything else (a sink, a join) passes no positions.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:  # pragma: no cover
    from .base import ExecNode


def _is_calc(node: "ExecNode") -> bool:
    from .calc import StreamExecCalc
    return isinstance(node, StreamExecCalc)


def _positioned(node: "ExecNode", ctx) -> bool:
    from .keyed import KeyedNode
    return isinstance(node, KeyedNode) and node.positioned(ctx)


def _only_positioned_downstream(node: "ExecNode", ctx) -> bool:
    consumers = ctx.plan.consumers_of(node)
    return bool(consumers) and all(
        _positioned(consumer, ctx) or (_is_calc(consumer)
                                       and _only_positioned_downstream(consumer, ctx))
        for consumer in consumers)


def _keyed_upstream(node: "ExecNode", ctx) -> Optional["ExecNode"]:
    """The node's one input, through calcs."""
    producers = ctx.plan.inputs_of(node)
    while len(producers) == 1 and _is_calc(producers[0]):
        producers = ctx.plan.inputs_of(producers[0])
    return producers[0] if len(producers) == 1 else None


def passes_positions(node: "ExecNode", ctx) -> bool:
    """Whether the keyed node emits each row with its input row's position."""
    return (ctx.plan is not None and _positioned(node, ctx)
            and _only_positioned_downstream(node, ctx))


def takes_positions(node: "ExecNode", ctx) -> bool:
    """Whether the keyed node takes each key's rows in the order of their positions."""
    if ctx.plan is None or not _positioned(node, ctx):
        return False
    upstream = _keyed_upstream(node, ctx)
    return upstream is not None and passes_positions(upstream, ctx)


def carries_positions(calc: "ExecNode", ctx) -> bool:
    """Whether the calc hands its input's positions on."""
    if ctx.plan is None:
        return False
    upstream = _keyed_upstream(calc, ctx)
    return upstream is not None and passes_positions(upstream, ctx)


def one_chain_in_arrival_order(plan, config) -> bool:
    """Whether the plan's stateful nodes are keyed nodes one after another, each after the
    first taking its input in Flink's arrival order: then a key's changelog at the last of
    them is Flink's whatever the micro-batches (the harness's batch invariance)."""
    from .base import TranslateContext
    from .keyed import KeyedNode

    stateful = [node for node in plan.nodes if node.state or node.arity == 2]
    ctx = TranslateContext(spark=None, config=config, plan=plan)
    return (all(isinstance(node, KeyedNode) for node in stateful)
            and sum(not takes_positions(node, ctx) for node in stateful) == 1)
