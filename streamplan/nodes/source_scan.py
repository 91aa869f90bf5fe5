"""Table source scan: reads a `values` table as a changelog stream."""
from __future__ import annotations

from pydantic import model_validator

from ..changelog import END_OF_INPUT_CODE, OP_COLUMN, RowKind, parse_changelog_mode
from ..errors import ExecutionError
from .base import ExecNode
from .common import TableSpec
from .metadata import exec_node


@exec_node(name="stream-exec-table-source-scan", version=1, min_plan_version="0.1",
           min_state_version="0.1")
class StreamExecTableSourceScan(ExecNode):
    COMPOSITE_COLUMNS = True
    STATE_DOC = ("source offsets")
    arity = 0
    table: TableSpec

    @model_validator(mode="after")
    def _partitions_name_read_columns(self) -> "StreamExecTableSourceScan":
        """A 'partition-list' names columns the scan reads (its rows are filtered on them)."""
        from ..values_connector import partition_list

        text = self.table.options.get("partition-list")
        for partition in partition_list(text) if text else ():
            for column in partition:
                if column not in self.row_type.names:
                    raise ValueError(f"'partition-list' names '{column}', which is no field "
                                     f"of outputType ({', '.join(self.row_type.names)})")
        return self

    def output_changelog(self, inputs: list[frozenset[RowKind]]) -> frozenset[RowKind]:
        return parse_changelog_mode(self.table.options.get("changelog-mode", "I"))

    def output_unique_keys(self, inputs, input_keys):
        primary_key = self.table.primary_key or []
        return [[self.row_type.index(name) for name in primary_key]] if primary_key else []

    def translate(self, ctx, inputs):
        from pyspark.sql import functions as F

        from ..runtime.values_source import read_stream

        feed = ctx.feeds.get(self.table.identifier)
        if feed is None:
            raise ExecutionError(
                f"node {self.id}: no data bound to table '{self.table.identifier}'; give the values "
                f"table a 'path' option or bind rows for it when executing")
        frame = read_stream(ctx.spark, self.row_type, feed)
        partitions = self.table.options.get("partition-list")
        if partitions:
            frame = frame.filter(partition_filter(partitions, frame))
        if self.id not in ctx.keep_end_of_input:
            frame = frame.filter(F.col(OP_COLUMN) != F.lit(END_OF_INPUT_CODE))
        return frame


def partition_filter(text: str, frame):
    """Flink's values source reads only the rows of the partitions its 'partition-list'
    names: a row belongs to the first partition whose every 'column:value' its value's
    text (Java's toString, 'null' for NULL) equals. End-of-input markers pass."""
    from pyspark.sql import functions as F

    from ..values_connector import partition_list

    def text_of(column: str):
        return F.coalesce(F.col(column).cast("string"), F.lit("null"))

    matches = F.lit(False)
    for partition in partition_list(text):
        match = F.lit(True)
        for column, value in partition.items():
            match = match & (text_of(column) == F.lit(value))
        matches = matches | match
    return (F.col(OP_COLUMN) == F.lit(END_OF_INPUT_CODE)) | matches
