"""Throughput of streamplan's stateful nodes against Spark's closest native query, side by side.

    .venv/bin/python bench/stateful_nodes.py [--nodes group-aggregate,deduplicate,join,rank,...]
                                             [--rows 50000] [--keys 10000] [--batches 10]

Per node, one generated workload is written once as feed files of the `values` connector and
both engines read those same files (identical micro-batches), as bench/interval_join.py does:

  * group-aggregate  `SELECT k, COUNT(*), SUM(v), MAX(v) FROM T GROUP BY k` against Spark's
                     `groupBy("k").agg(count, sum, max)` in update mode;
  * deduplicate      keep the first row per key on processing time (`ROW_NUMBER() OVER
                     (PARTITION BY k ORDER BY pt) = 1`) against `dropDuplicates(["k"])`;
  * join             the regular inner join `L JOIN R ON L.k = R.k` (insert-only inputs)
                     against Spark's stream-stream inner join; neither has a watermark, so
                     both keep every row, as Flink's join without TTL does;
  * rank             top-1 per key (`ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) = 1`,
                     Flink's FastTop1Function) against Spark's `groupBy("k").agg(max("v"))` in
                     update mode: Spark has no streaming top-N, and for a top-1 of the order
                     column itself a max is the same result with the least state.

  * window-tumble    `TUMBLE` 10 s event-time window aggregate (`COUNT(*), SUM(v)` per key and
                     window, watermark 1 s behind) against Spark's `groupBy("k", window("ts",
                     "10 seconds"))` with the same watermark, append mode;
  * window-hop       the same as `HOP` 10 s windows sliding by 5 s (Flink's slices, shared by
                     two windows each) against `window("ts", "10 seconds", "5 seconds")`.
                     Each row's time is its index x 10 ms, so a batch's rows are never late
                     and both engines emit the windows the watermark has closed (no end of
                     input: the windows still open at the end are emitted by neither).

Changelog normalize is not here: Spark has no upsert source to normalize, and a
`max_by` over a sequence column (its closest formulation) would measure another input.

Every run's sink materializes its output (streamplan's changelog applied by key, Spark's
update-mode rows replacing a key's row, appended rows counted as a multiset) and the two
views of a node must be equal, else the script exits with 1. Figures as in
bench/interval_join.py: wall seconds from start to the last batch, CPU seconds of this
process and its descendants, rows per second and per CPU second, and the ratio streamplan /
Spark. A warm-up run of each engine on a tiny feed precedes each timed run.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import shutil
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from rich.console import Console
from rich.table import Table

from measure import Run, best, streamplan_frame, timed_query

TABLES = {
    "T": "CREATE TABLE T (k INT, v BIGINT) WITH ('connector' = 'values');",
    "TP": "CREATE TABLE T (k INT, v BIGINT, pt AS PROCTIME()) WITH ('connector' = 'values');",
    "TW": "CREATE TABLE T (k INT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - "
          "INTERVAL '1' SECOND) WITH ('connector' = 'values');",
    "LR": "CREATE TABLE L (k INT, v BIGINT) WITH ('connector' = 'values');\n"
          "CREATE TABLE R (k INT, v BIGINT) WITH ('connector' = 'values');",
}


@dataclass(frozen=True)
class Case:
    """One node's benchmark: its tables, its query (and sink), Spark's formulation."""

    tables: str
    sink: str                      # CREATE TABLE Snk ...
    query: str
    spark: Callable                # (frames by table) -> (DataFrame, output mode)
    keyed: bool                    # a view by the first column (else a multiset of rows)
    timed: bool = False            # rows carry an event time (`timed_rows`)


def _group_aggregate(frames):
    from pyspark.sql import functions as F

    return (frames["T"].groupBy("k").agg(F.count(F.lit(1)).alias("c"), F.sum("v").alias("s"),
                                         F.max("v").alias("m")), "update")


def _deduplicate(frames):
    return frames["T"].dropDuplicates(["k"]), "append"


def _join(frames):
    from pyspark.sql import functions as F

    left, right = frames["L"].alias("l"), frames["R"].alias("r")
    return (left.join(right, F.expr("l.k = r.k"), "inner")
            .select(F.col("l.k").alias("k"), F.col("l.v").alias("lv"), F.col("r.v").alias("rv")),
            "append")


def _rank(frames):
    from pyspark.sql import functions as F

    return frames["T"].groupBy("k").agg(F.max("v").alias("v")), "update"


def _window(*spec):
    def formulation(frames):
        from pyspark.sql import functions as F

        frame = (frames["T"].withWatermark("ts", "1 second")
                 .groupBy("k", F.window("ts", *spec).alias("w"))
                 .agg(F.count(F.lit(1)).alias("c"), F.sum("v").alias("s")))
        return frame.select("k", F.col("w.start").alias("ws"), F.col("w.end").alias("we"),
                            "c", "s"), "append"
    return formulation


WINDOW_SINK = ("CREATE TABLE Snk (k INT, ws TIMESTAMP(3), we TIMESTAMP(3), c BIGINT, s BIGINT) "
               "WITH ('connector' = 'values');")


def _window_query(tvf: str) -> str:
    return (f"INSERT INTO Snk SELECT k, window_start, window_end, COUNT(*), SUM(v) FROM TABLE("
            f"{tvf}) GROUP BY k, window_start, window_end")


CASES = {
    "group-aggregate": Case(
        "T", "CREATE TABLE Snk (k INT, c BIGINT, s BIGINT, m BIGINT) WITH ('connector' = "
             "'values', 'sink-insert-only' = 'false');",
        "INSERT INTO Snk SELECT k, COUNT(*), SUM(v), MAX(v) FROM T GROUP BY k",
        _group_aggregate, keyed=True),
    "deduplicate": Case(
        "TP", "CREATE TABLE Snk (k INT, v BIGINT) WITH ('connector' = 'values');",
        "INSERT INTO Snk SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k "
        "ORDER BY pt) AS rn FROM T) WHERE rn = 1", _deduplicate, keyed=True),
    "join": Case(
        "LR", "CREATE TABLE Snk (k INT, lv BIGINT, rv BIGINT) WITH ('connector' = 'values');",
        "INSERT INTO Snk SELECT L.k, L.v, R.v FROM L JOIN R ON L.k = R.k", _join, keyed=False),
    "rank": Case(
        "T", "CREATE TABLE Snk (k INT, v BIGINT) WITH ('connector' = 'values', "
             "'sink-insert-only' = 'false');",
        "INSERT INTO Snk SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k "
        "ORDER BY v DESC) AS rn FROM T) WHERE rn = 1", _rank, keyed=True),
    "window-tumble": Case(
        "TW", WINDOW_SINK,
        _window_query("TUMBLE(TABLE T, DESCRIPTOR(ts), INTERVAL '10' SECOND)"),
        _window("10 seconds"), keyed=False, timed=True),
    "window-hop": Case(
        "TW", WINDOW_SINK,
        _window_query("HOP(TABLE T, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)"),
        _window("10 seconds", "5 seconds"), keyed=False, timed=True),
}


# --- workload ---------------------------------------------------------------------------------

def workload(rows: int, keys: int, batches: int, seed: int) -> list[list[tuple[int, int]]]:
    """`batches` micro-batches of (k, v): no key twice in one batch (so "the first row of a
    key" is the same on both engines, which order a batch's rows differently), v the row's
    index (unique, so a top-1 has no ties)."""
    rng = random.Random(seed)
    size = -(-rows // batches)
    if size > keys:
        raise SystemExit(f"--rows / --batches ({size}) must not exceed --keys ({keys}): a "
                         f"batch holds each key at most once")
    steps, index = [], 0
    for _ in range(batches):
        count = min(size, rows - index)
        steps.append([(k, index + i) for i, k in enumerate(rng.sample(range(keys), count))])
        index += count
    return steps


EPOCH = dt.datetime(2024, 1, 1)


def timed_rows(steps: list[list[tuple[int, int]]]) -> list[list[tuple]]:
    """(k, v) rows with an event time: v x 10 ms (v is the row's index, rising batch by batch)."""
    return [[(k, v, EPOCH + dt.timedelta(milliseconds=10 * v)) for k, v in step]
            for step in steps]


def write_feeds(plan, steps_by_table: dict[str, list[list]], directory: Path) -> dict[str, str]:
    from streamplan.api import source_scans
    from streamplan.changelog import RowKind
    from streamplan.runtime.values_source import write_feed

    files = {}
    for scan in source_scans(plan):
        name = scan.table.identifier
        path = directory / f"{name}.arrow"
        write_feed(path, scan.row_type, [[(RowKind.INSERT, row) for row in step]
                                         for step in steps_by_table[name]])
        files[name] = str(path)
    return files


# --- sinks: each engine's output as a view ------------------------------------------------------

class View:
    """A foreachBatch that materializes: streamplan's changelog by key, Spark's update-mode
    rows replacing their key's row, appended rows as a multiset."""

    def __init__(self, keyed: bool, op_column: Optional[str]):
        self.keyed, self.op_column = keyed, op_column
        self.rows: dict = {}
        self.bag: Counter = Counter()
        self.output_rows = 0

    def __call__(self, frame, batch_id: int) -> None:
        for row in frame.collect():
            self.output_rows += 1
            values = tuple(row[name] for name in row.__fields__ if name != self.op_column)
            kind = row[self.op_column] if self.op_column else 0
            retract = kind in (1, 3)            # -U, -D
            if self.keyed:
                if retract:
                    self.rows.pop(values[0], None)
                else:
                    self.rows[values[0]] = values
            else:
                self.bag[values] += -1 if retract else 1

    def result(self):
        return dict(self.rows) if self.keyed else +self.bag


def run_streamplan(spark, case: Case, plan, feeds, input_rows: int, checkpoint: Path) -> tuple[Run, View]:
    from streamplan.changelog import OP_COLUMN

    run, view = Run("streamplan node", input_rows), View(case.keyed, OP_COLUMN)
    timed_query(run, streamplan_frame(spark, plan, feeds), checkpoint, view)
    run.output_rows = view.output_rows
    return run, view


def run_spark(spark, case: Case, plan, feeds, input_rows: int, checkpoint: Path) -> tuple[Run, View]:
    from pyspark.sql import functions as F

    from streamplan.api import source_scans
    from streamplan.changelog import OP_COLUMN
    from streamplan.runtime.values_source import read_stream

    frames = {scan.table.identifier: read_stream(spark, scan.row_type, feeds[scan.table.identifier])
              .filter(F.col(OP_COLUMN) == F.lit(0)).drop(OP_COLUMN)
              for scan in source_scans(plan)}
    frame, mode = case.spark(frames)
    run, view = Run("spark native", input_rows), View(case.keyed, None)
    timed_query(run, frame, checkpoint, view, output_mode=mode)
    run.output_rows = view.output_rows
    return run, view


# --- main -------------------------------------------------------------------------------------

def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--nodes", default=",".join(CASES), help="comma-separated, from "
                        + ", ".join(CASES))
    parser.add_argument("--rows", type=int, default=50_000, help="rows per table")
    parser.add_argument("--keys", type=int, default=10_000, help="distinct keys")
    parser.add_argument("--batches", type=int, default=10, help="data micro-batches")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=1,
                        help="timed runs per engine, interleaved; the fastest is reported")
    return parser.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    nodes = [name.strip() for name in args.nodes.split(",") if name.strip()]
    unknown = [name for name in nodes if name not in CASES]
    if unknown or not nodes:
        raise SystemExit(f"--nodes: choose from {', '.join(CASES)}")
    console = Console(width=max(Console().width, 150))

    from streamplan.api import TableEnvironment
    from streamplan.runtime.session import spark_session

    spark = spark_session()
    console.print(f"spark {spark.version}, master {spark.sparkContext.master}; {args.rows:,} "
                  f"rows a table over {args.keys:,} keys in {args.batches} micro-batches")
    root = Path(tempfile.mkdtemp(prefix="bench-stateful-"))
    results: dict[str, dict[str, Run]] = {}
    failures: list[str] = []
    try:
        for node in nodes:
            case = CASES[node]
            env = TableEnvironment(spark=spark)
            env.execute_sql(TABLES[case.tables] + "\n" + case.sink)
            plan = env.compile_sql(case.query)
            names = [name for name in ("T", "L", "R") if f"TABLE {name} " in TABLES[case.tables]]
            shape = timed_rows if case.timed else list
            steps = {name: shape(workload(args.rows, args.keys, args.batches, args.seed + i))
                     for i, name in enumerate(names)}
            small = {name: shape(workload(200, 100, 2, args.seed + i))
                     for i, name in enumerate(names)}
            directory = root / node
            (directory / "warm").mkdir(parents=True)
            feeds, warm = write_feeds(plan, steps, directory), write_feeds(plan, small, directory / "warm")
            input_rows = args.rows * len(names)
            views, runs = {}, {"streamplan": [], "spark": []}
            for attempt in range(args.repeat):
                for engine, runner in (("spark", run_spark), ("streamplan", run_streamplan)):
                    runner(spark, case, plan, warm, 200, directory / f"warm-{engine}-{attempt}")
                    run, view = runner(spark, case, plan, feeds, input_rows,
                                       directory / f"{engine}-{attempt}")
                    runs[engine].append(run)
                    views[engine] = view.result()
                    console.print(f"  {node} [{attempt + 1}/{args.repeat}] {run.engine}: "
                                  f"{run.seconds:.1f} s ({run.cpu_seconds:.1f} CPU s), "
                                  f"{run.output_rows:,} output rows")
            if views["streamplan"] != views["spark"]:
                ours, theirs = views["streamplan"], views["spark"]
                differing = [k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k)]
                failures.append(f"{node}: the views differ in {len(differing):,} entries, e.g. "
                                f"{differing[:1]}: streamplan {ours.get(differing[0])}, spark "
                                f"{theirs.get(differing[0])}")
            results[node] = {engine: best(found) for engine, found in runs.items()}
    finally:
        shutil.rmtree(root, ignore_errors=True)

    table = Table(title=f"stateful nodes against Spark, {args.rows:,} rows a table, "
                        f"{args.keys:,} keys, {args.batches} batches")
    for column in ("node", "engine", "output rows", "seconds", "rows/s", "CPU s", "rows/CPU s",
                   "ratio rows/s", "ratio rows/CPU s"):
        table.add_column(column, justify="left" if column in ("node", "engine") else "right")
    for node, by_engine in results.items():
        ours, theirs = by_engine["streamplan"], by_engine["spark"]
        for run in (ours, theirs):
            mine = run is ours
            table.add_row(node if mine else "", run.engine, f"{run.output_rows:,}",
                          f"{run.seconds:.1f}", f"{run.rows_per_second:,.0f}",
                          f"{run.cpu_seconds:.1f}", f"{run.input_rows / run.cpu_seconds:,.0f}",
                          f"{ours.rows_per_second / theirs.rows_per_second:.2f}" if mine else "",
                          f"{theirs.cpu_seconds / ours.cpu_seconds:.2f}" if mine else "")
    console.print(table)
    load = os.getloadavg()
    console.print(f"load average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on "
                  f"{os.cpu_count()} CPUs")
    if failures:
        console.print("[bold red]output check failed:[/bold red]")
        for failure in failures:
            console.print(f"  {failure}")
        return 1
    console.print("output check: each node's view equals Spark's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
