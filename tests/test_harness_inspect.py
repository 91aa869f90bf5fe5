"""`harness inspect`: what a checkpoint holds, read through Spark's state data source.

The Spark tests inspect the checked-in fixture of INTERVAL_JOIN_EARLY_FIRE
(programs/interval_join.py) and check its state against the program's trace:

    before: L1@1 L2@2 L3@5 (left, keys 1, 2, 3) vs unrelated right rows of key 8 @3 @5 @6;
            the tick at watermark 4 s fires L1 (at 3 s) and L2 (at 4 s): both padded and
            marked fired; the rows stay cached (cleanup 6.001 and 7.001). L3 stays cached
            unfired: it fires at 7 s, after the restore.

Nothing may be written into the fixture: its tree is hashed before and after.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.errors import FixtureError
from harness.fixtures import DEFAULT_SNAPSHOTS
from harness.inspect import inspect_checkpoint, resolve_target

FIXTURE_ID = "interval-join_1/interval-join-early-fire"
FIXTURE_DIR = DEFAULT_SNAPSHOTS / FIXTURE_ID
PLAN_FILE = FIXTURE_DIR / "plan" / "interval-join-early-fire.json"


def at_ms(second: int) -> int:
    """Epoch millis of 2024-01-01 10:00:<second> UTC (the programs' `at`)."""
    return 1704103200000 + second * 1000


def tree_digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.rglob("*")):
        digest.update(path.relative_to(directory).as_posix().encode() + b"\0")
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def join_operator(report: dict) -> dict:
    """The one query's operator that holds the interval join's state."""
    (query,) = report["queries"].values()
    (operator,) = [op for op in query["operators"].values() if "left-cache" in op["variables"]]
    return operator


def by_key(variable: dict) -> dict:
    """Map-state rows as {(grouping key, user map key): user map value}."""
    return {(row["key"]["__k0"], row["user_map_key"]["time"]): row["user_map_value"]
            for row in variable["rows"]}


# --- Spark: the checked-in fixture ---------------------------------------------------------------

@pytest.fixture(scope="module")
def cli_runs(spark):
    """`harness inspect` on the fixture directory, as JSON and as tables; the fixture's tree
    digest before and after both runs."""
    runner = CliRunner()
    before = tree_digest(FIXTURE_DIR)
    as_json = runner.invoke(app, ["inspect", str(FIXTURE_DIR), "--json"])
    as_tables = runner.invoke(app, ["inspect", FIXTURE_ID])
    return as_json, as_tables, before, tree_digest(FIXTURE_DIR)


@pytest.mark.spark
def test_inspect_shows_the_cached_rows_and_fired_flags_of_the_early_fire_fixture(cli_runs):
    result, _, _, _ = cli_runs
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["source"]["fixture"] == FIXTURE_ID
    assert [node["type"] for node in report["plan"]["nodes"]] == [
        "stream-exec-table-source-scan_1", "stream-exec-watermark-assigner_1",
        "stream-exec-table-source-scan_1", "stream-exec-watermark-assigner_1",
        "stream-exec-interval-join_1", "stream-exec-calc_1", "stream-exec-sink_1"]

    (query,) = report["queries"].values()
    assert query["lastBatch"] == query["offsetsBatch"]     # every planned batch committed
    assert query["watermarkMs"] == at_ms(4)                # the tick's watermark: 4 s

    operator = join_operator(report)
    variables = operator["variables"]
    assert {name: v["kind"] for name, v in variables.items()} == {
        "left-cache": "MapState", "left-early-fired": "MapState", "left-cleanup-time": "ValueState",
        "right-cache": "MapState", "right-early-fired": "MapState",
        "right-cleanup-time": "ValueState", "late-rows": "ValueState"}

    # L1 and L2, fired at the tick, stay cached with L3 (keyed by event time)
    cached = {key: [(r["row"]["k"], r["row"]["lv"], r["row"]["lt"]) for r in value["rows"]]
              for key, value in by_key(variables["left-cache"]).items()}
    assert cached == {(1, at_ms(1)): [(1, "a1", "2024-01-01T10:00:01")],
                      (2, at_ms(2)): [(2, "a2", "2024-01-01T10:00:02")],
                      (3, at_ms(5)): [(3, "a3", "2024-01-01T10:00:05")]}
    # ... and only L1 and L2 carry the fired marker the restore must see
    assert by_key(variables["left-early-fired"]) == {(1, at_ms(1)): {"fired": [True]},
                                                      (2, at_ms(2)): {"fired": [True]}}
    # a LEFT join never pads right rows: nothing fired on the right, its rows just cached
    assert variables["right-early-fired"]["rows"] == []
    assert sorted(by_key(variables["right-cache"])) == [(8, at_ms(3)), (8, at_ms(5)), (8, at_ms(6))]

    # timers: the cleanups of L1, L2, L3 and R, and L3's early fire at 5 s + 2 s delay
    timers = {(row["key"]["__k0"], row["expiration_timestamp_ms"]) for row in operator["timers"]["rows"]}
    assert timers == {(1, at_ms(6) + 1), (2, at_ms(7) + 1), (3, at_ms(10) + 1), (3, at_ms(7)),
                      (8, at_ms(8) + 1)}


