"""The gate's HTML report: one self-contained page (no external assets, no network).

Pure: gate records and run metadata in, an HTML string out (`render_report`). The page holds

- a header: the verdict, counts per suite, total time, engine and Spark versions, when;
- the restore matrix: per node, rows = programs, columns = the node's versions present
  (`interval-join_1`, `interval-join_2`), each cell restored / failed / skipped / not
  applicable (no fixture) with the restore time, after each older version that the gate
  migrated a column `<node>_<version> migrated` (its fixtures restored through the plan
  migrated to the latest version, or migration refused as designed), and the program's
  semantic result;
- the audit checks with their outcome;
- every failure with its full message (explanation and diff), preformatted, HTML-escaped,
  linked from its matrix cell or audit row.

The matrix is derived from the restore records' names (`<node>_<version>/<program>`) and
embedded as JSON in a `<script type="application/json">` element; a small inline script
builds the tables from it (a `<noscript>` fallback lists the failures). harness.pytest_plugin
writes the page for `--gate-report PATH`.
"""
from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from typing import Iterable, Optional, Protocol, Sequence

SUITES = ("audit", "restore", "migration", "semantic")
SUITE_NOUNS = {"audit": "checks passed", "restore": "fixtures restored",
               "migration": "older fixtures migrated", "semantic": "programs passed"}
RESTORE_STATES = {"passed": "restored", "failed": "failed", "skipped": "skipped"}
# "passed": restored through the migrated plan, or migration refused as designed
MIGRATION_STATES = {"passed": "passed", "failed": "failed", "skipped": "skipped"}
MIGRATED = " migrated"                  # suffix of a version's migration column
NOT_APPLICABLE = "not-applicable"
NOT_RUN = "not-run"

FIXTURE_ID = re.compile(r"^(?P<node>.+)_(?P<version>\d+)/(?P<program>[^/]+)"
                        r"(?:/spark-(?P<release>[^/]+))?$")


class Record(Protocol):
    """What the report reads of a gate record (harness.pytest_plugin.GateRecord)."""

    suite: str
    name: str
    outcome: str
    seconds: float
    message: Optional[str]


@dataclass(frozen=True)
class ReportMeta:
    engine_version: str
    spark_version: str
    generated_at: str                  # ISO 8601
    seconds: float                     # the whole run's wall time
    problem: Optional[str] = None      # pytest stopped outside the checks (interrupt, collection error)
    shard: Optional[str] = None        # "K/N": the report of one shard of the gate (harness.shard)


# --- the data --------------------------------------------------------------------------------------

def suite_counts(records: Sequence[Record]) -> list[dict]:
    """Per suite that has records: passed / failed / skipped / total and the summed time."""
    counts = []
    for suite in SUITES:
        mine = [r for r in records if r.suite == suite]
        if mine:
            counts.append({"suite": suite, "noun": SUITE_NOUNS[suite], "total": len(mine),
                           **{outcome: sum(r.outcome == outcome for r in mine)
                              for outcome in ("passed", "failed", "skipped")},
                           "seconds": round(sum(r.seconds for r in mine), 3)})
    return counts


def count_line(records: Sequence[Record]) -> str:
    """'audit 4/5 checks passed, restore 24/24 fixtures restored, ...' (the terminal verdict)."""
    return ", ".join(f"{c['suite']} {c['passed']}/{c['total']} {c['noun']}"
                     for c in suite_counts(records))


def summary_line(result: str, records: Sequence[Record], shard: Optional[str] = None) -> str:
    """'gate PASSED: audit 5/5 checks passed, ...'; a shard's: 'gate PASSED (shard 1/2): ...'."""
    return f"gate {result}{f' (shard {shard})' if shard else ''}: {count_line(records)}"


def verdict(records: Sequence[Record], problem: Optional[str] = None) -> str:
    """PASSED when at least one check ran, none failed and pytest was not stopped early."""
    ok = records and problem is None and not any(r.outcome == "failed" for r in records)
    return "PASSED" if ok else "FAILED"


def failure_anchors(records: Sequence[Record]) -> dict[tuple[str, str], str]:
    """(suite, name) of each failed record -> the id of its section in the page."""
    failed = [r for r in records if r.outcome == "failed"]
    return {(r.suite, r.name): f"failure-{index}" for index, r in enumerate(failed, 1)}


