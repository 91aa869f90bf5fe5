"""What Flink's Top-N functions share (AbstractTopNFunction): the parameters, the state one
partition key holds, the sort-key order and the collectors that emit a row at a rank."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Optional

from ...changelog import RowKind
from ...errors import NotInsertOnlyError
from ..batch_rows import Output
from ..state_ttl import STATE_CLEARED_WARN_MSG

LOG = logging.getLogger("streamplan.runtime.rank")

APPEND_STATE = "data-state-with-append"   # AppendOnlyTopNFunction's dataState
RETRACT_STATE = "data-state"               # RetractableTopNFunction's dataState (+ its treeMap)
UPDATE_STATE = "data-state-with-update"    # UpdatableTopNFunction's dataState
TOP1_STATE = "Top1-Rank-State"             # FastTop1Function's dataState
SortField = tuple[int, bool, bool]          # (field index, ascending, nulls first)


@dataclass(frozen=True)
class RankParams:
    sort_key: tuple[SortField, ...]
    rank_start: int                    # 1-based, inclusive
    rank_end: int                      # inclusive
    output_rank_number: bool           # append the rank (BIGINT) as the last field
    generate_update_before: bool       # the consumer needs -U rows
    input_insert_only: bool            # AppendFast strategy, else Retract or UpdateFast
    ttl_ms: int = 0
    row_key: tuple[int, ...] = ()      # UpdateFast: the input's unique key (primaryKeys)

    def __post_init__(self):
        if not 1 <= self.rank_start <= self.rank_end:
            raise ValueError(f"Top-N rank range [{self.rank_start}, {self.rank_end}] is empty "
                             f"or does not start at 1 or later")

    @property
    def strategy(self) -> str:
        if not self.input_insert_only and not self.row_key:
            return "retract"
        if self.rank_start == 1 and self.rank_end == 1:
            return "top1"              # StreamExecRank: RankUtil.isTop1 -> FastTop1Function
        return "append" if self.input_insert_only else "update"

    @property
    def has_offset(self) -> bool:
        return self.rank_start > 1


@dataclass
class RankState:
    """One partition key's state, loaded and stored by the processor.

    `data`: sort key -> rows in arrival order (the TopNBuffer / dataState); `counts`: sort
    key -> count (RetractableTopNFunction's treeMap; unused otherwise); `top1`: the top row
    (FastTop1Function). `written` is set whenever Flink writes its state."""

    data: dict[tuple, list[tuple]] = field(default_factory=dict)
    counts: dict[tuple, int] = field(default_factory=dict)
    top1: Optional[tuple] = None
    written: bool = False

    @property
    def empty(self) -> bool:
        return not self.data and not self.counts and self.top1 is None


def compare_sort_keys(sort_key: tuple[SortField, ...], a: tuple, b: tuple) -> int:
    """Flink's generated sort-key comparator: NULLs first or last whatever the direction,
    non-NULL values in ascending or descending order."""
    for (_, ascending, nulls_first), left, right in zip(sort_key, a, b):
        if left is None and right is None:
            continue
        if left is None:
            return -1 if nulls_first else 1
        if right is None:
            return 1 if nulls_first else -1
        comp = (left > right) - (left < right)
        if comp != 0:
            return comp if ascending else -comp
    return 0


class AbstractTopNFunction:
    """One partition key's Top-N function: `process` takes one row."""

    def __init__(self, params: RankParams):
        self.p = params
        self.rank_end = params.rank_end
        self.rank_start = params.rank_start
        self._order = cmp_to_key(lambda a, b: compare_sort_keys(params.sort_key, a, b))

    def sort_key_of(self, row: tuple) -> tuple:
        return tuple(row[index] for index, _, _ in self.p.sort_key)

    def compare(self, a: tuple, b: tuple) -> int:
        return compare_sort_keys(self.p.sort_key, a, b)

    def sorted_keys(self, keys) -> list[tuple]:
        return sorted(keys, key=self._order)

    def process(self, state: RankState, kind: RowKind, row: tuple, out: list[Output]) -> None:
        raise NotImplementedError

    def _check_sort_key_in_buffer_range(self, buffer: dict[tuple, list[tuple]],
                                        sort_key: tuple) -> bool:
        """TopNBuffer.checkSortKeyInBufferRange(sortKey, rankEnd)."""
        if not buffer:
            return True
        worst = self.sorted_keys(buffer)[-1]
        if self.compare(sort_key, worst) < 0:
            return True
        return sum(len(rows) for rows in buffer.values()) < self.rank_end

    @staticmethod
    def _state_staled_error_handle() -> None:
        LOG.warning(STATE_CLEARED_WARN_MSG)        # lenient: Flink only warns

    # --- the collectors ----------------------------------------------------------------------
    def _in_rank_end(self, rank: int) -> bool:
        return rank <= self.rank_end

    def _in_rank_range(self, rank: int) -> bool:
        return self.rank_start <= rank <= self.rank_end

    def _output(self, row: tuple, rank: int) -> tuple:
        return row + (rank,) if self.p.output_rank_number else row

    def _insert(self, out: list[Output], row: tuple, rank: Optional[int] = None) -> None:
        if rank is None:
            out.append((RowKind.INSERT.code, row))
        elif self._in_rank_range(rank):
            out.append((RowKind.INSERT.code, self._output(row, rank)))

    def _delete(self, out: list[Output], row: tuple, rank: Optional[int] = None) -> None:
        if rank is None:
            out.append((RowKind.DELETE.code, row))
        elif self._in_rank_range(rank):
            out.append((RowKind.DELETE.code, self._output(row, rank)))

    def _update_after(self, out: list[Output], row: tuple, rank: Optional[int] = None) -> None:
        if rank is None:
            out.append((RowKind.UPDATE_AFTER.code, row))
        elif self._in_rank_range(rank):
            out.append((RowKind.UPDATE_AFTER.code, self._output(row, rank)))

    def _update_before(self, out: list[Output], row: tuple, rank: Optional[int] = None) -> None:
        if not self.p.generate_update_before:
            return
        if rank is None:
            out.append((RowKind.UPDATE_BEFORE.code, row))
        elif self._in_rank_range(rank):
            out.append((RowKind.UPDATE_BEFORE.code, self._output(row, rank)))


class InsertOnlyTopNFunction(AbstractTopNFunction):
    """The functions over insert-only input (the AppendFast strategy) refuse anything else."""

    def process(self, state: RankState, kind: RowKind, row: tuple, out: list[Output]) -> None:
        if kind is not RowKind.INSERT:
            raise NotInsertOnlyError(
                f"Top-N over insert-only input (Flink's {type(self).__name__}) got "
                f"{kind.short}{list(row)}; updating input needs the Retract strategy "
                f"(RetractableTopNFunction).")
        self.process_insert(state, row, out)

    def process_insert(self, state: RankState, row: tuple, out: list[Output]) -> None:
        raise NotImplementedError
