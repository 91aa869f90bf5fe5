"""Compare what a sink produced with what the program expects, and render the difference.

Changelogs compare as multisets (Flink's containsExactlyInAnyOrder); materialized views
compare as sorted sets of `+I[...]` rows. Either way the diff is a unified diff of the
sorted rows, so reordering never shows up as a difference.
"""
from __future__ import annotations

import difflib
from typing import Optional

from streamplan.testing import ChangelogRow, RowType, materialized_texts

from .errors import ExpectationMismatch


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


def materialized_view(rows: list[ChangelogRow], key_indexes: Optional[list[int]],
                      row_type: RowType, where: str) -> list[str]:
    """The sink's table after applying `rows` (by key when there is one)."""
    try:
        return materialized_texts(rows, key_indexes, row_type)
    except ValueError as err:      # a retraction of a row the view does not hold
        raise ExpectationMismatch(where, f"  the changelog cannot be materialized: {err}") from None
