"""Diff Flink's and streamplan's results and print a report.

    python3 tools/flink_compare/compare.py [--flink FILE] [--streamplan FILE] [-v]

Per case:
  MATCH        materialized views equal and changelogs equal (in order for a Calc; as a
               multiset for joins, whose arrival order in Flink depends on how the two
               sources interleave)
  CHANGELOG    same materialized view, different changelog
  FORMAT       the views differ only in how numbers are printed (equal at FLOAT precision)
  DIFF         different materialized view (rows only in one engine are listed)
  ACCEPTED     same rows, but Flink rejects `INSERT INTO Snk <query>` that streamplan ran
  ERROR        one engine failed (or both, with different outcomes)
Cases of group `late` are informational: their data is out of order, where the engines'
watermark timing legitimately differs.
"""
from __future__ import annotations

import argparse
import json
import re
import struct
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import CASES  # noqa: E402
from common import DEFAULT_OUT  # noqa: E402


def changelog_equal(case: dict, flink: list, streamplan: list) -> bool:
    if case["group"] in ("calc", "format", "agg"):
        return flink == streamplan
    return Counter(flink) == Counter(streamplan)


NUMBER = re.compile(r"(?<=[\[ ])-?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|Infinity|NaN)(?=[,\]])")


def numbers_normalized(row: str) -> str:
    """Numbers rewritten canonically (at FLOAT precision): separates text format from value."""
    def canonical(match: re.Match) -> str:
        value = float(match.group(0))
        try:
            return repr(struct.unpack("f", struct.pack("f", value))[0])
        except OverflowError:
            return repr(value)
    return NUMBER.sub(canonical, row)


def diff_lines(fm: Counter, sm: Counter) -> list[str]:
    return ([f"only flink:      {row}" for row in sorted((fm - sm).elements())]
            + [f"only streamplan: {row}" for row in sorted((sm - fm).elements())])


def classify(case: dict, f: dict, s: dict) -> tuple[str, list[str]]:
    lines: list[str] = []
    if f.get("error") or s.get("error"):
        lines.append(f"flink:      {f.get('error') or 'ok'}")
        lines.append(f"streamplan: {s.get('error') or 'ok'}")
        if s.get("error_detail"):
            lines.append(f"            {s['error_detail']}")
        if f.get("error") and s.get("error"):
            return "BOTH-ERROR", lines
        ok = f if not f.get("error") else s
        lines.append(f"{'flink' if ok is f else 'streamplan'} result: "
                     + ("; ".join(ok["changelog"]) or "(empty)"))
        return "ERROR", lines
    fm, sm = Counter(f["materialized"]), Counter(s["materialized"])
    if fm != sm and Counter(map(numbers_normalized, fm.elements())) == \
            Counter(map(numbers_normalized, sm.elements())):
        lines += diff_lines(fm, sm)
        return "FORMAT", lines
    if fm != sm:
        lines += diff_lines(fm, sm)
        return "DIFF", lines
    if not changelog_equal(case, f["changelog"], s["changelog"]):
        lines.append("flink changelog:      " + "; ".join(f["changelog"]))
        lines.append("streamplan changelog: " + "; ".join(s["changelog"]))
        return "CHANGELOG", lines
    return "MATCH", lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flink", type=Path, default=DEFAULT_OUT / "flink.json")
    parser.add_argument("--streamplan", type=Path, default=DEFAULT_OUT / "streamplan.json")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also print types, operators and both changelogs of every case")
    args = parser.parse_args()
    flink = json.loads(args.flink.read_text())
    streamplan = json.loads(args.streamplan.read_text())

    summary = Counter()
    for case in CASES:
        name = case["name"]
        if name not in flink or name not in streamplan:
            summary["not run on both"] += 1
            continue
        f, s = flink.get(name), streamplan.get(name)
        status, lines = classify(case, f, s)
        if f and f.get("insert_error") and s and not s.get("error"):
            lines.append(f"note: Flink rejects the INSERT itself: {f['insert_error']}")
        if status == "MATCH" and f and f.get("insert_error") and not s.get("error"):
            status = "ACCEPTED"     # same rows, but Flink refuses the INSERT streamplan ran
        tag = " (informational)" if case["group"] == "late" and status != "MATCH" else ""
        summary[status + tag] += 1
        print(f"[{status}]{tag} {name}: {case['note']}")
        if status != "MATCH" or args.verbose:
            print(f"    query: {case['query']}")
            if f and f.get("types"):
                print(f"    flink types: {', '.join(f['types'])}")
            if s and s.get("operators"):
                for op in s["operators"][:-1]:       # the last one is the sink
                    print(f"    streamplan: {op}")
        for line in lines:
            print(f"    {line}")
        if args.verbose and status == "MATCH":
            for row in (f or {}).get("changelog", []):
                print(f"      {row}")
    print()
    print("summary: " + ", ".join(f"{n} {k}" for k, n in sorted(summary.items())))


if __name__ == "__main__":
    main()
