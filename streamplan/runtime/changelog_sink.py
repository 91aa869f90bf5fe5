"""The `values` connector's sink: records each micro-batch's changelog exactly once.

Each batch becomes one file named by its batch id, written atomically on the JVM; a replayed
batch id finds its file and writes nothing, so restarts never duplicate output. The file holds
the rows pickled as `DataFrame.collect()` hands them to Python, so reading it gives the values
collect() gives, without a call back into the Python driver for every micro-batch.
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..changelog import OP_COLUMN, RowKind
from ..types import RowType
from .jvm import jvm_class
from .rows import format_row, to_json, to_python

BATCH_FILES_CLASS = "streamplan.sink.ChangelogBatchFiles"


@dataclass(frozen=True)
class ChangelogRow:
    kind: RowKind
    values: tuple

    def text(self, row_type: Optional[RowType] = None) -> str:
        return format_row(self.kind, self.values, row_type)


def batch_file_writer(spark, directory: Path):
    """The sink's foreachBatch function for `directory`: a JVM object
    (jvm/ChangelogBatchFiles.java) that writes each batch's file, `batch-<id>.pickle`, once."""
    return jvm_class(spark._jvm, BATCH_FILES_CLASS)(str(directory))


def batch_path(directory: Path, batch_id: int) -> Path:
    return Path(directory) / f"batch-{batch_id:06d}.pickle"


def batch_ids(directory: Path) -> list[int]:
    if not directory.exists():
        return []
    return sorted(int(p.stem.split("-")[1]) for p in directory.glob("batch-*.pickle"))


def decode_batch(data: bytes, names: list[str]) -> list[list]:
    """One batch file's rows as `[[kind, [value, ...]], ...]`: kinds short (`+I`), values
    through JSON (timestamps ISO text, decimals exact text), as every reader takes them."""
    from pyspark.serializers import BatchedSerializer, CPickleSerializer

    rows = BatchedSerializer(CPickleSerializer()).load_stream(io.BytesIO(data))
    return json.loads(json.dumps([[RowKind.from_code(row[OP_COLUMN]).short,
                                   [to_json(row[name]) for name in names]] for row in rows]))


def read_batches(directory: Path, row_type: RowType, ids: list[int]) -> list[ChangelogRow]:
    """The recorded rows of the given batches, in batch order."""
    types = [f.type for f in row_type.fields]
    rows: list[ChangelogRow] = []
    for batch_id in ids:
        for kind, values in decode_batch(batch_path(directory, batch_id).read_bytes(),
                                         row_type.names):
            rows.append(ChangelogRow(RowKind.from_short(kind),
                                     tuple(to_python(v, t) for v, t in zip(values, types))))
    return rows
