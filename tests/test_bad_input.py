"""Bad input gets a typed error that says where, in bounded time (issue 13's findings, kept
as regression tests): deep nesting, huge numbers, bytes that are not UTF-8, option names
given twice."""
from __future__ import annotations

import json
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.errors import FixtureError
from harness.fixtures import Fixture, read_checksums, read_manifest
from streamplan.api import TableEnvironment
from streamplan.checkpoints import written_by
from streamplan.errors import (CheckpointError, PlanFormatError, PlanningError, SqlSyntaxError,
                               UnsupportedSqlError)
from streamplan.plan import parse_plan
from streamplan.sql.parser import parse_script

TABLE = "CREATE TABLE T (a INT) WITH ('connector' = 'values'); "
SNAPSHOT_MANIFEST = (Path(__file__).resolve().parent.parent / "snapshots" / "calc_1" /
                     "calc-changelog" / "manifest.json")
DEEP = 5000


@contextmanager
def within(seconds: float = 1.0):
    started = time.perf_counter()
    yield
    assert time.perf_counter() - started < seconds


def test_json_nested_deeper_than_python_reads_is_a_plan_format_error():
    nested = '{"engineVersion": "0.3", "sparkVersion": "4.3.0", "edges": [], "nodes": ' \
             + "[" * DEEP + "]" * DEEP + "}"
    with within(), pytest.raises(PlanFormatError, match=r"plan.json: not valid here: JSON nested "
                                                        r"deeper than Python can read"):
        parse_plan(nested, "plan.json")


@pytest.mark.parametrize("expression", [
    "(" * 60 + "a" + ")" * 60,
    "CASE WHEN a = 1 THEN " * 120 + "1" + " END" * 120,
], ids=["60 parentheses", "120 CASE"])
def test_deeply_nested_sql_is_unsupported_with_its_position(expression):
    with within(), pytest.raises(UnsupportedSqlError, match=r"<script>:1:55: unsupported: "
                                                            r"expressions nested this deeply"):
        parse_script(TABLE + f"INSERT INTO T SELECT {expression} FROM T")


def test_a_type_parameter_of_4400_digits_is_a_syntax_error():
    with within(), pytest.raises(SqlSyntaxError, match=r"parameter 9{20}\.\.\. of DECIMAL is far "
                                                       r"too large"):
        parse_script(f"CREATE TABLE T (a DECIMAL({'9' * 4400}, 2)) WITH ('connector' = 'values')")


def test_a_huge_watermark_interval_is_refused_before_any_arithmetic():
    with within(), pytest.raises(SqlSyntaxError, match="expected a non-negative interval of whole "
                                                       "milliseconds, found '1E999999' SECOND"):
        parse_script("CREATE TABLE T (t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '1E999999' "
                     "SECOND) WITH ('connector' = 'values')")


def test_a_lone_surrogate_in_sql_is_a_syntax_error_at_its_position():
    with within(), pytest.raises(SqlSyntaxError, match=r"^<script>:2:24: syntax error: a lone "
                                                       r"surrogate \(\\ud800\) is not text$"):
        parse_script(TABLE + "\nINSERT INTO T SELECT 'x\ud800' FROM T")


def test_table_data_that_is_not_utf8_or_too_deep_is_a_planning_error(tmp_path):
    from streamplan.api import read_rows_file
    from streamplan.types import parse_row_type

    row_type = parse_row_type("ROW<`a` INT>")
    binary = tmp_path / "rows.json"
    binary.write_bytes(b"[[1], \xff]")
    with pytest.raises(PlanningError, match=r"rows.json: not UTF-8 text \(byte 6\)"):
        read_rows_file(binary, row_type)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * DEEP + "]" * DEEP)
    with pytest.raises(PlanningError, match="JSON nested deeper than Python can read"):
        read_rows_file(deep, row_type)


def fixture_in(tmp_path) -> Fixture:
    directory = tmp_path / "calc_1" / "calc-x"
    directory.mkdir(parents=True)
    return Fixture(directory, "calc", 1, "calc-x")


@pytest.mark.parametrize("content, message", [
    (b'{"formatVersion": 1, \xfe}', r"manifest.json is not UTF-8 text \(byte 21\)"),
    (b"[" * DEEP + b"]" * DEEP, r"manifest.json: not valid here: JSON nested deeper than Python "
                                r"can read"),
    (b'{"formatVersion": 1, "program": "calc-x", "nodeType": "x", "plan": 5}',
     r"manifest.json is malformed \(field 'engineVersion': Field required; .*field 'plan': "
     r"Input should be a valid dictionary"),
    (b"[1]", r"manifest format None is not 1"),
    (json.dumps({**json.loads((SNAPSHOT_MANIFEST).read_text()),
                 "beforeRestoreOutput": {"Out": [["+I", 5], ["*X", []], "+I[1]"]}}).encode(),
     r"field 'beforeRestoreOutput.Out.0.1': Input should be a valid list; field "
     r"'beforeRestoreOutput.Out.1.0': Input should be '\+I', '-U', '\+U' or '-D'; field "
     r"'beforeRestoreOutput.Out.2': Input should be a valid tuple"),
    (json.dumps({**json.loads((SNAPSHOT_MANIFEST).read_text()),
                 "plan": {"sha256": "abc"}}).encode(),
     r"field 'plan.sha256': String should match pattern"),
], ids=["not utf-8", "deep", "wrong type", "not an object", "rows of the wrong shape",
        "not a digest"])
