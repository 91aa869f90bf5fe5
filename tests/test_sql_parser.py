"""Unit tests of the SQL front end: statement model, positions and error locations."""
from __future__ import annotations

import pytest
from sqlglot import exp

from streamplan.errors import SqlSyntaxError, UnsupportedSqlError
from streamplan.sql.ast import (
    ColumnDef, CompilePlan, CreateTable, ExecutePlan, ExplainPlan, Hint, Insert, Position,
    SetOption, StatementSet, WatermarkDef,
)
from streamplan.sql.parser import parse_script, parse_statement
from streamplan.types import SqlType, parse_type


def pos(line: int, column: int, source: str = "<script>") -> Position:
    return Position(line, column, source)


def syntax_error(text: str) -> SqlSyntaxError:
    with pytest.raises(SqlSyntaxError) as info:
        parse_script(text)
    return info.value


def text_at(text: str, line: int, column: int) -> str:
    """The script text from a 1-based error position on: shows what the position points at."""
    return text.splitlines()[line - 1][column - 1:]


def unsupported(text: str) -> UnsupportedSqlError:
    with pytest.raises(UnsupportedSqlError) as info:
        parse_script(text)
    return info.value


FULL_SCRIPT = """\
-- a complete job
SET 'table.exec.state.ttl' = '1 h';

CREATE TABLE orders (
  order_id BIGINT NOT NULL,
  `amount` DECIMAL(10, 2),
  ts TIMESTAMP(3),
  doubled AS amount * 2,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders'
);

CREATE TABLE totals (
  order_id BIGINT,
  total DECIMAL(10,2),
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH ('connector' = 'upsert-kafka');

INSERT INTO totals
SELECT /*+ EARLY_FIRE('delay'='5s', 'time_mode'='rowtime') */ order_id, SUM(amount)
FROM orders GROUP BY order_id;
"""


def test_full_script_produces_the_expected_model():
    statements = parse_script(FULL_SCRIPT, source="job.sql")
    assert [type(s) for s in statements] == [SetOption, CreateTable, CreateTable, Insert]
    assert statements[0] == SetOption("table.exec.state.ttl", "1 h", pos(2, 1, "job.sql"))

    orders = statements[1]
    assert orders.name == "orders"
    assert orders.position == pos(4, 1, "job.sql")
    assert orders.columns[:3] == (
        ColumnDef("order_id", "BIGINT", nullable=False, position=pos(5, 3, "job.sql")),
        ColumnDef("amount", "DECIMAL(10,2)", position=pos(6, 3, "job.sql")),
        ColumnDef("ts", "TIMESTAMP(3)", position=pos(7, 3, "job.sql")),
    )
    doubled = orders.columns[3]
    assert (doubled.name, doubled.type_text, doubled.position) == ("doubled", None, pos(8, 3, "job.sql"))
    assert doubled.computed.sql("spark") == "amount * 2"
    assert orders.watermark == WatermarkDef("ts", 5000, "ts - INTERVAL '5' SECOND", pos(9, 3, "job.sql"))
    assert orders.primary_key is None
    assert orders.options == {"connector": "kafka", "topic": "orders"}

    totals = statements[2]
    assert totals == CreateTable(
        name="totals",
        columns=(ColumnDef("order_id", "BIGINT", nullable=False, position=pos(16, 3, "job.sql")),
                 ColumnDef("total", "DECIMAL(10,2)", position=pos(17, 3, "job.sql"))),
        watermark=None,
        primary_key=("order_id",),
        options={"connector": "upsert-kafka"},
        position=pos(15, 1, "job.sql"),
    )

    insert = statements[3]
    assert insert.target == "totals"
    assert insert.position == pos(21, 1, "job.sql")
    assert insert.hints == (Hint("EARLY_FIRE", {"delay": "5s", "time_mode": "rowtime"}, pos(22, 8, "job.sql")),)
    assert isinstance(insert.query, exp.Select)
    assert insert.query.args.get("hint") is None
    assert insert.query.sql("spark") == "SELECT order_id, SUM(amount) FROM orders GROUP BY order_id"
    assert insert.text.startswith("INSERT INTO totals\nSELECT /*+ EARLY_FIRE(")
    assert insert.text.endswith("GROUP BY order_id")


def test_statement_positions_are_relative_to_the_whole_script():
    script = "  SET 'a' = 'b';\n\n/* comment ; */ SET 'c' = 'd'; SET 'e' = 'f'\n"
    assert [s.position for s in parse_script(script)] == [pos(1, 3), pos(3, 17), pos(3, 32)]


