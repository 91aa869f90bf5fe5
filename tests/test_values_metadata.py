"""Flink's values connector as its restore-test programs use it: metadata columns, partition
lists, static partitions and column lists of an INSERT. The refusals come from the planner
before any Spark question (a stub stands in for Spark); the rows a source step lays out come
from the harness alone. What these features do to rows, the ported programs show
(programs/table_source_scan.py, programs/sink.py)."""
from __future__ import annotations

import pytest

from harness import ProgramError, SourceTestStep, TableDistribution, TableTestProgram
from streamplan.errors import PlanningError
from streamplan.options import Configuration
from streamplan.planner.planner import PlanBuilder
from streamplan.sql.parser import parse_script
from streamplan.types import parse_type
from streamplan.values_connector import metadata_map, option_value_problem, partition_list


class _ReachedSpark(Exception):
    pass


class _NoSpark:
    def resolve(self, *args, **kwargs):
        raise _ReachedSpark()


def plan(source: str, sink: str, insert: str) -> None:
    statements = parse_script(f"CREATE TABLE T ({source});\nCREATE TABLE S ({sink});\n{insert}")
    PlanBuilder({"T": statements[0], "S": statements[1]}, Configuration(),
                _NoSpark()).plan([statements[2]])


def test_metadata_maps_are_ordered_by_key_and_partition_lists_split_as_flinks():
    assert list(metadata_map("z:INT, a:DECIMAL(10, 2)").items()) == [
        ("a", parse_type("DECIMAL(10,2)")), ("z", parse_type("INT"))]
    assert partition_list("b:1,c:x;b:2") == [{"b": "1", "c": "x"}, {"b": "2"}]
    assert partition_list("b:1,b:2") == [{"b": "2"}]      # a map: the later value replaces
    assert "is not 'key:TYPE'" in option_value_problem("readable-metadata", "ts")
    assert "is not 'column:value'" in option_value_problem("partition-list", "b1")


def test_a_metadata_column_reads_a_declared_key_with_its_type():
    with pytest.raises(_ReachedSpark):
        plan("a INT, ts TIMESTAMP(3) METADATA) WITH ('connector' = 'values', "
             "'readable-metadata' = 'ts:TIMESTAMP(3)'", "a INT, ts TIMESTAMP(3)) WITH "
             "('connector' = 'values'", "INSERT INTO S SELECT * FROM T")
    with pytest.raises(PlanningError, match=r"invalid metadata key 'offset' in column 'o' of "
                                            r"table 'T': .* declares \('ts'\)"):
        plan("a INT, o BIGINT METADATA FROM 'offset') WITH ('connector' = 'values', "
             "'readable-metadata' = 'ts:TIMESTAMP(3)'", "a INT, o BIGINT) WITH "
             "('connector' = 'values'", "INSERT INTO S SELECT * FROM T")
    with pytest.raises(PlanningError, match=r"metadata column 'ts' of table 'T' is BIGINT, but "
                                            r"its key 'ts' is TIMESTAMP\(3\)"):
        plan("a INT, ts BIGINT METADATA) WITH ('connector' = 'values', "
             "'readable-metadata' = 'ts:TIMESTAMP(3)'", "a INT, ts BIGINT) WITH "
             "('connector' = 'values'", "INSERT INTO S SELECT * FROM T")
    with pytest.raises(PlanningError, match=r"invalid metadata key 'c' in column 'c' of table "
                                            r"'S': .*'writable-metadata' option declares \(none\)"):
        plan("a INT, c STRING) WITH ('connector' = 'values'", "a INT, c STRING METADATA) WITH "
             "('connector' = 'values'", "INSERT INTO S SELECT * FROM T")


def test_a_source_watermark_needs_watermark_push_down_and_a_partition_list_physical_columns():
    with pytest.raises(PlanningError, match=r"SOURCE_WATERMARK\(\), but its source does not "
                                            r"emit watermarks"):
        plan("a INT, ts TIMESTAMP(3), WATERMARK FOR ts AS SOURCE_WATERMARK()) WITH "
             "('connector' = 'values'", "a INT) WITH ('connector' = 'values'",
             "INSERT INTO S SELECT a FROM T")
    with pytest.raises(PlanningError, match=r"'partition-list' names 'x', which is no physical"):
        plan("a INT) WITH ('connector' = 'values', 'partition-list' = 'x:1'",
             "a INT) WITH ('connector' = 'values'", "INSERT INTO S SELECT a FROM T")


@pytest.mark.parametrize("insert, message", [
    ("INSERT INTO S PARTITION (a = 1) SELECT b, c FROM T",
     r"static partition column 'a' of INSERT INTO S is not a partition key of the table \(b\)"),
    ("INSERT INTO S (a, x) SELECT a, b FROM T",
     r"column 'x' of INSERT INTO S \(...\) is not a column of the table \(a, b, c\)"),
    ("INSERT INTO S PARTITION (b = 1) (a, b) SELECT a, b FROM T",
     r"column 'b' of INSERT INTO S is both a static partition column and in the column list"),
    ("INSERT INTO S (b) SELECT b FROM T",
     r"column 'a' of sink S is NOT NULL, but INSERT INTO S \(...\) gives it no value"),
])
def test_insert_targets_are_checked_as_flink_checks_them(insert, message):
    with pytest.raises(PlanningError, match=message):
        plan("a INT, b INT, c INT) WITH ('connector' = 'values'",
             "a INT NOT NULL, b INT, c INT) PARTITIONED BY (b) WITH ('connector' = 'values'",
             insert)


