"""Compare Flink's output for the table test programs with the programs' expectations.

    /work/main/.venv/bin/python tools/flink_compare/compare_programs.py [program-id ...]
        [--programs /tmp/flink_compare/programs.json]
        [--flink /tmp/flink_compare/programs-flink.json] [-v]

Flink's rows are printed as our sinks print them (`format_row` with the sink's row type), then
per sink and run (`all` = every row, against before + after; `before` = the before-restore
rows only, against expected_before; see run_programs_flink.py):

  changelog  Flink's changelog against the expected rows as a multiset (what the harness
             checks); not for `testing_materialized_data()` sinks, nor for programs with two
             or more sources run without the serial feed (Flink's interleaving of separate
             sources is not deterministic; see run_programs_flink.py)
  view       the materialized view of Flink's changelog (by the sink's primary key when it
             has one, else as a bag: harness.compare.materialized_view) against the view of
             the expected changelog, or for materialized sinks the expected rows themselves

Verdicts, one per program:
  MATCH        changelog and view equal (view only for materialized sinks)
  VIEW-MATCH   the view is equal; the changelog is order-dependent (two or more sources
               fed without the serial feed, or whose changelog varied between --repeat runs)
  DIFF         rows only in one side are listed
  SKIPPED      not run on Flink (why: watermark / computed column)
  FLINK-ERROR  Flink failed (its root cause is printed)
  NOT-RUN      exported but not in Flink's results
Notes under a verdict: config keys Flink does not have, INSERTs Flink rejects as written
(EXPLAIN into a blackhole sink of the sink's schema), changelogs equal as multisets but in
another order than written, multi-source changelogs that varied between --repeat runs.

Exit status: 1 if any program is DIFF, else 2 if any is FLINK-ERROR, else 0.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

DEFAULT_DIR = Path("/tmp/flink_compare")
_ROW_TEXT = re.compile(r"^(\+I|-U|\+U|-D)\[(.*)\]$", re.S)


def sink_row_type(sink: dict):
    from streamplan.types import parse_row_type

    fields = ", ".join(f"`{name.replace('`', '``')}` {type_text}"
                       for name, type_text in sink["columns"])
    return parse_row_type(f"ROW<{fields}>")


def key_indexes(sink: dict):
    if not sink["primary_key"]:
        return None
    names = [name for name, _ in sink["columns"]]
    return [names.index(name) for name in sink["primary_key"]]


def flink_changelog(rows: list, row_type):
    """Flink's collected [kind, values] rows as ChangelogRows and as our sinks' texts."""
    from streamplan.testing import ChangelogRow, RowKind, to_python

    typed = [ChangelogRow(RowKind.from_short(kind),
                          tuple(to_python(v, f.type) for v, f in zip(values, row_type.fields)))
             for kind, values in rows]
    return typed, [row.text(row_type) for row in typed]


def format_rows(rows: list, row_type) -> list[str]:
    return flink_changelog(rows, row_type)[1]


def materialize_texts(texts: list[str], keys) -> list[str]:
    """The view of an expected changelog given as texts (by key, else as a bag); a
    retraction of a row the view does not hold shows up as a marked row."""
    from harness.steps import split_values

    keyed: dict[tuple, str] = {}
    bag: list[str] = []
    problems: list[str] = []
    for text in texts:
        match = _ROW_TEXT.match(text)
        if not match:
            problems.append(f"UNPARSABLE-ROW {text}")
            continue
        kind, body = match.groups()
        if keys:
            parts = split_values(body)
            key = tuple(parts[i] if i < len(parts) else None for i in keys)
            if kind in ("+I", "+U"):
                keyed[key] = body
            else:
                keyed.pop(key, None)
        elif kind in ("+I", "+U"):
            bag.append(body)
        elif body in bag:
            bag.remove(body)
        else:
            problems.append(f"RETRACTION-OF-MISSING-ROW {text}")
    bodies = list(keyed.values()) if keys else bag
    return sorted(f"+I[{body}]" for body in bodies) + problems


def multiset_diff(expected: list[str], actual: list[str]) -> list[str]:
    e, a = Counter(expected), Counter(actual)
    return ([f"only expected: {row}" for row in sorted((e - a).elements())]
            + [f"only flink:    {row}" for row in sorted((a - e).elements())])


def compare_sink(program: dict, sink: dict, phase: str, run: dict, order_dependent: bool,
                 serial: bool) -> dict:
    """One sink of one run: {'error'|'changelog_diff'|'view_diff'|'notes', 'flink', 'expected'}."""
    from harness.compare import materialized_view
    from harness.errors import ExpectationMismatch

    out: dict = {"notes": [], "changelog_diff": [], "view_diff": [], "changelog_checked": False}
    if run.get("insert_check"):
        out["notes"].append(f"Flink rejects `{sink['name']}`'s INSERT as written: "
                            f"{run['insert_check']}")
    if run.get("error"):
        out["error"] = run["error"]
        return out
    row_type = sink_row_type(sink)
    keys = key_indexes(sink)
    typed, texts = flink_changelog(run["rows"], row_type)
    out["flink"] = texts
    where = f"program {program['id']}, sink '{sink['name']}', {phase}"
    try:
        flink_view = materialized_view(typed, keys, row_type, where)
    except ExpectationMismatch as err:
        flink_view = [f"FLINK-CHANGELOG-NOT-MATERIALIZABLE {str(err).strip()}"]
    out["flink_view"] = flink_view
    if sink["materialized"]:
        expected_view = list(sink["expected_after"] if phase == "all" else sink["expected_before"])
        out["expected"] = expected_view
    else:
        expected = list(sink["expected_before"]) + (list(sink["expected_after"])
                                                    if phase == "all" else [])
        out["expected"] = expected
        expected_view = materialize_texts(expected, keys)
        if not order_dependent or serial:
            out["changelog_checked"] = True
            out["changelog_diff"] = multiset_diff(expected, texts)
            if not out["changelog_diff"] and texts != expected:
                out["notes"].append(f"{sink['name']} ({phase}): same rows as expected, in "
                                    f"another order: {'; '.join(texts)}")
        else:
            extra = multiset_diff(expected, texts)
            out["notes"].append(
                f"{sink['name']} ({phase}): order-dependent changelog "
                + ("equal as a multiset in this run" if not extra
                   else "differs in this run: " + "; ".join(extra)))
        if run.get("repeats"):
            out["notes"].append(
                f"{sink['name']} ({phase}): {run['repeats']} runs, changelogs "
                + ("identical" if run.get("identical_changelogs") else
                   "NOT identical: " + " | ".join(
                       "; ".join(format_rows(rows, row_type)) for rows in
                       run.get("other_changelogs", []))))
            if serial and not run.get("identical_changelogs"):
                out["unstable"] = True
    out["expected_view"] = expected_view
    out["view_diff"] = multiset_diff(expected_view, flink_view)
    return out


def judge(program: dict, result: dict | None) -> tuple[str, list[str], list[tuple]]:
    """The verdict, lines to print, and the per-sink details (for -v)."""
    if result is None:
        return "NOT-RUN", ["not in Flink's results (run run_programs_flink.py)"], []
    if result.get("skipped"):
        return "SKIPPED", [f"skipped: {result['skipped']}"] + result.get("notes", []), []
    if result.get("error"):
        return "FLINK-ERROR", [f"flink: {result['error']}"], []
    lines = [note for note in result.get("notes", [])
             if "not a Flink option" in note or note.startswith("serial feed")]
    order_dependent = result.get("order_dependent", False)
    serial = bool(result.get("serial_feed_delay"))
    details = []
    errors, diffs, changelog_checked, unstable = [], [], True, False
    sinks = {sink["name"]: sink for sink in program["sinks"]}
    for phase in ("all", "before"):
        for name, run in sorted(result["runs"].get(phase, {}).items()):
            sink = sinks[name]
            out = compare_sink(program, sink, phase, run, order_dependent, serial)
            if out.get("unstable"):
                unstable = True
            details.append((phase, sink, out))
            lines.extend(note for note in out["notes"] if note not in lines)
            if "error" in out:
                errors.append(f"{name} ({phase}): flink: {out['error']}")
                continue
            if not sink["materialized"] and not out["changelog_checked"]:
                changelog_checked = False
            label = f"{name} ({phase}"
            for diff in out["changelog_diff"]:
                diffs.append(f"{label}, changelog) {diff}")
            for diff in out["view_diff"]:
                diffs.append(f"{label}, view) {diff}")
    if errors:
        return "FLINK-ERROR", errors + diffs + lines, details
    view_diffs = [diff for diff in diffs if ", view) " in diff]
    if view_diffs or (diffs and not unstable):
        return "DIFF", diffs + lines, details
    if diffs:       # the serial feed's order was not stable: only the view is evidence
        lines = ["changelog varied between runs; compared as a view only"] + diffs + lines
        return "VIEW-MATCH", lines, details
    if unstable:
        return "VIEW-MATCH", ["changelog varied between runs; compared as a view only"] + lines, details
    return ("MATCH" if changelog_checked else "VIEW-MATCH"), lines, details


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="program ids (default: every exported program)")
    parser.add_argument("--programs", type=Path, default=DEFAULT_DIR / "programs.json")
    parser.add_argument("--flink", type=Path, default=DEFAULT_DIR / "programs-flink.json")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every program's expected and Flink rows")
    args = parser.parse_args()
    programs = json.loads(args.programs.read_text())["programs"]
    flink = json.loads(args.flink.read_text()) if args.flink.exists() else {}
    results = flink.get("programs", {})
    if args.ids:
        unknown = sorted(set(args.ids) - {p["id"] for p in programs})
        if unknown:
            sys.exit(f"not in {args.programs}: {', '.join(unknown)}")
        programs = [p for p in programs if p["id"] in args.ids]

    print(f"Flink {flink.get('flink_version') or '?'} vs the programs' expectations "
          f"({args.programs}, {args.flink})")
    summary: Counter = Counter()
    for program in programs:
        verdict, lines, details = judge(program, results.get(program["id"]))
        summary[verdict] += 1
        print(f"[{verdict}] {program['id']}: {program['description']}")
        if verdict in ("DIFF", "FLINK-ERROR") or args.verbose:
            print(f"    sql: {' '.join(program['run_sql'].split())}")
        for line in lines:
            print(f"    {line}")
        if args.verbose:
            for phase, sink, out in details:
                kind = "view" if sink["materialized"] else "changelog"
                print(f"    {sink['name']} ({phase}) expected {kind}: "
                      f"{'; '.join(out.get('expected', [])) or '(none)'}")
                print(f"    {sink['name']} ({phase}) flink changelog: "
                      f"{'; '.join(out.get('flink', [])) or '(none)'}")
                print(f"    {sink['name']} ({phase}) flink view: "
                      f"{'; '.join(out.get('flink_view', [])) or '(empty)'}")
    print()
    print("summary: " + ", ".join(f"{n} {k}" for k, n in sorted(summary.items())))
    sys.exit(1 if summary["DIFF"] else 2 if summary["FLINK-ERROR"] else 0)


if __name__ == "__main__":
    main()