def test_a_broken_manifest_is_a_fixture_error_naming_it(tmp_path, content, message):
    fixture = fixture_in(tmp_path)
    fixture.manifest_path.write_bytes(content)
    with pytest.raises(FixtureError, match=message):
        read_manifest(fixture)


def test_a_checksum_file_that_is_not_utf8_is_a_fixture_error(tmp_path):
    path = tmp_path / "checkpoint.sha256"
    path.write_bytes(b"abc  file\n\xff\n")
    with pytest.raises(FixtureError, match=r"checkpoint.sha256: not UTF-8 text \(byte 10\)"):
        read_checksums(path)


@pytest.mark.parametrize("content", [b"[" * DEEP + b"]" * DEEP, b'{"engineVersion": {}}',
                                     b"\xff\xfe"], ids=["deep", "object", "not utf-8"])
def test_a_broken_checkpoint_marker_is_a_checkpoint_error(tmp_path, content):
    (tmp_path / "streamplan.json").write_bytes(content)
    with pytest.raises(CheckpointError, match="streamplan.json"):
        written_by(tmp_path)


@pytest.mark.spark
def test_an_early_fire_option_given_twice_in_different_case_is_refused(spark):
    env = TableEnvironment(spark=spark)
    env.execute_sql(
        "CREATE TABLE L (k INT, t TIMESTAMP(3), WATERMARK FOR t AS t) WITH ('connector' = 'values');"
        "CREATE TABLE R (k INT, t TIMESTAMP(3), WATERMARK FOR t AS t) WITH ('connector' = 'values');"
        "CREATE TABLE S (k INT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');")
    with pytest.raises(PlanningError, match=r"EARLY_FIRE option 'delay' is given twice \('DELAY', "
                                            r"'delay'\); option names ignore case"):
        env.compile_sql("INSERT INTO S SELECT /*+ EARLY_FIRE('DELAY'='-5s', 'delay'='2s') */ L.k "
                        "FROM L LEFT JOIN R ON L.k = R.k AND L.t BETWEEN R.t - INTERVAL '1' SECOND "
                        "AND R.t")


@pytest.mark.spark
def test_a_huge_interval_join_bound_is_a_planning_error(spark):
    env = TableEnvironment(spark=spark)
    env.execute_sql(
        "CREATE TABLE L (k INT, t TIMESTAMP(3), WATERMARK FOR t AS t) WITH ('connector' = 'values');"
        "CREATE TABLE R (k INT, t TIMESTAMP(3), WATERMARK FOR t AS t) WITH ('connector' = 'values');"
        "CREATE TABLE S (k INT) WITH ('connector' = 'values');")
    with within(5.0), pytest.raises(PlanningError, match=r"'9{40}' is not a number of at most "
                                                         r"10\^15 in INTERVAL"):
        env.compile_sql("INSERT INTO S SELECT L.k FROM L JOIN R ON L.k = R.k AND L.t BETWEEN "
                        f"R.t - INTERVAL '{'9' * 4400}' SECOND AND R.t")
    with within(5.0), pytest.raises(PlanningError):     # sqlglot reads 'E999990' as the unit
        env.compile_sql("INSERT INTO S SELECT L.k FROM L JOIN R ON L.k = R.k AND L.t BETWEEN "
                        "R.t - INTERVAL '1E999990' SECOND AND R.t")


def test_before_restore_rows_that_do_not_fit_the_sink_are_a_fixture_error():
    from harness.fixtures import decode_rows
    from streamplan.types import parse_row_type

    row_type = parse_row_type("ROW<`a` INT, `b` STRING>")
    assert [row.values for row in decode_rows([["+I", [1, "x"]]], row_type, "m")] == [(1, "x")]
    with pytest.raises(FixtureError, match=r"^m: row 0 has 1 value\(s\), the sink has 2 column"):
        decode_rows([["+I", [1]]], row_type, "m")
    with pytest.raises(FixtureError, match=r"^m: row 1: 'x' is not an integer"):
        decode_rows([["+I", [1, "x"]], ["-D", ["x", "y"]]], row_type, "m")
