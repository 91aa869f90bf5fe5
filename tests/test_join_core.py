"""The regular join without Spark: Flink's StreamingJoinOperator record by record."""
from __future__ import annotations

import pytest

from streamplan.changelog import RowKind
from streamplan.runtime.join import (CONTAINS_UNIQUE_KEY, HAS_UNIQUE_KEY, NO_UNIQUE_KEY, JoinCore,
                                     JoinParams, SideSpec, SideState)

I, UB, UA, D = (RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE)
NAMES = ("lk", "lv", "rk", "rv")


class Join:
    """Drives the core like the processor: one join key, rows in arrival order."""

    def __init__(self, join_type, left=NO_UNIQUE_KEY, right=NO_UNIQUE_KEY, predicate=None,
                 left_key=(), right_key=()):
        params = JoinParams(join_type, 2, 2, SideSpec(left, left_key), SideSpec(right, right_key),
                            NAMES)
        self.core = JoinCore(params, predicate)
        self.left, self.right = SideState(), SideState()

    def __call__(self, side, kind, row, keys_match=True):
        out = []
        self.core.process(side == "L", kind, row, keys_match, self.left, self.right, out)
        return [f"{RowKind.from_code(code).short}{list(values)}".replace("None", "null")
                for code, values in out]


def test_inner_join_forwards_the_input_row_kind():
    j = Join("INNER")
    assert j("L", I, (1, "a")) == []
    assert j("R", I, (1, "x")) == ["+I[1, 'a', 1, 'x']"]
    assert j("R", UB, (1, "x")) == ["-U[1, 'a', 1, 'x']"]
    assert j("R", UA, (1, "y")) == ["+U[1, 'a', 1, 'y']"]
    assert j("L", D, (1, "a")) == ["-D[1, 'a', 1, 'y']"]


def test_left_join_pads_then_retracts_the_padding_when_a_match_arrives():
    j = Join("LEFT")
    assert j("L", I, (1, "a")) == ["+I[1, 'a', null, null]"]
    assert j("R", I, (1, "x")) == ["-D[1, 'a', null, null]", "+I[1, 'a', 1, 'x']"]
    assert j("R", I, (1, "y")) == ["+I[1, 'a', 1, 'y']"]            # already matched: no -D
    # the inner side forwards its retraction's kind; the last match going re-pads
    assert j("R", UB, (1, "x")) == ["-U[1, 'a', 1, 'x']"]
    assert j("R", D, (1, "y")) == ["-D[1, 'a', 1, 'y']", "+I[1, 'a', null, null]"]
    assert j("L", D, (1, "a")) == ["-D[1, 'a', null, null]"]


def test_an_outer_side_update_is_a_delete_and_an_insert():
    j = Join("LEFT")
    j("R", I, (1, "x"))
    assert j("L", I, (1, "a")) == ["+I[1, 'a', 1, 'x']"]
    assert j("L", UB, (1, "a")) == ["-D[1, 'a', 1, 'x']"]
    assert j("L", UA, (1, "b")) == ["+I[1, 'b', 1, 'x']"]


def test_full_join_pads_both_sides_and_counts_associations():
    j = Join("FULL")
    assert j("R", I, (1, "x")) == ["+I[null, null, 1, 'x']"]
    assert j("L", I, (1, "a")) == ["-D[null, null, 1, 'x']", "+I[1, 'a', 1, 'x']"]
    assert j("L", I, (1, "b")) == ["+I[1, 'b', 1, 'x']"]
    assert j("L", D, (1, "a")) == ["-D[1, 'a', 1, 'x']"]           # x still has b
    assert j("L", D, (1, "b")) == ["-D[1, 'b', 1, 'x']", "+I[null, null, 1, 'x']"]


def test_null_keys_never_match_but_outer_rows_are_padded():
    j = Join("FULL")
    assert j("L", I, (None, "a"), keys_match=False) == ["+I[null, 'a', null, null]"]
    assert j("R", I, (None, "x"), keys_match=False) == ["+I[null, null, null, 'x']"]


def test_a_non_equi_condition_that_is_null_or_false_is_no_match():
    j = Join("LEFT", predicate=lambda row: None if row["rv"] is None else row["lv"] < row["rv"])
    j("L", I, (1, "b"))
    assert j("R", I, (1, "a")) == []                      # 'b' < 'a' is false
    assert j("R", I, (1, None)) == []                     # NULL: not a match either
    assert j("R", I, (1, "c")) == ["-D[1, 'b', null, null]", "+I[1, 'b', 1, 'c']"]


