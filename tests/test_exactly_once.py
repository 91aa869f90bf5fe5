"""Exactly once: a batch that Spark replays after a restart is recorded once, and stateful
operators recompute it from the state before it, so nothing is lost or duplicated."""
from __future__ import annotations

import pytest

from streamplan import executor
from streamplan.api import TableEnvironment, normalize_rows, source_scans
from streamplan.changelog import OP_COLUMN, RowKind
from streamplan.runtime.changelog_sink import (batch_file_writer, batch_ids, batch_path,
                                               decode_batch, read_batches)

DDL = """
CREATE TABLE L (k INT, v STRING, t TIMESTAMP(3),
  WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE TABLE R (k INT, w STRING, t TIMESTAMP(3),
  WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH ('connector' = 'values');
CREATE TABLE Out (k INT, v STRING, w STRING) WITH ('connector' = 'values');
"""
JOIN = """INSERT INTO Out SELECT L.k, L.v, R.w FROM L JOIN R
  ON L.k = R.k AND L.t BETWEEN R.t - INTERVAL '10' SECOND AND R.t + INTERVAL '10' SECOND"""


@pytest.mark.spark
def test_a_replayed_batch_id_writes_nothing(spark, tmp_path):
    writer = batch_file_writer(spark, tmp_path)
    batch = spark._jvm.java.lang.Long

    def frame(*rows):
        return spark.createDataFrame([(k, v, RowKind.INSERT.code) for k, v in rows],
                                     f"k INT, v STRING, {OP_COLUMN} TINYINT")._jdf

    writer.call(frame((1, "a")), batch(7))
    first = batch_path(tmp_path, 7).read_bytes()
    # The replay recomputes the batch; even if it came out different, the record stands.
    writer.call(frame((1, "a"), (2, "b")), batch(7))
    assert batch_path(tmp_path, 7).read_bytes() == first
    assert decode_batch(first, ["k", "v"]) == [["+I", [1, "a"]]]
    assert batch_ids(tmp_path) == [7]
    assert list(writer.calledBatchIds()) == [7, 7]
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.spark
def test_a_batch_replayed_after_its_commit_was_lost_is_neither_lost_nor_duplicated(
        spark, tmp_path, monkeypatch):
    env = TableEnvironment(spark=spark)
    env.execute_sql(DDL)
    plan = env.compile_sql(JOIN)
    types = {scan.table.identifier: scan.row_type for scan in source_scans(plan)}

    def steps(rows_l, rows_r):     # one row per micro-batch, as the harness feeds them
        return {"L": [normalize_rows([row], types["L"], "L") if row else [] for row in rows_l],
                "R": [normalize_rows([row], types["R"], "R") if row else [] for row in rows_r]}

    # batch 0: L(1, a) is cached; batch 1: R(1, x) joins it -> the output of batch 1.
    first_l = [[1, "a", "2024-01-01 10:00:00"], None]
    first_r = [None, [1, "x", "2024-01-01 10:00:01"]]
    writers = []

    def recording(session, directory):
        writers.append(batch_file_writer(session, directory))
        return writers[-1]

    monkeypatch.setattr(executor, "batch_file_writer", recording)
    checkpoint, output = tmp_path / "ckpt", tmp_path / "out"
    run = env.execute_plan(plan, checkpoint, output, steps(first_l, first_r), end_of_input=False)
    assert run.sinks["Out"].texts == ["+I[1, a, x]"]
    sink_dir = next(checkpoint.glob("sink-*"))
    last_batch = max(int(p.name) for p in (sink_dir / "commits").iterdir() if p.name.isdigit())
    assert last_batch == 1
    for lost in (str(last_batch), f".{last_batch}.crc"):   # the commit of batch 1 is lost
        (sink_dir / "commits" / lost).unlink()
    recorded = batch_path(output / "Out", 1).read_bytes()

    # The restart replays batch 1 (same rows, state from before it), then runs batch 2:
    # R(1, y) joins the one cached L(1, a) once. A lost state update or a duplicated cache
    # entry would show up as a missing or a repeated row.
    writers.clear()
    again = env.execute_plan(plan, checkpoint, output,
                             steps(first_l + [None], first_r + [[1, "y", "2024-01-01 10:00:02"]]),
                             end_of_input=False)
    assert list(writers[0].calledBatchIds())[:2] == [1, 2]       # batch 1 was replayed...
    assert batch_path(output / "Out", 1).read_bytes() == recorded   # ...and not rewritten
    assert (sink_dir / "commits" / "1").exists()
    assert again.sinks["Out"].texts == ["+I[1, a, y]"]
    everything = read_batches(output / "Out", plan.sinks[0].row_type, batch_ids(output / "Out"))
    assert sorted(row.text() for row in everything) == ["+I[1, a, x]", "+I[1, a, y]"]
