"""The plan builder: the graph under construction and the statements. `PlanBuilder` holds
the nodes and edges, with each node's changelog kinds, their origins and its unique keys;
`add` puts an exec node at its latest version into the graph, and an INSERT is planned to
a sink, with Flink 2.3's upsert materialization. The rules that plan a query block live
one concern a module, as sqlglot's optimizer keeps one rule a module, and are mixed into
the class: select, sources, joins, temporal_joins, subqueries, ranks, aggregate_rule,
windows, window_joins, window_ranks, changelog, unions, values_rule, limits, temporal_sorts
and correlates. `_sql` (Spark SQL
of an expression, with Flink's integer division) and `_state_ttl`, which several rules
use, are here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from sqlglot import exp

from ..changelog import RowKind, mode_names
from ..errors import PlanningError, UnsupportedSqlError
from .field_access import with_field_access
from ..functions import SCALAR, FunctionDefinition
from ..functions.spark import scalar_functions_called
from .flink_builtins import spark_builtins
from .flink_result_types import flink_result_types
from .typed_builtins import typed_builtins
from ..nodes import REGISTRY, ExecNode
from ..nodes.metadata import node_name
from ..nodes.sink import StreamExecSink
from ..nodes.source_scan import StreamExecTableSourceScan
from ..nodes.watermark_assigner import StreamExecWatermarkAssigner
from ..options import (MINIBATCH_ALLOW_LATENCY, MINIBATCH_ENABLED, MINIBATCH_SIZE,
                       SINK_UPSERT_MATERIALIZE, STATE_TTL, Configuration)
from ..plan import CompiledPlan, Edge
from ..sql.ast import CreateTable, Insert
from ..sql.expressions import EXPRESSIONS_HINT, disallowed_construct, user_functions
from ..nodes.calc import StreamExecCalc
from ..types import INTEGRAL_TYPES, Field, RowType, quote_identifier
from .aggregate_rule import AggregateRules
from .changelog import ChangelogRules, infer_node_changelog
from .correlates import CorrelateRules
from .grouping_sets import GroupingSetRules
from .common import QueryContext, _calc_description
from .hints import check_early_fire_applies, parse_hints
from .joins import JoinRules
from .limits import LimitRules
from .lookup_joins import LookupJoinRules
from .overs import OverRules
from .ranks import RankRules
from .scope import spark_sql
from .select import SelectRules
from .sources import SourceRules, table_row_type, table_spec
from .subqueries import SubqueryRules
from .temporal_functions import TemporalTableFunction
from .temporal_joins import TemporalJoinRules
from .temporal_sorts import TemporalSortRules
from .type_resolver import SparkTypeResolver
from .unions import UnionRules
from .values_rule import ValuesRules
from .window_joins import WindowJoinRules
from .window_ranks import WindowRankRules
from .windows import WindowRules


@dataclass
class PlanBuilder(SelectRules, SourceRules, JoinRules, TemporalJoinRules, SubqueryRules, RankRules,
                  AggregateRules, WindowRules, WindowJoinRules, WindowRankRules, OverRules,
                  ChangelogRules, UnionRules, ValuesRules, LimitRules, TemporalSortRules,
                  CorrelateRules, GroupingSetRules, LookupJoinRules):
    catalog: dict[str, CreateTable]
    config: Configuration
    types: SparkTypeResolver
    functions: dict[str, FunctionDefinition] = field(default_factory=dict)   # by SQL name
    views: dict[str, exp.Expression] = field(default_factory=dict)   # CREATE VIEW: name -> query
    temporal_functions: dict[str, TemporalTableFunction] = field(default_factory=dict)  # by SQL name
    nodes: list[ExecNode] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    modes: dict[int, frozenset[RowKind]] = field(default_factory=dict)
    origins: dict[int, dict[RowKind, ExecNode]] = field(default_factory=dict)
    unique_keys: dict[int, list[list[int]]] = field(default_factory=dict)
    optional_normalizes: set[int] = field(default_factory=set)   # upsert sources' normalizes

    # --- graph helpers --------------------------------------------------------------------
    def add(self, kind: type, inputs: list[ExecNode], state_ttls: Optional[list[int]] = None,
            **spec) -> ExecNode:
        """A node of `kind`'s exec node at its latest version, served by the class the
        registry holds for that version (a newer version may live in another class). Its
        `state` entries are the node's own defaults, with `state_ttls` (one per input; by
        default table.exec.state.ttl)."""
        cls, meta = REGISTRY.latest_class(node_name(kind))
        if not cls.COMPOSITE_COLUMNS:
            _refuse_composite_columns(meta.name, inputs)
        ttls = state_ttls or [self.config.get(STATE_TTL)] * max(cls.arity, 1)
        state = cls.default_state(meta.version, ttls, spec)
        if state is not None:
            spec["state"] = state
        node = cls(id=len(self.nodes) + 1, type=meta.type_id,
                   configuration=self.config.persisted_for(meta.consumed_options),
                   input_properties=[{} for _ in inputs], **spec)
        node.read_options(node.options_view(self.config))   # an undeclared read fails now
        self.modes[node.id], self.origins[node.id] = infer_node_changelog(
            node, inputs, self.modes, self.origins, while_planning=True)
        self.nodes.append(node)
        self.edges.extend(Edge(source.id, node.id) for source in inputs)
        self.unique_keys[node.id] = node.output_unique_keys(
            [source.row_type for source in inputs], [self.unique_keys[source.id] for source in inputs])
        return node

    def plan(self, inserts: list[Insert]) -> CompiledPlan:
        self._check_mini_batch_options(inserts)
        for insert in inserts:
            self._plan_insert(insert)
        self._refuse_state_over_source_watermarks()
        self._update_fast_ranks()
        self._generate_update_before_where_needed()
        self._settle_mini_batch_modes()
        self._check_mini_batch_nodes(inserts)
        return CompiledPlan(self.nodes, self.edges)

    def _check_mini_batch_options(self, inserts: list[Insert]) -> None:
        """Flink's checks when table.exec.mini-batch.enabled is on: a latency and a size
        above zero."""
        if not self.config.get(MINIBATCH_ENABLED):
            return
        where = str(inserts[0].position) if inserts else "<script>"
        if self.config.get(MINIBATCH_ALLOW_LATENCY) <= 0:
            raise PlanningError(f"{where}: MiniBatch Latency must be greater than 0 ms: set "
                                f"'{MINIBATCH_ALLOW_LATENCY.key}' with "
                                f"'{MINIBATCH_ENABLED.key}' = 'true'")
        if self.config.get(MINIBATCH_SIZE) <= 0:
            raise PlanningError(f"{where}: '{MINIBATCH_SIZE.key}' must be > 0 with "
                                f"'{MINIBATCH_ENABLED.key}' = 'true'")

    def _check_mini_batch_nodes(self, inserts: list[Insert]) -> None:
        """Nodes that Flink runs in mini-batches (they read table.exec.mini-batch.*) and that
        run here only row by row are refused by name rather than run otherwise than Flink."""
        if not self.config.get(MINIBATCH_ENABLED):
            return
        for node in self.nodes:
            flink = MINI_BATCH_VARIANTS.get(node_name(type(node)))
            if flink is not None:
                position = inserts[0].position
                raise UnsupportedSqlError(
                    f"node {node.id} '{node.type}' ({node.description}) with "
                    f"table.exec.mini-batch.enabled (Flink runs it in mini-batches: {flink}, not "
                    f"implemented)", position.line, position.column, position.source)

    def _refuse_state_over_source_watermarks(self) -> None:
        """`WATERMARK FOR c AS SOURCE_WATERMARK()`: in Flink `c` is a rowtime attribute whose
        watermark the values source never advances; here it is planned as a plain timestamp
        (no watermark assigner). Stateless plans are the same either way; a stateful one may
        not be (a row-time deduplication or an event-time interval join in Flink), so it is
        refused rather than planned unlike Flink."""
        stateless = (StreamExecTableSourceScan, StreamExecCalc, StreamExecSink,
                     StreamExecWatermarkAssigner)
        for scan in self.nodes:
            if not isinstance(scan, StreamExecTableSourceScan):
                continue
            table = self.catalog.get(scan.table.identifier)
            if table is None or table.watermark is None or not table.watermark.from_source:
                continue
            stateful = next((n for n in self.nodes if not isinstance(n, stateless)), None)
            if stateful is not None:
                position = table.watermark.position or table.position
                raise UnsupportedSqlError(
                    f"{stateful.type} in a query reading table '{table.name}', whose "
                    f"WATERMARK FOR {table.watermark.column} AS SOURCE_WATERMARK() makes "
                    f"'{table.watermark.column}' a rowtime attribute in Flink; here it is a "
                    f"plain timestamp (the values source emits no watermark), so only "
                    f"stateless queries read such a table", position.line, position.column,
                    position.source)

    # --- statements -----------------------------------------------------------------------
    def _plan_insert(self, insert: Insert) -> None:
        where = str(insert.position)
        hints = parse_hints(insert.hints)
        sink_table = self._table(insert.target, where, role="sink")
        sink_row = table_row_type(sink_table, physical_only=True)
        targets = _insert_targets(insert, sink_table, sink_row, where)
        query_row = RowType(tuple(sink_row.fields[sink_row.index(n)] for n in targets))
        # A view plans as a CTE of the INSERT (a copy: planning may annotate the tree).
        relations = set(self.catalog) | set(self.views)
        ctx = QueryContext(insert, where, hints,
                           ctes={name: with_field_access(query.copy(), relations)
                                 for name, query in self.views.items()})
        query = with_field_access(insert.query.copy(), relations)
        relation = self._plan_select(query, ctx, query_row, top_level=True)
        check_early_fire_applies(hints, ctx.interval_joins > 0)
        hints.state_ttl.check_all_used()
        hints.lookup.check_all_used()
        node = relation.node
        if query_row != sink_row:
            node = self._complete_sink_row(node, insert, sink_row, targets, where)
        materialize = self._upsert_materialize(sink_table, sink_row, node, insert)
        if materialize:                    # the materializer keeps rows in a Python core
            _refuse_composite_columns("stream-exec-sink's upsert materializer", [node])
        upsert_key = next((key for key in self.unique_keys[node.id] if key), None)
        self.add(StreamExecSink, [node],
                 table=table_spec(sink_table),
                 overwrite=True if insert.overwrite else None,
                 input_changelog_mode=mode_names(self.modes[node.id]), output_type=sink_row.text,
                 upsert_materialize=True if materialize else None,
                 input_upsert_key=upsert_key if materialize else None,
                 conflict_strategy=insert.on_conflict,
                 description=f"Sink(table=[{sink_table.name}], fields=[{', '.join(sink_row.names)}]"
                             + (", upsertMaterialize=[true]" if materialize else "")
                             + (f", conflictStrategy=[{insert.on_conflict}]" if insert.on_conflict
                                else "") + ")")

    def _complete_sink_row(self, node: ExecNode, insert: Insert, sink_row: RowType,
                           targets: list[str], where: str) -> ExecNode:
        """The sink's whole row from a query that gives only `targets` (an INSERT's column
        list or static partition, as Flink completes it): static partition columns are their
        literals, columns the INSERT does not name NULL, each cast to the column's type."""
        static = dict(insert.static_partition)
        given = node.row_type.names
        projection = []
        for field in sink_row.fields:
            spark_type = field.type.to_spark().simpleString().upper()
            if field.name in targets:
                projection.append(quote_identifier(given[targets.index(field.name)]))
            elif field.name in static:
                projection.append(f"CAST({spark_sql(static[field.name])} AS {spark_type})")
            else:
                projection.append(f"CAST(NULL AS {spark_type})")
        return self._calc(node, projection, list(sink_row.names), None, where)

    def _upsert_materialize(self, table: CreateTable, sink_row: RowType, node: ExecNode,
                            insert: Insert) -> bool:
        """Flink 2.3's table.exec.sink.upsert-materialize: NONE never materializes; FORCE
        always for a sink with a primary key fed updates; AUTO when, besides, no unique key
        of the input is contained in the sink's primary key (rows of one sink key may come
        from several input keys) -- and then only with ON CONFLICT DO DEDUPLICATE, else the
        INSERT is refused, as Flink 2.3 refuses it."""
        where = str(insert.position)
        if insert.on_conflict in ("NOTHING", "ERROR"):
            raise UnsupportedSqlError(
                f"ON CONFLICT DO {insert.on_conflict} (Flink's watermark-compacting "
                f"materializer); use ON CONFLICT DO DEDUPLICATE", insert.position.line,
                insert.position.column, insert.position.source)
        mode = self.config.get(SINK_UPSERT_MATERIALIZE)
        if mode == "NONE" or not table.primary_key or \
                self.modes[node.id] == frozenset({RowKind.INSERT}):
            return False
        if mode == "FORCE":
            return True
        key = {sink_row.index(name) for name in table.primary_key}
        uniques = self.unique_keys[node.id]
        if any(set(unique) <= key for unique in uniques):
            return False
        if insert.on_conflict is None:
            shown = ", ".join(node.row_type.names[i] for i in uniques[0]) if uniques else ""
            raise PlanningError(
                f"{where}: the query has an upsert key that differs from the primary key of sink "
                f"table '{table.name}'. Primary key: [{', '.join(table.primary_key)}], upsert "
                f"key: [{shown}]. Rows of one primary key may then come from several upsert "
                f"keys; add ON CONFLICT DO DEDUPLICATE to the INSERT (the sink keeps every row "
                f"and shows the last one), or set 'table.exec.sink.upsert-materialize' to "
                f"'FORCE' or 'NONE'")
        return True

    # --- used by several rules ----------------------------------------------------------
    def _calc(self, node: ExecNode, projection: list[str], names: list[str],
              condition: Optional[str], where: str, rowtime: Optional[str] = None,
              proctime: Optional[str] = None) -> ExecNode:
        """A calc of `projection` (named `names`) filtered by `condition` over `node`; `node`
        itself when that is the identity. `rowtime`: the output column that stays the rowtime
        attribute (a window aggregate's time attribute); `proctime`: the one that stays the
        processing-time attribute (a processing-time window aggregate's)."""
        input_row = node.row_type
        if projection == [quote_identifier(n) for n in input_row.names] and condition is None:
            return node
        types = self.types.resolve(input_row, projection, None, where)
        fields = tuple(Field(name, sql_type, rowtime=name == rowtime, proctime=name == proctime)
                       for name, sql_type in zip(names, types))
        called = scalar_functions_called(self.functions, projection + [condition or ""])
        with user_functions(definition.name for definition in called):
            return self.add(StreamExecCalc, [node], projection=projection, condition=condition,
                            output_type=RowType(fields).text,
                            functions=[definition.spec for definition in called] or None,
                            description=_calc_description(projection, names, condition))

    def _sql(self, expression: exp.Expression, input_row: RowType, where: str) -> str:
        """Spark SQL text of a resolved expression, with Flink's result types (planner.
        flink_result_types, typed_builtins), integer division and built-ins. Only what
        a plan may carry passes (streamplan.sql.expressions): the loader applies the same rule."""
        with user_functions(name for name, definition in self.functions.items()
                            if definition.kind == SCALAR):
            construct = disallowed_construct(expression)
        if construct is not None:
            raise UnsupportedSqlError(f"{construct} at {where}", hint=EXPRESSIONS_HINT)
        typed = typed_builtins(flink_result_types(expression, input_row, self.types, where),
                               input_row, self.types, where)
        return spark_sql(spark_builtins(integer_division(typed, input_row, self.types, where),
                                        where, input_row))

    def _state_ttl(self, input_names: tuple[str, ...], ctx: QueryContext, is_join: bool) -> int:
        """FLIP-292: a hinted TTL for this input, else the session's table.exec.state.ttl."""
        hinted = ctx.hints.state_ttl.for_input(input_names, is_join) if input_names else None
        return hinted if hinted is not None else self.config.get(STATE_TTL)


