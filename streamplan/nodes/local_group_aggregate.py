"""Local group aggregate: the first phase of a mini-batch aggregate (Flink's
StreamExecLocalGroupAggregate running MiniBatchLocalGroupAggFunction). Per mini-batch bundle
it folds the rows of each group key into fresh accumulators and emits them, one row per key,
to the global aggregate; it keeps no state. Here a bundle is at most
`table.exec.mini-batch.size` rows of a micro-batch (runtime/mini_batch_aggregate.py)."""
from __future__ import annotations

from ..changelog import INSERT_ONLY
from ..options import MINIBATCH_ENABLED, MINIBATCH_SIZE
from ..types import Field, RowType, SqlType, parse_type
from .base import ExecNode
from .fields import FieldIndex
from .group_aggregate import (AggCallSpec, check_retractable_input, mini_batch_options,
                              resolve_user_functions, runtime_calls, sum_type)
from .metadata import exec_node

BYTES = SqlType("BYTES")
BIGINT = SqlType("BIGINT")


def accumulator_fields(calls: list[AggCallSpec], input_row: RowType) -> list[list[Field]]:
    """Per call the fields its accumulator travels in from the local to the global aggregate,
    named as Flink names them (`count1$0`, `sum$1`, `count$2`, `min$3`, `distinct$4`; a
    user-defined function's accumulator `acc$5`, its declared ACCUMULATOR_TYPE encoded), and
    last the row count."""
    fields: list[list[Field]] = []
    n = 0
    for call in calls:
        arg = input_row.fields[call.arg_list[0]].type if call.arg_list else None
        if call.user_function is not None:
            own = [Field(f"acc${n}", BYTES)]
        elif call.function == "WELFORD_M2":
            own = [Field(f"$welford_m2$1${n}", BYTES)]
        elif call.distinct or call.function in ("MIN", "MAX"):
            name = "distinct" if call.distinct else call.function.lower()
            own = [Field(f"{name}${n}", BYTES)]
        elif call.function in ("SUM", "AVG"):
            total = sum_type(call.function, arg, parse_type(call.type))
            own = [Field(f"sum${n}", total.with_nullable(True)), Field(f"count${n + 1}", BIGINT)]
        else:
            own = [Field(f"{'count1' if not call.arg_list else 'count'}${n}", BIGINT)]
        fields.append(own)
        n += len(own)
    fields.append([Field(f"count1${n}", BIGINT)])
    return fields


def accumulator_text(own: list[Field]) -> str:
    names = [field.name for field in own]
    return names[0] if len(names) == 1 else f"({', '.join(names)})"


@exec_node(name="stream-exec-local-group-aggregate", version=1, min_plan_version="0.3",
           min_state_version="0.3", consumed_options=(MINIBATCH_ENABLED.key, MINIBATCH_SIZE.key))
class StreamExecLocalGroupAggregate(ExecNode):
    STATE_DOC = "none: a bundle's accumulators are emitted at its end"
    CHANGELOG_BATCH_INVARIANT = False      # one row per key and bundle: batches decide them
    grouping: list[FieldIndex]
    agg_calls: list[AggCallSpec]
    need_retraction: bool

    def input_field_indexes(self):
        return [("grouping", 0, self.grouping),
                *((f"aggCalls[{n}].argList", 0, call.arg_list) for n, call in enumerate(self.agg_calls)),
                *((f"aggCalls[{n}].filterArg", 0, [call.filter_arg])
                  for n, call in enumerate(self.agg_calls) if call.filter_arg is not None)]

    def read_options(self, config):
        return mini_batch_options(config)

    def output_changelog(self, inputs):
        return INSERT_ONLY                 # accumulators, not results

    def check_input_changelog(self, inputs, origins) -> None:
        check_retractable_input(f"Local group aggregate node {self.id}", self.need_retraction,
                                inputs, origins)

    def translate(self, ctx, inputs):
        from pyspark.sql import types as T
        from pyspark.sql.pandas.types import to_arrow_schema

        from ..changelog import OP_COLUMN
        from ..runtime.mini_batch_aggregate import SEQ_COLUMN, LocalAggParams, LocalAggregate

        resolve_user_functions(self, self.agg_calls)
        (input_row,) = ctx.input_types(self)
        size = ctx.options(self)["size"]
        params = LocalAggParams(tuple(self.grouping), runtime_calls(self.agg_calls), size,
                                tuple(input_row.fields[i].type.name for i in self.grouping))
        schema = (self.row_type.to_spark().add(OP_COLUMN, T.ByteType(), False)
                  .add(SEQ_COLUMN, T.LongType(), False))
        function = LocalAggregate(params, tuple(input_row.names), to_arrow_schema(schema))
        return inputs[0].mapInArrow(function, schema)
