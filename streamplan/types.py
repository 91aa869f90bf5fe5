"""SQL column types: parsing Flink-style type text, rendering it, and mapping to Spark.

The engine keeps event time at millisecond precision; TIMESTAMP(p) maps to Spark's
TimestampType (session time zone pinned to UTC, so it behaves as Flink's TIMESTAMP).
"""
from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass

from pyspark.sql import types as T

# The one table of SQL types: the parameter counts each accepts, the range of a parameter,
# the aliases, the Spark type of each parameterless one, and the numeric widening order.
TYPE_ARITIES: dict[str, tuple[int, ...]] = {
    "BOOLEAN": (0,), "TINYINT": (0,), "SMALLINT": (0,), "INT": (0,), "BIGINT": (0,),
    "FLOAT": (0,), "DOUBLE": (0,), "DECIMAL": (0, 1, 2), "STRING": (0,), "VARCHAR": (0, 1),
    "CHAR": (0, 1), "BYTES": (0,), "DATE": (0,), "TIMESTAMP": (0, 1), "TIMESTAMP_LTZ": (0, 1),
}
TYPE_ALIASES = {"INTEGER": "INT"}
# A type written without its parameters is Flink's default for it (DEFAULT_LENGTH and
# DEFAULT_PRECISION of Flink's logical types): VARCHAR is VARCHAR(2147483647), which Flink
# calls STRING, CHAR is CHAR(1) and TIMESTAMP is TIMESTAMP(6).
UNPARAMETERIZED = {"VARCHAR": ("STRING", ()), "CHAR": ("CHAR", (1,)), "TIMESTAMP": ("TIMESTAMP", (6,))}
TYPE_PARAM_RANGES = {"DECIMAL": (1, 38), "VARCHAR": (1, 2**31 - 1), "CHAR": (1, 2**31 - 1),
                     "TIMESTAMP": (0, 9), "TIMESTAMP_LTZ": (0, 9)}
NUMERIC_TYPES = ("TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE")  # widening
INTEGRAL_TYPES = NUMERIC_TYPES[:4]
INTEGRAL_RANGES = {name: (-2 ** (bits - 1), 2 ** (bits - 1) - 1)       # Java's byte .. long
                   for name, bits in zip(INTEGRAL_TYPES, (8, 16, 32, 64))}
STRING_TYPES = ("STRING", "VARCHAR", "CHAR")
# Types of other types: ARRAY<T>, MAP<K, V> and ROW<`name` T, ...> (Flink's constructed types).
COMPOSITE_TYPES = ("ARRAY", "MAP", "ROW")
_SIMPLE = {
    "BOOLEAN": T.BooleanType, "TINYINT": T.ByteType, "SMALLINT": T.ShortType, "INT": T.IntegerType,
    "BIGINT": T.LongType, "FLOAT": T.FloatType, "DOUBLE": T.DoubleType, "STRING": T.StringType,
    "BYTES": T.BinaryType, "DATE": T.DateType,
}
_TYPE_RE = re.compile(r"^([A-Z_]+)(?:\((\d{1,9})(?:,(\d{1,9}))?\))?$")   # parameters: at most 9 digits


@dataclass(frozen=True)
class SqlType:
    """A column type; `text` is the canonical rendering (e.g. 'DECIMAL(10,2)')."""

    name: str
    params: tuple[int, ...] = ()
    nullable: bool = True
    # A composite type's parts: ARRAY (element,), MAP (key, value), ROW its fields as
    # (name, type) pairs.
    children: tuple = ()

    @property
    def text(self) -> str:
        if self.name == "ROW":
            base = "ROW<" + ", ".join(f"{quote_identifier(name)} {child.text}"
                                      for name, child in self.children) + ">"
        elif self.children:
            base = f"{self.name}<{', '.join(child.text for child in self.children)}>"
        else:
            base = self.name + (f"({','.join(map(str, self.params))})" if self.params else "")
        return base if self.nullable else f"{base} NOT NULL"

    @property
    def is_composite(self) -> bool:
        return self.name in COMPOSITE_TYPES

    @property
    def is_timestamp(self) -> bool:
        return self.name in ("TIMESTAMP", "TIMESTAMP_LTZ")

    def with_nullable(self, nullable: bool) -> "SqlType":
        return SqlType(self.name, self.params, nullable, self.children)

    def to_spark(self) -> T.DataType:
        if self.name in _SIMPLE:
            return _SIMPLE[self.name]()
        if self.name == "DECIMAL":
            return T.DecimalType(*decimal_precision_scale(self))
        if self.name in ("VARCHAR", "CHAR"):
            return T.StringType()
        if self.is_timestamp:
            return T.TimestampType()
        if self.name == "ARRAY":
            return T.ArrayType(self.children[0].to_spark(), True)
        if self.name == "MAP":
            return T.MapType(self.children[0].to_spark(), self.children[1].to_spark(), True)
        if self.name == "ROW":
            return T.StructType([T.StructField(name, child.to_spark(), True)
                                 for name, child in self.children])
        raise ValueError(f"type {self.text} has no Spark mapping")


