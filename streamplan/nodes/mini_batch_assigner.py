"""Mini-batch assigner: where Flink's mini-batches begin (Flink's StreamExecMiniBatchAssigner,
planned after every source when `table.exec.mini-batch.enabled` is on). Flink's
processing-time assigner emits a mini-batch marker every `interval` ms
(`table.exec.mini-batch.allow-latency`), on which the mini-batch operators downstream flush.
Below a node that requires the watermark, Flink's row-time assigner instead forwards a
watermark only once it has moved past the next interval boundary, and the mini-batch operators
flush on those watermarks. On Spark a micro-batch is a mini-batch: the operators downstream
flush at its end, and Spark advances the watermark only at micro-batch boundaries, so in
both modes the node passes its input through; the interval and mode stay in the plan as Flink
writes them. The watermarks that reach the nodes downstream are not Flink's one for one:
Flink's move in event-time steps of the interval, Spark's at micro-batch ends, so a row that
arrives between the two can be late in one and on time in the other."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import ExecNode, PlanModel
from .metadata import exec_node


class MiniBatchInterval(PlanModel):
    interval: int = Field(gt=0)          # ms: table.exec.mini-batch.allow-latency
    mode: Literal["ProcTime", "RowTime"]


@exec_node(name="stream-exec-mini-batch-assigner", version=1, min_plan_version="0.3",
           min_state_version="0.3")
class StreamExecMiniBatchAssigner(ExecNode):
    COMPOSITE_COLUMNS = True
    # The mini-batch operators downstream cut their bundles at micro-batches: a plan that
    # has one emits a changelog that depends on the batches.
    CHANGELOG_BATCH_INVARIANT = False
    mini_batch_interval: MiniBatchInterval

    def output_unique_keys(self, inputs, input_keys):
        return input_keys[0]

    def needs_update_before(self, input_keys, downstream, input_row=None, input_modes=None):
        return downstream

    def translate(self, ctx, inputs):
        return inputs[0]
