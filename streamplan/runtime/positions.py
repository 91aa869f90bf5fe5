"""Each row's position in its micro-batch, for operators that cut a micro-batch into Flink's
count-triggered bundles after a shuffle (Spark's monotonically_increasing_id() is refused on
streams). A stateless mapInArrow: positions restart at 0 in every task, i.e. per partition of
each micro-batch; the values source gives a micro-batch as one partition in arrival order."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame

SEQ_COLUMN = "__seq"


class Numbered:
    """The mapInArrow function (picklable: a module-level class)."""

    def __call__(self, batches: Iterator) -> Iterator:
        import pyarrow as pa

        start = 0
        for batch in batches:
            positions = pa.array(range(start, start + batch.num_rows), type=pa.int64())
            start += batch.num_rows
            yield pa.RecordBatch.from_arrays([*batch.columns, positions],
                                             names=[*batch.schema.names, SEQ_COLUMN])


def numbered(frame: "DataFrame") -> "DataFrame":
    """`frame` with a last column SEQ_COLUMN: the row's position in its micro-batch."""
    from pyspark.sql import types as T

    # a new schema: StructType.add changes the frame's own (cached) schema in place
    schema = T.StructType([*frame.schema.fields, T.StructField(SEQ_COLUMN, T.LongType(), False)])
    return frame.mapInArrow(Numbered(), schema)


def bundles(positioned: Iterable[tuple[int, Any]], size: int) -> list[list[Any]]:
    """A key's items of one micro-batch, (position, item), cut as Flink's CountBundleTrigger
    cuts its operator's input (every `size` rows over all keys, and at the mini-batch's end):
    per bundle the key's items in arrival order, bundles in order."""
    cut: dict[int, list[Any]] = {}
    for position, item in sorted(positioned, key=lambda pair: pair[0]):
        cut.setdefault(position // size, []).append(item)
    return [cut[bundle] for bundle in sorted(cut)]
