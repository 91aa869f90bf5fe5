"""Mini-batch assigner: where Flink's mini-batches begin (Flink's StreamExecMiniBatchAssigner,
planned after every source when `table.exec.mini-batch.enabled` is on). Flink's
processing-time assigner emits a mini-batch marker every `interval` ms
(`table.exec.mini-batch.allow-latency`), on which the mini-batch operators downstream flush.
On Spark a micro-batch is a mini-batch: the operators downstream flush at its end, so the
node passes its input through; the interval stays in the plan as Flink writes it."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import ExecNode, PlanModel
from .metadata import exec_node


class MiniBatchInterval(PlanModel):
    interval: int = Field(gt=0)          # ms: table.exec.mini-batch.allow-latency
    mode: Literal["ProcTime"]            # Flink's row-time mode is not supported yet


@exec_node(name="stream-exec-mini-batch-assigner", version=1, min_plan_version="0.3",
           min_state_version="0.3")
class StreamExecMiniBatchAssigner(ExecNode):
    # The mini-batch operators downstream cut their bundles at micro-batches: a plan that
    # has one emits a changelog that depends on the batches.
    CHANGELOG_BATCH_INVARIANT = False
    mini_batch_interval: MiniBatchInterval

    def output_unique_keys(self, inputs, input_keys):
        return input_keys[0]

    def needs_update_before(self, input_keys, downstream):
        return downstream

    def translate(self, ctx, inputs):
        return inputs[0]
