"""Version 2 of the interval join's state: join keys in buckets, one value and one timer per
bucket.

Version 1 keeps seven state variables per join key (two row caches, two fired-flag maps, two
cleanup times and a late-row count) and registers a timer for every cleanup and early fire,
never deleting one. Every state call is a synchronous round trip from the Python worker to
the JVM, and every grouping key costs PySpark a call with fixed overhead (the key is set in
the JVM, the call's output becomes an Arrow batch of its own), so version 1 spends most of
its time on round trips and calls, not on the join (bench/README.md has the measurements).

Version 2 runs the same join (`IntervalJoinCore`, shared with version 1, per join key) on a
state built for few calls and few round trips:

* The transformWithState grouping key is a bucket of join keys, `pmod(hash(join key),
  BUCKETS)` (Spark's Murmur3 `hash`, stable across releases, as bucketed tables need). A
  micro-batch makes at most one call per bucket, not one per join key.
* One ValueState per bucket, `join-state`, holds every join key of the bucket with both
  sides' rows and their emitted and fired flags, both cleanup times, the key's next due time
  and its late-row count: read once and written at most once per call, cleared when the
  bucket holds nothing. A join key's sides are kept as encoded blobs, decoded only when the
  key has input or is due, and written back as they were read otherwise.
* One event-time timer per bucket, at the earliest time anything of it is due (a cleanup or
  an early fire). It is moved, not added to: a timer that became moot is deleted. Every call
  first does all that is due at the current watermark for every key it touches, and for
  every key of the bucket that is due, so one timer does what version 1's many did.

The trade-off: a call reads and writes its bucket whole, so with many join keys of which few
are active per batch, a batch rewrites the state of inactive keys that share a bucket with
active ones (BUCKETS bounds the calls per batch; state / BUCKETS bounds a bucket). The
benchmark measured 256, 1024 and 4096 buckets and one key per call (bench/README.md).

Encoding: the bucket's keys are a pickle (protocol 5) of primitives only,
`{encoded join key: (left, right, left cleanup, right cleanup, due, late rows)}`, and a side
is a pickle of `[(time, ((row values, flags), ...)), ...]` in time order (flags bit 0 =
emitted, bit 1 = fired). Values are as Spark hands them over, except TIMESTAMP as epoch
microseconds, DATE as its proleptic ordinal and DECIMAL as its text. Both are read back by
an unpickler that refuses every global, so a checkpoint cannot make the reader run code.
Changing any of this, or BUCKETS, changes what the state means: bump the node version.
"""
from __future__ import annotations

import datetime as dt
import io
import pickle
from decimal import Decimal
from typing import Any, Callable, Iterator, Optional, Sequence

from pyspark.sql import Row
from pyspark.sql import types as T

from ..changelog import KEY_PREFIX, OP_COLUMN
from .batch_rows import Output
from .interval_join import Entry, IntervalJoinCore, IntervalJoinParams, SideCache, ordered_input
from .join_condition import join_condition
from .processor import Processor
from .timestamps import from_micros, to_micros

STATE = "join-state"
BUCKETS = 1024
BUCKET_COLUMN = "__bucket"
VALUE_DDL = "keys BINARY, timer BIGINT"
ENCODING = ("keys: pickle protocol 5 of primitives {join key: (left, right, left cleanup time, "
            "right cleanup time, due time, late rows)}; left, right: pickle protocol 5 of "
            "primitives [(time, ((row values, flags), ...)), ...] in time order, flags bit 0 "
            "emitted, bit 1 fired; TIMESTAMP as epoch microseconds, DATE as proleptic "
            "ordinal, DECIMAL as text")
EMITTED, FIRED = 1, 2


def state_layout(left_struct_ddl: str, right_struct_ddl: str,
                 key_struct_ddl: str) -> dict[str, dict[str, str]]:
    """The one state variable, its grouping and what its blobs hold (the audit compares it)."""
    return {STATE: {"kind": "value", "value": VALUE_DDL,
                    "grouping": f"pmod(hash(join key), {BUCKETS})",
                    "joinKey": f"STRUCT<{key_struct_ddl}>", "leftRow": f"STRUCT<{left_struct_ddl}>",
                    "rightRow": f"STRUCT<{right_struct_ddl}>", "encoding": ENCODING}}


class StateFormatError(ValueError):
    """The bytes of a join-state blob are not what version 2 writes."""


# --- values <-> primitives ------------------------------------------------------------------------



# Per SQL type name: (encode, decode) for the types whose values are not primitives.
_CONVERSIONS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "TIMESTAMP": (to_micros, from_micros),
    "TIMESTAMP_LTZ": (to_micros, from_micros),
    "DATE": (dt.date.toordinal, dt.date.fromordinal),
    "DECIMAL": (str, Decimal),
}


