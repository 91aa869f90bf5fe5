"""Window Top-N: `ROW_NUMBER() OVER (PARTITION BY window_start, window_end[, k] ORDER BY ...)
<= N` over a window table function or a window aggregate (Flink's StreamExecWindowRank
running SyncStateWindowRankProcessor with TopNRecordsCombiner), as a transformWithState
processor.

Per partition key and window end, the state holds the window's rows by sort key (Flink's
"window_rank" map state: sort key -> rows in arrival order, namespace window end):

* `combine` (TopNRecordsCombiner.combine): the window's buffered rows go into a fresh
  TopNBuffer, each only if `TopNBuffer.checkSortKeyInBufferRange(sortKey, rankEnd)` lets it
  (the buffer is empty, its sort key is better than the buffer's worst, or the buffer holds
  fewer than rankEnd rows); the buffer's rows are then appended to the state's lists;
* `fire` (fireWindow): the state's sort keys in order, each key's rows in arrival order,
  numbered from 1; the rows ranked rankStart to rankEnd are emitted as +I, with the rank
  appended when `outputRankNumber`.

Rows are ordered by the rank's sort-key comparator (`rank.compare_sort_keys`, Flink's
generated RecordComparator). Late rows, timers and window cleanup: `window_buffer`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cmp_to_key

from ..changelog import RowKind
from .batch_rows import Output, plain
from .rank.top_n import SortField, compare_sort_keys
from .window_buffer import WindowBufferCore, WindowBufferProcessor, window_state_layout

WINDOW_RANK_STATE = "window_rank"           # Flink's state name (SyncStateWindowRankProcessor)


@dataclass(frozen=True)
class WindowRankParams:
    window_end_index: int
    sort_key: tuple[SortField, ...]         # (field index, ascending, nulls first)
    rank_start: int
    rank_end: int
    output_rank_number: bool
    drop_late_rows: bool = True             # see window_buffer: False over a window aggregate

    def __post_init__(self):
        if not 1 <= self.rank_start <= self.rank_end:
            raise ValueError(f"window rank range [{self.rank_start}, {self.rank_end}] is empty "
                             f"or does not start at 1 or later")


class WindowRankCore(WindowBufferCore):
    """A window's value: {sort key: rows in arrival order}."""

    NODE = "Window rank"

    def __init__(self, params: WindowRankParams):
        super().__init__(params)
        self._order = cmp_to_key(lambda a, b: compare_sort_keys(params.sort_key, a, b))

    def sort_key_of(self, row: tuple) -> tuple:
        return tuple(row[index] for index, _, _ in self.p.sort_key)

    def sorted_keys(self, keys) -> list[tuple]:
        return sorted(keys, key=self._order)

    def _in_buffer_range(self, buffer: dict, sort_key: tuple) -> bool:
        """TopNBuffer.checkSortKeyInBufferRange(sortKey, rankEnd)."""
        if not buffer:
            return True
        worst = self.sorted_keys(buffer)[-1]
        if compare_sort_keys(self.p.sort_key, sort_key, worst) < 0:
            return True
        return sum(len(rows) for rows in buffer.values()) < self.p.rank_end

    # TopNRecordsCombiner.combine
    def combine(self, value, records):
        buffer: dict[tuple, list[tuple]] = {}
        for row in records:
            sort_key = self.sort_key_of(row)
            if self._in_buffer_range(buffer, sort_key):
                buffer.setdefault(sort_key, []).append(row)
        if not buffer:
            return value
        merged = {key: list(rows) for key, rows in (value or {}).items()}
        for sort_key in self.sorted_keys(buffer):
            merged.setdefault(sort_key, []).extend(buffer[sort_key])
        return merged

    # SyncStateWindowRankProcessor.fireWindow
    def fire(self, value, out: list[Output]) -> None:
        rank = 1
        for sort_key in self.sorted_keys(value):
            for row in value[sort_key]:
                if rank > self.p.rank_end:
                    return
                if rank >= self.p.rank_start:
                    out.append((RowKind.INSERT.code,
                                row + (rank,) if self.p.output_rank_number else row))
                rank += 1


def state_layout(params: WindowRankParams, row_ddl: str) -> dict[str, dict[str, str]]:
    """Per partition key, window end -> the window's sort keys in order, each with its rows
    in arrival order (the sort key is not stored: every row carries it)."""
    return window_state_layout(WINDOW_RANK_STATE,
                               f"sortKeys ARRAY<STRUCT<rows: ARRAY<STRUCT<{row_ddl}>>>>")


class WindowRankProcessor(WindowBufferProcessor):
    CORE = WindowRankCore

    def decode(self, stored):
        (entries,) = plain(stored)
        value: dict[tuple, list[tuple]] = {}
        for entry in entries or []:
            rows = [plain(row) for row in plain(entry)[0] or []]
            if rows:
                value[self.core.sort_key_of(rows[0])] = rows
        return value

    def encode(self, value):
        return ([(list(value[key]),) for key in self.core.sorted_keys(value)],)


def processor_class(params: WindowRankParams) -> type[WindowRankProcessor]:
    return WindowRankProcessor
