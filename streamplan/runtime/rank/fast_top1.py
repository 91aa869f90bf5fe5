"""FastTop1Function: rank range [1, 1] (FastTop1Helper) over insert-only input, or over
updating input under the UpdateFastStrategy (its rows are all read alike: +I and +U whose
sort key only moves towards the top). The first row is +I; a row whose sort key is strictly
better replaces it with -U (when generateUpdateBefore) and +U; anything else is dropped.
State: the top row."""
from __future__ import annotations

from ...changelog import RowKind
from ..batch_rows import Output
from .top_n import InsertOnlyTopNFunction, RankState


class FastTop1Function(InsertOnlyTopNFunction):
    def process(self, state: RankState, kind: RowKind, row: tuple, out: list[Output]) -> None:
        if self.p.input_insert_only:
            super().process(state, kind, row, out)
        else:                          # UpdateFast: the row kind is not read, as in Flink
            self.process_insert(state, row, out)

    def process_insert(self, state: RankState, row: tuple, out: list[Output]) -> None:
        prev = state.top1
        if prev is None:                                   # processAsFirstRow
            state.top1, state.written = row, True
            if self.p.output_rank_number:
                self._insert(out, row, 1)
            else:
                self._insert(out, row)
            return
        # processWithPrevRow: only a strictly better sort key replaces the top row
        if self.compare(self.sort_key_of(row), self.sort_key_of(prev)) < 0:
            state.top1, state.written = row, True
            if self.p.output_rank_number:
                self._update_before(out, prev, 1)
                self._update_after(out, row, 1)
            else:
                self._update_before(out, prev)
                self._update_after(out, row)
