"""Group aggregation without Spark: Flink's GroupAggFunction record by record."""
from __future__ import annotations

from decimal import Decimal

import pytest

from streamplan.changelog import RowKind
from streamplan.runtime.group_aggregate import AggCall, GroupAggCore, GroupAggParams

I, UB, UA, D = (RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE)
COUNT_STAR = AggCall("COUNT", None, False, "BIGINT NOT NULL")


def run(calls, rows, update_before=True, ttl_ms=0):
    """Feed (kind, row) pairs of one key; the output as (kind, values) with kinds as text."""
    core = GroupAggCore(GroupAggParams(1, tuple(calls), update_before, ttl_ms))
    acc, out = None, []
    for kind, row in rows:
        acc = core.process(("k",), acc, kind, row, out)
    return [(RowKind.from_code(code).short, values[1:]) for code, values in out], acc


def test_first_row_inserts_a_change_updates_and_the_last_retraction_deletes():
    out, acc = run([COUNT_STAR, AggCall("SUM", 0, False, "BIGINT")],
                   [(I, (10,)), (I, (5,)), (UB, (10,)), (UB, (5,))])
    assert out == [("+I", (1, 10)), ("-U", (1, 10)), ("+U", (2, 15)),
                   ("-U", (2, 15)), ("+U", (1, 5)), ("-D", (1, 5))]
    assert acc is None                         # state is cleared with the -D


def test_no_update_before_when_the_consumer_does_not_need_it():
    out, _ = run([COUNT_STAR], [(I, (1,)), (I, (2,))], update_before=False)
    assert out == [("+I", (1,)), ("+U", (2,))]


def test_an_unchanged_result_emits_nothing_unless_ttl_is_on():
    rows = [(I, (3,)), (I, (1,))]                    # MAX stays 3
    assert run([AggCall("MAX", 0, False, "INT")], rows)[0] == [("+I", (3,))]
    # Flink re-emits with TTL on, so downstream state is refreshed
    assert run([AggCall("MAX", 0, False, "INT")], rows, ttl_ms=1000)[0] == [
        ("+I", (3,)), ("-U", (3,)), ("+U", (3,))]


def test_a_retraction_for_a_key_without_state_is_ignored():
    out, acc = run([COUNT_STAR], [(D, (1,)), (UB, (1,))])
    assert out == [] and acc is None


def test_min_and_max_retract_exactly_by_keeping_every_value():
    calls = [AggCall("MIN", 0, False, "INT"), AggCall("MAX", 0, False, "INT")]
    out, acc = run(calls, [(I, (5,)), (I, (1,)), (I, (9,)), (I, (1,)), (D, (1,)), (D, (9,)),
                           (D, (1,))])
    assert [values for _, values in out if _ in ("+I", "+U")] == [
        (5, 5), (1, 5), (1, 9), (1, 5), (5, 5)]
    # the duplicate 1 kept MIN at 1 after one of them was retracted: nothing emitted then
    assert ("+U", (1, 9)) in out and out.count(("+U", (1, 9))) == 1
    assert acc.values[0] == {5: 1} and acc.values[1] == {5: 1}


def test_count_of_a_column_and_count_distinct_skip_nulls():
    calls = [AggCall("COUNT", 0, False, "BIGINT NOT NULL"),
             AggCall("COUNT", 0, True, "BIGINT NOT NULL"), COUNT_STAR]
    out, _ = run(calls, [(I, ("a",)), (I, (None,)), (I, ("a",)), (I, ("b",)), (D, ("a",))])
    # after a, NULL, a, b and -a: non-null a, b (2); distinct a, b (2); 4 rows, 1 retracted
    assert out[-1] == ("+U", (2, 2, 3))


def test_sum_and_avg_over_no_non_null_value_are_null_and_avg_truncates_like_java():
    calls = [AggCall("SUM", 0, False, "INT"), AggCall("AVG", 0, False, "INT"), COUNT_STAR]
    out, _ = run(calls, [(I, (None,)), (I, (-7,)), (I, (2,))])
    assert out[0] == ("+I", (None, None, 1))
    assert out[-1] == ("+U", (-5, -2, 3))        # -5 / 2 = -2.5 -> -2 (towards zero)


