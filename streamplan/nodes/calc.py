"""Calc: projection and filter, expressions in Spark SQL evaluated by Spark; row kinds pass through."""
from __future__ import annotations

from typing import Optional

from ..changelog import OP_COLUMN
from .base import ExecNode
from .metadata import exec_node


@exec_node(name="stream-exec-calc", version=1, min_plan_version="0.1", min_state_version="0.1")
class StreamExecCalc(ExecNode):
    projection: list[str]
    condition: Optional[str] = None

    def translate(self, ctx, inputs):
        frame = inputs[0]
        if self.condition is not None:
            frame = frame.filter(self.condition)
        names = self.row_type.names
        columns = [f"{expr} AS `{name}`" for expr, name in zip(self.projection, names)]
        return frame.selectExpr(*columns, f"`{OP_COLUMN}`")
