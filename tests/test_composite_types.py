"""ARRAY, MAP and ROW column types: canonical text, Spark types both ways, and the order in
which Flink's HashMap of a MAP value iterates its keys."""
from __future__ import annotations

import pytest
from pyspark.sql import types as T

from streamplan.nodes.correlate import unnest_generator
from streamplan.runtime.java_hash_order import java_hash_code, java_map_order
from streamplan.types import from_spark, parse_row_type, parse_type


@pytest.mark.parametrize("text, canonical, spark", [
    ("array<int>", "ARRAY<INT>", "array<int>"),
    ("ARRAY<ROW<nested VARCHAR>>", "ARRAY<ROW<`nested` STRING>>", "array<struct<nested:string>>"),
    ("MAP<STRING, INT NOT NULL> NOT NULL", "MAP<STRING, INT NOT NULL> NOT NULL", "map<string,int>"),
    ("ROW<`a b` INT, c ARRAY<DOUBLE>>", "ROW<`a b` INT, `c` ARRAY<DOUBLE>>",
     "struct<a b:int,c:array<double>>"),
])
def test_composite_types_parse_render_and_map_to_spark(text, canonical, spark):
    sql_type = parse_type(text)
    assert sql_type.text == canonical and parse_type(canonical) == sql_type
    assert sql_type.to_spark().simpleString() == spark
    assert from_spark(sql_type.to_spark()).with_nullable(sql_type.nullable).text.replace(
        " NOT NULL>", ">") == canonical.replace(" NOT NULL>", ">")


def test_row_types_hold_composite_fields():
    row = parse_row_type("ROW<`name` STRING, `arr` ARRAY<ROW<`nested` STRING, `n` INT>>>")
    assert row.names == ["name", "arr"]
    assert row.fields[1].type.children[0].children == (("nested", parse_type("STRING")),
                                                      ("n", parse_type("INT")))


@pytest.mark.parametrize("text, problem", [
    ("ARRAY<INT, INT>", "ARRAY takes 1 type"), ("MAP<INT>", "MAP takes 2 type"),
    ("ROW<a INT, a INT>", "must differ"), ("ROW<>", "at least one field"),
    ("SET<INT>", "not a supported type"), ("ARRAY<FOO>", "not a supported type"),
])
def test_bad_composite_types_are_value_errors(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_type(text)


def test_java_hash_codes_and_map_order():
    # String.hashCode of "zz" (122 * 31 + 122), Long.hashCode, Boolean.hashCode
    assert java_hash_code("zz", "STRING") == 3904
    assert java_hash_code(-1, "BIGINT") == 0 and java_hash_code(True, "BOOLEAN") == 1231
    keys = ["b", "a", "zz", "c"]
    assert [keys[i] for i in java_map_order(keys, "STRING")] == ["zz", "a", "b", "c"]
    assert java_map_order([3, 1, 2], "DECIMAL") == [0, 1, 2]      # not covered: as inserted


def test_unnest_generator_spreads_each_kind_of_collection():
    rows = T.ArrayType(T.StructType([T.StructField("s", T.StringType()),
                                     T.StructField("n", T.IntegerType())]))
    assert unnest_generator("`lines`", rows, ["s", "n"], False, False) == (
        "inline(transform(`lines`, (__e, __i) -> struct(__e.`s`, __e.`n`))) AS (`s`, `n`)")
    assert unnest_generator("`tags`", T.ArrayType(T.StringType()), ["t", "o"], True, True) == (
        "inline_outer(transform(`tags`, (__e, __i) -> struct(__e, __i + 1))) AS (`t`, `o`)")
    assert unnest_generator("`m`", T.MapType(T.StringType(), T.IntegerType()), ["k", "v"],
                            False, False) == ("inline(transform(map_entries(`m`), (__e, __i) -> "
                                              "struct(__e.key, __e.value))) AS (`k`, `v`)")
    assert unnest_generator("`tags`", T.ArrayType(T.StringType()), ["a", "b"], False, False) \
        is None
    assert unnest_generator("`n`", T.IntegerType(), ["a"], False, False) is None
