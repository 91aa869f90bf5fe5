"""Deduplication without Spark: Flink's deduplicate functions record by record."""
from __future__ import annotations

from datetime import datetime

import pytest

from streamplan.changelog import RowKind
from streamplan.runtime.deduplicate import (FIRST_ROW_SEEN, DeduplicateCore, DeduplicateParams,
                                            KeepFirstOnTimerCore, NotInsertOnlyError,
                                            flag_expired, state_layout)

I, UB, UA, D = (RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE)


class Dedup:
    """Drives the core like the processor: one key, rows in arrival order."""

    def __init__(self, keep_last, rowtime_index=None, update_before=True, insert=True, ttl_ms=0):
        self.core = DeduplicateCore(DeduplicateParams(keep_last, rowtime_index, update_before,
                                                      insert, ttl_ms))
        self.kept = None
        self.writes = 0

    def __call__(self, row, kind=I):
        out = []
        row = tuple(list(row))      # a fresh object per row, as the processor builds them
        before = self.kept
        self.kept = self.core.process(self.kept, kind, row, out)
        if self.kept is not before:
            self.writes += 1
        return [f"{RowKind.from_code(code).short}{list(values)}" for code, values in out]


def ts(second):
    return datetime(2024, 1, 1, 10, 0, second)


# --- processing time, keep first (processFirstRowOnProcTime) ----------------------------------

def test_proctime_keep_first_emits_the_first_row_only_and_keeps_a_flag():
    d = Dedup(keep_last=False)
    assert d(("k", 1)) == ["+I['k', 1]"]
    assert d.kept is FIRST_ROW_SEEN
    assert d(("k", 2)) == []
    assert d(("k", 1)) == []                    # even an equal row: it is not the first
    # the flag is written once: later rows leave the state (and its TTL) untouched
    assert d.writes == 1


# --- processing time, keep last (processLastRowOnProcTime) ------------------------------------

def test_proctime_keep_last_inserts_then_updates_with_the_previous_row():
    d = Dedup(keep_last=True)
    assert d(("k", 1)) == ["+I['k', 1]"]
    assert d(("k", 2)) == ["-U['k', 1]", "+U['k', 2]"]
    assert d(("k", 3)) == ["-U['k', 2]", "+U['k', 3]"]
    assert d.kept == ("k", 3)


def test_proctime_keep_last_without_update_before():
    d = Dedup(keep_last=True, update_before=False)
    assert d(("k", 1)) == ["+I['k', 1]"]
    assert d(("k", 2)) == ["+U['k', 2]"]


def test_proctime_keep_last_skips_an_equal_row_unless_state_ttl_is_on():
    d = Dedup(keep_last=True)
    d(("k", 1))
    assert d(("k", 1)) == []
    # Flink updates the state before comparing: the equal row is still written
    assert d.writes == 2
    # with TTL, Flink re-emits so that downstream state does not expire too early
    d = Dedup(keep_last=True, ttl_ms=1000)
    d(("k", 1))
    assert d(("k", 1)) == ["-U['k', 1]", "+U['k', 1]"]


def test_proctime_keep_last_without_insert_and_update_before_is_stateless_and_all_plus_u():
    # generateInsert = false (insert-and-updateafter-sensitive off), no -U needed: Flink keeps
    # no state and sends UPDATE_AFTER for every row, the first one included
    d = Dedup(keep_last=True, update_before=False, insert=False)
    assert d(("k", 1)) == ["+U['k', 1]"]
    assert d(("k", 1)) == ["+U['k', 1]"]
    assert d.kept is None and d.writes == 0


def test_proctime_keep_last_with_update_before_but_no_insert_still_inserts_first():
    # the state is kept because -U is needed; the first row is then +I (preRow == null)
    d = Dedup(keep_last=True, update_before=True, insert=False)
    assert d(("k", 1)) == ["+I['k', 1]"]
    assert d(("k", 2)) == ["-U['k', 1]", "+U['k', 2]"]


# --- row time (deduplicateOnRowTime / shouldKeepCurrentRow) -----------------------------------

def test_rowtime_keep_last_replaces_on_a_later_or_equal_rowtime_and_ignores_an_earlier_one():
    d = Dedup(keep_last=True, rowtime_index=1)
    assert d(("k", ts(5), "a")) == ["+I['k', datetime.datetime(2024, 1, 1, 10, 0, 5), 'a']"]
    # out of order: an earlier row time is not the last row
    assert d(("k", ts(3), "b")) == []
    assert d.writes == 1
    # equal row time: kept (preRow.rowtime <= currentRow.rowtime)
    assert d(("k", ts(5), "c")) == [
        "-U['k', datetime.datetime(2024, 1, 1, 10, 0, 5), 'a']",
        "+U['k', datetime.datetime(2024, 1, 1, 10, 0, 5), 'c']"]
    assert d(("k", ts(9), "d"))[-1] == "+U['k', datetime.datetime(2024, 1, 1, 10, 0, 9), 'd']"
    assert d.kept == ("k", ts(9), "d")


def test_rowtime_keep_first_replaces_only_on_an_earlier_rowtime():
    d = Dedup(keep_last=False, rowtime_index=1)
    assert d(("k", 5, "a")) == ["+I['k', 5, 'a']"]
    assert d(("k", 5, "b")) == []               # equal row time: the first one stays
    assert d(("k", 7, "c")) == []               # later: not the first
    # out of order: an earlier row time is the new first row, emitted as an update
    assert d(("k", 2, "d")) == ["-U['k', 5, 'a']", "+U['k', 2, 'd']"]
    assert d.kept == ("k", 2, "d")


