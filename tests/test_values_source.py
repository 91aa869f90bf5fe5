"""The `values` source (issue 9): a JVM source over an Arrow feed, one step per micro-batch,
with the offsets the Python source wrote before it, so either's checkpoints restore."""
from __future__ import annotations

import datetime as dt
import json
import shutil

import pyarrow as pa
import pytest

from streamplan.changelog import END_OF_INPUT, END_OF_INPUT_CODE, RowKind
from streamplan.errors import EnvironmentSetupError
from streamplan.runtime import jvm
from streamplan.runtime.values_source import read_stream, write_feed
from streamplan.types import parse_row_type

ROW_TYPE = parse_row_type("ROW<`k` INT, `t` TIMESTAMP(3)>")
INSERT = RowKind.INSERT
STEPS = [[(INSERT, (1, dt.datetime(2024, 1, 1, 10, 0, 1)))], [],
         [(INSERT, (2, "2024-01-01 10:00:02.500")), END_OF_INPUT]]   # typed or JSON values


def test_a_feed_holds_one_arrow_batch_per_step_empty_steps_included(tmp_path):
    feed = tmp_path / "feed.arrow"
    write_feed(feed, ROW_TYPE, STEPS)
    with pa.ipc.open_file(str(feed)) as reader:
        steps = [reader.get_batch(i).to_pylist() for i in range(reader.num_record_batches)]
        assert reader.schema.names == ["k", "t", "__op"]
    utc = dt.timezone.utc
    assert steps == [
        [{"k": 1, "t": dt.datetime(2024, 1, 1, 10, 0, 1, tzinfo=utc), "__op": 0}],
        [],
        [{"k": 2, "t": dt.datetime(2024, 1, 1, 10, 0, 2, 500000, tzinfo=utc), "__op": 0},
         {"k": None, "t": None, "__op": END_OF_INPUT_CODE}]]


def test_a_value_the_column_cannot_hold_is_refused_when_the_feed_is_written(tmp_path):
    with pytest.raises(ValueError, match="not a timestamp"):
        write_feed(tmp_path / "feed.arrow", ROW_TYPE, [[(INSERT, (1, "noon"))]])


def run_steps(spark, feed, checkpoint, batches):
    """Run the source until `batches` micro-batches were read; the rows of each batch."""
    seen = []
    query = (read_stream(spark, ROW_TYPE, str(feed)).writeStream
             .foreachBatch(lambda frame, batch: seen.append(
                 (batch, [tuple(row) for row in frame.collect()])))
             .option("checkpointLocation", str(checkpoint)).start())
    try:
        query.processAllAvailable()
    finally:
        query.stop()
    assert len(seen) == batches
    return seen


def test_each_micro_batch_reads_one_step_and_a_restart_goes_on_with_the_next(spark, tmp_path):
    feed, checkpoint = tmp_path / "feed.arrow", tmp_path / "checkpoint"
    write_feed(feed, ROW_TYPE, STEPS[:1])
    (first,) = run_steps(spark, feed, checkpoint, 1)
    assert first == (0, [(1, dt.datetime(2024, 1, 1, 10, 0, 1), 0)])
    # The offset as the Python source wrote it, so its checkpoints restore through this one.
    assert (checkpoint / "offsets" / "0").read_text().splitlines()[-1] == '{"step": 1}'

    write_feed(feed, ROW_TYPE, STEPS)                # the same feed, longer: the run goes on
    later = run_steps(spark, feed, checkpoint, 2)
    assert later == [(1, []), (2, [(2, dt.datetime(2024, 1, 1, 10, 0, 2, 500000), 0),
                                   (None, None, END_OF_INPUT_CODE)])]
    assert [json.loads(line) for line in (checkpoint / "offsets" / "2").read_text()
            .splitlines()[2:]] == [{"step": 3}]


def test_a_feed_shorter_than_the_checkpoint_read_runs_no_batch(spark, tmp_path):
    """A checkpoint that read more steps than the feed now holds (steps a newer executor
    leaves out) resumes with nothing to read: no batch, and no offset moved backwards."""
    feed, checkpoint = tmp_path / "feed.arrow", tmp_path / "checkpoint"
    write_feed(feed, ROW_TYPE, STEPS)
    assert len(run_steps(spark, feed, checkpoint, 3)) == 3
    write_feed(feed, ROW_TYPE, STEPS[:1])
    assert run_steps(spark, feed, checkpoint, 0) == []
    assert sorted(path.name for path in (checkpoint / "offsets").iterdir()
                  if not path.name.startswith(".")) == ["0", "1", "2"]


def test_a_machine_without_a_jdk_is_told_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(EnvironmentSetupError, match="openjdk-17-jdk-headless"):
        jvm.streamplan_jar(cache=tmp_path)


def test_java_that_does_not_compile_fails_with_javacs_message(tmp_path, monkeypatch):
    sources = tmp_path / "jvm"
    sources.mkdir()
    (sources / "Broken.java").write_text("class Broken { int x = ; }\n")
    monkeypatch.setattr(jvm, "SOURCES", sources)
    with pytest.raises(EnvironmentSetupError, match=r"(?s)compiling .*Broken\.java:1: error"):
        jvm.streamplan_jar(cache=tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*.jar"))


def test_the_jar_is_built_once_and_rebuilt_when_its_sources_change(tmp_path, monkeypatch):
    sources = tmp_path / "jvm"
    sources.mkdir()
    (sources / "One.java").write_text("class One {}\n")
    monkeypatch.setattr(jvm, "SOURCES", sources)
    first = jvm.streamplan_jar(cache=tmp_path / "cache")
    built = first.stat().st_mtime_ns
    assert jvm.streamplan_jar(cache=tmp_path / "cache").stat().st_mtime_ns == built
    (sources / "One.java").write_text("class One { int x; }\n")
    second = jvm.streamplan_jar(cache=tmp_path / "cache")
    assert second != first and second.exists()
