"""Top-N without Spark: Flink's FastTop1Function, AppendOnlyTopNFunction,
RetractableTopNFunction and UpdatableTopNFunction record by record. Rows are (id, score); the
sort key is the score."""
from __future__ import annotations

import pytest

from streamplan.changelog import RowKind
from streamplan.runtime.rank import (NotInsertOnlyError, RankParams, RankState,
                                     compare_sort_keys, decode_state, encode_state,
                                     state_layout, top_n_function)

I, UB, UA, D = (RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE)
SCORE_ASC = ((1, True, True),)


class TopN:
    """Drives the core like the processor: one partition key, rows in arrival order."""

    def __init__(self, rank_end, rank_start=1, rn=True, update_before=True, insert_only=True,
                 sort_key=SCORE_ASC, row_key=()):
        self.core = top_n_function(RankParams(sort_key, rank_start, rank_end, rn, update_before,
                                              insert_only, row_key=row_key))
        self.state = RankState()

    def __call__(self, row, kind=I):
        out = []
        self.core.process(self.state, kind, row, out)
        return [f"{RowKind.from_code(code).short}{list(values)}".replace("None", "null")
                for code, values in out]


def test_params_pick_flinks_function_like_stream_exec_rank():
    assert RankParams(SCORE_ASC, 1, 1, False, True, True).strategy == "top1"
    assert RankParams(SCORE_ASC, 1, 3, False, True, True).strategy == "append"
    assert RankParams(SCORE_ASC, 1, 1, False, True, False).strategy == "retract"
    # UpdateFast (a row key): FastTop1Function for a top 1, else UpdatableTopNFunction
    assert RankParams(SCORE_ASC, 1, 1, False, True, False, row_key=(0,)).strategy == "top1"
    assert RankParams(SCORE_ASC, 1, 3, False, True, False, row_key=(0,)).strategy == "update"
    with pytest.raises(ValueError, match="rank range"):
        RankParams(SCORE_ASC, 3, 2, False, True, True)


# --- the sort-key comparator ------------------------------------------------------------------

def test_nulls_first_or_last_whatever_the_direction():
    # Flink's generated comparator returns the NULL position before applying the direction
    asc_nulls_first, desc_nulls_last = ((0, True, True),), ((0, False, False),)
    assert compare_sort_keys(asc_nulls_first, (None,), (1,)) == -1
    assert compare_sort_keys(asc_nulls_first, (2,), (1,)) == 1
    assert compare_sort_keys(desc_nulls_last, (None,), (1,)) == 1
    assert compare_sort_keys(desc_nulls_last, (2,), (1,)) == -1
    assert compare_sort_keys(desc_nulls_last, (None,), (None,)) == 0
    # the next field breaks a tie
    two = ((0, True, False), (1, False, False))
    assert compare_sort_keys(two, (1, "a"), (1, "b")) == 1


# --- FastTop1Function (insert-only, rank range [1, 1]) ----------------------------------------

def test_top1_replaces_only_on_a_strictly_better_sort_key():
    t = TopN(1, rn=False)
    assert t(("a", 5)) == ["+I['a', 5]"]
    assert t(("b", 7)) == []                    # worse
    assert t(("c", 5)) == []                    # a tie keeps the first row
    # the partition key is unique for top-1, so Flink emits UB/UA, not -D/+I
    assert t(("d", 3)) == ["-U['a', 5]", "+U['d', 3]"]
    assert t.state.top1 == ("d", 3)


def test_top1_with_the_rank_number_and_without_update_before():
    t = TopN(1, rn=True, update_before=False)
    assert t(("a", 5)) == ["+I['a', 5, 1]"]
    assert t(("d", 3)) == ["+U['d', 3, 1]"]


# --- AppendOnlyTopNFunction -------------------------------------------------------------------

