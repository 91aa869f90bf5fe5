"""INSERT INTO ... SELECT statements to a compiled plan of exec nodes.

A query is a SELECT over tables, subqueries and CTEs, joined by interval joins (both time
bounds between the rowtime attributes) or regular joins, with WHERE, projection, GROUP BY
aggregates and HAVING. Every other construct is rejected by name, with the exec node it
would need.

After a statement is planned, two properties flow through the graph as in Flink's
changelog inference: which nodes' consumers need update-before rows (-U), which decides
whether a group aggregate emits them, and the unique keys of each node's output, which
decide how a regular join keeps its state.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from sqlglot import exp

from ..changelog import RowKind, mode_names
from ..durations import format_duration_ms
from ..errors import PlanningError, UnsupportedSqlError
from ..join_type import JoinType
from ..nodes import REGISTRY, ExecNode
from ..nodes.calc import StreamExecCalc
from ..nodes.changelog_normalize import StreamExecChangelogNormalize
from ..nodes.deduplicate import StreamExecDeduplicate
from ..nodes.drop_update_before import StreamExecDropUpdateBefore
from ..nodes.common import JoinSpec, TableSpec
from ..nodes.group_aggregate import AggCallSpec, StreamExecGroupAggregate
from ..nodes.interval_join import IntervalJoinSpec, StreamExecIntervalJoin, WindowBounds
from ..nodes.join import StreamExecJoin
from ..nodes.metadata import node_name
from ..nodes.rank import APPEND_FAST, RETRACT
from ..nodes.rank import (PartitionSpec, RankRange, RankStrategy, SortField, SortSpec,
                          StreamExecRank)
from ..nodes.sink import StreamExecSink
from ..nodes.source_scan import StreamExecTableSourceScan
from ..nodes.watermark_assigner import StreamExecWatermarkAssigner
from ..options import (SINK_UPSERT_MATERIALIZE, SOURCE_CDC_EVENTS_DUPLICATE, STATE_TTL,
                       Configuration)
from ..plan import CompiledPlan, Edge
from ..sql.ast import CreateTable, Insert, Position
from ..sql.expressions import EXPRESSIONS_HINT, disallowed_construct
from ..types import (INTEGRAL_TYPES, NUMERIC_TYPES, STRING_TYPES, Field, RowType, SqlType,
                     parse_type, quote_identifier)
from ..values_connector import VALUES_OPTIONS, option_value_problem
from .aggregates import AggregateCall, aggregate_calls, result_type
from .hints import QueryHints, check_early_fire_applies, parse_hints
from .interval_bounds import Bounds, add_to_bounds, time_predicate
from .scope import Scope, ScopeField, plain_column, spark_sql
from .type_resolver import SparkTypeResolver

# Clauses the planner cannot plan, with the exec node they would need.
_UNSUPPORTED_CLAUSES = {
    "order": "ORDER BY (needs stream-exec-rank / sort)",
    "limit": "LIMIT (needs stream-exec-limit)",
    "distinct": "SELECT DISTINCT (needs stream-exec-group-aggregate)",
    "qualify": "QUALIFY (needs stream-exec-rank)",
    "laterals": "LATERAL VIEW",
    "windows": "WINDOW clause (needs stream-exec-over-aggregate)",
}


@dataclass
class Relation:
    """The output of a sub-plan: its node and the columns the query can name."""

    node: ExecNode
    scope_fields: list[ScopeField]
    names: tuple[str, ...] = ()          # how the relation is known: alias, table name


@dataclass
class QueryContext:
    """What planning one INSERT carries down into its query blocks."""

    insert: Insert
    where: str
    hints: QueryHints
    ctes: dict[str, exp.Expression] = field(default_factory=dict)
    interval_joins: int = 0              # in the top-level block (EARLY_FIRE applies there)

    @property
    def position(self) -> Position:
        return self.insert.position


@dataclass
class PlanBuilder:
    catalog: dict[str, CreateTable]
    config: Configuration
    types: SparkTypeResolver
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
        ttls = state_ttls or [self.config.get(STATE_TTL)] * max(cls.arity, 1)
        state = cls.default_state(meta.version, ttls, spec)
        if state is not None:
            spec["state"] = state
        node = cls(id=len(self.nodes) + 1, type=meta.type_id,
                   configuration=self.config.persisted_for(meta.consumed_options),
                   input_properties=[{} for _ in inputs], **spec)
        node.read_options(node.options_view(self.config))   # an undeclared read fails now
        self.modes[node.id], self.origins[node.id] = infer_node_changelog(
            node, inputs, self.modes, self.origins)
        self.nodes.append(node)
        self.edges.extend(Edge(source.id, node.id) for source in inputs)
        self.unique_keys[node.id] = node.output_unique_keys(
            [source.row_type for source in inputs], [self.unique_keys[source.id] for source in inputs])
        return node

    def plan(self, inserts: list[Insert]) -> CompiledPlan:
        for insert in inserts:
            self._plan_insert(insert)
        self._generate_update_before_where_needed()
        return CompiledPlan(self.nodes, self.edges)

    # --- statements -----------------------------------------------------------------------
    def _plan_insert(self, insert: Insert) -> None:
        where = str(insert.position)
        hints = parse_hints(insert.hints)
        sink_table = self._table(insert.target, where, role="sink")
        sink_row = table_row_type(sink_table, physical_only=True)
        ctx = QueryContext(insert, where, hints)
        relation = self._plan_select(insert.query, ctx, sink_row, top_level=True)
        check_early_fire_applies(hints, ctx.interval_joins > 0)
        hints.state_ttl.check_all_used()
        node = relation.node
        materialize = self._upsert_materialize(sink_table, sink_row, node, insert)
        upsert_key = next((key for key in self.unique_keys[node.id] if key), None)
        self.add(StreamExecSink, [node],
                 table=TableSpec(identifier=sink_table.name, options=dict(sink_table.options),
                                 primary_key=list(sink_table.primary_key)
                                 if sink_table.primary_key else None),
                 input_changelog_mode=mode_names(self.modes[node.id]), output_type=sink_row.text,
                 upsert_materialize=True if materialize else None,
                 input_upsert_key=upsert_key if materialize else None,
                 conflict_strategy=insert.on_conflict,
                 description=f"Sink(table=[{sink_table.name}], fields=[{', '.join(sink_row.names)}]"
                             + (", upsertMaterialize=[true]" if materialize else "")
                             + (f", conflictStrategy=[{insert.on_conflict}]" if insert.on_conflict
                                else "") + ")")

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

    def _plan_select(self, select: exp.Expression, ctx: QueryContext,
                     sink_row: Optional[RowType] = None, top_level: bool = False) -> Relation:
        """One query block: FROM (tables, subqueries, CTEs, joins), then WHERE and the
        projection, or WHERE, GROUP BY, aggregates, HAVING and the projection."""
        if not isinstance(select, exp.Select):
            kind = type(select).__name__.upper()
            raise UnsupportedSqlError(f"{kind} query (only SELECT)", ctx.position.line,
                                      ctx.position.column, ctx.position.source)
        _reject_unsupported(select, ctx.position)
        outer_ctes = ctx.ctes
        if select.args.get("with_"):
            ctx.ctes = {**ctx.ctes, **{cte.alias: cte.this for cte in select.args["with_"].expressions}}
        try:
            where_clause = select.args.get("where")
            condition = where_clause.this if where_clause else None
            ranked = self._ranked_source(select, ctx)
            if ranked is not None:
                relation, condition = self._plan_rank(*ranked, select, condition, ctx, top_level)
            else:
                relation, condition = self._plan_from(select, condition, ctx, top_level)
            if select.args.get("group") or select.args.get("having") or _has_aggregates(select):
                return self._plan_aggregate(select, relation, condition, ctx, sink_row, top_level)
            return self._plan_projection(select.expressions, relation, condition, ctx, sink_row)
        finally:
            ctx.ctes = outer_ctes

    def _plan_projection(self, items: list[exp.Expression], relation: Relation,
                         condition: Optional[exp.Expression], ctx: QueryContext,
                         sink_row: Optional[RowType]) -> Relation:
        """A calc of `items` filtered by `condition` (none when it is the identity); with a
        sink row, the columns are cast implicitly to the sink's types."""
        where = ctx.where
        scope = Scope(relation.scope_fields, where)
        input_row = relation.node.row_type
        projection, names = self._projection(items, scope, input_row, where)
        condition_sql = (self._sql(scope.rewrite(condition), input_row, where)
                         if condition is not None else None)
        if sink_row is not None and len(projection) != len(sink_row.fields):
            raise PlanningError(
                f"{where}: column count of the query ({len(projection)}) and of sink "
                f"'{ctx.insert.target}' ({len(sink_row.fields)}: {', '.join(sink_row.names)}) differ")
        if condition_sql is not None:
            self.types.check_condition(input_row, condition_sql, where)
        if sink_row is not None:
            result_types = self.types.resolve(input_row, projection, None, where)
            projection = [_cast_for_sink(expr, got, target, where)
                          for expr, got, target in zip(projection, result_types, sink_row.fields)]
        node = relation.node
        identity = projection == [quote_identifier(n) for n in input_row.names] and condition_sql is None
        if not identity:
            types = self.types.resolve(input_row, projection, None, where)
            node = self.add(StreamExecCalc, [node], projection=projection, condition=condition_sql,
                            output_type=RowType(tuple(map(Field, names, types))).text,
                            description=_calc_description(projection, names, condition_sql))
            fields = node.row_type.fields
        else:
            fields = input_row.fields
        return Relation(node, [ScopeField("", name, f) for name, f in zip(names, fields)])

    def _sql(self, expression: exp.Expression, input_row: RowType, where: str) -> str:
        """Spark SQL text of a resolved expression, with Flink's integer division. Only what
        a plan may carry passes (streamplan.sql.expressions): the loader applies the same rule."""
        construct = disallowed_construct(expression)
        if construct is not None:
            raise UnsupportedSqlError(f"{construct} at {where}", hint=EXPRESSIONS_HINT)
        return spark_sql(integer_division(expression, input_row, self.types, where))

    def _projection(self, items: list[exp.Expression], scope: Scope, input_row: RowType,
                    where: str) -> tuple[list[str], list[str]]:
        projection, names = [], []
        for index, item in enumerate(items):
            target = item.this if isinstance(item, exp.Alias) else item
            if isinstance(target, exp.Star) or (isinstance(target, exp.Column)
                                                and isinstance(target.this, exp.Star)):
                qualifier = target.table if isinstance(target, exp.Column) else None
                for f in scope.star(qualifier or None):
                    projection.append(quote_identifier(f.name))
                    names.append(f.name)
                continue
            if any(isinstance(node, exp.Window) for node in target.walk()):
                raise UnsupportedSqlError("OVER window (needs stream-exec-over-aggregate)")
            projection.append(self._sql(scope.rewrite(target), input_row, where))
            if isinstance(item, exp.Alias):
                names.append(item.alias)
            elif plain_column(target):
                names.append(target.name)
            else:
                names.append(f"EXPR${index}")
        return projection, _dedupe(names)

    # --- FROM: tables, subqueries, CTEs, joins ------------------------------------------------
    def _plan_from(self, select: exp.Select, condition: Optional[exp.Expression],
                   ctx: QueryContext, top_level: bool) -> tuple[Relation, Optional[exp.Expression]]:
        """The FROM relation, and what is left of the WHERE `condition`: as Flink's
        FlinkFilterJoinRule does, a WHERE conjunct over both sides of an inner join (or a
        comma join) joins them, so time bounds written in WHERE make an interval join."""
        source = select.args.get("from_") or select.args.get("from")
        if source is None:
            raise UnsupportedSqlError("SELECT without FROM", ctx.position.line,
                                      ctx.position.column, ctx.position.source)
        relation = self._relation(source.this, ctx)
        conjuncts = _conjuncts(condition) if condition is not None else []
        for join in select.args.get("joins") or []:
            right = self._relation(join.this, ctx)
            pushed = []
            if not join.side and (join.kind or "").upper() in ("", "INNER", "CROSS") \
                    and not join.args.get("using") and not join.method:
                pushed = [c for c in conjuncts if _joins_both(c, relation, right)]
                conjuncts = [c for c in conjuncts if all(c is not p for p in pushed)]
                if pushed and (join.kind or "").upper() == "CROSS":
                    join = join.copy()         # a cross (or comma) join filtered in WHERE
                    join.set("kind", None)     # is an inner join, as in Flink
            relation = self._join(relation, right, join, ctx, top_level, pushed)
        return relation, (exp.and_(*conjuncts) if conjuncts else None)

    def _relation(self, item: exp.Expression, ctx: QueryContext) -> Relation:
        where = ctx.where
        if isinstance(item, exp.Subquery):
            relation = self._plan_select(item.this, ctx)
            alias = item.alias or ""
            return Relation(relation.node, [ScopeField(alias, f.name, f.field)
                                            for f in relation.scope_fields], (alias,) if alias else ())
        if not isinstance(item, exp.Table) or not isinstance(item.this, exp.Identifier):
            raise UnsupportedSqlError(f"{type(item).__name__} in FROM (tables, subqueries and "
                                      f"CTEs are supported)")
        alias = item.alias or item.name
        names = tuple(dict.fromkeys((alias, item.name)))
        if item.name in ctx.ctes:
            relation = self._plan_select(ctx.ctes[item.name], ctx)
            return Relation(relation.node, [ScopeField(alias, f.name, f.field)
                                            for f in relation.scope_fields], names)
        table = self._table(item.name, where, role="source")
        node = self._scan(table)
        return Relation(node, [ScopeField(alias, f.name, f) for f in node.row_type.fields], names)

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

    def _join(self, left: Relation, right: Relation, join: exp.Join, ctx: QueryContext,
              top_level: bool, pushed: list[exp.Expression]) -> Relation:
        """An interval join when the condition (ON and the `pushed` WHERE conjuncts) bounds
        the rowtime attributes of both sides from below and above; otherwise a regular join."""
        where = ctx.where
        join_type = _join_type(join, ctx.position)
        scope = Scope(left.scope_fields + right.scope_fields, where)
        left_row, right_row = left.node.row_type, right.node.row_type
        parts = ([join.args["on"]] if join.args.get("on") is not None else []) + pushed
        if not parts:
            raise UnsupportedSqlError("join without ON condition (a cross join)",
                                      ctx.position.line, ctx.position.column, ctx.position.source)
        condition = exp.and_(*parts)

        def side_of(column: exp.Column) -> Optional[str]:
            return _column_side(column, left, right)

        def is_time_column(column: exp.Column) -> Optional[str]:
            side = side_of(column)
            if side is None:
                return None
            field_ = scope.resolve(column)
            row = left_row if side == "L" else right_row
            return side if row.field(field_.name).rowtime else None

        left_keys, right_keys, time_conjuncts, remaining = [], [], [], []
        for conjunct in _conjuncts(condition):
            predicates = time_predicate(conjunct, is_time_column)
            if predicates is not None:
                time_conjuncts.append((conjunct, predicates))
                continue
            if (isinstance(conjunct, exp.EQ) and isinstance(conjunct.this, exp.Column)
                    and isinstance(conjunct.expression, exp.Column)):
                sides = side_of(conjunct.this), side_of(conjunct.expression)
                if set(sides) == {"L", "R"}:
                    pair = (conjunct.this, conjunct.expression) if sides[0] == "L" \
                        else (conjunct.expression, conjunct.this)
                    left_keys.append(left_row.index(scope.resolve(pair[0]).name))
                    right_keys.append(right_row.index(scope.resolve(pair[1]).name))
                    continue
            remaining.append(conjunct)
        kinds = [op for _, predicates in time_conjuncts for op, _ in predicates]
        has_lower = any(op in (exp.GTE, exp.GT, exp.EQ) for op in kinds)
        has_upper = any(op in (exp.LTE, exp.LT, exp.EQ) for op in kinds)
        out_fields, renamed = _join_fields(left_row, right_row, join_type)
        out_scope = [ScopeField(sf.qualifier, sf.name, out_fields[i])
                     for i, sf in enumerate(left.scope_fields + right.scope_fields)]
        output = RowType(tuple(out_fields))
        names = left.names + right.names
        if has_lower and has_upper:
            bounds = Bounds()
            for _, predicates in time_conjuncts:
                add_to_bounds(bounds, predicates, where)
            if top_level:
                ctx.interval_joins += 1
            node = self._interval_join(left, right, join_type, left_keys, right_keys, remaining,
                                       bounds, condition, out_scope, output, renamed, ctx,
                                       top_level)
            return Relation(node, out_scope, names)
        remaining = [conjunct for conjunct, _ in time_conjuncts] + remaining
        node = self._regular_join(left, right, join_type, left_keys, right_keys, remaining,
                                  condition, out_scope, output, renamed, ctx, top_level)
        return Relation(node, out_scope, names)

    def _non_equi(self, remaining: list[exp.Expression], out_scope: list[ScopeField],
                  output: RowType, where: str) -> Optional[str]:
        if not remaining:
            return None
        joined = exp.and_(*remaining) if len(remaining) > 1 else remaining[0]
        non_equi = self._sql(Scope(out_scope, where).rewrite(joined), output, where)
        self.types.check_condition(output, non_equi, where)
        _check_python_condition(non_equi, output, where)
        return non_equi

    def _interval_join(self, left, right, join_type, left_keys, right_keys, remaining, bounds,
                       condition, out_scope, output, renamed, ctx, top_level) -> ExecNode:
        where = ctx.where
        left_row, right_row = left.node.row_type, right.node.row_type
        early = ctx.hints.early_fire if top_level else None
        non_equi = self._non_equi(remaining, out_scope, output, where)
        spec = IntervalJoinSpec(
            join_spec=JoinSpec(join_type=join_type.value, left_keys=left_keys,
                               right_keys=right_keys, filter_nulls=[True] * len(left_keys),
                               non_equi_condition=non_equi),
            window_bounds=WindowBounds(is_event_time=True, left_lower_bound=bounds.lower,
                                       left_upper_bound=bounds.upper,
                                       left_time_index=left_row.rowtime_index,
                                       right_time_index=right_row.rowtime_index))
        description = (
            f"IntervalJoin(joinType=[{join_type.label}], windowBounds=[isRowTime=true, "
            f"leftLowerBound={bounds.lower}, leftUpperBound={bounds.upper}, "
            f"leftTimeIndex={left_row.rowtime_index}, rightTimeIndex={right_row.rowtime_index}], "
            f"where=[{spark_sql(condition)}], select=[{', '.join(renamed)}]"
            + (f", earlyFire=[delay={early.delay}, timeMode={early.time_mode}]" if early else "")
            + ")")
        return self.add(StreamExecIntervalJoin, [left.node, right.node], interval_join_spec=spec,
                        early_fire_delay=early.delay if early else None,
                        early_fire_time_mode=early.time_mode if early else None,
                        output_type=output.text, description=description)

    def _regular_join(self, left, right, join_type, left_keys, right_keys, remaining, condition,
                      out_scope, output, renamed, ctx, top_level) -> ExecNode:
        where = ctx.where
        non_equi = self._non_equi(remaining, out_scope, output, where)
        join_spec = JoinSpec(join_type=join_type.value, left_keys=left_keys, right_keys=right_keys,
                             filter_nulls=[True] * len(left_keys), non_equi_condition=non_equi)
        left_unique, right_unique = (self.unique_keys[left.node.id],
                                     self.unique_keys[right.node.id])
        specs = [_input_spec_label(unique, keys) for unique, keys in
                 ((left_unique, left_keys), (right_unique, right_keys))]
        description = (f"Join(joinType=[{join_type.label}], where=[{spark_sql(condition)}], "
                       f"select=[{', '.join(renamed)}], leftInputSpec=[{specs[0]}], "
                       f"rightInputSpec=[{specs[1]}])")
        spec = dict(join_spec=join_spec, left_unique_keys=left_unique,
                    right_unique_keys=right_unique, output_type=output.text,
                    description=description)
        cls, meta = REGISTRY.latest_class(node_name(StreamExecJoin))
        ttls = [self._state_ttl(relation.names if top_level else (), ctx, is_join=True)
                for relation in (left, right)]
        if cls.default_state(meta.version, ttls, spec) is None and top_level and any(
                ctx.hints.state_ttl.for_input(r.names, True) is not None for r in (left, right)):
            raise UnsupportedSqlError(
                f"a STATE_TTL hint on a regular join at {where}: {meta.type_id} has no per-input "
                f"state TTL in its plan (only 'table.exec.state.ttl')")
        return self.add(StreamExecJoin, [left.node, right.node], state_ttls=ttls, **spec)

    def _state_ttl(self, input_names: tuple[str, ...], ctx: QueryContext, is_join: bool) -> int:
        """FLIP-292: a hinted TTL for this input, else the session's table.exec.state.ttl."""
        hinted = ctx.hints.state_ttl.for_input(input_names, is_join) if input_names else None
        return hinted if hinted is not None else self.config.get(STATE_TTL)

    # --- ROW_NUMBER: deduplication and top-N -----------------------------------------------
    def _ranked_source(self, select: exp.Select, ctx: QueryContext):
        """(inner SELECT, its ROW_NUMBER item, alias) when FROM is a single subquery or CTE
        whose SELECT list holds a ROW_NUMBER() OVER (...) window."""
        source = select.args.get("from_") or select.args.get("from")
        if source is None or select.args.get("joins"):
            return None
        item = source.this
        if isinstance(item, exp.Subquery) and isinstance(item.this, exp.Select):
            inner, alias = item.this, item.alias or ""
        elif isinstance(item, exp.Table) and isinstance(ctx.ctes.get(item.name), exp.Select):
            inner, alias = ctx.ctes[item.name], item.alias or item.name
        else:
            return None
        windows = [e for e in inner.expressions
                   if isinstance(e, exp.Alias) and isinstance(e.this, exp.Window)]
        if not windows:
            return None
        if len(windows) > 1:
            raise UnsupportedSqlError("several OVER windows in one SELECT", ctx.position.line,
                                      ctx.position.column, ctx.position.source)
        return inner, windows[0], alias

    def _plan_rank(self, inner: exp.Select, item: exp.Alias, alias: str, outer: exp.Select,
                   condition: Optional[exp.Expression], ctx: QueryContext,
                   top_level: bool) -> tuple[Relation, Optional[exp.Expression]]:
        """The inner SELECT without its ROW_NUMBER, then a deduplicate or rank node; returns
        the relation the outer query reads and the rest of its WHERE."""
        where = ctx.where
        window, rn = item.this, item.alias
        function = window.this
        if not isinstance(function, exp.RowNumber):
            name = function.sql(dialect="spark").split("(")[0].upper()
            raise UnsupportedSqlError(
                f"{name}() OVER (only ROW_NUMBER() is supported for top-N and deduplication)",
                ctx.position.line, ctx.position.column, ctx.position.source)
        if window.args.get("spec"):
            raise UnsupportedSqlError("a window frame on ROW_NUMBER()", ctx.position.line,
                                      ctx.position.column, ctx.position.source)
        rest = [conjunct for conjunct in (_conjuncts(condition) if condition is not None else [])]
        start, end, remaining = _rank_range(rest, rn, where)
        if end is None:
            raise UnsupportedSqlError(
                f"ROW_NUMBER() without an upper bound on '{rn}' in the outer WHERE (an OVER "
                f"aggregate, needs stream-exec-over-aggregate)", ctx.position.line,
                ctx.position.column, ctx.position.source)
        stripped = inner.copy()
        stripped.set("expressions", [e for e in stripped.expressions
                                     if not (isinstance(e, exp.Alias) and e.alias == rn)])
        window, hidden = _window_reads_from_scope(window, stripped)
        source = self._plan_select(stripped, ctx)
        scope = Scope(source.scope_fields, where)
        row = source.node.row_type

        def index(expression: exp.Expression, what: str) -> int:
            if not plain_column(expression):
                raise UnsupportedSqlError(f"an expression in {what} of ROW_NUMBER() (only "
                                          f"columns)", ctx.position.line, ctx.position.column,
                                          ctx.position.source)
            return row.index(scope.resolve(expression).name)

        partition = [index(e, "PARTITION BY") for e in window.args.get("partition_by") or []]
        order = window.args.get("order")
        ordered = list(order.expressions) if order else []
        if not ordered:
            raise PlanningError(f"{where}: ROW_NUMBER() needs ORDER BY in its OVER clause")
        sort = [(index(o.this, "ORDER BY"), not o.args.get("desc"),
                 bool(o.args.get("nulls_first"))) for o in ordered]
        uses_rn = _outer_reads(outer, remaining, rn, alias)
        time_field = row.fields[sort[0][0]] if len(sort) == 1 else None
        names = (alias,) if alias else ()
        hinted = names if top_level else ()
        input_node = source.node
        if (start, end) == (1, 1) and time_field is not None and not uses_rn and (
                time_field.rowtime or time_field.proctime):
            keep_last = not sort[0][1]
            ttls = [self._state_ttl(hinted, ctx, is_join=False)]
            keys = ", ".join(row.names[i] for i in partition)
            node = self.add(StreamExecDeduplicate, [input_node], unique_keys=partition,
                            is_rowtime=time_field.rowtime, keep_last_row=keep_last,
                            generate_update_before=True, output_type=_plain_row(row).text,
                            # Flink's ChangelogPlanUtils.isInsertOnly (mini-batch is off)
                            output_insert_only=not keep_last,
                            description=f"Deduplicate(keep=[{'LastRow' if keep_last else 'FirstRow'}], "
                                        f"key=[{keys}], order=[{'ROWTIME' if time_field.rowtime else 'PROCTIME'}]"
                                        f"{'' if keep_last else ', outputInsertOnly=[true]'})",
                            state_ttls=ttls)
            fields = list(node.row_type.fields)
        else:
            insert_only = self.modes[input_node.id] == frozenset({RowKind.INSERT})
            out_row = _plain_row(row)
            if uses_rn:     # named apart from a column the window reads under the same name
                rn_name = _dedupe([*out_row.names, rn])[-1]
                out_row = RowType(out_row.fields + (Field(rn_name, SqlType("BIGINT", (), False)),))
            ttls = [self._state_ttl(hinted, ctx, is_join=False)]
            order_text = ", ".join(f"{row.names[i]} {'ASC' if asc else 'DESC'}"
                                   for i, asc, _ in sort)
            node = self.add(
                StreamExecRank, [input_node], rank_type="ROW_NUMBER",
                partition=PartitionSpec(fields=partition),
                order_by=SortSpec(fields=[SortField(index=i, is_ascending=asc,
                                                    null_is_last=not nulls_first)
                                          for i, asc, nulls_first in sort]),
                rank_range=RankRange(start=start, end=end),
                rank_strategy=RankStrategy(type=APPEND_FAST if insert_only else RETRACT),
                output_row_number=uses_rn, generate_update_before=True,
                output_type=out_row.text, state_ttls=ttls,
                description=f"Rank(strategy=[{APPEND_FAST if insert_only else RETRACT}], "
                            f"rankType=[ROW_NUMBER], rankRange=[rankStart={start}, "
                            f"rankEnd={end}], partitionBy=[{', '.join(row.names[i] for i in partition)}], "
                            f"orderBy=[{order_text}], select=[{', '.join(out_row.names)}])")
            fields = list(node.row_type.fields)
        scope_fields = [ScopeField(alias, f.name, fields[i])
                        for i, f in enumerate(source.scope_fields) if f.name not in hidden]
        if uses_rn:
            scope_fields.append(ScopeField(alias, rn, fields[-1]))
        remaining_condition = exp.and_(*remaining) if len(remaining) > 1 else (
            remaining[0] if remaining else None)
        return Relation(node, scope_fields, names), remaining_condition

    # --- aggregation ---------------------------------------------------------------------------
    def _plan_aggregate(self, select: exp.Select, relation: Relation,
                        where_condition: Optional[exp.Expression], ctx: QueryContext,
                        sink_row: Optional[RowType], top_level: bool) -> Relation:
        """Calc (group keys, arguments; WHERE) -> group aggregate -> Calc (HAVING, SELECT)."""
        where = ctx.where
        scope = Scope(relation.scope_fields, where)
        input_row = relation.node.row_type
        group = select.args.get("group")
        keys = list(group.expressions) if group else []
        if group and (group.args.get("grouping_sets") or group.args.get("cube")
                      or group.args.get("rollup") or any(
                          isinstance(key, (exp.Rollup, exp.Cube, exp.GroupingSets)) for key in keys)):
            raise UnsupportedSqlError("GROUPING SETS / CUBE / ROLLUP", ctx.position.line,
                                      ctx.position.column, ctx.position.source)
        having = select.args.get("having")
        items = list(select.expressions)
        calls: list[AggregateCall] = []
        for expression in items + ([having.this] if having else []):
            calls.extend(aggregate_calls(expression))
        if any(isinstance(item, exp.Star) or (isinstance(item, exp.Column)
                                              and isinstance(item.this, exp.Star)) for item in items):
            raise PlanningError(f"{where}: SELECT * cannot be used with GROUP BY or aggregates; "
                                f"name the grouped columns and aggregates")
        # 1. the calc below the aggregate: group keys, then distinct aggregate arguments
        key_sql = [self._sql(scope.rewrite(key), input_row, where) for key in keys]
        arg_sql: list[str] = []
        for call in calls:
            if call.argument is not None:
                text = self._sql(scope.rewrite(call.argument), input_row, where)
                if text not in arg_sql:
                    arg_sql.append(text)
        condition = (self._sql(scope.rewrite(where_condition), input_row, where)
                     if where_condition is not None else None)
        if condition is not None:
            self.types.check_condition(input_row, condition, where)
        projection = key_sql + arg_sql
        key_names = [key.name if plain_column(key) else f"$f{i}" for i, key in enumerate(keys)]
        names = _dedupe(key_names + [f"$f{len(keys) + i}" for i in range(len(arg_sql))])
        node = relation.node
        identity = projection == [quote_identifier(n) for n in input_row.names] and condition is None
        if not identity:
            types = self.types.resolve(input_row, projection, None, where)
            node = self.add(StreamExecCalc, [node], projection=projection, condition=condition,
                            output_type=RowType(tuple(map(Field, names, types))).text,
                            description=_calc_description(projection, names, condition))
        pre_row = node.row_type
        # 2. the aggregate: group keys first, then one result per distinct call
        specs: list[AggCallSpec] = []
        call_columns: dict[str, str] = {}          # call text -> its result column
        out_names = list(pre_row.names[:len(keys)])
        for call in calls:
            text = call.node.sql(dialect="spark")
            arg_index = None if call.argument is None else len(keys) + arg_sql.index(
                self._sql(scope.rewrite(call.argument), input_row, where))
            same = next((spec for spec in specs if (spec.function, spec.distinct) ==
                         (call.function, call.distinct) and spec.arg_list == (
                             [] if arg_index is None else [arg_index])), None)
            if same is not None:
                call_columns[text] = same.name
                continue
            arg_type = pre_row.fields[arg_index].type if arg_index is not None else None
            name = _dedupe(out_names + [f"EXPR${len(out_names)}"])[-1]
            out_names.append(name)
            specs.append(AggCallSpec(name=name, function=call.function,
                                     arg_list=[] if arg_index is None else [arg_index],
                                     distinct=call.distinct,
                                     type=result_type(call.function, arg_type).text))
            call_columns[text] = name
        key_fields = [Field(f.name, f.type) for f in pre_row.fields[:len(keys)]]
        output = RowType(tuple(key_fields + [Field(spec.name, parse_type(spec.type))
                                             for spec in specs]))
        need_retraction = self.modes[node.id] != frozenset({RowKind.INSERT})
        ttls = [self._state_ttl(relation.names if top_level else (), ctx, is_join=False)]
        grouped = ", ".join(out_names[:len(keys)])
        selected = ", ".join(out_names[:len(keys)] + [_agg_text(spec, pre_row) for spec in specs])
        description = (f"GroupAggregate({f'groupBy=[{grouped}], ' if keys else ''}"
                       f"select=[{selected}])")
        agg = self.add(StreamExecGroupAggregate, [node], grouping=list(range(len(keys))),
                       agg_calls=specs, generate_update_before=True,
                       need_retraction=need_retraction, output_type=output.text,
                       description=description, state_ttls=ttls)
        # 3. the calc above: HAVING and the SELECT list, over the keys and the results
        key_columns = {spark_sql(scope.rewrite(key)): output.fields[i].name
                       for i, key in enumerate(keys)}

        def over_aggregate(expression: exp.Expression) -> exp.Expression:
            def replace(sub: exp.Expression) -> exp.Expression:
                if isinstance(sub, exp.AggFunc):
                    return _column(call_columns[sub.sql(dialect="spark")])
                if not isinstance(sub, exp.Literal) and not any(
                        isinstance(inner, exp.AggFunc) for inner in sub.walk()):
                    text = spark_sql(scope.rewrite(sub))
                    if text in key_columns:
                        return _column(key_columns[text])
                if isinstance(sub, exp.Column):
                    raise PlanningError(
                        f"{where}: column '{sub.sql(dialect='spark')}' is neither grouped nor "
                        f"aggregated; add it to GROUP BY or aggregate it")
                return sub

            return expression.copy().transform(replace)

        rewritten = []
        for index, item in enumerate(items):
            target = item.this if isinstance(item, exp.Alias) else item
            name = (item.alias if isinstance(item, exp.Alias)
                    else target.name if plain_column(target) else f"EXPR${index}")
            rewritten.append(exp.alias_(over_aggregate(target), name, quoted=True))
        having_expr = over_aggregate(having.this) if having else None
        agg_scope = [ScopeField("", f.name, f) for f in output.fields]
        return self._plan_projection(rewritten, Relation(agg, agg_scope), having_expr, ctx,
                                     sink_row)

    # --- properties that flow through the graph ---------------------------------------------
    def _generate_update_before_where_needed(self) -> None:
        """Nodes that generate updates (aggregates, deduplicate, rank, changelog normalize)
        emit -U only when a consumer needs it (Flink's UpdateKindTrait): sinks without a
        primary key, or whose key is not the input's unique key, and filters need it; joins,
        aggregates and ranks need it from their inputs; projections pass the need on. A
        changelog normalize that only rebuilds -U for an upsert source is dropped when no
        consumer needs -U, as Flink does."""
        consumers: dict[int, list[ExecNode]] = {node.id: [] for node in self.nodes}
        by_id = {node.id: node for node in self.nodes}
        for edge in self.edges:
            consumers[edge.source].append(by_id[edge.target])
        needs: dict[int, bool] = {}

        def needs_update_before(node: ExecNode) -> bool:
            if node.id not in needs:
                needs[node.id] = any(requires(consumer, node) for consumer in consumers[node.id])
            return needs[node.id]

        def requires(consumer: ExecNode, producer: ExecNode) -> bool:
            return consumer.needs_update_before(self.unique_keys[producer.id],
                                                needs_update_before(consumer))

        wanted = {node.id: needs_update_before(node) for node in self.nodes
                  if "generate_update_before" in type(node).model_fields}
        dropped = {node_id for node_id in self.optional_normalizes if not wanted[node_id]}
        self.nodes = [node if node.id not in wanted or node.id in dropped
                      or wanted[node.id] == node.generate_update_before
                      else node.model_copy(update={"generate_update_before": wanted[node.id]})
                      for node in self.nodes]
        for node_id in sorted(dropped, reverse=True):    # later ids first: earlier ones stay
            self._bypass(node_id)
        self._reinfer_changelog()

    def _bypass(self, node_id: int) -> None:
        """Remove a one-input node, connecting its input to its consumers, and number the
        nodes again in order (plans list nodes inputs first, with ids in that order)."""
        (source,) = [edge.source for edge in self.edges if edge.target == node_id]
        edges = [Edge(source if edge.source == node_id else edge.source, edge.target)
                 for edge in self.edges if edge.target != node_id]
        kept = [node for node in self.nodes if node.id != node_id]
        renumber = {node.id: index + 1 for index, node in enumerate(kept)}
        self.nodes = [node.model_copy(update={"id": renumber[node.id]}) for node in kept]
        self.edges = [Edge(renumber[edge.source], renumber[edge.target]) for edge in edges]
        self.unique_keys = {renumber[old]: keys for old, keys in self.unique_keys.items()
                            if old in renumber}
        self.optional_normalizes = {renumber[old] for old in self.optional_normalizes
                                    if old in renumber}

    def _reinfer_changelog(self) -> None:
        plan = CompiledPlan(self.nodes, self.edges)
        for index, node in enumerate(self.nodes):
            inputs = plan.inputs_of(node)
            self.modes[node.id], self.origins[node.id] = infer_node_changelog(
                node, inputs, self.modes, self.origins)
            if "input_changelog_mode" in type(node).model_fields:     # the sink records it
                self.nodes[index] = node.model_copy(update={
                    "input_changelog_mode": mode_names(self.modes[inputs[0].id])})


