"""The source rule: a catalog table (the values connector and its options checked) becomes
a table source scan, then a calc for computed columns and PROCTIME() attributes, a changelog
normalize for an upsert source or one that may repeat changelog events (with a drop of -U
rows before it when the source has them), and a watermark assigner for a WATERMARK clause.
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from ..changelog import RowKind
from ..durations import format_duration_ms
from ..errors import PlanningError, UnsupportedSqlError
from ..nodes import ExecNode
from ..nodes.calc import StreamExecCalc
from ..nodes.changelog_normalize import StreamExecChangelogNormalize
from ..nodes.common import TableSpec
from ..nodes.drop_update_before import StreamExecDropUpdateBefore
from ..nodes.mini_batch_assigner import StreamExecMiniBatchAssigner
from ..nodes.source_scan import StreamExecTableSourceScan
from ..nodes.watermark_assigner import StreamExecWatermarkAssigner
from ..options import MINIBATCH_ALLOW_LATENCY, MINIBATCH_ENABLED, SOURCE_CDC_EVENTS_DUPLICATE
from ..sql.ast import CreateTable
from ..types import Field, RowType, SqlType, parse_type, quote_identifier
from ..values_connector import VALUES_OPTIONS, option_value_problem
from .common import _calc_description


class SourceRules:
    """Catalog tables and their scans; a mixin of PlanBuilder (builder.py)."""

    def _table(self, name: str, where: str, role: str) -> CreateTable:
        table = self.catalog.get(name)
        if table is None:
            near = [t for t in self.catalog if t.lower() == name.lower()]
            hint = f" Did you mean '{near[0]}'?" if near else ""
            raise PlanningError(f"{where}: table '{name}' is not defined; declare it with CREATE "
                                f"TABLE first.{hint}")
        connector = table.options.get("connector")
        if connector != "values":
            raise UnsupportedSqlError(f"connector '{connector}' of table '{name}' (only 'values' "
                                      f"is supported)", table.position.line, table.position.column,
                                      table.position.source)
        unknown = sorted(set(table.options) - set(VALUES_OPTIONS))
        if unknown:
            raise PlanningError(f"{table.position}: table '{name}': unsupported option(s) "
                                f"{', '.join(unknown)}; the values connector takes "
                                f"{', '.join(sorted(VALUES_OPTIONS))}")
        for key, value in table.options.items():
            problem = option_value_problem(key, value)
            if problem is not None:
                raise PlanningError(f"{table.position}: table '{name}': option '{key}': {problem}")
        return table

    def _scan(self, table: CreateTable) -> ExecNode:
        where = str(table.position)
        physical = table_row_type(table, physical_only=True)
        pk = list(table.primary_key) if table.primary_key else None
        node = self.add(StreamExecTableSourceScan, [],
                        table=TableSpec(identifier=table.name, options=dict(table.options),
                                        primary_key=pk),
                        output_type=physical.text,
                        description=f"TableSourceScan(table=[[{table.name}]], "
                                    f"fields=[{', '.join(physical.names)}])")
        if self.config.get(MINIBATCH_ENABLED):
            node = self._mini_batch_assigner(table, node)
        if any(column.computed is not None for column in table.columns):
            projection = [quote_identifier(c.name) if c.computed is None
                          else PROCTIME_SQL if _is_proctime(c.computed)
                          else self._sql(c.computed, physical, where) for c in table.columns]
            names = [c.name for c in table.columns]
            types = self.types.resolve(physical, projection, None, where)
            row = RowType(tuple(
                Field(n, PROCTIME_TYPE, proctime=True) if _is_proctime(c.computed) else Field(n, t)
                for n, t, c in zip(names, types, table.columns)))
            node = self.add(StreamExecCalc, [node], projection=projection, condition=None,
                            output_type=row.text,
                            description=_calc_description(projection, names, None))
        node = self._normalize_changelog(table, node)
        if table.watermark is None:
            return node
        row = node.row_type
        index = row.index(table.watermark.column)
        rowtime = row.fields[index]
        if not rowtime.type.is_timestamp or rowtime.type.params[:1] > (3,):
            raise PlanningError(
                f"{where}: invalid type {rowtime.type.text} of time field '{rowtime.name}' for the "
                f"watermark; it must be TIMESTAMP(p) or TIMESTAMP_LTZ(p) with p from 0 to 3")
        fields = list(row.fields)
        fields[index] = Field(rowtime.name, SqlType("TIMESTAMP", (3,), rowtime.type.nullable), True)
        return self.add(StreamExecWatermarkAssigner, [node], rowtime_field_index=index,
                        watermark_delay=format_duration_ms(table.watermark.delay_ms),
                        output_type=RowType(tuple(fields)).text,
                        description=f"WatermarkAssigner(rowtime=[{rowtime.name}], "
                                    f"watermark=[{table.watermark.text}])")

    def _mini_batch_assigner(self, table: CreateTable, node: ExecNode) -> ExecNode:
        """With table.exec.mini-batch.enabled, Flink's MiniBatchIntervalInferRule puts a
        processing-time mini-batch assigner right after every source (interval:
        table.exec.mini-batch.allow-latency). Below a watermark assigner Flink plans none in
        that mode and flushes on watermarks instead (row-time mini-batches): not supported."""
        if table.watermark is not None:
            raise UnsupportedSqlError(
                f"table.exec.mini-batch.enabled with table '{table.name}', which has a WATERMARK "
                f"(Flink's mini-batches then follow its watermarks: a row-time "
                f"stream-exec-mini-batch-assigner, not implemented)", table.position.line,
                table.position.column, table.position.source)
        interval = self.config.get(MINIBATCH_ALLOW_LATENCY)
        return self.add(StreamExecMiniBatchAssigner, [node],
                        mini_batch_interval={"interval": interval, "mode": "ProcTime"},
                        output_type=node.output_type,
                        description=f"MiniBatchAssigner(interval=[{interval}ms], mode=[ProcTime])")

    def _normalize_changelog(self, table: CreateTable, node: ExecNode) -> ExecNode:
        """An upsert source (+I/+U/-D by primary key, no -U), or a changelog source that may
        repeat events (table.exec.source.cdc-events-duplicate), gets a changelog normalize
        keeping the last row per key, as in Flink."""
        kinds = self.modes[node.id]
        upsert = RowKind.UPDATE_AFTER in kinds and RowKind.UPDATE_BEFORE not in kinds
        duplicates = self.config.get(SOURCE_CDC_EVENTS_DUPLICATE) and kinds != frozenset(
            {RowKind.INSERT})
        if not (upsert or duplicates):
            return node
        if not table.primary_key:
            raise PlanningError(
                f"{table.position}: table '{table.name}' is an upsert source ('changelog-mode' = "
                f"'{table.options.get('changelog-mode')}': updates without -U rows) or may "
                f"repeat changelog events, so it needs a PRIMARY KEY (...) NOT ENFORCED")
        row = node.row_type
        keys = [row.index(name) for name in table.primary_key]
        if RowKind.UPDATE_BEFORE in kinds:        # the normalize rebuilds -U from its state
            node = self.add(StreamExecDropUpdateBefore, [node], output_type=row.text,
                            description="DropUpdateBefore")
        normalize = self.add(StreamExecChangelogNormalize, [node], unique_keys=keys,
                             generate_update_before=True, output_type=row.text,
                             description=f"ChangelogNormalize(key=[{', '.join(table.primary_key)}])")
        if not duplicates:
            self.optional_normalizes.add(normalize.id)
        return normalize


# `t AS PROCTIME()`: a processing-time attribute. Only its order matters (arrival order);
# its value is the micro-batch's time, so queries that output it are not deterministic.
PROCTIME_SQL = "CAST(current_timestamp() AS TIMESTAMP)"
PROCTIME_TYPE = SqlType("TIMESTAMP_LTZ", (3,), nullable=False)


def _is_proctime(expression: Optional[exp.Expression]) -> bool:
    return (isinstance(expression, exp.Anonymous) and expression.name.upper() == "PROCTIME"
            and not expression.expressions)


def table_row_type(table: CreateTable, physical_only: bool) -> RowType:
    return RowType(tuple(Field(c.name, parse_type(c.type_text).with_nullable(c.nullable))
                         for c in table.columns
                         if c.computed is None or not physical_only))
