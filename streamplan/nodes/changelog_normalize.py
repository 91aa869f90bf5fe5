"""Changelog normalize: an upsert source's +I/+U/-D by primary key (or a changelog source
that may repeat events, table.exec.source.cdc-events-duplicate) into a full changelog with
-U rows and without duplicates, keeping the last row per key (Flink's
StreamExecChangelogNormalize)."""
from __future__ import annotations

from dataclasses import replace

from ..changelog import RowKind
from ..options import MINIBATCH_ENABLED, MINIBATCH_SIZE
from .fields import FieldIndex
from .keyed import KeyedNode
from .metadata import exec_node, plan_migration

# Whether a version runs in mini-batches when its plan says table.exec.mini-batch.enabled:
# version 1 consumes no mini-batch option (it always ran row by row); version 2 persists them
# and runs Flink's ProcTimeMiniBatchDeduplicateKeepLastRowFunction. The state is the same.
READS_MINI_BATCH = {1: False, 2: True}


@exec_node(name="stream-exec-changelog-normalize", version=1, min_plan_version="0.2",
           min_state_version="0.2")
@exec_node(name="stream-exec-changelog-normalize", version=2, min_plan_version="0.3",
           min_state_version="0.2", consumed_options=(MINIBATCH_ENABLED.key, MINIBATCH_SIZE.key))
class StreamExecChangelogNormalize(KeyedNode):
    STATE_DOC = ("the last row per primary key; TTL from `state`; with mini-batch (version "
                 "2) the last row of each bundle goes through, the state is the same")
    RUNTIME = "changelog_normalize"
    STATE_NAMES = ("changelogNormalizeState",)
    unique_keys: list[FieldIndex]
    generate_update_before: bool

    @plan_migration(from_version=1)
    def _mini_batch_options_into_the_plan(node: dict) -> dict:
        """persists table.exec.mini-batch.enabled = false: version 1 ran row by row whatever
        the session said"""
        configuration = {**(node.get("configuration") or {}), MINIBATCH_ENABLED.key: "false",
                         MINIBATCH_SIZE.key: MINIBATCH_SIZE.default}
        return {**node, "configuration": configuration}

    def read_options(self, config):
        if not READS_MINI_BATCH[self.version]:
            return {"mini_batch_size": 0}
        enabled, size = config.get(MINIBATCH_ENABLED), config.get(MINIBATCH_SIZE)
        return {"mini_batch_size": size if enabled else 0}

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

    def run_params(self, ctx, input_row):
        return replace(self.runtime_params(input_row), **ctx.options(self))

    def prepare(self, frame, input_row, params):
        """With mini-batch, each row's position in its micro-batch, for the count trigger:
        numbered here, before the shuffle (runtime/positions.py)."""
        if not params.mini_batch_size:
            return frame
        from ..runtime.positions import numbered
        return numbered(frame)
