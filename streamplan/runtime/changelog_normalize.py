"""Changelog normalize: an upsert stream into a full changelog, as a transformWithState processor.

`ChangelogNormalizeCore` follows what Flink 2.x's StreamExecChangelogNormalize runs with
mini-batch off: ProcTimeDeduplicateKeepLastRowFunction with inputInsertOnly = false and
generateInsert = true, i.e. DeduplicateFunctionHelper.processLastRowOnChangelog, record by
record, keeping the last row per primary key:

* +I or +U: the first row of a key is +I; a later one emits -U of the kept row (when
  generateUpdateBefore) and +U; the row is then kept (its kind normalized to INSERT). A row
  with the same content as the kept one (areRowsWithSameContent: the equaliser with the row
  kind erased, so a duplicate +U counts too) emits nothing and leaves the state untouched,
  unless state TTL is on: then Flink re-emits -U/+U so that downstream state does not
  expire too early. This is what drops the duplicates of
  `table.exec.source.cdc-events-duplicate`.
* -D or -U: the kept row is deleted, -D with the kept row's values (a delete may carry the
  key only, like a Kafka tombstone), and the state is cleared; a -U is a -D here too (no +U
  may follow). Nothing is emitted for a key without a kept row.

With `table.exec.mini-batch.enabled` (node version 2 reads it) Flink runs
ProcTimeMiniBatchDeduplicateKeepLastRowFunction in a KeyedMapBundleOperator instead: a bundle
keeps only the last row of each key (`addInput`), and `finishBundle` runs that row through the
same processLastRowOnChangelog. Bundles end at Flink's count trigger (`table.exec.mini-batch.size`
rows) and at each mini-batch, which on Spark is the micro-batch: `last_of_bundles` cuts a key's
rows of a micro-batch by their position in it (`SEQ_COLUMN`, numbered before the shuffle).

Not ported: the filter Flink 2.1+ may push into the normalize
(DeduplicateFunctionHelper.processLastRowOnChangelogWithFilter), which the planner here
never asks for.

`ChangelogNormalizeProcessor` reads a key's kept row once per batch and writes it (or clears
it) when Flink does: the core returns the kept row itself (the same object) when Flink
leaves the state untouched.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from ..changelog import RowKind
from .batch_rows import Output, plain, rows_of
from .positions import SEQ_COLUMN, bundles
from .processor import KeyedValueProcessor

NORMALIZE_STATE = "deduplicate-state"      # ProcTimeDeduplicateKeepLastRowFunction's state


@dataclass(frozen=True)
class ChangelogNormalizeParams:
    generate_update_before: bool       # the consumer needs -U rows
    ttl_ms: int = 0                    # state retention; > 0 also re-emits duplicates
    mini_batch_size: int = 0           # rows a bundle (table.exec.mini-batch.size); 0: off


def last_of_bundles(positioned: Iterable[tuple[int, RowKind, tuple]], size: int
                    ) -> list[tuple[RowKind, tuple]]:
    """A key's rows of one micro-batch, (position, kind, values), as a KeyedMapBundleOperator
    hands them to ProcTimeMiniBatchDeduplicateKeepLastRowFunction: per bundle of `size`
    positions (Flink's CountBundleTrigger over all keys' rows) the key's last row, bundles in
    order."""
    return [bundle[-1] for bundle in bundles(((position, (kind, row))
                                               for position, kind, row in positioned), size)]


class ChangelogNormalizeCore:
    """DeduplicateFunctionHelper.processLastRowOnChangelog for one primary key."""

    def __init__(self, params: ChangelogNormalizeParams):
        self.p = params
        self.state_ttl_enabled = params.ttl_ms > 0

    def process(self, kept: Optional[tuple], kind: RowKind, row: tuple,
                out: list[Output]) -> Optional[tuple]:
        """One input row; returns the key's kept row afterwards (None: cleared or absent),
        `kept` itself when Flink does not write the state."""
        if kind.is_accumulate:
            if kept is None:
                out.append((RowKind.INSERT.code, row))             # the first row
            elif not self.state_ttl_enabled and kept == row:
                return kept            # same content: no message, state not even rewritten
            else:
                if self.p.generate_update_before:
                    out.append((RowKind.UPDATE_BEFORE.code, kept))
                out.append((RowKind.UPDATE_AFTER.code, row))
            return row                 # kept with its kind normalized to INSERT
        if kept is not None:
            # the kept row has the full content; the delete may only carry the key
            out.append((RowKind.DELETE.code, kept))
        return None                    # removing an absent row: nothing to do


# --- the Spark side ---------------------------------------------------------------------------

def state_layout(params: ChangelogNormalizeParams, row_ddl: str) -> dict[str, dict[str, str]]:
    """One value per primary key: the last row (`row_ddl`: the input row's fields in Spark
    DDL), with processing-time TTL (always on; see runtime.state_ttl)."""
    return {NORMALIZE_STATE: {"kind": "value", "value": f"row STRUCT<{row_ddl}>",
                              "ttl": "processing-time"}}

class ChangelogNormalizeProcessor(KeyedValueProcessor):
    CORE = ChangelogNormalizeCore

    def decode(self, stored):
        return plain(stored[0]) if stored is not None else None

    def step(self, key, kept, kind, row, out):
        return self.core.process(kept, kind, row, out)

    def encode(self, kept):
        return None if kept is None else (kept,)


class MiniBatchChangelogNormalizeProcessor(ChangelogNormalizeProcessor):
    """ProcTimeMiniBatchDeduplicateKeepLastRowFunction: the core sees each bundle's last row
    of the key; state is read and written once a micro-batch, as for the row-by-row one."""

    def arrivals(self, rows):
        rows = list(rows)
        decoded = rows_of(rows, self.input_names)
        return last_of_bundles(((row[SEQ_COLUMN], kind, values)
                                for row, (kind, values) in zip(rows, decoded)),
                               self.params.mini_batch_size)


def processor_class(params) -> type:
    return (MiniBatchChangelogNormalizeProcessor if params.mini_batch_size > 0
            else ChangelogNormalizeProcessor)
