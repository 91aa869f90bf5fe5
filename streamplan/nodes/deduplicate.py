"""Deduplication: `ROW_NUMBER() OVER (PARTITION BY k ORDER BY <time attribute> ASC|DESC) = 1`
keeps the first or the last row per key, on event time or processing time (Flink's
StreamExecDeduplicate).

`outputInsertOnly` is Flink 2.x's field of the same name (absent in older plans, meaning
false): the planner sets it when the deduplicate's output is insert-only, and on event time
keep-first then emits each key's first row once, on an event-time timer at its row time
(RowTimeDeduplicateKeepFirstRowFunction), instead of updating it when an earlier row arrives.
"""
from __future__ import annotations

from typing import Optional

from ..changelog import INSERT_ONLY, RowKind
from ..types import RowType, quote_identifier
from .fields import FieldIndex
from .keyed import KeyedNode
from .metadata import exec_node


@exec_node(name="stream-exec-deduplicate", version=1, min_plan_version="0.2",
           min_state_version="0.2")
class StreamExecDeduplicate(KeyedNode):
    STATE_DOC = ("per key the kept row (or a flag for processing-time keep-first); TTL from `state`. "
                 "Event-time keep-first with `outputInsertOnly`: the row waiting for its timer and when "
                 "the key was emitted (Spark has no TTL with event-time timers: the emitted mark expires "
                 "when read)")
    RUNTIME = "deduplicate"
    STATE_NAMES = ("deduplicateState",)
    unique_keys: list[FieldIndex]             # the partition key
    is_rowtime: bool
    keep_last_row: bool
    generate_update_before: bool
    output_insert_only: Optional[bool] = None

    def requires_watermark(self, inputs):
        return self.is_rowtime

    def input_field_indexes(self):
        return [("uniqueKeys", 0, self.unique_keys)]

    @property
    def emits_on_timer(self) -> bool:
        """Event-time keep-first with insert-only output: the row is emitted on a timer."""
        return self.is_rowtime and not self.keep_last_row and bool(self.output_insert_only)

    def output_unique_keys(self, inputs, input_keys):
        return [list(self.unique_keys)]

    def positioned(self, ctx) -> bool:
        """Row by row (arrival_order.py), as Flink's deduplicate functions emit; not the
        event-time keep-first, which emits on its timers."""
        return not self.emits_on_timer

    def rowtime_index(self, input_row: RowType):
        return input_row.rowtime_index if self.is_rowtime else None

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        if not self.keep_last_row and (not self.is_rowtime or self.emits_on_timer):
            return INSERT_ONLY                      # the first row, once, never changes
        kinds = {RowKind.INSERT, RowKind.UPDATE_AFTER}
        if self.generate_update_before:
            kinds.add(RowKind.UPDATE_BEFORE)
        return frozenset(kinds)

    def check_input_changelog(self, inputs, origins) -> None:
        if inputs[0] != INSERT_ONLY:
            raise self.unsupported_changes(f"Deduplicate node {self.id}", inputs[0] - INSERT_ONLY,
                                           origins[0])

    # --- state and runtime ---------------------------------------------------------------
    def key_indexes(self):
        return self.unique_keys

    def runtime_params(self, input_row):
        return self.runtime().DeduplicateParams(keep_last_row=self.keep_last_row,
                                 rowtime_index=self.rowtime_index(input_row),
                                 generate_update_before=self.generate_update_before,
                                 emit_on_timer=self.emits_on_timer,
                                 ttl_ms=self.state_ttl_ms())

    @property
    def time_mode(self) -> str:
        return "EventTime" if self.emits_on_timer else "ProcessingTime"

    def prepare(self, frame, input_row, params):
        if not self.emits_on_timer:
            return frame
        # Event-time timers; late rows are the processor's to drop (Flink drops rowtime <
        # watermark, Spark's own filter rowtime <= watermark), so the row time column loses
        # the watermark mark that would make Spark filter them first.
        rowtime = input_row.names[input_row.rowtime_index]
        return frame.withColumn(rowtime, frame[quote_identifier(rowtime)].alias(rowtime,
                                                                                metadata={}))
