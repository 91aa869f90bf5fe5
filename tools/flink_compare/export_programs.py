"""Export the table test programs as plain JSON for the Flink runner (no Spark is started).

    /work/main/.venv/bin/python tools/flink_compare/export_programs.py [program-id ...]
        [--package programs] [--out /tmp/flink_compare/programs.json]

Per program it writes what `run_programs_flink.py` (PyFlink, another venv) needs to run it and
what `compare_programs.py` needs to judge Flink's output, taken from the harness's own objects:

  config     the program's config steps, canonical key and value (as the harness sets them)
  sources    name, physical columns [name, type text], primary key, WITH options, whether a
             watermark or computed columns are declared (the Flink runner declares a
             watermark on a physical TIMESTAMP column, `rowtime`, and skips programs with
             other computed columns; a `PROCTIME()` column it computes in the source's view:
             proctime_columns)
  feed       every source row in the order the harness feeds them: phases [before, after],
             the i-th rows of all tables share a step (`phased_steps`), tables sorted by name
             within a step; each row {phase, step, table, kind, values} with JSON values
             (`to_json`: decimals as strings, timestamps ISO)
  sinks      name, columns, primary key, options, expected_before, expected_after, materialized
  run_sql    the run step's text (INSERT or statement set, hints included)
  inserts    each INSERT of the run step: {sink, text} (the statement as written)
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

DEFAULT_OUT = Path("/tmp/flink_compare/programs.json")


def columns(step) -> list[list[str]]:
    return [[field.name, field.type.text] for field in step.row_type.fields]


def _is_proctime(expression) -> bool:
    """`name AS PROCTIME()`: a processing-time attribute the Flink runner's view computes."""
    return expression.sql().upper().replace(" ", "") == "PROCTIME()"


def source_json(step) -> dict:
    table = step.table
    return {
        "name": step.name,
        "columns": columns(step),
        "primary_key": list(step.primary_key) if step.primary_key else None,
        "options": dict(step.options),
        "has_watermark": table.watermark is not None,
        "watermark": table.watermark.text if table.watermark is not None else None,
        # the rowtime column and its watermark expression, for the Flink runner's schema
        "rowtime": ({"column": table.watermark.column, "expression": table.watermark.text,
                     "from_source": table.watermark.from_source}
                    if table.watermark is not None else None),
        "computed_columns": [c.name for c in table.columns
                             if c.computed is not None and not _is_proctime(c.computed)],
        "proctime_columns": [c.name for c in table.columns
                             if c.computed is not None and _is_proctime(c.computed)],
        "rows_before": len(step.rows_before),
        "rows_after": len(step.rows_after),
    }


def sink_json(step) -> dict:
    return {
        "name": step.name,
        "columns": columns(step),
        "primary_key": list(step.primary_key) if step.primary_key else None,
        "options": dict(step.options),
        "expected_before": list(step.expected_before),
        "expected_after": list(step.expected_after),
        "materialized": step.materialized,
    }


def feed_json(program) -> list[dict]:
    """The sources' rows in the harness's order (`phased_steps` over [before, after])."""
    from streamplan.testing import phased_steps, to_json

    sources = program.sources
    tables = sorted(sources)
    feed: list[dict] = []
    step_index = 0
    for phase in ("before", "after"):
        rows = {name: sources[name].feed_rows(phase) for name in tables}
        steps = phased_steps([rows], tables, end_of_input=False)
        length = max((len(s) for s in steps.values()), default=0)
        for index in range(length):
            for table in tables:
                for kind, values in steps[table][index]:
                    if kind is None:         # the end-of-input marker (not requested here)
                        continue
                    feed.append({"phase": phase, "step": step_index + index, "table": table,
                                 "kind": kind.short, "values": [to_json(v) for v in values]})
        step_index += length
    return feed


def program_json(program) -> dict:
    from harness.discovery import node_of
    from harness.steps import parse_run_sql

    inserts = parse_run_sql(program.run_step.text(), program.id)
    return {
        "id": program.id,
        "description": program.description,
        "node": node_of(program),
        "config": [[step.key, step.value] for step in program.config_steps],
        "sources": [source_json(step) for _, step in sorted(program.sources.items())],
        "feed": feed_json(program),
        "sinks": [sink_json(step) for _, step in sorted(program.sinks.items())],
        "run_sql": program.run_step.text(),
        "inserts": [{"sink": insert.target, "text": insert.text} for insert in inserts],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="export the table test programs as JSON")
    parser.add_argument("ids", nargs="*", help="program ids (default: all)")
    parser.add_argument("--package", default="programs",
                        help="package holding the program modules (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="JSON file to write (default: %(default)s)")
    args = parser.parse_args()

    from harness.discovery import discover_programs

    programs = discover_programs(args.package)
    known = {program.id for program in programs}
    unknown = [i for i in args.ids if i not in known]
    if unknown:
        sys.exit(f"unknown program id(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    if args.ids:
        programs = [program for program in programs if program.id in args.ids]
    exported = [program_json(program) for program in programs]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"package": args.package, "programs": exported}, indent=1,
                                   ensure_ascii=False))
    print(f"wrote {len(exported)} program(s) to {args.out}")


if __name__ == "__main__":
    main()
