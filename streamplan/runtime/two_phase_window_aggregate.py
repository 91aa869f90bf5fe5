"""Two-phase window aggregation, as Flink plans an event-time TUMBLE / HOP / CUMULATE
aggregate unless 'table.optimizer.agg-phase-strategy' is ONE_PHASE
(TwoStageOptimizedWindowAggregateRule):

* the local window aggregate (StreamExecLocalWindowAggregate, `LocalSlicingWindowAggOperator`
  with a `LocalAggCombiner`) assigns each row its slice end and folds the rows of one group
  key and slice into a fresh accumulator; it keeps no state and drops nothing (a late row is
  for the global aggregate to judge). Flink flushes its buffer when the watermark may fire a
  window and before a checkpoint; on Spark the buffer is the micro-batch's partition, and each
  (key, slice end) becomes one row: the keys, the accumulators as columns, `$slice_end`;
* over fired windows (`WindowAttached` windowing: split distinct aggregation's final phase,
  planner/split_distinct.py) a row's slice is its window, whose end it carries: the local
  aggregate reads it from the row, the global one keeps a window as its slice
  (`WindowedSliceAssigner`) and drops nothing, since every row comes from a window that fired;
* the global window aggregate (StreamExecGlobalWindowAggregate, the slicing window operator
  with a `GlobalAggCombiner`) is the window aggregate of runtime/window_aggregate.py whose
  rows are accumulators with their slice end (`SliceAssigners.sliced`): a row merges into its
  slice (or, late but not dropped, into the slice the unfired windows merge), with the same
  state (`window-aggs`, one accumulator per slice), timers and firing as one phase.

Accumulators travel as Flink's local aggregate names them (nodes/local_group_aggregate.py
`accumulator_fields`): COUNT a BIGINT, SUM and AVG the sum and its count, MIN, MAX and
DISTINCT calls their window accumulator pickled into BYTES (the extreme value; the distinct
values with their counts), a user-defined aggregate function its accumulator as its declared
ACCUMULATOR_TYPE, pickled into BYTES, and the row count last.
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from ..changelog import OP_COLUMN, RowKind
from ..errors import ExecutionError
from .batch_rows import normalized
from .group_aggregate import AVG, SUM, SUM0, UDAF, AggCall, udaf_from_state, udaf_to_state
from .processor import Processor
from .timestamps import to_millis
from .window_aggregate import (SliceAssigner, WindowAccumulators, WindowAggCore, WindowAggParams,
                               WindowAggProcessor, state_layout)

__all__ = ["state_layout", "processor_class", "LocalWindowAggParams", "GlobalWindowAggParams",
           "local_combine", "to_columns", "from_columns"]


def _packed(call: AggCall) -> bool:
    return call.distinct or call.function not in (SUM, AVG, SUM0, "COUNT")


def to_columns(acc: list, calls: tuple[AggCall, ...]) -> tuple:
    """A window accumulator ([row count, values...]) as the local aggregate's columns."""
    values: list[Any] = []
    for call, value in zip(calls, acc[1:]):
        if call.function == UDAF:
            values.append(pickle.dumps(udaf_to_state(call, value), protocol=4))
        elif call.distinct:
            values.append(pickle.dumps(sorted(value.items(), key=lambda item: repr(item[0])),
                                       protocol=4))
        elif _packed(call):
            values.append(pickle.dumps(value, protocol=4))
        elif call.function in (SUM, AVG):
            values.extend(value)
        else:
            values.append(value)
    return (*values, acc[0])


def from_columns(columns: tuple, calls: tuple[AggCall, ...]) -> list:
    values, position = [], 0
    for call in calls:
        if call.function == UDAF:
            values.append(udaf_from_state(call, pickle.loads(columns[position])))
        elif call.distinct:
            values.append(dict(pickle.loads(columns[position])))
        elif _packed(call):
            values.append(pickle.loads(columns[position]))
        elif call.function in (SUM, AVG):
            values.append([columns[position], columns[position + 1]])
            position += 1
        else:
            values.append(columns[position])
        position += 1
    return [columns[position], *values]