def parse_fixture_id(name: str) -> Optional[tuple[str, int, str, Optional[str]]]:
    """'interval-join_2/interval-join-tiny' -> ('interval-join', 2, 'interval-join-tiny', None);
    a fixture of an older Spark release ends in '/spark-4.1.4' -> (..., '4.1.4')."""
    match = FIXTURE_ID.match(name)
    if match is None:
        return None
    return match["node"], int(match["version"]), match["program"], match["release"]


def _column_name(node: str, suite: str, version: int, release: Optional[str]) -> str:
    name = f"{node}_{version}" + (f" on Spark {release}" if release else "")
    return name + (MIGRATED if suite == "migration" else "")


def matrix(records: Sequence[Record]) -> list[dict]:
    """The restore matrix, one group per node (sorted), from the restore records' names.

    Each group: {"node", "versions": ["<node>_1", ...], "programs": [{"program", "cells":
    [{"column", "fixture", "state", "seconds", "failure"}, ...], "semantic": {...}}]}. A cell
    without a fixture is "not-applicable"; a program without a semantic record is "not-run".
    Programs with only a semantic record go to the node their id starts with (the longest
    match, as harness.discovery.node_of), else to a group whose node is "".
    """
    anchors = failure_anchors(records)
    # A column: (suite, node version, Spark release that wrote the checkpoint or None).
    columns_of: dict[str, set[tuple[str, int, Optional[str]]]] = {}
    cells_by: dict[tuple[str, str, tuple], Record] = {}       # (node, program, column)
    programs: dict[str, str] = {}                              # program -> node
    for record in records:
        parsed = (parse_fixture_id(record.name) if record.suite in ("restore", "migration")
                  else None)
        if parsed is not None:
            node, version, program, release = parsed
            column = (record.suite, version, release)
            columns_of.setdefault(node, set()).add(column)
            cells_by[node, program, column] = record
            programs.setdefault(program, node)
    semantic = {r.name: r for r in records if r.suite == "semantic"}
    for program in semantic:
        if program not in programs:
            owners = [node for node in columns_of if program == node or program.startswith(node + "-")]
            programs[program] = max(owners, key=len) if owners else ""

    groups = []
    for node in sorted(set(programs.values()), key=lambda n: (n == "", n)):
        # Per version: the pinned release's restores, older releases' (oldest first), migration.
        columns = sorted(columns_of.get(node, ()), key=lambda c: (
            c[1], c[0] == "migration", c[2] is not None,
            tuple(int(p) for p in c[2].split(".") if p.isdigit()) if c[2] else ()))
        rows = []
        for program in sorted(p for p, owner in programs.items() if owner == node):
            cells = []
            for suite, version, release in columns:
                record = cells_by.get((node, program, (suite, version, release)))
                column = _column_name(node, suite, version, release)
                states = MIGRATION_STATES if suite == "migration" else RESTORE_STATES
                if record is None:
                    cells.append({"column": column, "fixture": None, "state": NOT_APPLICABLE,
                                  "seconds": None, "failure": None})
                else:
                    cells.append({"column": column, "fixture": record.name,
                                  "state": states.get(record.outcome, record.outcome),
                                  "seconds": round(record.seconds, 3),
                                  "failure": anchors.get((suite, record.name))})
            run = semantic.get(program)
            rows.append({"program": program, "cells": cells, "semantic": (
                {"state": NOT_RUN, "seconds": None, "failure": None} if run is None else
                {"state": run.outcome, "seconds": round(run.seconds, 3),
                 "failure": anchors.get(("semantic", program))})})
        groups.append({"node": node, "programs": rows, "versions": [
            _column_name(node, *column) for column in columns]})
    return groups


def report_data(records: Sequence[Record], meta: ReportMeta) -> dict:
    """Everything the page shows but the messages, as the JSON embedded in it."""
    anchors = failure_anchors(records)
    return {
        "verdict": verdict(records, meta.problem),
        "problem": meta.problem,
        "engine_version": meta.engine_version,
        "spark_version": meta.spark_version,
        "generated_at": meta.generated_at,
        "seconds": round(meta.seconds, 3),
        **({"shard": meta.shard} if meta.shard else {}),
        "counts": suite_counts(records),
        "matrix": matrix(records),
        "records": [{"suite": r.suite, "name": r.name, "outcome": r.outcome,
                     "seconds": round(r.seconds, 3), "failure": anchors.get((r.suite, r.name))}
                    for r in records],
    }


