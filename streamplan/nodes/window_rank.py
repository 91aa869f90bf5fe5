"""Window Top-N: `ROW_NUMBER() OVER (PARTITION BY window_start, window_end[, k] ORDER BY ...)
<= N` over the rows of a window table function or a window aggregate, on event time (Flink's
StreamExecWindowRank).

As in Flink's plan, the node reads windows its input carries (`windowing`: Flink's
`WindowAttachedWindowingStrategy`, the indexes of `window_start` and `window_end` with the
window they belong to); `partitionSpec` holds the other partition keys. A window's rows wait
in state until the watermark reaches its end - 1 ms; then its top rows are emitted once, as
+I (the rank number appended with `outputRowNumber`), and its state is cleared. Rows of a
fired window are late and dropped (runtime/window_rank.py).
"""
from __future__ import annotations

from dataclasses import replace
from typing import ClassVar, Literal

from ..changelog import INSERT_ONLY
from ..errors import PlanFormatError
from ..options import LOCAL_TIME_ZONE
from ..types import RowType, quote_identifier
from .fields import FieldIndex
from .calc import StreamExecCalc
from .keyed import KeyedNode
from .metadata import exec_node
from .rank import PartitionSpec, RankRange, SortSpec
from .window_aggregate import (WINDOW_KINDS, FiredWindows, WindowAttachedStrategy,
                               WindowSpec, reads_fired_windows)

_WATERMARK_METADATA = "spark.watermarkDelayMs"


class WindowAttachedNode(KeyedNode):
    """What the window rank and the window deduplicate share: the windowing, the input
    check, event-time timers, insert-only in and out."""

    windowing: WindowAttachedStrategy
    FLINK_NAME: ClassVar[str] = ""

    def requires_watermark(self, inputs):
        return self.windowing.is_rowtime

    def window_indexes(self) -> list[tuple[str, int, list[int]]]:
        return [("windowing.windowStart", 0, [self.windowing.window_start]),
                ("windowing.windowEnd", 0, [self.windowing.window_end])]

    def output_changelog(self, inputs):
        return INSERT_ONLY

    def check_input_changelog(self, inputs, origins) -> None:
        if inputs[0] != INSERT_ONLY:
            raise self.unsupported_changes(f"{self.FLINK_NAME} node {self.id}",
                                           inputs[0] - INSERT_ONLY, origins[0])

    def check_window_columns(self, input_row: RowType) -> None:
        for label, index in (("windowStart", self.windowing.window_start),
                             ("windowEnd", self.windowing.window_end)):
            field = input_row.fields[index]
            if field.type.name != "TIMESTAMP":
                raise PlanFormatError(
                    f"node {self.id} ('{self.type}'): field 'windowing.{label}': input field "
                    f"{index} ({field.name} {field.type.text}) is not a TIMESTAMP")

    def read_options(self, config):
        # As Flink's plan, the node persists table.local-time-zone; windows over TIMESTAMP
        # time attributes (the only ones here) do not shift by it (window_table_function.py).
        return {"local_time_zone": config.get(LOCAL_TIME_ZONE)}

    def run_params(self, ctx, input_row):
        ctx.options(self)                # reads (and so checks) the persisted options
        return replace(self.runtime_params(input_row),
                       drop_late_rows=not reads_fired_windows(ctx, self))

    @property
    def time_mode(self) -> str:
        return "EventTime"

    def prepare(self, frame, input_row, params):
        # Event-time timers; late rows are the processor's to drop, as Flink drops them, so
        # event-time columns lose the watermark mark that would make Spark filter them first.
        for field in frame.schema.fields:
            if _WATERMARK_METADATA in (field.metadata or {}):
                frame = frame.withColumn(field.name, frame[quote_identifier(field.name)].alias(
                    field.name, metadata={}))
        return frame


@exec_node(name="stream-exec-window-rank", version=1, min_plan_version="0.3",
           min_state_version="0.3", consumed_options=(LOCAL_TIME_ZONE.key,))
class StreamExecWindowRank(WindowAttachedNode):
    STATE_DOC = ("per partition key, window end -> the window's rows by sort key in arrival order "
                 "(Flink's TopNRecordsCombiner keeps only rows that can still rank), and an "
                 "event-time timer per pending window; a window's state is cleared when it fires")
    RUNTIME = "window_rank"
    FLINK_NAME: ClassVar[str] = "Window rank"
    rank_type: Literal["ROW_NUMBER"]
    partition_spec: PartitionSpec
    sort_spec: SortSpec
    rank_range: RankRange
    output_row_number: bool

    def input_field_indexes(self):
        return [("partitionSpec.fields", 0, self.partition_spec.fields),
                ("sortSpec.fields", 0, [field.index for field in self.sort_spec.fields]),
                *self.window_indexes()]

    def output_unique_keys(self, inputs, input_keys):
        """Flink's FlinkRelMdUniqueKeys of a WindowRank: the partition keys and the window
        with the row number, or without it for a top 1."""
        window = [self.windowing.window_start, self.windowing.window_end]
        if self.output_row_number:
            return [list(self.partition_spec.fields) + window + [len(self.row_type.fields) - 1]]
        if self.rank_range.end == 1:
            return [list(self.partition_spec.fields) + window]
        return []

    def key_indexes(self):
        return self.partition_spec.fields

    def runtime_params(self, input_row):
        self.check_window_columns(input_row)
        return self.runtime().WindowRankParams(
            window_end_index=self.windowing.window_end,
            sort_key=tuple((f.index, f.is_ascending, not f.null_is_last)
                           for f in self.sort_spec.fields),
            rank_start=self.rank_range.start, rank_end=self.rank_range.end,
            output_rank_number=self.output_row_number)
