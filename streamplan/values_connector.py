"""The values connector's WITH options: which exist and what each value may be. The one
table the planner checks a table against and the plan loader checks a plan's tables against.
"""
from __future__ import annotations

from typing import Callable, Optional

from .changelog import parse_changelog_mode
from .runtime.rows import brief_repr


def _changelog_mode(text: str) -> None:
    parse_changelog_mode(text)


def _boolean(text: str) -> None:
    if text.lower() not in ("true", "false"):
        raise ValueError(f"{brief_repr(text)} is not a boolean")


# option -> (what its values are, the check of a value: raises ValueError; None: any text)
VALUES_OPTIONS: dict[str, tuple[str, Optional[Callable[[str], None]]]] = {
    "connector": ("'values'", None),       # the planner names other connectors unsupported
    "changelog-mode": ("row kinds I, UB, UA and D separated by commas, e.g. 'I,UB,UA,D'",
                       _changelog_mode),
    "path": ("a JSON file of rows", None),
    "sink-insert-only": ("'true' or 'false'", _boolean),
    # Flink's values connector options that only shape its plan (a filter or watermark the
    # source may take over, lookup joins against it): accepted, so Flink's programs run as
    # written; results do not depend on them.
    "filterable-fields": ("column names separated by ';' (a planning hint; ignored)", None),
    "enable-watermark-push-down": ("'true' or 'false' (a planning hint; ignored)", _boolean),
    "disable-lookup": ("'true' or 'false' (a planning hint; ignored)", _boolean),
}


def option_value_problem(key: str, value: str) -> Optional[str]:
    """Why `value` is no value of the values connector's option `key`, naming what the option
    takes; None when it fits (or when the option is unknown: see VALUES_OPTIONS)."""
    allowed, check = VALUES_OPTIONS.get(key, ("", None))
    if check is None:
        return None
    try:
        check(value)
    except ValueError as err:
        return f"{err}; '{key}' takes {allowed}"
    return None
