"""Throughput of stream-exec-over-aggregate against Spark's fastest native formulation of the
same result, side by side in one run (the machinery of bench/stateful_nodes.py).

    .venv/bin/python bench/over_aggregate.py [--rows 50000] [--keys 10000] [--batches 10]

The query: a running sum per key in arrival order,
`SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN UNBOUNDED PRECEDING AND
CURRENT ROW) FROM T` (ProcTimeUnboundedPrecedingFunction: one accumulator per key, one output
row per input row). The workload (stateful_nodes.workload) has each key at most once in a
micro-batch and v the row's index, increasing, so Spark can give the same rows without an over
window: `groupBy("k").agg(max("v"), sum("v"))` in update mode emits, per batch, each key of
the batch once with its running sum and the batch's v (its largest so far). Spark has no streaming OVER window;
the other formulation considered, a window function over each foreachBatch plus a carried
per-key total, needs a join of every batch against the carried table and was not measured. Both outputs are
compared as multisets of (k, v, sum); a difference exits with 1.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import stateful_nodes  # noqa: E402
from stateful_nodes import Case  # noqa: E402


def _running_sum(frames):
    from pyspark.sql import functions as F

    return (frames["T"].groupBy("k").agg(F.max("v").alias("v"), F.sum("v").alias("s")),
            "update")


OVER_AGGREGATE = Case(
    "TP", "CREATE TABLE Snk (k INT, v BIGINT, s BIGINT) WITH ('connector' = 'values');",
    "INSERT INTO Snk SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY pt ROWS BETWEEN "
    "UNBOUNDED PRECEDING AND CURRENT ROW) FROM T", _running_sum, keyed=False)


def main(argv: list[str] | None = None) -> int:
    stateful_nodes.CASES = {"over-aggregate": OVER_AGGREGATE}
    return stateful_nodes.main(["--nodes", "over-aggregate", *(argv if argv is not None
                                                               else sys.argv[1:])])


if __name__ == "__main__":
    sys.exit(main())
