"""Deduplication: `ROW_NUMBER() OVER (PARTITION BY k ORDER BY <time attribute> ASC|DESC) = 1`
keeps the first or the last row per key, on event time or processing time (Flink's
StreamExecDeduplicate)."""
from __future__ import annotations

from ..changelog import INSERT_ONLY, RowKind
from ..types import RowType
from .base import ExecNode
from .keyed import struct_ddl, transform_keyed
from .metadata import exec_node

STATE_NAME = "deduplicateState"


@exec_node(name="stream-exec-deduplicate", version=1, min_plan_version="0.2",
           min_state_version="0.2")
class StreamExecDeduplicate(ExecNode):
    unique_keys: list[int]             # the partition key
    is_rowtime: bool
    keep_last_row: bool
    generate_update_before: bool

    def rowtime_index(self, input_row: RowType):
        return input_row.rowtime_index if self.is_rowtime else None

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        if not self.keep_last_row and not self.is_rowtime:
            return INSERT_ONLY                      # the first row by arrival never changes
        kinds = {RowKind.INSERT, RowKind.UPDATE_AFTER}
        if self.generate_update_before:
            kinds.add(RowKind.UPDATE_BEFORE)
        return frozenset(kinds)

    def check_input_changelog(self, inputs, origins) -> None:
        if inputs[0] != INSERT_ONLY:
            raise self.unsupported_changes(f"Deduplicate node {self.id}", inputs[0] - INSERT_ONLY,
                                           origins[0])

    # --- state and runtime ---------------------------------------------------------------
    def params(self, input_row: RowType):
        from ..runtime.deduplicate import DeduplicateParams

        return DeduplicateParams(keep_last_row=self.keep_last_row,
                                 rowtime_index=self.rowtime_index(input_row),
                                 generate_update_before=self.generate_update_before,
                                 ttl_ms=self.state_ttl_ms())

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        from ..runtime.deduplicate import state_layout

        (row,) = inputs
        return state_layout(self.params(row), struct_ddl(row))

    def translate(self, ctx, inputs):
        from ..runtime.deduplicate import make_processor_class

        (input_row,) = ctx.input_types(self)
        processor = make_processor_class()(self.params(input_row), self.state_layout([input_row]),
                                           tuple(input_row.names))
        return transform_keyed(inputs[0], input_row, self.unique_keys, processor, self.row_type)
