"""Window join: two window TVFs (`TUMBLE`, `HOP`, `CUMULATE`) joined on
`L.window_start = R.window_start AND L.window_end = R.window_end [AND other keys]`, INNER,
LEFT, RIGHT, FULL OUTER, or SEMI / ANTI from `[NOT] EXISTS` and `[NOT] IN` (Flink's
StreamExecWindowJoin), on event time.

As in Flink's plan, the window equalities are not join keys: each side's `windowing`
(Flink's WindowAttachedWindowingStrategy) names the input columns holding its window start
and end; `joinSpec` holds the other equalities and the non-equi condition. Each window of a
join key is joined once, when the watermark passes its end; every output row is +I
(runtime/window_join.py).
"""
from __future__ import annotations

from ..changelog import INSERT_ONLY, OP_COLUMN
from ..errors import PlanFormatError
from ..join_type import JoinType
from ..options import LOCAL_TIME_ZONE
from ..types import RowType, quote_identifier
from .base import ExecNode
from .common import JoinSpec
from .join import joined_names
from .keyed import struct_ddl
from .metadata import exec_node
from .window_aggregate import WindowAttachedStrategy


@exec_node(name="stream-exec-window-join", version=1, min_plan_version="0.3",
           min_state_version="0.3", consumed_options=(LOCAL_TIME_ZONE.key,))
class StreamExecWindowJoin(ExecNode):
    STATE_DOC = ("per join key and side, the rows of each window by window end (Flink's "
                 "`left-records` / `right-records` list states namespaced by window end) and an "
                 "event-time timer per window end; a window's rows are joined and cleared when "
                 "the watermark passes its end, late rows are dropped")
    arity = 2
    join_spec: JoinSpec
    left_windowing: WindowAttachedStrategy
    right_windowing: WindowAttachedStrategy

    def requires_watermark(self, inputs):
        return self.left_windowing.is_rowtime

    def input_field_indexes(self):
        return [*self.join_spec.key_indexes("joinSpec"),
                ("leftWindowing", 0, [self.left_windowing.window_start,
                                      self.left_windowing.window_end]),
                ("rightWindowing", 1, [self.right_windowing.window_start,
                                       self.right_windowing.window_end])]

    @property
    def join_type(self) -> JoinType:
        return JoinType(self.join_spec.join_type)

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        return INSERT_ONLY

    def check_input_changelog(self, inputs, origins) -> None:
        for kinds, origin in zip(inputs, origins):
            if kinds != INSERT_ONLY:
                raise self.unsupported_changes(f"Window join node {self.id}",
                                               kinds - INSERT_ONLY, origin)

    def read_options(self, config):
        # Windows over TIMESTAMP time attributes do not shift by the local time zone, so the
        # zone is persisted and checked, not applied (as the window table function).
        return {"local_time_zone": config.get(LOCAL_TIME_ZONE)}

    # --- state and runtime ---------------------------------------------------------------
    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        from ..runtime.window_join import state_layout

        left, right = inputs
        return state_layout(struct_ddl(left), struct_ddl(right))

    def _check_windowing(self, left: RowType, right: RowType) -> None:
        if self.left_windowing.window != self.right_windowing.window:
            raise PlanFormatError(f"node {self.id} ('{self.type}'): fields 'leftWindowing.window' "
                                  f"and 'rightWindowing.window' differ; a window join joins the "
                                  f"same windows of both inputs")
        for side, windowing, row in (("left", self.left_windowing, left),
                                     ("right", self.right_windowing, right)):
            for name in ("window_start", "window_end"):
                field = row.fields[getattr(windowing, name)]
                if not field.type.is_timestamp:
                    raise PlanFormatError(
                        f"node {self.id} ('{self.type}'): field '{side}Windowing."
                        f"{'windowStart' if name == 'window_start' else 'windowEnd'}': input "
                        f"field {getattr(windowing, name)} ({field.name} {field.type.text}) is "
                        f"not a TIMESTAMP")

    def runtime_params(self, left: RowType, right: RowType):
        from ..runtime.window_join import WindowJoinParams

        self._check_windowing(left, right)
        return WindowJoinParams(self.join_spec.join_type, len(left.fields), len(right.fields),
                                self.left_windowing.window_end, self.right_windowing.window_end,
                                tuple(self.row_type.names), tuple(self.join_spec.filter_nulls),
                                self.join_spec.non_equi_condition,
                                tuple(joined_names(left.names, right.names)))

    def translate(self, ctx, inputs):
        from pyspark.sql import functions as F
        from pyspark.sql import types as T

        from ..runtime.window_join import WindowJoinProcessor
        from .two_input import keyed_union

        ctx.options(self)                # reads (and so checks) the persisted options
        left_row, right_row = ctx.input_types(self)
        # Late rows are the processor's to drop, as Flink drops them: no column keeps the
        # watermark mark that would make Spark filter them first.
        left, right = [frame.select(*[F.col(quote_identifier(name)).alias(name, metadata={})
                                      for name in frame.columns]) for frame in inputs]
        union, key_names = keyed_union(left, right, self.join_spec.left_keys,
                                       self.join_spec.right_keys)
        processor = WindowJoinProcessor(self.runtime_params(left_row, right_row),
                                        self.state_layout([left_row, right_row]), (),
                                        tuple(self.row_type.names))
        output = self.row_type.to_spark().add(OP_COLUMN, T.ByteType(), False)
        return union.groupBy(*key_names).transformWithState(processor, output, "Append",
                                                            "EventTime")