def decimal_precision_scale(sql_type: SqlType) -> tuple[int, int]:
    """DECIMAL is DECIMAL(10, 0) and DECIMAL(p) is DECIMAL(p, 0), as in Flink."""
    params = sql_type.params or (10,)
    return params[0], params[1] if len(params) > 1 else 0


@lru_cache(maxsize=16384)      # plans repeat their types; SqlType is immutable
def parse_type(text: str) -> SqlType:
    """Parse canonical or user type text ('int not null', 'TIMESTAMP(3)', 'DECIMAL(10, 2)',
    'ARRAY<INT>', 'MAP<STRING, INT>', 'ROW<`name` STRING, n INT>')."""
    if "<" in text:
        return _parse_composite(text)
    compact, nullable = " ".join(text.upper().split()), True
    if compact.endswith(" NOT NULL"):
        compact, nullable = compact[: -len(" NOT NULL")], False
    compact = re.sub(r"\s*([(),])\s*", r"\1", compact)
    compact = TYPE_ALIASES.get(compact, compact)
    match = _TYPE_RE.match(compact)
    if not match:
        raise ValueError(f"'{text}' is not a supported type")
    name = TYPE_ALIASES.get(match.group(1), match.group(1))
    params = tuple(int(group) for group in match.group(2, 3) if group is not None)
    if name not in TYPE_ARITIES:
        raise ValueError(f"'{text}' is not a supported type")
    if params and name in _SIMPLE:
        raise ValueError(f"type {name} takes no parameters")
    if not params:
        name, params = UNPARAMETERIZED.get(name, (name, params))
    return SqlType(name, params, nullable)


_NOT_NULL_RE = re.compile(r"\s+NOT\s+NULL\s*$", re.IGNORECASE)
_ROW_FIELD_RE = re.compile(r"^\s*(`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_$]*)\s+(.+?)\s*$", re.DOTALL)


def _parse_composite(text: str) -> SqlType:
    """ARRAY<T>, MAP<K, V> or ROW<name T, ...> (field names keep their case; a name may be
    quoted with backquotes), with NOT NULL after the closing '>' or after a part."""
    body, nullable = text.strip(), True
    match = _NOT_NULL_RE.search(body)
    if match and body[:match.start()].rstrip().endswith(">"):
        body, nullable = body[:match.start()].rstrip(), False
    head, _, rest = body.partition("<")
    name = head.strip().upper()
    if name not in COMPOSITE_TYPES or not rest.endswith(">"):
        raise ValueError(f"'{text}' is not a supported type (ARRAY<T>, MAP<K, V>, ROW<name T, ...>)")
    parts = [part.strip() for part in _split_top_level(rest[:-1])]
    if name == "ROW":
        if not parts:
            raise ValueError(f"'{text}': a ROW has at least one field")
        fields = []
        for part in parts:
            field = _ROW_FIELD_RE.match(part)
            if field is None:
                raise ValueError(f"'{text}': a ROW field is 'name TYPE', got '{part}'")
            raw = field.group(1)
            label = raw[1:-1].replace("``", "`") if raw.startswith("`") else raw
            fields.append((label, parse_type(field.group(2))))
        names = [label for label, _ in fields]
        if len(set(names)) != len(names):
            raise ValueError(f"'{text}': a ROW's field names must differ")
        return SqlType("ROW", (), nullable, tuple(fields))
    arity = 1 if name == "ARRAY" else 2
    if len(parts) != arity:
        raise ValueError(f"'{text}': {name} takes {arity} type(s), found {len(parts)}")
    return SqlType(name, (), nullable, tuple(parse_type(part) for part in parts))


