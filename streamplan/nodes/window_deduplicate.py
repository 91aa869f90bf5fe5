"""Window deduplication: `ROW_NUMBER() OVER (PARTITION BY window_start, window_end[, k] ORDER
BY <rowtime> ASC|DESC) = 1` over the rows of a window table function, on event time (Flink's
StreamExecWindowDeduplicate).

The node reads the windows its input carries (`windowing`, as the window rank); per
partition key and window it keeps the first row by `orderKey` (or the last with
`keepLastRow`), emitted once as +I when the watermark reaches the window's end - 1 ms; then
the window's state is cleared. Rows of a fired window are late and dropped
(runtime/window_deduplicate.py).
"""
from __future__ import annotations

from typing import ClassVar

from ..errors import PlanFormatError
from ..options import LOCAL_TIME_ZONE
from .fields import FieldIndex
from .metadata import exec_node
from .window_rank import WindowAttachedNode


@exec_node(name="stream-exec-window-deduplicate", version=1, min_plan_version="0.3",
           min_state_version="0.3", consumed_options=(LOCAL_TIME_ZONE.key,))
class StreamExecWindowDeduplicate(WindowAttachedNode):
    STATE_DOC = ("per partition key, window end -> the window's first (or last) row by row "
                 "time, and an event-time timer per pending window; a window's state is "
                 "cleared when it fires")
    RUNTIME = "window_deduplicate"
    FLINK_NAME: ClassVar[str] = "Window deduplicate"
    partition_keys: list[FieldIndex]
    order_key: FieldIndex
    keep_last_row: bool

    def input_field_indexes(self):
        return [("partitionKeys", 0, self.partition_keys), ("orderKey", 0, [self.order_key]),
                *self.window_indexes()]

    def output_unique_keys(self, inputs, input_keys):
        return [list(self.partition_keys) + [self.windowing.window_start,
                                             self.windowing.window_end]]

    def key_indexes(self):
        return self.partition_keys

    def runtime_params(self, input_row):
        self.check_window_columns(input_row)
        field = input_row.fields[self.order_key]
        if field.type.name != "TIMESTAMP":
            raise PlanFormatError(
                f"node {self.id} ('{self.type}'): field 'orderKey': input field "
                f"{self.order_key} ({field.name} {field.type.text}) is not a TIMESTAMP "
                f"(window deduplication orders by the row time)")
        return self.runtime().WindowDeduplicateParams(
            window_end_index=self.windowing.window_end, rowtime_index=self.order_key,
            keep_last_row=self.keep_last_row)
