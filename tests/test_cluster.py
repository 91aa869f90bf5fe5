"""The gate on a real Spark cluster (issue 11): a standalone master and two workers in Docker
containers (harness.cluster), each test's driver a process of its own pointed at them.

- checked-in fixtures restore on the cluster with the verdicts they get locally (a sample:
  the first fixture of every node version, and one of each older Spark release; the whole
  gate on the cluster is `./run.sh cluster`);
- a worker's container SIGKILLed mid-query: Spark reschedules on the other worker and the
  sink holds exactly the expected changelog, nothing lost and nothing twice;
- the whole cluster stopped and started again between two phases on one checkpoint.

No Docker engine means a failure with the reason, not a skip: the cluster fixture runs
ci/docker-engine, which installs and starts one where the machine allows it.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from harness.cluster.cluster import SparkCluster, driver_environment
from harness.errors import HarnessError
from harness.fixtures import DEFAULT_SNAPSHOTS, scan_snapshots
from test_kill_restart import DDL, QUERY, SINK, Layout, differing_batches, workload

REPO = Path(__file__).resolve().parents[1]
KILL_DRIVER = Path(__file__).with_name("kill_restart_driver.py")
PHASE_DRIVER = Path(__file__).with_name("cluster_phase_driver.py")
RUN_TIMEOUT_S = 600
KILL_AFTER_BATCH = 5          # a worker dies once this micro-batch is committed
RESTART_PROGRAM = "interval-join-early-fire"

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def cluster():
    lines: list[str] = []
    try:
        running = SparkCluster(say=lines.append).start()
    except HarnessError as err:
        pytest.fail(f"the Spark cluster in Docker could not start: {err}", pytrace=False)
    print("\n".join(lines))
    yield running
    running.close()


def driver(cluster: SparkCluster, command: list[str], log: Path) -> subprocess.Popen:
    """A driver process on `cluster` (its master, its shared temp dir), output to `log`."""
    env = {**os.environ, **driver_environment(cluster),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    with log.open("w") as handle:
        return subprocess.Popen([sys.executable, *command], cwd=REPO, env=env, stdout=handle,
                                stderr=subprocess.STDOUT)


def finish(process: subprocess.Popen, log: Path) -> str:
    try:
        process.wait(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(f"the driver did not finish within {RUN_TIMEOUT_S} s\n{tail(log)}")
    assert process.returncode == 0, f"the driver exited with {process.returncode}\n{tail(log)}"
    return log.read_text(errors="replace")


def tail(log: Path, lines: int = 40) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def sample_fixtures() -> list[str]:
    """The first fixture of every node version (pinned Spark) and of every older release."""
    fixtures, _ = scan_snapshots(DEFAULT_SNAPSHOTS)
    picked: dict[tuple, str] = {}
    for fixture in fixtures:
        key = (fixture.spark_release,) if fixture.spark_release else (fixture.short_name,
                                                                      fixture.version)
        picked.setdefault(key, fixture.id)
    return sorted(picked.values())


def test_fixtures_restore_on_the_cluster_as_they_do_locally(cluster, tmp_path):
    selected = sample_fixtures()
    assert len(selected) >= 10, selected
    junit, log = tmp_path / "gate.xml", tmp_path / "gate.log"
    # The gate's own runner (pytest with harness.pytest_plugin), given just these tests.
    tests = [f"restore_tests/test_gate.py::test_restore[{fixture_id}]" for fixture_id in selected]
    finish(driver(cluster, ["-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}",
                            *tests], log), log)
    cases = {case.get("name"): [child.tag for child in case]
             for case in ElementTree.parse(junit).iter("testcase")}
    assert sorted(cases) == sorted(f"test_restore[{fixture_id}]" for fixture_id in selected)
    # Locally (restore_tests) every one of them passes; on the cluster too.
    assert all(not outcome for outcome in cases.values()), cases
    assert cluster.alive_workers() == 2


def test_a_worker_killed_mid_query_loses_and_repeats_nothing(cluster, tmp_path):
    orders, customers, expected = workload(random.Random(11))
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"ddl": DDL, "query": QUERY, "rows": {"O": orders, "C": customers}}))
    layout = Layout(cluster.shared / "driver" / f"kill-{tmp_path.name}", tmp_path / "out")
    log = tmp_path / "driver.log"
    process = driver(cluster, [str(KILL_DRIVER), str(spec), str(tmp_path / "plan.json"),
                               str(layout.checkpoint), str(layout.output)], log)
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while layout.committed() < KILL_AFTER_BATCH:
        assert process.poll() is None, f"the driver exited before batch {KILL_AFTER_BATCH}\n{tail(log)}"
        assert time.monotonic() < deadline, f"no batch {KILL_AFTER_BATCH} committed\n{tail(log)}"
        time.sleep(0.05)
    assert cluster.alive_workers() == 2
    cluster.kill_worker(0)
    killed_at = layout.committed()
    while cluster.alive_workers() != 1:        # the master sees the worker go
        assert time.monotonic() < deadline, "the master still counts the killed worker"
        time.sleep(0.5)
    output = finish(process, log)

    assert killed_at < len(expected) - 1, "the query was over before the worker died"
    assert "Lost executor" in output, f"no executor was lost: the kill missed the query\n{tail(log)}"
    differing = differing_batches(expected, layout.recorded())
    assert not differing, "\n".join(["the sink's changelog differs (None: no file)", *differing])
    assert layout.committed() == len(expected) - 1
    assert not list((layout.output / SINK).glob("*.tmp")), "a half-written batch file is left"


def test_the_whole_cluster_restarted_between_two_phases_of_one_checkpoint(cluster, tmp_path):
    workdir = cluster.shared / "driver" / f"phases-{tmp_path.name}"
    workdir.mkdir(parents=True)
    before = tmp_path / "before.log"
    finish(driver(cluster, [str(PHASE_DRIVER), RESTART_PROGRAM, "before", str(workdir)], before),
           before)
    first_master = cluster.master_url
    cluster.stop()                               # every container removed
    assert not cluster.client.containers.list(filters={"name": f"streamplan-{cluster.id}-"})
    cluster.start()                              # new containers, the same shared directory
    assert cluster.master_url != first_master and cluster.alive_workers() == 2
    after = tmp_path / "after.log"
    output = finish(driver(cluster, [str(PHASE_DRIVER), RESTART_PROGRAM, "after", str(workdir)],
                           after), after)
    assert f"after of {RESTART_PROGRAM} met its expectations" in output
