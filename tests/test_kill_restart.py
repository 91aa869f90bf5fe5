"""Kill and restart (issue 13): a driver process killed with SIGKILL at random points in a
multi-batch stateful query, restarted on the same checkpoint each time, ends with exactly the
changelog an uninterrupted run gives: nothing lost, nothing twice.

The query is a regular join feeding a group aggregate (two transformWithState nodes on
RocksDB), compiled from SQL, written by the `values` sink (one file per micro-batch, a
replayed batch id writes nothing). It runs in tests/kill_restart_driver.py, a process of its
own with its own JVM; the test kills the driver's whole process group (the JVM and the Python
workers it starts) and the groups of PySpark's worker daemons (each makes its own), and
checks that none of their processes survives.

The data is seeded and made so that every micro-batch joins at most one order (an order
joins in the batch of whichever of it and its customer arrives later, as the inner join
caches both sides), so the expected changelog follows from the data alone: batch b holds
the aggregate's +I, or -U and +U, for the order that joins in b, and nothing else. The kill
points are seeded too, but when a kill lands (mid-batch, between the sink's file and Spark's
commit, between batches) depends on timing; the assertions do not.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from streamplan.executor import phased_steps
from streamplan.runtime.changelog_sink import batch_ids, decode_batch

REPO = Path(__file__).resolve().parents[1]
BANNER = "TransformWithStateInPandas Python worker"   # what PySpark's TWS workers print
DRIVER = Path(__file__).with_name("kill_restart_driver.py")

SEED = 13
STEPS = 20                   # data micro-batches (one order and one customer row each)
CUSTOMERS = 6                # real customers; the other customer rows join no order
REGIONS = ("north", "south", "east")
KILLS = 3
REPLAY_WINDOW_TRIES = 4     # batches kill 1 waits for the replay window
START_TIMEOUT_S = 240        # a driver start (JVM, compile, query start) on a loaded machine
RUN_TIMEOUT_S = 300

DDL = """
CREATE TABLE O (id INT, cust INT, amount INT) WITH ('connector' = 'values');
CREATE TABLE C (cust INT, region STRING) WITH ('connector' = 'values');
CREATE TABLE S (region STRING, orders BIGINT, total INT)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""
QUERY = """INSERT INTO S SELECT C.region, COUNT(*), SUM(O.amount)
  FROM O JOIN C ON O.cust = C.cust GROUP BY C.region"""
SINK = "S"
SINK_COLUMNS = ["region", "orders", "total"]


# --- the workload and its changelog -----------------------------------------------------------