# `t AS PROCTIME()`: a processing-time attribute. Only its order matters (arrival order);
# its value is the micro-batch's time, so queries that output it are not deterministic.
PROCTIME_SQL = "CAST(current_timestamp() AS TIMESTAMP)"
PROCTIME_TYPE = SqlType("TIMESTAMP_LTZ", (3,), nullable=False)


def _is_proctime(expression: Optional[exp.Expression]) -> bool:
    return (isinstance(expression, exp.Anonymous) and expression.name.upper() == "PROCTIME"
            and not expression.expressions)


def _has_aggregates(select: exp.Select) -> bool:
    return any(isinstance(node, exp.AggFunc) for item in select.expressions for node in item.walk())


def _outer_reads(outer: exp.Select, remaining: list[exp.Expression], rn: str,
                 alias: str) -> bool:
    """Whether the outer query reads the ROW_NUMBER column `rn`: by name, or through a `*`
    (or `alias.*`), which expands to every column of the subquery, `rn` included."""
    for item in outer.expressions:
        if isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(
                item.this, exp.Star) and item.table in ("", alias)):
            return True
    return any(isinstance(c, exp.Column) and c.name == rn and c.table in ("", alias)
               for e in list(outer.expressions) + remaining for c in e.find_all(exp.Column))


def _window_reads_from_scope(window: exp.Window, select: exp.Select
                             ) -> tuple[exp.Window, set[str]]:
    """PARTITION BY and ORDER BY of a ROW_NUMBER() read the FROM clause's columns, as in
    Flink, not only the SELECT list's: a column they read that the list does not output is
    added to `select` under a hidden name (dropped again after the rank), and the window is
    rewritten to read it there. Returns the window and the hidden names."""
    if any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
           for e in select.expressions):
        return window, set()
    outputs = {e.alias_or_name for e in select.expressions}
    window, hidden = window.copy(), {}
    order = window.args.get("order")
    reads = list(window.args.get("partition_by") or []) + (
        [o.this for o in order.expressions] if order else [])
    for column in reads:
        if not plain_column(column) or column.name in outputs:
            continue
        key = (column.table, column.name)
        if key not in hidden:
            hidden[key] = _dedupe([*outputs, *hidden.values(), f"{column.name}$over"])[-1]
            select.set("expressions", [*select.expressions,
                                       exp.alias_(column.copy(), hidden[key], quoted=True)])
        column.replace(exp.column(exp.to_identifier(hidden[key], quoted=True)))
    return window, set(hidden.values())


