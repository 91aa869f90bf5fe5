"""Start a streaming query whose processing time stands still (Spark's ManualClock).

Spark stamps every micro-batch with its trigger clock's time (`batchTimestampMs`), and
processing-time state TTL, PROCTIME values and processing-time timers all read that stamp.
On the wall clock a restore's outcome therefore depends on when it runs: a checkpoint holding
state with a one-day TTL restores differently a day later. Tests need the time to stand
still, as Spark's own `StreamTest` does: it starts queries through the
`StreamingQueryManager.startQuery(..., triggerClock, ...)` that `DataStreamWriter.start()`
calls with a `SystemClock`. PySpark does not expose that parameter, so `start_at` reads what
the Python writer configured from the JVM writer and makes the same call with a
`ManualClock`. Only the foreachBatch sink is supported (the one `values` sinks use).
"""
from __future__ import annotations

from typing import Optional

from ..errors import ExecutionError
from .jvm import jvm_class

_SINK_CLASS = "org.apache.spark.sql.execution.streaming.sources.ForeachBatchSink"
_CLOCK_CLASS = "org.apache.spark.util.ManualClock"
_VALUES_SOURCE_CLASS = "streamplan.values.ValuesSource"


def manual_clock(spark, time_ms: int):
    """A JVM ManualClock standing at `time_ms` (epoch milliseconds)."""
    return jvm_class(spark._jvm, _CLOCK_CLASS)(int(time_ms))


def start_at(writer, clock):
    """`writer.start()` on `clock` (a `manual_clock`): every micro-batch is stamped with the
    clock's time, which stands still unless something sets it (`bind_step_times`)."""
    from pyspark.sql.streaming.query import StreamingQuery

    jwriter = writer._jwrite
    jvm = writer._spark._jvm
    dataset = _field(jwriter, "ds")
    options = _field(jwriter, "extraOptions")
    batch_writer = _field(jwriter, "foreachBatchWriter")
    if batch_writer is None:
        raise ExecutionError("a query on a manual clock needs a foreachBatch sink")
    manager = dataset.sparkSession().sessionState().streamingQueryManager()
    none = jvm_class(jvm, "scala.Option").apply(None)
    leading = {"queryName": lambda: options.get("queryname"),
               "checkpointLocation": lambda: options.get("checkpointlocation"),
               "sinkName": lambda: _field(jwriter, "sinkName")}
    sink = jvm_class(jvm, _SINK_CLASS)(batch_writer, dataset.exprEnc())
    query = manager.startQuery(*[leading[name]() for name in _leading_options(manager)], dataset,
                               options.originalMap(), sink, _field(jwriter, "outputMode"),
                               False,                        # useTempCheckpointLocation
                               True,                         # recoverFromCheckpointLocation
                               _field(jwriter, "trigger"), clock, none, none)
    return StreamingQuery(query)


# The Option[String] parameters in front of the Dataset, by Spark release: 4.0-4.2 take the
# query name and the checkpoint location, 4.3 also the sink name between them.
_LEADING = {2: ("queryName", "checkpointLocation"),
            3: ("queryName", "sinkName", "checkpointLocation")}


_found_leading: Optional[tuple[str, ...]] = None


def _leading_options(manager) -> tuple[str, ...]:
    """Found once per process: the walk over the manager's methods is some 400 py4j calls
    (~40 ms a query), and the JVM's Spark release does not change while the process runs."""
    global _found_leading
    if _found_leading is None:
        _found_leading = _find_leading_options(manager)
    return _found_leading


def _find_leading_options(manager) -> tuple[str, ...]:
    for method in manager.getClass().getMethods():
        types = [t.getName() for t in method.getParameterTypes()]
        if method.getName() == "startQuery" and "org.apache.spark.util.Clock" in types:
            leading = next(i for i, name in enumerate(types) if name.endswith(".Dataset"))
            if leading in _LEADING and len(types) == leading + 10:
                return _LEADING[leading]
    raise ExecutionError(
        "this Spark release has no StreamingQueryManager.startQuery(..., Clock, ...) of a known "
        "shape, so queries cannot run on a manual clock; run on the wall clock "
        "(processing_time_ms=None) or use a Spark release streamplan supports")


def _field(obj, name: str):
    """A private field of a JVM object (Scala keeps the writer's settings in fields)."""
    from py4j.protocol import Py4JJavaError

    try:
        field = obj.getClass().getDeclaredField(name)
    except Py4JJavaError:        # NoSuchFieldException
        raise ExecutionError(f"this Spark release's DataStreamWriter has no field '{name}'; "
                             f"queries cannot run on a manual clock") from None
    field.setAccessible(True)
    return field.get(obj)


class StepTimes:
    """While open, each micro-batch reading step n of `feeds` is stamped `times_ms[n]`: the
    values source sets the query's manual clock when it plans the step (ValuesSource.bindClock),
    so processing time advances batch by batch, the same in every run."""

    def __init__(self, spark, clock, feeds: list[str], times_ms: list[int]):
        self.source = jvm_class(spark._jvm, _VALUES_SOURCE_CLASS)
        self.clock, self.feeds, self.times = clock, feeds, ",".join(str(int(t)) for t in times_ms)

    def __enter__(self) -> "StepTimes":
        for feed in self.feeds:
            self.source.bindClock(feed, self.clock, self.times)
        return self

    def __exit__(self, *exc) -> None:
        for feed in self.feeds:
            self.source.unbindClock(feed)
