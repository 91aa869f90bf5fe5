"""The one place Spark is started: local[2] by default, RocksDB state, small shuffles, quiet.

One session per process is reused: starting the JVM costs ~10 s.
"""
from __future__ import annotations

import hashlib
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

from . import fork_server

DEFAULT_MASTER = "local[2]"
DEFAULT_SHUFFLE_PARTITIONS = 2
LOCAL_FILE_SYSTEM = "streamplan.fs.NioLocalFileSystem"

_CONF = {
    # Stateful nodes run on transformWithState, which needs RocksDB; set before any batch.
    "spark.sql.streaming.stateStore.providerClass":
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
    "spark.sql.session.timeZone": "UTC",
    # Batches come only from data steps (see executor.phased_steps): deterministic timers.
    "spark.sql.streaming.noDataMicroBatches.enabled": "false",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.streaming.ui.enabled": "false",
    # Keep fixtures small: few retained batches, few state files.
    "spark.sql.streaming.minBatchesToRetain": "3",
    "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "false",
    # Checkpoint files through Hadoop's FileSystem API, not FileContext: on the local file
    # system FileContext runs a `readlink` process for each path of every rename (PySpark ships
    # no native Hadoop library), ~20 processes a micro-batch. The files written are the same.
    "spark.sql.streaming.checkpointFileManagerClass":
        "org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager",
    "spark.driver.memory": "1g",
    # Python workers connect back to the JVM; on a loaded 2-core machine 15 s is not enough.
    "spark.python.authenticate.socketTimeout": "120s",
    "spark.sql.adaptive.enabled": "false",
    # Spark caches the classes it generates by their source, 100 by default: a gate run's
    # thousand queries need ~1,600, so most were generated, compiled (Janino) and JIT-compiled
    # anew (bench/README.md: 5,874 -> 1,591 classes compiled, the gate 10% faster).
    "spark.sql.codegen.cache.maxEntries": "5000",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
}

_session = None

# The launcher Spark starts every Python worker through (PYSPARK_PYTHON) does two things.
#
# PySpark's transformWithState driver worker prints banners ("Starting Streaming
# TransformWithStateInPandas Python worker.", "... Completed execution of UDF: ...") to its
# stdout for every query start, and Spark copies a worker's stdout and stderr to the
# driver's stderr. The worker talks to the JVM over a socket, never over stdout, so its
# stdout is dropped at the source; its stderr (tracebacks) still reaches the user, and its
# errors also come back through the socket as the query's failure.
#
# Spark puts its own copy of PySpark, <pyspark>/python/lib/pyspark.zip, first on every
# worker's PYTHONPATH. A zip holds no compiled bytecode, so each new worker process compiled
# PySpark from source: ~1.3 s of CPU for each one (a transformWithState driver worker per
# stateful query, a worker per task with Python code). The same package, compiled, is
# the one this interpreter imports (the zip ships inside it), so the launcher drops exactly
# that zip from PYTHONPATH and leaves every other entry as Spark set it.
_TWS_DRIVER_WORKER = "pyspark.sql.streaming.transform_with_state_driver_worker"
_WORKER_LAUNCHER = """#!/bin/sh
# Written by streamplan.runtime.session: starts Spark's Python workers with {python}.
# PySpark is imported compiled from the interpreter's site-packages, not from Spark's zip.
set -f
kept=
old_ifs=$IFS
IFS=:
for entry in $PYTHONPATH; do
  case "$entry" in
    {zip}) ;;
    *) kept="${{kept:+$kept:}}$entry" ;;
  esac
done
IFS=$old_ifs
PYTHONPATH=$kept
export PYTHONPATH
# The transformWithState driver worker's stdout holds only banners: discard it, keep stderr.
# Where the driver runs a fork server (runtime/fork_server.py), its client starts the worker.
case " $* " in
  *" {module} "*)
    if [ -n "${{{server_env}:-}}" ]; then
      exec {quoted} -S -c {client} "$@" >/dev/null
    fi
    exec {quoted} "$@" >/dev/null ;;
esac
exec {quoted} "$@"
"""