# Flink's mini-batch operators for nodes that run row by row here.
MINI_BATCH_VARIANTS = {
    "stream-exec-deduplicate": "the ProcTime/RowTimeMiniBatchDeduplicate functions",
    "stream-exec-join": "MiniBatchStreamingJoinOperator",
}

def _insert_targets(insert: Insert, table: CreateTable, sink_row: RowType,
                    where: str) -> list[str]:
    """The sink columns the query of `insert` gives, in order: those of its column list, or
    all but its static partition's; as Flink, a static partition column is a partition key,
    and a column the INSERT leaves out takes NULL, so it must be nullable."""
    static = [name for name, _ in insert.static_partition]
    keys = table.partition_keys or ()
    for name in static:
        if name not in keys:
            raise PlanningError(f"{where}: static partition column '{name}' of INSERT INTO "
                                f"{table.name} is not a partition key of the table "
                                f"({', '.join(keys) or 'it has none'})")
    for name in list(insert.columns or ()):
        if name not in sink_row.names:
            raise PlanningError(f"{where}: column '{name}' of INSERT INTO {table.name} (...) "
                                f"is not a column of the table ({', '.join(sink_row.names)})")
        if name in static:
            raise PlanningError(f"{where}: column '{name}' of INSERT INTO {table.name} is "
                                f"both a static partition column and in the column list")
    if insert.columns is None:
        return [name for name in sink_row.names if name not in static]
    for field in sink_row.fields:
        if field.name not in insert.columns and field.name not in static \
                and not field.type.nullable:
            raise PlanningError(f"{where}: column '{field.name}' of sink {table.name} is NOT "
                                f"NULL, but INSERT INTO {table.name} (...) gives it no value")
    return list(insert.columns)


