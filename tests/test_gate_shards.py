"""A sharded gate (harness.shard, --gate-shard K/N) and `harness report merge`, without Spark.

The Spark test (two shards of the tiny gate partition the unsharded run) is in
tests/test_harness_proof.py.
"""
from __future__ import annotations

import random
from html import escape
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.discovery import discover_programs
from harness.gate import gate_arguments
from harness.report_merge import ReportMergeError, gate_records, merge_reports
from harness.shard import Shard, ShardError, parse_shard, program_steps, run_cost, split

# --- the split -------------------------------------------------------------------------------------


def costs_of(count: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    return {f"test_restore[n_{i}/p-{i}]": rng.randint(1, 12) for i in range(count)}


@pytest.mark.parametrize("shards", [1, 2, 3, 4, 7, 40])
def test_the_split_is_complete_disjoint_deterministic_and_balanced(shards):
    costs = costs_of(33, seed=shards)
    pinned = ["test_audit[annotations]", "test_audit_programs_load"]
    assigned = split(costs, shards, pinned)
    assert set(assigned) == set(costs) | set(pinned)           # every test, one shard each
    assert set(assigned.values()) <= set(range(1, shards + 1))
    assert all(assigned[test] == 1 for test in pinned)         # the audit checks: shard 1
    # the same split whatever order the tests come in (every machine computes the same)
    shuffled = dict(sorted(costs.items(), key=lambda _: random.random()))
    assert split(shuffled, shards, list(reversed(pinned))) == assigned
    loads = [sum(c for t, c in costs.items() if assigned[t] == k) for k in range(1, shards + 1)]
    assert max(loads) <= sum(costs.values()) / shards + max(costs.values())


def test_ties_are_broken_by_test_id():
    assert split({"b": 1, "a": 1, "c": 1}, 2) == {"a": 1, "b": 2, "c": 1}


@pytest.mark.parametrize("text, shard", [("1/1", Shard(1, 1)), ("2/4", Shard(2, 4)),
                                         (" 3 / 3 ", Shard(3, 3))])
def test_a_shard_is_k_of_n(text, shard):
    assert parse_shard(text) == shard and str(shard) == f"{shard.index}/{shard.count}"


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/0", "2", "a/b", "1/2/3", "-1/2", ""])
def test_a_malformed_shard_is_an_error_naming_the_value(text):
    with pytest.raises(ShardError, match=f"--shard {text!r}"):
        parse_shard(text)


def test_the_cost_model_counts_micro_batch_steps():
    (program,) = [p for p in discover_programs("gate_programs") if p.id == "calc-tiny"]
    before, after = program_steps(program, ["before"]), program_steps(program, ["after"])
    assert before > 0 and after > 0
    assert run_cost("restore", program) == run_cost("migration", program) == 1 + after
    assert run_cost("semantic", program) == 1 + before + after
    assert run_cost("restore", None) == 1


def test_without_a_shard_the_gate_arguments_are_unchanged(tmp_path):
    plain = gate_arguments(tmp_path)
    assert not any(arg.startswith("--gate-shard") for arg in plain)
    assert gate_arguments(tmp_path, shard="2/3") == plain + ["--gate-shard=2/3"]


def test_harness_gate_refuses_a_malformed_shard_naming_it():
    result = CliRunner().invoke(app, ["gate", "--shard", "3/2"])
    assert result.exit_code == 2
    assert "'3/2'" in result.output


def test_pytest_refuses_a_malformed_gate_shard(pytester_run):
    result = pytester_run("--gate-shard=5/4")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--shard '5/4'" in result.err


@dataclass
class Run:
    ret: int
    out: str
    err: str


@pytest.fixture
def pytester_run(tmp_path):
    """pytest in a subprocess over a gate-like test file (five restores, one audit check)."""
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["harness.pytest_plugin"]\n')
    (tmp_path / "test_gate_like.py").write_text(GATE_LIKE)

    def run(*args: str) -> Run:
        done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                               f"--rootdir={tmp_path}", str(tmp_path), *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        return Run(done.returncode, done.stdout, done.stderr)
    return run


GATE_LIKE = """
import pytest

class Fixture:
    def __init__(self, program_id): self.id, self.program_id = f"n_1/{program_id}", program_id

FIXTURES = [Fixture(f"p-{i}") for i in range(5)]

@pytest.mark.gate("audit", "programs")
def test_audit_programs_load(): pass

@pytest.mark.parametrize("fixture", [pytest.param(f, id=f.id, marks=pytest.mark.gate("restore", f.id))
                                     for f in FIXTURES])
def test_restore(fixture): assert fixture.program_id != "p-3", "p-3 broke"
"""


def test_shards_of_a_pytest_run_partition_it_and_say_which_shard(pytester_run, tmp_path):
    names = []
    for index in (1, 2, 3):
        junit = tmp_path / f"shard{index}.xml"
        result = pytester_run(f"--gate-shard={index}/3", f"--junitxml={junit}")
        out = result.out
        root = ET.parse(junit).getroot()
        assert root.find("testsuite/properties/property[@name='gate-shard']").get("value") == f"{index}/3"
        cases = [case.get("name") for case in root.iter("testcase")]
        names += cases
        assert f"(shard {index}/3): " in out
        if index == 1:
            assert "test_audit_programs_load" in cases
    assert sorted(names) == sorted(["test_audit_programs_load"]
                                   + [f"test_restore[n_1/p-{i}]" for i in range(5)])
    summary = merge_reports(tmp_path / "m.xml", tmp_path / "m.html",
                            [tmp_path / f"shard{k}.xml" for k in (3, 1, 2)])
    whole = pytester_run(f"--junitxml={tmp_path / 'whole.xml'}")
    assert summary == "gate FAILED: audit 1/1 checks passed, restore 4/5 fixtures restored"
    assert summary in whole.out
    merged = ET.parse(tmp_path / "m.xml").getroot().find("testsuite")
    assert (merged.get("tests"), merged.get("failures")) == ("6", "1")
    assert merged.find("properties") is None


def test_more_shards_than_tests_leaves_an_empty_shard_that_passes(pytester_run):
    result = pytester_run("--gate-shard=9/9")
    assert result.ret == 0
    assert "gate shard 9/9: no check in this shard" in result.out


# --- report merge ----------------------------------------------------------------------------------

def junit(path, shard, cases, failures=0):
    """A shard's JUnit XML as the plugin writes it: (name, seconds, failure text or None)."""
    body = "".join(
        f'<testcase classname="restore_tests.test_gate" name="{name}" time="{seconds}">'
        + (f'<failure message="Failed: {escape(text)}">{escape(text)}</failure>' if text else "") + "</testcase>"
        for name, seconds, text in cases)
    props = (f'<properties><property name="gate-shard" value="{shard}" />'
             f'<property name="gate-engine-version" value="0.9" /></properties>' if shard else "")
    path.write_text(f'<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
                    f'<testsuite name="restore-gate" errors="0" failures="{failures}" skipped="0" '
                    f'tests="{len(cases)}" time="10.5" timestamp="2024-01-01T10:00:0{len(cases)}" '
                    f'hostname="ci">{props}{body}</testsuite></testsuites>')
    return path


SHARD1 = [("test_audit_programs_load", 0.1, None), ("test_audit[annotations]", 1.0, None),
          ("test_restore[calc_1/calc-tiny]", 2.0, "program calc-tiny, after restore: <diff>")]
SHARD2 = [("test_restore[join_1/join-tiny]", 3.0, None), ("test_semantic[calc-tiny]", 1.5, None)]


def test_report_merge_sums_the_totals_and_renders_one_html_report(tmp_path):
    one, two = junit(tmp_path / "1.xml", "1/2", SHARD1, failures=1), junit(tmp_path / "2.xml", "2/2", SHARD2)
    result = CliRunner().invoke(app, ["report", "merge", str(tmp_path / "gate.xml"),
                                      str(tmp_path / "gate.html"), str(two), str(one)])
    assert result.exit_code == 0, result.output
    assert ("gate FAILED: audit 2/2 checks passed, restore 1/2 fixtures restored, "
            "semantic 1/1 programs passed") in result.output
    suite = ET.parse(tmp_path / "gate.xml").getroot().find("testsuite")
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped", "time", "timestamp")} == {
        "tests": "5", "failures": "1", "errors": "0", "skipped": "0", "time": "21.000",
        "timestamp": "2024-01-01T10:00:02"}
    assert [c.get("name") for c in suite.iter("testcase")] == [n for n, _, _ in SHARD1 + SHARD2]
    page = (tmp_path / "gate.html").read_text()
    assert '<span id="verdict" class="verdict-FAILED">FAILED</span>' in page
    assert "program calc-tiny, after restore: &lt;diff&gt;" in page
    assert "<dd>0.9</dd>" in page                                  # the shards' engine version
    records = gate_records(suite)
    assert [(r.suite, r.name, r.outcome) for r in records][:3] == [
        ("audit", "programs", "passed"), ("audit", "annotations", "passed"),
        ("restore", "calc_1/calc-tiny", "failed")]