def test_append_only_with_row_number_shifts_ranks_and_keeps_what_it_walked_past():
    t = TopN(2)
    assert t(("a", 5)) == ["+I['a', 5, 1]"]
    # b takes rank 1: a moves to rank 2, which nobody had: +I there
    assert t(("b", 3)) == ["-U['a', 5, 1]", "+U['b', 3, 1]", "+I['a', 5, 2]"]
    # c takes rank 2 and pushes a out: a rank update, no -D (rank is the upsert key)
    assert t(("c", 4)) == ["-U['a', 5, 2]", "+U['c', 4, 2]"]
    # the iteration consumed sort key 5 before stopping, so Flink keeps a in state
    assert t.state.data == {(3,): [("b", 3)], (4,): [("c", 4)], (5,): [("a", 5)]}
    # worse than the worst kept key while the buffer holds N or more: dropped unseen; a tie
    # with the worst kept key as well (checkSortKeyInBufferRange wants a better one)
    assert t(("d", 6)) == []
    assert t(("x", 5)) == [] and t.state.data[(5,)] == [("a", 5)]
    # e takes rank 1; the iteration stops after rank 2, so key 5 (not reached) is dropped
    assert t(("e", 1)) == ["-U['b', 3, 1]", "+U['e', 1, 1]", "-U['c', 4, 2]", "+U['b', 3, 2]"]
    assert t.state.data == {(1,): [("e", 1)], (3,): [("b", 3)], (4,): [("c", 4)]}


def test_append_only_ties_rank_in_arrival_order():
    t = TopN(3)
    t(("a", 2))
    t(("b", 5))
    # c ties with a: it goes after a, at rank 2, and shifts b
    assert t(("c", 2)) == ["-U['b', 5, 2]", "+U['c', 2, 2]", "+I['b', 5, 3]"]
    # d ties with a and c: it is rank 3, after them, and replaces b there; b falls to rank 4
    # (no -D: the rank is the upsert key) but stays in state, its sort key was walked
    assert t(("d", 2)) == ["-U['b', 5, 3]", "+U['d', 2, 3]"]
    assert t.state.data == {(2,): [("a", 2), ("c", 2), ("d", 2)], (5,): [("b", 5)]}
    # e ties with a, c and d: better than the worst key (5), so it is buffered, at rank 4:
    # nothing is emitted, and the walk stops before key 5, which is dropped
    assert t(("e", 2)) == []
    assert t.state.data == {(2,): [("a", 2), ("c", 2), ("d", 2), ("e", 2)]}


def test_append_only_without_row_number_evicts_the_last_row():
    t = TopN(2, rn=False)
    assert t(("a", 5)) == ["+I['a', 5]"]
    assert t(("b", 3)) == ["+I['b', 3]"]
    assert t(("c", 4)) == ["-D['a', 5]", "+I['c', 4]"]
    assert t(("d", 6)) == []                    # out of range: not even buffered
    assert t(("e", 4)) == []                    # a tie with the worst key, buffer full
    assert t.state.data == {(3,): [("b", 3)], (4,): [("c", 4)]}
    # a tie with a better key enters and evicts the last row of the worst key
    assert t(("f", 3)) == ["-D['c', 4]", "+I['f', 3]"]


def test_append_only_with_an_offset_uses_the_row_number_algorithm_without_the_number():
    t = TopN(3, rank_start=2, rn=False)
    assert t(("a", 5)) == []                    # rank 1: outside [2, 3]
    assert t(("b", 3)) == ["+I['a', 5]"]        # a moves to rank 2
    # c takes rank 1: b moves to 2 (replacing a there), a to 3 (new)
    assert t(("c", 1)) == ["-U['a', 5]", "+U['b', 3]", "+I['a', 5]"]


def test_append_only_with_an_offset_and_the_row_number():
    t = TopN(3, rank_start=2, update_before=False)
    t(("a", 5))
    assert t(("b", 3)) == ["+I['a', 5, 2]"]
    assert t(("c", 1)) == ["+U['b', 3, 2]", "+I['a', 5, 3]"]


def test_append_only_null_sort_keys_follow_the_null_direction():
    first = TopN(2, sort_key=((1, True, True),))
    first(("a", 5))
    assert first(("n", None)) == ["-U['a', 5, 1]", "+U['n', null, 1]", "+I['a', 5, 2]"]
    last = TopN(2, sort_key=((1, True, False),))
    last(("a", 5))
    assert last(("n", None)) == ["+I['n', null, 2]"]
    # descending, NULLS LAST (Flink's default for DESC): NULL is still last
    desc = TopN(1, rn=False, sort_key=((1, False, False),))
    desc(("n", None))
    assert desc(("a", 5)) == ["-U['n', null]", "+U['a', 5]"]


