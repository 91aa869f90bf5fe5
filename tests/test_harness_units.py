"""Pure-Python parts of the harness: diffs, shapes, checkpoint portability, fixture files."""
from __future__ import annotations

import io
import json
import zipfile
from types import SimpleNamespace
from typing import Optional

import pytest
from pydantic import BaseModel

from harness.portable_checkpoint import PLACEHOLDER, make_portable, materialize, state_variables
from harness import SinkTestStep, SourceTestStep, TableTestProgram
from harness.compare import materialized_view, order_diff, rows_diff
from harness.runner import check_outputs
from streamplan.executor import RunResult, SinkOutput
from harness.errors import ExpectationMismatch, FixtureError
from harness.fixtures import (Fixture, Manifest, json_text, read_manifest, scan_snapshots,
                              tree_checksums, verify_fixture, write_checksums)
from harness.plan_shape import shape_changes
from streamplan.changelog import RowKind
from streamplan.runtime.changelog_sink import ChangelogRow
from streamplan.types import parse_row_type


# --------------------------------------------------------------------------------- compare

def test_changelogs_compare_as_multisets():
    assert rows_diff(["+I[1, a]", "+I[2, b]"], ["+I[2, b]", "+I[1, a]"]) is None
    diff = rows_diff(["+I[1, a]", "+I[1, a]"], ["+I[1, a]", "-D[1, a]"])
    assert diff.splitlines() == ["--- expected", "+++ actual", "@@ -1,2 +1,2 @@",
                                 "  +I[1, a]", "- +I[1, a]", "+ -D[1, a]"]


def test_a_row_emitted_twice_is_a_difference():
    diff = rows_diff(["+I[1, a]"], ["+I[1, a]", "+I[1, a]"])
    assert diff is not None and diff.splitlines()[-2:] == ["  +I[1, a]", "+ +I[1, a]"]
    assert rows_diff(["+I[1, a]", "+I[1, a]"], ["+I[1, a]"]).splitlines()[-1] == "- +I[1, a]"


def _result(sink_name: str, rows: list[ChangelogRow], row_type) -> RunResult:
    node = SimpleNamespace(row_type=row_type)
    return RunResult({sink_name: SinkOutput(sink_name, node, rows)})


def _dedup_program(materialized: bool, primary_key: bool = False):
    sink = SinkTestStep.new_builder("Out").add_schema(
        "id INT", "v STRING", *(["PRIMARY KEY (id) NOT ENFORCED"] if primary_key else []))
    if materialized:
        sink = sink.testing_materialized_data()
    return (TableTestProgram.of("calc-dup", "duplicates")
            .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "v STRING")
                                .producing_before_restore([1, "a"]).build())
            .setup_table_sink(sink.consuming_before_restore("+I[1, a]").build())
            .run_sql("INSERT INTO Out SELECT * FROM T").build())


@pytest.mark.parametrize("materialized", [False, True])
def test_check_outputs_fails_when_a_sink_receives_a_row_twice(materialized):
    row_type = parse_row_type("ROW<`id` INT, `v` STRING>")
    once = [ChangelogRow(RowKind.INSERT, (1, "a"))]
    program = _dedup_program(materialized)
    check_outputs(program, _result("Out", once, row_type), "before")
    with pytest.raises(ExpectationMismatch, match=r"(?s)sink 'Out' \((changelog|materialized "
                                                  r"view)\):.*\+ \+I\[1, a\]"):
        check_outputs(program, _result("Out", once * 2, row_type), "before")


def test_a_keyed_materialized_view_treats_a_repeated_insert_as_an_upsert():
    """With a primary key the view holds one row per key (Flink's upsert semantics)."""
    row_type = parse_row_type("ROW<`id` INT, `v` STRING>")
    twice = [ChangelogRow(RowKind.INSERT, (1, "a"))] * 2
    check_outputs(_dedup_program(True, primary_key=True), _result("Out", twice, row_type), "before")


