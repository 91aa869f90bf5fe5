"""The `values` connector's source: a Python streaming data source over a feed file.

A feed is a list of steps; each micro-batch reads exactly one step from every source, so
batch boundaries (and so watermarks) are the same run after run. The offset is the step
index and lives in the checkpoint: a restarted query continues with the next step.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator, Sequence

from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition

from ..changelog import END_OF_INPUT_CODE
from ..types import parse_type
from .rows import to_python


def write_feed(path: Path, columns: Sequence[tuple[str, str]], steps: list[list[list]]) -> None:
    """steps: [[ [kind_code, [json values...]], ...], ...] — one inner list per micro-batch."""
    path.write_text(json.dumps({"columns": [list(c) for c in columns], "steps": steps}))


class _FeedReader(DataSourceStreamReader):
    def __init__(self, feed: str):
        self.feed = feed

    def _steps(self) -> int:
        return len(json.loads(Path(self.feed).read_text())["steps"])

    def initialOffset(self) -> dict:
        return {"step": 0}

    def latestOffset(self, start: dict, limit) -> dict:
        return {"step": min(start["step"] + 1, self._steps())}

    def partitions(self, start: dict, end: dict) -> Sequence[InputPartition]:
        if start["step"] >= end["step"]:
            return []
        return [InputPartition((self.feed, start["step"], end["step"]))]

    def read(self, partition: InputPartition) -> Iterator[tuple]:
        feed, first, last = partition.value
        content = json.loads(Path(feed).read_text())
        types = [parse_type(type_text) for _, type_text in content["columns"]]
        for step in content["steps"][first:last]:
            for kind, values in step:
                if kind == END_OF_INPUT_CODE:
                    yield (None,) * len(types) + (kind,)
                else:
                    yield tuple(to_python(v, t) for v, t in zip(values, types)) + (kind,)

    def commit(self, end: dict) -> None:
        pass


class ValuesDataSource(DataSource):
    """`spark.readStream.format("values").schema(...).option("feed", path)`."""

    @classmethod
    def name(cls) -> str:
        return "values"

    def schema(self):
        raise ValueError("the values source needs an explicit schema")

    def streamReader(self, schema) -> DataSourceStreamReader:
        return _FeedReader(self.options["feed"])