def test_semicolons_inside_strings_identifiers_and_comments_do_not_split():
    script = """
    SET 'k' = 'a;b';            -- trailing; comment
    /* block ; comment */
    CREATE TABLE `t;1` (`c;` STRING) WITH ('p' = 'it''s; fine');
    INSERT INTO x SELECT /*+ H('k'=';') */ 'x;y' AS v FROM `t;1`;
    """
    set_option, table, insert = parse_script(script)
    assert set_option.value == "a;b"
    assert table.name == "t;1"
    assert table.columns[0].name == "c;"
    assert table.options == {"p": "it's; fine"}
    assert insert.hints[0].options == {"k": ";"}


def test_empty_statements_and_comment_only_scripts_are_skipped():
    assert parse_script(";;\n-- nothing\n;  /* here */ ;") == []
    assert len(parse_script(";SET 'a' = 'b';;")) == 1
    assert parse_script(";SET 'a' = 'b';;") == [SetOption("a", "b", pos(1, 2))]   # just after the leading ';'


def test_keywords_are_case_insensitive():
    (table, insert) = parse_script(
        "create table t (a integer not null) with ('k' = 'v'); insert into s select a from t")
    assert table.columns[0] == ColumnDef("a", "INT", nullable=False, position=pos(1, 17))
    assert insert.target == "s"


def test_set_accepts_unquoted_dotted_key_and_value():
    option = parse_statement("SET execution.checkpointing.interval-ms = 10s")
    assert option == SetOption("execution.checkpointing.interval-ms", "10s", pos(1, 1))


def test_set_without_value_is_a_syntax_error():
    error = syntax_error("SET 'a' = 'b';\nSET 'key' =")
    assert (error.line, error.column) == (2, 12)                 # just after the '=' at 2:11
    assert "expected a value for option 'key'" in error.message
    assert error.message == "expected a value for option 'key', found end of statement"


def test_set_without_equals_is_a_syntax_error():
    error = syntax_error("SET 'key' 'value'")
    assert (error.line, error.column) == (1, 11)
    assert error.message == "expected '=' after option key 'key', found 'value'"


def test_column_types_are_normalised():
    table = parse_statement(
        "CREATE TABLE t (a boolean, b tinyint, c smallint, d integer, e bigint, f float, "
        "g double, h decimal, i decimal( 5 ), j decimal(5, 1), k string, l varchar(20), "
        "m char(3), n bytes, o date, p timestamp, q timestamp( 6 ), r timestamp_ltz(3), "
        "s TIMESTAMP(3) WITH LOCAL TIME ZONE, u TIMESTAMP WITHOUT TIME ZONE)")
    assert [c.type_text for c in table.columns] == [
        "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL",
        "DECIMAL(5)", "DECIMAL(5,1)", "STRING", "VARCHAR(20)", "CHAR(3)", "BYTES", "DATE",
        "TIMESTAMP", "TIMESTAMP(6)", "TIMESTAMP_LTZ(3)", "TIMESTAMP_LTZ(3)", "TIMESTAMP"]


def test_explicit_null_keeps_the_column_nullable():
    table = parse_statement("CREATE TABLE t (a INT NULL, b INT NOT NULL)")
    assert [c.nullable for c in table.columns] == [True, False]


def test_unknown_type_is_unsupported_at_its_position():
    error = unsupported("CREATE TABLE t (\n  a INT,\n  tags MULTISET<STRING>\n)")
    assert error.construct == "column type MULTISET"
    assert (error.line, error.column) == (3, 8)


def test_composite_column_types_parse_to_canonical_text():
    table = parse_statement("CREATE TABLE t (arr ARRAY<ROW<nested VARCHAR>>, m map<string, INT "
                            "NOT NULL>, r ROW(a INT, `b c` ARRAY<BIGINT>) NOT NULL)")
    assert [(c.type_text, c.nullable) for c in table.columns] == [
        ("ARRAY<ROW<`nested` STRING>>", True), ("MAP<STRING, INT NOT NULL>", True),
        ("ROW<`a` INT, `b c` ARRAY<BIGINT>>", False)]
    for column in table.columns:
        assert parse_type(column.type_text).text == column.type_text


def test_composite_type_errors_name_the_column():
    with pytest.raises(SqlSyntaxError, match="expected '>' to close the ARRAY of column 'arr'"):
        parse_statement("CREATE TABLE t (arr ARRAY<ROW<nested STRING>)")
    with pytest.raises(SqlSyntaxError, match="field names must differ"):
        parse_statement("CREATE TABLE t (r ROW<a INT, a STRING>)")