def _plain_row(row: RowType) -> RowType:
    """The same fields without time attributes: they do not survive a stateful operator."""
    return RowType(tuple(Field(f.name, f.type) for f in row.fields))


def _rank_range(conjuncts: list[exp.Expression], rn: str,
                where: str) -> tuple[int, Optional[int], list[exp.Expression]]:
    """Flink's constant rank range from `rn = n`, `rn <= n`, `rn < n`, `rn >= n`, `rn > n`,
    `rn BETWEEN a AND b` (either orientation); the other conjuncts stay a filter."""
    start, end, rest = 1, None, []

    def is_rn(node: exp.Expression) -> bool:
        return isinstance(node, exp.Column) and node.name == rn

    def number(node: exp.Expression) -> Optional[int]:
        if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
            return int(node.this)
        return None

    flip = {exp.LT: exp.GT, exp.LTE: exp.GTE, exp.GT: exp.LT, exp.GTE: exp.LTE, exp.EQ: exp.EQ}
    for conjunct in conjuncts:
        if isinstance(conjunct, exp.Between) and is_rn(conjunct.this):
            low, high = number(conjunct.args["low"]), number(conjunct.args["high"])
            if low is None or high is None:
                raise PlanningError(f"{where}: the bounds of '{rn}' must be integer literals")
            start, end = max(start, low), high if end is None else min(end, high)
            continue
        op = type(conjunct)
        if op in flip and (is_rn(conjunct.this) or is_rn(conjunct.expression)):
            value = number(conjunct.expression if is_rn(conjunct.this) else conjunct.this)
            if value is None:
                raise PlanningError(f"{where}: '{rn}' must be compared with an integer literal")
            op = op if is_rn(conjunct.this) else flip[op]
            if op in (exp.EQ, exp.LTE, exp.LT):
                limit = value if op is not exp.LT else value - 1
                end = limit if end is None else min(end, limit)
            if op in (exp.EQ, exp.GTE, exp.GT):
                start = max(start, value if op is not exp.GT else value + 1)
            continue
        rest.append(conjunct)
    if end is not None and end < start:
        raise PlanningError(f"{where}: the condition on '{rn}' selects no rank ({start} to {end})")
    return start, end, rest


