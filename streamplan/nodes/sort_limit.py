"""Sort-limit: `SELECT ... ORDER BY ... LIMIT n [OFFSET m]`, a global top-N (Flink's
StreamExecSortLimit: a StreamExecRank whose partition is empty, so its state is one rank under
a constant key; rank range m + 1 .. m + n)."""
from __future__ import annotations

from .metadata import exec_node
from .rank import StreamExecRank


@exec_node(name="stream-exec-sort-limit", version=1, min_plan_version="0.3",
           min_state_version="0.3")
class StreamExecSortLimit(StreamExecRank):
    STATE_DOC = ("one rank under a constant key, as `stream-exec-rank` with no partition: the "
                 "TopN buffer (AppendOnlyTopNFunction; UpdatableTopNFunction, by the input's unique "
                 "key) or every row with its sort key's count (RetractableTopNFunction); TTL "
                 "from `state`")
