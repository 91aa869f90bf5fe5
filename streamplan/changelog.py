"""Row kinds and changelog modes, as in Flink's RowKind and ChangelogMode."""
from __future__ import annotations

from enum import Enum
from typing import Optional


class RowKind(Enum):
    INSERT = (0, "+I")
    UPDATE_BEFORE = (1, "-U")
    UPDATE_AFTER = (2, "+U")
    DELETE = (3, "-D")

    def __init__(self, code: int, short: str):
        self.code = code
        self.short = short

    @classmethod
    def from_short(cls, text: str) -> "RowKind":
        for kind in cls:
            if kind.short == text:
                return kind
        raise ValueError(f"'{text}' is not a row kind (+I, -U, +U or -D)")

    @classmethod
    def from_code(cls, code: int) -> "RowKind":
        return _BY_CODE[code]

    @property
    def is_accumulate(self) -> bool:
        return self in (RowKind.INSERT, RowKind.UPDATE_AFTER)


_BY_CODE = {kind.code: kind for kind in RowKind}

# Internal marker row of the values source: end of input, carries the maximal event time
# through the watermark assigner and is dropped right after it. Never reaches a sink.
END_OF_INPUT_CODE = 9
OP_COLUMN = "__op"
# The columns of a two-input node's keyed union (nodes/two_input.py), which its processor
# reads: the join key (`__k0`, `__k1`, ...), the side (0 left, 1 right), the row kind, and
# the row as a struct on its own side (NULL on the other).
KEY_PREFIX, SIDE_COLUMN, KIND_COLUMN, LEFT_ROW, RIGHT_ROW = "__k", "__side", "__kind", "__l", "__r"

# A feed row: (RowKind, values) or the end-of-input marker; a step is one micro-batch.
FeedRow = tuple[Optional[RowKind], tuple]
END_OF_INPUT: FeedRow = (None, ())

INSERT_ONLY: frozenset[RowKind] = frozenset({RowKind.INSERT})
ALL_KINDS: frozenset[RowKind] = frozenset(RowKind)
INSERT_AND_UPDATES: frozenset[RowKind] = frozenset(
    {RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER})

_MODE_NAMES = {"I": RowKind.INSERT, "UB": RowKind.UPDATE_BEFORE, "UA": RowKind.UPDATE_AFTER,
               "D": RowKind.DELETE}


def parse_changelog_mode(text: str) -> frozenset[RowKind]:
    """Flink values-connector syntax: 'I,UB,UA,D'."""
    kinds = set()
    for part in text.split(","):
        name = part.strip().upper()
        if name not in _MODE_NAMES:
            raise ValueError(f"'{part.strip()}' is not a changelog kind (I, UB, UA, D)")
        kinds.add(_MODE_NAMES[name])
    return frozenset(kinds)


def mode_names(kinds: frozenset[RowKind]) -> list[str]:
    """Stable names for plans: ['INSERT', 'UPDATE_BEFORE', ...] in RowKind order."""
    return [kind.name for kind in RowKind if kind in kinds]


def short_mode_names(kinds: frozenset[RowKind]) -> list[str]:
    """Flink's EXPLAIN names in RowKind order: ['I', 'UB', 'UA', 'D']."""
    short = {kind: name for name, kind in _MODE_NAMES.items()}
    return [short[kind] for kind in RowKind if kind in kinds]


def mode_from_names(names: list[str]) -> frozenset[RowKind]:
    return frozenset(RowKind[name] for name in names)
