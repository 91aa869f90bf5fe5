"""Two-input nodes on Spark: both inputs as one frame keyed by the join key, so that one
transformWithState processor sees every row of a key from either side."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..changelog import KEY_PREFIX, KIND_COLUMN, LEFT_ROW, OP_COLUMN, RIGHT_ROW, SIDE_COLUMN
from ..types import quote_identifier

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame


def payload(frame: "DataFrame") -> list[str]:
    return [name for name in frame.columns if name != OP_COLUMN]


def keyed_union(left: "DataFrame", right: "DataFrame", left_keys: list[int],
                right_keys: list[int]) -> tuple["DataFrame", list[str]]:
    """(key columns, side 0/1, row kind, left row, right row) of both inputs; the key
    columns' names, to group by. Without keys every row shares one key."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    key_names = [f"{KEY_PREFIX}{i}" for i in range(max(len(left_keys), 1))]
    structs = [T.StructType([f for f in frame.schema.fields if f.name != OP_COLUMN])
               for frame in (left, right)]

    def tagged(frame: "DataFrame", indexes: list[int], side: int) -> "DataFrame":
        names = payload(frame)
        keys = ([F.col(quote_identifier(names[i])).alias(key) for i, key in zip(indexes, key_names)] if indexes
                else [F.lit(0).alias(key_names[0])])
        own = F.struct(*[F.col(quote_identifier(name)) for name in names])
        rows = [own if side == index else F.lit(None).cast(structs[index]) for index in (0, 1)]
        return frame.select(*keys, F.lit(side).cast("byte").alias(SIDE_COLUMN),
                            F.col(OP_COLUMN).alias(KIND_COLUMN),
                            rows[0].alias(LEFT_ROW), rows[1].alias(RIGHT_ROW))

    return (tagged(left, left_keys, 0).unionByName(tagged(right, right_keys, 1)), key_names)
