"""The incremental group aggregate of a split distinct aggregation under mini-batch (Flink's
StreamExecIncrementalGroupAggregate running MiniBatchIncrementalGroupAggFunction): the
partial global aggregate and the final local one in one operator, between a local aggregate
(partial) and a global aggregate (final).

Keyed by the partial key (the group keys and the distinct arguments' buckets). Per bundle
(`table.exec.mini-batch.size` local rows: positions `seq // size`, as the global aggregate
counts them) it merges the local accumulators of the partial key into fresh accumulators
(Flink's `partialAgg.merge`) and emits them as the final aggregate's accumulators: what the
bundle changed, not a running result. The only state is each distinct call's values with
their counts (Flink's distinct MapView, which its partial aggregate keeps per key): a value
that appears accumulates into the delta, a value whose count falls to zero retracts from it,
so COUNT(DISTINCT) emits +1 / -1 where Flink's does.

Flink's finishBundle then merges the partial keys of one final key into one output row; a
keyed processor sees one partial key at a time, so each emits its own row, with the
position of its bundle's first local row. The global aggregate merges the rows of one of
its bundles before it emits, so its results and changelog are the same for bundles of one
row (Flink's own programs); with larger bundles its bundles start where the incremental
one's do, where Flink's global count trigger counts the incremental aggregate's output rows.

Flink's partial aggregate keeps its distinct views without the state TTL
(`partialAgg.open(new PerKeyStateDataViewStore(ctx.getRuntimeContext()))`, no TTL config),
so these never expire either.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterator, Optional

from ..changelog import OP_COLUMN, RowKind
from .batch_rows import plain
from .group_aggregate import COUNT, MAX, MIN, SUM, SUM0, Accumulators, AggCall, _apply, _initial
from .mini_batch_aggregate import SEQ_COLUMN, from_columns, merge_call, to_columns
from .processor import Processor
from .state_ttl import spark_ttl_ms

STATE_NAME = "incrementalGroupAggregateState"
# The final aggregate of each partial one (Flink's SplitAggregateRule): a partial COUNT is
# summed ($SUM0), the others keep their function.
FINAL_FUNCTION = {COUNT: SUM0, SUM: SUM, MIN: MIN, MAX: MAX}


@dataclass(frozen=True)
class IncrementalAggParams:
    partial_arity: int                 # the partial key's columns, first in the input
    final_keys: tuple[int, ...]        # the final key's positions in the partial key
    calls: tuple[AggCall, ...]         # the partial calls, as the local aggregate runs them
    size: int                          # table.exec.mini-batch.size: local rows a bundle

    @property
    def final_calls(self) -> tuple[AggCall, ...]:
        """The final aggregate's calls, which the emitted accumulators are for."""
        return tuple(replace(call, function=FINAL_FUNCTION[call.function], distinct=False,
                             filter=None) for call in self.calls)


class IncrementalAggCore:
    """MiniBatchIncrementalGroupAggFunction for one partial key."""

    def __init__(self, params: IncrementalAggParams):
        self.p = params

    def bundle(self, views: dict[int, dict], locals_: list[Accumulators]) -> Accumulators:
        """One bundle's local accumulators merged into fresh ones, the distinct calls' through
        their views (`views`, by call index, changed in place); returns the final
        aggregate's accumulators of the bundle."""
        calls = self.p.calls
        delta = Accumulators(0, [_initial(replace(call, distinct=False)) for call in calls])
        for local in locals_:
            delta.row_count += local.row_count
            for index, call in enumerate(calls):
                if call.distinct:
                    delta.values[index] = _merge_distinct(call, views.setdefault(index, {}),
                                                          delta.values[index],
                                                          local.values[index])
                else:
                    delta.values[index] = merge_call(call, delta.values[index],
                                                     local.values[index])
        return Accumulators(delta.row_count, [
            _as_final(call, value) for call, value in zip(calls, delta.values)])


