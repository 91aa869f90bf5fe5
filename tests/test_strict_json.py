"""Every JSON file the project reads (plans, checkpoint markers, manifests, table data, the
tracked Spark releases) goes through one strict reader: an integer of more digits than any
field holds, or a string with a lone surrogate, is the reader's typed error naming the file
and the JSON path, never Python's ValueError or UnicodeEncodeError (issue 34's findings)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.errors import FixtureError, HarnessError
from harness.fixtures import Fixture, read_manifest
from harness.spark_releases import tracked_releases
from streamplan.checkpoints import CHECKPOINT_MARKER, check_restorable, read_marker, written_by
from streamplan.errors import CheckpointError, PlanFormatError, PlanningError
from streamplan.json_input import MAX_INT_DIGITS, json_path, parse_json
from streamplan.plan import parse_plan
from streamplan.types import parse_row_type

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots"
CALC = SNAPSHOTS / "calc_1" / "calc-changelog"
PLAN = (CALC / "plan" / "calc-changelog.json").read_text()
MANIFEST = (CALC / "manifest.json").read_text()
HUGE = "1" * 5000                  # past Python's 4,300-digit int conversion limit


def with_huge_id(text: str) -> str:
    return text.replace('"id": 1,', f'"id": {HUGE},', 1)


def fixture_in(tmp_path: Path) -> Fixture:
    directory = tmp_path / "calc_1" / "calc-x"
    directory.mkdir(parents=True)
    return Fixture(directory, "calc", 1, "calc-x")


# --------------------------------------------------------------------------- the reader

@pytest.mark.parametrize("text, message", [
    ('{"a": [1, {"b": ' + HUGE + '}]}', r"^f.json: at \$\.a\[1\]\.b: an integer of 5000 digits; "
                                        r"numbers here have at most 100 digits$"),
    ('[-' + "9" * 101 + ']', r"^f.json: at \$\[0\]: an integer of 101 digits"),
    ('{"x": "ok\\ud800"}', r"^f.json: at \$\.x: a string with a lone surrogate \(\\ud800 at "
                           r"character 2\); JSON text is Unicode, where a \\uD800-\\uDFFF "
                           r"escape is only half of a pair$"),
    ('{"table.exec.state.ttl": {"\\udfff": 1}}',
     r'^f.json: at \$\["table.exec.state.ttl"\]: a key with a lone surrogate \(\\udfff'),
    ('{"a": 1,}', r"^f.json:1:9: not valid JSON: Expecting property name"),
], ids=["huge integer", "101 digits", "surrogate in a value", "surrogate in a key", "malformed"])
def test_the_reader_names_the_file_and_the_json_path(text, message):
    with pytest.raises(PlanningError, match=message):
        parse_json(text, "f.json", PlanningError)


def test_the_reader_keeps_what_the_files_hold():
    digits = "9" * MAX_INT_DIGITS
    assert parse_json(f'[{digits}, -{digits}, "\\ud83d\\ude00", 1.5, NaN]', "f", ValueError
                      )[:3] == [int(digits), -int(digits), "\U0001F600"]
    assert json_path(("nodes", 2, "inputChangelogMode", 0)) == "$.nodes[2].inputChangelogMode[0]"
    assert json_path(("configuration", "table.exec.state.ttl")) == \
        '$.configuration["table.exec.state.ttl"]'


# ------------------------------------------------------------------------------- plans

def test_a_plan_with_a_huge_integer_is_a_plan_format_error_naming_the_path():
    with pytest.raises(PlanFormatError, match=r"^plan.json: at \$\.nodes\[0\]\.id: an integer "
                                              r"of 5000 digits; numbers here have at most 100 "
                                              r"digits$"):
        parse_plan(with_huge_id(PLAN), "plan.json")


def test_a_lone_surrogate_in_a_plan_is_a_plan_format_error_naming_the_path():
    plan = json.loads(PLAN)
    plan["nodes"][2]["inputChangelogMode"] = ["\ud800"]
    with pytest.raises(PlanFormatError, match=r"^plan.json: at \$\.nodes\[2\]\.inputChangelogMode"
                                              r"\[0\]: a string with a lone surrogate \(\\ud800"):
        parse_plan(json.dumps(plan), "plan.json")


def test_a_table_data_file_with_a_huge_integer_is_a_planning_error(tmp_path):
    from streamplan.api import read_rows_file

    rows = tmp_path / "rows.json"
    rows.write_text(f"[[1], [{HUGE}]]")
    with pytest.raises(PlanningError, match=r"rows.json: at \$\[1\]\[0\]: an integer of 5000"):
        read_rows_file(rows, parse_row_type("ROW<`a` BIGINT>"))


# --------------------------------------------------------------------- checkpoint markers

@pytest.mark.parametrize("content, message", [
    ('{"engineVersion": ' + HUGE + '}', r"streamplan.json: at \$\.engineVersion: an integer of "
                                        r"5000 digits; .*expected \{\"engineVersion\""),
    ('{"engineVersion": "0.\\ud800"}', r"streamplan.json: at \$\.engineVersion: a string with a "
                                       r"lone surrogate"),
    ('{"engineVersion": null}', r"streamplan.json: engineVersion must be a version string like "
                                r"'4.3.0', not None$"),
    ('{"engineVersion": 3}', r"engineVersion must be a version string like '4.3.0', not 3$"),
    ('{"engineVersion": ["0.3"]}', r"engineVersion must be a version string .*, not \['0.3'\]$"),
    ('{"engineVersion": "0.3", "sparkVersion": null}', r"sparkVersion must be a version string"),
    ('{"engineVersion": "٣.٣"}', r"engineVersion must be a version string"),
    ('{"sparkVersion": "4.3.0"}', r"streamplan.json: no engineVersion recorded; expected"),
    ('["0.3"]', r"streamplan.json: no engineVersion recorded"),
], ids=["huge integer", "surrogate", "null", "number", "list", "null spark version",
        "arabic digits", "missing", "not an object"])
def test_a_marker_with_a_field_of_the_wrong_kind_is_a_checkpoint_error(tmp_path, content, message):
    (tmp_path / CHECKPOINT_MARKER).write_text(content, encoding="utf-8")
    nodes = parse_plan(PLAN, "plan.json").nodes
    with pytest.raises(CheckpointError, match=message):
        written_by(tmp_path)
    with pytest.raises(CheckpointError, match=message):          # via check_state_version
        check_restorable(nodes, tmp_path, "restore")


def test_a_marker_of_an_older_engine_without_a_spark_version_still_reads(tmp_path):
    (tmp_path / CHECKPOINT_MARKER).write_text('{"engineVersion": "0.1"}')
    marker = read_marker(tmp_path)
    assert (marker.engine_version, marker.spark_version) == ("0.1", None)
    check_restorable(parse_plan(PLAN, "plan.json").nodes, tmp_path, "restore")


# ------------------------------------------------------------------------------ manifests

@pytest.mark.parametrize("content, message", [
    (MANIFEST.replace('"formatVersion": 1', f'"formatVersion": {HUGE}'),
     r"^fixture calc_1/calc-x: manifest.json: at \$\.formatVersion: an integer of 5000 digits; "
     r"numbers here have at most 100 digits; regenerate it with `harness generate --program "
     r"calc-x`"),
    (MANIFEST.replace('"Doubled": [["+I", ["a", 2]]', '"Doubled": [["+I", ["a\\udc00", 2]]'),
     r"manifest.json: at \$\.beforeRestoreOutput\.Doubled\[0\]\[1\]\[0\]: a string with a lone "
     r"surrogate \(\\udc00 at character 1\)"),
    (MANIFEST.replace('"formatVersion": 1', '"formatVersion": true'),
     r"manifest format True is not 1"),
], ids=["huge integer", "surrogate", "format a boolean"])
def test_a_manifest_with_a_huge_integer_or_a_surrogate_is_a_fixture_error(tmp_path, content,
                                                                          message):
    fixture = fixture_in(tmp_path)
    fixture.manifest_path.write_text(content, encoding="utf-8")
    with pytest.raises(FixtureError, match=message):
        read_manifest(fixture)


def test_the_tracked_spark_releases_go_through_the_same_reader(tmp_path):
    releases = tmp_path / "spark-releases.json"
    releases.write_text(f'{{"releases": ["4.1.4", {HUGE}]}}')
    with pytest.raises(HarnessError, match=re.escape(f"{releases}: at $.releases[1]: an integer "
                                                     f"of 5000 digits")):
        tracked_releases(tmp_path)
    releases.write_text('{"releases": ["4.1.\\ud800"]}')
    with pytest.raises(HarnessError, match=r"at \$\.releases\[0\]: a string with a lone surrogate"):
        tracked_releases(tmp_path)
    releases.write_text('{"releases": ["4.1.x"]}')
    with pytest.raises(HarnessError, match=r"unreadable \(releases are version strings\)"):
        tracked_releases(tmp_path)
