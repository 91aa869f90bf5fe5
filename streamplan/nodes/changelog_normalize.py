"""Changelog normalize: an upsert source's +I/+U/-D by primary key (or a changelog source
that may repeat events, table.exec.source.cdc-events-duplicate) into a full changelog with
-U rows and without duplicates, keeping the last row per key (Flink's
StreamExecChangelogNormalize)."""
from __future__ import annotations

from ..changelog import RowKind
from ..types import RowType
from .base import ExecNode
from .fields import FieldIndex
from .keyed import struct_ddl, transform_keyed
from .metadata import exec_node


@exec_node(name="stream-exec-changelog-normalize", version=1, min_plan_version="0.2",
           min_state_version="0.2")
class StreamExecChangelogNormalize(ExecNode):
    STATE_NAMES = ("changelogNormalizeState",)
    unique_keys: list[FieldIndex]
    generate_update_before: bool

    def input_field_indexes(self):
        return [("uniqueKeys", 0, self.unique_keys)]

    def output_unique_keys(self, inputs, input_keys):
        return [list(self.unique_keys)]

    def output_changelog(self, inputs):
        kinds = {RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE}
        if self.generate_update_before:
            kinds.add(RowKind.UPDATE_BEFORE)
        return frozenset(kinds)

    def params(self):
        from ..runtime.changelog_normalize import ChangelogNormalizeParams

        return ChangelogNormalizeParams(generate_update_before=self.generate_update_before,
                                        ttl_ms=self.state_ttl_ms())

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        from ..runtime.changelog_normalize import state_layout

        (row,) = inputs
        return state_layout(self.params(), struct_ddl(row))

    def translate(self, ctx, inputs):
        from ..runtime.changelog_normalize import make_processor_class

        (input_row,) = ctx.input_types(self)
        processor = make_processor_class()(self.params(), self.state_layout([input_row]),
                                           tuple(input_row.names))
        return transform_keyed(inputs[0], input_row, self.unique_keys, processor, self.row_type)
