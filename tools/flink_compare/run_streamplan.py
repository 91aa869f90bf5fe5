"""Run the cases on streamplan (PySpark), as the engine's API feeds data.

    /work/main/.venv/bin/python tools/flink_compare/run_streamplan.py [case ...] [--out FILE]

Each row is its own micro-batch (the i-th rows of all tables share one), then end of input
(a maximal watermark). Per case it records the compiled Calc/Join descriptions (which show
the implicit sink casts and Spark's view of the expressions), the sink changelog texts and
the materialized view.
"""
from __future__ import annotations

import shutil
import time

from common import first_line, parse_args, save
from cases import sink_ddl, source_ddl


FLAKES = ("Python worker failed to connect back", "CANNOT_OPEN_SOCKET")


def run_case(env_factory, case: dict, work) -> dict:
    from streamplan.api import normalize_rows, source_scans
    from harness.compare import materialized_view
    from streamplan.executor import advances_event_time, phased_steps

    result: dict = {"error": None}
    env = env_factory()
    try:
        for name, table in case["tables"].items():
            env.execute_sql(source_ddl(name, table, "'connector' = 'values'"))
        env.execute_sql(sink_ddl(case["sink"], "'connector' = 'values', "
                                               "'sink-insert-only' = 'false'"))
        plan = env.compile_sql(f"INSERT INTO Snk {case['query']}")
        result["operators"] = [n.description for n in plan.nodes
                               if type(n).__name__ not in ("StreamExecTableSourceScan",
                                                           "StreamExecWatermarkAssigner")]
        scans = {s.table.identifier: s for s in source_scans(plan)}
        phase = {t: normalize_rows(case["tables"][t]["rows"], scans[t].row_type, t)
                 for t in scans}
        steps = phased_steps([phase], sorted(scans), end_of_input=True,
                             event_time=advances_event_time(plan))
        directory = work / case["name"]
        shutil.rmtree(directory, ignore_errors=True)
        run = env.execute_plan(plan, checkpoint=directory / "ckpt", output=directory / "out",
                               data=steps)
        sink = run.sinks["Snk"]
        result["changelog"] = list(sink.texts)
        result["materialized"] = materialized_view(sink.rows, None, sink.node.row_type, "Snk")
    except Exception as err:  # noqa: BLE001 - every failure is a finding
        result["error"] = first_line(err)
        if "plan" in locals():
            result["error_detail"] = batch_error(env, plan, phase if "phase" in locals() else {})
    return result


def batch_error(env, plan, phase: dict):
    """The streaming error message is cut short; re-run a lone Calc as a batch job to see why."""
    from streamplan.api import source_scans

    calcs = [n for n in plan.nodes if type(n).__name__ == "StreamExecCalc"]
    scans = source_scans(plan)
    if len(calcs) != 1 or len(scans) != 1 or not phase:
        return None
    scan, calc = scans[0], calcs[0]
    spark = env.session()
    frame = spark.createDataFrame([values for _, values in phase[scan.table.identifier]],
                                  scan.row_type.to_spark())
    try:
        if calc.condition:
            frame = frame.filter(calc.condition)
        frame.selectExpr(*calc.projection).collect()
    except Exception as err:  # noqa: BLE001
        return "batch re-run: " + first_line(err)
    return "batch re-run succeeded"


def main() -> None:
    args = parse_args("streamplan")
    from streamplan.api import TableEnvironment

    shared = TableEnvironment()
    spark = shared.session()
    results = {}
    for case in args.selected:
        start = time.time()
        for attempt in range(3):   # a loaded machine makes Spark's Python workers time out
            r = results[case["name"]] = run_case(lambda: TableEnvironment(spark=spark), case,
                                                 args.work)
            if not any(flake in (r["error"] or "") for flake in FLAKES):
                break
            print(f"{case['name']}: retrying after {r['error'][:80]}...", flush=True)
        r["seconds"] = round(time.time() - start, 1)
        print(f"{case['name']}: {r['error'] or str(len(r['changelog'])) + ' rows'} "
              f"({r['seconds']} s)", flush=True)
        save(args.out, {case["name"]: r})
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
