"""UpdatableTopNFunction: updating input under the UpdateFastStrategy (StreamExecRank picks
it when the input's unique key holds the partition key and the sort key only moves towards
the top, and the input then sends no -U). It keeps only the rows in the Top-N, by the
input's unique key (the row key): a row whose key is in the Top-N is an update of that row,
any other a new row. The row kind is not read, as in Flink (its input holds +I and +U).

With the rank number or an offset (processElementWithRowNumber), an update that moves a row
up shifts the rows it passes (-U/+U at each rank, the old row retracted first), a new row
shifts the rows below it and the sort keys it pushed out of the Top-N leave the state; an
update that moves a row down breaks the monotonicity and takes Flink's lenient path
(emitRecordsWithRowNumberIgnoreStateError, logged). Without them
(processElementWithoutRowNumber), an update is -U/+U of the row and a new row in the Top-N
evicts the last row (-D) when the Top-N overflows.

State: sort key -> rows in Flink's inner-rank order (the row key -> (row, inner rank) map
state, and the TopNBuffer Flink rebuilds from it on first access)."""
from __future__ import annotations

from typing import Optional

from ...changelog import RowKind
from ..batch_rows import Output
from .top_n import LOG, AbstractTopNFunction, RankState


class UpdatableTopNFunction(AbstractTopNFunction):
    def row_key_of(self, row: tuple) -> tuple:
        return tuple(row[index] for index in self.p.row_key)

    def process(self, state: RankState, kind: RowKind, row: tuple, out: list[Output]) -> None:
        if self.p.output_rank_number or self.p.has_offset:
            self._process_with_row_number(state, row, out)
        else:
            self._process_without_row_number(state, row, out)

    # --- the buffer (TopNBuffer over row keys, with rowKeyMap's rows) --------------------------
    def _find(self, state: RankState, row_key: tuple) -> Optional[tuple[tuple, tuple]]:
        """rowKeyMap.get: (sort key, row) of the row with this row key in the Top-N."""
        for sort_key, rows in state.data.items():
            for row in rows:
                if self.row_key_of(row) == row_key:
                    return sort_key, row
        return None

    @staticmethod
    def _put(state: RankState, sort_key: tuple, row: tuple) -> None:
        state.data.setdefault(sort_key, []).append(row)
        state.written = True

    def _remove(self, state: RankState, sort_key: tuple, row_key: tuple) -> None:
        rows = [row for row in state.data[sort_key] if self.row_key_of(row) != row_key]
        if rows:
            state.data[sort_key] = rows
        else:
            del state.data[sort_key]
        state.written = True

    def _row_number(self, state: RankState, sort_key: tuple, row_key: tuple) -> int:
        """rowNumber: the rank of the row with this row key under this sort key."""
        rank = 0
        for key in self.sorted_keys(state.data):
            if key != sort_key:
                rank += len(state.data[key])
                continue
            for row in state.data[key]:
                rank += 1
                if self.row_key_of(row) == row_key:
                    return rank
        raise RuntimeError("Failed to find the sortKey, rowkey in the buffer. This should "
                           "never happen")

    # --- processElementWithoutRowNumber -------------------------------------------------------
    def _process_without_row_number(self, state: RankState, row: tuple,
                                    out: list[Output]) -> None:
        sort_key, row_key = self.sort_key_of(row), self.row_key_of(row)
        found = self._find(state, row_key)
        if found is not None:                    # an update of a row in the Top-N
            old_sort_key, old_row = found
            if old_sort_key != sort_key:
                self._remove(state, old_sort_key, row_key)
                self._put(state, sort_key, row)
            else:                                # the row's content may change
                rows = state.data[sort_key]
                rows[rows.index(old_row)] = row
                state.written = True
            self._update_before(out, old_row)
            self._update_after(out, row)
        elif self._check_sort_key_in_buffer_range(state.data, sort_key):
            self._put(state, sort_key, row)
            if sum(len(rows) for rows in state.data.values()) > self.rank_end:
                last_key = self.sorted_keys(state.data)[-1]        # buffer.removeLast()
                last_row = state.data[last_key].pop()
                if not state.data[last_key]:
                    del state.data[last_key]
                self._delete(out, last_row)                       # always a delete
            self._insert(out, row)

    # --- processElementWithRowNumber ----------------------------------------------------------
    def _process_with_row_number(self, state: RankState, row: tuple, out: list[Output]) -> None:
        sort_key, row_key = self.sort_key_of(row), self.row_key_of(row)
        found = self._find(state, row_key)
        if found is not None:
            old_sort_key, old_row = found
            compare = self.compare(sort_key, old_sort_key)
            if compare == 0:                     # the same rank: only the row changes
                rank = self._row_number(state, old_sort_key, row_key)
                rows = state.data[old_sort_key]
                rows[rows.index(old_row)] = row
                state.written = True
                self._update_before(out, old_row, rank)
                self._update_after(out, row, rank)
                return
            old_rank = self._row_number(state, old_sort_key, row_key)
            self._remove(state, old_sort_key, row_key)
            self._put(state, sort_key, row)
            if compare < 0:                      # moved towards the top
                self._emit_with_row_number(state, sort_key, row, out, old_sort_key, old_row,
                                           old_rank)
            else:
                LOG.warning("The input retract record %s's sort key %s is lower than old sort "
                            "key %s, this break the monotonicity on sort key field which is "
                            "guaranteed by the sql semantic.", list(row), list(sort_key),
                            list(old_sort_key))
                new_rank = self._row_number(state, sort_key, row_key)
                self._emit_ignore_state_error(state, row, new_rank, old_row, old_rank, out)
        elif self._check_sort_key_in_buffer_range(state.data, sort_key):
            self._put(state, sort_key, row)
            self._emit_with_row_number(state, sort_key, row, out)

    def _emit_with_row_number(self, state: RankState, sort_key: tuple, input_row: tuple,
                              out: list[Output], old_sort_key: Optional[tuple] = None,
                              old_row: Optional[tuple] = None, old_rank: int = -1) -> None:
        """emitRecordsWithRowNumber."""
        keys = self.sorted_keys(state.data)
        position = 0                                       # the entry iterator
        current_rank = 0
        current_row = None
        finds_sort_key = False
        old_row_retracted = False
        while position < len(keys) and self._in_rank_end(current_rank):
            key = keys[position]
            position += 1
            rows = state.data[key]
            if not finds_sort_key and key == sort_key:     # meets its own sort key
                current_rank += len(rows)
                current_row = input_row
                finds_sort_key = True
            elif finds_sort_key:
                if old_sort_key is None:                   # a new row: shift the rows below
                    limit = lambda rank: self._in_rank_end(rank)     # noqa: E731
                elif self.compare(key, old_sort_key) <= 0:  # above the old rank: shifted
                    limit = lambda rank: rank < old_rank             # noqa: E731
                else:                                      # below it: nothing changes
                    break
                index = 0
                while index < len(rows) and limit(current_rank):
                    prev_row = rows[index]
                    index += 1
                    self._update_before(out, prev_row, current_rank)
                    if current_row is input_row and old_row is not None \
                            and not old_row_retracted:     # the old row first, same key
                        self._update_before(out, old_row, old_rank)
                        old_row_retracted = True
                    self._update_after(out, current_row, current_rank)
                    current_row = prev_row
                    current_rank += 1
            else:
                current_rank += len(rows)
        if self._in_rank_end(current_rank):
            if old_row is None:        # a new row and the Top-N not full: +I at this rank
                self._insert(out, current_row, current_rank)
            else:                      # an update: the old rank gets the last shifted row
                if current_rank != old_rank:
                    raise RuntimeError(f"UpdatableTopNFunction: reached rank {current_rank}, "
                                       f"expected the old rank {old_rank}")
                if not old_row_retracted:
                    self._update_before(out, old_row, old_rank)
                self._update_after(out, current_row, current_rank)
            return
        # the sort keys the iteration did not reach are out of the Top-N: dropped from state
        for key in keys[position:]:
            del state.data[key]
        state.written = True

    def _emit_ignore_state_error(self, state: RankState, new_row: tuple, new_rank: int,
                                 old_row: tuple, old_rank: int, out: list[Output]) -> None:
        """emitRecordsWithRowNumberIgnoreStateError: the ranks [oldRank, newRank]."""
        current_rank = 0
        prev_row = None
        for key in self.sorted_keys(state.data):
            if current_rank > new_rank:
                break
            for current_row in state.data[key]:
                current_rank += 1
                if old_rank <= current_rank:
                    if current_rank == old_rank:
                        self._update_before(out, old_row, old_rank)
                    else:
                        self._update_before(out, prev_row, current_rank)
                        self._update_after(out, prev_row, current_rank - 1)
                        if current_rank == new_rank:
                            self._update_after(out, new_row, current_rank)
                prev_row = current_row
