"""Lookup join: `o [LEFT] JOIN d FOR SYSTEM_TIME AS OF o.proc_time ON o.k = d.id ...` where `d`
is a lookup table (Flink's StreamExecLookupJoin over a LookupTableSource). Each input row
looks up the rows the table holds at that processing time and is emitted once per match with
its row kind, padded with NULLs in a LEFT join when nothing matches. No state: the table is
external, so nothing of it is in the checkpoint, and a restore looks up what the table holds
then.

Here a lookup table is the values table's rows (`TranslateContext.lookups`), as snapshots
that each hold from a processing time on: the harness gives a program's lookup table its
before-restore rows, then its after-restore rows from the after phase's first processing
time on, as Flink's restore tests initialise the external table for each run. A lookup is a
Spark stream-static join on the lookup keys, the table's own filter, the condition on the
input row (Flink's pre-filter) and the rest of the condition, and the snapshot holding at the
batch's processing time.
"""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field as PydanticField
from pydantic import model_validator

from ..changelog import OP_COLUMN
from ..errors import ExecutionError
from ..types import RowType, parse_row_type, quote_identifier
from .base import ExecNode, PlanModel
from .common import TableSpec
from .fields import Duration, FieldIndex, RowTypeText, SparkExpression
from .metadata import exec_node

VALID_FROM, VALID_TO, NOW = "$valid_from", "$valid_to", "$now"


class LookupKey(PlanModel):
    """The lookup table's field `temporal_index` equals the input's field `input_index`
    (Flink's FieldRefLookupKey)."""

    temporal_index: FieldIndex
    input_index: FieldIndex


class AsyncLookupOptions(PlanModel):
    """Flink's LookupJoinUtil.AsyncLookupOptions, from the LOOKUP hint or the table's
    'async' option (then Flink's defaults)."""

    capacity: int = PydanticField(gt=0)
    timeout: Duration
    output_mode: Literal["ORDERED", "ALLOW_UNORDERED"]


class RetryLookupOptions(PlanModel):
    """Flink's LookupJoinUtil.RetryLookupOptions, from the LOOKUP hint."""

    retry_predicate: Literal["lookup_miss"]
    retry_strategy: Literal["FIXED_DELAY"]
    retry_fixed_delay: Duration
    retry_max_attempts: int = PydanticField(gt=0)


@exec_node(name="stream-exec-lookup-join", version=1, min_plan_version="0.3",
           min_state_version="0.3")
class StreamExecLookupJoin(ExecNode):
    STATE_DOC = ("none: each input row looks up the table's rows at its processing time "
                 "(the table is external; a restore reads what it holds then)")
    join_type: Literal["INNER", "LEFT"]
    temporal_table: TableSpec
    temporal_table_type: RowTypeText          # the lookup table's columns
    lookup_keys: list[LookupKey]
    filter_on_temporal_table: Optional[SparkExpression] = None   # over the table's columns
    pre_filter_condition: Optional[SparkExpression] = None       # over the input's columns
    remaining_join_condition: Optional[SparkExpression] = None   # over the output's columns
    async_options: Optional[AsyncLookupOptions] = None
    retry_options: Optional[RetryLookupOptions] = None

    @model_validator(mode="after")
    def _output_is_input_then_table(self) -> "StreamExecLookupJoin":
        table = parse_row_type(self.temporal_table_type)
        if not self.lookup_keys:
            raise ValueError("'lookupKeys' is empty: a lookup needs at least one key")
        for key in self.lookup_keys:
            if key.temporal_index >= len(table.fields):
                raise ValueError(f"'lookupKeys': temporalIndex {key.temporal_index} is beyond "
                                 f"the {len(table.fields)} field(s) of temporalTableType")
        if len(self.row_type.fields) < len(table.fields):
            raise ValueError(f"outputType has {len(self.row_type.fields)} field(s), fewer than "
                             f"the lookup table's {len(table.fields)}")
        return self

    @property
    def table_row(self) -> RowType:
        return parse_row_type(self.temporal_table_type)

    def input_field_indexes(self):
        return [("lookupKeys.inputIndex", 0, [key.input_index for key in self.lookup_keys])]

    def needs_update_before(self, input_keys, downstream, input_row=None, input_modes=None):
        return downstream              # each row looks up and passes with its kind

    def translate(self, ctx, inputs):
        from pyspark.sql import functions as F

        from ..runtime.rows import to_python

        name = self.temporal_table.identifier
        snapshots = ctx.lookups.get(name)
        if snapshots is None:
            raise ExecutionError(
                f"node {self.id}: no data bound to lookup table '{name}'; give the values table "
                f"a 'path' option or bind its rows when executing")
        table = self.table_row
        types = [field.type for field in table.fields]
        rows = [tuple(to_python(v, t) for v, t in zip(values, types)) + (start, end)
                for start, end, snapshot in _validity(snapshots) for _, values in snapshot]
        schema = table.to_spark()
        for column in (VALID_FROM, VALID_TO):
            schema = schema.add(column, "long", nullable=True)
        static = ctx.spark.createDataFrame(rows, schema)
        if self.filter_on_temporal_table is not None:
            static = static.filter(self.filter_on_temporal_table)
        width = len(self.row_type.fields) - len(table.fields)
        out_names = self.row_type.names
        static = static.select(*(F.col(quote_identifier(field)).alias(out)
                                 for field, out in zip(table.names, out_names[width:])),
                               F.col(quote_identifier(VALID_FROM)),
                               F.col(quote_identifier(VALID_TO)))
        probe = inputs[0].select(*(F.col(quote_identifier(field)).alias(out)
                                   for field, out in zip(ctx.input_types(self)[0].names,
                                                         out_names[:width])), OP_COLUMN,
                                   # the batch's processing time: a join condition must be
                                   # deterministic, so it is a column of the input
                                   F.expr("unix_millis(current_timestamp())").alias(NOW))
        now = quote_identifier(NOW)
        conditions = [f"{quote_identifier(out_names[key.input_index])} = "
                      f"{quote_identifier(out_names[width + key.temporal_index])}"
                      for key in self.lookup_keys]
        conditions += [f"({condition})" for condition in (self.pre_filter_condition,
                                                          self.remaining_join_condition)
                       if condition is not None]
        conditions.append(f"(`{VALID_FROM}` IS NULL OR {now} >= `{VALID_FROM}`) AND "
                          f"(`{VALID_TO}` IS NULL OR {now} < `{VALID_TO}`)")
        joined = probe.join(F.broadcast(static), F.expr(" AND ".join(conditions)),
                            "left" if self.join_type == "LEFT" else "inner")
        return joined.select(*(quote_identifier(n) for n in out_names), OP_COLUMN)


def _validity(snapshots):
    """(valid from, valid to, rows) of each (start ms, rows) snapshot: from its start (the
    first from any time) to the next one's."""
    for index, (start, rows) in enumerate(snapshots):
        end = snapshots[index + 1][0] if index + 1 < len(snapshots) else None
        yield (None if index == 0 else start), end, rows
