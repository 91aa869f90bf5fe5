"""The `values` connector's sink: records each micro-batch's changelog exactly once.

Each batch becomes one file named by its batch id, written atomically; a replayed batch
id finds its file and writes nothing, so restarts never duplicate output.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..changelog import OP_COLUMN, RowKind
from ..types import RowType
from .rows import format_row, to_json, to_python


@dataclass(frozen=True)
class ChangelogRow:
    kind: RowKind
    values: tuple

    def text(self, row_type: Optional[RowType] = None) -> str:
        return format_row(self.kind, self.values, row_type)


class ChangelogSinkWriter:
    """A foreachBatch function; picklable state only (a directory and column names)."""

    def __init__(self, directory: Path, names: list[str]):
        self.directory = str(directory)
        self.names = names

    def __call__(self, frame, batch_id: int) -> None:
        target = Path(self.directory) / f"batch-{batch_id:06d}.json"
        # Always run the batch: its stateful operators commit their state only when every
        # partition is consumed (Spark fails the batch otherwise), also on a replay.
        collected = frame.collect()
        if target.exists():
            return  # replayed batch: already recorded
        rows = [[RowKind.from_code(row[OP_COLUMN]).short, [to_json(row[n]) for n in self.names]]
                for row in collected]
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(json.dumps(rows))
        os.replace(tmp, target)


def batch_ids(directory: Path) -> list[int]:
    if not directory.exists():
        return []
    return sorted(int(p.stem.split("-")[1]) for p in directory.glob("batch-*.json"))


def read_batches(directory: Path, row_type: RowType, ids: list[int]) -> list[ChangelogRow]:
    """The recorded rows of the given batches, in batch order."""
    types = [f.type for f in row_type.fields]
    rows: list[ChangelogRow] = []
    for batch_id in ids:
        for kind, values in json.loads((directory / f"batch-{batch_id:06d}.json").read_text()):
            rows.append(ChangelogRow(RowKind.from_short(kind),
                                     tuple(to_python(v, t) for v, t in zip(values, types))))
    return rows