def column_count(calls: tuple[AggCall, ...]) -> int:
    return sum(2 if call.function in (SUM, AVG) and not call.distinct else 1
               for call in calls) + 1


# --- the local window aggregate ---------------------------------------------------------------

@dataclass(frozen=True)
class LocalWindowAggParams:
    grouping: tuple[int, ...]          # input indexes of the group keys
    calls: tuple[AggCall, ...]         # arguments and filters index the input row
    assigner: SliceAssigner
    rowtime_index: int                 # the time attribute, or (WindowAttached) the window end
    window_attached: bool = False      # the row's window end is its slice end


def local_combine(params: LocalWindowAggParams, rows: Iterable[tuple[RowKind, tuple]]
                  ) -> list[tuple[tuple, int, list]]:
    """LocalAggCombiner over one buffer: (key, slice end, accumulator) per group key and slice,
    in the order of their first row."""
    accumulators = WindowAccumulators(params.calls)
    buffer: dict[tuple, list] = {}
    for kind, row in rows:
        if kind is not RowKind.INSERT:
            raise ExecutionError(f"local window aggregate: a {kind.short} row reached it; its "
                                 f"input must be insert-only")
        time = row[params.rowtime_index]
        if time is None:
            raise ExecutionError(f"local window aggregate: a row with a NULL "
                                 f"{'window end' if params.window_attached else 'time attribute'}")
        slice_end = (to_millis(time) if params.window_attached
                     else params.assigner.assign_slice_end(to_millis(time)))
        key = tuple(row[index] for index in params.grouping)
        acc = buffer.get((key, slice_end))
        if acc is None:
            acc = buffer[(key, slice_end)] = accumulators.create()
        accumulators.accumulate(acc, row)
    return [(key, slice_end, acc) for (key, slice_end), acc in buffer.items()]


class LocalWindowAggregate:
    """The local window aggregate over one partition of a micro-batch, as Spark's mapInArrow
    calls it (picklable: a module-level class holding its parameters)."""

    def __init__(self, params: LocalWindowAggParams, input_names: tuple[str, ...], arrow_schema):
        self.params = params
        self.input_names = input_names
        self.arrow_schema = arrow_schema

    def __call__(self, batches: Iterator) -> Iterator:
        import pyarrow as pa

        rows = [(RowKind.from_code(record[OP_COLUMN]),
                 normalized(tuple(record[name] for name in self.input_names)))
                for batch in batches for record in batch.to_pylist()]
        names = self.arrow_schema.names
        out = [dict(zip(names, (*key, *to_columns(acc, self.params.calls), slice_end,
                                RowKind.INSERT.code)))
               for key, slice_end, acc in local_combine(self.params, rows)]
        for start in range(0, len(out), 4096):
            yield pa.RecordBatch.from_pylist(out[start:start + 4096], schema=self.arrow_schema)


# --- the global window aggregate --------------------------------------------------------------

@dataclass(frozen=True)
class GlobalWindowAggParams(WindowAggParams):
    """`rowtime_index` is the local row's `$slice_end`; the accumulators' columns follow the
    `key_arity` group keys."""


class GlobalWindowAggCore(WindowAggCore):
    """The slicing window aggregate over the local aggregate's rows (GlobalAggCombiner):
    a row's slice is its `$slice_end`, and it merges its accumulators into the slice's."""

    def slice_end(self, row: tuple, now: int) -> int:
        slice_end = row[self.p.rowtime_index]
        if slice_end is None:
            raise ExecutionError("global window aggregate: a local row without its slice end")
        return int(slice_end)

    def accumulate(self, acc: list, row: tuple) -> None:
        start = self.p.key_arity
        local = from_columns(row[start:start + column_count(self.calls)], self.calls)
        acc[:] = self.merged(acc, local)


class GlobalWindowAggProcessor(WindowAggProcessor):

    def make_core(self) -> WindowAggCore:
        return GlobalWindowAggCore(self.params)


def processor_class(params: GlobalWindowAggParams) -> type[Processor]:
    return GlobalWindowAggProcessor
