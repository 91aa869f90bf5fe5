"""What Spark's transformWithState does at the boundary of an event-time timer, measured: a
timer at t fires in the micro-batch whose watermark is t (Flink too fires a timer once the
watermark reaches it). Every event-time processor's choice of Spark timer rests on this. The
window family registers window end - 2 (checkpoints hold such timers), which at a watermark of
exactly end - 2 fires a millisecond before the window is due: the window then keeps a timer
at end - 1 (`window_aggregate.window_timers`) instead of losing its only one."""
from __future__ import annotations

import datetime as dt
import json

import pytest

from harness import SinkTestStep, SourceTestStep, TableTestProgram
from harness.runner import run_semantic
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


# Window a's [0 s, 5 s) has Flink's timer at 4.999 s and its Spark timer at 4.998 s. b's row
# runs at the watermark of a's, exactly 4.998 s: Spark fires a's timer there, before the window
# is due. Flink fires the window at b's watermark (6 s); had the early timer been the window's
# only one, it would never fire. Expected rows: Flink's (the window fires once the watermark
# reaches 4.999 s, whatever came before).
WINDOW_AT_THE_TIMER_BOUNDARY = (
    TableTestProgram.of("window-aggregate-watermark-at-end-minus-2",
                        "a watermark of exactly window end - 2 ms fires no window and loses none")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "ts TIMESTAMP(3)", "WATERMARK FOR ts AS ts")
                        .producing_before_restore(["a", "2020-10-10 00:00:04.998"])
                        .producing_after_restore(["b", "2020-10-10 00:00:06"]).build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "window_end TIMESTAMP(3)", "n BIGINT")
                      .consuming_before_restore()
                      .consuming_after_restore("+I[a, 2020-10-10T00:00:05, 1]",
                                               "+I[b, 2020-10-10T00:00:10, 1]").build())
    .run_sql("INSERT INTO S SELECT k, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE T, "
             "DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end")
    .build())


def test_a_window_whose_timer_fires_a_millisecond_early_still_fires_when_due(spark):
    run_semantic(WINDOW_AT_THE_TIMER_BOUNDARY, spark)
