"""Values as Flink prints them (Row.toString) and lossless JSON round trips."""
from __future__ import annotations

import datetime as dt
import json

import numpy
import pytest

from streamplan.runtime.rows import format_value, to_json, to_python
from streamplan.types import parse_type


@pytest.mark.parametrize("value, text", [
    (1e7, "1.0E7"), (1e21, "1.0E21"), (12345678.9, "1.23456789E7"), (1e-5, "1.0E-5"),
    (2e-4, "2.0E-4"), (0.001, "0.001"), (123.0, "123.0"), (-2.5, "-2.5"), (-0.0, "-0.0"),
    (0.30000000000000004, "0.30000000000000004"), (float("nan"), "NaN"), (float("-inf"), "-Infinity"),
])
def test_doubles_print_like_java(value, text):
    assert format_value(value, parse_type("DOUBLE")) == text


@pytest.mark.parametrize("value, text", [(1.1, "1.1"), (0.1, "0.1"), (1e10, "1.0E10"),
                                         (16777216.0, "1.6777216E7"), (1e-4, "1.0E-4")])
def test_floats_print_like_java_float(value, text):
    assert format_value(float(numpy.float32(value)), parse_type("FLOAT")) == text


# java.time.LocalDateTime.toString: seconds omitted when zero (and no fraction), otherwise
# the shortest of .SSS / .SSSSSS / .SSSSSSSSS that holds the fraction.
@pytest.mark.parametrize("value, text", [
    (dt.datetime(2024, 1, 1, 10, 0), "2024-01-01T10:00"),
    (dt.datetime(2024, 1, 1, 10, 0, 1), "2024-01-01T10:00:01"),
    (dt.datetime(2024, 1, 1, 10, 0, 2, 100000), "2024-01-01T10:00:02.100"),
    (dt.datetime(2024, 1, 1, 10, 0, 0, 123456), "2024-01-01T10:00:00.123456"),
])
def test_timestamps_print_like_java_local_date_time(value, text):
    assert format_value(value) == text


def test_microseconds_survive_the_json_round_trip():
    value = dt.datetime(2024, 1, 1, 23, 59, 59, 999999)
    encoded = to_json(value)
    # really JSON (a string, not the datetime passed through) and all six digits in it
    assert json.loads(json.dumps(encoded)) == "2024-01-01 23:59:59.999999"
    assert to_python(encoded, parse_type("TIMESTAMP(6)")) == value


def test_parameterized_types_parse_with_not_null_as_they_render():
    from streamplan.types import SqlType, parse_type

    for sql_type in (SqlType("DECIMAL", (10, 2), False), SqlType("TIMESTAMP_LTZ", (3,), False),
                     SqlType("VARCHAR", (5,), True)):
        assert parse_type(sql_type.text) == sql_type
    assert parse_type("decimal( 10 , 2 )  not  null") == SqlType("DECIMAL", (10, 2), False)


def test_a_timestamp_ltz_prints_as_javas_instant_as_flink_prints_it():
    import datetime as dt

    from streamplan.types import parse_type

    ltz = parse_type("TIMESTAMP_LTZ(3)")
    assert format_value(dt.datetime(2020, 4, 15, 8, 0, 9, 999000), ltz) == "2020-04-15T08:00:09.999Z"
    assert format_value(dt.datetime(2020, 4, 15, 8, 0), ltz) == "2020-04-15T08:00:00Z"
    assert format_value(dt.datetime(2020, 4, 15, 8, 0), parse_type("TIMESTAMP(3)")) == "2020-04-15T08:00"


# Composite values as PyFlink 2.3's print sink printed them (Row.toString of the external
# values): arrays in brackets, maps in java.util.HashMap's order, nested rows as +I[...].
def test_composite_values_print_like_flink():
    row_type = parse_type("ROW<a ARRAY<INT>, m MAP<STRING, INT>, r ROW<x STRING, y INT>, "
                          "ar ARRAY<ROW<n STRING>>, d ARRAY<DOUBLE>, ts ARRAY<TIMESTAMP(3)>>")
    value = to_python([[1, 2, None], {"b": 2, "a": 1, "zz": 3, "c": 4}, ["q", 7], [["1"], ["2"]],
                       [1.5, 2.0], ["2024-01-01 10:00:00"]], row_type)
    assert format_value(value, row_type) == (
        "+I[[1, 2, null], {zz=3, a=1, b=2, c=4}, +I[q, 7], [+I[1], +I[2]], [1.5, 2.0], "
        "[2024-01-01T10:00]]")


def test_composite_values_convert_by_their_parts_types():
    assert to_python({"x": "1"}, parse_type("MAP<STRING, INT>")) == {"x": 1}
    assert to_python({"n": "s"}, parse_type("ROW<n STRING, k INT>")) == ("s", None)
    with pytest.raises(ValueError, match="is not a list"):
        to_python("abc", parse_type("ARRAY<STRING>"))
    with pytest.raises(ValueError, match="is not a dict"):
        to_python([1], parse_type("MAP<STRING, INT>"))
    with pytest.raises(ValueError, match="is not a list of 2 value"):
        to_python([1], parse_type("ROW<a INT, b INT>"))
    with pytest.raises(ValueError, match="out of range for INT"):
        to_python([2 ** 40], parse_type("ARRAY<INT>"))


def test_composite_values_round_trip_through_json():
    row_type = parse_type("ROW<a ARRAY<TIMESTAMP(3)>, m MAP<INT, DECIMAL(5,2)>>")
    value = to_python([["2024-01-01 10:00:00.5"], {1: "2.50"}], row_type)
    assert to_python(json.loads(json.dumps(to_json(value))), row_type) == value
