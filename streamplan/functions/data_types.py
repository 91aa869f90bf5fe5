"""The declared types of user-defined functions: the column types of `types.py` plus the
structured types an accumulator needs (Flink's `ROW<...>`, `ARRAY<...>`, `MAP<..., ...>`;
a MapView / ListView is a MAP / ARRAY here). Canonical text is what plans record, so a
function's signature compares as text; `state_ddl` is the Spark DDL its state is kept in."""
from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Union

from pyspark.sql import types as T

from ..types import SqlType, parse_type


@dataclass(frozen=True)
class RowOf:
    fields: tuple[tuple[str, "DataType"], ...]

    @property
    def text(self) -> str:
        return "ROW<" + ", ".join(f"{name} {t.text}" for name, t in self.fields) + ">"


@dataclass(frozen=True)
class ArrayOf:
    element: "DataType"

    @property
    def text(self) -> str:
        return f"ARRAY<{self.element.text}>"


@dataclass(frozen=True)
class MapOf:
    key: "DataType"
    value: "DataType"

    @property
    def text(self) -> str:
        return f"MAP<{self.key.text}, {self.value.text}>"


DataType = Union[SqlType, RowOf, ArrayOf, MapOf]
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_data_type(text: str) -> DataType:
    """'BIGINT', 'ROW<sum BIGINT, count INT>', 'MAP<STRING, BOOLEAN>', 'ARRAY<STRING>'."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a type is text such as 'BIGINT' or 'ROW<sum BIGINT, count INT>', "
                         f"got {text!r}")
    return _parse_data_type(text)


# Aggregate state code asks for an accumulator's type once per value; the types are frozen,
# so one parse per distinct text serves them all.
@lru_cache(maxsize=1024)
def _parse_data_type(text: str) -> DataType:
    stripped = text.strip()
    head, _, rest = stripped.partition("<")
    kind = head.strip().upper()
    if not rest:
        return parse_type(stripped)
    if not rest.endswith(">"):
        raise ValueError(f"'{text}': unbalanced '<'")
    parts = _split(rest[:-1], text)
    if kind == "ARRAY" and len(parts) == 1:
        return ArrayOf(parse_data_type(parts[0]))
    if kind == "MAP" and len(parts) == 2:
        return MapOf(parse_data_type(parts[0]), parse_data_type(parts[1]))
    if kind == "ROW" and parts:
        fields = []
        for part in parts:
            name, _, field_type = part.strip().partition(" ")
            name = name.strip("`")
            if not _NAME.match(name) or not field_type.strip():
                raise ValueError(f"'{text}': a ROW field is 'name TYPE', got '{part.strip()}'")
            fields.append((name, parse_data_type(field_type)))
        names = [name for name, _ in fields]
        if len(set(names)) != len(names):
            raise ValueError(f"'{text}': a ROW's field names must differ")
        return RowOf(tuple(fields))
    raise ValueError(f"'{text}' is not a supported type (ROW<name TYPE, ...>, ARRAY<TYPE>, "
                     f"MAP<TYPE, TYPE> or a column type)")


def _split(body: str, text: str) -> list[str]:
    parts, depth, current = [], 0, []
    for char in body:
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
            if depth < 0:
                raise ValueError(f"'{text}': unbalanced '{char}'")
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    if any(not part.strip() for part in parts):
        raise ValueError(f"'{text}': an empty type between commas")
    return [part.strip() for part in parts]


def canonical(text: str) -> str:
    """The canonical rendering of a declared type (what plans record and compare)."""
    return parse_data_type(text).text


def to_spark(data_type: DataType) -> T.DataType:
    if isinstance(data_type, RowOf):
        return T.StructType([T.StructField(name, to_spark(t), True) for name, t in data_type.fields])
    if isinstance(data_type, ArrayOf):
        return T.ArrayType(to_spark(data_type.element), True)
    if isinstance(data_type, MapOf):
        return T.MapType(to_spark(data_type.key), to_spark(data_type.value), True)
    return data_type.to_spark()


def state_ddl(data_type: DataType) -> str:
    """Spark DDL of the type, struct field names quoted (an accumulator field may be called
    `map` or `count`)."""
    if isinstance(data_type, RowOf):
        return "STRUCT<" + ", ".join(f"`{name}`: {state_ddl(t)}" for name, t in data_type.fields) + ">"
    if isinstance(data_type, ArrayOf):
        return f"ARRAY<{state_ddl(data_type.element)}>"
    if isinstance(data_type, MapOf):
        return f"MAP<{state_ddl(data_type.key)}, {state_ddl(data_type.value)}>"
    return data_type.to_spark().simpleString().upper()


# --- accumulators in and out of state ----------------------------------------------------------

def to_state(value: Any, data_type: DataType) -> Any:
    """A Python accumulator as the state value of its declared type: a ROW from the object's
    attributes of those names, an ARRAY from a list, a MAP from a dict."""
    if value is None:
        return None
    if isinstance(data_type, RowOf):
        return tuple(to_state(getattr(value, name, None), t) for name, t in data_type.fields)
    if isinstance(data_type, ArrayOf):
        return [to_state(item, data_type.element) for item in value]
    if isinstance(data_type, MapOf):
        return {to_state(k, data_type.key): to_state(v, data_type.value)
                for k, v in value.items()}
    return value


def from_state(stored: Any, data_type: DataType, into: Any = None) -> Any:
    """The inverse of to_state; a top-level ROW is written into `into` (the function's fresh
    accumulator, so its methods and attribute defaults stay), nested ROWs into namespaces."""
    if stored is None:
        return into if isinstance(data_type, RowOf) and into is not None else None
    if isinstance(data_type, RowOf):
        values = list(stored.values()) if isinstance(stored, dict) else list(stored)
        target = into if into is not None else SimpleNamespace()
        for (name, t), value in zip(data_type.fields, values):
            setattr(target, name, from_state(value, t))
        return target
    if isinstance(data_type, ArrayOf):
        return [from_state(item, data_type.element) for item in stored]
    if isinstance(data_type, MapOf):
        items = stored.items() if isinstance(stored, dict) else stored
        return {from_state(k, data_type.key): from_state(v, data_type.value) for k, v in items}
    return stored