def _column(name: str) -> exp.Column:
    return exp.column(exp.to_identifier(name, quoted=True))


def _agg_text(spec: AggCallSpec, pre_row: RowType) -> str:
    inner = "*" if not spec.arg_list else (
        ("DISTINCT " if spec.distinct else "") + pre_row.fields[spec.arg_list[0]].name)
    return f"{spec.function}({inner}) AS {spec.name}"


def _input_spec_label(unique_keys: list[list[int]], join_keys: list[int]) -> str:
    if not unique_keys:
        return "NoUniqueKey"
    if any(set(key) <= set(join_keys) for key in unique_keys):
        return "JoinKeyContainsUniqueKey"
    return "HasUniqueKey"


def table_row_type(table: CreateTable, physical_only: bool) -> RowType:
    return RowType(tuple(Field(c.name, parse_type(c.type_text).with_nullable(c.nullable))
                         for c in table.columns
                         if c.computed is None or not physical_only))


def infer_node_changelog(node: ExecNode, inputs: list[ExecNode], modes: dict, origins: dict):
    """A node's output kinds and where each came from; the node rejects what it cannot consume."""
    input_modes = [modes[source.id] for source in inputs]
    input_origins = [origins[source.id] for source in inputs]
    node.check_input_changelog(input_modes, input_origins)
    output = node.output_changelog(input_modes)
    inherited = {kind: origin for per_input in input_origins for kind, origin in per_input.items()}
    return output, {kind: inherited.get(kind, node) for kind in output}


