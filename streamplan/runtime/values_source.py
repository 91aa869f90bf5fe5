"""The `values` connector's source: a Python streaming data source over a feed file.

A feed is a list of steps; each micro-batch reads exactly one step from every source, so
batch boundaries (and so watermarks) are the same run after run. The offset is the step
index and lives in the checkpoint: a restarted query continues with the next step.

The feed file is read and parsed once per query, by the reader that plans the micro-batches
(it lives in Spark's long-running source runner process); each micro-batch's partition
carries the rows of its steps, so the tasks that read them never touch the file.
"""
from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Iterator, Optional, Sequence

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
        self._content: Optional[dict] = None
        self._planned = 0           # the end of the last micro-batch planned (see latestOffset)

    def __getstate__(self) -> dict:
        # Spark also pickles a reader into the read tasks; they need no parsed feed.
        return {"feed": self.feed, "_content": None, "_planned": self._planned}

    def _parsed(self) -> dict:
        """The feed, parsed on first use and kept: it never changes while a query runs."""
        if self._content is None:
            self._content = json.loads(Path(self.feed).read_text())
        return self._content

    def initialOffset(self) -> dict:
        return {"step": 0}

    def latestOffset(self, start: Optional[dict] = None, limit=None) -> dict:
        # Spark 4.2+ passes the batch's start. Spark 4.1 passes nothing, so the reader counts
        # the batches it planned itself: enough for a run from a new checkpoint (fixtures of
        # 4.1 are generated so), not to resume one on Spark 4.1.
        step = start["step"] if start is not None else self._planned
        return {"step": min(step + 1, len(self._parsed()["steps"]))}

    def partitions(self, start: dict, end: dict) -> Sequence[InputPartition]:
        self._planned = end["step"]
        if start["step"] >= end["step"]:
            return []
        content = self._parsed()
        return [InputPartition((content["columns"], content["steps"][start["step"]:end["step"]]))]

    def read(self, partition: InputPartition) -> Iterator[tuple]:
        columns, steps = partition.value
        types = [parse_type(type_text) for _, type_text in columns]
        for step in steps:
            for kind, values in step:
                if kind == END_OF_INPUT_CODE:
                    yield (None,) * len(types) + (kind,)
                else:
                    yield tuple(to_python(v, t) for v, t in zip(values, types)) + (kind,)

    def commit(self, end: dict) -> None:
        pass


class ValuesDataSource(DataSource):
    """`spark.readStream.format("values").schema(...).option("feed", path)`.

    A running plan reads through a registration of its own (`register_for_run`): Spark's
    Python runners write into the environment map of a data source's Python function
    (BasePythonRunner puts SPARK_LOCAL_DIRS and friends into `PythonFunction.envVars`, a
    plain java.util.HashMap, on every task), so queries running at once on one registration
    race on that map; once it is corrupted, every task that serializes it fails with
    java.io.OptionalDataException. The registration name never reaches the checkpoint.
    """

    @classmethod
    def name(cls) -> str:
        return "values"

    def schema(self):
        raise ValueError("the values source needs an explicit schema")

    def streamReader(self, schema) -> DataSourceStreamReader:
        return _FeedReader(self.options["feed"])


def register_for_run(spark) -> str:
    """Register the values source under a fresh name for one run; returns the format name."""
    name = f"values_{uuid.uuid4().hex}"
    source = type(f"ValuesDataSource_{name}", (ValuesDataSource,),
                  {"name": classmethod(lambda cls: name), "__module__": __name__})
    spark.dataSource.register(source)
    return name
