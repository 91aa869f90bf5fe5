"""Throughput of the event-time inner interval join: streamplan's node vs Spark's own join.

    .venv/bin/python bench/interval_join.py [--rows 200000] [--keys 10000] [--batches 20]

One generated workload (two sides of `--rows` rows over `--keys` keys, ordered by event
time with jitter) is written once as two feed files of the `values` connector; every
engine reads those same files, so all engines see identical micro-batches:

  * streamplan node v2, v1 - the compiled plan (scan -> watermark -> interval join -> calc
                        -> sink) with the join at version 2 (what new plans get) or at
                        version 1 (the same plan JSON, its node type set to version 1),
                        translated as PlanExecutor does, written with a foreachBatch that
                        only counts (the same sink as Spark's run);
  * spark native      - Spark's stream-stream join on the same sources with
                        withWatermark("t", "1 second") and the same BETWEEN condition;
  * streamplan executor (with --executor) - PlanExecutor.run as the project runs plans:
                        its own feed files, and a sink that collects every output row to
                        the driver and writes JSON per batch;
  * values source only - both sources, no join: the input cost all the runs share.

Every run's output is checked against a reference computed in Python (row count and a
checksum of the (left v, right v) pairs). Besides wall time, each run reports the CPU time
of this process and everything it started (the JVM, Python workers), which is far less
sensitive to other load on the machine. See bench/README.md.
"""
from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Optional

from rich.console import Console
from rich.table import Table

from measure import CpuMeter, Run, best, streamplan_frame, timed_query

WINDOW_MS = 5_000            # L.t BETWEEN R.t - 5 s AND R.t + 5 s
WATERMARK_DELAY_MS = 1_000   # WATERMARK FOR t AS t - INTERVAL '1' SECOND
START = datetime(2024, 1, 1)
MODULUS = 2_147_483_647      # checksum: sum of (lv * 1000003 + rv) mod MODULUS over output rows

DDL = """
CREATE TABLE L (k INT, v BIGINT, t TIMESTAMP(3),
  WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE TABLE R (k INT, v BIGINT, t TIMESTAMP(3),
  WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE TABLE Snk (k INT, lv BIGINT, lt TIMESTAMP(3), rv BIGINT, rt TIMESTAMP(3))
  WITH ('connector' = 'values');
"""
QUERY = """INSERT INTO Snk SELECT L.k, L.v, L.t, R.v, R.t FROM L JOIN R
  ON L.k = R.k AND L.t BETWEEN R.t - INTERVAL '5' SECOND AND R.t + INTERVAL '5' SECOND"""
SPARK_CONDITION = "l.k = r.k AND l.t BETWEEN r.t - INTERVAL 5 SECONDS AND r.t + INTERVAL 5 SECONDS"


# --- workload ---------------------------------------------------------------------------------

@dataclass
class Workload:
    left: list[tuple[int, int, int]]     # (k, v, t in epoch-relative ms), in feed order
    right: list[tuple[int, int, int]]
    keys: int
    span_ms: int
    jitter_ms: int
    batches: int


def generate(rows: int, keys: int, batches: int, span_ms: int, jitter_ms: int,
             seed: int) -> Workload:
    """Row i of a side sits at i * span / rows plus uniform jitter; keys are uniform; v is the
    row's index on its side, so (lv, rv) names one output row."""
    def side(rng: random.Random) -> list[tuple[int, int, int]]:
        step = span_ms / rows
        return [(rng.randrange(keys), i,
                 max(0, int(i * step) + rng.randint(-jitter_ms, jitter_ms)))
                for i in range(rows)]

    return Workload(side(random.Random(seed)), side(random.Random(seed + 1)), keys, span_ms,
                    jitter_ms, batches)