def test_report_merge_refuses_a_test_case_in_two_shards(tmp_path):
    one = junit(tmp_path / "1.xml", "1/2", SHARD1)
    two = junit(tmp_path / "2.xml", "2/2", SHARD2 + SHARD1[1:2])
    with pytest.raises(ReportMergeError, match=r"2\.xml: test case .*test_audit\[annotations\] is "
                                               r"also in .*1\.xml"):
        merge_reports(tmp_path / "m.xml", tmp_path / "m.html", [one, two])
    assert not (tmp_path / "m.xml").exists() and not (tmp_path / "m.html").exists()
    result = CliRunner().invoke(app, ["report", "merge", str(tmp_path / "m.xml"),
                                      str(tmp_path / "m.html"), str(one), str(two)])
    assert result.exit_code == 1 and "test_audit[annotations]" in result.output


@pytest.mark.parametrize("second, problem", [
    ("2/3", r"2\.xml: shard 2/3 of another split than .*1\.xml \(shard 1/2\)"),
    ("1/2", r"2\.xml: shard 1/2 given twice"),
    (None, r"2\.xml: not a shard's report"),
])
def test_report_merge_refuses_shards_that_are_not_one_split(tmp_path, second, problem):
    one, two = junit(tmp_path / "1.xml", "1/2", SHARD1), junit(tmp_path / "2.xml", second, SHARD2)
    with pytest.raises(ReportMergeError, match=problem):
        merge_reports(tmp_path / "m.xml", tmp_path / "m.html", [one, two])


def test_report_merge_refuses_a_missing_shard_and_an_unreadable_file(tmp_path):
    one = junit(tmp_path / "1.xml", "1/2", SHARD1)
    with pytest.raises(ReportMergeError, match=r"shard\(s\) 2 of 2 missing"):
        merge_reports(tmp_path / "m.xml", tmp_path / "m.html", [one])
    (tmp_path / "bad.xml").write_text("<testsuites><testsuite>")
    for bad in (tmp_path / "bad.xml", tmp_path / "absent.xml"):
        with pytest.raises(ReportMergeError, match=f"{bad}: not a readable JUnit XML file"):
            merge_reports(tmp_path / "m.xml", tmp_path / "m.html", [one, bad])
