"""Structured differences of JSON values, one line per change named by its JSON path
(`intervalJoinSpec.windowBounds.leftLowerBound: -2000 → -5000`), as plan migration prints
them and the harness reports them. deepdiff finds the changes; this module only words them."""
from __future__ import annotations

import json
from typing import Any

_ORDER = ("dictionary_item_removed", "iterable_item_removed", "dictionary_item_added",
          "iterable_item_added", "type_changes", "values_changed")


def json_path(parts: list) -> str:
    """['a', 'b', 0, 'c'] -> 'a.b[0].c'."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(root)"


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def json_changes(old: Any, new: Any) -> list[str]:
    """Every difference between two JSON values: removed and added keys or items, type
    changes and changed values, each with its path; [] when equal."""
    from deepdiff import DeepDiff      # here: it imports pandas, ~0.8 s of every process start

    tree = DeepDiff(old, new, view="tree", verbose_level=2)
    lines = []
    for kind in _ORDER:
        for level in sorted(tree.get(kind, ()), key=lambda lv: json_path(lv.path(output_format="list"))):
            path = json_path(level.path(output_format="list"))
            if kind.endswith("_removed"):
                lines.append(f"{path}: removed (was {_value(level.t1)})")
            elif kind.endswith("_added"):
                lines.append(f"{path}: added ({_value(level.t2)})")
            elif kind == "type_changes":
                lines.append(f"{path}: type changed from {type(level.t1).__name__} "
                             f"{_value(level.t1)} to {type(level.t2).__name__} {_value(level.t2)}")
            else:
                lines.append(f"{path}: {_value(level.t1)} → {_value(level.t2)}")
    return lines


def describe_changes(old: Any, new: Any, indent: str = "    ") -> str:
    """The changes as an indented block for a report ('' when equal)."""
    return "".join(f"\n{indent}{line}" for line in json_changes(old, new))