def test_materialized_view_applies_the_changelog_by_key_or_as_a_bag():
    row_type = parse_row_type("ROW<`id` INT, `v` STRING>")
    rows = [ChangelogRow(RowKind.INSERT, (1, "a")), ChangelogRow(RowKind.UPDATE_AFTER, (1, "b")),
            ChangelogRow(RowKind.INSERT, (2, "c")), ChangelogRow(RowKind.DELETE, (2, "c"))]
    assert materialized_view(rows, [0], row_type, "w") == ["+I[1, b]"]
    assert materialized_view(rows, None, row_type, "w") == ["+I[1, a]", "+I[1, b]"]
    with pytest.raises(ExpectationMismatch, match=r"(?s)w: .*cannot be materialized: change #0 "
                                                  r"-D\[9, x\] retracts a row the sink does not hold"):
        materialized_view([ChangelogRow(RowKind.DELETE, (9, "x"))], None, row_type, "w")


@pytest.mark.parametrize("rows, message", [
    ([ChangelogRow(RowKind.DELETE, (9, "x"))], r"change #0 -D\[9, x\] retracts a key the sink "
                                              r"does not hold"),
    ([ChangelogRow(RowKind.INSERT, (1, "a")), ChangelogRow(RowKind.UPDATE_BEFORE, (1, "z"))],
     r"change #1 -U\[1, z\] retracts \+I\[1, a\], the row the sink holds for its key, with other "
     r"values"),
])
def test_a_keyed_view_refuses_a_retraction_it_cannot_match_as_flinks_test_sink(rows, message):
    row_type = parse_row_type("ROW<`id` INT, `v` STRING>")
    with pytest.raises(ExpectationMismatch, match=message):
        materialized_view(rows, [0], row_type, "w")


def test_changes_of_one_key_must_come_in_the_listed_order():
    expected = ["+I[1, a]", "+I[2, x]", "-U[1, a]", "+U[1, b]"]
    assert order_diff(expected, ["+I[2, x]", "+I[1, a]", "-U[1, a]", "+U[1, b]"], [0]) is None
    swapped = ["+I[1, a]", "+I[2, x]", "+U[1, b]", "-U[1, a]"]
    diff = order_diff(expected, swapped, [0])
    assert diff.splitlines() == ["  the changes of key [1] come in another order:",
                                 "    expected: +I[1, a], -U[1, a], +U[1, b]",
                                 "    actual:   +I[1, a] (#0), +U[1, b] (#2), -U[1, a] (#3)"]
    # without a primary key a row is its own key: a -D of a row before its re-insert
    assert order_diff(["+I[1, a]", "-D[1, a]", "+I[1, a]"], ["+I[1, a]", "+I[1, a]", "-D[1, a]"],
                      None) is not None


def test_check_outputs_fails_on_the_order_of_a_keys_changes():
    row_type = parse_row_type("ROW<`id` INT, `v` STRING>")
    program = (TableTestProgram.of("calc-order", "order")
               .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "v STRING")
                                   .producing_before_restore([1, "a"]).build())
               .setup_table_sink(SinkTestStep.new_builder("Out")
                                 .add_schema("id INT", "v STRING", "PRIMARY KEY (id) NOT ENFORCED")
                                 .consuming_before_restore("+I[1, a]", "-D[1, a]").build())
               .run_sql("INSERT INTO Out SELECT * FROM T").build())
    rows = [ChangelogRow(RowKind.DELETE, (1, "a")), ChangelogRow(RowKind.INSERT, (1, "a"))]
    with pytest.raises(ExpectationMismatch, match=r"(?s)sink 'Out' \(changelog\):.*key \[1\] come "
                                                  r"in another order"):
        check_outputs(program, _result("Out", rows, row_type), "before")


# ------------------------------------------------------------------------------ plan shape

class Inner(BaseModel):
    left_keys: list[int]
    hint: Optional[str] = None


class Node(BaseModel):
    id: int
    spec: Inner
    options: dict[str, str] = {}
    items: list[Inner] = []
    extra: Optional[str] = None