def test_an_integral_sum_wraps_around_its_type_as_java_and_avg_does_not():
    # Flink 2.3: SUM of the TINYINTs 1, 2, 127 is -126 (a TINYINT), AVG is 43
    calls = [AggCall("SUM", 0, False, "TINYINT"), AggCall("AVG", 0, False, "TINYINT"),
             AggCall("SUM", 0, False, "BIGINT")]
    out, _ = run(calls, [(I, (1,)), (I, (2,)), (I, (127,))])
    assert out[-1] == ("+U", (-126, 43, 130))
    out, _ = run([AggCall("SUM", 0, False, "INT")], [(I, (-2 ** 31,)), (I, (-1,))])
    assert out[-1] == ("+U", (2 ** 31 - 1,))


def test_decimal_avg_rounds_half_up_to_the_result_scale():
    call = AggCall("AVG", 0, False, "DECIMAL(38,6)")
    out, _ = run([call], [(I, (Decimal("1.00"),)), (I, (Decimal("2.00"),)), (I, (Decimal("2.00"),))])
    assert out[-1] == ("+U", (Decimal("1.666667"),))


def test_double_sum_retracts_by_subtracting_as_flink_does():
    out, _ = run([AggCall("SUM", 0, False, "DOUBLE"), COUNT_STAR],
                 [(I, (0.1,)), (I, (0.2,)), (UB, (0.1,))])
    assert out[-1] == ("+U", (0.1 + 0.2 - 0.1, 1))   # not 0.2: the running sum is kept


@pytest.mark.parametrize("update_before", [True, False])
def test_retract_then_accumulate_of_an_update_in_one_batch(update_before):
    """An upstream update (-U old, +U new) of the only row of a key: -D then +I, as Flink."""
    out, _ = run([COUNT_STAR], [(I, (1,)), (UB, (1,)), (UA, (2,))], update_before)
    assert out == [("+I", (1,)), ("-D", (1,)), ("+I", (1,))]


# --- FILTER (Flink's filterArg) and DISTINCT --------------------------------------------------

def test_a_filtered_call_takes_only_rows_whose_filter_column_is_true():
    """FILTER (WHERE ...) is a BOOLEAN column (index 1); NULL and FALSE skip the row, for
    accumulate and retract alike, while the row count (and COUNT(*)) sees every row."""
    calls = [COUNT_STAR, AggCall("SUM", 0, False, "INT", filter=1),
             AggCall("COUNT", None, False, "BIGINT NOT NULL", filter=1)]
    out, acc = run(calls, [(I, (5, True)), (I, (7, False)), (I, (9, None)), (I, (2, True)),
                           (D, (7, False)), (D, (5, True))])
    assert out == [("+I", (1, 5, 1)), ("-U", (1, 5, 1)), ("+U", (2, 5, 1)),
                   ("-U", (2, 5, 1)), ("+U", (3, 5, 1)), ("-U", (3, 5, 1)), ("+U", (4, 7, 2)),
                   ("-U", (4, 7, 2)), ("+U", (3, 7, 2)), ("-U", (3, 7, 2)), ("+U", (2, 2, 1))]
    assert acc.values[1:] == [[2, 1], 1]     # the same accumulator as without a FILTER


def test_a_filtered_call_over_no_row_is_null_and_count_zero():
    calls = [AggCall("AVG", 0, False, "INT", filter=1), AggCall("COUNT", 0, True, "BIGINT NOT NULL", filter=1)]
    out, _ = run(calls, [(I, (1, False)), (I, (3, True)), (UB, (3, True))])
    assert out == [("+I", (None, 0)), ("-U", (None, 0)), ("+U", (3, 1)),
                   ("-U", (3, 1)), ("+U", (None, 0))]


def test_sum_and_avg_distinct_aggregate_the_distinct_values_and_retract_exactly():
    calls = [AggCall("SUM", 0, True, "INT"), AggCall("AVG", 0, True, "INT"),
             AggCall("SUM", 0, False, "INT")]
    out, acc = run(calls, [(I, (4,)), (I, (4,)), (I, (None,)), (I, (-3,)), (D, (4,)),
                           (D, (-3,)), (D, (4,))])
    assert [values for kind, values in out] == [
        (4, 4, 4),                     # +I 4
        (4, 4, 4), (4, 4, 8),          # a second 4: the distinct sum stays 4
        # NULL: nothing changes, nothing emitted
        (4, 4, 8), (1, 0, 5),          # -3: distinct {4, -3}: sum 1, avg 1 / 2 truncated to 0
        (1, 0, 5), (1, 0, 1),          # one 4 retracted: 4 is still present once
        (1, 0, 1), (4, 4, 4),          # -3 retracted
        (4, 4, 4), (None, None, None)]  # the last 4 retracted: only the NULL row is left
    assert acc.row_count == 1 and acc.values == [{}, {}, [0, 0]]