@pytest.mark.spark
def test_inspect_prints_one_table_per_state_variable(cli_runs):
    _, result, _, _ = cli_runs
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())        # rich wraps long headings
    for name in ("left-cache (MapState)", "left-early-fired (MapState)", "right-cache (MapState)",
                 "left-cleanup-time (ValueState)", "late-rows (ValueState): empty",
                 "timers (EventTime)", "offsets and commits", "stream-exec-interval-join_1"):
        assert name in text
    assert "lv=a1" in text and "[true]" in text


@pytest.mark.spark
def test_inspect_never_writes_into_the_fixture(cli_runs):
    _, _, before, after = cli_runs
    assert after == before


@pytest.mark.spark
def test_a_raw_checkpoint_lists_the_plan_only_when_given(spark):
    """The fixture's checkpoint/ is a raw checkpoint too (portable: inspect materializes it)."""
    checkpoint = FIXTURE_DIR / "checkpoint"
    before = tree_digest(FIXTURE_DIR)
    target = resolve_target(str(checkpoint))
    assert (target.fixture, target.plan_file) == (None, None)
    report = inspect_checkpoint(resolve_target(str(checkpoint), plan_file=PLAN_FILE), spark)
    assert report["source"]["fixture"] is None
    assert [node["id"] for node in report["plan"]["nodes"]] == [1, 2, 3, 4, 5, 6, 7]
    assert sorted(by_key(join_operator(report)["variables"]["left-early-fired"])) == [
        (1, at_ms(1)), (2, at_ms(2))]
    assert tree_digest(FIXTURE_DIR) == before


# --- no Spark: what is not a fixture or a checkpoint ---------------------------------------------

def test_a_path_that_is_neither_fixture_nor_checkpoint_is_a_fixture_error(tmp_path):
    with pytest.raises(FixtureError, match=r"cannot inspect '.*': .* is a directory with neither "
                                           r"checkpoint/ nor streamplan.json"):
        resolve_target(str(tmp_path))
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(FixtureError, match=r"notes.txt is a file\. Expected a fixture directory"):
        resolve_target(str(tmp_path / "notes.txt"))
    with pytest.raises(FixtureError, match=r"there is no fixture interval-join_1/no-such-program "
                                           r"under"):
        resolve_target("interval-join_1/no-such-program", snapshots=DEFAULT_SNAPSHOTS)
    with pytest.raises(FixtureError, match=r"nowhere/at-all does not exist"):
        resolve_target("nowhere/at-all")
    with pytest.raises(FixtureError, match=r"with --plan .*missing.json: no such plan file"):
        resolve_target(str(FIXTURE_DIR / "checkpoint"), plan_file=tmp_path / "missing.json")


def test_cli_reports_a_bad_path_with_exit_code_1(tmp_path):
    result = CliRunner().invoke(app, ["inspect", str(tmp_path / "missing")])
    assert result.exit_code == 1
    message = "".join(result.stderr.split())      # rich wraps the message at the terminal width
    assert f"error:cannotinspect'{tmp_path / 'missing'}'" in message
    assert "checkpointdirectory(holdingstreamplan.json" in message
    assert "Traceback" not in result.output
