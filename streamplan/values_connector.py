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


def _split_top_level(text: str, separator: str) -> list[str]:
    """`text` split at `separator` outside parentheses (a type such as DECIMAL(10, 2))."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if char == separator and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def metadata_map(text: str) -> dict:
    """Flink's values connector 'readable-metadata' / 'writable-metadata': a map
    'key:TYPE,key:TYPE' of the metadata the connector reads or writes, ordered by key
    ("the order will be alphabetically": a source's rows carry the physical values, then
    the metadata values in this order). Raises ValueError."""
    from .types import parse_type

    entries = {}
    for entry in _split_top_level(text, ","):
        key, colon, type_text = entry.partition(":")
        if not colon or not key.strip() or not type_text.strip():
            raise ValueError(f"{brief_repr(entry)} is not 'key:TYPE'")
        if key.strip() in entries:
            raise ValueError(f"metadata key {brief_repr(key.strip())} is declared twice")
        entries[key.strip()] = parse_type(type_text.strip())
    return dict(sorted(entries.items()))


def partition_list(text: str) -> list[dict[str, str]]:
    """Flink's values connector 'partition-list': 'k:v,k:v;k:v' -- partitions separated by
    ';', each a list of 'column:value' (a later value of a column replaces an earlier one,
    as Flink's map does). Raises ValueError."""
    partitions = []
    for spec in text.split(";"):
        partition = {}
        for entry in spec.split(","):
            key, colon, value = entry.partition(":")
            if not colon or not key.strip():
                raise ValueError(f"{brief_repr(entry)} is not 'column:value'")
            partition[key.strip()] = value.strip()
        partitions.append(partition)
    return partitions


def _metadata_map(text: str) -> None:
    metadata_map(text)


def _partition_list(text: str) -> None:
    partition_list(text)


# option -> (what its values are, the check of a value: raises ValueError; None: any text)
VALUES_OPTIONS: dict[str, tuple[str, Optional[Callable[[str], None]]]] = {
    "connector": ("'values'", None),       # the planner names other connectors unsupported
    "changelog-mode": ("row kinds I, UB, UA and D separated by commas, e.g. 'I,UB,UA,D'",
                       _changelog_mode),
    "path": ("a JSON file of rows", None),
    "sink-insert-only": ("'true' or 'false'", _boolean),
    # The row kinds a sink takes, as Flink's values sink declares them with this option: one
    # with UA and without UB (e.g. 'I,UA,D') asks for updates without -U even without a
    # primary key; it takes precedence over 'sink-insert-only'.
    "sink-changelog-mode-enforced": ("row kinds I, UB, UA and D separated by commas, e.g. "
                                     "'I,UA,D'", _changelog_mode),
    # Metadata columns (`c TYPE METADATA [FROM 'key']`) read or written by key; a source's
    # rows carry the physical values, then the metadata values ordered by key.
    "readable-metadata": ("a map 'key:TYPE,key:TYPE' of the metadata a source reads",
                          _metadata_map),
    "writable-metadata": ("a map 'key:TYPE,key:TYPE' of the metadata a sink writes",
                          _metadata_map),
    # The partitions a source holds: rows of no listed partition are not read (as Flink's
    # values source drops them); a sink's list is a planning hint.
    "partition-list": ("partitions separated by ';', each 'column:value' entries separated "
                       "by ','", _partition_list),
    # Flink's values connector options that only shape its plan (a filter or watermark the
    # source may take over, lookup joins against it): accepted, so Flink's programs run as
    # written; results do not depend on them.
    "filterable-fields": ("column names separated by ';' (a planning hint; ignored)", None),
    "enable-watermark-push-down": ("'true' or 'false' (a planning hint; ignored)", _boolean),
    "disable-lookup": ("'true' or 'false' (a planning hint; ignored)", _boolean),
    "enable-projection-push-down": ("'true' or 'false' (a planning hint; ignored)", _boolean),
    # A lookup table that answers asynchronously: its lookup joins record Flink's async
    # options (the rows are the same).
    "async": ("'true' or 'false'", _boolean),
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
