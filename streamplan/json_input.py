"""The one reader of JSON from outside: plans, checkpoint markers, manifests, table data.

Python's `json` accepts what no file of this project holds and then fails later, untyped:
an integer of more than 4,300 digits raises ValueError from the decoder (Python's int
max str digits limit), and a `\\ud800` escape decodes to a lone surrogate, a str that
cannot be encoded (UnicodeEncodeError wherever it is written or validated). This reader
refuses both, and malformed or absurdly nested text, with the caller's typed error naming
the file and the JSON path (or the line and column).
"""
from __future__ import annotations

import json
import re
import sys
from typing import Any

# The widest SQL number, DECIMAL(38), has 38 digits and no id, index or count comes near;
# the bound keeps every integer far below Python's conversion limit and its quadratic cost.
MAX_INT_DIGITS = 100

_PLAIN_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")
_UNICODE = "; JSON text is Unicode, where a \\uD800-\\uDFFF escape is only half of a pair"


class _LongInt:
    """An integer literal over MAX_INT_DIGITS, kept as text: never converted."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def _bounded_int(text: str) -> Any:
    return _LongInt(text) if len(text.lstrip("-")) > MAX_INT_DIGITS else int(text)


def parse_json(text: str, where: str, error: type[Exception], remedy: str = "") -> Any:
    """The JSON value of `text`, read from `where` (a file name). Malformed text, nesting
    deeper than Python reads, integers over MAX_INT_DIGITS digits and strings holding a lone
    surrogate raise `error` naming `where` and the line and column or the JSON path;
    `remedy`, when given, ends the message."""
    tail = f"; {remedy}" if remedy else ""
    try:
        value = json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as err:
        raise error(f"{where}:{err.lineno}:{err.colno}: not valid JSON: {err.msg}{tail}") from None
    except RecursionError:
        raise error(f"{where}: not valid here: JSON nested deeper than Python can read "
                    f"({sys.getrecursionlimit()} levels); no plan, manifest or data file "
                    f"nests more than a few levels{tail}") from None
    problem = _first_problem(value)
    if problem is not None:
        path, what = problem
        raise error(f"{where}: at {path}: {what}{tail}")
    return value


def _first_problem(value: Any) -> tuple[str, str] | None:
    """(JSON path, what is wrong) of the first over-long integer or lone surrogate, or None.
    Iterative: the document may nest as deep as the decoder reads."""
    stack: list[tuple[Any, tuple]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, _LongInt):
            return json_path(path), (f"an integer of {len(item.text.lstrip('-'))} digits; numbers "
                                     f"here have at most {MAX_INT_DIGITS} digits")
        if isinstance(item, str):
            problem = surrogate_problem(item)
            if problem is not None:
                return json_path(path), f"a string with {problem}{_UNICODE}"
        elif isinstance(item, dict):
            for key, child in reversed(item.items()):
                problem = surrogate_problem(key)
                if problem is not None:
                    return json_path(path), f"a key with {problem}{_UNICODE}"
                stack.append((child, path + (key,)))
        elif isinstance(item, list):
            stack.extend((child, path + (index,))
                         for index, child in reversed(list(enumerate(item))))
    return None


def surrogate_problem(text: str) -> str | None:
    """Why `text` is not Unicode text (a lone surrogate, as a `\\ud800` escape decodes), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return f"a lone surrogate (\\u{ord(text[err.start]):04x} at character {err.start})"
    return None


def json_path(path: tuple) -> str:
    """A JSON path as the loaders name fields: nodes[2].inputChangelogMode[0]; odd keys
    quoted and escaped (["table.exec.state.ttl"]), the root `$`."""
    text = "$"
    for step in path:
        if isinstance(step, int):
            text += f"[{step}]"
        elif _PLAIN_KEY.fullmatch(step):
            text += f".{step}"
        else:
            quoted = json.dumps(step)
            text += f"[{quoted if len(quoted) <= 60 else quoted[:56] + '...'}]"
    return text
