"""Watermark assigner: `WATERMARK FOR t AS t - INTERVAL ...` as Spark's withWatermark."""
from __future__ import annotations

from ..changelog import END_OF_INPUT_CODE, OP_COLUMN
from ..durations import parse_duration_ms
from .base import ExecNode
from .fields import Duration, FieldIndex
from .metadata import exec_node

# Event time the end-of-input marker carries: the last millisecond Spark timestamps hold,
# so that every timer fires, as Flink's final Long.MAX_VALUE watermark does.
END_OF_TIME = "9999-12-31 23:59:59.999"


@exec_node(name="stream-exec-watermark-assigner", version=1, min_plan_version="0.1",
           min_state_version="0.1")
class StreamExecWatermarkAssigner(ExecNode):
    COMPOSITE_COLUMNS = True
    STATE_DOC = ("Spark's watermark")
    rowtime_field_index: FieldIndex
    watermark_delay: Duration

    def input_field_indexes(self):
        return [("rowtimeFieldIndex", 0, [self.rowtime_field_index])]

    def output_unique_keys(self, inputs, input_keys):
        return input_keys[0]

    def translate(self, ctx, inputs):
        from pyspark.sql import functions as F

        rowtime = self.row_type.fields[self.rowtime_field_index].name
        delay_ms = parse_duration_ms(self.watermark_delay)
        is_end = F.col(OP_COLUMN) == F.lit(END_OF_INPUT_CODE)
        end_of_time = F.lit(END_OF_TIME).cast("timestamp")
        marked = inputs[0].withColumn(rowtime, F.when(is_end, end_of_time).otherwise(F.col(rowtime)))
        # The marker must pass the watermark operator and be dropped after it. Spark pushes
        # filters below a watermark unless they reference its event-time column, hence the
        # second (redundant) term.
        keep = ~is_end | (F.col(rowtime) < end_of_time)
        # Flink's WatermarkAssignerOperator fails the job on a NULL rowtime; so do we (a
        # filter keeps raise_error from being pruned).
        message = (f"RowTime field '{rowtime}' should not be null (node {self.id}, "
                   f"{self.description}); filter or convert NULL event times before the "
                   f"watermark, e.g. with a computed column COALESCE({rowtime}, ...)")
        checked = marked.filter(F.when(F.col(rowtime).isNull(), F.raise_error(F.lit(message)))
                                .isNull())
        # In Flink the assigner sees every row before any filter after it. Spark pushes a
        # deterministic filter that does not read the event-time column below its watermark
        # operator (and infers NOT NULL filters it pushes too), so rows a WHERE drops would
        # no longer advance the watermark: a window would fire late or never, a row count as
        # late or not. A filter Spark cannot see through (non-deterministic, and not one it
        # folds away as rand() >= 0 is) stops them here.
        barrier = F.spark_partition_id() >= F.lit(0)
        return checked.withWatermark(rowtime, f"{delay_ms} milliseconds").filter(keep) \
            .filter(barrier)