def pyspark_zip() -> Path:
    """The zip of PySpark that Spark puts on its Python workers' PYTHONPATH."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent / "python" / "lib" / "pyspark.zip"


def worker_python(python: str = sys.executable) -> str:
    """The executable Spark starts Python workers with: `python` behind a launcher that
    imports PySpark compiled and silences the transformWithState driver worker's banners.
    The launcher lives in a per-user temp dir, named by its content, written atomically."""
    text = _WORKER_LAUNCHER.format(python=python, quoted=shlex.quote(python),
                                   module=_TWS_DRIVER_WORKER, zip=shlex.quote(str(pyspark_zip())),
                                   server_env=fork_server.SERVER_ENV,
                                   client=shlex.quote(fork_server.CLIENT))
    directory = _temp_dir()
    path = directory / f"python-worker-{hashlib.sha256(text.encode()).hexdigest()[:16]}.sh"
    if not path.exists():
        fd, temp = tempfile.mkstemp(dir=directory, prefix=".launcher-")
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.chmod(temp, 0o755)
        os.replace(temp, path)
    return str(path)


def _temp_dir() -> Path:
    """The per-user temp dir of the launcher and the fork server's socket."""
    directory = Path(tempfile.gettempdir()) / f"streamplan-{os.getuid()}"
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    return directory


_fork_server: Optional[fork_server.ForkServer] = None


def _start_fork_server() -> None:
    """One fork server per driver process, started before its JVM (whose environment names
    it for good) and ended with the process."""
    global _fork_server
    if _fork_server is None and os.environ.get("STREAMPLAN_FORK_SERVER_OFF") != "1":
        _fork_server = fork_server.start(_temp_dir())
        if _fork_server is not None:
            os.environ[fork_server.SERVER_ENV] = str(_fork_server.path)


def spark_session(master: Optional[str] = None, shuffle_partitions: Optional[int] = None):
    """The process-wide SparkSession; `master` (or $STREAMPLAN_MASTER) picks a cluster URL."""
    global _session
    if _session is not None:
        return _session
    master = master or os.environ.get("STREAMPLAN_MASTER", DEFAULT_MASTER)
    # Workers must run this interpreter, and all clocks read UTC so event times agree. On a
    # cluster the executors start workers by the same path, so the launcher (which drops
    # worker banners; it lives in the temp dir) is used only where they see this temp dir:
    # locally, or where $STREAMPLAN_SHARED_TEMP says the cluster shares it (harness.cluster).
    shared_temp = os.environ.get("STREAMPLAN_SHARED_TEMP") == "1"
    launcher = master.startswith("local") or shared_temp
    os.environ["PYSPARK_PYTHON"] = worker_python() if launcher else sys.executable
    if launcher:
        _start_fork_server()
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ["TZ"] = "UTC"
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("SPARK_AUTH_SOCKET_TIMEOUT", "120")   # driver side of the same timeout
    time.tzset()
    from pyspark.sql import SparkSession

    from .jvm import streamplan_jar

    builder = SparkSession.builder.appName("streamplan").master(master)
    partitions = shuffle_partitions or int(os.environ.get("STREAMPLAN_SHUFFLE_PARTITIONS",
                                                          DEFAULT_SHUFFLE_PARTITIONS))
    builder = builder.config("spark.sql.shuffle.partitions", str(partitions))
    for key, value in _CONF.items():
        builder = builder.config(key, value)
    log_config = Path(__file__).with_name("log4j2.properties")
    builder = builder.config("spark.driver.extraJavaOptions",
                             f"-Duser.timezone=UTC -Dlog4j2.configurationFile=file:{log_config}")
    builder = builder.config("spark.executor.extraJavaOptions", "-Duser.timezone=UTC")
    jar = streamplan_jar()
    builder = builder.config("spark.jars", str(jar))    # the values source, for executors
    if master.startswith("local"):
        # Local files without a chmod process per file (jvm/NioLocalFileSystem.java). Hadoop
        # resolves the class before spark.jars is loaded, so it is on the JVM's class path too.
        builder = builder.config("spark.driver.extraClassPath", str(jar))
        builder = builder.config("spark.hadoop.fs.file.impl", LOCAL_FILE_SYSTEM)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel(os.environ.get("STREAMPLAN_SPARK_LOG_LEVEL", "ERROR"))
    _session = session
    return session


def stop_session() -> None:
    """Stop the process-wide SparkSession, if one runs; the next spark_session() starts anew
    (on another master, say). A driver must stop before the cluster it runs on goes away, or
    Spark reports every executor as lost."""
    global _session
    if _session is not None:
        _session.stop()
        _session = None
