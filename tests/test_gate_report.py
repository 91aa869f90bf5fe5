"""The gate's HTML report (harness.gate_report, written for `--gate-report PATH`).

(a) rendering, pure: escaping, the restore matrix derived from the records' names, verdicts;
(b) the page really renders: headless Chromium dumps the DOM the inline script built;
(c) the plugin writes the page, for a tiny pytest run and for a real gate run on generated
    tiny fixtures (the only Spark test here: 3 fixtures, ~30 s).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from harness.gate_report import (NOT_APPLICABLE, ReportMeta, count_line, matrix, parse_fixture_id,
                                 render_report, report_data, verdict)
from harness.pytest_plugin import GateRecord

META = ReportMeta(engine_version="0.1", spark_version="4.3.0",
                  generated_at="2024-01-01T10:00:00+00:00", seconds=75.5)

DIFF = ("program interval-join-a, after restore: the sink output differs from the expectation "
        "(- expected, + actual):\n  sink J:\n- +I[2, b]\n+ +I[2, B]")
HOSTILE = "rule <b>'x'</b> & more: </script><script>document.title = 'pwned'</script>"


def records() -> list[GateRecord]:
    """Two versions of interval-join (interval-join-b has no fixture of version 2), one calc
    fixture, a calc program with only a semantic run; one restore and one audit failure."""
    return [
        GateRecord("audit", "programs", "passed", 0.01),
        GateRecord("audit", "annotations", "passed", 0.2),
        GateRecord("audit", "version-rules", "failed", 3.0, HOSTILE),
        GateRecord("restore", "calc_1/calc-tiny", "passed", 2.5),
        GateRecord("restore", "interval-join_1/interval-join-a", "passed", 4.25),
        GateRecord("restore", "interval-join_1/interval-join-b", "passed", 4.0),
        GateRecord("restore", "interval-join_2/interval-join-a", "failed", 5.0, DIFF),
        GateRecord("semantic", "calc-tiny", "passed", 1.0),
        GateRecord("semantic", "calc-other", "skipped", 0.0, "not runnable here"),
        GateRecord("semantic", "interval-join-a", "passed", 2.0),
        GateRecord("semantic", "interval-join-b", "passed", 2.0),
    ]


def embedded_data(page: str) -> dict:
    (text,) = re.findall(r'<script type="application/json" id="gate-data">(.*?)</script>', page, re.S)
    return json.loads(text)


def cell_states(groups: list[dict]) -> dict[tuple[str, str], str]:
    return {(row["program"], cell["column"]): cell["state"]
            for group in groups for row in group["programs"] for cell in row["cells"]}


# --- (a) rendering ---------------------------------------------------------------------------------

def test_matrix_rows_by_node_columns_by_version_with_a_not_applicable_cell():
    groups = matrix(records())
    assert [(g["node"], g["versions"]) for g in groups] == [
        ("calc", ["calc_1"]), ("interval-join", ["interval-join_1", "interval-join_2"])]
    calc, join = groups
    assert [row["program"] for row in calc["programs"]] == ["calc-other", "calc-tiny"]
    assert [row["program"] for row in join["programs"]] == ["interval-join-a", "interval-join-b"]
    assert cell_states(groups) == {
        ("calc-other", "calc_1"): NOT_APPLICABLE,            # a semantic-only program: no fixture
        ("calc-tiny", "calc_1"): "restored",
        ("interval-join-a", "interval-join_1"): "restored",
        ("interval-join-a", "interval-join_2"): "failed",
        ("interval-join-b", "interval-join_1"): "restored",
        ("interval-join-b", "interval-join_2"): NOT_APPLICABLE,
    }
    a, b = join["programs"]
    assert a["cells"][0] == {"column": "interval-join_1", "fixture": "interval-join_1/interval-join-a",
                             "state": "restored", "seconds": 4.25, "failure": None}
    assert a["cells"][1]["failure"] == "failure-2"         # the audit failure is failure-1
    assert b["cells"][1] == {"column": "interval-join_2", "fixture": None, "state": NOT_APPLICABLE,
                             "seconds": None, "failure": None}
    assert a["semantic"] == {"state": "passed", "seconds": 2.0, "failure": None}
    assert calc["programs"][0]["semantic"]["state"] == "skipped"


def test_migration_checks_get_a_column_after_their_version():
    with_migration = records() + [
        GateRecord("migration", "interval-join_1/interval-join-a", "passed", 3.0),
        GateRecord("migration", "interval-join_1/interval-join-b", "failed", 1.0, DIFF)]
    groups = matrix(with_migration)
    assert [(g["node"], g["versions"]) for g in groups] == [
        ("calc", ["calc_1"]),
        ("interval-join", ["interval-join_1", "interval-join_1 migrated", "interval-join_2"])]
    states = cell_states(groups)
    assert states[("interval-join-a", "interval-join_1 migrated")] == "passed"
    assert states[("interval-join-b", "interval-join_1 migrated")] == "failed"
    assert states[("interval-join-a", "interval-join_1")] == "restored"
    (failed,) = [cell for group in groups for row in group["programs"] for cell in row["cells"]
                 if cell["column"] == "interval-join_1 migrated" and cell["state"] == "failed"]
    assert failed["failure"] == "failure-3"       # audit, restore, then this migration
    assert "migration 1/2 older fixtures migrated" in count_line(with_migration)


def test_fixture_ids_parse_with_dashes_and_underscores_in_names():
    assert parse_fixture_id("interval-join_12/interval-join-early-fire") == (
        "interval-join", 12, "interval-join-early-fire", None)
    assert parse_fixture_id("my_node_3/my-node-x") == ("my_node", 3, "my-node-x", None)
    assert parse_fixture_id("calc_1/calc-x/spark-4.1.4") == ("calc", 1, "calc-x", "4.1.4")
    assert parse_fixture_id("no-version/p") is None


def test_a_message_is_escaped_in_the_page_and_intact_in_the_data():
    hostile_name = "calc_1/calc-</script><b>"
    page = render_report(records() + [GateRecord("restore", hostile_name, "failed", 1.0, HOSTILE)], META)
    assert "<script>document.title" not in page and "<b>'x'</b>" not in page
    assert ("rule &lt;b&gt;&#x27;x&#x27;&lt;/b&gt; &amp; more: &lt;/script&gt;&lt;script&gt;"
            "document.title = &#x27;pwned&#x27;&lt;/script&gt;") in page
    assert page.count("</script>") == 2                  # the JSON and the inline script only
    assert "- +I[2, b]\n+ +I[2, B]</pre>" in page
    data = embedded_data(page)
    assert hostile_name in [record["name"] for record in data["records"]]
    assert data == report_data(records() + [GateRecord("restore", hostile_name, "failed", 1.0,
                                                       HOSTILE)], META)


def test_failures_are_linked_from_the_matrix_the_audit_table_and_the_noscript_list():
    page = render_report(records(), META)
    assert '<section class="failure" id="failure-1" data-suite="audit" data-name="version-rules">' in page
    assert ('<section class="failure" id="failure-2" data-suite="restore" '
            'data-name="interval-join_2/interval-join-a">') in page
    assert '<td class="failed"><a href="#failure-1">failed</a></td>' in page
    noscript = page[page.index("<noscript>"):page.index("</noscript>")]
    assert '<a href="#failure-2">restore interval-join_2/interval-join-a</a>' in noscript
    assert "not runnable here" in page                   # a skip's reason


def test_header_verdict_counts_and_versions():
    page = render_report(records(), META)
    assert '<span id="verdict" class="verdict-FAILED">FAILED</span>' in page
    assert ("gate FAILED: audit 2/3 checks passed, restore 3/4 fixtures restored, "
            "semantic 3/4 programs passed") in page
    for text in ("<dd>1 min 16 s</dd>", "<dd>0.1</dd>", "<dd>4.3.0</dd>",
                 "<dd>2024-01-01T10:00:00+00:00</dd>"):
        assert text in page
    assert '<tr data-suite="restore"><th scope="row">restore</th><td>3</td><td>1</td><td>0</td>' in page


def test_verdicts():
    passed = [r for r in records() if r.outcome != "failed"]
    assert verdict(passed) == "PASSED"
    assert verdict(records()) == "FAILED"
    assert verdict([]) == "FAILED"                             # no check ran
    assert verdict(passed, problem="pytest stopped early") == "FAILED"
    assert count_line(passed) == ("audit 2/2 checks passed, restore 3/3 fixtures restored, "
                                  "semantic 3/4 programs passed")
    assert "No gate check ran." in render_report([], META)


def test_the_page_is_self_contained():
    page = render_report(records(), META)
    assert not re.search(r"https?://|\bsrc=|<link|@import|url\(", page)


# --- (b) the page renders in a browser ------------------------------------------------------------

class Elements(HTMLParser):
    """Attributes and text of the elements with a given attribute, in a (dumped) page."""

    def __init__(self, attribute: str):
        super().__init__()
        self.attribute, self.found, self.stack = attribute, [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("br", "meta", "input", "img", "hr", "link"):
            return
        entry = {"tag": tag, **attrs, "text": ""} if self.attribute in attrs else None
        if entry is not None:
            self.found.append(entry)
        self.stack.append(entry)

    def handle_endtag(self, tag):
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        for entry in self.stack:
            if entry is not None:
                entry["text"] += data


def elements(page: str, attribute: str) -> list[dict]:
    parser = Elements(attribute)
    parser.feed(page)
    return parser.found


def dump_dom(page: Path, workdir: Path) -> str:
    """The DOM after load, as headless Chromium serializes it (scripts have run)."""
    chromium = shutil.which("chromium")
    profile = workdir / "chromium-profile"
    profile.mkdir()
    run = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


@pytest.mark.skipif(shutil.which("chromium") is None,
                    reason="no chromium binary (apt-get install chromium; .ci/run installs it)")
def test_the_page_renders_the_matrix_in_headless_chromium(tmp_path):
    source = render_report(records(), META)
    assert elements(source, "data-state") == []              # the script builds every cell
    page = tmp_path / "gate.html"
    page.write_text(source, encoding="utf-8")

    dom = dump_dom(page, tmp_path)

    (root,) = [e for e in elements(dom, "id") if e["id"] == "matrix"]
    assert root.get("data-rendered") == "true"
    cells = {(cell["data-program"], cell["data-column"]): cell for cell in elements(dom, "data-state")}
    assert {key: cell["data-state"] for key, cell in cells.items()} == cell_states(matrix(records()))
    restored = cells["interval-join-a", "interval-join_1"]
    assert restored["data-fixture"] == "interval-join_1/interval-join-a"
    assert restored["text"] == "✓ restored4.3 s"
    failed = cells["interval-join-a", "interval-join_2"]
    assert failed["text"] == "✗ failed5.0 s"
    (link,) = [a for a in elements(dom, "href") if a["href"] == "#failure-2"
               and a["text"] == "✗ failed"]
    assert "data-fixture" not in cells["interval-join-b", "interval-join_2"]
    assert cells["interval-join-b", "interval-join_2"]["text"] == "n/a"
    semantic = {e["data-program"]: e["data-semantic"] for e in elements(dom, "data-semantic")}
    assert semantic == {"calc-other": "skipped", "calc-tiny": "passed", "interval-join-a": "passed",
                        "interval-join-b": "passed"}
    headers = [e["text"] for e in elements(dom, "class") if e["tag"] == "th" and e["class"] == "version"]
    assert headers == ["calc_1", "interval-join_1", "interval-join_2"]

    (failure,) = [e for e in elements(dom, "id") if e["id"] == "failure-2"]
    assert "sink J:\n- +I[2, b]\n+ +I[2, B]" in failure["text"]
    (audit,) = [e for e in elements(dom, "id") if e["id"] == "failure-1"]
    assert "</script><script>document.title = 'pwned'</script>" in audit["text"]
    assert "<title>restore gate FAILED</title>" in dom        # the message's script did not run


# --- (c) the plugin writes it ----------------------------------------------------------------------

def test_pytest_writes_the_report_for_gate_report(tmp_path):
    (tmp_path / "test_tiny.py").write_text(
        "import pytest\n"
        "@pytest.mark.gate('restore', 'calc_1/calc-tiny')\n"
        "def test_ok(): pass\n"
        "@pytest.mark.gate('restore', 'calc_2/calc-tiny')\n"
        "def test_bad(): pytest.fail('the diff:\\n- <a>\\n+ <b>', pytrace=False)\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    report = tmp_path / "out" / "gate.html"
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "harness.pytest_plugin",
                          "-p", "no:cacheprovider", "--gate-report", "out/gate.html", "test_tiny.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"gate report: {report}" in run.stdout
    assert sorted(p.name for p in report.parent.iterdir()) == ["gate.html"]   # no temp file left
    page = report.read_text(encoding="utf-8")
    assert "<pre>the diff:\n- &lt;a&gt;\n+ &lt;b&gt;</pre>" in page
    data = embedded_data(page)
    assert data["verdict"] == "FAILED" and data["engine_version"] and data["spark_version"]
    assert cell_states(data["matrix"]) == {("calc-tiny", "calc_1"): "restored",
                                           ("calc-tiny", "calc_2"): "failed"}


@pytest.fixture(scope="module")
def generated(spark, tmp_path_factory):
    """A snapshots root holding the fixtures of a few programs of tests/gate_programs: a
    stateless and two stateful nodes (the whole package is the harness proof's job)."""
    from harness.generate import generate_fixture
    from harness_support import PROGRAMS

    root = tmp_path_factory.mktemp("report-snapshots")
    for program in PROGRAMS:
        if program.id in REPORTED:
            generate_fixture(program, root, spark=spark)
    return root


REPORTED = ("calc-tiny", "group-aggregate-tiny", "interval-join-tiny")


@pytest.mark.spark
def test_a_gate_run_reports_every_restored_fixture(generated, tmp_path, capsys):
    from harness.fixtures import scan_snapshots
    from harness.gate import run_gate
    from harness_support import GATE_PROGRAMS

    report = tmp_path / "gate.html"
    assert run_gate(generated, tmp_path / "gate.xml", programs=GATE_PROGRAMS, report=report,
                    extra=["-k", "test_restore or test_audit_programs_load"]) == 0
    assert f"gate report: {report}" in capsys.readouterr().out
    data = embedded_data(report.read_text(encoding="utf-8"))
    fixtures = scan_snapshots(generated)[0]
    assert sorted(f.program_id for f in fixtures) == sorted(REPORTED)
    cells = {cell["fixture"]: cell for group in data["matrix"] for row in group["programs"]
             for cell in row["cells"]}
    assert {f.id: cells[f.id]["state"] for f in fixtures} == {f.id: "restored" for f in fixtures}
    assert all(cells[f.id]["seconds"] > 0 for f in fixtures)
    assert data["verdict"] == "PASSED"
    assert [(c["suite"], c["passed"], c["total"]) for c in data["counts"]] == [("audit", 1, 1),
                                                                               ("restore", 3, 3)]


def test_fixtures_of_older_spark_releases_get_their_own_columns_after_the_pinned_one():
    groups = matrix([GateRecord("restore", "calc_1/calc-x", "passed", 1.0),
                     GateRecord("restore", "calc_1/calc-x/spark-4.2.1", "failed", 1.0, "boom"),
                     GateRecord("restore", "calc_1/calc-x/spark-4.1.4", "passed", 1.0),
                     GateRecord("restore", "calc_1/calc-y", "passed", 1.0)])
    (group,) = groups
    assert group["versions"] == ["calc_1", "calc_1 on Spark 4.1.4", "calc_1 on Spark 4.2.1"]
    states = cell_states(groups)
    assert states[("calc-x", "calc_1 on Spark 4.2.1")] == "failed"
    assert states[("calc-y", "calc_1 on Spark 4.1.4")] == NOT_APPLICABLE
