"""Golden plans: every program's *current* compile, as syrupy snapshots (Flink's `*JsonPlanTest`).

Per program two files under `tests/__snapshots__/test_plan_snapshots/`:

    test_compiled_plan[<program id>].json   the plan JSON, keys in the order the plan writes them
    test_compiled_plan[<program id>].txt    its EXPLAIN text

A planner change shows up as a diff of these files in the PR; accept it on purpose with

    pytest tests/test_plan_snapshots.py --snapshot-update

These are not the fixtures under `snapshots/` (frozen history, restored by the gate, never
updated): see "Plan snapshots (syrupy) vs fixtures" in docs/fixtures.md.
"""
from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path

import pytest
from syrupy.extensions.json import JSONSnapshotExtension
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from harness.discovery import discover_programs
from harness.runner import compile_program
from streamplan.api import explain_plan
from streamplan.version import ENGINE_VERSION

PROGRAMS = discover_programs()
ENGINE_PLACEHOLDER = "<the engine's version>"
SNAPSHOT_DIR = Path(__file__).parent / "__snapshots__" / Path(__file__).stem


class ExplainTextExtension(SingleFileSnapshotExtension):
    """EXPLAIN as a plain `.txt` file, one per program, next to the program's `.json`.

    Chosen over the amber default (one `.ambr` for the whole module): a single-file snapshot
    holds exactly the text EXPLAIN prints, with no quoting or re-indentation, so a PR diff
    shows the tree lines as a user sees them, under a file name that names the program, and
    the `.json` and `.txt` of one program change side by side.
    """

    _write_mode = WriteMode.TEXT
    file_extension = "txt"


@pytest.mark.spark
@pytest.mark.parametrize("program", PROGRAMS, ids=[program.id for program in PROGRAMS])
def test_compiled_plan(program, spark, snapshot):
    _, plan = compile_program(program, spark)
    # OrderedDict keeps the plan's own key order (the JSON extension sorts plain dicts), so the
    # snapshot reads like the plan file itself.
    document = json.loads(plan.to_json_text(), object_pairs_hook=OrderedDict)
    # The engine's version is checked here, not kept in every snapshot: a release bumps it
    # without rewriting every golden plan.
    assert document["engineVersion"] == ENGINE_VERSION
    document["engineVersion"] = ENGINE_PLACEHOLDER
    assert document == snapshot.use_extension(JSONSnapshotExtension)
    assert explain_plan(plan) == snapshot.use_extension(ExplainTextExtension)


def test_every_plan_snapshot_belongs_to_a_program():
    """A removed or renamed program leaves its two files behind. syrupy reports them as unused
    only when pytest runs without a path (`./run.sh test`, CI); `pytest
    tests/test_plan_snapshots.py` does not match a single-file snapshot whose parameter is gone
    (syrupy 7), so this check names them in every run."""
    expected = {f"test_compiled_plan[{program.id}].{extension}"
                for program in PROGRAMS for extension in ("json", "txt")}
    stale = sorted(path.name for path in SNAPSHOT_DIR.glob("*") if path.name not in expected)
    assert not stale, (f"plan snapshot(s) of no program in {SNAPSHOT_DIR}: {', '.join(stale)}; "
                       f"delete them (`git rm`) with the program they belonged to")
