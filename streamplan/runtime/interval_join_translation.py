"""Translate an interval-join node to Spark: tagged union of both inputs, grouped by the
join key, into the transformWithState processor; negative windows need no state at all."""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ..changelog import OP_COLUMN
from .interval_join import INNER, LEFT, RIGHT, _make_processor_class

SIDE, LEFT_ROW, RIGHT_ROW = "__side", "__l", "__r"


def _payload(frame: DataFrame) -> list[str]:
    return [name for name in frame.columns if name != OP_COLUMN]


def _padded(node, frame: DataFrame, other: T.StructType, frame_is_left: bool) -> DataFrame:
    """Each row of one side, null-padded on the other, as an insert."""
    nulls = [F.lit(None).cast(f.dataType) for f in other.fields]
    own = [F.col(name) for name in _payload(frame)]
    values = own + nulls if frame_is_left else nulls + own
    names = node.row_type.names
    return frame.select(*[value.alias(name) for value, name in zip(values, names)],
                        F.lit(0).cast("byte").alias(OP_COLUMN))


def translate_interval_join(node, ctx, inputs: list[DataFrame]) -> DataFrame:
    left, right = inputs
    left_struct = T.StructType([f for f in left.schema.fields if f.name != OP_COLUMN])
    right_struct = T.StructType([f for f in right.schema.fields if f.name != OP_COLUMN])
    if node.negative_window:
        return _negative_window(node, left, right, left_struct, right_struct)

    spec = node.interval_join_spec.join_spec
    left_names, right_names = _payload(left), _payload(right)
    key_names = [f"__k{i}" for i in range(max(len(spec.left_keys), 1))]

    def keys(frame: DataFrame, names: list[str], indexes: list[int]):
        if not indexes:
            return [F.lit(0).alias(key_names[0])]
        return [F.col(names[i]).alias(key) for i, key in zip(indexes, key_names)]

    def tagged(frame, names, indexes, side, own_alias):
        own = F.struct(*[F.col(n) for n in names])
        left_value = own if side == 0 else F.lit(None).cast(left_struct)
        right_value = own if side == 1 else F.lit(None).cast(right_struct)
        return frame.select(*keys(frame, names, indexes), F.lit(side).cast("byte").alias(SIDE),
                            left_value.alias(LEFT_ROW), right_value.alias(RIGHT_ROW))

    union = tagged(left, left_names, spec.left_keys, 0, LEFT_ROW).unionByName(
        tagged(right, right_names, spec.right_keys, 1, RIGHT_ROW))
    params = node.runtime_params(ctx.node_config(node), len(left_names))
    layout = node.state_layout(ctx.input_types(node))
    output = node.row_type.to_spark().add(OP_COLUMN, T.ByteType(), False)
    processor = _make_processor_class()(params, layout)
    return union.groupBy(*key_names).transformWithState(
        processor, output, "Append", "EventTime")


def _negative_window(node, left, right, left_struct, right_struct) -> DataFrame:
    """Flink: a window whose lower bound is above its upper bound never matches; outer
    sides are emitted padded right away, inner joins emit nothing."""
    join_type = node.join_type
    parts = []
    if join_type in (LEFT, "FULL"):
        parts.append(_padded(node, left, right_struct, True))
    if join_type in (RIGHT, "FULL"):
        parts.append(_padded(node, right, left_struct, False))
    if join_type == INNER:
        return _padded(node, left, right_struct, True).filter(F.lit(False))
    result = parts[0]
    for part in parts[1:]:
        result = result.unionByName(part)
    return result
