"""Mini-batch group aggregation in two phases, as Flink runs it with
`table.exec.mini-batch.enabled`: a local aggregate (Flink's MiniBatchLocalGroupAggFunction
in a MapBundleOperator) and a global one (MiniBatchGlobalGroupAggFunction in a
KeyedMapBundleOperator).

On Spark a mini-batch is the micro-batch. Within one, Flink's count trigger
(`table.exec.mini-batch.size`) still cuts bundles:

* the local aggregate reads its partition's rows in arrival order and, every `size` rows
  and at the end of the micro-batch, emits one accumulator row per key of the bundle (the
  keys in the order Flink's bundle, a java.util.HashMap, hands them back:
  runtime/java_hash_order.py), accumulating and retracting with the accumulators
  of runtime.group_aggregate; it keeps no state. Each row it emits carries its position in
  the micro-batch (`__seq`);
* the global aggregate is keyed: per key it merges the local rows of one global bundle
  (Flink's global count trigger: positions `seq // size` of the local's output) into a
  fresh accumulator, then that into the key's state, and emits as Flink's finishBundle
  does: +I for a new key, -U (when the consumer needs it) and +U when the result changed
  (or always, with state TTL), -D and a cleared state when the row count falls to zero.

Accumulators travel from the local to the global aggregate as columns: COUNT a BIGINT,
SUM and AVG the running sum and its count, MIN, MAX and DISTINCT calls their value counts
(BYTES: the encoded pairs), a user-defined aggregate function its accumulator (BYTES: the
value of its declared ACCUMULATOR_TYPE, merged by the function's `merge`), and the row count
last.
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Optional

from ..changelog import OP_COLUMN, RowKind
from .batch_rows import Output, emitted, normalized
from .group_aggregate import (AVG, SUM, SUM0, UDAF, WELFORD_M2, Accumulators, AggCall,
                              GroupAggCore, GroupAggParams, _decode, _encode, _initial,
                              accumulate_row, merge_welford, running_sum, udaf_from_state,
                              udaf_to_state)
from .group_aggregate import state_layout as group_state_layout
from .java_hash_order import hash_map_order
from .positions import SEQ_COLUMN, bundles
from .processor import Processor
from .state_ttl import spark_ttl_ms


@dataclass(frozen=True)
class LocalAggParams:
    grouping: tuple[int, ...]          # input indexes of the group keys
    calls: tuple[AggCall, ...]         # arguments and filters index the input row
    size: int                          # table.exec.mini-batch.size: rows a bundle
    key_types: tuple[str, ...] = ()    # SQL type names of the group keys (their flush order)


@dataclass(frozen=True)
class GlobalAggParams:
    key_arity: int
    calls: tuple[AggCall, ...]         # arguments index the local aggregate's input row
    size: int                          # table.exec.mini-batch.size: local rows a bundle
    generate_update_before: bool
    ttl_ms: int = 0


# --- accumulators as columns ------------------------------------------------------------------

def acc_columns(call: AggCall) -> int:
    """How many columns an accumulator travels in: SUM and AVG two (sum, count), others one
    ($SUM0, the final aggregate of a split COUNT, travels as its sum: Flink's one-field
    accumulator)."""
    return 2 if call.function in (SUM, AVG) and not call.keeps_values else 1


def to_columns(acc: Accumulators, calls: tuple[AggCall, ...]) -> tuple:
    values: list[Any] = []
    for call, value in zip(calls, acc.values):
        if call.function == UDAF:
            values.append(pickle.dumps(udaf_to_state(call, value), protocol=4))
        elif call.keeps_values:
            values.append(pickle.dumps(sorted(value.items(), key=lambda item: repr(item[0])),
                                       protocol=4))
        elif call.function == WELFORD_M2:
            values.append(pickle.dumps(tuple(value), protocol=4))
        elif call.function == SUM0:
            values.append(value[0])
        elif call.function in (SUM, AVG):
            values.extend(value)
        else:
            values.append(value)
    return (*values, acc.row_count)


def from_columns(columns: tuple, calls: tuple[AggCall, ...]) -> Accumulators:
    values, position = [], 0
    for call in calls:
        if call.function == UDAF:
            values.append(udaf_from_state(call, pickle.loads(columns[position])))
        elif call.keeps_values:
            values.append(dict(pickle.loads(columns[position])))
        elif call.function == WELFORD_M2:
            values.append(list(pickle.loads(columns[position])))
        elif call.function == SUM0:        # a count of 1 says the sum holds a value
            values.append([columns[position], 0 if columns[position] is None else 1])
        elif call.function in (SUM, AVG):
            values.append([columns[position], columns[position + 1]])
        else:
            values.append(columns[position])
        position += acc_columns(call)
    return Accumulators(columns[position], values)


def merge(calls: tuple[AggCall, ...], acc: Accumulators, other: Accumulators) -> Accumulators:
    """Flink's AggsHandleFunction.merge: `other`'s accumulators into `acc` (in place; a UDAF's
    by its `merge(acc, others)`, Flink's AggregateFunction contract)."""
    acc.row_count += other.row_count
    for index, call in enumerate(calls):
        acc.values[index] = merge_call(call, acc.values[index], other.values[index])
    return acc


def merge_call(call: AggCall, mine: Any, theirs: Any) -> Any:
    """One call's accumulator `theirs` merged into `mine`; returns the merged one (`mine`,
    changed in place, where it is mutable)."""
    if call.function == UDAF:
        call.function_instance.merge(mine, [theirs])
    elif call.keeps_values:
        for value, count in theirs.items():
            total = mine.get(value, 0) + count
            if total == 0:
                mine.pop(value, None)
            else:
                mine[value] = total
    elif call.function == WELFORD_M2:
        return merge_welford(mine, theirs)
    elif call.function in (SUM, SUM0, AVG):
        if theirs[0] is not None:
            mine[0] = running_sum(call, mine[0], theirs[0])
        mine[1] += theirs[1]
    else:
        return mine + theirs
    return mine


def create(calls: tuple[AggCall, ...]) -> Accumulators:
    return Accumulators(0, [_initial(call) for call in calls])


# --- the local aggregate ----------------------------------------------------------------------

def local_bundles(params: LocalAggParams, rows: Iterable[tuple[RowKind, tuple]]
                  ) -> Iterator[tuple[tuple, Accumulators]]:
    """Flink's MiniBatchLocalGroupAggFunction under a count trigger: per bundle of `size`
    input rows (the last one shorter), one (key, accumulators) per key, in the order Flink's
    bundle map hands them back. A retraction is retracted from a fresh accumulator: the global
    aggregate merges it into the key's state."""
    bundle: dict[tuple, Accumulators] = {}
    count = 0
    for kind, row in rows:
        key = tuple(row[index] for index in params.grouping)
        acc = bundle.get(key)
        if acc is None:
            acc = bundle[key] = create(params.calls)
        accumulate_row(params.calls, acc, kind, row)
        count += 1
        if count >= params.size:
            yield from flush_order(bundle, params.key_types)
            bundle, count = {}, 0
    yield from flush_order(bundle, params.key_types)


def flush_order(bundle: dict[tuple, Accumulators], key_types: tuple[str, ...]
                ) -> list[tuple[tuple, Accumulators]]:
    """A bundle's keys in the order Flink's HashMap hands them back (java_hash_order), or in
    arrival order for key types it does not cover."""
    items = list(bundle.items())
    order = hash_map_order([key for key, _ in items], key_types)
    return items if order is None else [items[position] for position in order]


class LocalAggregate:
    """The local aggregate over one partition of a micro-batch, as Spark's mapInArrow
    calls it (picklable: a module-level class holding its parameters)."""

    def __init__(self, params: LocalAggParams, input_names: tuple[str, ...], arrow_schema):
        self.params = params
        self.input_names = input_names
        self.arrow_schema = arrow_schema

    def __call__(self, batches: Iterator) -> Iterator:
        import pyarrow as pa

        def rows():
            for batch in batches:
                for record in batch.to_pylist():
                    yield (RowKind.from_code(record[OP_COLUMN]),
                           normalized(tuple(record[name] for name in self.input_names)))

        names = self.arrow_schema.names
        out: list[dict] = []
        for seq, (key, acc) in enumerate(local_bundles(self.params, rows())):
            values = (*key, *to_columns(acc, self.params.calls), RowKind.INSERT.code, seq)
            out.append(dict(zip(names, values)))
            if len(out) >= 4096:
                yield pa.RecordBatch.from_pylist(out, schema=self.arrow_schema)
                out = []
        if out:
            yield pa.RecordBatch.from_pylist(out, schema=self.arrow_schema)


# --- the global aggregate ---------------------------------------------------------------------

class GlobalAggCore:
    """Flink's MiniBatchGlobalGroupAggFunction for one key."""

    def __init__(self, params: GlobalAggParams):
        self.p = params
        self.core = GroupAggCore(GroupAggParams(params.key_arity, params.calls,
                                                params.generate_update_before, params.ttl_ms))

    def finish_bundle(self, key: tuple, state: Optional[Accumulators],
                      locals_: list[Accumulators], out: list[Output]) -> Optional[Accumulators]:
        """One bundle's local accumulators of `key` into its state; returns the state after
        (None: cleared)."""
        calls = self.p.calls
        buffer = create(calls)
        for local in locals_:
            merge(calls, buffer, local)
        first = state is None
        if first:
            state = create(calls)
        before = self.core.results(state)
        merge(calls, state, buffer)
        return self.core.emit(key, first, before, state, out)


def state_layout(grouping_ddl: str, calls: tuple[AggCall, ...], arg_ddls: list[Optional[str]],
                 sum_ddls: list[Optional[str]]) -> dict[str, dict[str, str]]:
    """The global aggregate's state: one accumulator per group key, as the one-phase group
    aggregate keeps it (runtime.group_aggregate.state_layout)."""
    return group_state_layout(grouping_ddl, calls, arg_ddls, sum_ddls)


class GlobalAggProcessor(Processor):
    """Reads a key's accumulators once per micro-batch, runs its global bundles in order,
    writes the state once."""

    def init(self, handle) -> None:
        (name,) = self.layout
        self.state = handle.getValueState(name, self.layout[name]["value"],
                                          spark_ttl_ms(self.params.ttl_ms))
        self.core = GlobalAggCore(self.params)

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        calls, arity = self.params.calls, self.params.key_arity
        received = ((row[SEQ_COLUMN], from_columns(
            tuple(row[name] for name in self.input_names[arity:]), calls)) for row in rows)
        stored = self.state.get()
        state = _decode(stored, calls) if stored is not None else None
        out: list[Output] = []
        group_key = tuple(key)[:arity]
        for bundle in bundles(received, self.params.size):
            state = self.core.finish_bundle(group_key, state, bundle, out)
        if state is None:
            self.state.clear()
        else:
            self.state.update(_encode(state, calls))
        return emitted(out, self.output_names)


def processor_class(params) -> type:
    return GlobalAggProcessor