def check_changelog(plan: CompiledPlan) -> dict[int, frozenset[RowKind]]:
    """Re-infer a loaded plan's changelog modes; nodes reject what they cannot consume."""
    modes: dict[int, frozenset[RowKind]] = {}
    origins: dict[int, dict[RowKind, ExecNode]] = {}
    for node in plan.nodes:
        modes[node.id], origins[node.id] = infer_node_changelog(
            node, plan.inputs_of(node), modes, origins)
    return modes


def _reject_unsupported(select: exp.Select, position: Position) -> None:
    for key, construct in _UNSUPPORTED_CLAUSES.items():
        if select.args.get(key):
            raise UnsupportedSqlError(construct, position.line, position.column, position.source)
    for node in select.walk():
        in_from = isinstance(node, exp.Subquery) and isinstance(node.parent, (exp.From, exp.Join))
        nested = isinstance(node, exp.Select) and node is not select and not isinstance(
            node.parent, (exp.Subquery, exp.CTE))
        if (isinstance(node, exp.Subquery) and not in_from) or nested:
            raise UnsupportedSqlError("subquery in an expression (only in FROM and WITH)",
                                      position.line, position.column, position.source)


def _join_type(join: exp.Join, position: Position) -> JoinType:
    side = (join.side or "").upper()
    kind = (join.kind or "").upper()
    if kind in ("CROSS", "SEMI", "ANTI") or join.args.get("using") or join.method:
        label = kind or ("USING" if join.args.get("using") else join.method)
        raise UnsupportedSqlError(f"{label} join", position.line, position.column, position.source)
    return JoinType.from_sql(side)