def workload(rng: random.Random) -> tuple[list, list, list[list]]:
    """Orders and customers (row i of each in micro-batch i) and the expected changelog per
    micro-batch, as the sink records it: [[kind, [region, orders, total]], ...]."""
    # customer -> the step it arrives in: within the first two thirds, so most orders join
    arrival = dict(zip(range(CUSTOMERS), rng.sample(range(STEPS * 2 // 3), CUSTOMERS)))
    region = {cust: rng.choice(REGIONS) for cust in range(CUSTOMERS)}
    by_step = {step: cust for cust, step in arrival.items()}
    customers = [[by_step[step], region[by_step[step]]] if step in by_step
                 else [1000 + step, "nowhere"] for step in range(STEPS)]
    joins: dict[int, tuple[str, int]] = {}          # micro-batch -> (region, amount) joined in it
    orders = []
    for step in range(STEPS):
        amount = rng.randrange(1, 100)
        # An order joins when the later of it and its customer arrives: in step max(step,
        # arrival). Mostly a customer already there; now and then one still to come (the
        # join caches the order until then); now and then none (cached, never joined).
        free = [cust for cust in range(CUSTOMERS) if max(step, arrival[cust]) not in joins]
        here = [cust for cust in free if arrival[cust] <= step]
        pick = rng.random()
        if here and pick < 0.7:
            cust = rng.choice(here)
        elif free and pick < 0.9:
            cust = rng.choice(free)
        else:
            cust = 2000 + step                      # no such customer
        if cust < 2000:
            joins[max(step, arrival[cust])] = (region[cust], amount)
        orders.append([step, cust, amount])

    batches = len(phased_steps([{"O": orders, "C": customers}], ["C", "O"], True)["O"])
    totals: dict[str, tuple[int, int]] = {}
    expected: list[list] = []
    for batch in range(batches):
        if batch not in joins:
            expected.append([])
            continue
        name, amount = joins[batch]
        if name not in totals:
            totals[name] = (1, amount)
            expected.append([["+I", [name, 1, amount]]])
        else:
            count, total = totals[name]
            totals[name] = (count + 1, total + amount)
            expected.append([["-U", [name, count, total]],
                             ["+U", [name, count + 1, total + amount]]])
    return orders, customers, expected


def differing_batches(expected: list[list], recorded: dict[int, bytes]) -> list[str]:
    """Every batch whose recorded changelog (its file's bytes) is not the expected one."""
    return [f"batch {batch}: expected {want}, recorded {got}"
            for batch in range(max(len(expected), max(recorded, default=-1) + 1))
            for want, got in [(expected[batch] if batch < len(expected) else None,
                               decode_batch(recorded[batch], SINK_COLUMNS)
                               if batch in recorded else None)]
            if want != got]


# --- processes ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    pgid: int
    state: str
    started: str              # clock ticks since boot: (pid, started) names one process
    name: str


def processes() -> dict[int, Proc]:
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.find("(") + 1:stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2:].split()
        found[int(entry.name)] = Proc(int(entry.name), int(fields[1]), int(fields[2]), fields[0],
                                      fields[19], name)
    return found


def tree(root: int) -> list[Proc]:
    """`root` and every process below it."""
    table = processes()
    children: dict[int, list[int]] = {}
    for proc in table.values():
        children.setdefault(proc.ppid, []).append(proc.pid)
    result, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in table:
            result.append(table[pid])
            todo.extend(children.get(pid, []))
    return result


class Started:
    """A driver process and what it started, as last seen: the kill must reach all of it."""

    def __init__(self, popen: subprocess.Popen):
        self.popen = popen
        self.seen: dict[tuple[int, str], Proc] = {}
        self.looked = 0.0

    def look(self, every_s: float = 0.25) -> None:
        """Note the driver's process tree (PySpark's worker daemon is re-parented once the
        JVM dies, so it has to be seen before the kill)."""
        if time.monotonic() - self.looked >= every_s:
            self.looked = time.monotonic()
            self.seen.update({(p.pid, p.started): p for p in tree(self.popen.pid)})

    def alive(self, groups: set[int]) -> list[Proc]:
        return [p for p in processes().values() if p.state != "Z"
                and (p.pgid in groups or (p.pid, p.started) in self.seen)]

    def wait_gone(self, seconds: float = 20) -> list[Proc]:
        """After a clean exit: what the driver started ends too (the survivors, if not)."""
        groups = {p.pgid for p in self.seen.values()} - {os.getpgrp()}
        deadline = time.monotonic() + seconds
        while (alive := self.alive(groups)) and time.monotonic() < deadline:
            time.sleep(0.1)
        return alive

    def kill(self) -> list[Proc]:
        """SIGKILL the driver's process group at once (the JVM is in it: the checkpoint and the
        sink stop where they are), then the groups of what it started (each PySpark worker
        daemon makes one of its own); wait until none of their processes is left. Returns the
        survivors (none expected)."""
        if not self.seen:
            self.look(0)
        _killpg(self.popen.pid)                 # start_new_session: the group id is its pid
        groups = ({p.pgid for p in self.seen.values()} | {self.popen.pid}) - {os.getpgrp()}
        for group in groups:
            _killpg(group)
        self.popen.wait(timeout=30)
        deadline = time.monotonic() + 20
        while True:
            alive = self.alive(groups)
            if not alive or time.monotonic() > deadline:
                return alive
            for group in {p.pgid for p in alive} & groups:
                _killpg(group)
            time.sleep(0.1)


def _killpg(group: int) -> None:
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# --- the checkpoint and the sink, as the test watches them --------------------------------------

@dataclass
class Layout:
    checkpoint: Path
    output: Path

    def _log(self, name: str) -> int:
        """The last batch id in the sink query's offsets/ or commits/ log (-1: none)."""
        ids = [int(p.name) for p in self.checkpoint.glob(f"sink-*/{name}/*") if p.name.isdigit()]
        return max(ids, default=-1)

    def committed(self) -> int:
        return self._log("commits")

    def planned(self) -> int:
        return self._log("offsets")

    def recorded_ids(self) -> set[int]:
        return set(batch_ids(self.output / SINK))

    def recorded(self) -> dict[int, bytes]:
        directory = self.output / SINK
        if not directory.exists():
            return {}
        files = {}
        for path in directory.glob("batch-*.pickle"):
            try:
                files[int(path.stem.split("-")[1])] = path.read_bytes()
            except FileNotFoundError:
                pass
        return files

    def where(self) -> str:
        planned, committed, files = self.planned(), self.committed(), self.recorded()
        last_file = max(files, default=-1)
        if last_file > committed:
            return (f"batch {last_file} recorded by the sink but not committed: it is replayed "
                    f"and must write nothing")
        if planned > committed:
            return f"batch {planned} planned, not yet recorded: it is run again"
        return f"between batches (last committed {committed})"


class Driver:
    def __init__(self, tmp_path: Path, spec: Path, layout: Layout):
        self.tmp_path, self.spec, self.layout = tmp_path, spec, layout
        self.starts = 0
        self.scratch = tmp_path / "scratch"     # what a killed driver leaves behind stays here
        (self.scratch / "spark-local").mkdir(parents=True, exist_ok=True)
        tool_options = os.environ.get("JAVA_TOOL_OPTIONS", "")
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                        filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
                    "TMPDIR": str(self.scratch),
                    "SPARK_LOCAL_DIRS": str(self.scratch / "spark-local"),
                    "JAVA_TOOL_OPTIONS": f"{tool_options} -Djava.io.tmpdir={self.scratch}".strip()}

    def start(self) -> Started:
        self.starts += 1
        self.log = self.tmp_path / f"driver-{self.starts}.log"
        with self.log.open("w") as log:
            return Started(subprocess.Popen(
                [sys.executable, str(DRIVER), str(self.spec), str(self.tmp_path / "plan.json"),
                 str(self.layout.checkpoint), str(self.layout.output)],
                cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True))        # its own process group, the JVM in it

    def tail(self) -> str:
        lines = self.log.read_text(errors="replace").splitlines()
        return f"{self.log.name}, last lines:\n" + "\n".join(lines[-40:])

    def wait_for(self, run: Started, ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ready():
            if run.popen.poll() is not None:
                pytest.fail(f"the driver exited ({run.popen.returncode}) before {what}\n"
                            f"{self.tail()}")
            if time.monotonic() > deadline:
                pytest.fail(f"no {what} within {START_TIMEOUT_S} s\n{self.tail()}")
            run.look()
            time.sleep(0.002)


# --- the test -----------------------------------------------------------------------------------

@dataclass
class Outcome:
    layout: Layout
    expected: list[list]
    kept: dict[int, bytes]         # what the sink had recorded at each kill
    landed: list[str]              # where each kill landed
    final_log: str                 # the last (uninterrupted) start's stdout and stderr


@pytest.fixture(scope="module")
def killed_and_restarted(tmp_path_factory) -> Outcome:
    """The query started, killed KILLS times and started once more to its end, once for the
    module's tests (four driver processes, each with its own JVM, are the cost)."""
    tmp_path = tmp_path_factory.mktemp("kill-restart")
    rng = random.Random(SEED)
    orders, customers, expected = workload(rng)
    assert sum(1 for rows in expected if rows) >= STEPS // 2, "the workload joins too little"
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"ddl": DDL, "query": QUERY,
                                "rows": {"O": orders, "C": customers}}))
    layout = Layout(tmp_path / "checkpoint", tmp_path / "out")
    driver = Driver(tmp_path, spec, layout)
    # The kills spread over the run, each at or after its target batch. Kill 1 comes right
    # when the sink has recorded a batch that Spark has not committed yet (the replay window,
    # ~10 ms a batch; after REPLAY_WINDOW_TRIES batches without catching it, right after a
    # commit); kills 2 and 3 a random while after the commit of their target batch.
    last = STEPS - 2 - REPLAY_WINDOW_TRIES
    targets = [rng.randrange(1 + last * k // KILLS, 1 + last * (k + 1) // KILLS)
               for k in range(KILLS)]
    delays = [None] + [rng.uniform(0.0, 1.0) for _ in range(KILLS - 1)]

    landed, kept, run = [], {}, None
    try:
        for number, (target, delay) in enumerate(zip(targets, delays), 1):
            run = driver.start()
            progress = max(target, layout.committed() + 1)    # each start must make progress
            if delay is None:
                before = layout.recorded_ids()

                def in_replay_window() -> bool:
                    committed = layout.committed()
                    fresh = layout.recorded_ids() - before
                    return (any(batch >= progress and batch > committed for batch in fresh)
                            or committed >= progress + REPLAY_WINDOW_TRIES)
                driver.wait_for(run, in_replay_window, f"batch {progress} or later recorded")
            else:
                driver.wait_for(run, lambda: layout.committed() >= progress,
                                f"the commit of batch {progress}")
                time.sleep(delay)
            if run.popen.poll() is not None:
                pytest.fail(f"the driver finished before kill {number}; give it more steps\n"
                            f"{driver.tail()}")
            survivors = run.kill()
            assert not survivors, f"kill {number} left processes running: {survivors}"
            assert run.popen.returncode == -signal.SIGKILL, driver.tail()
            assert any(p.name == "java" for p in run.seen.values()), \
                f"no JVM seen under the driver: {list(run.seen.values())}"
            when = "at a sink write" if delay is None else f"{delay:.2f} s after a commit"
            landed.append(f"kill {number} ({when}; {len(run.seen)} processes in "
                          f"{len({p.pgid for p in run.seen.values()})} groups): {layout.where()}")
            kept.update(layout.recorded())          # what a replay must never rewrite
        run = driver.start()
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while run.popen.poll() is None:
            if time.monotonic() > deadline:
                pytest.fail(f"the last start did not finish within {RUN_TIMEOUT_S} s\n"
                            f"{driver.tail()}")
            run.look()
            time.sleep(0.05)
        assert run.popen.returncode == 0, driver.tail()
        lingering = run.wait_gone()
        assert not lingering, f"processes left after the driver's clean exit: {lingering}"
    finally:
        if run is not None and run.popen.poll() is None:
            run.kill()
    shutil.rmtree(driver.scratch, ignore_errors=True)   # ~100 MB the killed JVMs left
    return Outcome(layout, expected, kept, landed, driver.log.read_text(errors="replace"))


@pytest.mark.spark
def test_a_query_killed_and_restarted_on_its_checkpoint_loses_and_repeats_nothing(
        killed_and_restarted):
    layout, expected, kept, landed = (killed_and_restarted.layout, killed_and_restarted.expected,
                                      killed_and_restarted.kept, killed_and_restarted.landed)
    print("\n".join(landed))
    recorded = layout.recorded()
    differing = differing_batches(expected, recorded)
    assert not differing, "\n".join(["the sink's changelog differs (None: no file)", *landed,
                                     *differing])
    rewritten = [batch for batch, content in kept.items() if recorded.get(batch) != content]
    assert not rewritten, f"batches rewritten after a restart: {rewritten}"
    assert not list((layout.output / SINK).glob("*.tmp")), "a half-written batch file is left"
    assert layout.committed() == len(expected) - 1


@pytest.mark.spark
def test_a_transform_with_state_query_prints_no_worker_banners(killed_and_restarted):
    """PySpark's transformWithState worker banners and Spark's log-level banner never reach
    the user's terminal (issue 9): the last start is a driver process of its own running two
    transformWithState nodes to the end, as a user runs a plan; its stdout and stderr hold the
    driver's own lines and nothing of Spark's."""
    output = killed_and_restarted.final_log
    assert "driver: done;" in output, output
    assert BANNER not in output, output
    assert "Setting default log level" not in output, output
