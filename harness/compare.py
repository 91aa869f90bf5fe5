"""Compare what a sink produced with what the program expects, and render the difference.

Three checks, as strict as Flink's test values sink and stricter than a multiset:

* a changelog compares as a multiset first (Flink's containsExactlyInAnyOrder), then per key
  in order: the changes of one key (the sink's primary key, or the whole row for a sink
  without one) must come in the order the program lists them — a -U before its +U, a -D
  before a re-inserted +I;
* a materialized view is the sink's table after the changelog, built as Flink's test sink
  builds it: a retraction of a row the view does not hold, or a -U/-D whose values differ
  from the row it retracts, fails the run, naming the change and its position;
* diffs are unified diffs of the sorted rows, so reordering alone never shows up as one.
"""
from __future__ import annotations

import difflib
from typing import Optional

from streamplan.testing import ChangelogRow, RowKind, RowType, format_row

from .errors import ExpectationMismatch
from .steps import split_values

_MISSING = object()


def rows_diff(expected: list[str], actual: list[str]) -> Optional[str]:
    """None when equal as multisets, else a unified diff (- expected, + actual)."""
    expected, actual = sorted(expected), sorted(actual)
    if expected == actual:
        return None
    lines = difflib.unified_diff(expected, actual, "expected", "actual", lineterm="",
                                 n=max(len(expected), len(actual)))
    # Rows start with + or - themselves: a space after the diff marker keeps them legible.
    return "\n".join(line if line.startswith(("---", "+++", "@@")) else f"{line[0]} {line[1:]}"
                     for line in lines)


def _key_of(text: str, key_indexes: Optional[list[int]]) -> tuple[str, ...]:
    values = split_values(text[3:-1])
    return tuple(values[i] for i in key_indexes) if key_indexes else tuple(values)


def order_diff(expected: list[str], actual: list[str],
               key_indexes: Optional[list[int]]) -> Optional[str]:
    """None when each key's changes come in the expected order (the two lists being equal as
    multisets), else the first key whose order differs, with both orders and positions."""
    def by_key(rows: list[str]) -> dict[tuple, list[tuple[int, str]]]:
        keyed: dict[tuple, list[tuple[int, str]]] = {}
        for position, text in enumerate(rows):
            keyed.setdefault(_key_of(text, key_indexes), []).append((position, text))
        return keyed

    wanted, got = by_key(expected), by_key(actual)
    for key, changes in wanted.items():
        seen = got.get(key, [])
        if [text for _, text in changes] != [text for _, text in seen]:
            name = "key" if key_indexes else "row"
            return (f"  the changes of {name} [{', '.join(key)}] come in another order:\n"
                    f"    expected: {', '.join(text for _, text in changes)}\n"
                    f"    actual:   {', '.join(f'{text} (#{position})' for position, text in seen)}")
    return None


def materialize(rows: list[ChangelogRow], key_indexes: Optional[list[int]],
                row_type: RowType) -> list[tuple]:
    """The sink's table after `rows`, as Flink's test values sink keeps it: by primary key
    when there is one (+I/+U put the key's row, -U/-D remove it), else as a multiset. A
    retraction must find the exact row it retracts; ValueError names the change otherwise."""
    def shown(position: int, row: ChangelogRow) -> str:
        return f"change #{position} {format_row(row.kind, row.values, row_type)}"

    if key_indexes:
        table: dict[tuple, tuple] = {}
        for position, row in enumerate(rows):
            key = tuple(row.values[i] for i in key_indexes)
            if row.kind.is_accumulate:
                table[key] = row.values
                continue
            held = table.pop(key, _MISSING)
            if held is _MISSING:
                raise ValueError(f"{shown(position, row)} retracts a key the sink does not hold")
            if held != row.values:
                raise ValueError(f"{shown(position, row)} retracts "
                                 f"{format_row(RowKind.INSERT, held, row_type)}, the row the sink "
                                 f"holds for its key, with other values")
        return list(table.values())
    bag: list[tuple] = []
    for position, row in enumerate(rows):
        if row.kind.is_accumulate:
            bag.append(row.values)
        elif row.values in bag:
            bag.remove(row.values)
        else:
            raise ValueError(f"{shown(position, row)} retracts a row the sink does not hold")
    return bag


def materialized_view(rows: list[ChangelogRow], key_indexes: Optional[list[int]],
                      row_type: RowType, where: str) -> list[str]:
    """The sink's table after applying `rows`, as sorted `+I[...]` texts."""
    try:
        return sorted(format_row(RowKind.INSERT, values, row_type)
                      for values in materialize(rows, key_indexes, row_type))
    except ValueError as err:
        raise ExpectationMismatch(where, f"  the changelog cannot be materialized: {err}") from None


def view_of_texts(texts: list[str], key_indexes: Optional[list[int]], where: str) -> list[str]:
    """The materialized view of a changelog given as row texts (an expectation, or what a
    sink wrote rendered as text), as sorted `+I[...]` texts."""
    rows = [ChangelogRow(RowKind.from_short(text[:2]), tuple(split_values(text[3:-1])))
            for text in texts]
    try:
        return sorted(f"+I[{', '.join(values)}]" for values in materialize(rows, key_indexes, None))
    except ValueError as err:
        raise ExpectationMismatch(where, f"  the changelog cannot be materialized: {err}") from None