@pytest.mark.parametrize("rank_end", [1, 3])
@pytest.mark.parametrize("kind", [UB, UA, D])
def test_insert_only_strategies_reject_updates(rank_end, kind):
    t = TopN(rank_end)
    with pytest.raises(NotInsertOnlyError, match="Retract strategy"):
        t(("a", 1), kind)


# --- RetractableTopNFunction ------------------------------------------------------------------

def test_retractable_without_row_number_enters_evicts_and_promotes():
    t = TopN(2, rn=False, insert_only=False)
    assert t(("a", 5)) == ["+I['a', 5]"]
    assert t(("b", 3)) == ["+I['b', 3]"]
    # c is rank 2: a (now rank 3) is deleted first, then c inserted
    assert t(("c", 4)) == ["-D['a', 5]", "+I['c', 4]"]
    # retracting the top row: the row that moves up from rank 3 (a) enters
    assert t(("b", 3), D) == ["-D['b', 3]", "+I['a', 5]"]
    assert t.state.counts == {(4,): 1, (5,): 1}
    # an update is a delete and an insert here: c leaves, then comes back at rank 2
    assert t(("c", 4), UB) == ["-D['c', 4]"]
    assert t(("c", 6), UA) == ["+I['c', 6]"]
    assert t.state.data == {(5,): [("a", 5)], (6,): [("c", 6)]}


def test_retractable_without_row_number_promotes_within_the_same_sort_key():
    t = TopN(2, rn=False, insert_only=False)
    t(("a", 5))
    t(("b", 5))
    assert t(("c", 5)) == []                    # rank 3
    # a goes: b moves to 1, c reaches rank N (2) while walking its sort key: +I c
    assert t(("a", 5), D) == ["-D['a', 5]", "+I['c', 5]"]


def test_retractable_without_row_number_deletes_the_row_pushed_to_rank_n_plus_1():
    t = TopN(2, rn=False, insert_only=False)
    t(("a", 5))
    t(("b", 5))
    assert t(("x", 5)) == []                    # rank 3
    # c is rank 1: b, at rank N of sort key 5, falls to N + 1 (x was already out)
    assert t(("c", 3)) == ["-D['b', 5]", "+I['c', 3]"]


def test_retractable_without_row_number_promotes_the_row_at_rank_n_plus_1_of_a_later_key():
    t = TopN(2, rn=False, insert_only=False)
    t(("b", 3))
    t(("a", 5))
    t(("x", 5))                                 # rank 3
    # b goes: a moves to rank 1, x (the second row of sort key 5) up to rank N
    assert t(("b", 3), D) == ["-D['b', 3]", "+I['x', 5]"]


def test_retractable_with_row_number_shifts_ranks_both_ways():
    t = TopN(2, insert_only=False)
    assert t(("a", 5)) == ["+I['a', 5, 1]"]
    assert t(("b", 3)) == ["-U['a', 5, 1]", "+U['b', 3, 1]", "+I['a', 5, 2]"]
    assert t(("c", 4)) == ["-U['a', 5, 2]", "+U['c', 4, 2]"]
    # b (rank 1) goes: every rank below moves up; a comes back at rank 2
    assert t(("b", 3), D) == ["-U['b', 3, 1]", "+U['c', 4, 1]", "-U['c', 4, 2]",
                              "+U['a', 5, 2]"]
    # c goes with only two rows left: the last rank is deleted
    assert t(("c", 4), UB) == ["-U['c', 4, 1]", "+U['a', 5, 1]", "-D['a', 5, 2]"]
    assert t(("a", 5), D) == ["-D['a', 5, 1]"]
    assert t.state.counts == {} and t.state.data == {}


def test_retractable_with_an_offset_only_emits_ranks_in_range():
    t = TopN(3, rank_start=2, insert_only=False)
    assert t(("a", 5)) == []
    assert t(("b", 3)) == ["+I['a', 5, 2]"]
    assert t(("b", 3), D) == ["-D['a', 5, 2]"]


def test_retractable_ties_and_duplicates():
    t = TopN(2, rn=False, insert_only=False)
    assert t(("a", 5)) == ["+I['a', 5]"]
    assert t(("a", 5)) == ["+I['a', 5]"]        # an identical row is a second row
    assert t.state.counts == {(5,): 2} and t.state.data == {(5,): [("a", 5), ("a", 5)]}
    assert t(("a", 5), D) == ["-D['a', 5]"]     # one copy goes
    assert t.state.data == {(5,): [("a", 5)]}


