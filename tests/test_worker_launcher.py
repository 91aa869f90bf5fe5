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


# What the planner needs and a Python worker never does: a transformWithState query starts a
# fresh interpreter for each stateful node (to read its state schemas), and every worker
# imports the node's runtime module, so these would cost each of them ~0.3 s of CPU.
PLANNER_ONLY = ("pydantic", "sqlglot", "streamplan.nodes", "streamplan.planner", "typer", "rich")
# The one runtime module that parses SQL: a join's non-equi condition, compiled in the worker.
PARSES_SQL = {"streamplan.runtime.pyeval"}

IMPORT_EACH = """
import importlib, json, pkgutil, sys
import streamplan.runtime as runtime
heavy = {heavy!r}
found = {{}}
names = sorted(m.name for m in pkgutil.walk_packages(runtime.__path__, "streamplan.runtime."))
for name in names:
    before = {{h for h in heavy if h in sys.modules}}
    importlib.import_module(name)
    found[name] = sorted({{h for h in heavy if h in sys.modules}} - before)
print(json.dumps(found))
"""


def test_runtime_modules_leave_the_planner_out_of_python_workers():
    import json
    import sys

    run = subprocess.run([sys.executable, "-c", IMPORT_EACH.format(heavy=PLANNER_ONLY)],
                         capture_output=True, text=True, check=True)
    found = json.loads(run.stdout)
    assert "streamplan.runtime.window_aggregate" in found     # the walk saw the runtime
    pulled = {name: heavy for name, heavy in found.items()
              if heavy and not (name in PARSES_SQL and heavy == ["sqlglot"])}
    assert pulled == {}, f"runtime modules that import planner-only packages: {pulled}"


LAZY_CONDITION = """
import sys
from streamplan.runtime.join_condition import join_condition
condition = join_condition("l > r + 1", ["l", "r"])
print("sqlglot" in sys.modules)
print(condition({"l": 5, "r": 3}), condition({"l": 4, "r": 3}), condition({"l": None, "r": 3}))
print("sqlglot" in sys.modules, join_condition(None, ["l"]))
"""


def test_a_join_condition_is_compiled_on_the_first_row_it_tests():
    import sys

    run = subprocess.run([sys.executable, "-c", LAZY_CONDITION], capture_output=True, text=True,
                         check=True)
    # not when a processor's init() makes it (the driver worker only does that), then
    # three-valued as Spark evaluates it
    assert run.stdout.splitlines() == ["False", "True False None", "True None"]