def test_distinct_decimal_avg_keeps_the_result_scale():
    out, _ = run([AggCall("AVG", 0, True, "DECIMAL(38,6)")],
                 [(I, (Decimal("1.00"),)), (I, (Decimal("2.00"),)), (I, (Decimal("1.00"),))])
    assert out[-1] == ("+U", (Decimal("1.500000"),)) and len(out) == 3


def test_count_distinct_with_a_filter_counts_the_distinct_values_of_the_taken_rows():
    call = AggCall("COUNT", 0, True, "BIGINT NOT NULL", filter=1)
    out, acc = run([call, COUNT_STAR], [(I, ("a", True)), (I, ("b", False)), (I, ("a", True)),
                                        (I, ("b", True)), (UB, ("a", True))])
    assert out[-1] == ("+U", (2, 3)) and acc.values[0] == {"a": 1, "b": 1}


# --- FIRST_VALUE, LAST_VALUE, LISTAGG: arrival order (Flink's *WithRetractAggFunction) ---------

FIRST, LAST = AggCall("FIRST_VALUE", 0, False, "INT"), AggCall("LAST_VALUE", 0, False, "INT")
LISTAGG = AggCall("LISTAGG", 1, False, "STRING", args=(1, 2))


def test_retractions_remove_the_earliest_occurrence_of_their_value():
    rows = [(I, (3, "x", ";")), (I, (4, "y", ";")), (I, (3, "x", ";")), (UB, (3, "x", ";")),
            (UA, (9, "v", ";")), (D, (4, "y", ";")), (D, (7, "w", ";"))]   # 7 never came
    out, acc = run([FIRST, LAST, LISTAGG], rows, update_before=False)
    assert out == [("+I", (3, 3, "x")), ("+U", (3, 4, "x;y")), ("+U", (3, 3, "x;y;x")),
                   ("+U", (4, 3, "y;x")), ("+U", (4, 9, "y;x;v")), ("+U", (3, 9, "x;v"))]
    assert acc.values == [[3, 9], [3, 9], [["x", "v"], ";"]]


def test_over_an_insert_only_input_first_and_last_keep_one_value_and_skip_nulls():
    calls = [AggCall("FIRST_VALUE", 0, False, "INT", retracting=False),
             AggCall("LAST_VALUE", 0, False, "INT", retracting=False),
             AggCall("LISTAGG", 1, False, "STRING", args=(1,), retracting=False)]
    out, acc = run(calls, [(I, (None, None)), (I, (5, "a")), (I, (None, "b")), (I, (6, None))],
                   update_before=False)
    assert out == [("+I", (None, None, None)), ("+U", (5, 5, "a")), ("+U", (5, 5, "a,b")),
                   ("+U", (5, 6, "a,b"))]
    assert acc.values == [5, 6, [["a", "b"], ","]]


def test_arrival_order_accumulators_read_back_what_they_wrote():
    from streamplan.runtime.group_aggregate import _decode, _encode

    calls = (FIRST, AggCall("LAST_VALUE", 0, False, "INT", retracting=False), LISTAGG)
    _, acc = run(calls, [(I, (3, "x", "|")), (I, (4, None, "|"))])
    stored = _encode(acc, calls)
    assert _decode(stored, calls) == acc


def test_welford_m2_accumulates_and_retracts_as_flinks_function():
    """WelfordM2AggFunction in doubles: the mean and the sum of squared deviations; a
    retraction runs the update backwards, with Flink's rounding (m2 15.124999999999996, not
    15.125: the VAR_SAMP Flink 2.3 printed for program group-aggregate-variance); a key's last
    value retracted resets it."""
    from decimal import Decimal

    from streamplan.runtime.group_aggregate import _apply, _initial, _result

    call = AggCall("WELFORD_M2", 0, False, "DOUBLE")
    acc = _initial(call)
    assert _result(call, acc) is None
    for value in (1.5, None, 2.5, 7.0):                  # NULLs are skipped
        acc = _apply(call, acc, value, 1)
    n, mean, m2 = acc
    assert n == 3 and abs(mean - 11.0 / 3) < 1e-12 and abs(m2 - 17.166666666666668) < 1e-12
    acc = _apply(call, acc, 2.5, -1)
    assert acc[:2] == [2, 4.25] and _result(call, acc) == 15.124999999999996
    for value in (1.5, 7.0):
        acc = _apply(call, acc, value, -1)
    assert acc == [0, 0.0, 0.0] and _result(call, acc) is None
    assert _apply(call, _initial(call), Decimal("2.25"), 1) == [1, 2.25, 0.0]   # as a double


