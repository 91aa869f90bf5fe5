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
from ..nodes.common import DistributionSpec, TableSpec
from ..nodes.drop_update_before import StreamExecDropUpdateBefore
from ..nodes.mini_batch_assigner import MiniBatchInterval, StreamExecMiniBatchAssigner
from ..nodes.source_scan import StreamExecTableSourceScan
from ..nodes.watermark_assigner import StreamExecWatermarkAssigner
from ..options import MINIBATCH_ALLOW_LATENCY, MINIBATCH_ENABLED, SOURCE_CDC_EVENTS_DUPLICATE
from ..sql.ast import CreateTable
from ..types import Field, RowType, SqlType, parse_type, quote_identifier
from ..values_connector import (VALUES_OPTIONS, metadata_map, option_value_problem,
                                partition_list)
from .common import _calc_description


class SourceRules:
    """Catalog tables and their scans; a mixin of PlanBuilder (builder.py)."""

    def _table(self, name: str, where: str, role: str) -> CreateTable:
        table = self.catalog.get(name)
        if table is None and name in self.views:
            raise PlanningError(f"{where}: '{name}' is a view; a query writes into a table "
                                f"(INSERT INTO <table>)")
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
        _check_metadata_columns(table, role)
        _check_partitions(table)
        return table

    def _scan(self, table: CreateTable) -> ExecNode:
        where = str(table.position)
        physical = scan_row_type(table)
        node = self.add(StreamExecTableSourceScan, [],
                        table=table_spec(table),
                        output_type=physical.text,
                        description=f"TableSourceScan(table=[[{table.name}]], "
                                    f"fields=[{', '.join(physical.names)}])")
        assigns_watermark = table.watermark is not None and not table.watermark.from_source
        if self.config.get(MINIBATCH_ENABLED) and not assigns_watermark:
            node = self._mini_batch_assigner(node)
        declared = [c.name for c in table.columns if c.computed is None]
        if any(column.computed is not None for column in table.columns) \
                or declared != list(physical.names):
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
        if table.watermark is not None and table.watermark.from_source:
            if table.options.get("enable-watermark-push-down", "false").lower() != "true":
                raise PlanningError(
                    f"{where}: table '{table.name}' declares WATERMARK FOR "
                    f"{table.watermark.column} AS SOURCE_WATERMARK(), but its source does not "
                    f"emit watermarks; Flink's values source does (none at all) with "
                    f"'enable-watermark-push-down' = 'true'")
            # Flink's values source applies SOURCE_WATERMARK() as WatermarkStrategy
            # .noWatermarks(): no watermark assigner, and no watermark ever advances.
            return node
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
        node = self.add(StreamExecWatermarkAssigner, [node], rowtime_field_index=index,
                        watermark_delay=format_duration_ms(table.watermark.delay_ms),
                        output_type=RowType(tuple(fields)).text,
                        description=f"WatermarkAssigner(rowtime=[{rowtime.name}], "
                                    f"watermark=[{table.watermark.text}])")
        return self._mini_batch_assigner(node) if self.config.get(MINIBATCH_ENABLED) else node

    def _mini_batch_assigner(self, node: ExecNode) -> ExecNode:
        """With table.exec.mini-batch.enabled, Flink's MiniBatchIntervalInferRule puts a
        mini-batch assigner right after every source, or after its watermark assigner
        (interval: table.exec.mini-batch.allow-latency). Its mode is settled once the whole
        plan is known (`_settle_mini_batch_modes`)."""
        interval = self.config.get(MINIBATCH_ALLOW_LATENCY)
        return self.add(StreamExecMiniBatchAssigner, [node],
                        mini_batch_interval={"interval": interval, "mode": "ProcTime"},
                        output_type=node.output_type,
                        description=f"MiniBatchAssigner(interval=[{interval}ms], mode=[ProcTime])")

    def _settle_mini_batch_modes(self) -> None:
        """Flink's MiniBatchIntervalInferRule: a mini-batch assigner that a node requiring the
        watermark reads from (`ExecNode.requires_watermark`: an event-time window, join, sort
        or over aggregate) runs in row-time mode, its mini-batches following the watermark;
        any other one in processing-time mode."""
        if not any(isinstance(node, StreamExecMiniBatchAssigner) for node in self.nodes):
            return
        by_id = {node.id: node for node in self.nodes}
        inputs = {node.id: [by_id[edge.source].row_type for edge in self.edges
                            if edge.target == node.id] for node in self.nodes}
        consumers: dict[int, list[int]] = {node.id: [] for node in self.nodes}
        for edge in self.edges:
            consumers[edge.source].append(edge.target)

        def watermark_downstream(node_id: int) -> bool:
            return any(by_id[target].requires_watermark(inputs[target])
                       or watermark_downstream(target) for target in consumers[node_id])

        for index, node in enumerate(self.nodes):
            if isinstance(node, StreamExecMiniBatchAssigner) and watermark_downstream(node.id):
                interval = node.mini_batch_interval.interval
                self.nodes[index] = node.model_copy(update={
                    "mini_batch_interval": MiniBatchInterval(interval=interval, mode="RowTime"),
                    "description": f"MiniBatchAssigner(interval=[{interval}ms], mode=[RowTime])"})

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