class RowCodec:
    """Row values as primitives, column by column (`type_names`: SQL type names)."""

    def __init__(self, type_names: Sequence[str]):
        self.converted = tuple((index, *_CONVERSIONS[name]) for index, name in enumerate(type_names)
                               if name in _CONVERSIONS)

    def encode(self, row: tuple) -> tuple:
        if not self.converted:
            return tuple(row)
        values = list(row)
        for index, encode, _ in self.converted:
            if values[index] is not None:
                values[index] = encode(values[index])
        return tuple(values)

    def decode(self, values: tuple) -> tuple:
        if not self.converted:
            return values
        row = list(values)
        for index, _, decode in self.converted:
            if row[index] is not None:
                row[index] = decode(row[index])
        return tuple(row)


class _PrimitivesOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        raise StateFormatError(f"a join-state blob refers to {module}.{name}; version 2 blobs "
                               f"hold primitives only")


def _loads(blob: bytes) -> Any:
    return _PrimitivesOnly(io.BytesIO(blob)).load()


class StoredEntry(Entry):
    """A cached row read from the state. Its values are decoded on first use (most cached
    rows are only looked at by time) and written back as they were read."""

    __slots__ = ("encoded", "_decode", "_row")

    def __init__(self, encoded: tuple, flags: int, decode: Callable[[tuple], tuple]):
        self.encoded, self._decode, self._row = encoded, decode, None
        self.emitted, self.fired = bool(flags & EMITTED), bool(flags & FIRED)

    @property
    def row(self) -> tuple:
        if self._row is None:
            self._row = self._decode(self.encoded)
        return self._row


def encode_side(cache: SideCache, codec: RowCodec) -> Optional[bytes]:
    if not cache.buckets:
        return None
    encode = codec.encode
    return pickle.dumps(
        [(time, tuple((entry.encoded if type(entry) is StoredEntry else encode(entry.row),
                       EMITTED * entry.emitted | FIRED * entry.fired)
                      for entry in cache.buckets[time]))
         for time in sorted(cache.buckets)], protocol=5)


def decode_side(blob: Optional[bytes], cleanup_time: Optional[int], codec: RowCodec) -> SideCache:
    if not blob:
        return SideCache({}, cleanup_time)
    decode = codec.decode
    buckets = {time: [StoredEntry(values, flags, decode) for values, flags in entries]
               for time, entries in _loads(blob)}
    return SideCache(buckets, cleanup_time)


def _changed(cache: SideCache) -> bool:
    return bool(cache.dirty or cache.removed)


def next_due(params: IntervalJoinParams, left: SideCache, right: SideCache) -> Optional[int]:
    """The earliest time anything of a join key is due: a cleanup, or an early fire of a
    cached outer row that has neither matched nor fired (version 1 had a timer for each)."""
    due = [time for time in (left.cleanup_time, right.cleanup_time) if time is not None]
    if params.early_fire:
        for cache, outer in ((left, params.left_outer), (right, params.right_outer)):
            if not outer:
                continue
            for time in sorted(cache.buckets):
                if any(not entry.emitted and not entry.fired for entry in cache.buckets[time]):
                    due.append(time + params.early_fire_delay_ms)
                    break
    return min(due, default=None)


# A join key's entry in its bucket: (left, right, left cleanup, right cleanup, due, late rows).
KeyEntry = tuple


class BucketJoin:
    """The join of one bucket's keys in one call, on plain Python values (no Spark): decode
    what the call touches, run the core per join key, encode what changed."""

    def __init__(self, params: IntervalJoinParams, predicate, left: RowCodec, right: RowCodec,
                 key: RowCodec):
        self.params, self.predicate = params, predicate
        self.left_codec, self.right_codec, self.key_codec = left, right, key

    def run(self, keys: dict, rows_by_key: dict[tuple, list], watermark: int,
            out: list[Output]) -> bool:
        """Process the keys with input and the keys due at `watermark`; update `keys` (the
        bucket's entries, by encoded join key) in place; True when anything changed."""
        encode_key = self.key_codec.encode
        todo = {encode_key(key): key for key in rows_by_key}
        for encoded, entry in keys.items():
            if encoded not in todo and entry[4] is not None and entry[4] <= watermark:
                todo[encoded] = self.key_codec.decode(encoded)
        changed = False
        for encoded in sorted(todo, key=repr):
            key = todo[encoded]
            entry = self._join_key(key, keys.get(encoded), rows_by_key.get(key, ()), watermark,
                                   out)
            if entry is None:
                changed |= keys.pop(encoded, None) is not None
            elif entry is not keys.get(encoded):
                keys[encoded] = entry
                changed = True
        return changed

    def _join_key(self, key: tuple, entry: Optional[KeyEntry], rows, watermark: int,
                  out: list[Output]) -> Optional[KeyEntry]:
        """One join key: the core on its decoded state; its new entry (None: nothing left;
        the same object: nothing changed)."""
        left_blob, right_blob, left_cleanup, right_cleanup, due, late = \
            entry or (None, None, None, None, None, 0)
        left = decode_side(left_blob, left_cleanup, self.left_codec)
        right = decode_side(right_blob, right_cleanup, self.right_codec)
        core = IntervalJoinCore(self.params, self.predicate)
        core.on_watermark(watermark, left, right, out)
        keys_match = all(part is not None for part in key)
        operator_time = max(watermark, 0)
        for side_is_left, row in rows:
            core.process(side_is_left, row, keys_match, operator_time, left, right, out)
        late += core.late_rows
        if not left.buckets and not right.buckets and not late:
            return None
        new_due = next_due(self.params, left, right)
        if (entry is not None and not _changed(left) and not _changed(right)
                and not left.timer_dirty and not right.timer_dirty and not core.late_rows
                and new_due == due):
            return entry
        return (encode_side(left, self.left_codec) if _changed(left) else left_blob,
                encode_side(right, self.right_codec) if _changed(right) else right_blob,
                left.cleanup_time, right.cleanup_time, new_due, late)


