"""Changelog normalize: an upsert source's +I/+U/-D by primary key (or a changelog source
that may repeat events, table.exec.source.cdc-events-duplicate) into a full changelog with
-U rows and without duplicates, keeping the last row per key (Flink's
StreamExecChangelogNormalize)."""
from __future__ import annotations

from ..changelog import RowKind
from .fields import FieldIndex
from .keyed import KeyedNode
from .metadata import exec_node


@exec_node(name="stream-exec-changelog-normalize", version=1, min_plan_version="0.2",
           min_state_version="0.2")
class StreamExecChangelogNormalize(KeyedNode):
    STATE_DOC = ("the last row per primary key; TTL from `state`")
    RUNTIME = "changelog_normalize"
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

    def key_indexes(self):
        return self.unique_keys

    def runtime_params(self, input_row):
        return self.runtime().ChangelogNormalizeParams(generate_update_before=self.generate_update_before,
                                        ttl_ms=self.state_ttl_ms())
