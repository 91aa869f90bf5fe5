"""Drop update-before: removes -U rows in front of a changelog normalize keyed by the
source's primary key, which rebuilds them from its state (Flink's
StreamExecDropUpdateBefore)."""
from __future__ import annotations

from ..changelog import OP_COLUMN, RowKind
from .base import ExecNode
from .metadata import exec_node


@exec_node(name="stream-exec-drop-update-before", version=1, min_plan_version="0.2",
           min_state_version="0.2")
class StreamExecDropUpdateBefore(ExecNode):
    COMPOSITE_COLUMNS = True
    def output_changelog(self, inputs):
        return inputs[0] - {RowKind.UPDATE_BEFORE}

    def output_unique_keys(self, inputs, input_keys):
        return input_keys[0]

    def translate(self, ctx, inputs):
        from pyspark.sql import functions as F

        return inputs[0].filter(F.col(OP_COLUMN) != F.lit(RowKind.UPDATE_BEFORE.code))
