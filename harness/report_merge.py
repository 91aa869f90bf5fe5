"""`harness report merge OUT.xml OUT.html SHARD.xml...`: one gate report from a sharded gate.

Each shard of `ci/gate --shard K/N` writes its own JUnit XML, holding the testsuite property
`gate-shard` = "K/N" (and the engine and Spark versions, its wall time) and, per test case,
its gate record (`gate-suite`, `gate-name`, `gate-run-seconds`; harness.pytest_plugin). The
merge puts every test case into one JUnit file (totals summed) and renders the HTML report
from the records read back, with harness.gate_report's renderer, so its verdict and counts
are what an unsharded run of the same results shows.

Refused, with the file named: a file that cannot be read as JUnit XML, a test case present
in two files, shards of different N, a shard given twice or missing. Files without the
`gate-shard` property (plain gate runs, e.g. `-k` slices) merge too, as long as none of the
others has it.
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional, Sequence

from .errors import HarnessError
from .gate_report import ReportMeta, render_report, summary_line, verdict
from .pytest_plugin import (ENGINE_PROPERTY, NAME_PROPERTY, RUN_SECONDS_PROPERTY, SECONDS_PROPERTY,
                            SPARK_PROPERTY, SUITE_PROPERTY, GateRecord, write_atomically)
from .shard import SHARD_PROPERTY, Shard, ShardError, parse_shard

TOTALS = ("tests", "errors", "failures", "skipped")
# a gate test's name without its recorded properties: test_<suite>[<name>]
_GATE_TEST = re.compile(r"^test_(?P<suite>audit|restore|migration|semantic)\[(?P<name>.+)\]$")


class ReportMergeError(HarnessError):
    """The shards' reports cannot be merged into one; names the file and why."""


@dataclass(frozen=True)
class ShardReport:
    path: Path
    suite: ET.Element                  # the <testsuite>
    properties: dict[str, str]         # the testsuite's
    shard: Optional[Shard]


def read_shard(path: Path) -> ShardReport:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as err:
        raise ReportMergeError(f"{path}: not a readable JUnit XML file ({err})") from None
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    if root.tag not in ("testsuite", "testsuites") or len(suites) != 1:
        raise ReportMergeError(f"{path}: not the JUnit XML of one gate run (expected one "
                               f"<testsuite>, as pytest --junitxml writes)")
    suite = suites[0]
    properties = {p.get("name"): p.get("value", "") for p in suite.findall("properties/property")}
    shard = None
    if SHARD_PROPERTY in properties:
        try:
            shard = parse_shard(properties[SHARD_PROPERTY])
        except ShardError as err:
            raise ReportMergeError(f"{path}: property {SHARD_PROPERTY}: {err}") from None
    return ShardReport(Path(path), suite, properties, shard)


def check_shards(reports: Sequence[ShardReport]) -> None:
    """Every file a shard of one N, each shard once, none missing; or none a shard at all."""
    sharded = [r for r in reports if r.shard is not None]
    if not sharded:
        return
    for report in reports:
        if report.shard is None:
            raise ReportMergeError(f"{report.path}: not a shard's report (no {SHARD_PROPERTY} "
                                   f"property) but {sharded[0].path} is shard {sharded[0].shard}")
        if report.shard.count != sharded[0].shard.count:
            raise ReportMergeError(f"{report.path}: shard {report.shard} of another split than "
                                   f"{sharded[0].path} (shard {sharded[0].shard})")
    seen: dict[int, Path] = {}
    for report in reports:
        if report.shard.index in seen:
            raise ReportMergeError(f"{report.path}: shard {report.shard} given twice (also "
                                   f"{seen[report.shard.index]})")
        seen[report.shard.index] = report.path
    missing = sorted(set(range(1, sharded[0].shard.count + 1)) - set(seen))
    if missing:
        raise ReportMergeError(f"shard(s) {', '.join(map(str, missing))} of "
                               f"{sharded[0].shard.count} missing: give every shard's JUnit XML")


