"""Correlate: `FROM t, LATERAL TABLE(f(x)) AS T(a, b)` and `FROM t LEFT JOIN LATERAL
TABLE(f(x)) AS T(a) ON TRUE` (Flink's StreamExecCorrelate), and `FROM t CROSS JOIN
UNNEST(t.arr) [WITH ORDINALITY]`. Stateless: each input row, with its row kind, joined to the
rows the table function yields for it. The plan names a user-defined function by identity and
class (`function`), or Flink's built-in `$UNNEST_ROWS$1` (`builtin`), and holds its arguments
as expressions over the input row; the output is the input's fields, then the function's.

`builtin` came after the first plans of this version: a plan without it reads as before."""
from __future__ import annotations

from typing import Literal, Optional

from ..changelog import OP_COLUMN
from ..errors import PlanFormatError
from ..types import quote_identifier
from .base import ExecNode
from .fields import SparkExpression
from .function_spec import FunctionSpec
from .metadata import exec_node


UNNEST = "$UNNEST_ROWS$1"
UNNEST_WITH_ORDINALITY = "$UNNEST_ROWS_WITH_ORDINALITY$1"


@exec_node(name="stream-exec-correlate", version=1, min_plan_version="0.3",
           min_state_version="0.3")
class StreamExecCorrelate(ExecNode):
    COMPOSITE_COLUMNS = True
    STATE_DOC = "none: each row is joined to what the table function yields for it"
    join_type: Literal["INNER", "LEFT"]
    function: Optional[FunctionSpec] = None   # a TABLE function, or
    builtin: Optional[Literal["$UNNEST_ROWS$1", "$UNNEST_ROWS_WITH_ORDINALITY$1"]] = None
    arguments: list[SparkExpression]       # over the input row

    def needs_update_before(self, input_keys, downstream, input_row=None, input_modes=None):
        return downstream                  # rows pass through with their kinds

    def _result_fields(self, input_row):
        fields = self.row_type.fields[len(input_row.fields):]
        where = f"node {self.id} ('{self.type}')"
        if (self.function is None) == (self.builtin is None):
            raise PlanFormatError(f"{where}: fields 'function' and 'builtin': exactly one names "
                                  f"what the correlate calls")
        if self.builtin is not None:
            if len(self.arguments) != 1 or not fields:
                raise PlanFormatError(f"{where}: field 'arguments': {self.builtin} takes one "
                                      f"ARRAY or MAP, whose values follow the input's fields in "
                                      f"outputType")
        elif self.function.kind != "TABLE" or not fields:
            raise PlanFormatError(
                f"{where}: field 'function': a TABLE function whose fields follow the input's "
                f"in outputType")
        return fields

    def translate(self, ctx, inputs):
        if self.builtin is not None:
            return self._unnest(ctx, inputs[0])
        from pyspark.sql import functions as F
        from pyspark.sql import types as T
        from pyspark.sql.functions import udf

        from ..functions import resolve
        from ..functions.data_types import RowOf, parse_data_type
        from ..runtime.correlate import TableFunctionCall

        frame = inputs[0]
        (input_row,) = ctx.input_types(self)
        fields = self._result_fields(input_row)
        resolve(self.function, f"node {self.id} ('{self.type}')")
        atomic = not isinstance(parse_data_type(self.function.result_type), RowOf)
        struct = T.StructType([T.StructField(f.name, f.type.to_spark(), True) for f in fields])
        # called as a column, not by a registered name: queries started on one session at
        # once would share the name
        call = udf(TableFunctionCall(self.function.implementation, len(fields), atomic),
                   T.ArrayType(struct))
        generator = F.inline_outer if self.join_type == "LEFT" else F.inline
        return frame.select(*(F.col(quote_identifier(n)) for n in input_row.names),
                            generator(call(*(F.expr(a) for a in self.arguments))),
                            F.col(quote_identifier(OP_COLUMN)))

    def _unnest(self, ctx, frame):
        """Each element of the ARRAY (its fields, for ROW elements) or entry of the MAP as a
        struct, with its position from 1 WITH ORDINALITY, through Spark's inline (inline_outer
        for LEFT: a NULL or empty collection gives one row of NULLs)."""
        (input_row,) = ctx.input_types(self)
        fields = self._result_fields(input_row)
        (argument,) = self.arguments
        collection = frame.selectExpr(argument).schema.fields[0].dataType
        generator = unnest_generator(argument, collection, [f.name for f in fields],
                                     self.builtin == UNNEST_WITH_ORDINALITY,
                                     self.join_type == "LEFT")
        if generator is None:
            raise PlanFormatError(
                f"node {self.id} ('{self.type}'): {self.builtin}({argument}) of a "
                f"{collection.simpleString()} cannot give the {len(fields)} field(s) outputType "
                f"adds to the input's")
        return frame.selectExpr(*(quote_identifier(n) for n in input_row.names), generator,
                                quote_identifier(OP_COLUMN))


def unnest_generator(argument: str, collection, names: list[str], ordinality: bool,
                     outer: bool) -> Optional[str]:
    """The Spark generator of UNNEST(argument) over a collection of Spark type `collection`:
    each value becomes a struct of the output fields' values, which inline spreads into the
    columns `names`; None when the collection's values do not make that many fields."""
    from pyspark.sql import types as T

    values = argument
    if isinstance(collection, T.MapType):
        values, parts = f"map_entries({argument})", ["__e.key", "__e.value"]
    elif isinstance(collection, T.ArrayType) and isinstance(collection.elementType, T.StructType):
        parts = [f"__e.{quote_identifier(f.name)}" for f in collection.elementType.fields]
    elif isinstance(collection, T.ArrayType):
        parts = ["__e"]
    else:
        return None
    if ordinality:
        parts.append("__i + 1")
    if len(parts) != len(names):
        return None
    generator = "inline_outer" if outer else "inline"
    return (f"{generator}(transform({values}, (__e, __i) -> struct({', '.join(parts)}))) "
            f"AS ({', '.join(quote_identifier(name) for name in names)})")