def test_rowtime_replacement_kinds_follow_update_before_and_insert():
    d = Dedup(keep_last=True, rowtime_index=1, update_before=False)
    assert d(("k", 1)) == ["+I['k', 1]"]
    assert d(("k", 2)) == ["+U['k', 2]"]
    d = Dedup(keep_last=True, rowtime_index=1, update_before=False, insert=False)
    assert d(("k", 1)) == ["+U['k', 1]"]        # no INSERT wanted: the first row is +U too
    assert d(("k", 2)) == ["+U['k', 2]"]
    assert d(("k", 0)) == []                    # still deduplicated: the state is kept


def test_rowtime_keep_last_re_emits_an_identical_row_there_is_no_equaliser():
    d = Dedup(keep_last=True, rowtime_index=1)
    d(("k", 4))
    assert d(("k", 4)) == ["-U['k', 4]", "+U['k', 4]"]


def test_rowtime_null_is_an_error():
    d = Dedup(keep_last=True, rowtime_index=1)
    d(("k", 4))
    with pytest.raises(ValueError, match="NULL row time"):
        d(("k", None))


# --- row time, keep first, insert-only output (RowTimeDeduplicateKeepFirstRowFunction) --------

class OnTimer:
    """Drives KeepFirstOnTimerCore like its processor: one key, the timer at the waiting row's
    row time fires when the watermark reaches it."""

    def __init__(self):
        self.core = KeepFirstOnTimerCore(DeduplicateParams(False, 1, True, emit_on_timer=True))
        self.waiting, self.emitted, self.timers = None, False, []

    def __call__(self, row, watermark, kind=I):
        before = self.waiting
        self.waiting = self.core.process(self.waiting, self.emitted, kind, tuple(row), watermark)
        if self.waiting is not before:
            if before is not None:
                self.timers.remove(self.core.rowtime(before))
            self.timers.append(self.core.rowtime(self.waiting))

    def advance(self, watermark):
        out = []
        for timer in [t for t in self.timers if t <= watermark]:
            self.timers.remove(timer)
            if self.core.fire(self.waiting, out):
                self.waiting, self.emitted = None, True
        return [f"{RowKind.from_code(code).short}{list(values)}" for code, values in out]


def test_keep_first_on_timer_emits_the_earliest_row_once_when_the_watermark_passes_it():
    d = OnTimer()
    d(("k", 5000, "a"), watermark=0)
    d(("k", 5000, "b"), watermark=0)            # equal row time: the first stays
    d(("k", 3000, "c"), watermark=0)            # earlier: waits instead, its timer replaces
    assert d.waiting == ("k", 3000, "c") and d.timers == [3000]
    assert d.advance(2999) == []
    assert d.advance(3000) == ["+I['k', 3000, 'c']"]
    assert d.waiting is None and d.emitted and d.timers == []
    d(("k", 4000, "d"), watermark=3000)         # the key is out: ignored, no timer
    assert d.waiting is None and d.timers == [] and d.advance(10_000) == []


def test_keep_first_on_timer_drops_rows_behind_the_watermark_only():
    d = OnTimer()
    d(("k", 5000, "a"), watermark=2000)
    d(("k", 1999, "late"), watermark=2000)      # behind the watermark: dropped
    assert d.waiting == ("k", 5000, "a")
    d(("k", 2000, "on"), watermark=2000)        # on it: Flink keeps it (rowtime < watermark drops)
    assert d.waiting == ("k", 2000, "on") and d.timers == [2000]


def test_keep_first_on_timer_rejects_updates_and_nulls():
    d = OnTimer()
    with pytest.raises(NotInsertOnlyError):
        d(("k", 1, "a"), watermark=0, kind=UA)
    with pytest.raises(ValueError, match="NULL row time"):
        d(("k", None, "a"), watermark=0)


def test_the_emitted_flag_expires_as_flinks_ttl_does():
    assert not flag_expired(written_ms=1000, now_ms=10**12, ttl_ms=0)   # no TTL: never
    assert not flag_expired(written_ms=1000, now_ms=1999, ttl_ms=1000)
    assert flag_expired(written_ms=1000, now_ms=2000, ttl_ms=1000)


# --- input kinds, state layout ----------------------------------------------------------------

@pytest.mark.parametrize("keep_last, rowtime", [(False, None), (True, None), (True, 1), (False, 1)])
@pytest.mark.parametrize("kind", [UB, UA, D])
def test_every_variant_rejects_rows_other_than_inserts(keep_last, rowtime, kind):
    d = Dedup(keep_last=keep_last, rowtime_index=rowtime)
    with pytest.raises(NotInsertOnlyError, match=rf"got \{kind.short}\['k', 1\].*insert-only"):
        d(("k", 1), kind)


def test_state_layout_keeps_a_flag_for_proctime_keep_first_and_the_row_otherwise():
    first = state_layout(DeduplicateParams(False, None, False), "`k`: STRING, `v`: INT")
    assert first == {"deduplicate-state": {"kind": "value", "value": "seen BOOLEAN",
                                           "ttl": "processing-time"}}
    last = state_layout(DeduplicateParams(True, 1, True), "`k`: STRING, `v`: INT")
    assert last["deduplicate-state"]["value"] == "row STRUCT<`k`: STRING, `v`: INT>"
    on_timer = state_layout(DeduplicateParams(False, 1, True, emit_on_timer=True), "`k`: STRING")
    assert on_timer == {"waiting-to-emit-on-timer": {"kind": "value", "value": "row STRUCT<`k`: STRING>"},
                        "already-emitted-state-boolean": {"kind": "value", "value": "written_ms BIGINT",
                                                          "ttl": "checked on read"}}