def test_types_without_parameters_are_flinks_defaults():
    # Flink: VARCHAR is VARCHAR(2147483647), i.e. STRING; CHAR is CHAR(1); TIMESTAMP(6)
    table = parse_statement("CREATE TABLE t (a varchar, b VARCHAR NOT NULL, c char, d timestamp)")
    assert [parse_type(c.type_text).with_nullable(c.nullable).text for c in table.columns] == [
        "STRING", "STRING NOT NULL", "CHAR(1)", "TIMESTAMP(6)"]
    assert parse_type("varchar") == SqlType("STRING") and parse_type("VARCHAR(5)").text == "VARCHAR(5)"


def test_bad_type_parameters_are_syntax_errors():
    assert "VARCHAR takes 0 or 1 parameter(s), found 2" in syntax_error(
        "CREATE TABLE t (a VARCHAR(1, 2))").message
    assert "between 1 and 38" in syntax_error("CREATE TABLE t (a DECIMAL(39, 2))").message
    assert "scale 4 exceeds its precision 3" in syntax_error("CREATE TABLE t (a DECIMAL(3, 4))").message
    for sql, message in [
        ("CREATE TABLE t (a VARCHAR(3, 1))", "VARCHAR takes 0 or 1 parameter(s), found 2"),
        ("CREATE TABLE t (a DECIMAL(39, 2))",
         "the first parameter of DECIMAL must be between 1 and 38, found 39"),
        ("CREATE TABLE t (a DECIMAL(3, 4))", "DECIMAL scale 4 exceeds its precision 3"),
    ]:
        error = syntax_error(sql)
        assert error.message == message
        assert (error.line, error.column) == (1, sql.index("(a ") + 4)   # at the type name


def test_duplicate_column_is_named():
    error = syntax_error("CREATE TABLE t (\n  id INT,\n  ID STRING\n)")
    assert error.message == "duplicate column 'ID' in table 't'"
    assert (error.line, error.column) == (3, 3)


def test_missing_close_paren_after_column_list():
    error = syntax_error("CREATE TABLE t (\n  a INT\n  WITH ('k' = 'v')")
    assert error.message == "expected ')' or ',' in the column list of table 't', found 'WITH'"
    assert (error.line, error.column) == (3, 3)


def test_watermark_without_delay_and_with_plural_units():
    table = parse_statement("CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS ts)")
    assert table.watermark == WatermarkDef("ts", 0, "ts", pos(1, 34))
    for interval, delay in [("'250' MILLISECONDS", 250), ("'2' MINUTE", 120_000),
                            ("'1' HOURS", 3_600_000), ("'1' DAY", 86_400_000), ("'1.5' SECOND", 1500)]:
        sql = f"CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL {interval})"
        assert parse_statement(sql).watermark.delay_ms == delay


def test_watermark_on_a_different_column_is_unsupported():
    error = unsupported("CREATE TABLE t (ts TIMESTAMP(3), x TIMESTAMP(3),\n"
                        "  WATERMARK FOR ts AS x - INTERVAL '1' SECOND)")
    assert error.construct == "watermark expression other than `col - INTERVAL ...`"
    assert (error.line, error.column) == (2, 23)


def test_other_watermark_expressions_are_unsupported():
    error = unsupported("CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS ts + INTERVAL '1' SECOND)")
    assert error.construct == "watermark expression other than `col - INTERVAL ...`"
    assert unsupported("CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' MONTH)"
                       ).construct == "INTERVAL unit MONTH in a watermark"


def test_watermark_column_must_be_declared():
    error = syntax_error("CREATE TABLE t (a INT, WATERMARK FOR ts AS ts)")
    assert error.message == "watermark column 'ts' is not a column of table 't'"
    assert (error.line, error.column) == (1, 38)


def test_at_most_one_watermark():
    sql = "CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS ts, WATERMARK FOR ts AS ts)"
    error = syntax_error(sql)
    assert "second WATERMARK" in error.message
    assert error.message == "table 't' declares a second WATERMARK; at most one is allowed"
    assert error.column == 58
    assert (error.line, error.column) == (1, sql.rindex("WATERMARK") + 1)   # the second one


def test_column_level_primary_key_makes_the_column_not_null():
    table = parse_statement("CREATE TABLE t (id BIGINT PRIMARY KEY NOT ENFORCED, v STRING)")
    assert table.primary_key == ("id",)
    assert table.columns[0].nullable is False


def test_primary_key_requires_not_enforced():
    error = unsupported("CREATE TABLE t (\n  id INT,\n  PRIMARY KEY (id)\n)")
    assert error.construct == "PRIMARY KEY without NOT ENFORCED"
    assert (error.line, error.column) == (3, 3)
    assert "NOT ENFORCED" in str(error)


