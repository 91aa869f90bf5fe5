"""One-input stateful nodes on Spark: the input grouped by key columns into one
transformWithState processor (a constant key when there are none).

`KeyedNode` is their base. A node says which input columns key its state
(`key_indexes`), which runtime module runs it (`RUNTIME`: a module of streamplan/runtime/
with `state_layout(params, row_ddl)` and `processor_class(params)`) and builds that
module's parameters (`runtime_params`); the layout, the processor and the translation
follow.
"""
from __future__ import annotations

import re
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from ..changelog import OP_COLUMN
from ..types import RowType, quote_identifier
from .base import ExecNode

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

GLOBAL_KEY = "__g"


def transform_keyed(frame: "DataFrame", input_row: RowType, keys: list[int], processor,
                    output_row: RowType, time_mode: str = "ProcessingTime",
                    extra: tuple = ()) -> "DataFrame":
    """`frame` grouped by `keys` into `processor`, whose rows are `output_row`, the row kind
    and the `extra` (name, Spark type) columns."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if not keys:
        frame = frame.withColumn(GLOBAL_KEY, F.lit(0))
    columns = []
    for position, index in enumerate(keys):
        name = input_row.names[index]
        if state_name(name, index) != name:      # Spark's state schemas refuse e.g. '$'
            frame = frame.withColumn(f"__key{position}", F.col(quote_identifier(name)))
            name = f"__key{position}"
        columns.append(quote_identifier(name))
    output = output_row.to_spark().add(OP_COLUMN, T.ByteType(), False)
    for name, spark_type in extra:
        output = output.add(name, spark_type, False)
    return frame.groupBy(*(columns or [GLOBAL_KEY])).transformWithState(processor, output,
                                                                       "Append", time_mode)


def struct_ddl(row: RowType, indexes: list[int] | None = None, state_names: bool = True) -> str:
    """Spark DDL of (some of) a row's fields, as state schemas declare them: with
    `state_names`, generated names such as 'EXPR$1' as their position (`state_name`). The
    interval join's layouts were recorded with the names as they are (state_names=False)."""
    chosen = range(len(row.fields)) if indexes is None else indexes
    return ", ".join(f"{quote_identifier(state_name(row.fields[i].name, i) if state_names else row.fields[i].name)}: "
                     f"{row.fields[i].type.to_spark().simpleString().upper()}" for i in chosen)


def build_processor(runtime: ModuleType, params: Any, layout: dict[str, dict[str, str]],
                    input_row: RowType, output_row: RowType):
    """The runtime module's processor for `params`, in the one constructor shape."""
    return runtime.processor_class(params)(params, layout, tuple(input_row.names),
                                           tuple(output_row.names))


class KeyedNode(ExecNode):
    """A one-input node whose state is keyed by some of its input's columns."""

    def key_indexes(self) -> list[int]:
        raise NotImplementedError

    def runtime_params(self, input_row: RowType) -> Any:
        raise NotImplementedError

    @property
    def time_mode(self) -> str:
        return "ProcessingTime"           # what Spark's state TTL needs

    def run_params(self, ctx, input_row: RowType) -> Any:
        """The parameters a run uses: `runtime_params`, and for a node whose runtime reads
        options (persisted in its plan), what `ctx.options(self)` says."""
        return self.runtime_params(input_row)

    def prepare(self, frame: "DataFrame", input_row: RowType, params: Any) -> "DataFrame":
        """The input as the processor takes it (by default as it is)."""
        return frame

    # runs a KeyedValueProcessor row by row, so it can take and pass Flink's arrival order
    # between keyed nodes (arrival_order.py)
    POSITIONED: ClassVar[bool] = False

    def positioned(self, ctx) -> bool:
        return self.POSITIONED

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        (row,) = inputs
        return self.runtime().state_layout(self.runtime_params(row), struct_ddl(row))

    def translate(self, ctx, inputs):
        from pyspark.sql import types as T

        from ..runtime.positions import SEQ_COLUMN, numbered
        from .arrival_order import passes_positions, takes_positions

        (input_row,) = ctx.input_types(self)
        params = self.run_params(ctx, input_row)
        processor = build_processor(self.runtime(), params, self.state_layout([input_row]),
                                    input_row, self.row_type)
        frame = self.prepare(inputs[0], input_row, params)
        processor.takes_positions = takes_positions(self, ctx)
        processor.passes_positions = passes_positions(self, ctx)
        if processor.passes_positions and not processor.takes_positions:
            frame = numbered(frame)
        extra = ((SEQ_COLUMN, T.LongType()),) if processor.passes_positions else ()
        return transform_keyed(frame, input_row, self.key_indexes(), processor, self.row_type,
                               self.time_mode, extra)


_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def state_name(name: str, index: int) -> str:
    """A field's name in a state schema: Spark encodes state schemas with Avro, whose names
    are plain identifiers, so a generated name such as 'EXPR$1' becomes its position."""
    return name if _PLAIN_NAME.match(name) else f"f{index}"
