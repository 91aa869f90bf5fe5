"""A Spark standalone cluster in containers: one master and two workers, started through
testcontainers, all on the loopback interface.

Every container uses host networking and binds to 127.0.0.1 (SPARK_LOCAL_IP), so no traffic
leaves the machine and no bridge network is needed (ci/docker-engine starts dockerd without
one). Spark, Python and the project are the driver's own, mounted read-only at the paths
the driver sees them at (a distribution's Python is carried by the image instead,
harness.cluster.python); a shared directory, mounted read-write at the same path, holds the
checkpoints and feed files (`driver_on` points the driver's temp dir there).

    with SparkCluster() as cluster, driver_on(cluster):
        spark_session()          # connects to cluster.master_url
        cluster.kill_worker(0)   # SIGKILL a worker's container
        cluster.stop(); cluster.start()   # the whole cluster down and up again
"""
from __future__ import annotations

import getpass
import json
import os
import shutil
import socket
import tempfile
import time
import urllib.request
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Optional

# Ryuk, testcontainers' reaper, is an image on Docker Hub, which these machines cannot reach;
# the cluster removes its own containers (stop(), and stale ones of dead owners at start).
os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")

from ..errors import ClusterError  # noqa: E402
from .engine import docker_client  # noqa: E402
from .image import ensure_image  # noqa: E402
from .python import driver_python  # noqa: E402
from streamplan.testing import stop_spark_session  # noqa: E402

REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
LABEL = "org.streamplan.cluster"        # value: "<owner pid>/<cluster id>"
HOST = "127.0.0.1"
START_TIMEOUT_S = 180
WORKER_MEMORY = "2g"

Say = Callable[[str], None]


class SparkCluster:
    """A standalone master and `workers` workers (one core each) in containers."""

    def __init__(self, workers: int = 2, say: Say = lambda line: None):
        if workers < 1:
            raise ClusterError(f"a cluster needs at least one worker, not {workers}")
        self.workers = workers
        self.say = say
        self.id = uuid.uuid4().hex[:8]
        self.shared = (Path(tempfile.gettempdir()) / f"streamplan-cluster-{os.getuid()}"
                       / self.id)
        self.client = None
        self.image: Optional[str] = None
        self.master_port = self.master_ui_port = 0
        self._master = None
        self._workers: list = []

    # --- life cycle -------------------------------------------------------------------------

    def __enter__(self) -> "SparkCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def start(self) -> "SparkCluster":
        """Start master and workers (building the image first if needed); again after stop()
        on the same shared directory, so checkpoints written before survive."""
        if self._master is not None:
            raise ClusterError(f"cluster {self.id} is already running at {self.master_url}")
        started = time.monotonic()
        self.client = self.client or docker_client()
        self.image = self.image or ensure_image(self.client, self.say)
        _remove_stale(self.client)
        (self.shared / "work").mkdir(parents=True, exist_ok=True)
        self.master_port, self.master_ui_port = _free_port(), _free_port()
        try:
            self._master = self._container(
                "master", ["org.apache.spark.deploy.master.Master", "--host", HOST,
                           "--port", str(self.master_port), "--webui-port", str(self.master_ui_port)],
                "I have been elected leader")
            for index in range(self.workers):     # one by one: stop() removes those started
                self._workers.append(self._container(
                    f"worker-{index}",
                    ["org.apache.spark.deploy.worker.Worker", "--host", HOST,
                     "--port", str(_free_port()), "--webui-port", str(_free_port()),
                     "--cores", "1", "--memory", WORKER_MEMORY,
                     "--work-dir", str(self.shared / "work" / f"worker-{index}"), self.master_url],
                    "Successfully registered with master"))
        except BaseException:
            self.stop()
            raise
        self.say(f"cluster {self.id}: master {self.master_url} and {self.workers} workers up "
                 f"in {time.monotonic() - started:.1f} s")
        return self

    def stop(self) -> None:
        """Stop and remove every container; the shared directory stays."""
        for container in [*self._workers, self._master]:
            if container is not None:
                try:
                    container.stop(force=True)
                except Exception as err:          # noqa: BLE001 - one failure stops no other
                    self.say(f"cluster {self.id}: could not remove a container: {err}")
        self._master, self._workers = None, []

    def close(self) -> None:
        """stop(), then remove the shared directory."""
        self.stop()
        shutil.rmtree(self.shared, ignore_errors=True)

    # --- what tests and the gate use -----------------------------------------------------------

    @property
    def master_url(self) -> str:
        return f"spark://{HOST}:{self.master_port}"

    def kill_worker(self, index: int) -> None:
        """SIGKILL worker `index`'s container: its worker and executor JVMs die at once."""
        self._workers[index].get_wrapped_container().kill(signal="SIGKILL")

    def master_state(self) -> dict:
        """The master's own view (its web UI's JSON): workers with their states, applications."""
        url = f"http://{HOST}:{self.master_ui_port}/json/"
        with urllib.request.urlopen(url, timeout=10) as response:
            return json.loads(response.read().decode("utf-8"))

    def alive_workers(self) -> int:
        return sum(1 for worker in self.master_state()["workers"] if worker["state"] == "ALIVE")

    def logs(self, name: str) -> str:
        """A container's output so far (`master`, `worker-0`, ...), for failure messages."""
        container = {"master": self._master,
                     **{f"worker-{i}": w for i, w in enumerate(self._workers)}}[name]
        out, err = container.get_logs()
        return (out + err).decode("utf-8", errors="replace")

    # --- containers -------------------------------------------------------------------------

    def _container(self, role: str, arguments: list[str], ready: str):
        from testcontainers.core.container import DockerContainer
        from testcontainers.core.wait_strategies import LogMessageWaitStrategy

        spark_home = _spark_home()
        container = (DockerContainer(self.image)
                     .with_name(f"streamplan-{self.id}-{role}")
                     .with_command([str(spark_home / "bin" / "spark-class"), *arguments])
                     .with_envs(**self._environment(spark_home))
                     .with_kwargs(network_mode="host", user=f"{os.getuid()}:{os.getgid()}",
                                  labels={LABEL: f"{os.getpid()}/{self.id}"})
                     .waiting_for(LogMessageWaitStrategy(ready)
                                  .with_startup_timeout(START_TIMEOUT_S)))
        for path in _driver_paths():
            container = container.with_volume_mapping(str(path), str(path), "ro")
        container = container.with_volume_mapping(str(self.shared), str(self.shared), "rw")
        try:
            return container.start()
        except Exception as err:                  # noqa: BLE001 - said with the container's log
            log = ""
            try:
                out, errs = container.get_logs()
                log = "\n".join((out + errs).decode("utf-8", errors="replace").splitlines()[-20:])
            except Exception:                     # noqa: BLE001 - no container, no log
                pass
            try:
                container.stop(force=True)
            except Exception:                     # noqa: BLE001 - nothing to remove
                pass
            raise ClusterError(f"the cluster's {role} did not start ({type(err).__name__}: "
                               f"{err}); its last lines:\n{log}") from None

    def _environment(self, spark_home: Path) -> dict[str, str]:
        user = getpass.getuser()
        return {"SPARK_HOME": str(spark_home), "SPARK_LOCAL_IP": HOST, "SPARK_NO_DAEMONIZE": "1",
                "TZ": "UTC", "HOME": str(self.shared), "SPARK_USER": user,
                "HADOOP_USER_NAME": user, "PYTHONDONTWRITEBYTECODE": "1",
                "SPARK_WORKER_OPTS": "-Duser.timezone=UTC"}


