"""What Spark's transformWithState does at the boundary of an event-time timer, measured: a
timer at t fires in the micro-batch whose watermark is t (Flink too fires a timer once the
watermark reaches it). Every event-time processor's choice of Spark timer rests on this;
see the closing note of 2026-11-26: the window family registers window end - 2 for Flink's
end - 1, which this contradicts."""
from __future__ import annotations

import datetime as dt
import json

import pytest
from pyspark.sql import Row
from pyspark.sql import types as T
from pyspark.sql.streaming.stateful_processor import StatefulProcessor

pytestmark = pytest.mark.spark


def probe() -> StatefulProcessor:
    """Registers a timer at 5000 ms on its first row; reports the timer and the watermark of
    the call that fires it. Defined in a function so that Spark pickles it by value (workers
    cannot import this test module)."""

    class Probe(StatefulProcessor):
        def init(self, handle):
            self.handle = handle

        def handleInputRows(self, key, rows, timerValues):
            if any(row["v"] == 0 for row in rows):
                self.handle.registerTimer(5000)
            return iter([])

        def handleExpiredTimer(self, key, timerValues, expiredTimerInfo):
            return iter([Row(timer=expiredTimerInfo.getExpiryTimeInMs(),
                             watermark=timerValues.getCurrentWatermarkInMs())])

        def close(self):
            pass

    return Probe()


def test_an_event_time_timer_fires_once_the_watermark_equals_it(spark, tmp_path):
    source = tmp_path / "in"
    source.mkdir()
    schema = "k STRING, v BIGINT, t TIMESTAMP"
    out = T.StructType([T.StructField("timer", T.LongType()), T.StructField("watermark", T.LongType())])
    query = (spark.readStream.schema(schema).json(str(source)).withWatermark("t", "0 seconds")
             .groupBy("k").transformWithState(probe(), out, "Append", "EventTime")
             .writeStream.format("memory").queryName("timer_boundary").outputMode("append")
             .option("checkpointLocation", str(tmp_path / "checkpoint")).start())
    try:
        for batch, (v, ms) in enumerate([(0, 1000), (1, 5000), (2, 5000)]):
            at = (dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)).isoformat()
            (source / f"{batch}.json").write_text(json.dumps({"k": "a", "v": v, "t": at}))
            query.processAllAvailable()
        fired = [(row.timer, row.watermark) for row in spark.sql("SELECT * FROM timer_boundary").collect()]
    finally:
        query.stop()
    assert fired == [(5000, 5000)]      # batch 2 runs at watermark 5000: the timer fires there