def test_shapes_ignore_values_maps_and_additive_optional_fields():
    old = {"id": 1, "spec": {"left_keys": [0]}, "options": {"a": "1"}, "items": []}
    new = {"id": 7, "spec": {"left_keys": [3, 4], "hint": "x"}, "options": {"b": "2"},
           "items": [{"left_keys": [1]}], "extra": "new"}
    assert shape_changes(old, new, Node) == []


def test_shapes_report_renames_removals_additions_and_kind_changes():
    old = {"id": 1, "spec": {"left_keys": [0], "gone": 1}, "items": [{"left_keys": [1]}]}
    new = {"id": 1, "spec": {"left_keys": "0"}, "items": [{"left_keys": [1], "required": 2}],
           "renamed": 3}
    assert [str(c) for c in shape_changes(old, new, Node)] == [
        "plan field 'items[].required' added",
        "plan field 'spec.gone' removed",
        "plan field 'spec.left_keys' changed kind (list -> string)",
        "plan field 'renamed' added",
    ]


# ------------------------------------------------------------------------------ checkpoint

def _zip(path, sst_files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("metadata", "v1\n" + json.dumps(
            {"sstFiles": [{"dfsSstFileName": name} for name in sst_files]}))
    path.write_bytes(buffer.getvalue())


def fake_checkpoint(root):
    """The files Spark writes for one stateful query, in miniature."""
    query = root / "sink-3"
    for log in ("offsets", "commits"):
        (query / log).mkdir(parents=True)
        for batch in range(4):
            (query / log / str(batch)).write_text(f"v1\n{batch}")
            (query / log / f".{batch}.crc").write_bytes(b"crc")
    partition = query / "state" / "0" / "0"
    (partition / "SSTs").mkdir(parents=True)
    for name in ("1-a.sst", "2-b.sst", "3-c.sst"):
        (partition / "SSTs" / name).write_bytes(b"sst")
    _zip(partition / "1.zip", ["1-a.sst"])
    _zip(partition / "2.zip", ["1-a.sst", "3-c.sst"])
    metadata = query / "state" / "0" / "_metadata" / "v2"
    metadata.mkdir(parents=True)
    properties = {"stateVariables": [{"stateName": "left-cache", "stateVariableType": "MapState"},
                                     {"stateName": "$eventTimers", "stateVariableType": "TimerState"}]}
    (metadata / "0").write_text("v2\n" + json.dumps({
        "stateStoreInfo": [{"stateSchemaFilePaths": [f"file:{root}/sink-3/state/0/_stateSchema/x"]}],
        "operatorPropertiesJson": json.dumps(properties)}))
    (root / "streamplan.json").write_text('{"engineVersion": "0.1"}\n')
    return root


def test_a_portable_checkpoint_is_pruned_and_relocatable(tmp_path):
    checkpoint = fake_checkpoint(tmp_path / "generated")
    make_portable(checkpoint)
    files = sorted(p.relative_to(checkpoint).as_posix() for p in checkpoint.rglob("*") if p.is_file())
    assert files == ["sink-3/commits/2", "sink-3/commits/3", "sink-3/offsets/2", "sink-3/offsets/3",
                     "sink-3/state/0/0/2.zip", "sink-3/state/0/0/SSTs/1-a.sst",
                     "sink-3/state/0/0/SSTs/3-c.sst", "sink-3/state/0/_metadata/v2/0",
                     "streamplan.json"]
    assert PLACEHOLDER in (checkpoint / "sink-3/state/0/_metadata/v2/0").read_text()
    copy = materialize(checkpoint, tmp_path / "restored")
    text = (copy / "sink-3/state/0/_metadata/v2/0").read_text()
    assert f"file:{copy.resolve()}/sink-3/state/0/_stateSchema/x" in text
    assert PLACEHOLDER in (checkpoint / "sink-3/state/0/_metadata/v2/0").read_text()
    assert state_variables(copy) == {"sink-3": {"left-cache": "MapState"}}


def test_an_absolute_path_left_anywhere_fails_generation(tmp_path):
    checkpoint = fake_checkpoint(tmp_path / "generated")
    (checkpoint / "sink-3" / "metadata").write_text(f'{{"path": "{checkpoint}"}}')
    with pytest.raises(FixtureError, match="absolute checkpoint path into sink-3/metadata"):
        make_portable(checkpoint)


# -------------------------------------------------------------------------------- fixtures

def test_json_text_is_byte_stable_and_keeps_rows_on_one_line():
    data = {"b": [["+I", [1, "a"]]], "a": {"z": 1, "y": [1, 2]}}
    assert json_text(data) == ('{\n  "a": {\n    "y": [1, 2],\n    "z": 1\n  },\n'
                               '  "b": [["+I", [1, "a"]]]\n}\n')
    assert json.loads(json_text(data)) == data


def make_fixture(root, program="calc-x"):
    fixture = Fixture(root / "calc_1" / program, "calc", 1, program)
    fixture.plan_path.parent.mkdir(parents=True)
    fixture.plan_path.write_text('{"nodes": []}\n')
    fake_checkpoint(fixture.checkpoint_dir)
    from harness.fixtures import sha256_file
    manifest = Manifest(program, "stream-exec-calc_1", sha256_file(fixture.plan_path), "d" * 64, {}, {})
    fixture.manifest_path.write_text(json_text(manifest.to_json()))
    write_checksums(fixture.checksums_path, tree_checksums(fixture.checkpoint_dir, fixture.directory))
    return fixture, manifest


def test_scan_finds_fixtures_and_reports_stray_entries(tmp_path):
    fixture, manifest = make_fixture(tmp_path)
    (tmp_path / "not-a-version").mkdir()
    (tmp_path / ".staging").mkdir()
    fixtures, problems = scan_snapshots(tmp_path)
    assert [f.id for f in fixtures] == ["calc_1/calc-x"]
    assert problems == [f"{tmp_path / 'not-a-version'}: not a '<node>_<version>' fixture directory"]
    assert read_manifest(fixture) == manifest


def test_verify_names_modified_missing_and_added_checkpoint_files(tmp_path):
    fixture, manifest = make_fixture(tmp_path)
    verify_fixture(fixture, manifest)
    (fixture.checkpoint_dir / "sink-3/offsets/3").write_text("tampered")
    (fixture.checkpoint_dir / "sink-3/commits/3").unlink()
    (fixture.checkpoint_dir / "extra").write_text("x")
    with pytest.raises(FixtureError) as caught:
        verify_fixture(fixture, manifest)
    assert ("checkpoint/sink-3/offsets/3 modified; checkpoint/sink-3/commits/3 missing; "
            "checkpoint/extra added") in str(caught.value)
    assert "restore it from git" in str(caught.value)
    fixture.plan_path.write_text("{}")
    with pytest.raises(FixtureError, match="plan calc-x.json was modified after generation"):
        verify_fixture(fixture, manifest)


def test_a_broken_manifest_names_the_remedy(tmp_path):
    fixture, _ = make_fixture(tmp_path)
    fixture.manifest_path.write_text("{")
    with pytest.raises(FixtureError, match=r"manifest.json:1:2: not valid JSON: .*harness generate "
                                           r"--program calc-x"):
        read_manifest(fixture)


# ------------------------------------------------------------------------------ worker start

def test_only_a_python_worker_start_failure_is_retried_and_only_once():
    from harness.runner import retry_worker_start
    from streamplan.errors import ExecutionError

    def flaky(errors):
        calls = []

        def attempt():
            calls.append(1)
            if len(calls) <= len(errors):
                raise ExecutionError(errors[len(calls) - 1])
            return len(calls)
        return attempt

    cold = "query failed: Python worker failed to connect back. SQLSTATE: XXKST"
    assert retry_worker_start(flaky([cold])) == 2
    with pytest.raises(ExecutionError, match="connect back"):
        retry_worker_start(flaky([cold, cold]))
    with pytest.raises(ExecutionError, match="NOT NULL"):
        retry_worker_start(flaky(["Column name is NOT NULL"]))
