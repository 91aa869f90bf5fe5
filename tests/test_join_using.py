"""JOIN ... USING (c, ...) and NATURAL JOIN planned as Flink 2.3 plans them: the ON join of
the common columns, `*` with each common column once and first, an unqualified common column
the merged one (COALESCE in a FULL join, the left's or right's column where Flink's optimizer
reduces the COALESCE), and the refusals with Flink's reasons. PyFlink 2.3's schemas and plans
are quoted where a test checks them."""
from __future__ import annotations

import pytest

from streamplan.errors import PlanningError, UnsupportedSqlError

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE A (k INT NOT NULL, v STRING, n INT) WITH ('connector' = 'values');
CREATE TABLE B (k INT NOT NULL, w STRING, n INT) WITH ('connector' = 'values');
CREATE TABLE C (k BIGINT NOT NULL, x STRING) WITH ('connector' = 'values');
CREATE TABLE D (k STRING, y STRING) WITH ('connector' = 'values');
CREATE TABLE S5 (k INT, v STRING, n INT, w STRING, n0 INT)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE S4 (k BIGINT, a STRING, b STRING, c STRING)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE S3 (k INT, a INT, b INT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""


def node(plan, prefix):
    (found,) = [n for n in plan.nodes if n.type.startswith(prefix)]
    return found


def top_calc(plan):
    return [n for n in plan.nodes if n.type.startswith("stream-exec-calc")][-1]


def test_inner_using_joins_on_the_column_and_lists_it_once_first(env):
    # Flink 2.3: k INT NOT NULL, v, n, w, n0; Calc(select=[k, v, n, w, n0]) over
    # Join(joinType=[InnerJoin], where=[(k = k0)], select=[k, v, n, k0, w, n0])
    plan = env.compile_sql("INSERT INTO S5 SELECT * FROM A JOIN B USING (k)")
    join = node(plan, "stream-exec-join")
    assert join.join_spec.left_keys == [0] and join.join_spec.right_keys == [0]
    assert join.join_spec.non_equi_condition is None
    assert join.description.startswith("Join(joinType=[InnerJoin], where=[A.k = B.k], "
                                       "select=[k, v, n, k0, w, n0]")
    calc = top_calc(plan)
    assert calc.projection == ["`k`", "`v`", "`n`", "`w`", "`n0`"]
    assert calc.output_type.startswith("ROW<`k` INT NOT NULL, `v` STRING, `n` INT, `w` STRING")


@pytest.mark.parametrize("side, merged", [
    ("LEFT", "`k`"),                      # Flink: Calc(select=[k, ...])
    ("RIGHT", "`k0`"),                    # Flink: Calc(select=[k0 AS k, ...])
    ("FULL", "COALESCE(`k`, `k0`)"),      # Flink: Calc(select=[COALESCE(k, k0) AS k, ...])
])
def test_the_merged_column_of_an_outer_join_is_flinks(env, side, merged):
    plan = env.compile_sql(f"INSERT INTO S5 SELECT * FROM A {side} JOIN B USING (k)")
    assert node(plan, "stream-exec-join").description.startswith(
        f"Join(joinType=[{side.title()}OuterJoin], where=[A.k = B.k]")
    calc = top_calc(plan)
    assert calc.projection[0] == merged and calc.projection[1:] == ["`v`", "`n`", "`w`", "`n0`"]
    nullable = side == "FULL"            # Flink: k INT (FULL), k INT NOT NULL (LEFT, RIGHT)
    assert calc.output_type.startswith("ROW<`k` INT" + ("," if nullable else " NOT NULL,"))


def test_qualified_columns_are_each_sides_and_the_unqualified_one_is_merged(env):
    # Flink 2.3, FULL: Calc(select=[COALESCE(k, k0) AS k, k AS k0, k0 AS k1])
    plan = env.compile_sql("INSERT INTO S3 SELECT k, A.k, B.k FROM A FULL JOIN B USING (k)")
    assert top_calc(plan).projection == ["COALESCE(`k`, `k0`)", "`k`", "`k0`"]


def test_natural_join_uses_every_common_column_and_two_using_columns_alike(env):
    # Flink 2.3: k, n, v, w; Join(... where=[((k = k0) AND (n = n0))])
    for sql in ("SELECT k, v, w, CAST(n AS STRING) FROM A NATURAL JOIN B",
                "SELECT k, v, w, CAST(n AS STRING) FROM A JOIN B USING (k, n)",
                "SELECT k, v, w, CAST(n AS STRING) FROM A JOIN B USING (k, n, k)"):
        plan = env.compile_sql(f"INSERT INTO S4 {sql}")
        join = node(plan, "stream-exec-join")
        assert join.join_spec.left_keys == [0, 2] and join.join_spec.right_keys == [0, 2]
    plan = env.compile_sql("INSERT INTO S4 SELECT k, CAST(n AS STRING), v, w FROM A NATURAL "
                           "FULL JOIN B")
    assert top_calc(plan).projection[:2] == ["CAST(COALESCE(`k`, `k0`) AS BIGINT)",
                                             "CAST(COALESCE(`n`, `n0`) AS STRING)"]


def test_star_of_a_natural_join_lists_the_common_columns_first(env):
    env.execute_sql("CREATE TABLE S4n (k INT, n INT, v STRING, w STRING) "
                    "WITH ('connector' = 'values', 'sink-insert-only' = 'false')")
    plan = env.compile_sql("INSERT INTO S4n SELECT * FROM A NATURAL RIGHT JOIN B")
    # Flink 2.3: Calc(select=[k0 AS k, n0 AS n, v, w])
    assert top_calc(plan).projection == ["`k0`", "`n0`", "`v`", "`w`"]


def test_natural_join_without_a_common_column_is_a_cross_join(env):
    env.execute_sql("CREATE TABLE E (z INT, y STRING) WITH ('connector' = 'values')")
    env.execute_sql("CREATE TABLE S5e (k INT, v STRING, n INT, z INT, y STRING) "
                    "WITH ('connector' = 'values', 'sink-insert-only' = 'false')")
    plan = env.compile_sql("INSERT INTO S5e SELECT * FROM A NATURAL JOIN E")
    join = node(plan, "stream-exec-join")      # Flink 2.3: Join(... where=[true] ...)
    assert join.join_spec.left_keys == [] and join.join_spec.right_keys == []


def test_a_using_column_of_two_numeric_types_is_their_common_type(env):
    # Flink 2.3: k BIGINT NOT NULL; Calc(select=[CAST(k AS BIGINT) AS k, v, n, x])
    env.execute_sql("CREATE TABLE S4c (k BIGINT NOT NULL, v STRING, n INT, x STRING) "
                    "WITH ('connector' = 'values', 'sink-insert-only' = 'false')")
    plan = env.compile_sql("INSERT INTO S4c SELECT * FROM A JOIN C USING (k)")
    join = node(plan, "stream-exec-join")
    assert join.join_spec.left_keys == [0] and join.join_spec.right_keys == [0]
    calc = top_calc(plan)
    assert calc.projection[0] == "COALESCE(`k`, `k0`)"
    assert calc.output_type.startswith("ROW<`k` BIGINT NOT NULL")


def test_a_chain_of_using_joins_joins_on_the_merged_column(env):
    # Flink 2.3: SELECT * FROM a JOIN b USING (k) JOIN c USING (k) is k, v, n, w, n0, x
    env.execute_sql("CREATE TABLE S6 (k BIGINT, v STRING, n INT, w STRING, n0 INT, x STRING) "
                    "WITH ('connector' = 'values', 'sink-insert-only' = 'false')")
    plan = env.compile_sql("INSERT INTO S6 SELECT * FROM A JOIN B USING (k) JOIN C USING (k)")
    second = [n for n in plan.nodes if n.type.startswith("stream-exec-join")][-1]
    assert second.description.startswith("Join(joinType=[InnerJoin], where=[A.k = C.k]")
    assert top_calc(plan).projection == ["COALESCE(`k`, `k1`)", "`v`", "`n`", "`w`", "`n0`",
                                         "`x`"]


def test_group_by_the_unqualified_column_groups_by_the_merged_one(env):
    plan = env.compile_sql("INSERT INTO S3 SELECT k, CAST(COUNT(*) AS INT), 0 FROM A FULL JOIN B "
                           "USING (k) GROUP BY k")
    assert node(plan, "stream-exec-group-aggregate").grouping == [0]
    below = plan.inputs_of(node(plan, "stream-exec-group-aggregate"))[0]
    assert below.projection == ["COALESCE(`k`, `k0`)"]


@pytest.mark.parametrize("clause", ["WHERE k > 1", "GROUP BY A.k, B.k HAVING k > 1"])
def test_an_unqualified_common_column_in_where_or_having_is_ambiguous_as_in_flink(env, clause):
    # Flink 2.3: "Column 'k' is ambiguous" in both
    select = "A.k, 0, 0" if "GROUP" in clause else "A.k, A.n, B.n"
    with pytest.raises(PlanningError, match="column 'k' is ambiguous"):
        env.compile_sql(f"INSERT INTO S3 SELECT {select} FROM A JOIN B USING (k) {clause}")


@pytest.mark.parametrize("sql, message", [
    # Flink 2.3: "Column 'zz' not found in any table"
    ("SELECT * FROM A JOIN B USING (zz)",
     r"USING column 'zz' is not a column of the join's left side \(A\) \(its columns: k, v, "
     r"n\); Flink: Column 'zz' not found in any table"),
    # Flink 2.3: "Column 'v' not found in any table"
    ("SELECT * FROM A JOIN B USING (v)",
     r"USING column 'v' is not a column of the join's right side \(B\) \(its columns: k, w, "
     r"n\)"),
    # identifiers are case-sensitive: Flink 2.3: "Column 'K' not found in any table"
    ("SELECT * FROM A JOIN B USING (K)", r"USING column 'K' is not a column of the join's left"),
    # Flink 2.3: "implicit type conversion between INTEGER and CHAR(1) is not supported on
    # join's condition now"
    ("SELECT * FROM A JOIN D USING (k)",
     r"USING column 'k' is INT NOT NULL on the join's left side \(A\) and STRING on its right "
     r"side \(D\): Flink refuses the join"),
    ("SELECT * FROM A, B NATURAL JOIN C",
     r"NATURAL column 'k' is ambiguous on the join's left side"),
])
def test_refused_using_columns_name_the_column_and_the_side(env, sql, message):
    with pytest.raises(PlanningError, match=message):
        env.compile_sql(f"INSERT INTO S5 {sql}")


def test_cross_join_with_using_is_refused_with_calcites_reason(env):
    with pytest.raises(UnsupportedSqlError, match="CROSS JOIN with USING.*Cannot specify "
                                                  "condition"):
        env.compile_sql("INSERT INTO S5 SELECT * FROM A CROSS JOIN B USING (k)")


def test_using_on_a_full_joins_merged_column_is_refused_by_name(env):
    with pytest.raises(UnsupportedSqlError, match="USING on 'k', the merged COALESCE column"):
        env.compile_sql("INSERT INTO S4 SELECT k, v, w, x FROM A FULL JOIN B USING (k) "
                        "JOIN C USING (k)")


def test_plans_without_using_are_unchanged_by_the_rule(env):
    plan = env.compile_sql("INSERT INTO S5 SELECT A.* , B.w, B.n FROM A JOIN B ON A.k = B.k")
    assert top_calc(plan).projection == ["`k`", "`v`", "`n`", "`w`", "`n0`"]
    env.execute_sql("CREATE TABLE S6 (k INT, v STRING, n INT, k0 INT, w STRING, n0 INT) "
                    "WITH ('connector' = 'values', 'sink-insert-only' = 'false')")
    plan = env.compile_sql("INSERT INTO S6 SELECT * FROM A JOIN B ON A.k = B.k")
    assert not [n for n in plan.nodes if n.type.startswith("stream-exec-calc")]
