"""One-input stateful nodes on Spark: the input grouped by key columns into one
transformWithState processor (a constant key when there are none)."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..changelog import OP_COLUMN
from ..types import RowType, quote_identifier

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

GLOBAL_KEY = "__g"


def transform_keyed(frame: "DataFrame", input_row: RowType, keys: list[int], processor,
                    output_row: RowType, time_mode: str = "ProcessingTime") -> "DataFrame":
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
    return frame.groupBy(*(columns or [GLOBAL_KEY])).transformWithState(processor, output,
                                                                       "Append", time_mode)


def struct_ddl(row: RowType, indexes: list[int] | None = None) -> str:
    """Spark DDL of (some of) a row's fields, as state schemas declare them."""
    chosen = range(len(row.fields)) if indexes is None else indexes
    return ", ".join(f"{quote_identifier(state_name(row.fields[i].name, i))}: "
                     f"{row.fields[i].type.to_spark().simpleString().upper()}" for i in chosen)


_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def state_name(name: str, index: int) -> str:
    """A field's name in a state schema: Spark encodes state schemas with Avro, whose names
    are plain identifiers, so a generated name such as 'EXPR$1' becomes its position."""
    return name if _PLAIN_NAME.match(name) else f"f{index}"