def test_retractable_null_sort_keys():
    t = TopN(1, rn=False, insert_only=False, sort_key=((1, False, False),))
    assert t(("n", None)) == ["+I['n', null]"]
    assert t(("a", 5)) == ["-D['n', null]", "+I['a', 5]"]    # DESC NULLS LAST
    assert t(("a", 5), D) == ["-D['a', 5]", "+I['n', null]"]


def test_retracting_an_absent_row_is_lenient_like_flink():
    t = TopN(2, insert_only=False)
    t(("a", 5))
    # a sort key the tree map does not have: only Flink's "state cleared" warning
    assert t(("x", 7), D) == []
    assert t.state.counts == {(5,): 1} and t.state.data == {(5,): [("a", 5)]}
    # a row that is not there under a sort key that is: the count still goes down (Flink
    # decrements the tree map whether or not the row was found), so a stays in the data
    # state but no longer counts
    assert t(("z", 5), D) == []
    assert t.state.counts == {} and t.state.data == {(5,): [("a", 5)]}
    assert t(("b", 3)) == ["+I['b', 3, 1]"]


# --- UpdatableTopNFunction (UpdateFast: updating input without -U, rows keyed by id) ----------

SCORE_DESC = ((1, False, False),)


def updatable(rank_end, rank_start=1, rn=True):
    return TopN(rank_end, rank_start, rn, insert_only=False, sort_key=SCORE_DESC, row_key=(0,))


def test_updatable_with_row_number_moves_an_updated_row_up_past_the_rows_it_passes():
    t = updatable(3)
    assert t(("a", 1)) == ["+I['a', 1, 1]"]
    assert t(("b", 1), UA) == ["+I['b', 1, 2]"]           # the row kind is not read
    # b's score grows past a: the old row is retracted first, a moves down to b's old rank
    assert t(("b", 2), UA) == ["-U['a', 1, 1]", "-U['b', 1, 2]", "+U['b', 2, 1]",
                               "+U['a', 1, 2]"]
    assert t(("b", 2), UA) == ["-U['b', 2, 1]", "+U['b', 2, 1]"]    # same sort key
    # a lower score breaks the monotonicity: Flink's lenient path over [old rank, new rank]
    assert t(("b", 0), UA) == ["-U['b', 2, 1]", "-U['a', 1, 2]", "+U['a', 1, 1]",
                               "+U['b', 0, 2]"]


def test_updatable_new_row_shifts_the_rows_below_it():
    t = updatable(2)
    t(("a", 1)), t(("b", 1))
    assert t(("c", 2)) == ["-U['a', 1, 1]", "+U['c', 2, 1]", "-U['b', 1, 2]", "+U['a', 1, 2]"]
    assert t(("d", 1)) == []                               # below the full top 2


def test_updatable_with_an_offset_emits_only_the_ranks_in_range():
    t = updatable(3, rank_start=2, rn=False)
    assert t(("a", 1)) == []                               # rank 1: before the range
    assert t(("b", 2)) == ["+I['a', 1]"]                   # a moves to rank 2


def test_update_fast_top1_reads_updates_as_rows():
    """FastTop1Function under UpdateFast: a +U (a growing MAX) replaces the top row only when
    strictly better, whatever its key."""
    t = TopN(1, rn=False, insert_only=False, sort_key=SCORE_DESC, row_key=(0,))
    assert t(("a", 5)) == ["+I['a', 5]"]
    assert t(("b", 7), UA) == ["-U['a', 5]", "+U['b', 7]"]
    assert t(("a", 7), UA) == []                           # a tie keeps b


def test_updatable_without_row_number_evicts_the_last_row():
    t = updatable(2, rn=False)
    assert t(("a", 1)) == ["+I['a', 1]"]
    assert t(("b", 1)) == ["+I['b', 1]"]
    assert t(("c", 1)) == []                               # not better than the last
    assert t(("c", 2)) == ["-D['b', 1]", "+I['c', 2]"]
    assert t(("a", 3), UA) == ["-U['a', 1]", "+U['a', 3]"]
    # b left the top N: its next update is a new row again, and pushes c out
    assert t(("b", 5), UA) == ["-D['c', 2]", "+I['b', 5]"]
    core, state = t.core, t.state
    assert state.data == {(3,): [("a", 3)], (5,): [("b", 5)]}
    assert decode_state(core, encode_state(core, state)).data == state.data


