"""The mini-batch aggregate's cores without Spark: Flink's MiniBatchLocalGroupAggFunction under
a count trigger, MiniBatchGlobalGroupAggFunction's finishBundle, and the order Flink's bundle
(a java.util.HashMap of BinaryRowData) hands its keys back."""
from __future__ import annotations

from decimal import Decimal

from streamplan.changelog import RowKind
from streamplan.runtime.group_aggregate import AggCall
from streamplan.runtime.java_hash_order import (binary_row, capacity, hash_by_words,
                                                hash_map_order)
from streamplan.runtime.mini_batch_aggregate import (GlobalAggCore, GlobalAggParams,
                                                     LocalAggParams, create, from_columns,
                                                     local_bundles, merge, to_columns)

I, UB, UA, D = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE
# rows (k, v): COUNT(*), SUM(v), MAX(v), COUNT(DISTINCT v)
CALLS = (AggCall("COUNT", None, False, "BIGINT"), AggCall("SUM", 1, False, "INT"),
         AggCall("MAX", 1, False, "INT"), AggCall("COUNT", 1, True, "BIGINT"))


def local(rows, size, key_types=("STRING",)):
    return [(key, acc.row_count, acc.values)
            for key, acc in local_bundles(LocalAggParams((0,), CALLS, size, key_types), rows)]


def test_local_bundles_are_cut_by_size_and_fold_retractions():
    rows = [(I, ("a", 10)), (I, ("b", 5)), (I, ("a", 7)), (UB, ("a", 10)), (UA, ("a", 4))]
    bundles = local(rows, 3, key_types=("DECIMAL",))       # arrival order (not emulated)
    assert bundles == [
        (("a",), 2, [2, [17, 2], {10: 1, 7: 1}, {10: 1, 7: 1}]),
        (("b",), 1, [1, [5, 1], {5: 1}, {5: 1}]),
        (("a",), 0, [0, [-6, 0], {10: -1, 4: 1}, {10: -1, 4: 1}]),
    ]


def test_local_bundle_flushes_its_keys_in_flinks_hash_map_order():
    """BIGINT keys 2, 3, 1 come back from Flink's bundle as 3, 2, 1
    (GroupAggregateTestPrograms#GROUP_BY_DISTINCT_MINI_BATCH relies on it)."""
    rows = [(I, (2, 1)), (I, (3, 1)), (I, (1, 1))]
    assert [key for key, _, _ in local(rows, 10, key_types=("BIGINT",))] == [(3,), (2,), (1,)]


def test_binary_row_layout_and_hash():
    assert binary_row((1,), ("BIGINT",)) == bytes(8) + (1).to_bytes(8, "little")
    assert binary_row((None,), ("INT",)) == bytes([0, 1]) + bytes(6) + bytes(8)
    assert binary_row(("ab",), ("STRING",)) == bytes(8) + b"ab" + bytes(5) + bytes([0x82])
    long = binary_row(("abcdefghi",), ("STRING",))
    assert long[8:16] == ((16 << 32) | 9).to_bytes(8, "little") and long[16:] == b"abcdefghi" + bytes(7)
    # Murmur3 x86 32 over words, seed 42: the value Java's BinaryRowData.hashCode gives
    assert hash_by_words(binary_row((1,), ("BIGINT",))) == 1465514398
    assert capacity(12) == 16 and capacity(13) == 32
    assert hash_map_order([(Decimal(1),)], ("DECIMAL",)) is None


def test_accumulators_travel_as_columns_and_merge():
    acc = create(CALLS)
    acc.row_count, acc.values = 2, [2, [17, 2], {10: 1, 7: 1}, {10: 1, 7: 1}]
    back = from_columns(to_columns(acc, CALLS), CALLS)
    assert (back.row_count, back.values) == (acc.row_count, acc.values)
    other = create(CALLS)
    other.row_count, other.values = 0, [0, [-6, 0], {10: -1, 4: 1}, {10: -1, 4: 1}]
    merged = merge(CALLS, back, other)
    assert (merged.row_count, merged.values) == (2, [2, [11, 2], {7: 1, 4: 1}, {7: 1, 4: 1}])


def global_core(size=3, update_before=True, ttl_ms=0):
    return GlobalAggCore(GlobalAggParams(1, CALLS, size, update_before, ttl_ms))


def bundle(*rows):
    return [acc for _, acc in local_bundles(LocalAggParams((0,), CALLS, 100), rows)]


def test_global_bundle_inserts_updates_and_deletes_like_finish_bundle():
    core, out = global_core(), []
    state = core.finish_bundle(("a",), None, bundle((I, ("a", 1)), (I, ("a", 3))), out)
    assert out == [(I.code, ("a", 2, 4, 3, 2))]
    out.clear()
    state = core.finish_bundle(("a",), state, bundle((I, ("a", 3)), (D, ("a", 3))), out)
    assert out == [] and state.row_count == 2          # an unchanged result emits nothing
    state = core.finish_bundle(("a",), state, bundle((D, ("a", 1))), out)
    assert out == [(UB.code, ("a", 2, 4, 3, 2)), (UA.code, ("a", 1, 3, 3, 1))]
    out.clear()
    assert core.finish_bundle(("a",), state, bundle((D, ("a", 3))), out) is None
    assert out == [(D.code, ("a", 1, 3, 3, 1))]


