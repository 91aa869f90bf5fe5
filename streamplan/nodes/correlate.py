"""Correlate: `FROM t, LATERAL TABLE(f(x)) AS T(a, b)` and `FROM t LEFT JOIN LATERAL
TABLE(f(x)) AS T(a) ON TRUE` (Flink's StreamExecCorrelate). Stateless: each input row, with
its row kind, joined to the rows the table function yields for it. The plan names the
function by identity and class (`function`) and holds its arguments as expressions over the
input row; the output is the input's fields, then the function's."""
from __future__ import annotations

from typing import Literal

from ..changelog import OP_COLUMN
from ..errors import PlanFormatError
from ..types import quote_identifier
from .base import ExecNode
from .fields import SparkExpression
from .function_spec import FunctionSpec
from .metadata import exec_node


@exec_node(name="stream-exec-correlate", version=1, min_plan_version="0.3",
           min_state_version="0.3")
class StreamExecCorrelate(ExecNode):
    STATE_DOC = "none: each row is joined to what the table function yields for it"
    join_type: Literal["INNER", "LEFT"]
    function: FunctionSpec                 # a TABLE function
    arguments: list[SparkExpression]       # over the input row

    def needs_update_before(self, input_keys, downstream):
        return downstream                  # rows pass through with their kinds

    def _result_fields(self, input_row):
        fields = self.row_type.fields[len(input_row.fields):]
        if self.function.kind != "TABLE" or not fields:
            raise PlanFormatError(
                f"node {self.id} ('{self.type}'): field 'function': a TABLE function whose "
                f"fields follow the input's in outputType")
        return fields

    def translate(self, ctx, inputs):
        from pyspark.sql import types as T
        from pyspark.sql.functions import udf

        from ..functions import resolve
        from ..functions.data_types import RowOf, parse_data_type
        from ..runtime.correlate import TableFunctionCall

        frame = inputs[0]
        (input_row,) = ctx.input_types(self)
        resolve(self.function, f"node {self.id} ('{self.type}')")
        fields = self._result_fields(input_row)
        atomic = not isinstance(parse_data_type(self.function.result_type), RowOf)
        struct = T.StructType([T.StructField(f.name, f.type.to_spark(), True) for f in fields])
        name = f"__correlate_{self.id}"
        frame.sparkSession.udf.register(name, udf(
            TableFunctionCall(self.function.implementation, len(fields), atomic),
            T.ArrayType(struct)))
        generator = "inline_outer" if self.join_type == "LEFT" else "inline"
        return frame.selectExpr(*(quote_identifier(n) for n in input_row.names),
                                f"{generator}({name}({', '.join(self.arguments)}))",
                                quote_identifier(OP_COLUMN))