def source(*rows, extra=False, metadata=("ts TIMESTAMP(3) METADATA",)):
    builder = (SourceTestStep.new_builder("T").add_schema("a INT", *metadata, "b STRING")
               .add_option("readable-metadata", "ts:TIMESTAMP(3),z:INT"))
    if extra:
        builder = builder.ignoring_extra_values()
    return builder.producing_before_restore(*rows).build()


def test_a_source_row_is_the_physical_values_then_the_metadata_values_by_key():
    step = source([1, "x", "2020-04-15 08:00:01"], {"kind": "-D", "values": [2, "y", None]})
    assert list(step.row_type.names) == ["a", "b", "ts"]
    assert [(kind.short, values[:2]) for kind, values in step.feed_rows("before")] == [
        ("+I", (1, "x")), ("-D", (2, "y"))]
    assert str(step.feed_rows("before")[0][1][2]) == "2020-04-15 08:00:01"


def test_values_a_table_does_not_read_fail_unless_the_step_ignores_them():
    row = [1, "x", "2020-04-15 08:00:01", 7, "more"]
    with pytest.raises(ProgramError, match=r"row 0 has 5 values, the table has 3 columns "
                                           r"\(a, b, ts\)"):
        source(row)
    with pytest.raises(ProgramError, match=r"row 0 has 2 values, the table has 3"):
        source([1, "x"], extra=True)
    assert [values[:2] for _, values in source(row, extra=True).feed_rows("before")] == [(1, "x")]


def test_partitions_and_distributions_render_as_flinks_ddl():
    assert str(TableDistribution.of_unknown(3)) == "DISTRIBUTED INTO 3 BUCKETS"
    assert str(TableDistribution.of_unknown(["a"], 3)) == "DISTRIBUTED BY (`a`) INTO 3 BUCKETS"
    assert str(TableDistribution.of_hash(["a"], None)) == "DISTRIBUTED BY HASH(`a`)"
    step = (SourceTestStep.new_builder("T").add_schema("a INT", "b BIGINT")
            .add_partition_keys("b").add_distribution(TableDistribution.of_hash(["a"], 3))
            .build())
    assert step.table.partition_keys == ("b",)
    assert "DISTRIBUTED BY HASH(`a`) INTO 3 BUCKETS\nPARTITIONED BY (`b`)\nWITH" in step.ddl()


def test_only_a_ported_program_keeps_an_id_with_an_underscore():
    def program(ported):
        builder = TableTestProgram.of("sink-bucketing_x", "x")
        if ported:
            builder = builder.ported_from("TableSinkTestPrograms.java#X", "0" * 40)
        return (builder.setup_table_source(SourceTestStep.new_builder("T").add_schema("a INT")
                                           .build())
                .setup_table_sink(__import__("harness").SinkTestStep.new_builder("S")
                                  .add_schema("a INT").consuming_before_restore().build())
                .run_sql("INSERT INTO S SELECT * FROM T").build())
    assert program(True).id == "sink-bucketing_x"
    with pytest.raises(ProgramError, match="an id is lower-case words joined by '-'"):
        program(False)


def test_a_plan_whose_partition_list_names_no_field_of_the_scan_is_refused():
    import json
    from pathlib import Path

    from streamplan.errors import PlanFormatError
    from streamplan.plan import parse_plan

    path = (Path(__file__).resolve().parent.parent / "snapshots" / "table-source-scan_1" /
            "table-source-scan-partition-pushdown" / "plan" /
            "table-source-scan-partition-pushdown.json")
    plan = json.loads(path.read_text())
    parse_plan(json.dumps(plan))
    (scan,) = [n for n in plan["nodes"] if n["type"].startswith("stream-exec-table-source-scan")]
    scan["table"]["options"]["partition-list"] = "x:1"
    with pytest.raises(PlanFormatError, match=r"'partition-list' names 'x', which is no field "
                                              r"of outputType \(a, b, c\)"):
        parse_plan(json.dumps(plan))


@pytest.mark.spark
def test_a_stateful_query_over_a_source_watermark_is_refused(spark):
    """SOURCE_WATERMARK()'s column is a plain timestamp here (Flink's is a rowtime attribute
    without watermarks): a stateless query plans alike, a stateful one is refused."""
    from streamplan.api import TableEnvironment
    from streamplan.errors import UnsupportedSqlError

    env = TableEnvironment(spark=spark)
    env.execute_sql(
        "CREATE TABLE T (a INT, ts TIMESTAMP(3), WATERMARK FOR ts AS SOURCE_WATERMARK()) "
        "WITH ('connector' = 'values', 'enable-watermark-push-down' = 'true');\n"
        "CREATE TABLE S (a INT, ts TIMESTAMP(3)) WITH ('connector' = 'values', "
        "'sink-insert-only' = 'false')")
    plan = env.compile_sql("INSERT INTO S SELECT a, ts FROM T WHERE a > 1")
    assert [n.type.rsplit("_", 1)[0] for n in plan.nodes] == [
        "stream-exec-table-source-scan", "stream-exec-calc", "stream-exec-sink"]
    with pytest.raises(UnsupportedSqlError, match=r":1:41: unsupported: stream-exec-\S+ in a "
                                                  r"query reading table 'T', whose WATERMARK "
                                                  r"FOR ts AS SOURCE_WATERMARK\(\)"):
        env.compile_sql("INSERT INTO S SELECT a, ts FROM (SELECT *, ROW_NUMBER() OVER "
                        "(PARTITION BY a ORDER BY ts) AS rn FROM T) WHERE rn = 1")
