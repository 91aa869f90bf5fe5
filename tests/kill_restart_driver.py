"""The driver process that tests/test_kill_restart.py kills and restarts.

    python tests/kill_restart_driver.py SPEC PLAN CHECKPOINT OUTPUT

SPEC is a JSON file {"ddl": "CREATE TABLE ...", "query": "INSERT INTO ...", "rows": {table:
[[v1, v2, ...], ...]}}. The first start compiles the query to PLAN (written atomically; a
restart only loads it, as `EXECUTE PLAN` does: executing never re-plans SQL). Every start
then feeds the same rows as the harness does (`phased_steps`: each row its own micro-batch,
the i-th rows of all tables in one, a tick, end of input and a tick), on the harness's test
clock, and runs the plan on CHECKPOINT until every step is processed. A restarted driver
therefore continues where the checkpoint stopped; what its sink has recorded stays in
OUTPUT/<table>/batch-<id>.pickle.

Prints one line when the plan starts running and one when it is done; exit status 0 only
when every step was processed.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from harness.runner import TEST_CLOCK_START_MS  # noqa: E402
from streamplan.testing import (TableEnvironment, load_plan, normalize_rows,  # noqa: E402
                                phased_steps, source_scans, spark_session)


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    spec_path, plan_path, checkpoint, output = (Path(arg) for arg in argv)
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    env = TableEnvironment(spark=spark_session())
    if not plan_path.exists():
        env.execute_sql(spec["ddl"], source=str(spec_path))
        env.compile_sql(spec["query"], source=str(spec_path)).write(plan_path)   # atomic
    plan = load_plan(plan_path)
    types = {scan.table.identifier: scan.row_type for scan in source_scans(plan)}
    data = {table: normalize_rows(spec["rows"][table], row_type, table)
            for table, row_type in types.items()}
    steps = phased_steps([data], sorted(types), end_of_input=True)
    print(f"driver: running {plan_path.name} on {checkpoint} "
          f"({max(len(s) for s in steps.values())} steps)", flush=True)
    result = env.execute_plan(plan, checkpoint=checkpoint, output=output, data=steps,
                              processing_time_ms=TEST_CLOCK_START_MS)
    written = {table: len(sink.rows) for table, sink in result.sinks.items()}
    print(f"driver: done; rows recorded by this start: {written}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
