"""Fixtures of older Spark releases (harness.spark_releases): where they live, which releases
are kept, what the audit asks of them, and that a checkpoint of a newer Spark than the one
running is refused before Spark touches it. Their restores run in the gate (restore_tests)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.audit import check_restore_completeness
from harness.discovery import discover_programs
from harness.errors import FixtureError, FrozenFixtureError, HarnessError
from harness.fixtures import RELEASES_FILE, fixture_for, scan_snapshots
from harness.generate import generate_release_fixture
from harness.spark_releases import requirements, track_release, tracked_releases
from streamplan.checkpoints import CHECKPOINT_MARKER, check_spark_release, read_marker
from streamplan.errors import CheckpointError
from streamplan.testing import SPARK_VERSION, parse_version, running_spark_version

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots"


@pytest.fixture
def calc_snapshots(tmp_path) -> Path:
    """A copy of the checked-in calc fixtures (pinned release only)."""
    root = tmp_path / "snapshots"
    shutil.copytree(SNAPSHOTS / "calc_1", root / "calc_1",
                    ignore=shutil.ignore_patterns("spark-*"))
    return root


def test_a_release_fixture_shares_the_plan_and_keeps_its_own_files(calc_snapshots):
    release_dir = calc_snapshots / "calc_1" / "calc-changelog" / "spark-4.1.4"
    (release_dir / "checkpoint").mkdir(parents=True)
    track_release(calc_snapshots, "4.1.4")
    fixtures, problems = scan_snapshots(calc_snapshots)
    assert problems == []                                # spark-releases.json is no stray
    (release,) = [f for f in fixtures if f.spark_release]
    assert release.id == "calc_1/calc-changelog/spark-4.1.4"
    pinned = fixture_for(calc_snapshots, "calc", 1, "calc-changelog")
    assert release.plan_path == pinned.plan_path
    assert release.checkpoint_dir == release_dir / "checkpoint"
    assert release.manifest_path == release_dir / "manifest.json"
    assert release.checksums_path == release_dir / "checkpoint.sha256"


def test_tracked_releases_are_kept_sorted_and_a_broken_list_is_named(tmp_path):
    assert tracked_releases(tmp_path) == ()
    track_release(tmp_path, "4.2.1")
    track_release(tmp_path, "4.10.0")
    track_release(tmp_path, "4.1.4")
    assert tracked_releases(tmp_path) == ("4.1.4", "4.2.1", "4.10.0")
    (tmp_path / RELEASES_FILE).write_text('{"releases": [4]}')
    with pytest.raises(HarnessError, match=r"spark-releases.json: unreadable"):
        tracked_releases(tmp_path)


def test_the_checked_in_fixtures_keep_two_older_minor_lines():
    releases = tracked_releases(SNAPSHOTS)
    assert len({release.rsplit(".", 1)[0] for release in releases}) >= 2
    assert all(parse_version(release) < parse_version(SPARK_VERSION) for release in releases)


def test_every_program_of_the_latest_versions_needs_a_fixture_of_each_kept_release(calc_snapshots):
    track_release(calc_snapshots, "4.1.4")
    release_dir = calc_snapshots / "calc_1" / "calc-changelog" / "spark-4.1.4"
    pinned = SNAPSHOTS / "calc_1" / "calc-changelog"
    shutil.copytree(pinned, release_dir, ignore=shutil.ignore_patterns("plan", "spark-*"))
    findings = [f for f in check_restore_completeness(discover_programs(), calc_snapshots)
                if f.subject.startswith("calc_1/")]
    missing = {f.subject: f.message for f in findings if f.subject.endswith("spark-4.1.4")}
    calc_programs = {path.name for path in (calc_snapshots / "calc_1").iterdir()}
    # every calc program but the one given a 4.1.4 fixture is named, with the command
    assert set(missing) == {f"calc_1/{name}/spark-4.1.4" for name in calc_programs
                            if name != "calc-changelog"}
    assert ("run `harness generate --spark 4.1.4 --program calc-projection-filter`"
            in missing["calc_1/calc-projection-filter/spark-4.1.4"])


def test_a_release_environment_pins_that_pyspark_and_the_other_dependencies():
    reqs = requirements("4.1.4")
    assert reqs[0] == "pyspark==4.1.4"
    assert not any(req.startswith("pyspark") for req in reqs[1:])
    assert any(req.startswith("pydantic") for req in reqs)


def test_release_fixtures_are_frozen_and_need_the_pinned_plan(calc_snapshots):
    (program,) = [p for p in discover_programs() if p.id == "calc-changelog"]
    release = running_spark_version()
    existing = calc_snapshots / "calc_1" / "calc-changelog" / f"spark-{release}"
    existing.mkdir()
    with pytest.raises(FrozenFixtureError, match=rf"calc_1/calc-changelog/spark-{release} exists "
                                                 r"and is frozen"):
        generate_release_fixture(program, calc_snapshots)
    shutil.rmtree(calc_snapshots / "calc_1" / "calc-changelog")
    with pytest.raises(FixtureError, match=r"calc_1/calc-changelog has no plan to share: generate "
                                           r"the pinned fixture first"):
        generate_release_fixture(program, calc_snapshots)


def test_a_checkpoint_of_a_newer_spark_is_refused(tmp_path):
    running = running_spark_version()
    check_spark_release(None, "old checkpoint")            # engine 0.2 markers record no Spark
    check_spark_release("4.1.4", "older")
    check_spark_release(running, "same")
    with pytest.raises(CheckpointError, match=rf"^ckpt: written by Spark 99.0.0, newer than the "
                                              rf"Spark {running} running here; Spark reads "
                                              r"checkpoints of its own and older releases only"):
        check_spark_release("99.0.0", "ckpt")
    (tmp_path / CHECKPOINT_MARKER).write_text('{"engineVersion": "0.3", "sparkVersion": "x.y"}')
    with pytest.raises(CheckpointError, match=r"sparkVersion must be a version string"):
        read_marker(tmp_path)


@pytest.mark.spark
def test_restoring_a_newer_sparks_checkpoint_fails_before_spark_touches_it(spark, tmp_path):
    from streamplan.api import TableEnvironment
    from streamplan.plan import load_plan

    fixture = fixture_for(SNAPSHOTS, "calc", 1, "calc-changelog")
    checkpoint = tmp_path / "checkpoint"
    shutil.copytree(fixture.checkpoint_dir, checkpoint)
    marker = json.loads((checkpoint / CHECKPOINT_MARKER).read_text())
    (checkpoint / CHECKPOINT_MARKER).write_text(json.dumps({**marker, "sparkVersion": "99.0.0"}))
    before = sorted(path.relative_to(checkpoint) for path in checkpoint.rglob("*"))
    with pytest.raises(CheckpointError, match=r"written by Spark 99.0.0, newer than the Spark"):
        TableEnvironment(spark=spark).execute_plan(load_plan(fixture.plan_path), checkpoint,
                                                   tmp_path / "out", data={})
    assert sorted(path.relative_to(checkpoint) for path in checkpoint.rglob("*")) == before


def test_the_gate_refuses_a_fixture_whose_manifest_names_a_newer_spark(calc_snapshots):
    from harness.restore import restore_fixture

    fixture = fixture_for(calc_snapshots, "calc", 1, "calc-changelog")
    manifest = json.loads(fixture.manifest_path.read_text())
    fixture.manifest_path.write_text(json.dumps({**manifest, "sparkVersion": "99.0.0"}))
    with pytest.raises(FixtureError, match=r"^fixture calc_1/calc-changelog: written by Spark "
                                           r"99.0.0, newer than the Spark"):
        restore_fixture(fixture, discover_programs())      # refused before any Spark session


def test_generate_spark_runs_generate_in_the_release_environment_and_tracks_the_release(
        calc_snapshots, monkeypatch):
    from typer.testing import CliRunner

    import harness.spark_releases as spark_releases
    from harness.cli import app

    calls = []

    def fake_run(release, args, console):
        calls.append((release, args))
        (calc_snapshots / "calc_1" / "calc-changelog" / f"spark-{release}").mkdir()
        return 0
    monkeypatch.setattr(spark_releases, "run_in_release", fake_run)
    result = CliRunner().invoke(app, ["generate", "--spark", "4.1.4", "--program", "calc-changelog",
                                      "--snapshots", str(calc_snapshots)])
    assert result.exit_code == 0, result.output
    assert calls == [("4.1.4", ["generate", "--release-run", "--snapshots", str(calc_snapshots),
                                "--program", "calc-changelog"])]
    assert tracked_releases(calc_snapshots) == ("4.1.4",)


def test_a_release_run_is_this_checkouts_harness_on_that_environments_python(tmp_path, monkeypatch):
    import sys

    from rich.console import Console

    import harness.spark_releases as spark_releases

    monkeypatch.setattr(spark_releases, "release_python", lambda release, console: Path(sys.executable))
    assert spark_releases.run_in_release("4.1.4", ["list", "--snapshots", str(tmp_path)],
                                         Console()) == 0
    assert spark_releases.run_in_release("4.1.4", ["no-such-command"], Console()) != 0


def test_an_older_releases_checkpoint_of_a_batch_invariant_plan_restores_in_one_batch():
    """harness.restore.in_one_batch: only a release fixture, only a plan whose changelog
    cannot depend on its batches (no event time; at most one stateful node, or keyed nodes one
    after another in Flink's arrival order)."""
    from harness.restore import in_one_batch
    from streamplan.testing import Configuration, load_plan

    fixtures = {f.id: f for f in scan_snapshots(SNAPSHOTS)[0]}

    def one_batch(fixture_id: str) -> bool:
        fixture = fixtures[fixture_id]
        return in_one_batch(fixture, load_plan(fixture.plan_path), Configuration())

    simple = "group-aggregate_1/group-aggregate-simple"
    assert one_batch(f"{simple}/spark-4.1.4") and one_batch(f"{simple}/spark-4.2.1")
    assert not one_batch(simple)                          # today's Spark: the program's shape
    # event time (watermarks advance at batch boundaries), two stateful nodes
    assert not one_batch("window-aggregate_1/window-aggregate-tumble-event-time/spark-4.1.4")
    assert not one_batch("rank_1/rank-nulls/spark-4.1.4")      # two ranks side by side
    # an aggregate over an aggregate: the second takes its input in Flink's arrival order
    assert one_batch("group-aggregate_1/group-aggregate-of-aggregate/spark-4.1.4")
