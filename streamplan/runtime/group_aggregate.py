"""Group aggregation with retraction, as a transformWithState processor.

`GroupAggCore` follows Flink's GroupAggFunction record by record: the first row of a key
emits +I, a change emits -U (when the consumer needs it) and +U, a result that did not
change emits nothing (unless state TTL is on, as in Flink), and a key whose row count
falls to zero emits -D and forgets its state. A retraction for a key without state is
ignored. Accumulators retract exactly: MIN, MAX and DISTINCT calls keep every value
with its count (Flink's MinWithRetract / the distinct MapView), SUM and AVG keep sum and
count. A DISTINCT call aggregates over its distinct values (those of a positive count), as
Flink's generated AggsHandleFunction feeds its inner aggregate a value when its count
becomes 1 and retracts it when the count falls to 0. A call with a FILTER (Flink's
filterArg) accumulates and retracts only the rows whose filter column is TRUE.

`GroupAggProcessor` reads a key's accumulators once per batch and writes them once.
`MiniBatchGroupAggProcessor` runs Flink's MiniBatchGroupAggFunction instead (node version 2
with `table.exec.mini-batch.enabled`, one phase): a key's rows of a bundle in, one change out.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal
from itertools import dropwhile
from typing import Any, Iterator, Optional

from ..changelog import RowKind
from ..functions.data_types import RowOf, from_state, parse_data_type, state_ddl, to_state
from ..types import INTEGRAL_RANGES
from .batch_rows import Output, plain, rows_of
from .positions import SEQ_COLUMN, bundles
from .processor import KeyedValueProcessor

COUNT, SUM, MIN, MAX, AVG, UDAF = "COUNT", "SUM", "MIN", "MAX", "AVG", "UDAF"
SUM0 = "SUM0"                           # SUM, 0 over no rows (split distinct's final COUNT)
FIRST_VALUE, LAST_VALUE, LISTAGG = "FIRST_VALUE", "LAST_VALUE", "LISTAGG"
LAG = "LAG"                            # the over aggregate's only (it never retracts)
WELFORD_M2 = "WELFORD_M2"              # what STDDEV / VARIANCE reduce to (planner/variance.py)
FUNCTIONS = (COUNT, SUM, SUM0, MIN, MAX, AVG, UDAF, FIRST_VALUE, LAST_VALUE, LISTAGG, LAG,
             WELFORD_M2)
# Aggregates over the order rows arrive in (only the group aggregate runs them).
ORDERED = (FIRST_VALUE, LAST_VALUE, LISTAGG)
ACC_STATE = "acc-state"


@dataclass(frozen=True)
class AggCall:
    """One aggregate: its function, argument (input index; None for COUNT(*)), DISTINCT,
    the SQL result type ('INT', 'DECIMAL(38,2)', ...) that fixes rounding, and its FILTER
    (the input index of a BOOLEAN column; None: every row)."""

    function: str
    arg: Optional[int]
    distinct: bool
    result_type: str
    filter: Optional[int] = None
    # a user-defined aggregate function (UDAF): its class ('module:qualname'), accumulator
    # type and argument indexes; Flink's AggregateFunction contract (accumulate, retract,
    # getValue) runs it, with every argument passed, NULLs included
    implementation: Optional[str] = None
    accumulator_type: Optional[str] = None
    args: tuple[int, ...] = ()
    # FIRST_VALUE / LAST_VALUE over an updating input keep every value to retract exactly
    # (Flink's *WithRetractAggFunction); over an insert-only input one value
    retracting: bool = True

    @property
    def function_instance(self) -> Any:
        from ..functions import instance_of

        return instance_of(self.implementation)

    def takes(self, row: tuple) -> bool:
        """Whether a row reaches this call: no FILTER, or its filter column is TRUE."""
        return self.filter is None or (row[self.filter] is not None and bool(row[self.filter]))

    @property
    def keeps_values(self) -> bool:
        """MIN/MAX and DISTINCT keep every value with its count, to retract exactly."""
        return self.function in (MIN, MAX) or self.distinct


@dataclass(frozen=True)
class GroupAggParams:
    key_arity: int
    calls: tuple[AggCall, ...]
    generate_update_before: bool       # the consumer needs -U rows
    ttl_ms: int = 0                    # > 0: emit even unchanged results (Flink, with TTL)
    mini_batch_size: int = 0           # rows a bundle (table.exec.mini-batch.size); 0: off


def _initial(call: AggCall) -> Any:
    if call.function == UDAF:
        return call.function_instance.create_accumulator()
    if call.function == LISTAGG:
        return [[], None]              # the values in arrival order, the delimiter
    if call.function == LAG:
        return [[], 1, None]           # the last offset + 1 values, the offset, the default
    if call.function == WELFORD_M2:
        return [0, 0.0, 0.0]           # n, mean, m2
    if call.function in ORDERED:
        return [] if call.retracting else None
    if call.keeps_values:
        return {}
    if call.function in (SUM, SUM0, AVG):
        return [None, 0]               # sum of the non-NULL values, their count
    return 0                           # COUNT


def call_value(call: AggCall, row: tuple) -> Any:
    """What a row hands an aggregate call: a UDAF the tuple of its arguments, COUNT(*) None,
    others their argument."""
    if call.function == UDAF:
        return tuple(row[i] for i in call.args)
    if call.function == LISTAGG:       # the value and its delimiter (',' unless given)
        return row[call.arg], (row[call.args[1]] if len(call.args) > 1 else ",")
    if call.function == LAG:           # the value, its offset (1 unless given), the default
        return (row[call.arg], row[call.args[1]] if len(call.args) > 1 else 1,
                row[call.args[2]] if len(call.args) > 2 else None)
    return row[call.arg] if call.arg is not None else None


def _apply(call: AggCall, acc: Any, value: Any, sign: int) -> Any:
    """Accumulate (sign 1) or retract (sign -1) one input value into one accumulator (for a
    UDAF, `value` is the tuple of its arguments; its methods change the accumulator in place,
    Flink's AggregateFunction.accumulate / retract)."""
    if call.function == UDAF:
        function = call.function_instance
        (function.accumulate if sign > 0 else function.retract)(acc, *value)
        return acc
    if call.function in ORDERED:
        return _apply_ordered(call, acc, value, sign)
    if call.function == LAG:
        return _apply_lag(acc, value, sign)
    if call.function == WELFORD_M2:
        return apply_welford(acc, value, sign)
    if call.arg is not None and value is None:
        return acc                     # aggregates skip NULL arguments
    if call.keeps_values:
        count = acc.get(value, 0) + sign
        if count == 0:
            acc.pop(value, None)
        else:
            acc[value] = count         # may go negative: a retraction before its row
        return acc
    if call.function in (SUM, SUM0, AVG):
        total, count = acc
        return [running_sum(call, total, value if sign > 0 else -value), count + sign]
    return acc + sign                  # COUNT


def _apply_ordered(call: AggCall, acc: Any, value: Any, sign: int) -> Any:
    """FIRST_VALUE, LAST_VALUE and LISTAGG skip NULLs. Over an updating input they keep the
    values in arrival order and a retraction removes the value's earliest occurrence, or
    nothing when it is not there (FirstValueWithRetractAggFunction's orders,
    ListAggWithRetractAggFunction's list); over an insert-only input FIRST_VALUE keeps the
    first value, LAST_VALUE the last (FirstValueAggFunction, LastValueAggFunction)."""
    if call.function == LISTAGG:
        (value, delimiter), (values, kept) = value, acc
        if value is None:
            return acc
        # Flink's ListAggWs keeps the delimiter of the latest row it accumulated
        acc = [values, delimiter if sign > 0 else kept]
    else:
        values = acc
    if value is None:
        return acc
    if not call.retracting and call.function != LISTAGG:
        return value if call.function == LAST_VALUE or acc is None else acc
    if sign > 0:
        values.append(value)
    elif value in values:
        values.remove(value)
    return acc


def _apply_lag(acc: list, value: tuple, sign: int) -> list:
    """Flink's LagAggFunction.accumulate: NULLs count as values; each call sets the offset
    and the default its arguments give; the buffer keeps the last offset + 1 values. It has no
    retract (the planner gives LAG only to frames that never retract)."""
    if sign < 0:
        raise ValueError("LAG cannot retract a value (Flink's LagAggFunction has no retract)")
    (value, offset, default), (buffer, _, _) = value, acc
    if offset is None or offset < 0:
        raise ValueError(f"LAG's offset must be a non-negative integer, not {offset}")
    buffer.append(value)
    del buffer[:max(0, len(buffer) - (offset + 1))]
    return [buffer, offset, default]


def apply_welford(acc: list, value: Any, sign: int) -> list:
    """Flink's WelfordM2AggFunction.accumulate / retract, operation for operation in doubles
    (a DECIMAL or integer value as its nearest double): NULLs are skipped; n keeps counting
    below 1, where mean and m2 are left alone (reset at 0)."""
    if value is None:
        return acc
    n, mean, m2 = acc
    n += sign
    if n <= 0:                         # retract resets at 0, accumulate leaves them
        return [n, 0.0, 0.0] if n == 0 and sign < 0 else [n, mean, m2]
    val = float(value)
    if sign > 0:
        delta = val - mean
        mean += delta / n
        m2 += delta * (val - mean)
    else:
        delta2 = val - mean
        mean -= delta2 / n
        m2 -= (val - mean) * delta2
    return [n, mean, m2]


def merge_welford(acc: list, other: list) -> list:
    """Flink's WelfordM2AggFunction.merge of one accumulator into another (Chan's parallel
    form, in doubles): an accumulator whose count is not positive only adds its count, last,
    so an intermediate negative total loses nothing."""
    n, mean, m2 = acc
    other_n, other_mean, other_m2 = other
    negative = 0
    if other_n <= 0:
        negative = other_n
    elif n == 0:
        n, mean, m2 = other_n, other_mean, other_m2
    else:
        total = n + other_n
        delta = other_mean - mean
        mean, m2 = mean + other_n / total * delta, m2 + other_m2 + n * other_n / total * delta * delta
        n = total
    n += negative
    return [n, 0.0, 0.0] if n <= 0 else [n, mean, m2]


def _result(call: AggCall, acc: Any) -> Any:
    if call.function == WELFORD_M2:    # WelfordM2AggFunction.getValue
        n, _, m2 = acc
        return None if n <= 0 or m2 < 0 else m2
    if call.function == LAG:           # LagAggFunction.getValue
        # the value offset rows back; the default before there are so many rows, and (as Flink
        # 2.3 gives it) where that value is NULL
        buffer, offset, default = acc
        return buffer[0] if len(buffer) == offset + 1 and buffer[0] is not None else default
    if call.function == UDAF:
        return call.function_instance.get_value(acc)
    if call.function == LISTAGG:
        values, delimiter = acc
        return delimiter.join(values) if values else None
    if call.function in ORDERED:
        if not call.retracting:
            return acc
        return (acc[0] if call.function == FIRST_VALUE else acc[-1]) if acc else None
    if call.keeps_values:
        present = [value for value, count in acc.items() if count > 0]
        if call.function == COUNT:
            return len(present)
        if call.function in (SUM, SUM0, AVG):         # DISTINCT: the aggregate of the values present
            plain_call = replace(call, distinct=False)
            total = _initial(plain_call)
            for value in sorted(present):       # the same order before and after a restore
                total = _apply(plain_call, total, value, 1)
            return _result(plain_call, total)
        if not present:
            return None
        return min(present) if call.function == MIN else max(present)
    if call.function == COUNT:
        return acc
    total, count = acc
    if count == 0:                     # Flink's $SUM0 is 0 over no rows, SUM and AVG NULL
        return _zero(call.result_type) if call.function == SUM0 else None
    if call.function in (SUM, SUM0):
        return _fit(total, call.result_type)
    if isinstance(total, float):
        return total / count
    if isinstance(total, Decimal):
        return _fit(total / Decimal(count), call.result_type)
    quotient = abs(total) // count     # Java's integral division truncates towards zero
    return quotient if total >= 0 else -quotient


def _zero(result_type: str) -> Any:
    """0 of `result_type` (DECIMAL with its scale, DOUBLE / FLOAT as a float)."""
    if result_type.startswith("DECIMAL"):
        return _fit(Decimal(0), result_type)
    return 0.0 if result_type.startswith(("DOUBLE", "FLOAT")) else 0


def running_sum(call: AggCall, total: Any, value: Any) -> Any:
    """A SUM's or AVG's running sum plus `value` (`total` None: no value yet), wrapped around
    its type as Java's arithmetic wraps it: SUM's result type, AVG's BIGINT for integers."""
    new = value if total is None else total + value
    return _wrapped(new, "BIGINT" if call.function == AVG else call.result_type)


def _wrapped(value: Any, result_type: str) -> Any:
    """An integer wrapped around an integral type as Java's arithmetic wraps it (Flink's SUM
    of a TINYINT is a TINYINT: 127 + 3 is -126); other values and types as they are."""
    bounds = INTEGRAL_RANGES.get(result_type.split("(")[0].split()[0])
    if bounds is None or not isinstance(value, int) or isinstance(value, bool):
        return value
    low, high = bounds
    return (value - low) % (high - low + 1) + low


def _fit(value: Any, result_type: str) -> Any:
    """DECIMAL results carry their type's scale (half up, as Flink rounds)."""
    if isinstance(value, Decimal) and result_type.startswith("DECIMAL"):
        scale = int(result_type.rstrip(")").split(",")[1]) if "," in result_type else 0
        return value.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    return value


@dataclass
class Accumulators:
    row_count: int
    values: list[Any]


def accumulate_row(calls: tuple[AggCall, ...], acc: Accumulators, kind: RowKind,
                   row: tuple) -> None:
    """One input row accumulated into (or, for -U / -D, retracted from) `acc`, in place:
    Flink's AggsHandleFunction.accumulate / retract."""
    sign = 1 if kind.is_accumulate else -1
    acc.row_count += sign
    for index, call in enumerate(calls):
        if call.takes(row):
            acc.values[index] = _apply(call, acc.values[index], call_value(call, row), sign)


class GroupAggCore:
    """Flink's GroupAggFunction for one key."""

    def __init__(self, params: GroupAggParams):
        self.p = params

    def create(self) -> Accumulators:
        return Accumulators(0, [_initial(call) for call in self.p.calls])

    def results(self, acc: Accumulators) -> tuple:
        return tuple(_result(call, value) for call, value in zip(self.p.calls, acc.values))

    def process(self, key: tuple, acc: Optional[Accumulators], kind: RowKind, row: tuple,
                out: list[Output]) -> Optional[Accumulators]:
        """One input row; returns the key's accumulators afterwards (None: no state)."""
        accumulate = kind.is_accumulate
        if acc is None:
            if not accumulate:
                return None            # a retraction for a key without state: ignored
            first, acc = True, self.create()
        else:
            first = False
        before = self.results(acc)
        accumulate_row(self.p.calls, acc, kind, row)
        return self.emit(key, first, before, acc, out)

    def finish_bundle(self, key: tuple, acc: Optional[Accumulators],
                      rows: list[tuple[RowKind, tuple]], out: list[Output]
                      ) -> Optional[Accumulators]:
        """Flink's MiniBatchGroupAggFunction.finishBundle for one key: a key without state
        drops the bundle's leading retractions and starts from fresh accumulators; all the
        bundle's rows go in, then one change is emitted as for one row; returns the state to
        keep (None: cleared)."""
        first = acc is None
        if first:
            rows = list(dropwhile(lambda arrival: not arrival[0].is_accumulate, rows))
            if not rows:
                return None
            acc = self.create()
        before = self.results(acc)
        for kind, row in rows:
            accumulate_row(self.p.calls, acc, kind, row)
        return self.emit(key, first, before, acc, out)

    def emit(self, key: tuple, first: bool, before: tuple, acc: Accumulators,
             out: list[Output]) -> Optional[Accumulators]:
        """What the key's change emits (GroupAggFunction's, also MiniBatchGlobalGroupAggFunction's
        finishBundle): -D when no row is left, +I for a new key, -U/+U when the result changed
        (or always with TTL); returns the state to keep (None: cleared)."""
        after = self.results(acc)
        if acc.row_count == 0:
            if not first:
                out.append((RowKind.DELETE.code, key + before))
            return None
        if first:
            out.append((RowKind.INSERT.code, key + after))
        elif self.p.ttl_ms > 0 or before != after:
            if self.p.generate_update_before:
                out.append((RowKind.UPDATE_BEFORE.code, key + before))
            out.append((RowKind.UPDATE_AFTER.code, key + after))
        return acc


# --- the Spark side ---------------------------------------------------------------------------

def state_layout(grouping_ddl: str, calls: tuple[AggCall, ...], arg_ddls: list[Optional[str]],
                 sum_ddls: list[Optional[str]]) -> dict[str, dict[str, str]]:
    """One value per grouping key: the row count and one accumulator per aggregate call,
    with processing-time TTL (always on; see runtime.state_ttl)."""
    layout = {"kind": "value", "value": f"acc {acc_struct_ddl(calls, arg_ddls, sum_ddls)}",
              "grouping": grouping_ddl, "ttl": "processing-time"}
    accumulators = [f"a{index}: {call.implementation} {call.accumulator_type}"
                    for index, call in enumerate(calls) if call.function == UDAF]
    if accumulators:            # which function's accumulator each UDAF field holds
        layout["accumulators"] = "; ".join(accumulators)
    return {ACC_STATE: layout}


def acc_struct_ddl(calls: tuple[AggCall, ...], arg_ddls: list[Optional[str]],
                   sum_ddls: list[Optional[str]]) -> str:
    """The accumulators' struct: the row count and one accumulator per call (also the over
    aggregate's accState)."""
    fields = ["rowCount: BIGINT"]
    for index, (call, arg, total) in enumerate(zip(calls, arg_ddls, sum_ddls)):
        if call.function == UDAF:
            fields.append(f"a{index}: {udaf_state_ddl(call)}")
        elif call.function == LISTAGG:
            fields.append(f"a{index}: STRUCT<values: ARRAY<STRING>, delimiter: STRING>")
        elif call.function == LAG:
            fields.append(f"a{index}: STRUCT<buffer: ARRAY<{arg}>, offset: INT, "
                          f"defaultValue: {arg}>")
        elif call.function == WELFORD_M2:
            fields.append(f"a{index}: STRUCT<n: BIGINT, mean: DOUBLE, m2: DOUBLE>")
        elif call.function in ORDERED:
            fields.append(f"a{index}: ARRAY<{arg}>" if call.retracting else f"a{index}: {arg}")
        elif call.keeps_values:
            fields.append(f"a{index}: ARRAY<STRUCT<v: {arg}, c: BIGINT>>")
        elif call.function in (SUM, SUM0, AVG):
            fields.append(f"a{index}: STRUCT<total: {total}, count: BIGINT>")
        else:
            fields.append(f"a{index}: BIGINT")
    return f"STRUCT<{', '.join(fields)}>"


def udaf_state_ddl(call: AggCall) -> str:
    """The state type of a UDAF's accumulator: its declared ACCUMULATOR_TYPE."""
    return state_ddl(parse_data_type(call.accumulator_type))


def udaf_to_state(call: AggCall, acc: Any) -> Any:
    return to_state(acc, parse_data_type(call.accumulator_type))


def udaf_from_state(call: AggCall, stored: Any) -> Any:
    """A UDAF's accumulator read back (a ROW accumulator into a fresh accumulator object)."""
    data_type = parse_data_type(call.accumulator_type)
    fresh = call.function_instance.create_accumulator()
    return from_state(stored, data_type, fresh if isinstance(data_type, RowOf) else None)


def _encode(acc: Accumulators, calls: tuple[AggCall, ...]) -> tuple:
    values = []
    for call, value in zip(calls, acc.values):
        if call.function == UDAF:
            values.append(udaf_to_state(call, value))
        elif call.function == LISTAGG:
            values.append((list(value[0]), value[1]))
        elif call.function == LAG:
            values.append((list(value[0]), value[1], value[2]))
        elif call.function == WELFORD_M2:
            values.append(tuple(value))
        elif call.function in ORDERED:
            values.append(list(value) if call.retracting else value)
        elif call.keeps_values:
            values.append(sorted(([v, c] for v, c in value.items()), key=lambda item: repr(item[0])))
        elif call.function in (SUM, SUM0, AVG):
            values.append(tuple(value))
        else:
            values.append(value)
    return ((acc.row_count, *values),)


def _decode(stored: tuple, calls: tuple[AggCall, ...]) -> Accumulators:
    (struct,) = stored
    fields = list(struct.values()) if isinstance(struct, dict) else list(struct)
    values = []
    for call, value in zip(calls, fields[1:]):
        if call.function == UDAF:
            values.append(udaf_from_state(call, value))
        elif call.function == LISTAGG:
            items, delimiter = plain(value)
            values.append([list(items or []), delimiter])
        elif call.function == LAG:
            buffer, offset, default = plain(value)
            values.append([list(buffer or []), offset, default])
        elif call.function == WELFORD_M2:
            values.append(list(plain(value)))
        elif call.function in ORDERED:
            values.append(list(value or []) if call.retracting else value)
        elif call.keeps_values:
            values.append({plain(item)[0]: plain(item)[1] for item in value or []})
        elif call.function in (SUM, SUM0, AVG):
            values.append(list(plain(value)))
        else:
            values.append(value)
    return Accumulators(fields[0], values)

class GroupAggProcessor(KeyedValueProcessor):
    """Flink's GroupAggFunction writes the accumulators after every row of a key that still
    has rows, and clears them when its row count falls to zero."""

    CORE = GroupAggCore

    def decode(self, stored):
        return _decode(stored, self.params.calls) if stored is not None else None

    def step(self, key, acc, kind, row, out):
        return self.core.process(tuple(key)[:self.params.key_arity], acc, kind, row, out)

    def written(self, loaded, acc):
        return True

    def encode(self, acc):
        return None if acc is None else _encode(acc, self.params.calls)


class MiniBatchGroupAggProcessor(GroupAggProcessor):
    """Flink's MiniBatchGroupAggFunction in a KeyedMapBundleOperator: a key's rows of a
    micro-batch cut into the count trigger's bundles by their position in it (`SEQ_COLUMN`,
    numbered before the shuffle), each bundle through `finish_bundle`; the state is read and
    written once a micro-batch, as the row-by-row processor does."""

    def run(self, key, acc, rows, out):
        rows = list(rows)
        arrivals = zip((row[SEQ_COLUMN] for row in rows), rows_of(rows, self.input_names))
        group_key = tuple(key)[:self.params.key_arity]
        for bundle in bundles(arrivals, self.params.mini_batch_size):
            acc = self.core.finish_bundle(group_key, acc, bundle, out)
        return acc


def processor_class(params) -> type:
    return MiniBatchGroupAggProcessor if params.mini_batch_size > 0 else GroupAggProcessor
