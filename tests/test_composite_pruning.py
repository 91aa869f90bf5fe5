"""A join's (and an over aggregate's) input leaves out the composite columns (ARRAY, MAP, ROW) the query names nowhere,
as Flink prunes unused columns below a join; a composite column the query uses still reaches
the join and is refused by name (a stateful node's Python core holds no composite values).
Temporal and lookup joins: tests/test_temporal_planning.py."""
from __future__ import annotations

import pytest

from streamplan.errors import UnsupportedSqlError

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE T (k INT, v INT, arr ARRAY<INT>, ts TIMESTAMP(3), pt AS PROCTIME(),
  WATERMARK FOR ts AS ts) WITH ('connector' = 'values');
CREATE TABLE U (k INT, w INT, m MAP<STRING, INT>, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts) WITH ('connector' = 'values');
CREATE TABLE A (k INT, arr ARRAY<INT>) WITH ('connector' = 'values');
CREATE TABLE P (k INT, v INT) WITH ('connector' = 'values');
CREATE TABLE S (a INT, b INT, c INT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""


def join_inputs(plan, prefix):
    (join,) = [n for n in plan.nodes if n.type.startswith(prefix)]
    return [list(node.row_type.names) for node in plan.inputs_of(join)], join


def test_a_regular_join_leaves_unused_composite_columns_out_of_both_inputs(env):
    plan = env.compile_sql("INSERT INTO S SELECT T.k, T.v, U.w FROM T JOIN U ON T.k = U.k")
    (left, right), join = join_inputs(plan, "stream-exec-join")
    assert left == ["k", "v", "ts", "pt"] and right == ["k", "w", "ts"]
    assert join.join_spec.left_keys == [0] and join.join_spec.right_keys == [0]


def test_an_interval_join_keeps_its_time_attributes(env):
    plan = env.compile_sql("INSERT INTO S SELECT T.k, T.v, U.w FROM T JOIN U ON T.k = U.k AND "
                           "T.ts BETWEEN U.ts - INTERVAL '1' SECOND AND U.ts")
    (left, right), join = join_inputs(plan, "stream-exec-interval-join")
    assert left == ["k", "v", "ts", "pt"] and right == ["k", "w", "ts"]
    assert [node.row_type.fields[2].rowtime for node in plan.inputs_of(join)] == [True, True]
    assert plan.inputs_of(join)[0].row_type.fields[3].proctime


def test_a_join_without_composite_columns_gets_no_extra_calc(env):
    plan = env.compile_sql("INSERT INTO S SELECT P.k, P.v, Q.v FROM P JOIN P AS Q ON P.k = Q.k")
    _, join = join_inputs(plan, "stream-exec-join")
    assert [node.type for node in plan.inputs_of(join)] == ["stream-exec-table-source-scan_1"] * 2


def test_an_over_aggregate_leaves_unused_composite_columns_out(env):
    plan = env.compile_sql("INSERT INTO S SELECT k, v, CAST(SUM(v) OVER (PARTITION BY k ORDER BY ts "
                           "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS INT) FROM T")
    (over,) = [n for n in plan.nodes if n.type.startswith("stream-exec-over-aggregate")]
    (calc,) = plan.inputs_of(over)
    assert list(calc.row_type.names) == ["k", "v", "ts", "pt"] and calc.row_type.fields[2].rowtime


def test_a_natural_join_keeps_its_composite_columns_and_is_refused_by_name(env):
    with pytest.raises(UnsupportedSqlError, match="column 'arr' of type ARRAY<INT> in the input "
                                                  "of stream-exec-join"):
        env.compile_sql("INSERT INTO S SELECT k, v, v FROM T NATURAL JOIN A")


@pytest.mark.parametrize("select", ["T.k, CARDINALITY(T.arr), U.w", "*"])
def test_a_composite_column_the_query_names_is_still_refused(env, select):
    with pytest.raises(UnsupportedSqlError, match="column 'arr' of type ARRAY<INT> in the input "
                                                  "of stream-exec-join"):
        env.compile_sql(f"INSERT INTO S SELECT {select} FROM T JOIN U ON T.k = U.k")
