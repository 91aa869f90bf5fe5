"""Window table-valued functions whose windows no aggregate consumes:
`SELECT ..., window_start, window_end, window_time FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts),
...))` (and `HOP`, `CUMULATE`, `SESSION`), Flink's StreamExecWindowTableFunction.

TUMBLE, HOP and CUMULATE are stateless, as Flink's AlignedWindowTableFunctionOperator: every
row is emitted once per window it belongs to, with `window_start`, `window_end` and
`window_time` (`window_end` - 1 ms) appended, in Flink's order (a hopping row's newest window
first, a cumulative row's windows by end); its row kind passes through, a row with a NULL time
attribute is dropped, and nothing is late (the operator keeps no state and reads no
watermark).

SESSION is stateful, as Flink's UnalignedWindowTableFunctionOperator (which the same node
version runs for a SessionWindow): keyed by the session's partition keys (one key for the
whole stream without PARTITION BY), rows are kept until the watermark passes their session's
end, sessions merge as rows bridge them, late rows are dropped
(`runtime/session_window_table_function.py`). The plan JSON holds all it needs: the
SessionWindow's gap and partition_key_indices, as Flink writes them.
"""
from __future__ import annotations

from pydantic import field_validator

from ..changelog import OP_COLUMN
from ..options import LOCAL_TIME_ZONE
from ..types import quote_identifier
from ..durations import parse_duration_ms
from .keyed import GLOBAL_KEY, KeyedNode, struct_ddl
from .metadata import exec_node
from .window_aggregate import WindowingStrategy, without_watermark


@exec_node(name="stream-exec-window-table-function", version=1, min_plan_version="0.3",
           min_state_version="0.3", consumed_options=(LOCAL_TIME_ZONE.key,))
class StreamExecWindowTableFunction(KeyedNode):
    STATE_DOC = ("TUMBLE, HOP, CUMULATE: none; SESSION (Flink's UnalignedWindowTableFunction"
                 "Operator): per partition key (one key without PARTITION BY) the rows of each "
                 "in-flight session by arrival number, the arrival counter and the "
                 "session-window-mapping of in-flight windows to state windows, with a timer "
                 "per in-flight window end")
    RUNTIME = "session_window_table_function"
    windowing: WindowingStrategy

    def requires_watermark(self, inputs):
        return self.windowing.is_rowtime

    @field_validator("windowing")
    @classmethod
    def _aligned_windows(cls, windowing: WindowingStrategy) -> WindowingStrategy:
        if not windowing.is_rowtime:
            raise ValueError("a window table function over a processing-time attribute is not "
                             "supported (only a window aggregate over one is)")
        return windowing

    def input_field_indexes(self):
        return [("windowing.timeAttributeIndex", 0, [self.windowing.time_attribute_index]),
                ("windowing.window.partition_key_indices", 0,
                 self.windowing.window.partition_key_indices or [])]

    def output_changelog(self, inputs):
        return inputs[0]

    def output_unique_keys(self, inputs, input_keys):
        return []                       # a hopping or cumulative row becomes several rows

    def read_options(self, config):
        # Windows over TIMESTAMP time attributes do not shift by the local time zone (Flink's
        # shiftTimeZone is UTC for them), so the zone is persisted and checked, not applied.
        return {"local_time_zone": config.get(LOCAL_TIME_ZONE)}

    # --- SESSION: state and runtime ---------------------------------------------------------
    def key_indexes(self):
        return list(self.windowing.window.partition_key_indices or [])

    @property
    def time_mode(self) -> str:
        return "EventTime"

    def runtime_params(self, input_row):
        from ..runtime.session_window_table_function import SessionWindowTvfParams

        return SessionWindowTvfParams(parse_duration_ms(self.windowing.window.gap),
                                      self.windowing.time_attribute_index)

    def prepare(self, frame, input_row, params):
        return without_watermark(frame, input_row.names[self.windowing.time_attribute_index])

    def state_layout(self, inputs):
        if not self.windowing.window.is_session:
            return {}                   # AlignedWindowTableFunctionOperator keeps no state
        (row,) = inputs
        return self.runtime().state_layout(self.runtime_params(row), struct_ddl(row),
                                           struct_ddl(row, self.key_indexes())
                                           or f"`{GLOBAL_KEY}`: INT")

    # --- TUMBLE, HOP, CUMULATE: stateless -------------------------------------------------
    def window_ends(self, millis):
        """A Spark array column of the window ends of `millis` (NULL for a NULL time)."""
        from pyspark.sql import functions as F

        assigner = self.windowing.window.assigner()
        offset, size, slide = assigner.offset, assigner.size, assigner.slide
        if assigner.kind == "TUMBLE":
            end = millis - F.pmod(millis - offset, F.lit(size)) + size
            return F.sequence(end, end, F.lit(size))
        if assigner.kind == "HOP":      # SlidingWindowAssigner: the last start first
            last_start = millis - F.pmod(millis - offset, F.lit(slide))
            count = size // slide
            return F.sequence(last_start + size, last_start + size - (count - 1) * slide,
                              F.lit(-slide))
        start = millis - F.pmod(millis - offset, F.lit(size))     # CumulativeWindowAssigner
        first_end = millis - F.pmod(millis - offset, F.lit(slide)) + slide
        return F.sequence(first_end, start + size, F.lit(slide))

    def window_start(self, end):
        assigner = self.windowing.window.assigner()
        if assigner.kind != "CUMULATE":
            return end - assigner.size
        from pyspark.sql import functions as F

        return end - 1 - F.pmod(end - 1 - assigner.offset, F.lit(assigner.size))

    def translate(self, ctx, inputs):
        from pyspark.sql import functions as F

        ctx.options(self)                # reads (and so checks) the persisted options
        if self.windowing.window.is_session:
            return KeyedNode.translate(self, ctx, inputs)
        (input_row,) = ctx.input_types(self)
        frame = inputs[0]
        rowtime = input_row.names[self.windowing.time_attribute_index]
        millis = F.unix_millis(F.col(quote_identifier(rowtime)))
        end = F.explode(self.window_ends(millis)).alias("__window_end")
        payload = [F.col(quote_identifier(name)) for name in input_row.names]
        frame = frame.select(*payload, F.col(quote_identifier(OP_COLUMN)), end)
        window_end = F.col("__window_end")
        start_name, end_name, time_name = self.row_type.names[len(input_row.names):]
        return frame.select(*payload,
                            F.timestamp_millis(self.window_start(window_end)).alias(start_name),
                            F.timestamp_millis(window_end).alias(end_name),
                            F.timestamp_millis(window_end - 1).alias(time_name),
                            F.col(quote_identifier(OP_COLUMN)))