def chunks(rows: list, batches: int) -> list[list]:
    size = -(-len(rows) // batches)
    return [rows[i:i + size] for i in range(0, len(rows), size)]


@dataclass
class Expected:
    rows: int
    checksum: int
    late_rows: int        # rows behind the watermark of their batch (must be 0 for the check)


def reference(work: Workload) -> Expected:
    by_key: dict[int, tuple[list[int], list[int]]] = {}
    for k, v, t in sorted(work.right, key=lambda row: row[2]):
        times, values = by_key.setdefault(k, ([], []))
        times.append(t)
        values.append(v)
    count = checksum = 0
    for k, lv, lt in work.left:
        times, values = by_key.get(k, ((), ()))
        lo = bisect.bisect_left(times, lt - WINDOW_MS)
        hi = bisect.bisect_right(times, lt + WINDOW_MS)
        count += hi - lo
        checksum += sum((lv * 1_000_003 + rv) % MODULUS for rv in values[lo:hi])
    # Spark's watermark for batch b: min over the inputs of (max event time before b) - delay.
    late, max_l, max_r = 0, None, None
    for left, right in zip(chunks(work.left, work.batches), chunks(work.right, work.batches)):
        if max_l is not None and max_r is not None:
            watermark = min(max_l, max_r) - WATERMARK_DELAY_MS
            late += sum(1 for _, _, t in left + right if t <= watermark)
        max_l = max([max_l or 0] + [t for _, _, t in left])
        max_r = max([max_r or 0] + [t for _, _, t in right])
    return Expected(count, checksum, late)


def ts(ms: int) -> datetime:
    return START + timedelta(milliseconds=ms)


def steps_of(rows: list[tuple[int, int, int]], batches: int) -> list[list]:
    """Micro-batch steps of feed rows: the data batches, then end of input and a tick."""
    from streamplan.changelog import END_OF_INPUT, RowKind

    steps = [[(RowKind.INSERT, (k, v, ts(t))) for k, v, t in chunk]
             for chunk in chunks(rows, batches)]
    return steps + [[END_OF_INPUT], []]


def write_feeds(plan, work: Workload, directory: Path) -> dict[str, str]:
    """Feed files in the values connector's format, as PlanExecutor._write_feeds writes them."""
    from streamplan.api import source_scans
    from streamplan.runtime.values_source import write_feed

    files = {}
    for scan in source_scans(plan):
        name = scan.table.identifier
        rows = work.left if name == "L" else work.right
        path = directory / f"{name}.arrow"
        write_feed(path, scan.row_type, steps_of(rows, work.batches))
        files[name] = str(path)
    return files


# --- runs -------------------------------------------------------------------------------------

class Counter:
    """A foreachBatch that only aggregates: row count, pair checksum, non-insert rows."""

    def __init__(self, run: Run, op_column: Optional[str]):
        self.run = run
        self.op_column = op_column

    def __call__(self, frame, batch_id: int) -> None:
        from pyspark.sql import functions as F

        pair = F.pmod(F.col("lv") * F.lit(1_000_003) + F.col("rv"), F.lit(MODULUS))
        aggregates = [F.count(F.lit(1)), F.coalesce(F.sum(pair), F.lit(0))]
        if self.op_column:
            aggregates.append(F.coalesce(F.sum(F.when(F.col(self.op_column) != 0, 1)
                                               .otherwise(0)), F.lit(0)))
        values = frame.agg(*aggregates).collect()[0]
        self.run.output_rows += values[0]
        self.run.checksum += values[1]
        if self.op_column:
            self.run.retractions += values[2]


JOIN_NODE = "stream-exec-interval-join"


def plan_at_version(plan, version: int):
    """The same plan with the interval join at `version` (the versions share their plan JSON,
    so only the node type differs), loaded through the registry as a restore would."""
    from streamplan.plan import parse_plan

    raw = plan.to_json()
    for node in raw["nodes"]:
        if node["type"].startswith(JOIN_NODE + "_"):
            node["type"] = f"{JOIN_NODE}_{version}"
    return parse_plan(json.dumps(raw), f"the benchmark's plan at {JOIN_NODE}_{version}")


def run_streamplan(spark, plan, feeds, input_rows: int, checkpoint: Path) -> Run:
    from streamplan.changelog import OP_COLUMN

    version = next(node.version for node in plan.nodes if node.type.startswith(JOIN_NODE + "_"))
    run = Run(f"streamplan node v{version}", input_rows)
    return timed_query(run, streamplan_frame(spark, plan, feeds), checkpoint,
                       Counter(run, OP_COLUMN))


def source_frame(spark, plan, feed: str, watermark: bool):
    """A values-source stream of one side; with `watermark`, the end-of-input marker carries
    the end of time through withWatermark and is dropped after it, exactly as streamplan's
    watermark assigner does, so both engines evict all state in the final tick."""
    from pyspark.sql import functions as F

    from streamplan.api import source_scans
    from streamplan.changelog import END_OF_INPUT_CODE, OP_COLUMN
    from streamplan.nodes.watermark_assigner import END_OF_TIME
    from streamplan.runtime.values_source import read_stream

    scan = source_scans(plan)[0]
    frame = read_stream(spark, scan.row_type, feed)
    is_end = F.col(OP_COLUMN) == F.lit(END_OF_INPUT_CODE)
    if not watermark:
        return frame.filter(~is_end)
    end_of_time = F.lit(END_OF_TIME).cast("timestamp")
    frame = frame.withColumn("t", F.when(is_end, end_of_time).otherwise(F.col("t")))
    return (frame.withWatermark("t", f"{WATERMARK_DELAY_MS} milliseconds")
            .filter(~is_end | (F.col("t") < end_of_time)))


def run_spark(spark, plan, feeds, input_rows: int, checkpoint: Path) -> Run:
    from pyspark.sql import functions as F

    left = source_frame(spark, plan, feeds["L"], True).alias("l")
    right = source_frame(spark, plan, feeds["R"], True).alias("r")
    joined = left.join(right, F.expr(SPARK_CONDITION), "inner").select(
        F.col("l.k").alias("k"), F.col("l.v").alias("lv"), F.col("l.t").alias("lt"),
        F.col("r.v").alias("rv"), F.col("r.t").alias("rt"))
    run = Run("spark native join", input_rows)
    return timed_query(run, joined, checkpoint, Counter(run, None))


def run_source_only(spark, plan, feeds, input_rows: int, checkpoint: Path) -> Run:
    """Both values sources, no join: what reading the identical micro-batches costs."""
    from pyspark.sql import functions as F

    both = source_frame(spark, plan, feeds["L"], False).unionByName(
        source_frame(spark, plan, feeds["R"], False))
    frame = both.select(F.col("k"), F.col("v").alias("lv"), F.lit(0).cast("bigint").alias("rv"))
    run = Run("values source only", input_rows)
    timed_query(run, frame, checkpoint, Counter(run, None))
    run.checksum = 0   # not a join: its "pairs" mean nothing
    return run


def run_executor(spark, plan, work: Workload, input_rows: int, checkpoint: Path,
                 output: Path) -> Run:
    """PlanExecutor.run as the project runs plans: collect-and-JSON sink, output read back."""
    from streamplan.changelog import RowKind
    from streamplan.executor import PlanExecutor

    feeds = {"L": steps_of(work.left, work.batches), "R": steps_of(work.right, work.batches)}
    run = Run("streamplan executor (collect + JSON sink)", input_rows)
    with CpuMeter() as meter:
        started = time.perf_counter()
        result = PlanExecutor(plan, spark).run(checkpoint, output, feeds)
        run.seconds = time.perf_counter() - started
    run.cpu_seconds = meter.seconds
    rows = result.sinks["Snk"].rows
    run.output_rows = len(rows)
    run.retractions = sum(1 for row in rows if row.kind is not RowKind.INSERT)
    run.checksum = sum((row.values[1] * 1_000_003 + row.values[3]) % MODULUS for row in rows)
    return run


# --- main -------------------------------------------------------------------------------------

def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--rows", type=int, default=200_000, help="rows per side")
    parser.add_argument("--keys", type=int, default=10_000, help="distinct join keys")
    parser.add_argument("--batches", type=int, default=20,
                        help="data micro-batches per side (plus end of input and a tick)")
    parser.add_argument("--matches", type=float, default=2.0,
                        help="expected matches per left row; sets the event-time span")
    parser.add_argument("--jitter-ms", type=int, default=400,
                        help="uniform event-time jitter (keep below the 1 s watermark delay / 2 "
                             "so no row is late)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=1,
                        help="timed runs per engine; the fastest is reported")
    parser.add_argument("--executor", action="store_true",
                        help="also time PlanExecutor.run (collect + JSON sink); the same as "
                             "adding 'executor' to --engines")
    parser.add_argument("--engines", default="spark,v2,v1,source",
                        help="which runs to time, comma-separated, from "
                             + ",".join(ENGINES))
    parser.add_argument("--no-warmup", action="store_true",
                        help="skip the small warm-up run of every engine")
    parser.add_argument("--verbose", action="store_true",
                        help="print every run's micro-batch durations (ms)")
    parser.add_argument("--work-dir", type=Path,
                        help="keep feeds, checkpoints and sink output here (default: a temp dir)")
    return parser.parse_args(argv)


ENGINES = ("spark", "v2", "v1", "source", "executor")


def span_for(rows: int, keys: int, matches: float) -> int:
    """Event-time span giving `matches` expected matches per left row: a left row sees the
    right rows of its key inside a 10 s window, at rows / keys / span per ms."""
    return int(rows / keys * (2 * WINDOW_MS + 1) / matches)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    selected = {name.strip() for name in args.engines.split(",") if name.strip()}
    if args.executor:
        selected.add("executor")
    if not selected or selected - set(ENGINES):
        raise SystemExit(f"--engines: choose from {', '.join(ENGINES)}")
    console = Console(width=max(Console().width, 150))
    span_ms = span_for(args.rows, args.keys, args.matches)
    work = generate(args.rows, args.keys, args.batches, span_ms, args.jitter_ms, args.seed)
    expected = reference(work)
    console.print(f"workload: {args.rows:,} rows a side, {args.keys:,} keys, {args.batches} "
                  f"batches of {-(-args.rows // args.batches):,} rows a side (+ end-of-input + "
                  f"tick), event time over {span_ms / 1000:.1f} s, jitter ±{args.jitter_ms} ms; "
                  f"expected output {expected.rows:,} rows, late rows {expected.late_rows}")

    from streamplan.api import TableEnvironment
    from streamplan.runtime.session import spark_session

    spark = spark_session()
    env = TableEnvironment(spark=spark)
    env.execute_sql(DDL)
    compiled = env.compile_sql(QUERY)
    plans = {f"v{version}": plan_at_version(compiled, version) for version in (1, 2)}
    plan = plans["v2"]
    console.print(f"spark {spark.version}, master {spark.sparkContext.master}, shuffle "
                  f"partitions {spark.conf.get('spark.sql.shuffle.partitions')}, state store "
                  f"{spark.conf.get('spark.sql.streaming.stateStore.providerClass').rsplit('.', 1)[1]}")
    console.print("input: every engine reads the same two feed files through streamplan's "
                  "`values` streaming source (one feed step per micro-batch, in lockstep)")

    root = args.work_dir or Path(tempfile.mkdtemp(prefix="bench-interval-join-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        feeds = write_feeds(plan, work, root)
        input_rows = len(work.left) + len(work.right)
        counter = iter(range(1_000_000))

        def fresh(name: str) -> Path:
            return root / f"{name}-{next(counter)}"

        warm_feeds: Optional[dict[str, str]] = None
        if not args.no_warmup:
            small = generate(2_000, 200, 2, span_for(2_000, 200, args.matches),
                             args.jitter_ms, args.seed)
            small_dir = fresh("warmup")
            small_dir.mkdir()
            warm_feeds = write_feeds(plan, small, small_dir)

        def warm_up(runner, plan) -> None:
            """A tiny run right before the timed one: PySpark kills Python workers idle for a
            minute, so a warm-up long before would not keep them."""
            if warm_feeds is not None:
                runner(spark, plan, warm_feeds, 4_000, fresh("ckpt-warm"))

        def report(attempt: int, run: Run) -> None:
            console.print(f"  [{attempt + 1}/{args.repeat}] {run.engine}: "
                          f"{run.seconds:.1f} s ({run.cpu_seconds:.1f} CPU s), "
                          f"{run.output_rows:,} output rows")
            if args.verbose and run.batch_ms:
                console.print(f"    batch ms: {run.batch_ms}")

        runners = {"spark": (run_spark, plan), "v2": (run_streamplan, plans["v2"]),
                   "v1": (run_streamplan, plans["v1"]), "source": (run_source_only, plan)}
        engines: dict[str, list[Run]] = {}
        for attempt in range(args.repeat):
            for key in ("spark", "v2", "v1", "source"):
                if key not in selected:
                    continue
                runner, engine_plan = runners[key]
                if key != "source":
                    warm_up(runner, engine_plan)
                run = runner(spark, engine_plan, feeds, input_rows, fresh(f"ckpt-{key}"))
                engines.setdefault(key, []).append(run)
                report(attempt, run)
            if "executor" in selected:
                warm_up(run_streamplan, plan)
                run = run_executor(spark, plan, work, input_rows, fresh("ckpt-executor"),
                                   fresh("out-executor"))
                engines.setdefault("executor", []).append(run)
                report(attempt, run)
    finally:
        if args.work_dir is None:
            shutil.rmtree(root, ignore_errors=True)

    table = Table(title=f"event-time inner interval join, ±5 s, {args.rows:,} rows a side, "
                        f"{args.keys:,} keys, {args.batches} batches")
    for column in ("engine", "input rows", "output rows", "seconds", "rows/s", "CPU s",
                   "rows/CPU s", "batches", "median batch ms"):
        table.add_column(column, justify="left" if column == "engine" else "right")
    order = ["v2", "v1", "executor", "spark", "source"]
    for key in order:
        if key not in engines:
            continue
        run = best(engines[key])
        table.add_row(run.engine, f"{run.input_rows:,}", f"{run.output_rows:,}",
                      f"{run.seconds:.1f}", f"{run.rows_per_second:,.0f}",
                      f"{run.cpu_seconds:.1f}", f"{run.input_rows / run.cpu_seconds:,.0f}",
                      str(run.batches) if run.batches else "-",
                      f"{statistics.median(run.batch_ms):,.0f}" if run.batch_ms else "-")
    console.print(table)
    for key, bold in (("v2", True), ("v1", False), ("executor", False)):
        if key in engines and "spark" in engines:
            ours, theirs = best(engines[key]), best(engines["spark"])
            ratio = f"{ours.rows_per_second / theirs.rows_per_second:.3f}"
            console.print(f"ratio {ours.engine} / spark, rows/s: "
                          f"{f'[bold]{ratio}[/bold]' if bold else ratio}; "
                          f"rows per CPU s: {theirs.cpu_seconds / ours.cpu_seconds:.3f}")
    if "v1" in engines and "v2" in engines:
        new, old = best(engines["v2"]), best(engines["v1"])
        console.print(f"ratio v2 / v1, rows/s: {new.rows_per_second / old.rows_per_second:.2f}; "
                      f"rows per CPU s: {old.cpu_seconds / new.cpu_seconds:.2f}")
    load = os.getloadavg()
    console.print(f"load average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on "
                  f"{os.cpu_count()} CPUs (other processes inflate wall time, less so CPU time)")

    failures = []
    for key in ("v2", "v1", "executor", "spark"):
        for run in engines.get(key, []):
            if run.output_rows != expected.rows or run.checksum != expected.checksum:
                failures.append(f"{run.engine}: {run.output_rows:,} rows (checksum {run.checksum}), "
                                f"expected {expected.rows:,} (checksum {expected.checksum})")
            if run.retractions:
                failures.append(f"{run.engine}: {run.retractions:,} non-insert rows")
    for run in engines.get("source", []):
        if run.output_rows != input_rows:
            failures.append(f"{run.engine}: read {run.output_rows:,} rows, fed {input_rows:,}")
    if expected.late_rows:
        failures.append(f"the workload has {expected.late_rows} late rows: engines may differ")
    if failures:
        console.print("[bold red]output check failed:[/bold red]")
        for failure in failures:
            console.print(f"  {failure}")
        return 1
    console.print(f"output check: every join produced the reference {expected.rows:,} rows "
                  f"with the same (lv, rv) checksum")
    return 0


if __name__ == "__main__":
    sys.exit(main())