def test_primary_key_columns_must_be_declared():
    sql = "CREATE TABLE t (id INT, CONSTRAINT pk PRIMARY KEY (id, other) NOT ENFORCED)"
    error = syntax_error(sql)
    assert error.message == "primary key column 'other' is not a column of table 't'"
    assert error.column == 56
    assert (error.line, error.column) == (1, sql.index("other") + 1)


def test_duplicate_with_option_is_an_error():
    error = syntax_error("CREATE TABLE t (a INT) WITH (\n  'k' = '1',\n  'k' = '2')")
    assert error.message == "duplicate option 'k'"
    assert (error.line, error.column) == (3, 3)


def test_with_option_keys_must_be_quoted():
    sql = "CREATE TABLE t (a INT) WITH (connector = 'kafka')"
    error = syntax_error(sql)
    assert error.message == "expected a single-quoted option key, found 'connector'"
    assert (error.line, error.column) == (1, sql.index("connector") + 1)


@pytest.mark.parametrize("sql, construct", [
    ("CREATE TABLE t (a INT) WITH ('k' = 'v') LIKE base", "CREATE TABLE ... LIKE"),
    ("CREATE TABLE t (a INT METADATA FROM 'offset' VIRTUAL)", "VIRTUAL column"),
    ("CREATE TABLE t (a INT COMMENT 'x')", "column COMMENT"),
    ("CREATE TABLE t (a INT) COMMENT 'x'", "table COMMENT"),
    ("CREATE TABLE t AS SELECT 1", "CREATE TABLE ... AS SELECT"),
    ("CREATE TABLE db.t (a INT)", "qualified table name starting with 'db.'"),
])
def test_unsupported_table_clauses_are_named(sql, construct):
    assert unsupported(sql).construct == construct


def test_computed_column_syntax_error_points_into_the_script():
    error = syntax_error("SET 'a' = 'b';\nCREATE TABLE t (\n  a INT,\n  b AS a + ,\n  c INT)")
    assert (error.line, error.column) == (4, 10)
    assert "'+'" in error.message


def test_insert_with_cte_keeps_the_hint_of_the_outer_select():
    insert = parse_statement("INSERT INTO s WITH c AS (SELECT a FROM t)\n"
                             "SELECT /*+ EARLY_FIRE('delay'='1s') */ CASE WHEN a > 0 THEN 1 END AS p FROM c")
    assert isinstance(insert.query, exp.Select)
    assert insert.hints == (Hint("EARLY_FIRE", {"delay": "1s"}, pos(2, 8)),)
    assert "/*+" not in insert.query.sql("spark")


def test_malformed_hints_are_located_inside_the_comment():
    error = syntax_error("INSERT INTO t SELECT /*+ */ a FROM u")
    assert (error.message, error.column) == ("expected a hint name, found end of hint", 26)
    assert text_at("INSERT INTO t SELECT /*+ */ a FROM u", 1, 26).startswith("*/")
    error = syntax_error("INSERT INTO t SELECT /*+ EARLY_FIRE('delay') */ a FROM u")
    assert (error.message, error.column) == ("expected '=' after hint option key 'delay', found ')'", 44)
    assert text_at("INSERT INTO t SELECT /*+ EARLY_FIRE('delay') */ a FROM u", 1, 44).startswith(") */")


def test_misspelled_select_is_a_syntax_error():
    error = syntax_error("SET 'a' = 'b';\n\nINSERT INTO t SELEC a FROM s")
    assert error.message == "expected SELECT after INSERT INTO t, found 'SELEC'"
    assert (error.line, error.column) == (3, 15)


def test_select_without_columns_reports_sqlglot_error_at_script_position():
    error = syntax_error("SET 'a' = 'b';\nINSERT INTO t\n  SELECT FROM")
    assert (error.line, error.column) == (3, 10)
    assert "FROM" in error.message


def test_unexpected_token_in_query_is_located():
    error = syntax_error("INSERT INTO t\nSELECT a,\n       b c d\nFROM s")
    assert error.message == "unexpected 'd'"
    assert (error.line, error.column) == (3, 12)


def test_unbalanced_parentheses_point_at_the_parenthesis():
    error = syntax_error("INSERT INTO t\nSELECT a FROM (\n  SELECT b FROM u")
    assert (error.line, error.column) == (2, 15)
    assert "expected ')'" in error.message
    error = syntax_error("INSERT INTO t SELECT a FROM u)")
    assert (error.line, error.column) == (1, 30)


def test_unterminated_string_and_comment_fail_where_they_start():
    error = syntax_error("SET 'a' = 'b';\nINSERT INTO t SELECT 'abc FROM u")
    assert (error.line, error.column) == (2, 22)
    assert "unterminated string literal" in error.message
    error = syntax_error("SET 'a' = 'b'; /* never closed\n;")
    assert (error.line, error.column) == (1, 16)
    assert "unterminated comment" in error.message


