"""PySpark's transformWithState worker banners never reach the user's terminal (issue 9);
real errors still do."""
from __future__ import annotations

import os
import subprocess
import sys

from streamplan.runtime.session import _TWS_DRIVER_WORKER, worker_python

PRINT_BOTH = "import sys; print('to stdout'); print('to stderr', file=sys.stderr)"


def test_the_launcher_drops_only_the_driver_workers_stdout(tmp_path):
    launcher = worker_python()
    assert worker_python() == launcher and os.access(launcher, os.X_OK)
    other = subprocess.run([launcher, "-c", PRINT_BOTH, "pyspark.daemon"], capture_output=True,
                           text=True, check=True)
    assert (other.stdout, other.stderr) == ("to stdout\n", "to stderr\n")
    # `-c CODE ARG`: the worker module's name among the arguments, as in `-m <module>`
    driver = subprocess.run([launcher, "-c", PRINT_BOTH, _TWS_DRIVER_WORKER], capture_output=True,
                            text=True, check=True)
    assert (driver.stdout, driver.stderr) == ("", "to stderr\n")


def test_the_launcher_quotes_an_interpreter_path_with_spaces(tmp_path):
    odd = tmp_path / "my python's dir" / "python"
    odd.parent.mkdir()
    odd.symlink_to(sys.executable)
    run = subprocess.run([worker_python(str(odd)), "-c", "print('ok')"], capture_output=True,
                         text=True, check=True)
    assert run.stdout == "ok\n"


# A whole transformWithState query run as a user runs it, in a process of its own, is checked
# for banners in tests/test_kill_restart.py (its last driver start): one JVM start for both.
