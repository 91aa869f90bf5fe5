"""A driver process for tests/test_cluster.py: one phase of a table test program on a
checkpoint, as `harness generate` (phase `before`) and a restore (phase `after`) run it, but
on the checkpoint itself rather than a copy, so the cluster can be stopped and started between
the two phases.

    python tests/cluster_phase_driver.py PROGRAM_ID before|after WORKDIR

`before` compiles the program to WORKDIR/plan.json, feeds the before-restore rows (no end of
input) on WORKDIR/checkpoint and checks the before-restore expectations; the sinks' rows go to
WORKDIR/before.json. `after` loads that plan (never re-plans), resumes the checkpoint with all
rows and the end of input, and checks the after-restore expectations (with the rows of
before.json for materialized sinks). Exit status 0 only when the expectations hold; the
mismatch is printed otherwise.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from harness.discovery import discover_programs  # noqa: E402
from harness.errors import HarnessError  # noqa: E402
from harness.fixtures import decode_rows  # noqa: E402
from harness.generate import encode_rows  # noqa: E402
from harness.runner import check_outputs, compile_program, program_environment, run_phases  # noqa: E402
from streamplan.testing import StreamPlanError, load_plan  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in ("before", "after"):
        print(__doc__.strip().splitlines()[6].strip(), file=sys.stderr)
        return 2
    program_id, phase, workdir = argv[0], argv[1], Path(argv[2])
    program = {p.id: p for p in discover_programs()}[program_id]
    plan_path, before = workdir / "plan.json", workdir / "before.json"
    try:
        if phase == "before":
            env, plan = compile_program(program)
            plan.write(plan_path)
            result = run_phases(env, plan, program, ["before"], False, workdir / "checkpoint")
            check_outputs(program, result, "before")
            before.write_text(json.dumps({name: encode_rows(sink.rows)
                                          for name, sink in result.sinks.items()}))
        else:
            env = program_environment(program)
            plan = load_plan(plan_path)
            rows = json.loads(before.read_text())
            prior = {sink.table.identifier: decode_rows(rows.get(sink.table.identifier, []),
                                                        sink.row_type, str(before))
                     for sink in plan.sinks}
            result = run_phases(env, plan, program, ["before", "after"], True,
                                workdir / "checkpoint")
            check_outputs(program, result, "after", prior)
    except (HarnessError, StreamPlanError) as err:
        print(f"driver: {phase} failed: {err}", flush=True)
        return 1
    print(f"driver: {phase} of {program_id} met its expectations: "
          f"{ {name: sink.texts for name, sink in result.sinks.items()} }", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
