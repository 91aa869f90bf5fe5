"""Window deduplication: `ROW_NUMBER() OVER (PARTITION BY window_start, window_end[, k] ORDER
BY <rowtime> ASC|DESC) = 1` over a window table function (Flink's
StreamExecWindowDeduplicate running RowTimeSyncStateWindowDeduplicateProcessor with
RowTimeDeduplicateRecordsCombiner), as a transformWithState processor.

Per partition key and window end, the state holds the window's kept row (Flink's
value state of the window, namespace window end):

* `combine` (RowTimeDeduplicateRecordsCombiner.combine): the first (or last) of the
  window's buffered rows by row time (`DeduplicateFunctionHelper.isDuplicate`: keep-first
  takes a row with a strictly earlier row time, keep-last one with a row time at least the
  kept row's), then the same choice between it and the state's row;
* `fire` (fireWindow): the kept row, +I.

Late rows, timers and window cleanup: `window_buffer`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..changelog import RowKind
from .batch_rows import Output, plain
from .deduplicate import rowtime_of
from .window_buffer import WindowBufferCore, WindowBufferProcessor, window_state_layout

WINDOW_DEDUPLICATE_STATE = "window_deduplicate"


@dataclass(frozen=True)
class WindowDeduplicateParams:
    window_end_index: int
    rowtime_index: int
    keep_last_row: bool
    drop_late_rows: bool = True             # see window_buffer: False over a window aggregate


class WindowDeduplicateCore(WindowBufferCore):
    """A window's value: the kept row."""

    NODE = "Window deduplicate"

    # DeduplicateFunctionHelper.isDuplicate
    def is_duplicate(self, kept: Optional[tuple], row: tuple) -> bool:
        if kept is None:
            return True
        index = self.p.rowtime_index
        if self.p.keep_last_row:
            return rowtime_of(kept, index) <= rowtime_of(row, index)
        return rowtime_of(row, index) < rowtime_of(kept, index)

    # RowTimeDeduplicateRecordsCombiner.combine
    def combine(self, value, records):
        buffered = None
        for row in records:
            if self.is_duplicate(buffered, row):
                buffered = row
        if buffered is None or not self.is_duplicate(value, buffered):
            return value
        return buffered

    def fire(self, value, out: list[Output]) -> None:
        out.append((RowKind.INSERT.code, value))


def state_layout(params: WindowDeduplicateParams, row_ddl: str) -> dict[str, dict[str, str]]:
    """Per partition key, window end -> the window's kept row."""
    return window_state_layout(WINDOW_DEDUPLICATE_STATE, f"row STRUCT<{row_ddl}>")


class WindowDeduplicateProcessor(WindowBufferProcessor):
    CORE = WindowDeduplicateCore

    def decode(self, stored):
        return plain(plain(stored)[0])

    def encode(self, value):
        return (value,)


def processor_class(params: WindowDeduplicateParams) -> type[WindowDeduplicateProcessor]:
    return WindowDeduplicateProcessor
