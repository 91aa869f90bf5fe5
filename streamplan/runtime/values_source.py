"""The `values` connector's source: a feed file read one step per micro-batch.

A feed is a list of steps; each micro-batch reads exactly one step from every source, so
batch boundaries (and so watermarks) are the same run after run. The offset is the step
index and lives in the checkpoint (`{"step": n}`): a restarted query continues with the
next step.

The source runs on the JVM (`jvm/ValuesSource.java`, built by `streamplan.runtime.jvm`);
until 2026-11 it was a Python streaming data source, and checkpoints of that source restore
through this one (same offsets, same schema). The Python source cost a Python process per
query and a Python read task per micro-batch: about 40% of a short stateless query's time.

The feed file is an Arrow IPC file of one record batch per step, written here with PySpark's
own conversion of Python rows to Arrow (the one its Python data sources use), so values
reach Spark exactly as the Python source delivered them. The planning side reads it once per
query; each micro-batch's partition carries its steps' Arrow data, so the tasks that read
them never touch the file (on a cluster, the file stays on the driver).
"""
from __future__ import annotations

from pathlib import Path

from ..changelog import END_OF_INPUT_CODE, OP_COLUMN, FeedRow
from ..types import RowType
from .rows import to_python

VALUES_FORMAT = "streamplan.values.ValuesSource"


def feed_schema(row_type: RowType):
    """The source's Spark schema: the table's columns and the row kind (`__op`)."""
    from pyspark.sql import types as T

    return row_type.to_spark().add(OP_COLUMN, T.ByteType(), False)


def write_feed(path: Path, row_type: RowType, steps: list[list[FeedRow]]) -> None:
    """steps: the feed rows of each micro-batch. Values are converted for their columns as
    `rows.to_python` does (typed values pass unchanged; a value the column cannot hold is a
    ValueError). End-of-input markers carry no values (every column NULL)."""
    import pyarrow as pa
    from pyspark.sql.worker.plan_data_source_read import records_to_arrow_batches

    schema = feed_schema(row_type)
    types = [field.type for field in row_type.fields]

    def arrow_batch(rows: list[tuple]):
        (batch,) = records_to_arrow_batches(iter(rows), len(rows), schema, None)
        return batch

    # The Arrow schema as the conversion makes it (its arguments differ between releases).
    arrow_schema = arrow_batch([(None,) * len(types) + (END_OF_INPUT_CODE,)]).schema
    with pa.OSFile(str(path), "wb") as out, pa.ipc.new_file(out, arrow_schema) as writer:
        for step in steps:
            rows = [(None,) * len(types) + (END_OF_INPUT_CODE,) if kind is None else
                    tuple(to_python(v, t) for v, t in zip(values, types)) + (kind.code,)
                    for kind, values in step]
            # one record batch per step, empty steps included: the batch index is the step
            writer.write_batch(arrow_batch(rows) if rows else
                               pa.RecordBatch.from_pylist([], schema=arrow_schema))


def read_stream(spark, row_type: RowType, feed: str):
    """A streaming DataFrame of the feed's rows, one step per micro-batch."""
    return (spark.readStream.format(VALUES_FORMAT).schema(feed_schema(row_type))
            .option("feed", feed).load())
