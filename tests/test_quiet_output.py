"""PySpark's transformWithState worker banners never reach the user's terminal (issue 9);
real errors still do."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from streamplan.runtime.session import _TWS_DRIVER_WORKER, worker_python

BANNER = "TransformWithStateInPandas Python worker"
REPO = Path(__file__).resolve().parents[1]
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


@pytest.mark.spark
def test_a_transform_with_state_query_prints_no_worker_banners():
    """A real interval join (a transformWithState query) run by the harness CLI in its own
    process, as a user runs it: the output holds the result and no banner."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-m", "harness", "semantic", "--program",
                          "interval-join-left-outer"], cwd=REPO, env=env, capture_output=True,
                         text=True, timeout=600)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "1/1 program(s) passed" in run.stdout
    assert BANNER not in output
    assert "Setting default log level" not in output
