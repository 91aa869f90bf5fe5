"""The order in which Flink's mini-batch bundle (a `java.util.HashMap` keyed by `BinaryRowData`)
hands its keys back, so a local aggregate flushes its keys as Flink's does.

Flink's MapBundleOperator keeps a bundle in a HashMap; at the end of a bundle the local
aggregate emits one row per key in the map's iteration order, and which keys the global
aggregate's count trigger then puts into one bundle depends on that order (Flink's own
GroupAggregateTestPrograms#GROUP_BY_DISTINCT_MINI_BATCH expects it). The order is fixed by
the key's bytes:

* the key is a `BinaryRowData`: an 8-byte header (row kind byte 0, null bits), an 8-byte
  slot per field (fixed-length values little-endian, the rest of the slot zero; a string of
  at most 7 bytes inline with `0x80 | length` in the slot's last byte; a longer one as
  offset << 32 | length, its bytes after the fixed part padded with zeros to 8 bytes);
* its `hashCode` is Murmur3 x86 32 over 4-byte words with seed 42 (`hashByWords`);
* the HashMap spreads it (`h ^ h >>> 16`) into one of `capacity` buckets (16, doubling past
  75 % full) and iterates buckets in order, each in insertion order.

Keys of other types (DECIMAL, TIMESTAMP, BYTES, ...) keep their arrival order. The map keeps
its capacity across bundles in Flink; here the capacity follows the bundle's own key count.
"""
from __future__ import annotations

import datetime as dt
import struct
from typing import Optional, Sequence

_MASK = 0xFFFFFFFF
_FIXED = {"BOOLEAN": "<?", "TINYINT": "<b", "SMALLINT": "<h", "INT": "<i", "BIGINT": "<q",
          "FLOAT": "<f", "DOUBLE": "<d", "DATE": "<i"}
_STRINGS = ("STRING", "VARCHAR", "CHAR")
_EPOCH = dt.date(1970, 1, 1)


def supported(type_names: Sequence[str]) -> bool:
    return all(name in _FIXED or name in _STRINGS for name in type_names)


def binary_row(values: Sequence, type_names: Sequence[str]) -> bytes:
    """The bytes of a BinaryRowData holding `values` (of supported types)."""
    arity = len(values)
    null_bytes = ((arity + 63 + 8) // 64) * 8
    header = bytearray(null_bytes)
    fixed = bytearray(8 * arity)
    variable = bytearray()
    for index, (value, name) in enumerate(zip(values, type_names)):
        if value is None:
            bit = index + 8                      # the first 8 bits hold the row kind
            header[bit // 8] |= 1 << (bit % 8)
            continue
        slot = 8 * index
        if name in _FIXED:
            if name == "DATE" and isinstance(value, dt.date):
                value = (value - _EPOCH).days
            packed = struct.pack(_FIXED[name], value)
            fixed[slot:slot + len(packed)] = packed
            continue
        data = str(value).encode("utf-8")
        if len(data) <= 7:
            fixed[slot:slot + len(data)] = data
            fixed[slot + 7] = 0x80 | len(data)
        else:
            offset = null_bytes + 8 * arity + len(variable)
            fixed[slot:slot + 8] = struct.pack("<q", (offset << 32) | len(data))
            variable += data + bytes(-len(data) % 8)
    return bytes(header + fixed + variable)


def _rotl(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (32 - bits))) & _MASK


def hash_by_words(data: bytes, seed: int = 42) -> int:
    """Flink's MurmurHashUtil.hashBytesByWords (Murmur3 x86 32), as an unsigned int."""
    h1 = seed
    for (word,) in struct.iter_unpack("<I", data):
        k1 = _rotl((word * 0xCC9E2D51) & _MASK, 15)
        h1 ^= (k1 * 0x1B873593) & _MASK
        h1 = (_rotl(h1, 13) * 5 + 0xE6546B64) & _MASK
    h1 ^= len(data)
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & _MASK
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & _MASK
    return h1 ^ (h1 >> 16)


def capacity(size: int) -> int:
    """A HashMap's table size after `size` insertions into a new map."""
    table = 16
    while size > table * 3 // 4:
        table *= 2
    return table


def hash_map_order(keys: Sequence[tuple], type_names: Sequence[str]) -> Optional[list[int]]:
    """The positions of `keys` (in insertion order) in the order a java.util.HashMap of their
    BinaryRowData iterates them; None when a key type is not supported."""
    if not supported(type_names):
        return None
    table = capacity(len(keys))

    def bucket(key: tuple) -> int:
        h = hash_by_words(binary_row(key, type_names))
        return (h ^ (h >> 16)) & (table - 1)

    return sorted(range(len(keys)), key=lambda position: (bucket(keys[position]), position))


def java_hash_code(value, type_name: str) -> Optional[int]:
    """`hashCode()` of the Java object Flink converts a value of `type_name` to (String,
    Integer, Long, Boolean, Double, ...), as an unsigned 32-bit int; None for other types."""
    if type_name in _STRINGS:
        h = 0
        for unit in struct.unpack(f"<{len(value.encode('utf-16-le')) // 2}H",
                                  value.encode("utf-16-le")):
            h = (31 * h + unit) & _MASK
        return h
    if type_name in ("TINYINT", "SMALLINT", "INT"):
        return value & _MASK
    if type_name == "BIGINT":
        return (value ^ ((value & 0xFFFFFFFFFFFFFFFF) >> 32)) & _MASK
    if type_name == "BOOLEAN":
        return 1231 if value else 1237
    if type_name == "DOUBLE":
        (bits,) = struct.unpack("<Q", struct.pack("<d", value if value == value else float("nan")))
        return (bits ^ (bits >> 32)) & _MASK
    if type_name == "FLOAT":
        (bits,) = struct.unpack("<I", struct.pack("<f", value))
        return bits
    return None


def java_map_order(keys: Sequence, type_name: str) -> list[int]:
    """The positions of `keys` (in insertion order) in the order a java.util.HashMap of their
    Java objects iterates them (Flink's MAP values as Row.toString prints them); insertion
    order for key types whose hashCode is not covered."""
    hashes = [java_hash_code(key, type_name) if key is not None else 0 for key in keys]
    if any(h is None for h in hashes):
        return list(range(len(keys)))
    table = capacity(len(keys))
    return sorted(range(len(keys)),
                  key=lambda position: ((hashes[position] ^ (hashes[position] >> 16))
                                        & (table - 1), position))
