"""Deduplication (ROW_NUMBER() = 1 on a time attribute), as a transformWithState processor.

`DeduplicateCore` follows Flink 2.x's deduplicate functions (flink-table-runtime,
operators/deduplicate) record by record, as `StreamExecDeduplicate` picks them when
mini-batch is off:

* ProcTimeDeduplicateKeepFirstRowFunction -> DeduplicateFunctionHelper.processFirstRowOnProcTime:
  the first row of a key is emitted as is (+I), later rows are dropped; the state is a flag,
  written once (so with state TTL the key is forgotten `ttl` after its first row).
* ProcTimeDeduplicateKeepLastRowFunction (inputInsertOnly = true) ->
  DeduplicateFunctionHelper.processLastRowOnProcTime: the first row is +I, every later row
  replaces the kept one with -U (when generateUpdateBefore) and +U; a row equal to the kept
  one emits nothing unless state TTL is on (Flink's RecordEqualiser, which also compares
  row kinds: both are INSERT here). When neither UPDATE_BEFORE nor INSERT is needed
  (generateUpdateBefore = generateInsert = false), no state is used and every row is +U.
* RowTimeDeduplicateFunction -> RowTimeDeduplicateFunctionHelper.deduplicateOnRowTime with
  DeduplicateFunctionHelper.shouldKeepCurrentRow / updateDeduplicateResult: keep-last
  replaces the kept row when `rowtime >= kept rowtime`, keep-first when `rowtime < kept
  rowtime` (an equal rowtime keeps the first); a replacement emits +I (no kept row), or -U
  (when generateUpdateBefore) and +U, or +U only when neither UPDATE_BEFORE nor INSERT is
  needed. There is no equality check on row time: an identical row still emits -U/+U.

Every function starts with DeduplicateFunctionHelper.checkInsertOnly: a row other than +I
fails the query (`NotInsertOnlyError`).

`generate_insert` is Flink's `table.exec.insert-and-updateafter-sensitive` (default true).

Not ported: the mini-batch functions (ProcTime/RowTimeMiniBatch*, a mini-batch is not
Spark's micro-batch) and RowTimeDeduplicateKeepFirstRowFunction (Flink's insert-only
keep-first on row time that emits on event-time timers); the processor runs in
processing-time mode, which state TTL needs.

`DeduplicateProcessor` reads a key's state once per batch and writes it when Flink writes
it (which refreshes its TTL): the core returns the kept value itself (the same object)
when Flink leaves the state untouched.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Optional

from ..changelog import RowKind
from .interval_join import to_millis
from .batch_rows import emitted, rows_of
from .state_ttl import spark_ttl_ms

DEDUPLICATE_STATE = "deduplicate-state"     # Flink's state name (SyncStateDeduplicateFunctionBase)

# The kept value of proctime keep-first: Flink keeps a Boolean flag, not the row.
FIRST_ROW_SEEN: tuple = ("first-row-seen",)


class NotInsertOnlyError(ValueError):
    """A deduplicate got a row other than +I (Flink's checkInsertOnly)."""


@dataclass(frozen=True)
class DeduplicateParams:
    keep_last_row: bool
    rowtime_index: Optional[int]       # None: processing time (arrival order)
    generate_update_before: bool       # the consumer needs -U rows
    generate_insert: bool = True       # table.exec.insert-and-updateafter-sensitive
    ttl_ms: int = 0                    # state retention; > 0 also re-emits equal rows

    @property
    def is_rowtime(self) -> bool:
        return self.rowtime_index is not None

    @property
    def keeps_flag(self) -> bool:
        """Proctime keep-first keeps a flag; every other variant keeps the row."""
        return not self.is_rowtime and not self.keep_last_row


Output = tuple[int, tuple]               # (row kind code, row)


def check_insert_only(kind: RowKind, row: tuple) -> None:
    """DeduplicateFunctionHelper.checkInsertOnly."""
    if kind is not RowKind.INSERT:
        raise NotInsertOnlyError(
            f"Deduplicate accepts only insert (+I) rows, as Flink's checkInsertOnly requires, but "
            f"got {kind.short}{list(row)}; its input must be insert-only (plan a rank instead).")


class DeduplicateCore:
    """Flink's deduplicate functions for one key."""

    def __init__(self, params: DeduplicateParams):
        self.p = params
        self.state_ttl_enabled = params.ttl_ms > 0

    def process(self, kept: Optional[tuple], kind: RowKind, row: tuple,
                out: list[Output]) -> Optional[tuple]:
        """One input row; returns the key's kept value afterwards: `kept` itself when Flink
        does not write the state, FIRST_ROW_SEEN for proctime keep-first."""
        check_insert_only(kind, row)
        if self.p.is_rowtime:
            return self._on_rowtime(kept, row, out)
        if not self.p.keep_last_row:
            return self._first_row_on_proctime(kept, row, out)
        return self._last_row_on_proctime(kept, row, out)

    # DeduplicateFunctionHelper.processFirstRowOnProcTime
    @staticmethod
    def _first_row_on_proctime(kept: Optional[tuple], row: tuple,
                               out: list[Output]) -> Optional[tuple]:
        if kept is not None:
            return kept                # not the first row: ignored, state untouched
        out.append((RowKind.INSERT.code, row))
        return FIRST_ROW_SEEN

    # DeduplicateFunctionHelper.processLastRowOnProcTime
    def _last_row_on_proctime(self, kept: Optional[tuple], row: tuple,
                              out: list[Output]) -> Optional[tuple]:
        p = self.p
        if not (p.generate_update_before or p.generate_insert):
            out.append((RowKind.UPDATE_AFTER.code, row))   # stateless: always +U
            return kept
        # the state is updated before anything is compared or emitted
        if kept is None:
            out.append((RowKind.INSERT.code, row))
        elif not self.state_ttl_enabled and kept == row:
            pass                       # same content (both INSERT): nothing emitted
        else:
            if p.generate_update_before:
                out.append((RowKind.UPDATE_BEFORE.code, kept))
            out.append((RowKind.UPDATE_AFTER.code, row))
        return row

    # RowTimeDeduplicateFunctionHelper.deduplicateOnRowTime
    def _on_rowtime(self, kept: Optional[tuple], row: tuple,
                    out: list[Output]) -> Optional[tuple]:
        if not self._should_keep_current_row(kept, row):
            return kept
        self._update_deduplicate_result(kept, row, out)
        return row

    def _rowtime(self, row: tuple) -> int:
        value = row[self.p.rowtime_index]
        if value is None:
            raise ValueError(f"Deduplicate on row time got a NULL row time (field "
                             f"{self.p.rowtime_index}) in {list(row)}")
        return to_millis(value)

    # DeduplicateFunctionHelper.shouldKeepCurrentRow
    def _should_keep_current_row(self, kept: Optional[tuple], row: tuple) -> bool:
        if kept is None:
            return True
        if self.p.keep_last_row:
            return self._rowtime(kept) <= self._rowtime(row)
        return self._rowtime(row) < self._rowtime(kept)

    # DeduplicateFunctionHelper.updateDeduplicateResult
    def _update_deduplicate_result(self, kept: Optional[tuple], row: tuple,
                                   out: list[Output]) -> None:
        p = self.p
        if p.generate_update_before or p.generate_insert:
            if kept is None:
                out.append((RowKind.INSERT.code, row))
            else:
                if p.generate_update_before:
                    out.append((RowKind.UPDATE_BEFORE.code, kept))
                out.append((RowKind.UPDATE_AFTER.code, row))
        else:
            out.append((RowKind.UPDATE_AFTER.code, row))


# --- the Spark side ---------------------------------------------------------------------------

def state_layout(params: DeduplicateParams, row_ddl: str) -> dict[str, dict[str, str]]:
    """One value per deduplicate key (Flink's "deduplicate-state"): the first-row flag for
    proctime keep-first, else the kept row; processing-time TTL (always on, see
    runtime.state_ttl). `row_ddl` is the input row's fields in Spark DDL."""
    value = "seen BOOLEAN" if params.keeps_flag else f"row STRUCT<{row_ddl}>"
    return {DEDUPLICATE_STATE: {"kind": "value", "value": value, "ttl": "processing-time"}}


def _plain(struct: Any) -> tuple:
    return tuple(struct.values()) if isinstance(struct, dict) else tuple(struct)


def make_processor_class():
    """Defined lazily so the planner can import this module without a Spark worker."""
    from pyspark.sql import Row
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor

    class DeduplicateProcessor(StatefulProcessor):
        def __init__(self, params: DeduplicateParams, layout: dict[str, dict[str, str]],
                     names: tuple[str, ...]):
            self.params = params
            self.layout = layout
            self.names = names             # input and output columns (the same row)

        def init(self, handle) -> None:
            spec = self.layout[DEDUPLICATE_STATE]
            self.state = handle.getValueState(DEDUPLICATE_STATE, spec["value"],
                                              spark_ttl_ms(self.params.ttl_ms))
            self.core = DeduplicateCore(self.params)

        def handleInputRows(self, key, rows, timerValues) -> Iterator[Row]:
            decoded = rows_of(rows, self.names)
            stored = self.state.get()
            if stored is None:
                loaded = None
            elif self.params.keeps_flag:
                loaded = FIRST_ROW_SEEN
            else:
                loaded = _plain(stored[0])
            kept = loaded
            out: list[Output] = []
            for kind, values in decoded:
                kept = self.core.process(kept, kind, values, out)
            if kept is not loaded:         # Flink wrote the state (which refreshes its TTL)
                self.state.update((True,) if self.params.keeps_flag else (kept,))
            return emitted(out, self.names)

        def close(self) -> None:
            pass

    return DeduplicateProcessor