def test_welford_m2_state_round_trips():
    from streamplan.runtime.group_aggregate import Accumulators, _decode, _encode

    calls = (AggCall("WELFORD_M2", 0, False, "DOUBLE"),)
    stored = _encode(Accumulators(2, [[2, 1.25, 0.5]]), calls)
    assert _decode(stored, calls).values == [[2, 1.25, 0.5]]


def test_sum0_is_0_over_no_rows_where_sum_is_null():
    """$SUM0 (split distinct's final COUNT): Flink's Sum0WithRetractAggFunction gives 0 of its
    type when no value is left, SUM NULL."""
    from decimal import Decimal

    from streamplan.runtime.group_aggregate import _apply, _initial, _result

    for result_type, zero in (("BIGINT NOT NULL", 0), ("DOUBLE", 0.0),
                              ("DECIMAL(38, 2)", Decimal("0.00"))):
        sum0, plain = AggCall("SUM0", 0, False, result_type), AggCall("SUM", 0, False, result_type)
        assert _result(sum0, _initial(sum0)) == zero and _result(plain, _initial(plain)) is None
        acc = _apply(sum0, _apply(sum0, _initial(sum0), 2, 1), 3, 1)
        assert _result(sum0, acc) == 5
        acc = _apply(sum0, _apply(sum0, acc, 2, -1), 3, -1)
        assert _result(sum0, acc) == zero and type(_result(sum0, acc)) is type(zero)


# --- mini-batch in one phase (node version 2): MiniBatchGroupAggFunction.finishBundle --------

def run_bundles(calls, bundles, ttl_ms=0):
    """Feed bundles of (kind, row) pairs of one key; the output as for `run`."""
    core = GroupAggCore(GroupAggParams(1, tuple(calls), True, ttl_ms))
    acc, out = None, []
    for bundle in bundles:
        acc = core.finish_bundle(("k",), acc, bundle, out)
    return [(RowKind.from_code(code).short, values[1:]) for code, values in out], acc


def test_a_bundle_emits_one_change_for_all_its_rows():
    calls = [COUNT_STAR, AggCall("SUM", 0, False, "BIGINT")]
    out, acc = run_bundles(calls, [[(I, (10,)), (I, (5,))], [(UB, (10,)), (UA, (20,))],
                                   [(D, (20,)), (D, (5,))]])
    assert out == [("+I", (2, 15)), ("-U", (2, 15)), ("+U", (2, 25)), ("-D", (2, 25))]
    assert acc is None                         # the row count fell to zero: state cleared


def test_a_bundle_that_leaves_the_result_unchanged_emits_nothing_unless_ttl_is_on():
    calls = [COUNT_STAR, AggCall("SUM", 0, False, "BIGINT")]
    bundles = [[(I, (1,))], [(I, (4,)), (D, (4,))]]
    assert run_bundles(calls, bundles)[0] == [("+I", (1, 1))]
    assert run_bundles(calls, bundles, ttl_ms=1000)[0] == [
        ("+I", (1, 1)), ("-U", (1, 1)), ("+U", (1, 1))]


def test_a_key_without_state_drops_only_its_bundles_leading_retractions():
    calls = [COUNT_STAR, AggCall("SUM", 0, False, "BIGINT")]
    # the -D before any row is dropped; the one after the +I is applied (no row left: Flink
    # emits nothing for a first bundle whose rows cancel out, and keeps no state)
    assert run_bundles(calls, [[(D, (7,)), (UB, (7,))]]) == ([], None)
    assert run_bundles(calls, [[(D, (7,)), (I, (3,)), (D, (3,))]]) == ([], None)
    out, acc = run_bundles(calls, [[(D, (7,)), (I, (3,)), (I, (4,))]])
    assert out == [("+I", (2, 7))] and acc.row_count == 2


def test_bundles_equal_rows_when_each_bundle_has_one_row():
    calls = [COUNT_STAR, AggCall("MAX", 0, False, "INT"), AggCall("SUM", 0, True, "INT")]
    rows = [(I, (5,)), (I, (1,)), (I, (9,)), (UB, (9,)), (UA, (2,)), (D, (1,))]
    assert run_bundles(calls, [[row] for row in rows]) == run(calls, rows)