@pytest.mark.parametrize("sql, construct", [
    ("INSERT INTO t VALUES (1, 2)", "VALUES in INSERT INTO"),
])
def test_unsupported_insert_forms_are_named(sql, construct):
    assert unsupported(sql).construct == construct


def test_metadata_columns_partitions_and_distributions_are_parsed():
    table = parse_statement("CREATE TABLE t (a INT, b BIGINT, ts TIMESTAMP(3) METADATA, "
                            "o BIGINT METADATA FROM 'offset') DISTRIBUTED BY HASH(`a`) INTO 3 "
                            "BUCKETS PARTITIONED BY (b) WITH ('connector' = 'values')")
    assert [(c.name, c.metadata) for c in table.columns] == [
        ("a", None), ("b", None), ("ts", "ts"), ("o", "offset")]
    assert table.partition_keys == ("b",)
    assert (table.distribution.kind, table.distribution.bucket_keys,
            table.distribution.bucket_count) == ("HASH", ("a",), 3)
    assert parse_statement("CREATE TABLE t (a INT) DISTRIBUTED INTO 2 BUCKETS").distribution \
        .kind == "UNKNOWN"
    watermark = parse_statement("CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS "
                                "SOURCE_WATERMARK())").watermark
    assert watermark.from_source and watermark.delay_ms == 0


def test_a_primary_key_on_a_metadata_column_is_refused():
    error = syntax_error("CREATE TABLE t (a INT METADATA, PRIMARY KEY (a) NOT ENFORCED)")
    assert "is a metadata column; a primary key needs physical columns" in error.message


def test_insert_overwrite_static_partitions_and_column_lists_are_parsed():
    insert = parse_statement("INSERT OVERWRITE t PARTITION (b = 2, c = 'x') (a, d) SELECT 1, 2")
    assert insert.overwrite and insert.columns == ("a", "d")
    assert [(name, literal.sql()) for name, literal in insert.static_partition] == [
        ("b", "2"), ("c", "'x'")]
    plain = parse_statement("INSERT INTO t SELECT 1")
    assert (plain.overwrite, plain.static_partition, plain.columns) == (False, (), None)
    assert "listed twice" in syntax_error("INSERT INTO t (a, a) SELECT 1, 2").message


@pytest.mark.parametrize("sql, kind", [
    ("INSERT INTO t SELECT a FROM u INTERSECT SELECT a FROM v", exp.Intersect),
    ("INSERT INTO t (SELECT a FROM u) EXCEPT (SELECT a FROM v)", exp.Except),
])
def test_intersect_and_except_are_queries_of_an_insert(sql, kind):
    # planned as semi and anti joins (planner/unions.py)
    assert isinstance(parse_statement(sql).query, kind)


@pytest.mark.parametrize("sql", [
    "INSERT INTO t SELECT a FROM u UNION ALL SELECT a FROM v",
    "INSERT INTO t (SELECT a FROM u) UNION ALL (SELECT a FROM v)",
    "INSERT INTO t SELECT * FROM (SELECT a FROM u) UNION (SELECT a FROM v)",
])
def test_a_union_of_queries_is_the_query_of_an_insert(sql):
    insert = parse_statement(sql)
    assert isinstance(insert.query, exp.Union)
    assert {table.name for table in insert.query.find_all(exp.Table)} == {"u", "v"}


def test_a_parenthesised_query_is_the_query_of_an_insert():
    insert = parse_statement("INSERT INTO t (SELECT a FROM u)")
    assert isinstance(insert.query, exp.Select) and insert.query.sql() == "SELECT a FROM u"


def test_hints_without_options_and_several_hints():
    insert = parse_statement("INSERT INTO t SELECT /*+ early_fire, STATE_TTL('u' = '1d') */ a FROM u")
    assert insert.hints == (Hint("EARLY_FIRE", {}, pos(1, 22)), Hint("STATE_TTL", {"u": "1d"}, pos(1, 22)))


def test_hint_options_must_be_key_value_strings():
    error = syntax_error("INSERT INTO t\nSELECT /*+ EARLY_FIRE(delay = '5s') */ a FROM u")
    assert "hints take key-value options" in error.message
    assert (error.line, error.column) == (2, 23)


def test_duplicate_hint_keys_are_errors():
    sql = "INSERT INTO t SELECT /*+ EARLY_FIRE('delay'='1s', 'delay'='2s') */ a FROM u"
    error = syntax_error(sql)
    assert error.message == "duplicate hint option 'delay'"
    assert error.column == 51
    assert text_at(sql, 1, 51).startswith("'delay'='2s'")                # the second key


