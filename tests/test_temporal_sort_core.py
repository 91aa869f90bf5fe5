"""The row-time temporal sort without Spark: Flink's RowTimeSortOperator (rows kept per row
time until the watermark, ties sorted by the other ORDER BY columns, rows at or before the
last emitted time dropped as late)."""
from __future__ import annotations

from streamplan.changelog import RowKind
from streamplan.runtime.temporal_sort import RowTimeSortCore, SortState, TemporalSortParams

I = RowKind.INSERT.code


def core(*secondary):
    """Rows (time-ms, int, double); ORDER BY time, then `secondary` (index, asc, nulls first)."""
    return RowTimeSortCore(TemporalSortParams(rowtime_index=0, secondary=tuple(secondary)))


def step(sort, state, watermark, rows=()):
    """As the processor runs a batch: the times due at the watermark first, then the rows."""
    out = []
    sort.fire_due(state, watermark, out)
    for row in rows:
        sort.process(state, row)
    return [values for _, values in out]


def test_rows_leave_in_time_order_when_the_watermark_passes_them():
    sort, state = core((2, True, True)), SortState()
    assert step(sort, state, 0, [(7000, 5, 6.0), (7000, 3, 3.0), (6000, 6, 6.0)]) == []
    assert sorted(state.new_timers) == [6000, 7000]     # one timer per new time
    assert step(sort, state, 7000) == [(6000, 6, 6.0), (7000, 3, 3.0), (7000, 5, 6.0)]
    assert state.data == {} and state.last_triggering == 7000


def test_flinks_program_before_the_restore():
    """TemporalSortTestPrograms#TEMPORAL_SORT_ROWTIME, a row a batch, watermark = t - 1 s."""
    sort, state = core((2, True, True)), SortState()
    rows = [(1000, 1, 1.0), (2000, 2, 2.0), (7000, 5, 6.0), (7000, 3, 3.0), (6000, 6, 6.0),
            (8000, 3, None), (4000, 5, 5.0), (16000, 4, 4.0)]
    out, watermark = [], None
    for row in rows:
        out += step(sort, state, watermark if watermark is not None else -2 ** 63, [row])
        watermark = max(watermark or 0, row[0] - 1000)
    out += step(sort, state, watermark)                 # the closing tick
    assert [values[1] for values in out] == [1, 2, 6, 3, 5, 3]   # :04 was late: dropped
    assert list(state.data) == [16000]


def test_a_row_at_the_last_emitted_time_is_late_but_one_after_it_is_kept():
    sort, state = core(), SortState()
    step(sort, state, 0, [(5000, 1, 1.0)])
    assert step(sort, state, 5000, [(5000, 2, 2.0), (5001, 3, 3.0)]) == [(5000, 1, 1.0)]
    assert list(state.data) == [5001]
    # earlier than the watermark but after the last emitted time: kept, emitted next
    assert step(sort, state, 9000, [(5000, 4, 4.0)]) == [(5001, 3, 3.0)]
    assert list(state.data) == []


def test_ties_keep_arrival_order_and_nulls_sort_as_asked():
    asc_nulls_first = core((2, True, True))
    state = SortState()
    step(asc_nulls_first, state, 0, [(1000, 1, 2.0), (1000, 2, None), (1000, 3, 2.0),
                                     (1000, 4, 1.0)])
    assert [r[1] for r in step(asc_nulls_first, state, 1000)] == [2, 4, 1, 3]
    desc_nulls_last = core((2, False, False))
    state = SortState()
    step(desc_nulls_last, state, 0, [(1000, 1, 2.0), (1000, 2, None), (1000, 3, 1.0)])
    assert [r[1] for r in step(desc_nulls_last, state, 1000)] == [1, 3, 2]


def test_without_secondary_columns_rows_of_a_time_keep_arrival_order():
    sort, state = core(), SortState()
    step(sort, state, 0, [(1000, 2, 0.0), (1000, 1, 0.0)])
    assert [r[1] for r in step(sort, state, 1000)] == [2, 1]


def test_firing_a_time_without_rows_changes_nothing():
    sort, state = core(), SortState()
    out = []
    sort.fire(state, 3000, out)
    assert out == [] and state.last_triggering is None and not state.last_dirty
