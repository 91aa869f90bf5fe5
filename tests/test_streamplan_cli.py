"""The streamplan command line and the plan statements of scripts."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from streamplan.api import TableEnvironment
from streamplan.cli import app
from streamplan.errors import PlanningError

pytestmark = pytest.mark.spark
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "orders"
runner = CliRunner()


@pytest.fixture()
def example(tmp_path, spark):
    target = tmp_path / "orders"
    shutil.copytree(EXAMPLE, target)
    return target


def test_compile_twice_gives_identical_bytes_and_explain_reads_it(example):
    for name in ("a.json", "b.json"):
        result = runner.invoke(app, ["compile", str(example / "orders.sql"), "-o", str(example / name)])
        assert result.exit_code == 0, result.output
    assert (example / "a.json").read_bytes() == (example / "b.json").read_bytes()
    nodes = json.loads((example / "a.json").read_text())["nodes"]
    assert nodes[-1]["type"] == "stream-exec-sink_1"
    assert [n["type"] for n in nodes].count("stream-exec-interval-join_2") == 1
    explained = runner.invoke(app, ["explain", str(example / "a.json")])
    assert explained.exit_code == 0, explained.output
    assert "Sink(table=[OrderShipments]" in explained.output
    assert "earlyFire=[delay=2000 ms, timeMode=ROWTIME]" in explained.output


def test_explain_of_a_broken_plan_says_what_and_where(example):
    compiled = runner.invoke(app, ["compile", str(example / "orders.sql"), "-o", str(example / "p.json")])
    assert compiled.exit_code == 0, compiled.output
    raw = json.loads((example / "p.json").read_text())
    assert raw["nodes"][2]["id"] == 3                   # "node 3" below is the third node's id
    raw["nodes"][2]["type"] = "stream-exec-warp-drive_1"
    (example / "p.json").write_text(json.dumps(raw))
    result = runner.invoke(app, ["explain", str(example / "p.json")])
    assert result.exit_code == 1
    assert "node 3: unknown node type 'stream-exec-warp-drive_1'" in result.output


def test_compile_reports_syntax_errors_with_position(example):
    bad_line = "INSERT INTO t SELECT a FROM t WHERE (a > 1;"
    (example / "bad.sql").write_text("CREATE TABLE t (a INT) WITH ('connector'='values');\n"
                                     f"{bad_line}\n")
    result = runner.invoke(app, ["compile", str(example / "bad.sql"), "-o", str(example / "x.json")])
    assert result.exit_code == 1
    assert "bad.sql:2:" in result.output and "syntax error" in result.output
    column = bad_line.index("(") + 1                    # the parenthesis that is never closed
    assert f"bad.sql:2:{column}: syntax error: expected ')' to close this '('" in result.output
    assert not (example / "x.json").exists()



def test_an_error_prints_its_bracketed_names_as_written(example):
    """Rich reads `[name]` as a style tag: an error's text is printed as written, so a
    message listing keys in brackets keeps them (it printed 'Primary key: ,' before)."""
    (example / "keyed.sql").write_text(
        "CREATE TABLE o (id BIGINT, k BIGINT) WITH ('connector' = 'values');\n"
        "CREATE TABLE s (k BIGINT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) "
        "WITH ('connector' = 'values', 'sink-insert-only' = 'false');\n"
        "INSERT INTO s SELECT id, COUNT(*) FROM (SELECT id, k FROM o) GROUP BY id, k;\n")
    result = runner.invoke(app, ["compile", str(example / "keyed.sql"), "-o",
                                 str(example / "x.json")])
    assert result.exit_code == 1
    assert "Primary key: [k], upsert key: []." in " ".join(result.output.split())
def test_script_plan_statements_compile_explain_and_execute(example, spark):
    script = (example / "orders.sql").read_text().replace(
        "INSERT INTO OrderShipments", "COMPILE PLAN 'plan.json' FOR INSERT INTO OrderShipments")
    script += "\nEXPLAIN PLAN 'plan.json';\nEXECUTE PLAN 'plan.json';\n"
    env = TableEnvironment(spark=spark, base_dir=example, checkpoint_dir=example / "ckpt",
                           output_dir=example / "out")
    compiled, explained, executed = env.execute_sql(script)[-3:]
    assert compiled.kind == "compiled" and (example / "plan.json").exists()
    assert "IntervalJoin(joinType=[LeftOuterJoin]" in explained.detail
    texts = executed.run.sinks["OrderShipments"].texts
    assert "-U[3, CAROL, 5.25, null, null]" in texts and "+U[3, CAROL, 5.25, 103, 2024-01-01T10:00:07]" in texts
    again = TableEnvironment(spark=spark, base_dir=example)
    # Not "table ... already exists": the new environment creates the tables afresh.
    with pytest.raises(PlanningError, match=r"plan file .*plan\.json already exists"):
        again.execute_sql((example / "orders.sql").read_text().replace(
            "INSERT INTO OrderShipments", "COMPILE PLAN 'plan.json' FOR INSERT INTO OrderShipments"))
