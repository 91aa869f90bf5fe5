"""The fork server that starts transformWithState driver workers (runtime/fork_server.py): a
worker it forks behaves as `python -m <module>` would, and nothing it starts outlives the
client the JVM holds or the driver that started it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from streamplan.runtime import fork_server

PROBE = """
import os, sys, time
print("to stdout")
print(f"{os.environ.get('PROBE')}|{sys.argv[1:]}|{os.getcwd()}|{__name__}", file=sys.stderr)
if os.environ.get("PROBE_PID_FILE"):
    with open(os.environ["PROBE_PID_FILE"], "w") as handle:
        handle.write(str(os.getpid()))
    time.sleep(60)
if os.environ.get("PROBE_PPID_FILE"):
    with open(os.environ["PROBE_PPID_FILE"], "w") as handle:
        handle.write(str(os.getppid()))
if os.environ.get("PROBE_WAIT_STDIN"):
    with open(os.environ["PROBE_WAIT_STDIN"], "w") as handle:
        handle.write(str(os.getpid()))
    sys.stdin.read()
if os.environ.get("PROBE_RAISE"):
    raise RuntimeError("probe failed")
sys.exit(int(os.environ.get("PROBE_EXIT", "0")))
"""


def wait_for(condition, what: str, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.fixture
def server(tmp_path):
    (tmp_path / "probe_worker.py").write_text(PROBE)
    started = fork_server.start(tmp_path)
    assert started is not None, "this platform runs no fork server"
    wait_for(started.path.exists, "the server's socket")
    yield started
    started.stop()
    assert started.process.returncode == 0 and not started.path.exists()


CLIENT = [sys.executable, "-S", "-c", fork_server.CLIENT, "-m", "probe_worker", "an arg"]


def client_env(server, tmp_path, **extra) -> dict:
    return {**os.environ, fork_server.SERVER_ENV: str(server.path), "PYTHONPATH": str(tmp_path),
            "PROBE": "from the client", **extra}


def test_a_worker_runs_as_python_m_would(server, tmp_path):
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    run = subprocess.run(CLIENT, env=client_env(server, tmp_path, PROBE_EXIT="3"),
                         cwd=cwd, capture_output=True, text=True)
    assert run.returncode == 3
    assert run.stdout == "to stdout\n"
    assert run.stderr == f"from the client|['an arg']|{cwd}|__main__\n"


def test_a_preloaded_worker_module_runs_as_main_without_runpys_warning(tmp_path, monkeypatch):
    """The server imports the driver worker's module before it forks; running it as __main__
    then makes runpy warn (RuntimeWarning: '...' found in sys.modules), which `python -m`
    never prints: the warning would land in every stateful query's console output."""
    import importlib
    import warnings

    package = tmp_path / "probe_package"
    package.mkdir()
    (package / "__init__.py").write_text("from . import worker\n")
    (package / "worker.py").write_text("import sys\nRAN_AS = __name__\n"
                                       "sys.modules['probe_package'].ran_as = __name__\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("probe_package.worker")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fork_server.run_as_main("probe_package.worker")
    assert sys.modules["probe_package"].ran_as == "__main__"
    assert [str(w.message) for w in caught] == []
    for name in ("probe_package", "probe_package.worker"):
        sys.modules.pop(name, None)


def test_a_crashing_worker_fails_with_its_traceback(server, tmp_path):
    run = subprocess.run(CLIENT, env=client_env(server, tmp_path, PROBE_RAISE="1"),
                         capture_output=True, text=True)
    assert run.returncode == 1
    assert "RuntimeError: probe failed" in run.stderr and "Traceback" in run.stderr


def test_without_the_server_the_client_runs_the_worker_itself(tmp_path):
    (tmp_path / "probe_worker.py").write_text(PROBE)
    env = {**os.environ, fork_server.SERVER_ENV: str(tmp_path / "no-server.sock"),
           "PYTHONPATH": str(tmp_path), "PROBE": "alone", "PROBE_EXIT": "4"}
    run = subprocess.run([sys.executable, "-S", "-c", fork_server.CLIENT, "-m", "probe_worker"],
                         env=env, capture_output=True, text=True)
    assert (run.returncode, run.stdout) == (4, "to stdout\n")
    assert run.stderr.startswith("alone|[]|")


def test_killing_the_client_kills_its_worker(server, tmp_path):
    pid_file = tmp_path / "worker.pid"
    held = subprocess.Popen(CLIENT,
                            env=client_env(server, tmp_path, PROBE_PID_FILE=str(pid_file)),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(lambda: pid_file.exists() and pid_file.read_text(), "the worker's pid")
    worker = int(pid_file.read_text())
    assert alive(worker) and worker != held.pid      # a child of the server, not the client
    held.terminate()                                  # as the JVM destroys a worker process
    held.wait()
    wait_for(lambda: not alive(worker), "the worker to die with its client")


def test_a_worker_that_exits_as_its_client_is_killed_leaves_the_server_serving(server, tmp_path):
    """The JVM kills a driver worker's client as the worker finishes: both events reach the
    server in one wake-up (held here by stopping the server while both happen); it must
    handle them in either order and keep serving."""
    pid_file = tmp_path / "worker.pid"
    held = subprocess.Popen(CLIENT, env=client_env(server, tmp_path, PROBE_WAIT_STDIN=str(pid_file)),
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    wait_for(lambda: pid_file.exists() and pid_file.read_text(), "the worker's pid")
    worker = int(pid_file.read_text())
    os.kill(server.process.pid, signal.SIGSTOP)
    try:
        held.stdin.close()                  # the worker reads end of file and exits,
        wait_for(lambda: not alive(worker), "the worker to exit")
        held.kill()                         # then its client dies (the order epoll reports)
        held.wait()
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
    parent = tmp_path / "parent.pid"
    run = subprocess.run(CLIENT, env=client_env(server, tmp_path, PROBE_EXIT="5",
                                                PROBE_PPID_FILE=str(parent)),
                         capture_output=True, text=True)
    assert run.returncode == 5
    assert int(parent.read_text()) == server.process.pid, "the server no longer forks workers"


def test_the_server_and_its_workers_end_with_the_driver_even_killed(tmp_path):
    (tmp_path / "probe_worker.py").write_text(PROBE)
    pid_file = tmp_path / "worker.pid"
    driver = textwrap.dedent(f"""
        import os, subprocess, sys, time
        from pathlib import Path
        from streamplan.runtime import fork_server
        server = fork_server.start(Path({str(tmp_path)!r}))
        while not server.path.exists():
            time.sleep(0.02)
        print(server.process.pid, flush=True)
        env = {{**os.environ, fork_server.SERVER_ENV: str(server.path),
                "PYTHONPATH": {str(tmp_path)!r}, "PROBE_PID_FILE": {str(pid_file)!r}}}
        subprocess.Popen([sys.executable, "-S", "-c", fork_server.CLIENT, "-m", "probe_worker"],
                         env=env, stderr=subprocess.DEVNULL)
        time.sleep(60)
    """)
    process = subprocess.Popen([sys.executable, "-c", driver], stdout=subprocess.PIPE, text=True)
    server_pid = int(process.stdout.readline())
    wait_for(lambda: pid_file.exists() and pid_file.read_text(), "the worker's pid")
    worker = int(pid_file.read_text())
    process.send_signal(signal.SIGKILL)
    process.wait()
    wait_for(lambda: not alive(server_pid), "the server to end with its driver")
    wait_for(lambda: not alive(worker), "the worker to end with the server")
    assert not list(Path(tmp_path).glob("fork-*.sock"))


def test_the_launcher_hands_the_driver_worker_to_the_server(tmp_path):
    """Spark starts `<launcher> -m <driver worker module>`: the launcher's client sends that
    request, with its three standard streams, to the server named in the environment, and
    exits with the status the server returns."""
    import json
    import socket
    import struct

    from streamplan.runtime.session import _TWS_DRIVER_WORKER, worker_python

    path = tmp_path / "fake.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    launcher = subprocess.Popen([worker_python(), "-m", _TWS_DRIVER_WORKER],
                                env={**os.environ, fork_server.SERVER_ENV: str(path)},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    listener.settimeout(30)
    connection, _ = listener.accept()
    header, fds, _, _ = socket.recv_fds(connection, 4, 3)
    body = b""
    while len(body) < struct.unpack(">I", header)[0]:
        body += connection.recv(65536)
    for fd in fds:
        os.close(fd)
    request = json.loads(body)
    assert request["args"] == ["-m", _TWS_DRIVER_WORKER] and len(fds) == 3
    assert request["env"][fork_server.SERVER_ENV] == str(path)
    connection.sendall(struct.pack(">i", 7))
    assert launcher.wait(timeout=30) == 7
