"""Limit: `SELECT ... LIMIT n [OFFSET m]` without ORDER BY, the first rows to arrive (Flink's
StreamExecLimit: a StreamExecRank whose partition and sort key are empty, so its state is
one rank under a constant key; rank range m + 1 .. m + n)."""
from __future__ import annotations

from ..changelog import INSERT_ONLY
from .metadata import exec_node
from .rank import StreamExecRank


@exec_node(name="stream-exec-limit", version=1, min_plan_version="0.3", min_state_version="0.3")
class StreamExecLimit(StreamExecRank):
    STATE_DOC = ("one rank under a constant key, as `stream-exec-rank` with no partition and no "
                 "sort key: the first rows (AppendOnlyTopNFunction) or every row with its count "
                 "(RetractableTopNFunction); TTL from `state`")

    def output_changelog(self, inputs):
        """Flink's changelog inference for a limit: insert-only over insert-only input (rows
        enter in arrival order and are never displaced), every change otherwise."""
        if inputs[0] == INSERT_ONLY:
            return INSERT_ONLY
        return super().output_changelog(inputs)