def from_spark(data_type: T.DataType, nullable: bool = True) -> SqlType:
    """The SqlType Spark's analyzer inferred for an expression."""
    if isinstance(data_type, T.ArrayType):
        return SqlType("ARRAY", (), nullable, (from_spark(data_type.elementType,
                                                          data_type.containsNull),))
    if isinstance(data_type, T.MapType):
        return SqlType("MAP", (), nullable, (from_spark(data_type.keyType),
                                             from_spark(data_type.valueType,
                                                        data_type.valueContainsNull)))
    if isinstance(data_type, T.StructType):
        return SqlType("ROW", (), nullable, tuple((field.name, from_spark(field.dataType,
                                                                          field.nullable))
                                                  for field in data_type.fields))
    for name, spark_cls in _SIMPLE.items():
        if type(data_type) is spark_cls:
            return SqlType(name, (), nullable)
    if isinstance(data_type, T.DecimalType):
        return SqlType("DECIMAL", (data_type.precision, data_type.scale), nullable)
    if isinstance(data_type, (T.TimestampType, T.TimestampNTZType)):
        return SqlType("TIMESTAMP", (3,), nullable)
    if isinstance(data_type, (T.CharType, T.VarcharType)):
        return SqlType("STRING", (), nullable)
    raise ValueError(f"Spark type {data_type.simpleString()} has no SQL type mapping here")


def quote_identifier(name: str) -> str:
    """`name` quoted for Spark SQL and plan row types, its own backquotes doubled: a name
    is spliced into SQL text and must never end the quoting early."""
    return "`" + name.replace("`", "``") + "`"


@dataclass(frozen=True)
class Field:
    name: str
    type: SqlType
    rowtime: bool = False
    proctime: bool = False

    @property
    def text(self) -> str:
        suffix = " *ROWTIME*" if self.rowtime else " *PROCTIME*" if self.proctime else ""
        return f"{quote_identifier(self.name)} {self.type.text}{suffix}"


@dataclass(frozen=True)
class RowType:
    """An ordered list of named fields; renders as Flink's `ROW<`a` INT, ...>`."""

    fields: tuple[Field, ...]

    @property
    def names(self) -> list[str]:
        return [field.name for field in self.fields]

    def index(self, name: str) -> int:
        return self.names.index(name)

    def field(self, name: str) -> Field:
        return self.fields[self.index(name)]

    @property
    def text(self) -> str:
        return "ROW<" + ", ".join(field.text for field in self.fields) + ">"

    def to_spark(self, declared_nullability: bool = False) -> T.StructType:
        """Runtime schemas are all-nullable (Spark trusts nullability); planning uses the declared one."""
        return T.StructType([
            T.StructField(f.name, f.type.to_spark(), f.type.nullable or not declared_nullability)
            for f in self.fields])

    @property
    def rowtime_index(self) -> int | None:
        return next((i for i, field in enumerate(self.fields) if field.rowtime), None)

    @property
    def proctime_index(self) -> int | None:
        return next((i for i, field in enumerate(self.fields) if field.proctime), None)


_FIELD_RE = re.compile(r"`((?:[^`]|``)+)`\s+(.+?)(?:\s+\*(ROWTIME|PROCTIME)\*)?$")


@lru_cache(maxsize=16384)      # every node's row_type reads it; RowType is immutable
def parse_row_type(text: str) -> RowType:
    """Inverse of RowType.text, for loading plans."""
    if not (text.startswith("ROW<") and text.endswith(">")):
        raise ValueError(f"'{text}' is not a ROW<...> type")
    body = text[4:-1]
    fields: list[Field] = []
    for part in _split_top_level(body):
        match = _FIELD_RE.match(part.strip())
        if not match:
            raise ValueError(f"'{part.strip()}' is not a `name` TYPE field")
        fields.append(Field(match.group(1).replace("``", "`"), parse_type(match.group(2)),
                            match.group(3) == "ROWTIME", match.group(3) == "PROCTIME"))
    return RowType(tuple(fields))


def _split_top_level(body: str) -> list[str]:
    """Split on commas outside parentheses, angle brackets and backquotes."""
    parts, depth, quoted, current = [], 0, False, []
    for char in body:
        if char == "`":
            quoted = not quoted
        elif not quoted and char in "(<":
            depth += 1
        elif not quoted and char in ")>":
            depth -= 1
        elif not quoted and depth == 0 and char == ",":
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    if current:
        parts.append("".join(current))
    return [part for part in parts if part.strip()]


def unique_names(names: list[str]) -> list[str]:
    """`names` with each repeated name given a numeric suffix, as Flink names the fields of a
    projection or a join (`k`, `k0`, `k1`)."""
    seen, result = set(), []
    for name in names:
        candidate, suffix = name, 0
        while candidate in seen:
            candidate, suffix = f"{name}{suffix}", suffix + 1
        seen.add(candidate)
        result.append(candidate)
    return result