def bucket_keys(value) -> dict[tuple, dict[str, Any]]:
    """A `join-state` value as Spark's state data source reads it (`row["value"]`), per join
    key (encoded): its cleanup times, due time and late-row count, and how many rows each
    side holds. For inspection: `spark.read.format("statestore").option("stateVarName",
    "join-state").load(checkpoint)`."""
    keys = _loads(value["keys"] if not isinstance(value, (tuple, list)) else value[0])
    return {key: {"leftRows": sum(len(rows) for _, rows in _loads(left)) if left else 0,
                  "rightRows": sum(len(rows) for _, rows in _loads(right)) if right else 0,
                  "leftCleanupTime": left_cleanup, "rightCleanupTime": right_cleanup,
                  "due": due, "lateRows": late}
            for key, (left, right, left_cleanup, right_cleanup, due, late) in keys.items()}


def bucket_due(keys: dict) -> Optional[int]:
    return min((entry[4] for entry in keys.values() if entry[4] is not None), default=None)



# A StructType, not DDL text: a DDL string costs a parse round trip to the JVM per task.
VALUE_SCHEMA = T.StructType([T.StructField("keys", T.BinaryType()),
                             T.StructField("timer", T.LongType())])


class IntervalJoinProcessorV2(Processor):
    """Version 2: one value and one timer per bucket of join keys."""

    def init(self, handle) -> None:
        self.handle = handle
        self.state = handle.getValueState(STATE, VALUE_SCHEMA)
        predicate = join_condition(self.params.condition, self.params.output_names)
        left, right, key = (RowCodec(types) for types in self.params.column_types)
        self.join = BucketJoin(self.params, predicate, left, right, key)
        self.key_columns = [f"{KEY_PREFIX}{index}" for index in range(len(self.params.column_types[2]))]
        self.output_row = Row(*self.params.output_names, OP_COLUMN)

    def _run(self, rows_by_key: dict, watermark: int, timer_fired: bool) -> list:
        stored = self.state.get()                   # the bucket's one read
        if stored is None and not rows_by_key:
            return []
        keys = _loads(stored[0]) if stored is not None else {}
        timer = stored[1] if stored is not None else None
        out: list[Output] = []
        changed = self.join.run(keys, rows_by_key, watermark, out)
        # One timer per bucket, at its next due time. Spark deletes a fired timer after
        # its call; a registered one that is no longer the next due time is moved
        # (deleted while moot, also when it would still fire in this batch).
        registered = None if timer_fired else timer
        due = bucket_due(keys)
        if due != registered:
            if registered is not None:
                self.handle.deleteTimer(registered)
            if due is not None:
                self.handle.registerTimer(due)
        if not keys:
            if stored is not None:
                self.state.clear()                  # nothing left in this bucket
        elif changed or due != timer:
            self.state.update((pickle.dumps(keys, protocol=5), due))  # the one write
        output_row = self.output_row
        return [output_row(*values, kind) for kind, values in out]

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        by_key: dict[tuple, list] = {}
        columns = self.key_columns
        for row in rows:
            by_key.setdefault(tuple(row[column] for column in columns), []).append(row)
        ordered = {join_key: ordered_input(group, self.params)
                   for join_key, group in by_key.items()}
        return iter(self._run(ordered, self.params.current_time(timerValues), False))

    def handleExpiredTimer(self, key, timerValues, expiredTimerInfo) -> Iterator:
        return iter(self._run({}, self.params.current_time(timerValues), True))
