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
* updating input whose sort key only moves towards the top (the UpdateFastStrategy: the
  planner's monotonicity analysis, planner/monotonicity.py): FastTop1Function for [1, 1],
  else UpdatableTopNFunction, which keeps the Top-N's rows only, by the input's unique key,
  and reads every row as an insert or an update of its key (the input sends no -U).
* any other updating input: RetractableTopNFunction, with its two structures: `data` (sort
  key -> every row, Flink's "data-state" MapState) and `counts` (sort key -> number of rows,
  Flink's "sorted-map" treeMap). Accumulations run emitRecordsWithRowNumber /
  emitRecordsWithoutRowNumber, retractions retractRecordWithRowNumber /
  retractRecordWithoutRowNumber, including Flink's handling of a retraction that finds no
  row (its sort key's count still goes down, the lenient "state cleared" path).

Rows are ranked by the sort key (Flink's generated RecordComparator: per field ascending or
descending, NULLs first or last whatever the direction) and, within one sort key, by
arrival. The rank number, when output, is appended as the last field (BIGINT). Rows are
compared (retraction matching, the append-only "is the evicted row the new one") on all
fields, as Flink's RecordEqualiser / RowData.equals do once the row kind is erased.

Not ported: RANK / DENSE_RANK (Flink rejects them on streams too), variable rank ends
(VariableRankRange: `rn <= column`), AppendOnlyFirstNFunction (ORDER BY a
processing-time attribute, which the engine does not have), and the LRU caches in front of
the state. State TTL is per partition key here (one Spark state value), where Flink's map
states expire per sort key.

One module per function, as Flink splits them: `fast_top1`, `append_only`, `retractable`,
`updatable` (what they share: `top_n`); `state`: the layout on Spark and `RankProcessor`.
"""
from __future__ import annotations

from ...errors import NotInsertOnlyError
from .state import (RankProcessor, decode_state, encode_state, processor_class, state_layout,
                    top_n_function)
from .top_n import RankParams, RankState, compare_sort_keys

__all__ = ["NotInsertOnlyError", "RankParams", "RankProcessor", "RankState", "compare_sort_keys",
           "decode_state", "encode_state", "processor_class", "state_layout", "top_n_function"]