def _join_fields(left: RowType, right: RowType, join_type: JoinType) -> tuple[list[Field], list[str]]:
    """Left fields then right fields; a clashing right name gets a numeric suffix, as in Flink.

    Time attributes do not survive the join; the padded side of an outer join is nullable.
    """
    taken, fields = set(), []
    for side, row in (("L", left), ("R", right)):
        nullable = join_type.right_outer if side == "L" else join_type.left_outer
        for f in row.fields:
            name, suffix = f.name, 0
            while name in taken:
                name, suffix = f"{f.name}{suffix}", suffix + 1
            taken.add(name)
            sql_type = f.type.with_nullable(True) if nullable else f.type
            fields.append(Field(name, sql_type))
    return fields, [f.name for f in fields]


def _column_side(column: exp.Column, left: Relation, right: Relation) -> Optional[str]:
    """'L' or 'R' when `column` names exactly one field of the two relations, else None."""
    hits = [("L", f) for f in left.scope_fields if _names(column, f)] + \
        [("R", f) for f in right.scope_fields if _names(column, f)]
    return hits[0][0] if len(hits) == 1 else None


def _names(column: exp.Column, field_: ScopeField) -> bool:
    return field_.name == column.name and (not column.table or field_.qualifier == column.table)


def _joins_both(conjunct: exp.Expression, left: Relation, right: Relation) -> bool:
    """A WHERE conjunct that an inner join of `left` and `right` can take as its condition:
    plain columns of both sides, each naming one field, and no subquery, aggregate or
    window."""
    if conjunct.find(exp.Subquery, exp.AggFunc, exp.Window) is not None:
        return False
    sides = {_column_side(column, left, right) for column in conjunct.find_all(exp.Column)}
    return sides == {"L", "R"}


