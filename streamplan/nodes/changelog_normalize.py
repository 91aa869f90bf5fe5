"""Changelog normalize: an upsert source's +I/+U/-D by primary key (or a changelog source
that may repeat events, table.exec.source.cdc-events-duplicate) into a full changelog with
-U rows and without duplicates, keeping the last row per key (Flink's
StreamExecChangelogNormalize)."""
from __future__ import annotations

from typing import ClassVar

from ..changelog import RowKind
from .fields import FieldIndex
from .keyed import KeyedNode
from .metadata import exec_node
from .mini_batch_bundles import MINI_BATCH_OPTIONS, MiniBatchBundles, mini_batch_off_migration


@exec_node(name="stream-exec-changelog-normalize", version=1, min_plan_version="0.2",
           min_state_version="0.2")
@exec_node(name="stream-exec-changelog-normalize", version=2, min_plan_version="0.3",
           min_state_version="0.2", consumed_options=MINI_BATCH_OPTIONS)
class StreamExecChangelogNormalize(MiniBatchBundles, KeyedNode):
    STATE_DOC = ("the last row per primary key; TTL from `state`; with mini-batch (version "
                 "2) the last row of each bundle goes through, the state is the same")
    RUNTIME = "changelog_normalize"
    STATE_NAMES = ("changelogNormalizeState",)
    POSITIONED: ClassVar[bool] = True
    # version 1 ran row by row; version 2 persists the mini-batch options and runs Flink's
    # ProcTimeMiniBatchDeduplicateKeepLastRowFunction with them. The state is the same.
    BUNDLES_FROM_VERSION: ClassVar[int] = 2
    unique_keys: list[FieldIndex]
    generate_update_before: bool

    _mini_batch_options_into_the_plan = mini_batch_off_migration()

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
