"""Sink upsert materializer, as a transformWithState processor.

`UpsertMaterializerCore` follows Flink 2.x's SinkUpsertMaterializer (flink-table-runtime,
operators/sink; the operator StreamExecSink puts before an upsert sink when
`table.exec.sink.upsert-materialize` is FORCE, or AUTO and the input's upsert key differs
from the sink's primary key) record by record. Per sink primary key it keeps the list of
rows that were added and not retracted yet, in order; the last one is what the sink holds:

* +I / +U (addRow): without an upsert key the row is appended; with one, it replaces the
  first kept row with the same upsert key in place (else it is appended). The row is then
  emitted as +I when the list was empty, else as +U (even when it replaced a row that is
  not the last one).
* -U / -D (retractRow): the first kept row equal to it is removed (equal on all fields,
  or on the upsert key when there is one; row kinds are ignored). When the list becomes
  empty, the retraction is emitted as -D (with the retraction's values); when the removed
  row was the last one, the new last row is emitted as +U; otherwise nothing (an earlier
  row went, the sink's row is unchanged). A retraction that finds nothing emits nothing
  (Flink logs that the state was probably cleared by TTL).

Not ported: SinkUpsertMaterializerV2 and the watermark-compacting materializer of later
Flink versions (other `table.exec.sink.upsert-materialize-strategy` values).

`UpsertMaterializerProcessor` reads a key's list once per batch and writes it (or clears
it) once when Flink wrote it.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Optional

from ..changelog import RowKind
from .batch_rows import Output, plain
from .processor import KeyedStateObjectProcessor
from .state_ttl import STATE_CLEARED_WARN_MSG

LOG = logging.getLogger(__name__)

VALUES_STATE = "values"                    # SinkUpsertMaterializer's state name


@dataclass(frozen=True)
class UpsertMaterializerParams:
    ttl_ms: int = 0
    upsert_key: Optional[tuple[int, ...]] = None     # the input's upsert key, if it has one

    @property
    def has_upsert_key(self) -> bool:
        return bool(self.upsert_key)


@dataclass
class SinkValues:
    """One sink key's kept rows (Flink's ValueState<List<RowData>>), oldest first, and
    whether Flink wrote the state since it was loaded."""

    rows: list[tuple] = field(default_factory=list)
    written: bool = False




class UpsertMaterializerCore:
    """SinkUpsertMaterializer.processElement for one sink primary key."""

    def __init__(self, params: UpsertMaterializerParams):
        self.p = params

    def process(self, values: SinkValues, kind: RowKind, row: tuple, out: list[Output]) -> None:
        if kind.is_accumulate:
            self._add_row(values, row, out)
        else:
            self._retract_row(values, row, out)

    def _add_row(self, values: SinkValues, row: tuple, out: list[Output]) -> None:
        rows = values.rows
        out_kind = RowKind.INSERT if not rows else RowKind.UPDATE_AFTER
        if self.p.has_upsert_key:
            index = self._find_first(rows, row)
            if index == -1:
                rows.append(row)
            else:
                rows[index] = row
        else:
            rows.append(row)
        out.append((out_kind.code, row))
        values.written = True          # "always need to sync with state"

    def _retract_row(self, values: SinkValues, row: tuple, out: list[Output]) -> None:
        rows = values.rows
        last_index = len(rows) - 1
        index = self._find_first(rows, row)
        if index == -1:
            LOG.info(STATE_CLEARED_WARN_MSG)
            return
        del rows[index]                # the first match goes
        if not rows:
            out.append((RowKind.DELETE.code, row))
        elif index == last_index:
            out.append((RowKind.UPDATE_AFTER.code, rows[-1]))    # back to the previous row
        values.written = True          # state.clear() or state.update(values)

    def _find_first(self, rows: list[tuple], target: tuple) -> int:
        for index, kept in enumerate(rows):
            if self._equals_ignore_row_kind(target, kept):
                return index
        return -1

    def _equals_ignore_row_kind(self, new_row: tuple, old_row: tuple) -> bool:
        if self.p.has_upsert_key:
            return all(new_row[i] == old_row[i] for i in self.p.upsert_key)
        return new_row == old_row


# --- the Spark side ---------------------------------------------------------------------------

def state_layout(params: UpsertMaterializerParams, row_ddl: str) -> dict[str, dict[str, str]]:
    """One value per sink primary key: the kept rows in order (`row_ddl`: the input row's
    fields in Spark DDL), with processing-time TTL (always on; see runtime.state_ttl)."""
    return {VALUES_STATE: {"kind": "value", "value": f"rows ARRAY<STRUCT<{row_ddl}>>",
                           "ttl": "processing-time"}}

class UpsertMaterializerProcessor(KeyedStateObjectProcessor):
    CORE = UpsertMaterializerCore

    def decode(self, stored):
        return SinkValues([plain(item) for item in (stored[0] or [])] if stored is not None else [])

    def encode(self, kept):
        return (list(kept.rows),) if kept.rows else None


def processor_class(params) -> type:
    return UpsertMaterializerProcessor