def integer_division(expression: exp.Expression, input_row: RowType, types: SparkTypeResolver,
                     where: str) -> exp.Expression:
    """Flink divides integers as integers (7 / 2 = 3); Spark's `/` always gives a DOUBLE.

    Each `/` whose operands Spark types as integral becomes `CAST(a DIV b AS <wider type>)`,
    innermost first so that an outer division sees the rewritten operands' types.
    """
    divisions = sorted(expression.find_all(exp.Div), key=lambda node: node.depth, reverse=True)
    if not divisions:
        return expression
    root = exp.Paren(this=expression)          # a parent, so the top node can be replaced too
    for node in divisions:
        left, right = types.resolve(input_row, [spark_sql(node.this), spark_sql(node.expression)],
                                    None, where)
        if left.name in INTEGRAL_TYPES and right.name in INTEGRAL_TYPES:
            wider = max(left.name, right.name, key=INTEGRAL_TYPES.index)
            node.replace(exp.Cast(this=exp.IntDiv(this=node.this.copy(),
                                                  expression=node.expression.copy()),
                                  to=exp.DataType.build(wider)))
    return root.this


def _refuse_composite_columns(node_name: str, inputs: list[ExecNode]) -> None:
    """A node that runs rows through a Python core cannot take ARRAY, MAP or ROW columns yet:
    refused here, naming the column, instead of failing in a Spark worker."""
    for source in inputs:
        for field in source.row_type.fields:
            if field.type.is_composite:
                raise UnsupportedSqlError(
                    f"column '{field.name}' of type {field.type.text} in the input of "
                    f"{node_name} (ARRAY, MAP and ROW columns pass through stateless nodes: "
                    f"scans, calcs, UNNEST, unions, sinks; select only the columns the "
                    f"{node_name} needs, or take what it needs out of the collection, e.g. "
                    f"CARDINALITY(arr), arr[1], m['key'])")
