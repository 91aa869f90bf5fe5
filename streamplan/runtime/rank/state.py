"""The rank's state on Spark: one value per partition key, and the processor."""
from __future__ import annotations

from typing import Optional

from ..batch_rows import plain
from ..processor import KeyedStateObjectProcessor
from .append_only import AppendOnlyTopNFunction
from .fast_top1 import FastTop1Function
from .retractable import RetractableTopNFunction
from .top_n import (APPEND_STATE, RETRACT_STATE, TOP1_STATE, UPDATE_STATE, AbstractTopNFunction,
                    RankParams, RankState)
from .updatable import UpdatableTopNFunction

FUNCTIONS = {"top1": FastTop1Function, "append": AppendOnlyTopNFunction,
             "retract": RetractableTopNFunction, "update": UpdatableTopNFunction}
BUFFER_STATES = {"append": APPEND_STATE, "update": UPDATE_STATE}   # sort keys -> rows


def top_n_function(params: RankParams) -> AbstractTopNFunction:
    """The Top-N function StreamExecRank picks for `params` (RankParams.strategy)."""
    return FUNCTIONS[params.strategy](params)


def state_layout(params: RankParams, row_ddl: str) -> dict[str, dict[str, str]]:
    """One value per partition key, by strategy (`row_ddl`: the input row's fields in Spark
    DDL), with processing-time TTL (always on; see runtime.state_ttl):

    * top1: FastTop1Function's top row;
    * append, update: the TopNBuffer, its sort keys in order, each with its rows in arrival
      order (update: in Flink's inner-rank order, the rows of the Top-N only);
    * retract: every sort key in order with its rows and its count in Flink's treeMap (a
      count of 0: rows of a sort key the treeMap no longer has).
    Sort keys are not stored: every row of an entry carries its own."""
    row = f"STRUCT<{row_ddl}>"
    if params.strategy == "top1":
        return {TOP1_STATE: {"kind": "value", "value": f"row {row}", "ttl": "processing-time"}}
    if params.strategy in BUFFER_STATES:
        return {BUFFER_STATES[params.strategy]: {"kind": "value",
                               "value": f"sortKeys ARRAY<STRUCT<rows: ARRAY<{row}>>>",
                               "ttl": "processing-time"}}
    return {RETRACT_STATE: {"kind": "value",
                            "value": f"sortKeys ARRAY<STRUCT<count: BIGINT, rows: ARRAY<{row}>>>",
                            "ttl": "processing-time"}}


def decode_state(core: AbstractTopNFunction, stored: Optional[tuple]) -> RankState:
    """A state value as the processor reads it (see state_layout) -> RankState."""
    state = RankState()
    if stored is None:
        return state
    (value,) = stored
    if core.p.strategy == "top1":
        state.top1 = plain(value)
        return state
    for entry in value or []:
        fields = plain(entry)
        rows = [plain(item) for item in fields[-1] or []]
        if not rows:
            continue
        key = core.sort_key_of(rows[0])
        state.data[key] = rows
        if core.p.strategy == "retract" and fields[0]:
            state.counts[key] = fields[0]
    return state


def encode_state(core: AbstractTopNFunction, state: RankState) -> Optional[tuple]:
    """RankState -> the state value to write (None: clear). A retract count without rows
    (only after a state TTL mismatch in Flink) has no row to carry its sort key and is
    dropped, as Flink's processStateStaled drops it when it meets it."""
    if core.p.strategy == "top1":
        return None if state.top1 is None else (state.top1,)
    keys = core.sorted_keys(state.data)
    if core.p.strategy in BUFFER_STATES:
        entries = [(list(state.data[key]),) for key in keys]
    else:
        entries = [(state.counts.get(key, 0), list(state.data[key])) for key in keys]
    return (entries,) if entries else None


class RankProcessor(KeyedStateObjectProcessor):
    def make_core(self) -> AbstractTopNFunction:
        return top_n_function(self.params)

    def decode(self, stored):
        return decode_state(self.core, stored)

    def encode(self, state):
        return encode_state(self.core, state)


def processor_class(params) -> type:
    return RankProcessor
