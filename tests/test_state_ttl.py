"""Per-operator state TTL in the plan (FLIP-292): the `state` entries of a compiled plan set
each input's TTL, hand edits of them apply when the plan runs, and TTL is processing time.

Expiry is tested here with short TTLs and two runs of one checkpoint on the manual clock:
the second run's steps are stamped 3 s after the first's (`step_times`), so what expires
never depends on how long a run takes. A restore resumes at the checkpoint's time, so
fixtures with TTLs restore the same way however long after their generation the gate runs."""
from __future__ import annotations

import json
import time

import pytest

from streamplan.api import TableEnvironment, normalize_rows, source_scans
from streamplan.errors import PlanFormatError, PlanningError
from streamplan.executor import phased_steps, step_layout, step_times
from streamplan.plan import parse_plan

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE T (k STRING, v BIGINT) WITH ('connector' = 'values');
CREATE TABLE S (k STRING, n BIGINT, total BIGINT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""
AGG = "INSERT INTO S SELECT k, COUNT(*), SUM(v) FROM T GROUP BY k"


def feed(plan, *phases):
    """Micro-batch steps of the phases' rows; a restarted run replays the earlier phases'
    steps and continues after its checkpoint's offset (as the harness does)."""
    (scan,) = source_scans(plan)
    return phased_steps([{"T": normalize_rows(rows, scan.row_type, "T")} for rows in phases],
                        ["T"], False)


START = 1_704_067_200_000


def three_seconds_later(plan, *phases) -> list[int]:
    """Step times of `feed(plan, *phases)`: the last phase 3 s after the ones before it."""
    layout = step_layout([{"T": rows} for rows in phases], ["T"], False)
    return step_times(layout, START, [(len(phases) - 1, 0, 3000)])


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


def test_a_key_in_two_state_ttl_hints_takes_the_first_as_flink_does(env):
    # Flink's plan of JoinTestPrograms#JOIN_WITH_STATE_TTL_HINT keeps the first hint's TTL
    two = "SELECT /*+ STATE_TTL('T' = '2d'), STATE_TTL('T' = '8d') */ k"
    assert state_of(env.compile_sql(AGG.replace("SELECT k", two)))[0]["ttl"] == "172800000 ms"


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
    first = env.execute_plan(plan, checkpoint, output, feed(plan, [["a", 1]]), end_of_input=False,
                             processing_time_ms=START)
    assert first.sinks["S"].texts == ["+I[a, 1, 1]"]
    # processing time passes between the runs: the second run's rows come 3 s later
    second = env.execute_plan(plan, checkpoint, output, feed(plan, [["a", 1]], [["a", 2]]),
                              end_of_input=False, processing_time_ms=START,
                              step_times_ms=three_seconds_later(plan, [["a", 1]], [["a", 2]]))
    assert second.sinks["S"].texts == expected_second_run


def test_on_a_manual_clock_a_restore_continues_at_the_checkpoints_processing_time(env, tmp_path):
    """The harness's test clock: processing time stands still in a run, and a run on an
    existing checkpoint resumes at its last batch's time, so a TTL that elapsed on the wall
    clock between the runs has not elapsed for the restored state."""
    from streamplan.checkpoints import last_batch_time_ms, log_files, read_log_entry

    raw = env.compile_sql(AGG).to_json()
    next(node for node in raw["nodes"] if "state" in node)["state"][0]["ttl"] = "1500 ms"
    plan = parse_plan(json.dumps(raw), "plan.json")
    checkpoint, output = tmp_path / "ckpt", tmp_path / "out"
    start = 1_704_067_200_000
    first = env.execute_plan(plan, checkpoint, output, feed(plan, [["a", 1]]),
                             end_of_input=False, processing_time_ms=start)
    assert first.sinks["S"].texts == ["+I[a, 1, 1]"]
    (query,) = checkpoint.glob("sink-*")
    assert last_batch_time_ms(query) == start
    time.sleep(3)                                   # the wall clock passes the TTL
    second = env.execute_plan(plan, checkpoint, output, feed(plan, [["a", 1]], [["a", 2]]),
                              end_of_input=False, processing_time_ms=start + 86_400_000)
    assert second.sinks["S"].texts == ["-U[a, 1, 1]", "+U[a, 2, 3]"]   # not expired
    stamps = {read_log_entry(path).metadata["batchTimestampMs"]
              for path in log_files(query / "offsets")}
    assert stamps == {start}


def test_the_manual_clock_reads_the_shape_of_sparks_start_query_once(spark, monkeypatch):
    from streamplan.runtime import manual_clock

    walks = []
    find = manual_clock._find_leading_options
    monkeypatch.setattr(manual_clock, "_found_leading", None)
    monkeypatch.setattr(manual_clock, "_find_leading_options",
                        lambda manager: walks.append(manager) or find(manager))
    manager = spark._jsparkSession.sessionState().streamingQueryManager()
    shapes = {manual_clock._leading_options(manager) for _ in range(3)}
    assert len(walks) == 1 and shapes <= set(manual_clock._LEADING.values()) and len(shapes) == 1


# --- the regular join: version 1 reads the persisted option, version 2 its plan's 'state' -----

JOIN_DDL = """
CREATE TABLE O (id INT, k INT) WITH ('connector' = 'values');
CREATE TABLE C (k INT, name STRING) WITH ('connector' = 'values');
CREATE TABLE J (id INT, name STRING) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""
LEFT_JOIN = "INSERT INTO J SELECT O.id, C.name FROM O LEFT JOIN C ON O.k = C.k"


def join_node(plan):
    (join,) = [node for node in plan.nodes if node.type.startswith("stream-exec-join_")]
    return join


def test_a_version_1_join_takes_its_ttl_from_the_persisted_option_not_the_session():
    from harness.fixtures import DEFAULT_SNAPSHOTS
    from streamplan.nodes.base import TranslateContext
    from streamplan.options import Configuration
    from streamplan.plan import load_plan

    plan = load_plan(DEFAULT_SNAPSHOTS / "join_1" / "join-state-ttl-option" / "plan" /
                     "join-state-ttl-option.json")
    join = join_node(plan)
    assert join.type == "stream-exec-join_1" and join.state is None
    session = Configuration()
    session.set("table.exec.state.ttl", "5 s")
    options = TranslateContext(spark=None, config=session, plan=plan).options(join)
    assert join.ttl_ms(options) == (86_400_000, 86_400_000)        # '1 d', as persisted


def test_a_version_2_join_writes_one_state_entry_per_input_from_hints_or_the_session(spark):
    env = TableEnvironment(spark=spark)
    env.execute_sql(JOIN_DDL)
    env.config.set("table.exec.state.ttl", "1 h")
    hinted = env.compile_sql(LEFT_JOIN.replace("SELECT O.id", "SELECT /*+ JOIN_STATE_TTL("
                                               "'O' = '1d') */ O.id"))
    join = join_node(hinted)
    assert join.type == "stream-exec-join_2" and join.configuration == {}
    assert [entry.model_dump(by_alias=True) for entry in join.state] == [
        {"index": 0, "ttl": "86400000 ms", "name": "leftState"},
        {"index": 1, "ttl": "3600000 ms", "name": "rightState"}]


@pytest.mark.parametrize("edit, message", [
    (lambda node: node.pop("state"), r"version 2 needs 'state' with one entry per input"),
    (lambda node: node.update(type="stream-exec-join_1"), r"version 1 has no 'state' field"),
])
def test_a_join_plan_whose_state_does_not_fit_its_version_fails_to_load(spark, edit, message):
    env = TableEnvironment(spark=spark)
    env.execute_sql(JOIN_DDL)
    raw = env.compile_sql(LEFT_JOIN).to_json()
    edit(next(node for node in raw["nodes"] if node["type"].startswith("stream-exec-join_")))
    with pytest.raises(PlanFormatError, match=message):
        parse_plan(json.dumps(raw), "edited.json")


@pytest.mark.parametrize("left_ttl, expected_second_run", [
    ("0 ms", ["-D[1, null]", "+I[1, c1]"]),        # the order is still there: it joins
    ("1500 ms", []),                                # the order expired: the customer is alone
])
def test_an_edited_join_state_ttl_expires_only_that_side(spark, tmp_path, left_ttl,
                                                         expected_second_run):
    env = TableEnvironment(spark=spark)
    env.execute_sql(JOIN_DDL)
    raw = env.compile_sql(LEFT_JOIN).to_json()
    join = next(node for node in raw["nodes"] if node["type"].startswith("stream-exec-join_"))
    join["state"][0]["ttl"] = left_ttl
    plan = parse_plan(json.dumps(raw), "edited.json")
    scans = {scan.table.identifier: scan for scan in source_scans(plan)}

    def steps(*phases):
        typed = [{name: normalize_rows(rows, scans[name].row_type, name)
                  for name, rows in phase.items()} for phase in phases]
        return phased_steps(typed, ["C", "O"], False)

    before, after = {"O": [[1, 1]], "C": []}, {"O": [], "C": [[1, "c1"]]}
    checkpoint, output = tmp_path / "ckpt", tmp_path / "out"
    first = env.execute_plan(plan, checkpoint, output, steps(before), end_of_input=False,
                             processing_time_ms=START)
    assert first.sinks["J"].texts == ["+I[1, null]"]
    later = step_times(step_layout([before, after], ["C", "O"], False), START, [(1, 0, 3000)])
    second = env.execute_plan(plan, checkpoint, output, steps(before, after), end_of_input=False,
                              processing_time_ms=START, step_times_ms=later)
    assert second.sinks["J"].texts == expected_second_run
