"""AppendOnlyTopNFunction: insert-only input (AppendOnlyTopNHelper) over a TopNBuffer (sort
key -> rows in arrival order). A row outside the buffer's range
(TopNBuffer.checkSortKeyInBufferRange) is dropped unseen. Without the rank number and
without an offset, processElementWithoutRowNumber evicts the last row when the buffer
outgrows N (-D, unless it is the new row itself) and emits +I; with the rank number or an
offset, processElementWithRowNumber shifts the rows below the new one (-U/+U at each rank,
+I at the first rank nobody had) and drops the sort keys it did not reach from state."""
from __future__ import annotations

from ..batch_rows import Output
from .top_n import InsertOnlyTopNFunction, RankState


class AppendOnlyTopNFunction(InsertOnlyTopNFunction):
    def process_insert(self, state: RankState, row: tuple, out: list[Output]) -> None:
        buffer = state.data
        sort_key = self.sort_key_of(row)
        if not self._check_sort_key_in_buffer_range(buffer, sort_key):
            return
        buffer.setdefault(sort_key, []).append(row)        # TopNBuffer.put
        state.written = True                               # dataState.put(sortKey, ...)
        if self.p.output_rank_number or self.p.has_offset:
            self._append_with_row_number(state, sort_key, row, out)
        else:
            self._append_without_row_number(state, row, out)

    def _append_with_row_number(self, state: RankState, sort_key: tuple, row: tuple,
                                out: list[Output]) -> None:
        """AppendOnlyTopNHelper.processElementWithRowNumber."""
        buffer = state.data
        keys = self.sorted_keys(buffer)
        position = 0                                       # the entry iterator
        current_rank = 0
        finds_sort_key = False
        current_row = None
        while position < len(keys) and self._in_rank_end(current_rank):
            key = keys[position]
            position += 1
            records = buffer[key]
            if not finds_sort_key and key == sort_key:     # meets its own sort key
                current_rank += len(records)
                current_row = row
                finds_sort_key = True
            elif finds_sort_key:
                index = 0
                while index < len(records) and self._in_rank_end(current_rank):
                    prev_row = records[index]
                    index += 1
                    self._update_before(out, prev_row, current_rank)
                    self._update_after(out, current_row, current_rank)
                    current_row = prev_row
                    current_rank += 1
            else:
                current_rank += len(records)
        if self._in_rank_end(current_rank):
            # not enough rows in the Top-N: the last shifted (or the new) row is new at this rank
            self._insert(out, current_row, current_rank)
        # the sort keys the iteration did not reach are out of the Top-N: dropped from state
        for key in keys[position:]:
            del buffer[key]

    def _append_without_row_number(self, state: RankState, row: tuple,
                                   out: list[Output]) -> None:
        """AppendOnlyTopNHelper.processElementWithoutRowNumber."""
        buffer = state.data
        if sum(len(rows) for rows in buffer.values()) > self.rank_end:
            last_key = self.sorted_keys(buffer)[-1]
            last_list = buffer[last_key]
            last_element = last_list[-1]
            size = len(last_list)
            if size <= 1:
                del buffer[last_key]
            else:
                last_list.pop()
            if size == 0 or row == last_element:
                return                 # the new row itself fell out: nothing changes
            self._delete(out, last_element)
        self._insert(out, row)         # it first appears in the Top-N
