"""Expand: every input row becomes one row per projection, in the projections' order, each
with the input row's kind (Flink's StreamExecExpand, which runs no operator state). The
planner puts it under an aggregate with GROUPING SETS, ROLLUP or CUBE: one projection per
grouping set, the keys outside the set NULL, and an expand id `$e` that tells the sets apart
(planner/grouping_sets.py)."""
from __future__ import annotations

from pydantic import model_validator

from ..changelog import OP_COLUMN
from ..types import quote_identifier
from .base import ExecNode
from .fields import SparkExpression
from .metadata import exec_node


@exec_node(name="stream-exec-expand", version=1, min_plan_version="0.3", min_state_version="0.3")
class StreamExecExpand(ExecNode):
    COMPOSITE_COLUMNS = True
    STATE_DOC = "none: each input row becomes one row per projection, with its row kind"
    projects: list[list[SparkExpression]]

    @model_validator(mode="after")
    def _one_expression_per_field(self) -> "StreamExecExpand":
        if not self.projects:
            raise ValueError("'projects' is empty: an expand needs at least one projection")
        width = len(self.row_type.fields)
        for index, projection in enumerate(self.projects):
            if len(projection) != width:
                raise ValueError(f"projects[{index}] has {len(projection)} expression(s) for "
                                 f"{width} output field(s) in outputType")
        return self

    def needs_update_before(self, input_keys, downstream, input_row=None, input_modes=None):
        return downstream              # rows pass through as they are, only repeated

    def translate(self, ctx, inputs):
        # One array of structs per input row, exploded in place (`inline`): the copies of a
        # row follow each other in the projections' order, as Flink's ExpandFunction emits them.
        names = self.row_type.names
        structs = ", ".join(
            "named_struct(" + ", ".join(f"{_string_literal(name)}, {expression}"
                                        for name, expression in zip(names, projection)) + ")"
            for projection in self.projects)
        return inputs[0].selectExpr(f"inline(array({structs}))", quote_identifier(OP_COLUMN))


def _string_literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
