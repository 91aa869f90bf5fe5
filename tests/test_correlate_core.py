"""Correlate without Spark: a table function's rows joined to each input row, inner and
LEFT (Flink's CorrelateCodeGenerator collector: no row for an empty result when INNER, one
NULL-padded row when LEFT), and the Python rewrites of Flink's TableFunc1 / StringSplit."""
from __future__ import annotations

import pytest

from programs import _functions as udfs
from streamplan.runtime.correlate import TableFunctionCall, correlate, expand


def test_inner_joins_each_yielded_row_and_drops_empty_results():
    f = udfs.TableFunc1()
    assert correlate(f, ("hi#there",), 1, True, left=False) == [("hi",), ("there",)]
    assert correlate(f, ("nohash",), 1, True, left=False) == []
    assert correlate(f, (None,), 1, True, left=False) == []


def test_left_pads_an_empty_result_with_one_null_row():
    f = udfs.TableFunc1()
    assert correlate(f, ("nohash",), 1, True, left=True) == [(None,)]
    assert correlate(f, ("a#b",), 1, True, left=True) == [("a",), ("b",)]


def test_row_results_and_their_arity():
    f = udfs.SplitWords()
    assert correlate(f, ("to be",), 2, False, left=False) == [("to", 2), ("be", 2)]
    with pytest.raises(ValueError, match="not a row of 3 field"):
        expand(f.eval("x"), 3, False)


def test_flinks_functions():
    assert list(udfs.TableFunc1().eval("hi#there", "$")) == ["$hi", "$there"]
    assert list(udfs.TableFunc1().eval("a#b#")) == ["a", "b"]        # Java's split
    assert list(udfs.StringSplit().eval("hello#world", "#")) == ["hello", "world"]
    assert list(udfs.StringSplit().eval("##a##b#", "#")) == ["a", "b"]  # StringUtils.split


def test_the_udf_body_imports_the_function_by_its_path():
    call = TableFunctionCall("programs._functions:TableFunc1", 1, True)
    assert call("x#y", "-") == [("-x",), ("-y",)]
