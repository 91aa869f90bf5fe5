"""What a keyed node needs to run in Flink's count-triggered bundles under
`table.exec.mini-batch.enabled` (a KeyedMapBundleOperator in Flink): the versions that persist
the mini-batch options, the bundle size its processor reads, and each input row's position in
its micro-batch, numbered before the shuffle (runtime/positions.py). The changelog normalize
and the group aggregate gained it in a version of their own; earlier versions ran row by row
whatever the session said, and their plans migrate with mini-batch off."""
from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from ..options import MINIBATCH_ENABLED, MINIBATCH_SIZE
from .metadata import plan_migration

MINI_BATCH_OPTIONS = (MINIBATCH_ENABLED.key, MINIBATCH_SIZE.key)


def mini_batch_off(node: dict) -> dict:
    """A node's plan JSON of a version that ran row by row, with the mini-batch options a
    later version persists: enabled false, the default size."""
    configuration = {**(node.get("configuration") or {}), MINIBATCH_ENABLED.key: "false",
                     MINIBATCH_SIZE.key: MINIBATCH_SIZE.default}
    return {**node, "configuration": configuration}


def mini_batch_off_migration():
    """The @plan_migration from version 1, which ran row by row, to version 2, which persists
    the mini-batch options (the changelog normalize's and the group aggregate's)."""

    def _mini_batch_options_into_the_plan(node: dict) -> dict:
        """persists table.exec.mini-batch.enabled = false: version 1 ran row by row whatever
        the session said"""
        return mini_batch_off(node)

    return plan_migration(from_version=1)(_mini_batch_options_into_the_plan)


class MiniBatchBundles:
    """Mixed into a KeyedNode whose runtime parameters have `mini_batch_size` (0: row by
    row)."""

    # the first version that persists the mini-batch options and runs in bundles
    BUNDLES_FROM_VERSION: ClassVar[int]

    def read_options(self, config):
        if self.version < self.BUNDLES_FROM_VERSION:
            return {"mini_batch_size": 0}
        enabled, size = config.get(MINIBATCH_ENABLED), config.get(MINIBATCH_SIZE)
        return {"mini_batch_size": size if enabled else 0}

    def run_params(self, ctx, input_row):
        return replace(self.runtime_params(input_row), **ctx.options(self))

    def positioned(self, ctx) -> bool:
        """Row by row only: a mini-batch processor emits once per key and bundle."""
        return super().positioned(ctx) and not ctx.options(self)["mini_batch_size"]

    def prepare(self, frame, input_row, params):
        """With mini-batch, each row's position in its micro-batch, for the count trigger."""
        if not params.mini_batch_size:
            return frame
        from ..runtime.positions import numbered
        return numbered(frame)
