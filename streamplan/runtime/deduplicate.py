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

* RowTimeDeduplicateKeepFirstRowFunction (`KeepFirstOnTimerCore`), what Flink 2.x runs for
  event-time keep-first when the plan's `outputInsertOnly` is set (older plans: the
  RowTimeDeduplicateFunction above): a row behind the watermark is dropped, a key already
  emitted ignores every row, else the earliest row (an equal row time keeps the first)
  waits in "waiting-to-emit-on-timer" with an event-time timer at its row time, which
  emits it (+I), clears it and sets "already-emitted-state-boolean" (with state TTL, the
  only state that expires).

Not ported: the mini-batch functions (ProcTime/RowTimeMiniBatch*, a mini-batch is not
Spark's micro-batch).

`DeduplicateProcessor` runs in processing-time mode, which Spark's state TTL needs; it reads
a key's state once per batch and writes it when Flink writes it (which refreshes its TTL):
the core returns the kept value itself (the same object) when Flink leaves the state
untouched. `KeepFirstOnTimerProcessor` needs event-time timers, and Spark allows no state
TTL in event-time mode, so it stores when the emitted flag was written and reads a flag
older than the TTL as absent (Flink's default: never return expired state; the flag is
written once, so its TTL starts then).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

from ..changelog import RowKind
from ..errors import NotInsertOnlyError
from .batch_rows import Output, emitted, plain, rows_of
from .processor import KeyedValueProcessor, Processor
from .timestamps import to_millis

DEDUPLICATE_STATE = "deduplicate-state"     # Flink's state name (SyncStateDeduplicateFunctionBase)
# RowTimeDeduplicateKeepFirstRowFunction's state names
WAITING_STATE = "waiting-to-emit-on-timer"
EMITTED_STATE = "already-emitted-state-boolean"

# The kept value of proctime keep-first: Flink keeps a Boolean flag, not the row.
FIRST_ROW_SEEN: tuple = ("first-row-seen",)


@dataclass(frozen=True)
class DeduplicateParams:
    keep_last_row: bool
    rowtime_index: Optional[int]       # None: processing time (arrival order)
    generate_update_before: bool       # the consumer needs -U rows
    generate_insert: bool = True       # table.exec.insert-and-updateafter-sensitive
    ttl_ms: int = 0                    # state retention; > 0 also re-emits equal rows
    emit_on_timer: bool = False        # event-time keep-first, insert-only (KeepFirstOnTimerCore)

    @property
    def is_rowtime(self) -> bool:
        return self.rowtime_index is not None

    @property
    def keeps_flag(self) -> bool:
        """Proctime keep-first keeps a flag; every other variant keeps the row."""
        return not self.is_rowtime and not self.keep_last_row


def check_insert_only(kind: RowKind, row: tuple) -> None:
    """DeduplicateFunctionHelper.checkInsertOnly."""
    if kind is not RowKind.INSERT:
        raise NotInsertOnlyError(
            f"Deduplicate accepts only insert (+I) rows, as Flink's checkInsertOnly requires, but "
            f"got {kind.short}{list(row)}; its input must be insert-only (plan a rank instead).")


def rowtime_of(row: tuple, index: int) -> int:
    value = row[index]
    if value is None:
        raise ValueError(f"Deduplicate on row time got a NULL row time (field {index}) in "
                         f"{list(row)}")
    return to_millis(value)


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
        return rowtime_of(row, self.p.rowtime_index)

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


class KeepFirstOnTimerCore:
    """RowTimeDeduplicateKeepFirstRowFunction for one key: `process` returns the row waiting
    for its timer afterwards (`waiting` itself when unchanged); the timer at the waiting
    row's row time emits it (`fire`)."""

    def __init__(self, params: DeduplicateParams):
        self.p = params

    def rowtime(self, row: tuple) -> int:
        return rowtime_of(row, self.p.rowtime_index)

    def process(self, waiting: Optional[tuple], already_emitted: bool, kind: RowKind,
                row: tuple, watermark: int) -> Optional[tuple]:
        check_insert_only(kind, row)
        rowtime = self.rowtime(row)
        if rowtime < watermark or already_emitted:
            return waiting             # late (dropped), or the key's row is out already
        if waiting is None or rowtime < self.rowtime(waiting):
            return row
        return waiting

    @staticmethod
    def fire(waiting: Optional[tuple], out: list[Output]) -> bool:
        """onTimer: emits the waiting row; True when the key is now emitted."""
        if waiting is None:
            return False
        out.append((RowKind.INSERT.code, waiting))
        return True


def flag_expired(written_ms: int, now_ms: int, ttl_ms: int) -> bool:
    """Flink's TTL (OnCreateAndWrite, NeverReturnExpired) of a value written at `written_ms`."""
    return ttl_ms > 0 and written_ms + ttl_ms <= now_ms


# --- the Spark side ---------------------------------------------------------------------------

def state_layout(params: DeduplicateParams, row_ddl: str) -> dict[str, dict[str, str]]:
    """One value per deduplicate key (Flink's "deduplicate-state"): the first-row flag for
    proctime keep-first, else the kept row; processing-time TTL (always on, see
    runtime.state_ttl). Keep-first on timers: the waiting row and when the emitted flag was
    written. `row_ddl` is the input row's fields in Spark DDL."""
    if params.emit_on_timer:
        return {WAITING_STATE: {"kind": "value", "value": f"row STRUCT<{row_ddl}>"},
                EMITTED_STATE: {"kind": "value", "value": "written_ms BIGINT",
                                "ttl": "checked on read"}}
    value = "seen BOOLEAN" if params.keeps_flag else f"row STRUCT<{row_ddl}>"
    return {DEDUPLICATE_STATE: {"kind": "value", "value": value, "ttl": "processing-time"}}


class KeepFirstOnTimerProcessor(Processor):
    """Event-time keep-first: two states and timers, so not the keyed-value template."""

    def init(self, handle) -> None:
        self.handle = handle
        self.waiting = handle.getValueState(WAITING_STATE, self.layout[WAITING_STATE]["value"])
        self.emitted = handle.getValueState(EMITTED_STATE, self.layout[EMITTED_STATE]["value"])
        self.core = KeepFirstOnTimerCore(self.params)

    def _already_emitted(self, now_ms: int) -> bool:
        stored = self.emitted.get()
        if stored is None:
            return False
        if flag_expired(stored[0], now_ms, self.params.ttl_ms):
            self.emitted.clear()
            return False
        return True

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        stored = self.waiting.get()
        loaded = None if stored is None else plain(stored[0])
        watermark = timerValues.getCurrentWatermarkInMs()
        already_emitted = self._already_emitted(timerValues.getCurrentProcessingTimeInMs())
        waiting = loaded
        for kind, values in rows_of(rows, self.input_names):
            waiting = self.core.process(waiting, already_emitted, kind, values, watermark)
        if waiting is not loaded:      # an earlier row: its timer replaces the old one
            if loaded is not None:
                self.handle.deleteTimer(self.core.rowtime(loaded))
            self.handle.registerTimer(self.core.rowtime(waiting))
            self.waiting.update((waiting,))
        return iter([])

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator:
        stored = self.waiting.get()
        out: list[Output] = []
        if self.core.fire(None if stored is None else plain(stored[0]), out):
            self.waiting.clear()
            self.emitted.update((timerValues.getCurrentProcessingTimeInMs(),))
        return emitted(out, self.output_names)


class DeduplicateProcessor(KeyedValueProcessor):
    CORE = DeduplicateCore

    def decode(self, stored):
        if stored is None:
            return None
        return FIRST_ROW_SEEN if self.params.keeps_flag else plain(stored[0])

    def step(self, key, kept, kind, row, out):
        return self.core.process(kept, kind, row, out)

    def encode(self, kept):
        return (True,) if self.params.keeps_flag else (kept,)


def processor_class(params: DeduplicateParams) -> type[Processor]:
    return KeepFirstOnTimerProcessor if params.emit_on_timer else DeduplicateProcessor