@contextmanager
def driver_on(cluster: SparkCluster) -> Iterator[None]:
    """Run this process's driver against `cluster`: spark_session() connects to its master,
    and temp dirs (checkpoints, feed files) are made in the directory the workers share."""
    saved_tempdir = tempfile.tempdir
    with environment_set(driver_environment(cluster)):
        tempfile.tempdir = None          # re-read from TMPDIR
        try:
            yield
        finally:
            stop_spark_session()         # before the cluster goes: no executor reported lost
            tempfile.tempdir = saved_tempdir


@contextmanager
def environment_set(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the duration; each is restored (or removed) after."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


# Every executor advertises 127.0.0.1, so Spark takes them for one host and reads another
# executor's shuffle files straight from its local disk, which is in another container. The
# driver turns that off: shuffle blocks travel between executors as between real hosts.
DRIVER_CONF = {"spark.shuffle.readHostLocalDisk": "false"}


def driver_environment(cluster: SparkCluster) -> dict[str, str]:
    """The environment a driver process needs for `cluster` (see driver_on): its master, the
    driver's settings for it (through PYSPARK_SUBMIT_ARGS, read when the JVM starts) and
    temp dirs in the shared directory, which executors see too (STREAMPLAN_SHARED_TEMP)."""
    scratch = cluster.shared / "driver"
    scratch.mkdir(parents=True, exist_ok=True)
    submit = " ".join(f"--conf {key}={value}" for key, value in DRIVER_CONF.items())
    return {"STREAMPLAN_MASTER": cluster.master_url, "TMPDIR": str(scratch),
            "STREAMPLAN_SHARED_TEMP": "1", "PYSPARK_SUBMIT_ARGS": f"{submit} pyspark-shell"}


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def _driver_paths() -> list[Path]:
    """The directories the executors need at the driver's paths: the project, its
    environment (PySpark and every dependency) and, unless the image carries it (a
    distribution's Python), the interpreter's installation."""
    paths = sorted({REPOSITORY_ROOT, *driver_python().mounts()})
    return [path for path in paths
            if not any(other != path and path.is_relative_to(other) for other in paths)]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def _remove_stale(client) -> None:
    """Containers of clusters whose owning process is gone (a killed test run)."""
    for container in client.containers.list(all=True, filters={"label": LABEL}):
        owner = container.labels.get(LABEL, "").split("/")[0]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            container.remove(force=True)


@contextmanager
def spark_target(cluster: bool = False, master: Optional[str] = None,
                 say: Say = lambda line: None) -> Iterator[Optional[SparkCluster]]:
    """Where this process's Spark runs: a cluster of containers started for the duration
    (`cluster`), an existing cluster (`master`, e.g. spark://host:7077), or local[2]."""
    if cluster and master:
        raise ClusterError("--cluster starts a cluster of its own; give it or --master, not both")
    if cluster:
        with SparkCluster(say=say) as running, driver_on(running):
            yield running
        return
    with environment_set({"STREAMPLAN_MASTER": master} if master else {}):
        yield None
