"""Planning temporal joins and temporal sorts as Flink plans them: a left key expression
computed in front of the join, WHERE conjuncts taken into an inner join's condition, the
sort over FROM with the SELECT list after it, and what is refused by name."""
from __future__ import annotations

import pytest

from streamplan.api import TableEnvironment
from streamplan.errors import ChangelogModeError, UnsupportedSqlError

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE Orders (id INT, k STRING, ot TIMESTAMP(3), pt AS PROCTIME(),
  WATERMARK FOR ot AS ot) WITH ('connector' = 'values');
CREATE TABLE Rates (k STRING, rate INT, rt TIMESTAMP(3), WATERMARK FOR rt AS rt,
  PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'values', 'changelog-mode' = 'I,UA,D');
CREATE TABLE Changes (id INT, k STRING, ot TIMESTAMP(3), WATERMARK FOR ot AS ot,
  PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'values', 'changelog-mode' = 'I,UA,D');
CREATE TABLE Out (id INT, rate INT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""


@pytest.fixture()
def env(spark):
    environment = TableEnvironment(spark=spark)
    environment.execute_sql(DDL)
    return environment


def node(plan, prefix):
    (found,) = [n for n in plan.nodes if n.type.startswith(prefix)]
    return found


def test_a_left_key_expression_is_computed_in_front_of_the_join(env):
    plan = env.compile_sql("INSERT INTO Out SELECT o.id, r.rate FROM Orders AS o JOIN Rates FOR "
                           "SYSTEM_TIME AS OF o.ot AS r ON UPPER(o.k) = r.k")
    join = node(plan, "stream-exec-temporal-join_1")
    (left, _) = plan.inputs_of(join)
    assert left.type.startswith("stream-exec-calc") and left.row_type.names[-1] == "$f4"
    assert join.join_spec.left_keys == [4] and join.join_spec.right_keys == [0]
    assert join.left_time_attribute_index == 2 and join.right_time_attribute_index == 2
    # the upsert source's changelog normalize stays (the watermark assigner over it asks for
    # -U rows); the join skips them (core test)
    assert node(plan, "stream-exec-changelog-normalize").generate_update_before


def test_where_conjuncts_join_an_inner_temporal_join(env):
    plan = env.compile_sql("INSERT INTO Out SELECT o.id, r.rate FROM Orders AS o, Rates FOR "
                           "SYSTEM_TIME AS OF o.ot AS r WHERE o.k = r.k AND o.id < r.rate")
    join = node(plan, "stream-exec-temporal-join_1")
    assert join.join_spec.left_keys == [1] and join.join_spec.non_equi_condition == "`id` < `rate`"


def test_the_temporal_sort_sorts_the_from_clause_and_projects_after_it(env):
    plan = env.compile_sql("INSERT INTO Out SELECT id, id FROM Orders WHERE id > 0 ORDER BY ot, k "
                           "DESC")
    sort = node(plan, "stream-exec-temporal-sort_1")
    assert [(f.index, f.is_ascending, f.null_is_last) for f in sort.order_by.fields] == [
        (2, True, False), (1, False, True)]
    assert sort.row_type.fields[2].rowtime                  # the filter kept the time attribute


@pytest.mark.parametrize("sql, error, message", [
    ("INSERT INTO Out SELECT id, id FROM Orders ORDER BY ot DESC", UnsupportedSqlError,
     "ORDER BY without LIMIT on anything but a time attribute ascending"),
    ("INSERT INTO Out SELECT id, id FROM Orders ORDER BY pt, id", UnsupportedSqlError,
     "ProcTimeSortOperator"),
    ("INSERT INTO Out SELECT c.id, r.rate FROM Changes AS c JOIN Rates FOR SYSTEM_TIME AS OF "
     "c.ot AS r ON c.k = r.k", ChangelogModeError, "Temporal join node"),
    ("INSERT INTO Out SELECT o.id, r.rate FROM Orders AS o JOIN Rates FOR SYSTEM_TIME AS OF o.pt "
     "AS r ON o.k = r.k", UnsupportedSqlError, "stream-exec-lookup-join"),
    ("INSERT INTO Out SELECT r.rate, r.rate FROM Rates FOR SYSTEM_TIME AS OF TIMESTAMP "
     "'2024-01-01 00:00:00' AS r", UnsupportedSqlError, "outside a join"),
])
def test_what_the_nodes_cannot_run_is_refused_by_name(env, sql, error, message):
    with pytest.raises(error, match=message):
        env.compile_sql(sql)
