"""Per-operator state TTL in the plan (FLIP-292): the `state` entries of a compiled plan set
each input's TTL, hand edits of them apply when the plan runs, and TTL is processing time.

Expiry is tested here with short TTLs and a pause between two runs of one checkpoint;
checked-in fixtures never depend on TTL expiring (they use none, or a day)."""
from __future__ import annotations

import json
import time

import pytest

from streamplan.api import TableEnvironment, normalize_rows, source_scans
from streamplan.errors import PlanFormatError, PlanningError
from streamplan.executor import phased_steps
from streamplan.plan import parse_plan

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE T (k STRING, v BIGINT) WITH ('connector' = 'values');
CREATE TABLE S (k STRING, n BIGINT, total BIGINT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""
AGG = "INSERT INTO S SELECT k, COUNT(*), SUM(v) FROM T GROUP BY k"


@pytest.fixture()
def env(spark):
    environment = TableEnvironment(spark=spark)
    environment.execute_sql(DDL)
    return environment


def feed(plan, *phases):
    """Micro-batch steps of the phases' rows; a restarted run replays the earlier phases'
    steps and continues after its checkpoint's offset (as the harness does)."""
    (scan,) = source_scans(plan)
    return phased_steps([{"T": normalize_rows(rows, scan.row_type, "T")} for rows in phases],
                        ["T"], False)


def state_of(plan):
    (agg,) = [node for node in plan.to_json()["nodes"] if "state" in node]
    return agg["state"]


def test_the_state_entry_defaults_to_the_session_ttl_and_a_hint_overrides_it(env):
    assert state_of(env.compile_sql(AGG)) == [
        {"index": 0, "ttl": "0 ms", "name": "groupAggregateState"}]
    env.config.set("table.exec.state.ttl", "1 h")
    assert state_of(env.compile_sql(AGG))[0]["ttl"] == "3600000 ms"
    hinted = env.compile_sql(AGG.replace("SELECT k", "SELECT /*+ STATE_TTL('T' = '2d') */ k"))
    assert state_of(hinted)[0]["ttl"] == "172800000 ms"


@pytest.mark.parametrize("hint, message", [
    ("STATE_TTL('X' = '1d')", r"STATE_TTL names 'X', which is not an input of a join or "
                              r"aggregate of this query \(the inputs are: T\)"),
    ("STATE_TTL('T' = 'soon')", r"STATE_TTL option 'T': 'soon' is not a duration"),
    ("JOIN_STATE_TTL('T' = '1d')", r"JOIN_STATE_TTL names 'T', which is not an input of a join"),
])
def test_a_bad_state_ttl_hint_names_the_key_and_the_reason(env, hint, message):
    with pytest.raises(PlanningError, match=message):
        env.compile_sql(AGG.replace("SELECT k", f"SELECT /*+ {hint} */ k"))


def test_an_edited_ttl_is_validated_when_the_plan_loads(env):
    raw = env.compile_sql(AGG).to_json()
    next(node for node in raw["nodes"] if "state" in node)["state"][0]["ttl"] = "-5 s"
    with pytest.raises(PlanFormatError, match=r"field 'state\.0\.ttl'.*'-5 s' is negative"):
        parse_plan(json.dumps(raw), "edited.json")


@pytest.mark.parametrize("ttl, expected_second_run", [
    ("0 ms", ["-U[a, 1, 1]", "+U[a, 2, 3]"]),      # never expires: the key is updated
    ("1500 ms", ["+I[a, 1, 2]"]),                   # expired during the pause: a first row
])
def test_an_edited_ttl_in_the_compiled_plan_decides_what_expires(env, tmp_path, ttl,
                                                                 expected_second_run):
    raw = env.compile_sql(AGG).to_json()
    next(node for node in raw["nodes"] if "state" in node)["state"][0]["ttl"] = ttl
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(raw))
    plan = parse_plan(path.read_text(), str(path))
    checkpoint, output = tmp_path / "ckpt", tmp_path / "out"
    first = env.execute_plan(plan, checkpoint, output, feed(plan, [["a", 1]]), end_of_input=False)
    assert first.sinks["S"].texts == ["+I[a, 1, 1]"]
    time.sleep(3)                                   # processing time passes between runs
    second = env.execute_plan(plan, checkpoint, output, feed(plan, [["a", 1]], [["a", 2]]),
                              end_of_input=False)
    assert second.sinks["S"].texts == expected_second_run