def test_hints_outside_the_top_level_select_are_unsupported():
    error = unsupported("INSERT INTO t SELECT a FROM (\n  SELECT /*+ EARLY_FIRE('delay'='1s') */ b FROM u)")
    assert error.construct == "query hint outside the top-level SELECT of an INSERT"
    assert (error.line, error.column) == (2, 10)
    assert unsupported("INSERT INTO t SELECT a FROM u /*+ OPTIONS('k'='v') */").column == 31


def test_execute_statement_set():
    script = """SET 'a' = 'b';
EXECUTE STATEMENT SET
BEGIN
  INSERT INTO s1 SELECT a FROM t;
  INSERT INTO s2 SELECT CASE WHEN a THEN 1 ELSE 2 END FROM t;
END;
SET 'c' = 'd';"""
    first, statement_set, last = parse_script(script)
    assert isinstance(statement_set, StatementSet)
    assert statement_set.position == pos(2, 1)
    assert [i.target for i in statement_set.inserts] == ["s1", "s2"]
    assert [i.position for i in statement_set.inserts] == [pos(4, 3), pos(5, 3)]
    assert statement_set.inserts[0].text == "INSERT INTO s1 SELECT a FROM t"
    assert last.position == pos(7, 1)


def test_begin_statement_set_client_syntax():
    script = "BEGIN STATEMENT SET;\nINSERT INTO s1 SELECT 1;\nINSERT INTO s2 SELECT 2;\nEND;\nEXECUTE PLAN 'p'"
    statement_set, plan = parse_script(script)
    assert statement_set.position == pos(1, 1)
    assert [i.target for i in statement_set.inserts] == ["s1", "s2"]
    assert plan == ExecutePlan("p", pos(5, 1))


def test_statement_set_without_end_fails_at_end_of_input():
    error = syntax_error("BEGIN STATEMENT SET;\nINSERT INTO s SELECT 1;\n")
    assert error.message.startswith("expected END to close the statement set started at line 1")
    assert (error.line, error.column) == (2, 24)


def test_empty_statement_set_is_an_error():
    error = syntax_error("EXECUTE STATEMENT SET BEGIN\nEND")
    assert "empty statement set" in error.message
    assert (error.line, error.column) == (2, 1)


def test_only_inserts_inside_a_statement_set():
    error = unsupported("EXECUTE STATEMENT SET BEGIN\n  SET 'a' = 'b';\nEND")
    assert error.construct == "SET statement inside a statement set"
    assert (error.line, error.column) == (2, 3)


def test_compile_plan_for_insert_and_for_statement_sets():
    plan = parse_statement("COMPILE PLAN '/tmp/p.json' IF NOT EXISTS FOR INSERT INTO s SELECT 1")
    assert isinstance(plan, CompilePlan)
    assert (plan.path, plan.if_not_exists, plan.position) == ("/tmp/p.json", True, pos(1, 1))
    assert isinstance(plan.target, Insert) and plan.target.position == pos(1, 46)
    for prefix in ("EXECUTE STATEMENT SET", "STATEMENT SET"):
        plan = parse_statement(f"COMPILE PLAN 'p' FOR {prefix} BEGIN INSERT INTO a SELECT 1; "
                               "INSERT INTO b SELECT 2; END;")
        assert isinstance(plan.target, StatementSet)
        assert plan.target.position == pos(1, 22)
        assert [i.target for i in plan.target.inserts] == ["a", "b"]
        assert plan.if_not_exists is False


def test_compile_and_execute_plan_is_unsupported():
    assert unsupported("COMPILE AND EXECUTE PLAN 'p' FOR INSERT INTO s SELECT 1").construct == \
        "COMPILE AND EXECUTE PLAN"


def test_execute_and_explain_plan():
    assert parse_script("EXECUTE PLAN 'a.json';\n  EXPLAIN PLAN 'b.json'") == [
        ExecutePlan("a.json", pos(1, 1)), ExplainPlan("b.json", pos(2, 3))]
    error = syntax_error("EXECUTE PLAN a.json")
    assert error.message == "expected a single-quoted plan path after EXECUTE PLAN, found 'a'"
    assert (error.line, error.column) == (1, len("EXECUTE PLAN ") + 1)


