"""Changelog normalize without Spark: Flink's processLastRowOnChangelog record by record."""
from __future__ import annotations

from dataclasses import replace

from streamplan.changelog import RowKind
from streamplan.runtime.changelog_normalize import (ChangelogNormalizeCore,
                                                    ChangelogNormalizeParams,
                                                    ChangelogNormalizeProcessor,
                                                    MiniBatchChangelogNormalizeProcessor,
                                                    last_of_bundles, processor_class, state_layout)

I, UB, UA, D = (RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE)


class Normalize:
    """Drives the core like the processor: one primary key, rows in arrival order."""

    def __init__(self, update_before=True, ttl_ms=0):
        self.core = ChangelogNormalizeCore(ChangelogNormalizeParams(update_before, ttl_ms))
        self.kept = None
        self.writes = 0

    def __call__(self, kind, row):
        out = []
        row = tuple(list(row))      # a fresh object per row, as the processor builds them
        before = self.kept
        self.kept = self.core.process(self.kept, kind, row, out)
        if self.kept is not before:
            self.writes += 1
        return [f"{RowKind.from_code(code).short}{list(values)}".replace("None", "null")
                for code, values in out]


def test_first_row_inserts_whatever_its_kind():
    assert Normalize()(I, (1, "a")) == ["+I[1, 'a']"]
    assert Normalize()(UA, (1, "a")) == ["+I[1, 'a']"]     # an upsert's first +U


def test_an_upsert_becomes_an_update_with_the_previous_row():
    n = Normalize()
    n(I, (1, "a"))
    assert n(UA, (1, "b")) == ["-U[1, 'a']", "+U[1, 'b']"]
    assert n(I, (1, "c")) == ["-U[1, 'b']", "+U[1, 'c']"]  # a repeated +I is an update too
    assert n.kept == (1, "c")


def test_no_update_before_when_the_consumer_does_not_need_it():
    n = Normalize(update_before=False)
    n(I, (1, "a"))
    assert n(UA, (1, "b")) == ["+U[1, 'b']"]


def test_a_delete_emits_the_kept_row_and_clears_the_state():
    n = Normalize()
    n(I, (1, "a"))
    # the delete carries the key only (a tombstone): -D carries the kept row's values
    assert n(D, (1, None)) == ["-D[1, 'a']"]
    assert n.kept is None
    assert n(I, (1, "b")) == ["+I[1, 'b']"]                # after a delete: a first row again


def test_an_update_before_is_a_delete_and_the_update_after_an_insert():
    # Flink: "even the input is UPDATE_BEFORE, there may no UPDATE_AFTER after it"
    n = Normalize()
    n(I, (1, "a"))
    assert n(UB, (1, "a")) == ["-D[1, 'a']"]
    assert n(UA, (1, "b")) == ["+I[1, 'b']"]


def test_a_delete_of_an_absent_key_emits_nothing():
    n = Normalize()
    assert n(D, (1, "a")) == [] and n(UB, (1, "a")) == []
    assert n.kept is None and n.writes == 0


def test_a_duplicate_is_dropped_whatever_its_kind_and_the_state_is_not_rewritten():
    n = Normalize()
    n(I, (1, "a"))
    assert n(I, (1, "a")) == []
    # the kept row's kind is INSERT; Flink compares the content with the kind erased
    assert n(UA, (1, "a")) == []
    assert n.writes == 1
    # a duplicate delete: the first clears, the second finds nothing
    assert n(D, (1, "a")) == ["-D[1, 'a']"]
    assert n(D, (1, "a")) == []


def test_with_state_ttl_a_duplicate_is_re_emitted():
    n = Normalize(ttl_ms=60_000)
    n(I, (1, "a"))
    assert n(UA, (1, "a")) == ["-U[1, 'a']", "+U[1, 'a']"]
    assert n.writes == 2


def test_state_layout_keeps_the_last_row():
    assert state_layout(ChangelogNormalizeParams(True), "`id`: INT, `v`: STRING") == {
        "deduplicate-state": {"kind": "value", "value": "row STRUCT<`id`: INT, `v`: STRING>",
                              "ttl": "processing-time"}}


# --- mini-batch (node version 2): ProcTimeMiniBatchDeduplicateKeepLastRowFunction ---------------

def test_a_bundle_hands_on_only_the_keys_last_row_bundles_in_order():
    # positions 0..5 of a micro-batch, bundles of 2 positions; this key's rows at 0, 1, 3, 4
    rows = [(4, D, (1, "d")), (0, I, (1, "a")), (3, UA, (1, "c")), (1, UA, (1, "b"))]
    assert last_of_bundles(rows, 2) == [(UA, (1, "b")), (UA, (1, "c")), (D, (1, "d"))]
    # bundles of one: every row, in position order
    assert [kind for kind, _ in last_of_bundles(rows, 1)] == [I, UA, UA, D]


def test_a_mini_batch_normalize_emits_one_change_per_key_and_bundle():
    n = Normalize()
    rows = [(0, I, (1, "a")), (1, UA, (1, "b")), (2, UA, (1, "c")), (3, D, (1, "c"))]
    out = [line for kind, row in last_of_bundles(rows, 2) for line in n(kind, row)]
    # the first bundle's last row is the key's first row (+I); the second's deletes it: the
    # update to 'c' in the same bundle as the delete never goes through
    assert out == ["+I[1, 'b']", "-D[1, 'b']"]
    assert n.kept is None


def test_a_mini_batch_processor_is_chosen_by_the_bundle_size():
    params = ChangelogNormalizeParams(True)
    assert processor_class(params) is ChangelogNormalizeProcessor
    assert processor_class(replace(params, mini_batch_size=2)) is MiniBatchChangelogNormalizeProcessor
