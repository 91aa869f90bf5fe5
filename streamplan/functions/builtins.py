"""Flink built-in scalar functions that no Spark SQL expression computes alike, run as Python
functions: every table environment has them as system functions, and a plan records a call
like any other function's, by its system name and this module's class.

HASH_CODE (Java's String.hashCode, made non-negative as Flink's Math.abs does).

JSON_VALUE, JSON_QUERY and JSON_EXISTS (Flink's defaults: lax mode, NULL ON EMPTY, NULL ON
ERROR, JSON_QUERY WITHOUT ARRAY WRAPPER). Spark's get_json_object and variant functions
rewrite numbers (`1.50` becomes `1.5`, `1e3` `1000.0`) and return objects where Flink's
JSON_VALUE gives NULL; Flink reads numbers as Java BigDecimals and prints them with
BigDecimal.toString, which Python's Decimal follows (`1.50`, `1E+3`; BigDecimal has no
negative zero, so `-0.0` is `0.0`). Paths: `$`, then `.key`, `['key']` / `["key"]` and `[n]`
(n >= 0), what `json_path_steps` reads; the planner refuses any other path by name.
"""
from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any, Optional

from .base import ScalarFunction

_MISSING = object()
_STEP = re.compile(r"""\.([A-Za-z_$][A-Za-z0-9_$-]*)|\['([^'\\]*)'\]|\["([^"\\]*)"\]|\[([0-9]{1,9})\]""")


def json_path_steps(path: str) -> Optional[list]:
    """The member names (str) and array indexes (int) of a path this module reads, or None."""
    text = path.strip()
    if text.lower().startswith("lax "):
        text = text[4:].lstrip()
    if not text.startswith("$"):
        return None
    steps, position = [], 1
    while position < len(text):
        match = _STEP.match(text, position)
        if match is None:
            return None
        name = next((group for group in match.groups()[:3] if group is not None), None)
        steps.append(name if name is not None else int(match.group(4)))
        position = match.end()
    return steps


def _document(text: Optional[str]) -> Any:
    if text is None:
        return _MISSING
    try:
        return json.loads(text, parse_float=Decimal, parse_int=int)
    except ValueError:
        return _MISSING


def _select(document: Any, path: Optional[str]) -> Any:
    """The value `path` selects in `document`, or _MISSING (lax mode: a path that does not
    match selects nothing)."""
    steps = json_path_steps(path) if path is not None else None
    if document is _MISSING or steps is None:
        return _MISSING
    value = document
    for step in steps:
        if isinstance(step, str) and isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(step, int) and isinstance(value, list) and step < len(value):
            value = value[step]
        else:
            return _MISSING
    return value


def _number_text(value: Any) -> str:
    if isinstance(value, Decimal):
        return str(value.copy_abs() if value.is_zero() else value)
    return str(value)


def _json_text(value: Any) -> str:
    """Compact JSON as Flink writes it back: keys in document order, numbers as read."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(key)}:{_json_text(item)}"
                              for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_json_text(item) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return _number_text(value)


class JsonValue(ScalarFunction):
    """JSON_VALUE(json, path): the scalar at `path` as a STRING; NULL for JSON null, an object
    or array, a path that matches nothing, and text that is not JSON."""

    ARGUMENT_TYPES = ("STRING", "STRING")
    RESULT_TYPE = "STRING"

    def eval(self, text, path):
        value = _select(_document(text), path)
        if value is _MISSING or value is None or isinstance(value, (dict, list)):
            return None
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str):
            return value
        return _number_text(value)


class JsonQuery(ScalarFunction):
    """JSON_QUERY(json, path): the object or array at `path` as JSON text; NULL for a scalar
    (WITHOUT ARRAY WRAPPER), JSON null, a path that matches nothing, and text that is not
    JSON."""

    ARGUMENT_TYPES = ("STRING", "STRING")
    RESULT_TYPE = "STRING"

    def eval(self, text, path):
        value = _select(_document(text), path)
        return _json_text(value) if isinstance(value, (dict, list)) else None


class JsonExists(ScalarFunction):
    """JSON_EXISTS(json, path): whether `path` selects a value that is not JSON null (FALSE
    for text that is not JSON; NULL for NULL)."""

    ARGUMENT_TYPES = ("STRING", "STRING")
    RESULT_TYPE = "BOOLEAN"

    def eval(self, text, path):
        if text is None:
            return None
        value = _select(_document(text), path)
        return value is not _MISSING and value is not None


class HashCode(ScalarFunction):
    """HASH_CODE(s): Flink's Math.abs(s.hashCode()), Java's String.hashCode over the text's
    UTF-16 code units (31 * h + unit, wrapping at 32 bits); the hash -2^31 stays negative, as
    Math.abs leaves it; NULL for NULL. Spark SQL has no such hash."""

    ARGUMENT_TYPES = ("STRING",)
    RESULT_TYPE = "INT"

    def eval(self, text):
        if text is None:
            return None
        units = text.encode("utf-16-be", "surrogatepass")
        value = 0
        for i in range(0, len(units), 2):
            value = (31 * value + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
        if value >= 2 ** 31:
            value -= 2 ** 32
        return value if value == -2 ** 31 else abs(value)


# The built-ins every table environment registers, by the name queries call them.
BUILTINS = {"JSON_VALUE": JsonValue, "JSON_QUERY": JsonQuery, "JSON_EXISTS": JsonExists,
            "HASH_CODE": HashCode}
