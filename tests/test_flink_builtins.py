"""Flink built-ins that Spark spells differently (streamplan/planner/flink_builtins.py): what
each rewrite produces, that the plan loader accepts it, and the calls no rewrite can keep
Flink's result for, refused by name. Their results on Spark against Flink's are the program
calc-flink-builtins (programs/calc.py), run by the gate."""
from __future__ import annotations

import pytest
import sqlglot

from streamplan.errors import UnsupportedSqlError
from streamplan.planner.flink_builtins import spark_builtins
from streamplan.sql.expressions import parse_plan_expression


def rewritten(text: str) -> str:
    return spark_builtins(sqlglot.parse_one(text, read="spark"), "<test>").sql(dialect="spark")


@pytest.mark.parametrize("flink, spark", [
    ("FLOOR(ts TO HOUR)", "DATE_TRUNC('HOUR', ts)"),
    ("CEIL(ts TO DAY)", "CASE WHEN DATE_TRUNC('DAY', ts) = ts THEN DATE_TRUNC('DAY', ts) "
                        "ELSE DATE_ADD(DAY, 1, DATE_TRUNC('DAY', ts)) END"),
    ("WEEK(d)", "WEEKOFYEAR(d)"),
    ("SPLIT_INDEX(s, 'a.b', i)", "CASE WHEN i < 0 OR s = '' THEN NULL ELSE "
                                 "TRY_ELEMENT_AT(SPLIT(s, '\\\\Qa.b\\\\E', -1), i + 1) END"),
    ("FLOOR(x)", "FLOOR(x)"),               # the numeric FLOOR is Spark's own
    ("GREATEST(a, b)", "CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE GREATEST(a, b) END"),
    ("LEAST(a, 2, c)", "CASE WHEN a IS NULL OR 2 IS NULL OR c IS NULL THEN NULL "
                       "ELSE LEAST(a, 2, c) END"),
    ("TIMESTAMPDIFF(SECOND, a, b)", "CAST(TIMESTAMPDIFF(SECOND, a, b) AS INT)"),
    # a call inside another's argument is rewritten too
    ("EXTRACT(HOUR FROM FLOOR(ts TO DAY))",
     "CAST(EXTRACT(HOUR FROM DATE_TRUNC('DAY', ts)) AS BIGINT)"),
    ("GREATEST(LEAST(a, b), c)",
     "CASE WHEN CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE LEAST(a, b) END IS NULL "
     "OR c IS NULL THEN NULL ELSE GREATEST(CASE WHEN a IS NULL OR b IS NULL THEN NULL "
     "ELSE LEAST(a, b) END, c) END"),
])
def test_each_rewrite_is_spark_sql_the_plan_loader_accepts(flink, spark):
    assert rewritten(flink) == spark
    parse_plan_expression(spark)


def test_a_timestamp_column_cast_to_string_keeps_its_precision_and_extract_is_a_bigint():
    from streamplan.types import Field, RowType, parse_type

    row = RowType((Field("t", parse_type("TIMESTAMP(3)")), Field("s", parse_type("TIMESTAMP(0)")),
                   Field("k", parse_type("INT"))))

    def over_row(text: str) -> str:
        return spark_builtins(sqlglot.parse_one(text, read="spark"), "<test>", row).sql("spark")

    assert over_row("CAST(`t` AS STRING)") == "DATE_FORMAT(`t`, 'yyyy-MM-dd HH:mm:ss.SSS')"
    assert over_row("CAST(`s` AS VARCHAR)") == "DATE_FORMAT(`s`, 'yyyy-MM-dd HH:mm:ss')"
    assert over_row("CAST(`k` AS STRING)") == "CAST(`k` AS STRING)"
    assert over_row("CAST(EXTRACT(SECOND FROM `t`) AS DOUBLE)") == \
        "CAST(CAST(EXTRACT(SECOND FROM `t`) AS BIGINT) AS DOUBLE)"
    assert over_row("CAST(EXTRACT(HOUR FROM `t`) AS BIGINT)") == \
        "CAST(EXTRACT(HOUR FROM `t`) AS BIGINT)"
    parse_plan_expression(over_row("CAST(`t` AS STRING)"))


def test_a_separator_holding_the_regex_quote_end_stays_literal():
    # \E inside the separator closes the quote; it is split out and quoted on its own
    assert "'\\\\Qa\\\\E\\\\\\\\E\\\\Qb\\\\E'" in rewritten("SPLIT_INDEX(s, 'a\\\\Eb', 0)")


@pytest.mark.parametrize("text, construct", [
    ("FLOOR(ts TO WEEK)", "FLOOR(... TO WEEK)"),
    ("CEIL(ts TO WEEK)", "CEIL(... TO WEEK)"),
    ("SPLIT_INDEX(s, sep, 0)", "SPLIT_INDEX with a separator that is not a non-empty string"),
    ("SPLIT_INDEX(s, '', 0)", "SPLIT_INDEX with a separator that is not a non-empty string"),
    ("SPLIT_INDEX(s, ',')", "SPLIT_INDEX with 2 arguments"),
])
def test_calls_no_rewrite_keeps_are_refused_with_their_place(text, construct):
    with pytest.raises(UnsupportedSqlError, match=r"at <test>") as info:
        rewritten(text)
    assert info.value.construct.startswith(construct)


@pytest.mark.parametrize("flink", ["GREATEST(a, LEAST(b, 1))", "TIMESTAMPDIFF(DAY, a, b)",
                                   "EXTRACT(SECOND FROM ts)", "CEIL(ts TO HOUR)"])
def test_rewriting_a_rewritten_expression_changes_nothing(flink):
    once = rewritten(flink)
    assert rewritten(once) == once