def table_spec(table: CreateTable) -> TableSpec:
    """A catalog table as its plan nodes persist it."""
    distribution = table.distribution
    return TableSpec(identifier=table.name, options=dict(table.options),
                     primary_key=list(table.primary_key) if table.primary_key else None,
                     partition_keys=list(table.partition_keys) if table.partition_keys else None,
                     distribution=None if distribution is None else DistributionSpec(
                         kind=distribution.kind, bucket_keys=list(distribution.bucket_keys),
                         bucket_count=distribution.bucket_count))


def readable_metadata(table: CreateTable) -> dict[str, SqlType]:
    text = table.options.get("readable-metadata")
    return metadata_map(text) if text else {}


def scan_row_type(table: CreateTable) -> RowType:
    """What a values scan produces, as Flink's values source does: the physical columns, then
    the metadata columns ordered by their keys' order in 'readable-metadata' (a source row
    carries the physical values, then the metadata values in that order)."""
    keys = list(readable_metadata(table))
    physical = [c for c in table.columns if c.computed is None and c.metadata is None]
    metadata = sorted((c for c in table.columns if c.metadata is not None),
                      key=lambda c: keys.index(c.metadata) if c.metadata in keys else len(keys))
    return RowType(tuple(Field(c.name, parse_type(c.type_text).with_nullable(c.nullable))
                         for c in physical + metadata))


def _check_metadata_columns(table: CreateTable, role: str) -> None:
    """A metadata column reads (source) or writes (sink) a key its table's connector
    declares ('readable-metadata' / 'writable-metadata'), with the key's type, each key
    once; as Flink's DynamicSourceUtils / DynamicSinkUtils check them."""
    option = "readable-metadata" if role == "source" else "writable-metadata"
    text = table.options.get(option)
    declared = metadata_map(text) if text else {}
    seen: dict[str, str] = {}
    for column in table.columns:
        if column.metadata is None:
            continue
        where = column.position or table.position
        if column.metadata not in declared:
            keys = ", ".join(f"'{key}'" for key in declared) or "none"
            raise PlanningError(
                f"{where}: invalid metadata key '{column.metadata}' in column '{column.name}' "
                f"of table '{table.name}': the values connector {'reads' if role == 'source' else 'writes'} "
                f"the metadata keys its '{option}' option declares ({keys})")
        if column.metadata in seen:
            raise PlanningError(f"{where}: metadata key '{column.metadata}' of table "
                                f"'{table.name}' is read by columns '{seen[column.metadata]}' "
                                f"and '{column.name}'; each key is one column")
        seen[column.metadata] = column.name
        wanted = declared[column.metadata]
        got = parse_type(column.type_text)
        if got.with_nullable(True) != wanted.with_nullable(True):
            raise PlanningError(
                f"{where}: metadata column '{column.name}' of table '{table.name}' is "
                f"{got.text}, but its key '{column.metadata}' is {wanted.text} in '{option}'; "
                f"declare the column with the key's type")


def _check_partitions(table: CreateTable) -> None:
    """Every column a 'partition-list' names is a physical column (Flink's values source
    fails on others)."""
    text = table.options.get("partition-list")
    if not text:
        return
    physical = {c.name for c in table.columns if c.computed is None and c.metadata is None}
    for partition in partition_list(text):
        for column in partition:
            if column not in physical:
                raise PlanningError(f"{table.position}: table '{table.name}': 'partition-list' "
                                    f"names '{column}', which is no physical column")


def table_row_type(table: CreateTable, physical_only: bool) -> RowType:
    return RowType(tuple(Field(c.name, parse_type(c.type_text).with_nullable(c.nullable))
                         for c in table.columns
                         if c.computed is None or not physical_only))
