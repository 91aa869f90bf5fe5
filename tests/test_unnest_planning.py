"""Planning UNNEST as Flink plans it (stream-exec-correlate running $UNNEST_ROWS$1): the
columns each kind of collection gives, their names and types, and what is refused; composite
columns stop, by name, before a node whose Python core cannot hold them."""
from __future__ import annotations

import pytest

from streamplan.errors import PlanningError, UnsupportedSqlError

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE T (id INT, tags ARRAY<STRING>, m MAP<STRING, INT>,
                lines ARRAY<ROW<sku STRING, n INT NOT NULL>>, k STRING)
  WITH ('connector' = 'values');
CREATE TABLE Out (id INT, a STRING, b INT) WITH ('connector' = 'values');
CREATE TABLE Out1 (id INT, a STRING) WITH ('connector' = 'values');
CREATE TABLE Agg (tags ARRAY<STRING>, c BIGINT) WITH ('connector' = 'values',
                                                      'sink-insert-only' = 'false');
"""


def correlate(plan):
    (node,) = [n for n in plan.nodes if n.type == "stream-exec-correlate_1"]
    return node


@pytest.mark.parametrize("sql, builtin, join_type, added", [
    ("INSERT INTO Out1 SELECT id, x FROM T CROSS JOIN UNNEST(tags) AS u(x)", "$UNNEST_ROWS$1",
     "INNER", "`x` STRING"),
    ("INSERT INTO Out1 SELECT id, `EXPR$0` FROM T, UNNEST(T.tags)", "$UNNEST_ROWS$1", "INNER",
     "`EXPR$0` STRING"),
    ("INSERT INTO Out SELECT id, KEY, VALUE FROM T LEFT JOIN UNNEST(m) ON TRUE",
     "$UNNEST_ROWS$1", "LEFT", "`KEY` STRING, `VALUE` INT"),
    ("INSERT INTO Out SELECT id, sku, n FROM T CROSS JOIN UNNEST(lines)", "$UNNEST_ROWS$1",
     "INNER", "`sku` STRING, `n` INT"),
    ("INSERT INTO Out SELECT id, x, o FROM T CROSS JOIN UNNEST(tags) WITH ORDINALITY AS u(x, o)",
     "$UNNEST_ROWS_WITH_ORDINALITY$1", "INNER", "`x` STRING, `o` INT NOT NULL"),
])
def test_unnest_is_a_correlate_of_the_builtin(env, sql, builtin, join_type, added):
    node = correlate(env.compile_sql(sql))
    assert (node.builtin, node.function, node.join_type) == (builtin, None, join_type)
    assert node.output_type.endswith(f"`k` STRING, {added}>")


@pytest.mark.parametrize("sql, error, message", [
    ("INSERT INTO Out1 SELECT id, x FROM T CROSS JOIN UNNEST(k) AS u(x)", PlanningError,
     "the argument is a STRING, not an ARRAY or a MAP"),
    ("INSERT INTO Out1 SELECT id, x FROM T CROSS JOIN UNNEST(m) AS u(x)", PlanningError,
     r"names 1 column\(s\); UNNEST of a MAP<STRING, INT> gives 2"),
    ("INSERT INTO Out1 SELECT id, x FROM T LEFT JOIN UNNEST(tags) AS u(x) ON x = 'a'",
     UnsupportedSqlError, "LEFT JOIN UNNEST\\(...\\) with a condition other than ON TRUE"),
    ("INSERT INTO Agg SELECT tags, COUNT(*) FROM T GROUP BY tags", UnsupportedSqlError,
     "column 'tags' of type ARRAY<STRING> in the input of stream-exec-group-aggregate"),
])
def test_unnest_and_composite_columns_refused_by_name(env, sql, error, message):
    with pytest.raises(error, match=message):
        env.compile_sql(sql)


def test_a_stateful_node_takes_what_a_calc_takes_out_of_a_collection(env):
    env.execute_sql("CREATE TABLE Cnt (k STRING, c BIGINT) WITH ('connector' = 'values', "
                    "'sink-insert-only' = 'false')")
    plan = env.compile_sql("INSERT INTO Cnt SELECT k, SUM(CARDINALITY(tags)) FROM T GROUP BY k")
    assert any(n.type == "stream-exec-group-aggregate_2" for n in plan.nodes)


def test_a_map_subscript_is_a_key_lookup_and_an_array_subscript_counts_from_one(env):
    env.execute_sql("CREATE TABLE Sub (a INT, b STRING) WITH ('connector' = 'values')")
    plan = env.compile_sql("INSERT INTO Sub SELECT m['x'], tags[1] FROM T")
    (calc,) = [n for n in plan.nodes if n.type == "stream-exec-calc_1"]
    assert calc.projection[0] == "`m`['x']"
    assert calc.projection[1] == "TRY_ELEMENT_AT(`tags`, 1)"


def test_collection_access_runs_as_flink(spark):
    """Subscripts and CARDINALITY over NULL, empty and filled collections, as PyFlink 2.3 gives
    them (arr[i] past the end and a missing key are NULL; CARDINALITY of NULL is NULL)."""
    from harness.program import SinkTestStep, SourceTestStep, TableTestProgram
    from harness.runner import run_semantic

    program = (
        TableTestProgram.of("correlate-collection-access", "subscripts and CARDINALITY")
        .setup_table_source(SourceTestStep.new_builder("o")
                            .add_schema("id INT", "tags ARRAY<STRING>", "m MAP<STRING, INT>")
                            .producing_before_restore([1, ["x", None], {"p": 1}], [2, None, None])
                            .producing_after_restore([3, [], {}]).build())
        .setup_table_sink(SinkTestStep.new_builder("s")
                          .add_schema("id INT", "t STRING", "t3 STRING", "v INT", "w INT",
                                      "n INT", "c INT")
                          .consuming_before_restore("+I[1, x, null, 1, null, 2, 1]",
                                                    "+I[2, null, null, null, null, null, null]")
                          .consuming_after_restore("+I[3, null, null, null, null, 0, 0]").build())
        .run_sql("INSERT INTO s SELECT id, tags[1], tags[3], m['p'], m['zz'], CARDINALITY(tags), "
                 "CARDINALITY(m) FROM o")
        .build())
    run_semantic(program, spark)


def test_row_fields_are_named_as_calcite_names_them(spark):
    """r.f, t.r.f and r.g.h read a ROW column's fields, NULL under a NULL row; a select list
    names them by their last field (PyFlink 2.3's schema: f, f0, h, h0), so an outer query
    reads them by that name."""
    from harness.program import SinkTestStep, SourceTestStep, TableTestProgram
    from harness.runner import run_semantic

    program = (
        TableTestProgram.of("correlate-row-fields", "fields of a ROW column")
        .setup_table_source(SourceTestStep.new_builder("o")
                            .add_schema("id INT", "r ROW<f STRING, g ROW<h INT>>")
                            .producing_before_restore([1, ["a", [5]]], [2, None])
                            .producing_after_restore([3, [None, None]]).build())
        .setup_table_sink(SinkTestStep.new_builder("s")
                          .add_schema("a STRING", "b STRING", "c INT", "d INT")
                          .consuming_before_restore("+I[a, a, 5, 5]", "+I[null, null, null, null]")
                          .consuming_after_restore("+I[null, null, null, null]").build())
        .setup_table_sink(SinkTestStep.new_builder("s2").add_schema("id INT", "u STRING")
                          .consuming_before_restore("+I[1, A]").consuming_after_restore().build())
        .run_statement_set("INSERT INTO s SELECT r.f, o.r.f, r.g.h, o.r.g.h FROM o",
                           "INSERT INTO s2 SELECT id, UPPER(f) FROM (SELECT id, r.f, r.g.h FROM o) "
                           "WHERE h > 1")
        .build())
    run_semantic(program, spark)


def test_a_sink_that_materializes_upserts_refuses_composite_columns(env):
    # an updating input without the sink's key: the sink materializes (ON CONFLICT)
    env.execute_sql("CREATE TABLE Keyed (k STRING, tags ARRAY<STRING>, PRIMARY KEY (k) NOT "
                    "ENFORCED) WITH ('connector' = 'values', 'sink-insert-only' = 'false');"
                    "CREATE TABLE Changes (k STRING, tags ARRAY<STRING>) WITH ("
                    "'connector' = 'values', 'changelog-mode' = 'I,UB,UA,D')")
    with pytest.raises(UnsupportedSqlError, match="column 'tags' of type ARRAY<STRING> in the "
                                                  "input of stream-exec-sink's upsert "
                                                  "materializer"):
        env.compile_sql("INSERT INTO Keyed SELECT k, tags FROM Changes ON CONFLICT DO DEDUPLICATE")
