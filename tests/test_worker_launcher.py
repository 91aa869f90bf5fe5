"""Spark's Python workers import PySpark compiled, from the interpreter's site-packages, not
from the source-only pyspark.zip Spark puts first on their PYTHONPATH (issue 9: that zip cost
each new worker ~1.3 s of CPU compiling PySpark)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from streamplan.runtime.session import pyspark_zip, worker_python

SHOW = "import os, pyspark; print(os.environ['PYTHONPATH']); print(pyspark.__file__)"


def test_the_launcher_drops_exactly_sparks_pyspark_zip_from_pythonpath(tmp_path):
    assert pyspark_zip().is_file()      # the zip ships inside the installed pyspark package
    others = [str(tmp_path / "a dir"), str(pyspark_zip().with_name("py4j-0.10.9.9-src.zip")),
              str(tmp_path / "glob*")]
    path = os.pathsep.join([others[0], str(pyspark_zip()), others[1], others[2]])
    run = subprocess.run([worker_python(), "-c", SHOW], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": path})
    kept, imported = run.stdout.splitlines()
    assert kept.split(os.pathsep) == others
    # the compiled package next to the zip's parent, not a module inside the zip
    assert Path(imported).resolve() == pyspark_zip().parents[2] / "__init__.py"


def test_a_worker_without_pythonpath_starts():
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    run = subprocess.run([worker_python(), "-c", SHOW], capture_output=True, text=True,
                         check=True, env=env)
    assert run.stdout.splitlines()[0] == ""
