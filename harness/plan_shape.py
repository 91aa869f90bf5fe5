"""Structural comparison of two JSON forms of one exec node: keys and value kinds, never values.

The node's pydantic model guides the walk: nested models are compared key by key, maps
(`configuration`, table `options`, ...) are data and compared as a whole, and a field the
model declares Optional with default None is additive: it may be absent on either side.
"""
from __future__ import annotations

import inspect
import types
import typing
from dataclasses import dataclass
from typing import Any, Optional

from pydantic import BaseModel


@dataclass(frozen=True)
class ShapeChange:
    path: str            # dotted, '[]' for list elements: 'intervalJoinSpec.joinSpec.leftKeys'
    change: str          # removed | added | kind
    detail: str = ""

    def __str__(self) -> str:
        if self.change == "kind":
            return f"plan field '{self.path}' changed kind ({self.detail})"
        return f"plan field '{self.path}' {self.change}"


def shape_changes(old: dict, new: dict, model: type[BaseModel]) -> list[ShapeChange]:
    """How `new` (today's JSON) differs in shape from `old` (the fixture's)."""
    changes: list[ShapeChange] = []
    _walk(old, new, model, "", changes)
    return changes


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "list"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "null" if value is None else "string"


def _fields(model: Optional[type[BaseModel]]) -> dict[str, Any]:
    if model is None:
        return {}
    return {(info.alias or name): info for name, info in model.model_fields.items()}


def _without_none(annotation: Any) -> Any:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _as_model(annotation: Any) -> Optional[type[BaseModel]]:
    annotation = _without_none(annotation)
    return annotation if inspect.isclass(annotation) and issubclass(annotation, BaseModel) else None


def _element_model(annotation: Any) -> Optional[type[BaseModel]]:
    annotation = _without_none(annotation)
    if typing.get_origin(annotation) in (list, tuple):
        args = typing.get_args(annotation)
        return _as_model(args[0]) if args else None
    return None


def _merged(items: list) -> Optional[dict]:
    """All keys of a list of objects (first value wins): the shape of its elements."""
    objects = [item for item in items if isinstance(item, dict)]
    if not objects:
        return None
    merged: dict = {}
    for item in objects:
        for key, value in item.items():
            merged.setdefault(key, value)
    return merged


def _walk(old: dict, new: dict, model: Optional[type[BaseModel]], path: str,
          out: list[ShapeChange]) -> None:
    fields = _fields(model)
    for key in sorted(set(old) | set(new), key=lambda k: (k not in old, k)):
        where = f"{path}.{key}" if path else key
        info = fields.get(key)
        additive = info is not None and not info.is_required() and info.default is None
        if key not in new:
            if not additive:
                out.append(ShapeChange(where, "removed"))
            continue
        if key not in old:
            if not additive:
                out.append(ShapeChange(where, "added"))
            continue
        old_value, new_value = old[key], new[key]
        if _kind(old_value) != _kind(new_value):
            out.append(ShapeChange(where, "kind", f"{_kind(old_value)} -> {_kind(new_value)}"))
            continue
        annotation = info.annotation if info is not None else None
        child = _as_model(annotation)
        if isinstance(old_value, dict) and child is not None:
            _walk(old_value, new_value, child, where, out)
        element = _element_model(annotation)
        if isinstance(old_value, list) and element is not None:
            old_items, new_items = _merged(old_value), _merged(new_value)
            if old_items is not None and new_items is not None:
                _walk(old_items, new_items, element, f"{where}[]", out)


def describe(changes: list[ShapeChange]) -> str:
    """'plan field 'a' removed; plan field 'b' added' -- renames show as a removed+added pair."""
    return "; ".join(map(str, changes))