# --- the page --------------------------------------------------------------------------------------

def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _json_for_script(data: dict) -> str:
    """JSON that cannot end its <script> element or open a comment: <, > and & as \\u escapes."""
    text = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False)
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 60 else f"{int(value // 60)} min {value % 60:.0f} s"


STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em 2em; color: #1b1f24; }
h1 { margin: 0 0 .3em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #d0d7de; }
h3 { margin: 1.2em 0 .4em; font-size: 1em; }
.verdict-PASSED { color: #1a7f37; } .verdict-FAILED { color: #cf222e; }
.problem { color: #cf222e; font-weight: bold; }
table { border-collapse: collapse; margin: .3em 0; }
th, td { border: 1px solid #d0d7de; padding: .25em .6em; text-align: left; vertical-align: top; }
thead th { background: #f6f8fa; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: .1em 1em; }
dl.meta dt { color: #57606a; } dl.meta dd { margin: 0; }
.restored, .passed { background: #dafbe1; } .failed { background: #ffebe9; }
.skipped { background: #fff8c5; } .not-applicable, .not-run { color: #8c959f; background: #f6f8fa; }
.time { color: #57606a; font-size: .85em; margin-left: .4em; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: .6em; overflow-x: auto;
      white-space: pre-wrap; }
section.failure { border-left: 4px solid #cf222e; padding-left: .8em; margin: 1em 0; }
section.failure:target { background: #fff8c5; }
"""

# Builds the matrix tables from the embedded JSON; text only via textContent (no innerHTML).
SCRIPT = """
(function () {
  var data = JSON.parse(document.getElementById("gate-data").textContent);
  var root = document.getElementById("matrix");
  var SYMBOLS = {"restored": "\\u2713 restored", "passed": "\\u2713 passed",
                 "failed": "\\u2717 failed", "skipped": "skipped",
                 "not-applicable": "n/a", "not-run": "not run"};
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var key in attrs) { if (attrs[key] !== null && attrs[key] !== undefined) node.setAttribute(key, attrs[key]); }
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function fill(td, state, seconds, failure) {
    var label = SYMBOLS[state] || state;
    if (failure) { td.appendChild(el("a", {"href": "#" + failure}, label)); }
    else { td.appendChild(document.createTextNode(label)); }
    if (seconds !== null && seconds !== undefined) {
      td.appendChild(el("span", {"class": "time"}, seconds.toFixed(1) + " s"));
    }
  }
  if (!data.matrix.length) { root.appendChild(el("p", {}, "No restore or semantic check ran.")); }
  data.matrix.forEach(function (group) {
    var section = el("section", {"class": "node", "data-node": group.node});
    section.appendChild(el("h3", {}, group.node ? "node " + group.node : "programs of no node with a fixture in this run"));
    var table = el("table", {"class": "matrix", "data-node": group.node});
    var head = el("tr");
    head.appendChild(el("th", {}, "program"));
    group.versions.forEach(function (column) { head.appendChild(el("th", {"class": "version"}, column)); });
    head.appendChild(el("th", {}, "semantic"));
    table.appendChild(el("thead")).appendChild(head);
    var body = table.appendChild(el("tbody"));
    group.programs.forEach(function (row) {
      var tr = el("tr", {"data-program": row.program});
      tr.appendChild(el("th", {"scope": "row"}, row.program));
      row.cells.forEach(function (cell) {
        var td = el("td", {"class": "cell " + cell.state, "data-column": cell.column,
                           "data-program": row.program, "data-fixture": cell.fixture,
                           "data-state": cell.state,
                           "title": cell.fixture ? cell.fixture : "no fixture of " + cell.column + " for this program"});
        fill(td, cell.state, cell.seconds, cell.failure);
        tr.appendChild(td);
      });
      var sem = el("td", {"class": "semantic " + row.semantic.state, "data-program": row.program,
                          "data-semantic": row.semantic.state});
      fill(sem, row.semantic.state, row.semantic.seconds, row.semantic.failure);
      tr.appendChild(sem);
      body.appendChild(tr);
    });
    section.appendChild(table);
    root.appendChild(section);
  });
  root.setAttribute("data-rendered", "true");
})();
"""


def render_report(records: Iterable[Record], meta: ReportMeta) -> str:
    """The whole page, one string."""
    records = list(records)
    data = report_data(records, meta)
    anchors = failure_anchors(records)
    failed = [r for r in records if r.outcome == "failed"]
    skipped = [r for r in records if r.outcome == "skipped"]
    result = data["verdict"]
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>restore gate {result}</title>", f"<style>{STYLE}</style>", "</head>", "<body>"]

    out.append(f'<h1>restore gate <span id="verdict" class="verdict-{result}">{result}</span></h1>')
    if meta.problem:
        out.append(f'<p class="problem">{_e(meta.problem)}</p>')
    elif not records:
        out.append('<p class="problem">No gate check ran.</p>')
    if records:
        out.append(f'<p id="count-line">{_e(summary_line(result, records, meta.shard))}</p>')
    out.append('<dl class="meta">')
    for label, value in (("total time", _seconds(meta.seconds)),
                         ("engine version", meta.engine_version),
                         ("Spark version", meta.spark_version),
                         ("generated", meta.generated_at)):
        out.append(f"<dt>{_e(label)}</dt><dd>{_e(value)}</dd>")
    out.append("</dl>")
    if data["counts"]:
        out.append('<table id="counts"><thead><tr><th>suite</th><th>passed</th><th>failed</th>'
                   "<th>skipped</th><th>total</th><th>time</th></tr></thead><tbody>")
        for c in data["counts"]:
            out.append(f'<tr data-suite="{_e(c["suite"])}"><th scope="row">{_e(c["suite"])}</th>'
                       f'<td>{c["passed"]}</td><td>{c["failed"]}</td><td>{c["skipped"]}</td>'
                       f'<td>{c["total"]}</td><td>{_e(_seconds(c["seconds"]))}</td></tr>')
        out.append("</tbody></table>")

    out.append('<h2>Restore matrix</h2>')
    out.append('<p>Rows: programs, by node. Columns: the node versions with fixtures in this run. '
               '<i>n/a</i>: no fixture of that version for the program.</p>')
    out.append('<div id="matrix"></div>')
    out.append("<noscript><p>The matrix needs JavaScript. Failed checks:</p><ul>")
    for record in failed:
        anchor = anchors[record.suite, record.name]
        out.append(f'<li><a href="#{anchor}">{_e(record.suite)} {_e(record.name)}</a></li>')
    if not failed:
        out.append("<li>none</li>")
    out.append("</ul></noscript>")

    audits = [r for r in records if r.suite == "audit"]
    out.append("<h2>Audit checks</h2>")
    if audits:
        out.append('<table id="audit"><thead><tr><th>check</th><th>outcome</th><th>time</th>'
                   "</tr></thead><tbody>")
        for record in audits:
            outcome = _e(record.outcome)
            anchor = anchors.get(("audit", record.name))
            if anchor:
                outcome = f'<a href="#{anchor}">{outcome}</a>'
            out.append(f'<tr data-check="{_e(record.name)}"><th scope="row">{_e(record.name)}</th>'
                       f'<td class="{_e(record.outcome)}">{outcome}</td>'
                       f"<td>{_e(_seconds(record.seconds))}</td></tr>")
        out.append("</tbody></table>")
    else:
        out.append("<p>No audit check ran.</p>")

    out.append(f'<h2>Failures ({len(failed)})</h2>')
    if not failed:
        out.append("<p>None.</p>")
    for record in failed:
        anchor = anchors[record.suite, record.name]
        out.append(f'<section class="failure" id="{anchor}" data-suite="{_e(record.suite)}" '
                   f'data-name="{_e(record.name)}"><h3>{_e(record.suite)} {_e(record.name)} '
                   f'<span class="time">{_e(_seconds(record.seconds))}</span></h3>'
                   f"<pre>{_e(record.message or '(no message)')}</pre></section>")
    if skipped:
        out.append(f"<h2>Skipped ({len(skipped)})</h2><ul>")
        for record in skipped:
            out.append(f"<li>{_e(record.suite)} {_e(record.name)}: {_e(record.message or '')}</li>")
        out.append("</ul>")

    out.append(f'<script type="application/json" id="gate-data">{_json_for_script(data)}</script>')
    out.append(f"<script>{SCRIPT}</script>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)
