"""A fork server for the transformWithState driver worker: a warm Python process that forks
one child per worker Spark asks for, instead of a new interpreter importing PySpark each time.

Spark starts a driver worker (`pyspark.sql.streaming.transform_with_state_driver_worker`) for
each stateful node at every query start, as a plain process (never through PySpark's daemon):
~0.2 s of CPU each, mostly imports, a thousand times over a gate run. The worker launcher
(`session.worker_python`) hands such a start to the client below, which passes its arguments,
environment, working directory and standard streams (as file descriptors) to the server over
a Unix socket; the server forks a child that becomes the worker exactly as `python -m` would
run it, and the client exits with the child's status. The JVM sees the client as its worker
process: its stderr is the worker's, and killing it kills the worker.

The server is single-threaded (it forks; a thread would make that unsafe) and ends with the
driver that started it: its stdin is a pipe only that driver holds, so the driver's exit or
death (even SIGKILL) reaches it as end of file, and it kills any child still running. When the
server is not there the launcher starts the worker the ordinary way.
"""
from __future__ import annotations

import importlib
import json
import os
import pkgutil
import selectors
import signal
import socket
import struct
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Optional

# The client, run as `python -S -c CLIENT -m <module> ...` by the launcher: no site, so no
# imports beyond the standard library's; on any failure to reach the server it becomes the
# worker itself (exec, same arguments).
CLIENT = r"""
import json, os, socket, struct, sys
args = sys.argv[1:]
def run_here():
    os.execv(sys.executable, [sys.executable] + args)
path = os.environ.get("STREAMPLAN_FORK_SERVER", "")
if len(args) < 2 or args[0] != "-m" or not path:
    run_here()
try:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.connect(path)
    request = json.dumps({"args": args, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    socket.send_fds(server, [struct.pack(">I", len(request))], [0, 1, 2])
    server.sendall(request)
except OSError:
    run_here()
status = b""
while len(status) < 4:
    chunk = server.recv(4 - len(status))
    if not chunk:
        sys.exit(1)
    status += chunk
sys.exit(struct.unpack(">i", status)[0])
"""

SERVER_ENV = "STREAMPLAN_FORK_SERVER"


class ForkServer:
    """The server process started by `start()`; `stop()` ends it (its children too)."""

    def __init__(self, process: subprocess.Popen, path: Path):
        self.process = process
        self.path = path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()          # end of file: the server kills its children
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.path.unlink(missing_ok=True)


def start(directory: Path) -> Optional[ForkServer]:
    """Start a server listening in `directory`; None where this platform cannot run one (no
    pidfd, or a socket path too long for AF_UNIX): the launcher then starts workers as usual."""
    if not hasattr(os, "pidfd_open") or not hasattr(socket, "send_fds"):
        return None
    path = directory / f"fork-{os.getpid()}-{os.urandom(4).hex()}.sock"
    if len(os.fsencode(path)) >= 100:
        return None
    process = subprocess.Popen([sys.executable, "-m", __name__, str(path)],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    return ForkServer(process, path)


def preload() -> None:
    """What every driver worker imports: PySpark's worker and streamplan's runtime modules
    (a processor is unpickled from one of them)."""
    importlib.import_module("pyspark.sql.streaming.transform_with_state_driver_worker")
    import streamplan.runtime as runtime
    for module in pkgutil.iter_modules(runtime.__path__, "streamplan.runtime."):
        if module.name != __name__:
            importlib.import_module(module.name)


def serve(path: Path) -> None:
    preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    temp = path.with_name(path.name + ".tmp")
    temp.unlink(missing_ok=True)
    listener.bind(str(temp))
    listener.listen(64)
    os.replace(temp, path)                  # clients see the socket only once it listens
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, ("accept", None))
    selector.register(sys.stdin, selectors.EVENT_READ, ("parent", None))
    children: dict[int, tuple[int, socket.socket]] = {}     # pidfd -> (pid, client)
    try:
        while True:
            for key, _ in selector.select():
                kind, data = key.data
                if kind == "parent":
                    if not os.read(sys.stdin.fileno(), 4096):
                        return                          # the driver is gone
                elif kind == "accept":
                    client, _ = listener.accept()
                    pid = _fork_worker(client, listener, selector)
                    if pid is not None:
                        pidfd = os.pidfd_open(pid)
                        children[pidfd] = (pid, client)
                        selector.register(pidfd, selectors.EVENT_READ, ("exit", pidfd))
                        selector.register(client, selectors.EVENT_READ, ("client", pid))
                elif kind == "client":              # the client died (the JVM killed it)
                    if key.fileobj.fileno() == -1:
                        continue                    # its child's exit, earlier in this batch
                    _kill(data)                     # of events, closed and unregistered it
                    selector.unregister(key.fileobj)
                elif kind == "exit":
                    pid, client = children.pop(data)
                    selector.unregister(data)
                    os.close(data)
                    _, status = os.waitpid(pid, 0)
                    code = os.waitstatus_to_exitcode(status)
                    try:
                        client.sendall(struct.pack(">i", code if code >= 0 else 128 - code))
                    except OSError:
                        pass                        # the client is gone; nobody waits
                    if client.fileno() in selector.get_map():
                        selector.unregister(client)
                    client.close()
    finally:
        for pid, _ in children.values():
            _kill(pid)
        path.unlink(missing_ok=True)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _fork_worker(client: socket.socket, listener: socket.socket,
                 selector: selectors.BaseSelector) -> Optional[int]:
    """Read one request and fork its worker; None when the request is unreadable (the client
    then gets no status and exits 1)."""
    try:
        header, fds, _, _ = socket.recv_fds(client, 4, 3)
        if len(header) != 4 or len(fds) != 3:
            raise OSError("short request")
        size = struct.unpack(">I", header)[0]
        body = b""
        while len(body) < size:
            chunk = client.recv(size - len(body))
            if not chunk:
                raise OSError("short request")
            body += chunk
        request = json.loads(body)
    except (OSError, ValueError):
        client.close()
        return None
    pid = os.fork()
    if pid == 0:
        selector.close()
        listener.close()
        client.close()
        _become_worker(request, fds)        # never returns
    for fd in fds:
        os.close(fd)
    return pid


def run_as_main(module: str) -> None:
    """`module` as `python -m` runs it. The server preloaded the driver worker's module, so
    runpy warns that it is already in sys.modules; `python -m` would not, so neither do we."""
    import runpy
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=RuntimeWarning,
                                message=f"'{module}' found in sys.modules after import of package")
        runpy.run_module(module, run_name="__main__", alter_sys=True)


def _become_worker(request: dict, fds: list[int]) -> None:
    code = 1
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        for entry in reversed(os.environ.get("PYTHONPATH", "").split(os.pathsep)):
            if entry and entry not in sys.path:
                sys.path.insert(0, entry)
        args = request["args"]            # ["-m", module, *argv]
        sys.argv = [args[1], *args[2:]]
        run_as_main(args[1])
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
    except BaseException:                   # a worker's crash, as python -m would report it
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
