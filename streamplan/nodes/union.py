"""Union: UNION ALL of its inputs' rows, each with its row kind (Flink's StreamExecUnion, a
node with no operator of its own). Its inputs have the output's field types; the output
names are the first input's."""
from __future__ import annotations

from ..changelog import OP_COLUMN, RowKind
from ..errors import PlanFormatError
from ..types import quote_identifier
from .base import ExecNode
from .metadata import exec_node


@exec_node(name="stream-exec-union", version=1, min_plan_version="0.3", min_state_version="0.3")
class StreamExecUnion(ExecNode):
    COMPOSITE_COLUMNS = True
    STATE_DOC = "none: no operator, every input's rows pass through with their kinds"
    arity = 2
    variadic = True          # a chain of unions is one node (Flink's UnionMergeRule)
    def output_changelog(self, inputs: list[frozenset[RowKind]]) -> frozenset[RowKind]:
        """Every kind any input carries (FlinkChangelogModeInferenceProgram: a union's
        changelog is the union of its inputs')."""
        return frozenset().union(*inputs)

    def needs_update_before(self, input_keys, downstream, input_row=None, input_modes=None):
        return downstream              # rows pass through as they are

    def translate(self, ctx, inputs):
        names = self.row_type.names
        input_types = ctx.input_types(self)
        frames = []
        for frame, row in zip(inputs, input_types):
            if len(row.fields) != len(names):
                raise PlanFormatError(
                    f"node {self.id} ({self.type}): an input has {len(row.fields)} field(s) for "
                    f"the union's {len(names)}")
            frames.append(frame.selectExpr(
                *(f"{quote_identifier(field)} AS {quote_identifier(name)}"
                  for field, name in zip(row.names, names)), quote_identifier(OP_COLUMN)))
        result = frames[0]
        for frame in frames[1:]:
            result = result.union(frame)       # by position: the columns were named alike
        return result