@pytest.mark.parametrize("sql, construct", [
    ("SELECT a FROM t", "bare SELECT (use INSERT INTO <sink> SELECT ...)"),
    ("CREATE MATERIALIZED TABLE m AS SELECT 1", "CREATE MATERIALIZED TABLE statement"),
    ("CREATE CATALOG c WITH ('type' = 'x')", "CREATE CATALOG statement"),
    ("DROP TABLE t", "DROP TABLE statement"),
    ("ALTER TABLE t SET ('a' = 'b')", "ALTER TABLE statement"),
    ("USE cat", "USE statement"),
    ("SHOW TABLES", "SHOW TABLES statement"),
    ("EXPLAIN SELECT 1", "EXPLAIN of a statement"),
])
def test_unsupported_statements_are_named(sql, construct):
    error = unsupported(f"SET 'a' = 'b';\n{sql}")
    assert error.construct == construct
    assert (error.line, error.column) == (2, 1)


def test_create_function():
    from streamplan.sql.ast import CreateFunction

    assert parse_script("CREATE TEMPORARY SYSTEM FUNCTION f AS 'm:C' LANGUAGE PYTHON;\n"
                        "CREATE TEMPORARY FUNCTION IF NOT EXISTS g AS 'm:D';\n"
                        "CREATE FUNCTION h AS 'm:E'") == [
        CreateFunction("f", "m:C", True, False, pos(1, 1)),
        CreateFunction("g", "m:D", False, True, pos(2, 1)),
        CreateFunction("h", "m:E", False, False, pos(3, 1))]
    assert unsupported("CREATE FUNCTION f AS 'a.B' LANGUAGE JAVA").construct == "LANGUAGE JAVA function"
    assert syntax_error("CREATE FUNCTION f AS m").message == (
        "expected a single-quoted class of the function, 'module:qualname', found 'm'")


def test_create_view_and_temporary_table():
    from streamplan.sql.ast import CreateView

    first, second = parse_script("CREATE TEMPORARY VIEW v AS SELECT a FROM t WHERE a > 1;\n"
                                 "CREATE VIEW IF NOT EXISTS w AS (SELECT a FROM v) UNION ALL "
                                 "(SELECT b FROM t)")
    assert isinstance(first, CreateView) and isinstance(second, CreateView)
    assert (first.name, first.if_not_exists, first.position) == ("v", False, pos(1, 1))
    assert first.query.sql(dialect="spark") == "SELECT a FROM t WHERE a > 1"
    assert (second.name, second.if_not_exists, second.position) == ("w", True, pos(2, 1))
    assert isinstance(second.query, exp.Union)
    (table,) = parse_script("CREATE TEMPORARY TABLE t (a INT) WITH ('connector' = 'values')")
    assert isinstance(table, CreateTable) and table.name == "t"
    error = unsupported("CREATE VIEW v (x, y) AS SELECT a, b FROM t")
    assert (error.construct, error.column) == ("a column list on view 'v'", len("CREATE VIEW v ") + 1)
    assert syntax_error("CREATE VIEW v SELECT a FROM t").message == \
        "expected AS after the view name 'v', found 'SELECT'"
    assert syntax_error("CREATE VIEW v AS 1").message == \
        "expected a query (SELECT ...) after CREATE VIEW v AS, found '1'"
    assert unsupported("CREATE VIEW v AS SELECT /*+ STATE_TTL('t' = '1d') */ a FROM t").construct \
        == "query hint outside the top-level SELECT of an INSERT"


def test_unknown_statement_keyword_is_a_syntax_error():
    error = syntax_error("SET 'a' = 'b';\n  SELEC a FROM t")
    assert (error.line, error.column) == (2, 3)
    assert "found 'SELEC'" in error.message


def test_parse_statement_requires_exactly_one_statement():
    assert isinstance(parse_statement("SET 'a' = 'b';"), SetOption)
    with pytest.raises(SqlSyntaxError, match="expected exactly one statement, found a second one") as info:
        parse_statement("SET 'a' = 'b'; SET 'c' = 'd'")
    assert (info.value.line, info.value.column) == (1, 16)                # the second SET
    with pytest.raises(SqlSyntaxError, match="expected a statement, found end of input"):
        parse_statement("-- only a comment")


def test_errors_carry_the_source_name():
    with pytest.raises(SqlSyntaxError) as info:
        parse_script("SET 'a'", source="job.sql")
    assert str(info.value).startswith("job.sql:1:8: syntax error:")


def test_sqlglot_tokenizer_failures_point_at_the_query():
    error = syntax_error("SET 'a' = 'b';\nINSERT INTO t SELECT X'zz' FROM u")
    assert (error.line, error.column) == (2, 15)
    assert error.message.startswith("cannot tokenize this SQL")