# --- state layout and (de)serialization -------------------------------------------------------

def test_state_layout_per_strategy():
    row = "`id`: STRING, `score`: INT"
    assert state_layout(RankParams(SCORE_ASC, 1, 1, False, True, True), row) == {
        "Top1-Rank-State": {"kind": "value", "value": f"row STRUCT<{row}>",
                            "ttl": "processing-time"}}
    assert state_layout(RankParams(SCORE_ASC, 1, 3, False, True, True), row) == {
        "data-state-with-append": {"kind": "value",
                                   "value": f"sortKeys ARRAY<STRUCT<rows: ARRAY<STRUCT<{row}>>>>",
                                   "ttl": "processing-time"}}
    assert state_layout(RankParams(SCORE_ASC, 1, 3, False, True, False), row)["data-state"][
        "value"] == f"sortKeys ARRAY<STRUCT<count: BIGINT, rows: ARRAY<STRUCT<{row}>>>>"
    assert state_layout(RankParams(SCORE_ASC, 1, 3, False, True, False, row_key=(0,)), row)[
        "data-state-with-update"]["value"] == f"sortKeys ARRAY<STRUCT<rows: ARRAY<STRUCT<{row}>>>>"


def test_retract_state_round_trips_with_sort_keys_in_order_and_uncounted_rows():
    core = top_n_function(RankParams(SCORE_ASC, 1, 2, True, True, False))
    state = RankState(data={(5,): [("a", 5)], (None,): [("n", None), ("m", None)],
                            (3,): [("b", 3)]},
                      counts={(5,): 1, (None,): 2})
    encoded = encode_state(core, state)
    # NULLS FIRST; sort key 3 has rows but no count (Flink's tree map lost it)
    assert encoded == ([(2, [("n", None), ("m", None)]), (0, [("b", 3)]), (1, [("a", 5)])],)
    decoded = decode_state(core, encoded)
    assert decoded.data == state.data and decoded.counts == state.counts
    assert encode_state(core, RankState()) is None


def test_append_and_top1_states_round_trip():
    append = top_n_function(RankParams(SCORE_ASC, 1, 2, True, True, True))
    state = RankState(data={(5,): [("a", 5)], (3,): [("b", 3), ("c", 3)]})
    assert decode_state(append, encode_state(append, state)).data == state.data
    top1 = top_n_function(RankParams(SCORE_ASC, 1, 1, True, True, True))
    assert decode_state(top1, encode_state(top1, RankState(top1=("a", 5)))).top1 == ("a", 5)


def test_a_proctime_sort_key_read_from_state_meets_one_read_from_input():
    """RANK_N_TEST's ORDER BY PROCTIME(): state hands a timestamp back naive (UTC), an input
    row may carry it with a time zone; rows_of and plain give the cores both naive, so the
    restored rows and the new ones share one order (comparing them raised TypeError)."""
    import datetime as dt

    from streamplan.changelog import OP_COLUMN
    from streamplan.runtime.batch_rows import normalized, plain, rows_of

    utc = dt.timezone.utc
    before = dt.datetime(2024, 1, 1, 12, 0, 0)                          # from state: naive
    after = dt.datetime(2024, 1, 1, 13, 0, 1, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    core = top_n_function(RankParams(SCORE_ASC, 1, 2, True, True, True))
    state = decode_state(core, ([(([plain(("a", before))]),)],))
    ((kind, row),) = rows_of([{"id": "b", "t": after, OP_COLUMN: I.code}], ("id", "t"))
    assert row == ("b", dt.datetime(2024, 1, 1, 12, 0, 1))             # the same instant, naive
    out = []
    core.process(state, kind, row, out)
    assert out == [(I.code, ("b", dt.datetime(2024, 1, 1, 12, 0, 1), 2))]
    assert normalized(("x", before.replace(tzinfo=utc))) == ("x", before)
    assert plain({"id": "a", "t": before.replace(tzinfo=utc)}) == ("a", before)
