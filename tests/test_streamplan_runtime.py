"""Running plans on local Spark: restarts lose and repeat nothing; the flagship early-fire
correction survives a checkpoint; sinks enforce NOT NULL as configured."""
from __future__ import annotations

import pytest

from streamplan.api import normalize_rows, source_scans
from streamplan.errors import ExecutionError
from streamplan.changelog import END_OF_INPUT, RowKind
from streamplan.executor import advances_event_time, phased_steps
from streamplan.runtime.changelog_sink import batch_ids
from streamplan.runtime.interval_join_v2 import bucket_keys

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE Orders (id INT, customer STRING, t TIMESTAMP(3),
  WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE TABLE Shipments (id INT, t TIMESTAMP(3),
  WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE TABLE Out (id INT NOT NULL, customer STRING, shipped TIMESTAMP(3))
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""
EARLY_FIRE_JOIN = """INSERT INTO Out
SELECT /*+ EARLY_FIRE('delay'='2s') */ o.id, o.customer, s.t
FROM Orders o LEFT JOIN Shipments s
  ON o.id = s.id AND s.t BETWEEN o.t AND o.t + INTERVAL '10' SECOND"""


def feeds(plan, phases, end_of_input):
    scans = {scan.table.identifier: scan for scan in source_scans(plan)}
    typed = [{table: normalize_rows(rows, scans[table].row_type, table) for table, rows in phase.items()}
             for phase in phases]
    return phased_steps(typed, sorted(scans), end_of_input, advances_event_time(plan))


def test_stop_and_restart_on_one_checkpoint_loses_and_repeats_nothing(env, tmp_path):
    plan = env.compile_sql("INSERT INTO Out SELECT id, UPPER(customer), t FROM Orders WHERE id > 1")
    before = {"Orders": [[1, "a", "2024-01-01 10:00:00"], [2, "b", "2024-01-01 10:00:01"]]}
    after = {"Orders": [[3, "c", "2024-01-01 10:00:02"], [4, "d", "2024-01-01 10:00:03"]]}
    ckpt, out = tmp_path / "ckpt", tmp_path / "out"
    first = env.execute_plan(plan, ckpt, out, feeds(plan, [before], False))
    assert first.sinks["Out"].texts == ["+I[2, B, 2024-01-01T10:00:01]"]
    second = env.execute_plan(plan, ckpt, out, feeds(plan, [before, after], True))
    assert second.sinks["Out"].texts == ["+I[3, C, 2024-01-01T10:00:02]",
                                         "+I[4, D, 2024-01-01T10:00:03]"]
    third = env.execute_plan(plan, ckpt, out, feeds(plan, [before, after], True))
    assert third.sinks["Out"].texts == []


def test_steps_after_the_last_row_are_left_out_only_where_no_event_time_can_fire():
    one, two, three = [(RowKind.INSERT, (n,)) for n in (1, 2, 3)]
    phases = [{"T": [one, two]}, {"T": [three]}]
    # the last rows carry the end-of-input marker; one tick follows, at the end of time
    assert phased_steps(phases, ["T"], True)["T"] == [[one], [two], [], [three, END_OF_INPUT],
                                                      []]
    assert phased_steps([{"T": [one]}, {}], ["T"], True)["T"] == [[one], [], [END_OF_INPUT], []]
    assert phased_steps(phases, ["T"], True, event_time=False)["T"] == [[one], [two], [], [three]]
    # a last phase without rows keeps its tick: a run resumed after the first phase runs a batch
    assert phased_steps([{"T": [one]}, {}], ["T"], True, event_time=False)["T"] == [[one], [], []]
    # a checkpoint taken at the end of a phase is laid out the same either way
    assert phased_steps(phases[:1], ["T"], False, event_time=False)["T"] == [[one], [two], []]


def test_a_plan_without_event_time_runs_no_batch_after_its_last_row(env, tmp_path):
    env.execute_sql("CREATE TABLE Plain (id INT, name STRING) WITH ('connector' = 'values');"
                    "CREATE TABLE PlainOut (id INT, name STRING) WITH ('connector' = 'values');")
    plan = env.compile_sql("INSERT INTO PlainOut SELECT id, UPPER(name) FROM Plain")
    assert not advances_event_time(plan)
    assert advances_event_time(env.compile_sql("INSERT INTO Out SELECT id, customer, t FROM Orders"))
    before, after = {"Plain": [[1, "a"], [2, "b"]]}, {"Plain": [[3, "c"]]}
    for resumed_with, batches, texts in ((after, 1, ["+I[3, C]"]), ({}, 1, [])):
        ckpt, out = tmp_path / f"ckpt-{len(texts)}", tmp_path / f"out-{len(texts)}"
        env.execute_plan(plan, ckpt, out, feeds(plan, [before], False))
        written = out / plan.sinks[0].table.identifier
        assert batch_ids(written) == [0, 1, 2]                # two rows and the phase's tick
        resumed = env.execute_plan(plan, ckpt, out, feeds(plan, [before, resumed_with], True))
        assert resumed.sinks["PlainOut"].texts == texts
        assert batch_ids(written) == list(range(3 + batches))  # no tick after a row, no end of input


def test_early_fired_padding_is_corrected_after_restore(env, tmp_path):
    """The correction after the restore needs the fired marker from the checkpoint."""
    plan = env.compile_sql(EARLY_FIRE_JOIN)
    before = {"Orders": [[1, "alice", "2024-01-01 10:00:00"], [2, "bob", "2024-01-01 10:00:04"]],
              "Shipments": [[9, "2024-01-01 10:00:03"], [9, "2024-01-01 10:00:04"]]}
    after = {"Orders": [[3, "carol", "2024-01-01 10:00:30"]],
             "Shipments": [[1, "2024-01-01 10:00:06"]]}
    ckpt, out = tmp_path / "ckpt", tmp_path / "out"
    first = env.execute_plan(plan, ckpt, out, feeds(plan, [before], False))
    # The watermark ends the first run at 10:00:03 (both inputs: 10:00:04 - 1 s): alice's
    # fire timer (10:00:00 + 2 s) is due, bob's (10:00:06) is not; shipments 9 match nobody.
    assert first.sinks["Out"].texts == ["+I[1, alice, null]"]
    second = env.execute_plan(plan, ckpt, out, feeds(plan, [before, after], True))
    assert sorted(second.sinks["Out"].texts) == sorted([
        "-U[1, alice, null]", "+U[1, alice, 2024-01-01T10:00:06]",
        "+I[2, bob, null]", "+I[3, carol, null]"])
    # The correction is a retraction followed by its replacement, in that order.
    texts = second.sinks["Out"].texts
    assert texts.index("-U[1, alice, null]") + 1 == texts.index("+U[1, alice, 2024-01-01T10:00:06]")


def test_not_null_enforcer_error_fails_with_the_column_named(env, tmp_path):
    plan = env.compile_sql("INSERT INTO Out SELECT CASE WHEN id = 2 THEN NULL ELSE id END, customer, t "
                           "FROM Orders")
    data = feeds(plan, [{"Orders": [[1, "a", "2024-01-01 10:00:00"], [2, "b", "2024-01-01 10:00:01"]]}], True)
    # ExecutionError, not its subclass NotNullViolation: the executor wraps every failed query.
    with pytest.raises(ExecutionError, match=r"Column\(s\) id of table sink 'Out' are NOT NULL") as info:
        env.execute_plan(plan, tmp_path / "ckpt", tmp_path / "out", data)
    assert str(info.value).startswith(f"query for table sink 'Out' (node {plan.sinks[0].id}) failed: ")


def test_a_null_rowtime_fails_the_query_at_the_watermark_as_in_flink(env, tmp_path):
    plan = env.compile_sql("INSERT INTO Out SELECT id, customer, t FROM Orders")
    data = feeds(plan, [{"Orders": [[1, "a", "2024-01-01 10:00:00"], [2, "b", None]]}], True)
    assigner = next(node for node in plan.nodes if node.type.startswith("stream-exec-watermark"))
    with pytest.raises(ExecutionError, match=rf"RowTime field 't' should not be null \(node "
                                             rf"{assigner.id}, WatermarkAssigner\(rowtime=\[t\]"):
        env.execute_plan(plan, tmp_path / "ckpt", tmp_path / "out", data)


def test_not_null_enforcer_drop_drops_the_row(env, tmp_path):
    env.config.set("table.exec.sink.not-null-enforcer", "DROP")
    plan = env.compile_sql("INSERT INTO Out SELECT CASE WHEN id = 2 THEN NULL ELSE id END, customer, t "
                           "FROM Orders")
    data = feeds(plan, [{"Orders": [[1, "a", "2024-01-01 10:00:00"], [2, "b", "2024-01-01 10:00:01"]]}], True)
    result = env.execute_plan(plan, tmp_path / "ckpt", tmp_path / "out", data)
    assert result.sinks["Out"].texts == ["+I[1, a, 2024-01-01T10:00]"]


def test_late_rows_are_not_cached_padded_at_once_and_counted(env, tmp_path, spark):
    plan = env.compile_sql("""INSERT INTO Out SELECT o.id, o.customer, s.t
        FROM Orders o LEFT JOIN Shipments s
        ON o.id = s.id AND s.t BETWEEN o.t AND o.t + INTERVAL '5' SECOND""")
    data = feeds(plan, [{"Orders": [[1, "on-time", "2024-01-01 10:00:00"], [7, "x", "2024-01-01 10:00:30"],
                                    [2, "late", "2024-01-01 10:00:01"]],
                         "Shipments": [[5, "2024-01-01 10:00:20"], [5, "2024-01-01 10:00:30"],
                                       [2, "2024-01-01 10:00:02"]]}], True)
    ckpt = tmp_path / "ckpt"
    result = env.execute_plan(plan, ckpt, tmp_path / "out", data)
    # The late order (watermark 10:00:19 > 10:00:01 + 5 s) is padded right away: its shipment,
    # late too, finds no cached order to join.
    assert sorted(result.sinks["Out"].texts) == ["+I[1, on-time, null]", "+I[2, late, null]",
                                                 "+I[7, x, null]"]
    buckets = (spark.read.format("statestore").option("stateVarName", "join-state")
               .load(str(ckpt / f"sink-{plan.sinks[0].id}")).collect())
    # Window: o.t - 0 <= s.t <= o.t + 5 s. The late order waits 5 s past 10:00:01, its shipment
    # (10:00:02) 0 s: both are behind the watermark when they arrive, both counted under key 2
    # (version 2 keeps join keys in buckets; the count is in the key's entry).
    counts = {key: entry["lateRows"] for row in buckets
              for key, entry in bucket_keys(row["value"]).items()}
    assert counts == {(2,): 2}