# The last item is the text the column points at ('' = the end of the statement).
@pytest.mark.parametrize("sql, message, column, points_at", [
    ("CREATE TABLE t (a INT, b INT, PRIMARY KEY (a) NOT ENFORCED, PRIMARY KEY (b) NOT ENFORCED)",
     "table 't' declares a second PRIMARY KEY", 61, "PRIMARY KEY (b)"),
    ("CREATE TABLE t (a INT, c AS a + 1, PRIMARY KEY (c) NOT ENFORCED)",
     "primary key column 'c' is a computed column; a primary key needs physical columns of table 't'", 49,
     "c) NOT"),
    ("CREATE TABLE t (a INT, PRIMARY KEY (a, a) NOT ENFORCED)",
     "primary key column 'a' is listed twice in the primary key of table 't'", 40, "a) NOT"),
    ("CREATE TABLE t (c AS a + 1 AS x)",
     "expected ',' or ')' after the expression of computed column 'c', found 'x'", 31, "x)"),
    ("CREATE TABLE t (c AS , d INT)", "expected an expression after 'c AS', found ','", 22, ", d"),
    ("CREATE TABLE t (a , b INT)", "expected a type for column 'a', found ','", 19, ", b"),
    ("CREATE TABLE t (a DECIMAL(p))", "expected an integer parameter of DECIMAL, found 'p'", 27, "p))"),
    ("CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL 'x' SECOND)",
     "expected a non-negative interval of whole milliseconds, found 'x' SECOND", 68, "'x' SECOND"),
    ("CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '0.0001' SECOND)",
     "expected a non-negative interval of whole milliseconds, found '0.0001' SECOND", 68, "'0.0001'"),
    ("COMPILE PLAN 'p' FOR SELECT 1", "expected INSERT INTO or STATEMENT SET after FOR, found 'SELECT'", 22,
     "SELECT"),
    ("EXECUTE PLAN ' '", "the plan path must not be empty", 14, "' '"),
    ("EXECUTE", "expected PLAN or STATEMENT SET after EXECUTE, found end of statement", 8, ""),
])
def test_more_syntax_errors_are_located(sql, message, column, points_at):
    error = syntax_error(sql)
    assert (error.message, error.line, error.column) == (message, 1, column)
    assert text_at(sql, 1, column).startswith(points_at)
    if not points_at:
        assert column == len(sql) + 1


@pytest.mark.parametrize("sql, construct, column, points_at", [
    ("EXECUTE INSERT INTO t SELECT 1", "EXECUTE INSERT statement", 1, "EXECUTE INSERT"),
    ("CREATE TABLE t (a INT AS /*+ X('a'='b') */ 1)", "query hint outside the top-level SELECT of an INSERT", 26,
     "/*+ X"),
])
def test_more_unsupported_constructs_are_located(sql, construct, column, points_at):
    error = unsupported(sql)
    assert (error.construct, error.column) == (construct, column)
    assert error.line == 1 and text_at(sql, 1, column).startswith(points_at)


def test_a_backslash_in_a_string_literal_is_a_plain_character_as_in_flink():
    # Spark reads '\n' as a newline and '\'' as a quote; Flink (Calcite) has no backslash
    # escapes: 'x\' ends at its quote. The plan's Spark SQL escapes each backslash again.
    insert = parse_statement(r"INSERT INTO t SELECT 'a\', '\d+', 'C:\new' AS v FROM u")
    literals = [node.this for node in insert.query.find_all(exp.Literal) if node.is_string]
    assert literals == ["a\\", "\\d+", "C:\\new"]
    assert insert.query.sql(dialect="spark") == (
        r"SELECT 'a\\', '\\d+', 'C:\\new' AS v FROM u")


def test_a_doubled_quote_in_a_string_literal_is_one_quote_as_in_flink():
    # Spark's dialect would read 'it''s' as two adjacent literals and join them ("its")
    statement = parse_statement("INSERT INTO S SELECT 'it''s', CONCAT(a, 'x''''y'), '', "
                                "'a\\''b' FROM T")
    literals = sorted(node.this for node in statement.query.find_all(exp.Literal)
                      if node.is_string)
    assert literals == ["", "a\\'b", "it's", "x''y"]


def test_functions_whose_omitted_arguments_mean_something_else_in_spark_get_flinks():
    # REGEXP_EXTRACT's default group is 0 (the whole match) and STR_TO_MAP's key-value
    # delimiter '=' in Flink; Spark's are 1 and ':' (streamplan/sql/dialect.py)
    statement = parse_statement("INSERT INTO S SELECT REGEXP_EXTRACT(s, 'a(b)'), "
                                "STR_TO_MAP(s) FROM T")
    assert statement.query.sql(dialect="spark") == (
        "SELECT REGEXP_EXTRACT(s, 'a(b)', 0), STR_TO_MAP(s, ',', '=') FROM T")