def _conjuncts(condition: exp.Expression) -> list[exp.Expression]:
    condition = condition.unnest() if isinstance(condition, exp.Paren) else condition
    if isinstance(condition, exp.And):
        return _conjuncts(condition.this) + _conjuncts(condition.expression)
    return [condition]


def _dedupe(names: list[str]) -> list[str]:
    seen, result = set(), []
    for name in names:
        candidate, suffix = name, 0
        while candidate in seen:
            candidate, suffix = f"{name}{suffix}", suffix + 1
        seen.add(candidate)
        result.append(candidate)
    return result


def _calc_description(projection: list[str], names: list[str], condition: Optional[str]) -> str:
    select = ", ".join(expr.replace("`", "") if expr == f"`{name}`" else f"{expr} AS {name}"
                       for expr, name in zip(projection, names))
    return f"Calc(select=[{select}]" + (f", where=[{condition}])" if condition else ")")




def _widens(got: SqlType, want: SqlType) -> bool:
    if got.name == want.name == "DECIMAL":
        (p1, s1), (p2, s2) = got.params, want.params
        return s2 >= s1 and p2 - s2 >= p1 - s1
    return (got.name in NUMERIC_TYPES and want.name in NUMERIC_TYPES
            and NUMERIC_TYPES.index(got.name) < NUMERIC_TYPES.index(want.name))


def _cast_for_sink(expr: str, got: SqlType, target: Field, where: str) -> str:
    """Implicit casts Flink allows on INSERT: numeric widening, string lengths, timestamps."""
    want = target.type
    if (got.name, got.params) == (want.name, want.params) or \
            (got.name in STRING_TYPES and want.name in STRING_TYPES) or \
            (got.is_timestamp and want.is_timestamp):
        return expr
    if _widens(got, want):
        return f"CAST({expr} AS {want.to_spark().simpleString().upper()})"
    raise PlanningError(f"{where}: query column {expr} of type {got.text} cannot be written to "
                        f"sink column '{target.name}' of type {want.text}; add an explicit CAST")


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


def _check_python_condition(condition: str, output: RowType, where: str) -> None:
    """The join filter runs inside the Python operator; fail now if it cannot be evaluated there."""
    from ..runtime.pyeval import compile_predicate

    try:
        compile_predicate(condition, columns=output.names)
    except UnsupportedSqlError as err:
        raise UnsupportedSqlError(f"{err.construct} in the join condition at {where}") from None