def _merge_distinct(call: AggCall, view: dict, inner, values: dict):
    """A local DISTINCT accumulator (value -> count) into the key's view: a value whose count
    becomes positive accumulates into `inner`, one whose count falls to zero or below
    retracts from it (Flink's distinct merge). Values in their sort order: a SUM over floats
    rounds the same way every run."""
    plain_call = replace(call, distinct=False)
    for value in sorted(values):
        before = view.get(value, 0)
        after = before + values[value]
        if after == 0:
            view.pop(value, None)
        else:
            view[value] = after
        if before <= 0 < after:
            inner = _apply(plain_call, inner, value, 1)
        elif after <= 0 < before:
            inner = _apply(plain_call, inner, value, -1)
    return inner


def _as_final(call: AggCall, value):
    """A partial accumulator as the final aggregate's: a COUNT's number becomes the $SUM0's
    (sum, count) pair; SUM's pair and MIN / MAX's value counts are the same shape."""
    if call.function == COUNT:
        return [value, 1]
    return value


# --- the Spark side ---------------------------------------------------------------------------

def state_layout(params: IncrementalAggParams, arg_ddls: list[Optional[str]]
                 ) -> dict[str, dict[str, str]]:
    """One value per partial key: each distinct call's values with their counts."""
    fields = [f"d{index}: ARRAY<STRUCT<v: {arg}, c: BIGINT>>"
              for index, (call, arg) in enumerate(zip(params.calls, arg_ddls)) if call.distinct]
    return {STATE_NAME: {"kind": "value", "value": f"views STRUCT<{', '.join(fields)}>",
                         "ttl": "none (Flink's partial aggregate keeps its distinct views "
                                "without TTL)"}}


def _encode_views(views: dict[int, dict], calls: tuple[AggCall, ...]) -> Optional[tuple]:
    """The views to store; None when every view is empty (the state is cleared)."""
    if not any(views.values()):
        return None
    return (tuple(sorted(([value, count] for value, count in views.get(index, {}).items()),
                         key=lambda item: repr(item[0]))
                  for index, call in enumerate(calls) if call.distinct),)


def _decode_views(stored: Optional[tuple], calls: tuple[AggCall, ...]) -> dict[int, dict]:
    if stored is None:
        return {}
    (struct,) = stored
    fields = list(struct.values()) if isinstance(struct, dict) else list(struct)
    indexes = [index for index, call in enumerate(calls) if call.distinct]
    return {index: {plain(item)[0]: plain(item)[1] for item in field or []}
            for index, field in zip(indexes, fields)}


class IncrementalAggProcessor(Processor):
    """Reads a partial key's views once per micro-batch, runs its bundles in order, writes
    the views once, and emits one row of final accumulators a bundle."""

    def init(self, handle) -> None:
        (name,) = self.layout
        self.state = handle.getValueState(name, self.layout[name]["value"], spark_ttl_ms(0))
        self.core = IncrementalAggCore(self.params)

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        from pyspark.sql import Row

        p = self.params
        received = sorted(((row[SEQ_COLUMN], from_columns(
            tuple(row[name] for name in self.input_names[p.partial_arity:]), p.calls))
            for row in rows), key=lambda item: item[0])
        bundles: dict[int, list[tuple[int, Accumulators]]] = {}
        for seq, acc in received:
            bundles.setdefault(seq // p.size, []).append((seq, acc))
        views = _decode_views(self.state.get(), p.calls)
        partial_key = tuple(key)[:p.partial_arity]
        final_key = tuple(partial_key[index] for index in p.final_keys)
        out = []
        for bundle in sorted(bundles):
            final = self.core.bundle(views, [acc for _, acc in bundles[bundle]])
            values = (*final_key, *to_columns(final, p.final_calls))
            out.append(Row(**dict(zip(self.output_names, values)),
                           **{OP_COLUMN: RowKind.INSERT.code, SEQ_COLUMN: bundles[bundle][0][0]}))
        stored = _encode_views(views, p.calls)
        if stored is None:
            self.state.clear()
        else:
            self.state.update(stored)
        return iter(out)


def processor_class(params) -> type:
    return IncrementalAggProcessor
