"""The incremental group aggregate's core (Flink's MiniBatchIncrementalGroupAggFunction for one
partial key): a bundle's local accumulators become the final aggregate's, the distinct calls'
through views that persist across bundles."""
from __future__ import annotations

from streamplan.runtime.group_aggregate import Accumulators, AggCall
from streamplan.runtime.incremental_group_aggregate import (IncrementalAggCore,
                                                            IncrementalAggParams, _decode_views,
                                                            _encode_views)
from streamplan.runtime.mini_batch_aggregate import from_columns, to_columns

COUNT_DISTINCT = AggCall("COUNT", 1, True, "BIGINT")
SUM_DISTINCT = AggCall("SUM", 2, True, "BIGINT")
MAX = AggCall("MAX", 1, False, "INT")
COUNT_STAR = AggCall("COUNT", None, False, "BIGINT")
PARAMS = IncrementalAggParams(2, (0,), (COUNT_DISTINCT, SUM_DISTINCT, MAX, COUNT_STAR), 1)


def local(rows: int, a: dict, b: dict, maxima: dict, count: int) -> Accumulators:
    """A local aggregate's accumulators: a's and b's value counts, MAX's values, COUNT(*)."""
    return Accumulators(rows, [dict(a), dict(b), dict(maxima), count])


def test_a_bundle_emits_what_it_changed_and_the_views_remember_the_values():
    core, views = IncrementalAggCore(PARAMS), {}
    first = core.bundle(views, [local(2, {1: 2}, {10: 2}, {1: 2}, 2)])
    assert first.row_count == 2
    assert first.values == [[1, 1], [10, 1], {1: 2}, [2, 1]]   # $SUM0, SUM, MAX, $SUM0 forms
    again = core.bundle(views, [local(1, {1: 1}, {10: 1}, {1: 1}, 1)])
    assert again.values[:2] == [[0, 1], [None, 0]]            # seen before: nothing counted
    new = core.bundle(views, [local(1, {2: 1}, {30: 1}, {2: 1}, 1)])
    assert new.values[:2] == [[1, 1], [30, 1]]
    assert views == {0: {1: 3, 2: 1}, 1: {10: 3, 30: 1}}


def test_a_value_whose_count_falls_to_zero_is_retracted_from_the_delta():
    core, views = IncrementalAggCore(PARAMS), {}
    core.bundle(views, [local(2, {1: 1, 2: 1}, {10: 2}, {1: 1, 2: 1}, 2)])
    gone = core.bundle(views, [local(-1, {2: -1}, {10: -1}, {2: -1}, -1)])
    assert gone.row_count == -1
    assert gone.values == [[-1, 1], [None, 0], {2: -1}, [-1, 1]]   # b's 10 is still there
    last = core.bundle(views, [local(-1, {1: -1}, {10: -1}, {1: -1}, -1)])
    assert last.values[:2] == [[-1, 1], [-10, -1]]
    assert _encode_views(views, PARAMS.calls) is None          # every view empty: cleared


def test_the_bundles_locals_merge_in_one_delta():
    core, views = IncrementalAggCore(PARAMS), {}
    merged = core.bundle(views, [local(1, {1: 1}, {5: 1}, {1: 1}, 1),
                                 local(1, {1: 1}, {7: 1}, {4: 1}, 1)])
    assert merged.values == [[1, 1], [12, 2], {1: 1, 4: 1}, [2, 1]]


def test_final_accumulators_travel_in_the_global_aggregates_columns():
    core = IncrementalAggCore(PARAMS)
    final = core.bundle({}, [local(1, {3: 1}, {4: 1}, {3: 1}, 1)])
    columns = to_columns(final, PARAMS.final_calls)
    back = from_columns(columns, PARAMS.final_calls)
    assert back.row_count == 1
    assert back.values == [[1, 1], [4, 1], {3: 1}, [1, 1]]


def test_views_survive_their_state_encoding():
    views = {0: {1: 2, 5: -1}, 1: {10: 1}}
    stored = _encode_views(views, PARAMS.calls)
    assert _decode_views(stored, PARAMS.calls) == views
    assert _decode_views(None, PARAMS.calls) == {}
