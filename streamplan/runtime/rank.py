"""Top-N (ROW_NUMBER() <= N per partition key), as a transformWithState processor.

`RankCore` follows Flink 2.x's Top-N functions (flink-table-runtime, operators/rank) record
by record, picked as StreamExecRank picks them for a constant rank range:

* insert-only input, rank range [1, 1]: FastTop1Function (FastTop1Helper). The first row is
  +I; a row whose sort key is strictly better replaces it with -U (when
  generateUpdateBefore) and +U; anything else is dropped. State: the top row.
* insert-only input otherwise: AppendOnlyTopNFunction (AppendOnlyTopNHelper) over a
  TopNBuffer (sort key -> rows in arrival order). A row outside the buffer's range
  (TopNBuffer.checkSortKeyInBufferRange) is dropped unseen. Without the rank number and
  without an offset, processElementWithoutRowNumber evicts the last row when the buffer
  outgrows N (-D, unless it is the new row itself) and emits +I; with the rank number or an
  offset, processElementWithRowNumber shifts the rows below the new one (-U/+U at each rank,
  +I at the first rank nobody had) and drops the sort keys it did not reach from state.
* updating input: RetractableTopNFunction, with its two structures: `data` (sort key -> every
  row, Flink's "data-state" MapState) and `counts` (sort key -> number of rows, Flink's
  "sorted-map" treeMap). Accumulations run emitRecordsWithRowNumber /
  emitRecordsWithoutRowNumber, retractions retractRecordWithRowNumber /
  retractRecordWithoutRowNumber, including Flink's handling of a retraction that finds no
  row (its sort key's count still goes down, the lenient "state cleared" path).

Rows are ranked by the sort key (Flink's generated RecordComparator: per field ascending or
descending, NULLs first or last whatever the direction) and, within one sort key, by
arrival. The rank number, when output, is appended as the last field (BIGINT). Rows are
compared (retraction matching, the append-only "is the evicted row the new one") on all
fields, as Flink's RecordEqualiser / RowData.equals do once the row kind is erased.

Not ported: RANK / DENSE_RANK (Flink rejects them on streams too), variable rank ends
(VariableRankRange: `rn <= column`), UpdatableTopNFunction and FastTop1Function on updating
input (the UpdateFastStrategy, which needs monotonicity analysis of the input's upsert key;
updating input always takes the Retract path here), AppendOnlyFirstNFunction (ORDER BY a
processing-time attribute, which the engine does not have), and the LRU caches in front of
the state. State TTL is per partition key here (one Spark state value), where Flink's map
states expire per sort key.

`RankProcessor` reads a key's state once per batch and writes it once when Flink would have
written it.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Iterator, Optional

from ..changelog import RowKind
from .batch_rows import emitted, plain, rows_of
from .state_ttl import spark_ttl_ms

LOG = logging.getLogger(__name__)

APPEND_STATE = "data-state-with-append"   # AppendOnlyTopNFunction's dataState
RETRACT_STATE = "data-state"               # RetractableTopNFunction's dataState (+ its treeMap)
TOP1_STATE = "Top1-Rank-State"             # FastTop1Function's dataState
STATE_CLEARED_WARN_MSG = ("The state is cleared because of state ttl. This will result in "
                          "incorrect result. You can increase the state ttl to avoid this.")

SortField = tuple[int, bool, bool]          # (field index, ascending, nulls first)


class NotInsertOnlyError(ValueError):
    """An insert-only Top-N (AppendFast strategy) got a row other than +I."""


@dataclass(frozen=True)
class RankParams:
    sort_key: tuple[SortField, ...]
    rank_start: int                    # 1-based, inclusive
    rank_end: int                      # inclusive
    output_rank_number: bool           # append the rank (BIGINT) as the last field
    generate_update_before: bool       # the consumer needs -U rows
    input_insert_only: bool            # AppendFast strategy, else Retract
    ttl_ms: int = 0

    def __post_init__(self):
        if not 1 <= self.rank_start <= self.rank_end:
            raise ValueError(f"Top-N rank range [{self.rank_start}, {self.rank_end}] is empty "
                             f"or does not start at 1 or later")

    @property
    def strategy(self) -> str:
        if not self.input_insert_only:
            return "retract"
        if self.rank_start == 1 and self.rank_end == 1:
            return "top1"              # StreamExecRank: RankUtil.isTop1 -> FastTop1Function
        return "append"

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


Output = tuple[int, tuple]               # (row kind code, row [+ rank])


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


class RankCore:
    """Flink's Top-N functions for one partition key."""

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
        strategy = self.p.strategy
        if strategy == "retract":
            self._retractable(state, kind, row, out)
            return
        if kind is not RowKind.INSERT:
            function = "FastTop1Function" if strategy == "top1" else "AppendOnlyTopNFunction"
            raise NotInsertOnlyError(
                f"Top-N over insert-only input (Flink's {function}) got {kind.short}{list(row)}; "
                f"updating input needs the Retract strategy (RetractableTopNFunction).")
        if strategy == "top1":
            self._fast_top1(state, row, out)
        else:
            self._append_only(state, row, out)

    # --- AbstractTopNFunction's collectors ---------------------------------------------------
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

    # --- FastTop1Function ------------------------------------------------------------------
    def _fast_top1(self, state: RankState, row: tuple, out: list[Output]) -> None:
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

    # --- AppendOnlyTopNFunction --------------------------------------------------------------
    def _append_only(self, state: RankState, row: tuple, out: list[Output]) -> None:
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

    def _check_sort_key_in_buffer_range(self, buffer: dict[tuple, list[tuple]],
                                        sort_key: tuple) -> bool:
        """TopNBuffer.checkSortKeyInBufferRange(sortKey, rankEnd)."""
        if not buffer:
            return True
        worst = self.sorted_keys(buffer)[-1]
        if self.compare(sort_key, worst) < 0:
            return True
        return sum(len(rows) for rows in buffer.values()) < self.rank_end

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

    # --- RetractableTopNFunction -------------------------------------------------------------
    def _retractable(self, state: RankState, kind: RowKind, row: tuple,
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

    @staticmethod
    def _state_staled_error_handle() -> None:
        LOG.warning(STATE_CLEARED_WARN_MSG)        # lenient: Flink only warns

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


# --- the Spark side ---------------------------------------------------------------------------

def state_layout(params: RankParams, row_ddl: str) -> dict[str, dict[str, str]]:
    """One value per partition key, by strategy (`row_ddl`: the input row's fields in Spark
    DDL), with processing-time TTL (always on; see runtime.state_ttl):

    * top1: FastTop1Function's top row;
    * append: the TopNBuffer, its sort keys in order, each with its rows in arrival order;
    * retract: every sort key in order with its rows and its count in Flink's treeMap (a
      count of 0: rows of a sort key the treeMap no longer has).
    Sort keys are not stored: every row of an entry carries its own."""
    row = f"STRUCT<{row_ddl}>"
    if params.strategy == "top1":
        return {TOP1_STATE: {"kind": "value", "value": f"row {row}", "ttl": "processing-time"}}
    if params.strategy == "append":
        return {APPEND_STATE: {"kind": "value",
                               "value": f"sortKeys ARRAY<STRUCT<rows: ARRAY<{row}>>>",
                               "ttl": "processing-time"}}
    return {RETRACT_STATE: {"kind": "value",
                            "value": f"sortKeys ARRAY<STRUCT<count: BIGINT, rows: ARRAY<{row}>>>",
                            "ttl": "processing-time"}}


def decode_state(core: RankCore, stored: Optional[tuple]) -> RankState:
    """A state value as the processor reads it (see state_layout) -> RankState."""
    state = RankState()
    if stored is None:
        return state
    (value,) = stored
    if core.p.strategy == "top1":
        state.top1 = plain(value)
        return state
    for entry in value or []:
        fields = plain(entry)
        rows = [plain(item) for item in fields[-1] or []]
        if not rows:
            continue
        key = core.sort_key_of(rows[0])
        state.data[key] = rows
        if core.p.strategy == "retract" and fields[0]:
            state.counts[key] = fields[0]
    return state


def encode_state(core: RankCore, state: RankState) -> Optional[tuple]:
    """RankState -> the state value to write (None: clear). A retract count without rows
    (only after a state TTL mismatch in Flink) has no row to carry its sort key and is
    dropped, as Flink's processStateStaled drops it when it meets it."""
    if core.p.strategy == "top1":
        return None if state.top1 is None else (state.top1,)
    keys = core.sorted_keys(state.data)
    if core.p.strategy == "append":
        entries = [(list(state.data[key]),) for key in keys]
    else:
        entries = [(state.counts.get(key, 0), list(state.data[key])) for key in keys]
    return (entries,) if entries else None


def make_processor_class():
    """Defined lazily so the planner can import this module without a Spark worker."""
    from pyspark.sql import Row
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor

    class RankProcessor(StatefulProcessor):
        def __init__(self, params: RankParams, layout: dict[str, dict[str, str]],
                     input_names: tuple[str, ...],
                     output_names: Optional[tuple[str, ...]] = None):
            self.params = params
            self.layout = layout
            self.input_names = input_names
            # the output row: the input row, plus the rank number when it is output
            if output_names is None:
                output_names = input_names + (("w0$o0",) if params.output_rank_number else ())
            self.output_names = output_names

        def init(self, handle) -> None:
            (name,) = self.layout
            self.state = handle.getValueState(name, self.layout[name]["value"],
                                              spark_ttl_ms(self.params.ttl_ms))
            self.core = RankCore(self.params)

        def handleInputRows(self, key, rows, timerValues) -> Iterator[Row]:
            decoded = rows_of(rows, self.input_names)
            state = decode_state(self.core, self.state.get())
            out: list[Output] = []
            for kind, values in decoded:
                self.core.process(state, kind, values, out)
            if state.written:
                encoded = encode_state(self.core, state)
                if encoded is None:
                    self.state.clear()
                else:
                    self.state.update(encoded)
            return emitted(out, self.output_names)

        def close(self) -> None:
            pass

    return RankProcessor