def test_rows_without_a_unique_key_keep_their_multiplicity():
    j = Join("INNER")
    j("L", I, (1, "a"))
    j("L", I, (1, "a"))
    assert j("R", I, (1, "x")) == ["+I[1, 'a', 1, 'x']"] * 2
    j("L", D, (1, "a"))
    assert j("R", I, (1, "y")) == ["+I[1, 'a', 1, 'y']"]


@pytest.mark.parametrize("spec, key", [(CONTAINS_UNIQUE_KEY, ()), (HAS_UNIQUE_KEY, (1,))])
def test_a_unique_key_keeps_one_row_per_key_and_a_retraction_removes_it(spec, key):
    j = Join("INNER", right=spec, right_key=key)
    j("R", I, (1, "x"))
    j("L", I, (1, "a"))
    assert len(j.right.rows) == 1
    j("R", UB, (1, "x"))
    assert j.right.rows == {}
    assert j("R", UA, (1, "x")) == ["+U[1, 'a', 1, 'x']"]
    assert len(j.right.rows) == 1


def test_duplicates_on_an_outer_side_each_count_their_own_associations():
    """Flink collects the other side's rows with their association counts before updating
    them, so each copy of a duplicated row is padded and un-padded on its own."""
    j = Join("FULL")
    j("R", I, (1, "x"))
    j("R", I, (1, "x"))
    assert j("L", I, (1, "a")) == ["-D[null, null, 1, 'x']"] * 2 + ["+I[1, 'a', 1, 'x']"] * 2
    assert j("L", D, (1, "a")) == ["-D[1, 'a', 1, 'x']"] * 2 + ["+I[null, null, 1, 'x']"] * 2


# --- semi and anti joins: Flink's StreamingSemiAntiJoinOperator --------------------------------

class SemiAnti(Join):
    """The output is the left row alone; the condition reads left + right (lk, lv, rk, rv)."""

    def __init__(self, join_type, predicate=None):
        params = JoinParams(join_type, 2, 2, SideSpec(NO_UNIQUE_KEY), SideSpec(NO_UNIQUE_KEY),
                            ("lk", "lv"), condition_names=NAMES)
        self.core = JoinCore(params, predicate)
        self.left, self.right = SideState(), SideState()


def test_semi_join_emits_a_left_row_on_its_first_match_and_retracts_it_on_its_last():
    j = SemiAnti("SEMI")
    assert j("L", I, (1, "a")) == []                               # no match yet
    assert j("R", I, (1, "x")) == ["+I[1, 'a']"]                   # first match
    assert j("R", I, (1, "y")) == []                               # a second match
    assert j("L", I, (1, "b")) == ["+I[1, 'b']"]                   # arrives matched
    assert j.left.rows[(1, "b")].associations == 2
    assert j("R", D, (1, "x")) == []
    assert j("R", UB, (1, "y")) == ["-U[1, 'a']", "-U[1, 'b']"]    # the right row's kind
    assert j("L", D, (1, "a")) == []                               # unmatched: not emitted


def test_anti_join_retracts_a_left_row_on_its_first_match_and_re_emits_it_on_its_last():
    j = SemiAnti("ANTI")
    assert j("L", I, (1, "a")) == ["+I[1, 'a']"]
    assert j("R", I, (1, "x")) == ["-D[1, 'a']"]
    assert j("R", I, (1, "y")) == []
    assert j("R", D, (1, "x")) == []
    assert j("R", UB, (1, "y")) == ["+I[1, 'a']"]                  # always +I
    assert j("L", UB, (1, "a")) == ["-U[1, 'a']"]                  # the left row's own kind
    assert j.left.rows == {}


def test_not_in_matches_every_left_row_when_the_right_holds_a_null():
    """`lk NOT IN (SELECT rk ...)`: Flink's condition `lk IS NULL OR rk IS NULL OR lk = rk`."""
    j = SemiAnti("ANTI", predicate=lambda row: row["lk"] is None or row["rk"] is None
                 or row["lk"] == row["rk"])
    assert j("L", I, (1, "a")) == ["+I[1, 'a']"]
    assert j("L", I, (None, "n")) == ["+I[null, 'n']"]             # NOT IN an empty set
    assert j("R", I, (2, "x")) == ["-D[null, 'n']"]                # NULL NOT IN (2): unknown
    assert j("R", I, (None, "y")) == ["-D[1, 'a']"]                # 1 NOT IN (2, NULL): unknown
    assert j("R", D, (None, "y")) == ["+I[1, 'a']"]


def test_null_keys_never_match_in_semi_and_anti_joins():
    assert SemiAnti("SEMI")("L", I, (None, "a"), keys_match=False) == []
    assert SemiAnti("ANTI")("L", I, (None, "a"), keys_match=False) == ["+I[null, 'a']"]