def test_global_bundle_without_update_before_and_with_ttl():
    core, out = global_core(update_before=False, ttl_ms=1000), []
    state = core.finish_bundle(("a",), None, bundle((I, ("a", 1))), out)
    core.finish_bundle(("a",), state, bundle((I, ("a", 1)), (D, ("a", 1))), out)
    # with state TTL an unchanged result is emitted again (Flink refreshes downstream state)
    assert out == [(I.code, ("a", 1, 1, 1, 1)), (UA.code, ("a", 1, 1, 1, 1))]


def test_a_retraction_first_seen_in_a_bundle_of_a_new_key_emits_nothing():
    out = []
    assert global_core().finish_bundle(("a",), None, bundle((I, ("a", 1)), (D, ("a", 1))),
                                       out) is None
    assert out == []


def test_a_user_defined_aggregate_travels_as_its_declared_accumulator_and_merges_by_merge():
    """Two phases of a UDAF with merge (Flink's WeightedAvgWithMerge, ConcatDistinctAggFunction):
    each bundle's accumulator crosses as its ACCUMULATOR_TYPE, and the global aggregate merges
    bundles and state with the function's own merge, in arrival order."""
    avg = AggCall("UDAF", None, False, "BIGINT", None, "programs._functions:WeightedAvgWithMerge",
                  "ROW<sum BIGINT, count INT>", (1, 2))
    concat = AggCall("UDAF", None, False, "STRING", None,
                     "programs._functions:ConcatDistinctAggFunction",
                     "ROW<map MAP<STRING, BOOLEAN>, list ARRAY<STRING>>", (3,))
    calls = (avg, concat)
    rows = [(I, (1, 10, 1, "x")), (I, (1, 20, 3, "y")), (I, (1, 30, 1, "x")), (I, (1, 5, 1, "z"))]
    bundles = list(local_bundles(LocalAggParams((0,), calls, 3, ("INT",)), rows))
    assert [(key, acc.row_count) for key, acc in bundles] == [((1,), 3), ((1,), 1)]
    travelled = [from_columns(to_columns(acc, calls), calls) for _, acc in bundles]
    assert (travelled[0].values[0].sum, travelled[0].values[0].count) == (100, 5)
    assert travelled[0].values[1].list == ["x", "y"]

    core = GlobalAggCore(GlobalAggParams(1, calls, 3, True))
    out = []
    state = core.finish_bundle((1,), None, travelled[:1], out)
    state = core.finish_bundle((1,), state, travelled[1:], out)
    assert out == [(I.code, (1, 20, "x|y")), (UB.code, (1, 20, "x|y")), (UA.code, (1, 17, "x|y|z"))]
    assert (state.row_count, state.values[0].sum, state.values[0].count) == (4, 105, 6)


WELFORD = (AggCall("WELFORD_M2", 1, False, "DOUBLE"),)


def test_welford_m2_merges_as_flinks_function():
    """WelfordM2AggFunction.merge (Chan's form, in doubles): merging per-bundle accumulators
    gives the accumulated statistics; an accumulator of no or negative rows only adds its
    count, and a total at or below zero resets the mean and m2."""
    from streamplan.runtime.group_aggregate import merge_welford

    assert merge_welford([0, 0.0, 0.0], [2, 2.0, 2.0]) == [2, 2.0, 2.0]      # taken as it is
    assert merge_welford([2, 2.0, 2.0], [2, 6.0, 2.0]) == [4, 4.0, 20.0]     # 1, 3 and 5, 7
    assert merge_welford([2, 2.0, 2.0], [-1, 0.0, 0.0]) == [1, 2.0, 2.0]     # count only
    assert merge_welford([1, 2.0, 0.0], [-1, 0.0, 0.0]) == [0, 0.0, 0.0]
    # the form's own rounding: (1/3) * 5, not 5 / 3 as accumulating would
    assert merge_welford([2, 2.0, 0.5], [1, 7.0, 0.0])[1] == 2.0 + 1 / 3 * 5.0


def test_a_retraction_in_a_bundle_leaves_welfords_statistics_as_flink_does():
    """Two-phase STDDEV / VARIANCE with retractions, as Flink computes them: a -U and its +U in
    one bundle retract below zero rows and then ignore the +U's value, so merged into the
    global state the statistics keep the retracted value and never see the new one; only the
    count moves. The same rows in one phase (one aggregate) give the exact statistics."""
    rows = [(I, ("a", 1.5)), (I, ("a", 2.5)), (I, ("a", 7.0))]
    (first,) = [acc for _, acc in local_bundles(LocalAggParams((0,), WELFORD, 100), rows)]
    (second,) = [acc for _, acc in local_bundles(LocalAggParams((0,), WELFORD, 100),
                                                  [(UB, ("a", 2.5)), (UA, ("a", 3.5))])]
    assert second.values == [[0, 0.0, 0.0]]
    state = merge(WELFORD, merge(WELFORD, create(WELFORD), first), second)
    assert state.values == first.values                  # 2.5 kept, 3.5 never seen
    back = from_columns(to_columns(state, WELFORD), WELFORD)
    assert back.values == state.values