def merge_junit(reports: Sequence[ShardReport]) -> ET.ElementTree:
    """One <testsuites><testsuite> with every test case, the totals summed, the earliest
    timestamp; the shards' own properties are left out (the merged file is no shard's)."""
    first = reports[0].suite
    merged = ET.Element("testsuite", {"name": first.get("name", "restore-gate")})
    for total in TOTALS:
        merged.set(total, str(sum(int(r.suite.get(total, "0")) for r in reports)))
    merged.set("time", f"{sum(float(r.suite.get('time', '0')) for r in reports):.3f}")
    stamps = [r.suite.get("timestamp") for r in reports if r.suite.get("timestamp")]
    if stamps:
        merged.set("timestamp", min(stamps))
    if first.get("hostname"):
        merged.set("hostname", first.get("hostname"))
    owner: dict[tuple[str, str], Path] = {}
    for report in reports:
        for case in report.suite.findall("testcase"):
            key = (case.get("classname", ""), case.get("name", ""))
            if key in owner:
                raise ReportMergeError(f"{report.path}: test case {key[0]}::{key[1]} is also in "
                                       f"{owner[key]}: a test belongs to one shard only")
            owner[key] = report.path
            merged.append(case)
    root = ET.Element("testsuites", {"name": "pytest tests"})
    root.append(merged)
    return ET.ElementTree(root)


def gate_records(suite: ET.Element) -> list[GateRecord]:
    """The gate records of a JUnit testsuite's cases: from their recorded properties, else
    from the test's name (test_audit_programs_load, test_<suite>[<name>]) and time."""
    records = []
    for case in suite.findall("testcase"):
        properties = {p.get("name"): p.get("value", "") for p in case.findall("properties/property")}
        if SUITE_PROPERTY in properties:
            suite_name, name = properties[SUITE_PROPERTY], properties.get(NAME_PROPERTY, "")
        elif case.get("name") == "test_audit_programs_load":
            suite_name, name = "audit", "programs"
        elif (match := _GATE_TEST.match(case.get("name", ""))) is not None:
            suite_name, name = match["suite"], match["name"]
        else:
            continue                   # not a gate check
        seconds = float(properties.get(RUN_SECONDS_PROPERTY, case.get("time", "0")) or 0)
        problem = case.find("failure")
        problem = problem if problem is not None else case.find("error")
        skipped = case.find("skipped")
        if problem is not None:
            outcome, message = "failed", problem.text or problem.get("message")
        elif skipped is not None:
            outcome, message = "skipped", skipped.get("message") or skipped.text
        else:
            outcome, message = "passed", None
        records.append(GateRecord(suite_name, name, outcome, seconds, message))
    return records


def merge_reports(out_xml: Path, out_html: Path, paths: Sequence[Path],
                  generated_at: Optional[str] = None) -> str:
    """Merge the shards' JUnit XML into `out_xml`, render the HTML report to `out_html`;
    returns the summary line ('gate PASSED: audit 5/5 checks passed, ...')."""
    if not paths:
        raise ReportMergeError("no JUnit XML file to merge: give each shard's file")
    reports = [read_shard(Path(path)) for path in paths]
    check_shards(reports)
    reports.sort(key=lambda r: r.shard.index if r.shard else 0)     # stable: file order otherwise
    tree = merge_junit(reports)
    records = gate_records(tree.getroot().find("testsuite"))
    props = reports[0].properties
    seconds = [float(r.properties.get(SECONDS_PROPERTY) or r.suite.get("time", "0")) for r in reports]
    meta = ReportMeta(engine_version=props.get(ENGINE_PROPERTY, "not recorded"),
                      spark_version=props.get(SPARK_PROPERTY, "not recorded"),
                      generated_at=generated_at or datetime.now(timezone.utc).isoformat(timespec="seconds"),
                      seconds=max(seconds))        # the shards ran side by side
    write_atomically(Path(out_xml), ET.tostring(tree.getroot(), encoding="utf-8",
                                                xml_declaration=True).decode("utf-8"))
    write_atomically(Path(out_html), render_report(records, meta))
    return summary_line(verdict(records), records)
