"""RetractableTopNFunction: updating input, with its two structures: `data` (sort key ->
every row, Flink's "data-state" MapState) and `counts` (sort key -> number of rows, Flink's
"sorted-map" treeMap). Accumulations run emitRecordsWithRowNumber /
emitRecordsWithoutRowNumber, retractions retractRecordWithRowNumber /
retractRecordWithoutRowNumber, including Flink's handling of a retraction that finds no row
(its sort key's count still goes down, the lenient "state cleared" path)."""
from __future__ import annotations

from ...changelog import RowKind
from ..batch_rows import Output
from .top_n import AbstractTopNFunction, RankState


class RetractableTopNFunction(AbstractTopNFunction):
    def process(self, state: RankState, kind: RowKind, row: tuple,
                     out: list[Output]) -> None:
        counts, data = state.counts, state.data
        sort_key = self.sort_key_of(row)
        with_number = self.p.output_rank_number or self.p.has_offset
        if kind.is_accumulate:
            counts[sort_key] = counts.get(sort_key, 0) + 1
            if with_number:
                self._emit_with_row_number(state, sort_key, row, out)
            else:
                self._emit_without_row_number(state, sort_key, row, out)
            data.setdefault(sort_key, []).append(row)
        else:
            if with_number:
                state_removed = self._retract_with_row_number(state, sort_key, row, out)
            else:
                state_removed = self._retract_without_row_number(state, sort_key, row, out)
            if sort_key in counts:
                count = counts[sort_key] - 1
                if count == 0:
                    del counts[sort_key]
                else:
                    counts[sort_key] = count
            else:
                self._state_staled_error_handle()
            if not state_removed:
                # the row was not found in the ranks walked: remove it from the data state
                inputs = data.get(sort_key)
                if inputs is not None:
                    for index, kept in enumerate(inputs):
                        if kept == row:
                            del inputs[index]
                            break
                    if not inputs:
                        del data[sort_key]
        state.written = True           # treeMap.update(sortedMap), every record

    def _process_state_staled(self, state: RankState, key: tuple) -> None:
        del state.counts[key]                      # sortedMapIterator.remove()
        self._state_staled_error_handle()

    def _emit_with_row_number(self, state: RankState, sort_key: tuple, row: tuple,
                              out: list[Output]) -> None:
        """RetractableTopNFunction.emitRecordsWithRowNumber."""
        keys = self.sorted_keys(state.counts)
        current_rank = 0
        current_row = None
        finds_sort_key = False
        position = 0
        while position < len(keys) and self._in_rank_end(current_rank):
            key = keys[position]
            position += 1
            if not finds_sort_key and key == sort_key:
                current_rank += state.counts[key]
                current_row = row
                finds_sort_key = True
            elif finds_sort_key:
                inputs = state.data.get(key)
                if inputs is None:
                    self._process_state_staled(state, key)
                else:
                    index = 0
                    while index < len(inputs) and self._in_rank_end(current_rank):
                        prev_row = inputs[index]
                        self._update_before(out, prev_row, current_rank)
                        self._update_after(out, current_row, current_rank)
                        current_row = prev_row
                        current_rank += 1
                        index += 1
            else:
                current_rank += state.counts[key]
        if self._in_rank_end(current_rank):
            self._insert(out, current_row, current_rank)

    def _emit_without_row_number(self, state: RankState, sort_key: tuple, row: tuple,
                                 out: list[Output]) -> None:
        """RetractableTopNFunction.emitRecordsWithoutRowNumber."""
        keys = self.sorted_keys(state.counts)
        cur_rank = 0
        finds_sort_key = False
        to_collect = None
        to_delete = None
        position = 0
        while position < len(keys) and self._in_rank_end(cur_rank):
            key = keys[position]
            position += 1
            if not finds_sort_key and key == sort_key:
                cur_rank += state.counts[key]
                if self._in_rank_range(cur_rank):
                    to_collect = row
                finds_sort_key = True
            elif finds_sort_key:
                inputs = state.data.get(key)
                if inputs is None:
                    self._process_state_staled(state, key)
                else:
                    rank_of_last_record = cur_rank + state.counts[key]
                    if self._in_rank_end(rank_of_last_record):
                        cur_rank = rank_of_last_record
                    else:
                        # the row pushed from rank N to N + 1 leaves the Top-N
                        to_delete = inputs[self.rank_end - cur_rank]
                        break
            else:
                cur_rank += state.counts[key]
        if to_delete is not None:
            self._delete(out, to_delete)
        if to_collect is not None:
            self._insert(out, row)

    def _retract_with_row_number(self, state: RankState, sort_key: tuple, row: tuple,
                                 out: list[Output]) -> bool:
        """RetractableTopNFunction.retractRecordWithRowNumber; True: the row was removed."""
        keys = self.sorted_keys(state.counts)
        current_rank = 0
        prev_row = None
        finds_sort_key = False
        position = 0
        while position < len(keys) and self._in_rank_end(current_rank):
            key = keys[position]
            position += 1
            if not finds_sort_key and key == sort_key:
                inputs = state.data.get(key)
                if inputs is None:
                    self._process_state_staled(state, key)
                else:
                    index = 0
                    while index < len(inputs) and self._in_rank_end(current_rank):
                        current_row = inputs[index]
                        if not finds_sort_key and current_row == row:
                            prev_row = current_row
                            finds_sort_key = True
                            del inputs[index]              # inputIter.remove()
                        else:
                            if finds_sort_key:
                                self._update_before(out, prev_row, current_rank)
                                self._update_after(out, current_row, current_rank)
                                prev_row = current_row
                            index += 1
                        current_rank += 1
                    if not inputs:
                        del state.data[key]
            elif finds_sort_key:
                inputs = state.data.get(key)
                if inputs is None:
                    self._process_state_staled(state, key)
                else:
                    index = 0
                    while index < len(inputs) and self._in_rank_end(current_rank):
                        current_row = inputs[index]
                        self._update_before(out, prev_row, current_rank)
                        self._update_after(out, current_row, current_rank)
                        prev_row = current_row
                        current_rank += 1
                        index += 1
            else:
                current_rank += state.counts[key]
        if self._in_rank_end(current_rank):
            if not finds_sort_key and prev_row is None:
                self._state_staled_error_handle()
            else:
                # not enough rows left in the Top-N: the last rank goes
                self._delete(out, prev_row, current_rank)
        return finds_sort_key

    def _retract_without_row_number(self, state: RankState, sort_key: tuple, row: tuple,
                                    out: list[Output]) -> bool:
        """RetractableTopNFunction.retractRecordWithoutRowNumber; True: the row was removed."""
        keys = self.sorted_keys(state.counts)
        next_rank = 1                  # the next rank number, in the rank range
        finds_sort_key = False
        position = 0
        while position < len(keys) and self._in_rank_end(next_rank):
            key = keys[position]
            position += 1
            if not finds_sort_key and key == sort_key:
                inputs = state.data.get(key)
                if inputs is None:
                    self._process_state_staled(state, key)
                else:
                    index = 0
                    while index < len(inputs) and self._in_rank_end(next_rank):
                        prev_row = inputs[index]
                        if not finds_sort_key and prev_row == row:
                            self._delete(out, prev_row, next_rank)
                            next_rank -= 1
                            finds_sort_key = True
                            del inputs[index]              # inputIter.remove()
                        else:
                            if finds_sort_key and next_rank == self.rank_end:
                                self._insert(out, prev_row, next_rank)
                            index += 1
                        next_rank += 1
                    if not inputs:
                        del state.data[key]
            elif finds_sort_key:
                rank_of_last_record = next_rank + state.counts[key] - 1
                if rank_of_last_record < self.rank_end:
                    next_rank = rank_of_last_record + 1
                else:
                    # the row that moves up from rank N + 1 enters the Top-N
                    inputs = state.data.get(key)
                    if inputs is None:
                        self._process_state_staled(state, key)
                    else:
                        self._insert(out, inputs[self.rank_end - next_rank])
                        break
            else:
                next_rank += state.counts[key]
        return finds_sort_key
