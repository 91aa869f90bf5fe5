"""INSERT INTO ... SELECT statements to a compiled plan of exec nodes.

Supported shape: one table, or an interval join of two tables, with projection and WHERE.
Every other construct is rejected by name, with the exec node it would need.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from sqlglot import exp

from ..changelog import RowKind, mode_names
from ..errors import PlanningError, UnsupportedSqlError
from ..join_type import JoinType
from ..nodes import REGISTRY, ExecNode
from ..nodes.metadata import node_name
from ..nodes.calc import StreamExecCalc
from ..nodes.common import TableSpec
from ..nodes.interval_join import IntervalJoinSpec, JoinSpec, StreamExecIntervalJoin, WindowBounds
from ..nodes.sink import StreamExecSink
from ..nodes.source_scan import StreamExecTableSourceScan
from ..nodes.watermark_assigner import StreamExecWatermarkAssigner
from ..durations import format_duration_ms
from ..options import Configuration
from ..plan import CompiledPlan, Edge
from ..sql.ast import CreateTable, Insert, Position
from ..types import (INTEGRAL_TYPES, NUMERIC_TYPES, STRING_TYPES, Field, RowType, SqlType,
                     parse_type)
from .hints import early_fire_from_hints
from .interval_bounds import Bounds, add_to_bounds, time_predicate
from .scope import Scope, ScopeField, plain_column, spark_sql
from .type_resolver import SparkTypeResolver

VALUES_OPTIONS = {"connector", "changelog-mode", "path", "sink-insert-only"}

# Clauses the planner cannot plan, with the exec node they would need.
_UNSUPPORTED_CLAUSES = {
    "group": "GROUP BY (needs stream-exec-group-aggregate)",
    "having": "HAVING (needs stream-exec-group-aggregate)",
    "order": "ORDER BY (needs stream-exec-rank / sort)",
    "limit": "LIMIT (needs stream-exec-limit)",
    "distinct": "SELECT DISTINCT (needs stream-exec-group-aggregate)",
    "with_": "WITH (common table expressions)",
    "qualify": "QUALIFY (needs stream-exec-rank)",
    "laterals": "LATERAL VIEW",
    "windows": "WINDOW clause (needs stream-exec-over-aggregate)",
}


@dataclass
class Relation:
    """The output of a sub-plan: its node and the columns the query can name."""

    node: ExecNode
    scope_fields: list[ScopeField]


@dataclass
class PlanBuilder:
    catalog: dict[str, CreateTable]
    config: Configuration
    types: SparkTypeResolver
    nodes: list[ExecNode] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    modes: dict[int, frozenset[RowKind]] = field(default_factory=dict)
    origins: dict[int, dict[RowKind, ExecNode]] = field(default_factory=dict)

    # --- graph helpers --------------------------------------------------------------------
    def add(self, kind: type, inputs: list[ExecNode], **spec) -> ExecNode:
        """A node of `kind`'s exec node at its latest version, served by the class the
        registry holds for that version (a newer version may live in another class)."""
        cls, meta = REGISTRY.latest_class(node_name(kind))
        node = cls(id=len(self.nodes) + 1, type=meta.type_id,
                   configuration=self.config.persisted_for(meta.consumed_options),
                   input_properties=[{} for _ in inputs], **spec)
        node.read_options(node.options_view(self.config))   # an undeclared read fails now
        self.modes[node.id], self.origins[node.id] = infer_node_changelog(
            node, inputs, self.modes, self.origins)
        self.nodes.append(node)
        self.edges.extend(Edge(source.id, node.id) for source in inputs)
        return node

    def plan(self, inserts: list[Insert]) -> CompiledPlan:
        for insert in inserts:
            self._plan_insert(insert)
        return CompiledPlan(self.nodes, self.edges)

    # --- statements -----------------------------------------------------------------------
    def _plan_insert(self, insert: Insert) -> None:
        where = str(insert.position)
        select = insert.query
        _reject_unsupported(select, insert.position)
        sink_table = self._table(insert.target, where, role="sink")
        relation, join = self._plan_from(select, insert, where)
        scope = Scope(relation.scope_fields, where)
        projection, names = self._projection(select, scope, relation.node.row_type, where)
        condition = select.args.get("where")
        input_row = relation.node.row_type
        condition_sql = (self._sql(scope.rewrite(condition.this), input_row, where)
                         if condition else None)
        sink_row = table_row_type(sink_table, physical_only=True)
        if len(projection) != len(sink_row.fields):
            raise PlanningError(
                f"{where}: column count of the query ({len(projection)}) and of sink "
                f"'{sink_table.name}' ({len(sink_row.fields)}: {', '.join(sink_row.names)}) differ")
        if condition_sql is not None:
            self.types.check_condition(input_row, condition_sql, where)
        result_types = self.types.resolve(input_row, projection, None, where)
        projection = [_cast_for_sink(expr, got, target, where)
                      for expr, got, target in zip(projection, result_types, sink_row.fields)]
        node = relation.node
        identity = projection == [f"`{n}`" for n in input_row.names] and condition_sql is None
        if not identity:
            types = self.types.resolve(input_row, projection, None, where)
            node = self.add(StreamExecCalc, [node], projection=projection, condition=condition_sql,
                            output_type=RowType(tuple(map(Field, names, types))).text,
                            description=_calc_description(projection, names, condition_sql))
        self.add(StreamExecSink, [node],
                 table=TableSpec(identifier=sink_table.name, options=dict(sink_table.options),
                                 primary_key=list(sink_table.primary_key)
                                 if sink_table.primary_key else None),
                 input_changelog_mode=mode_names(self.modes[node.id]), output_type=sink_row.text,
                 description=f"Sink(table=[{sink_table.name}], fields=[{', '.join(sink_row.names)}])")

    def _sql(self, expression: exp.Expression, input_row: RowType, where: str) -> str:
        """Spark SQL text of a resolved expression, with Flink's integer division."""
        return spark_sql(integer_division(expression, input_row, self.types, where))

    def _projection(self, select: exp.Select, scope: Scope, input_row: RowType,
                    where: str) -> tuple[list[str], list[str]]:
        projection, names = [], []
        for index, item in enumerate(select.expressions):
            target = item.this if isinstance(item, exp.Alias) else item
            if isinstance(target, exp.Star) or (isinstance(target, exp.Column)
                                                and isinstance(target.this, exp.Star)):
                qualifier = target.table if isinstance(target, exp.Column) else None
                for f in scope.star(qualifier or None):
                    projection.append(f"`{f.name}`")
                    names.append(f.name)
                continue
            if any(isinstance(node, exp.AggFunc) for node in target.walk()):
                raise UnsupportedSqlError("aggregate function (needs stream-exec-group-aggregate)",
                                          hint="only projections and filters are supported here")
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

    # --- FROM: tables and interval joins ----------------------------------------------------
    def _plan_from(self, select: exp.Select, insert: Insert, where: str):
        source = select.args.get("from_") or select.args.get("from")
        if source is None:
            raise UnsupportedSqlError("SELECT without FROM", insert.position.line,
                                      insert.position.column, insert.position.source)
        joins = select.args.get("joins") or []
        left = self._relation(source.this, where)
        if not joins:
            early = early_fire_from_hints(insert.hints, has_join=False, join_is_event_time=True)
            assert early is None
            return left, None
        if len(joins) > 1:
            raise UnsupportedSqlError("a join of more than two tables", insert.position.line,
                                      insert.position.column, insert.position.source)
        join = joins[0]
        right = self._relation(join.this, where)
        return self._interval_join(left, right, join, insert, where), join

    def _relation(self, item: exp.Expression, where: str) -> Relation:
        if not isinstance(item, exp.Table) or not isinstance(item.this, exp.Identifier):
            kind = "subquery" if isinstance(item, exp.Subquery) else type(item).__name__
            raise UnsupportedSqlError(f"{kind} in FROM (only table names are supported)")
        table = self._table(item.name, where, role="source")
        alias = item.alias or item.name
        node = self._scan(table)
        return Relation(node, [ScopeField(alias, f.name, f) for f in node.row_type.fields])

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
        unknown = sorted(set(table.options) - VALUES_OPTIONS)
        if unknown:
            raise PlanningError(f"{table.position}: table '{name}': unsupported option(s) "
                                f"{', '.join(unknown)}; the values connector takes "
                                f"{', '.join(sorted(VALUES_OPTIONS))}")
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
            projection = [f"`{c.name}`" if c.computed is None
                          else self._sql(c.computed, physical, where) for c in table.columns]
            names = [c.name for c in table.columns]
            types = self.types.resolve(physical, projection, None, where)
            row = RowType(tuple(Field(n, t) for n, t in zip(names, types)))
            node = self.add(StreamExecCalc, [node], projection=projection, condition=None,
                            output_type=row.text,
                            description=_calc_description(projection, names, None))
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

    def _interval_join(self, left: Relation, right: Relation, join: exp.Join, insert: Insert,
                       where: str) -> Relation:
        join_type = _join_type(join, insert.position)
        scope = Scope(left.scope_fields + right.scope_fields, where)
        left_names = {id(f) for f in left.scope_fields}
        left_row, right_row = left.node.row_type, right.node.row_type
        condition = join.args.get("on")
        if condition is None:
            raise UnsupportedSqlError("join without ON condition (needs stream-exec-join)",
                                      insert.position.line, insert.position.column)

        def side_of(column: exp.Column) -> Optional[str]:
            hits = [f for f in scope.fields if f.name == column.name
                    and (not column.table or f.qualifier == column.table)]
            return ("L" if id(hits[0]) in left_names else "R") if len(hits) == 1 else None

        def is_time_column(column: exp.Column) -> Optional[str]:
            side = side_of(column)
            if side is None:
                return None
            field = scope.resolve(column)
            row = left_row if side == "L" else right_row
            return side if row.field(field.name).rowtime else None

        left_keys, right_keys, remaining = [], [], []
        bounds = Bounds()
        for conjunct in _conjuncts(condition):
            predicates = time_predicate(conjunct, is_time_column)
            if predicates is not None:
                add_to_bounds(bounds, predicates, where)
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
        if bounds.lower is None or bounds.upper is None:
            missing = "lower" if bounds.lower is None else "upper"
            raise UnsupportedSqlError(
                f"regular join (needs stream-exec-join): the ON condition has no {missing} time "
                f"bound between the rowtime attributes of both tables",
                insert.position.line, insert.position.column, insert.position.source,
                hint="Write an interval join, e.g. a.t BETWEEN b.t - INTERVAL '5' SECOND AND b.t.")
        early = early_fire_from_hints(insert.hints, has_join=True, join_is_event_time=True)
        out_fields, renamed = _join_fields(left_row, right_row, join_type)
        out_scope = [ScopeField(sf.qualifier, sf.name, out_fields[i])
                     for i, sf in enumerate(left.scope_fields + right.scope_fields)]
        output = RowType(tuple(out_fields))
        non_equi = None
        if remaining:
            joined = exp.and_(*remaining) if len(remaining) > 1 else remaining[0]
            non_equi = self._sql(Scope(out_scope, where).rewrite(joined), output, where)
            self.types.check_condition(output, non_equi, where)
            _check_python_condition(non_equi, output, where)
        spec = IntervalJoinSpec(
            join_spec=JoinSpec(join_type=join_type.value, left_keys=left_keys, right_keys=right_keys,
                               filter_nulls=[True] * len(left_keys), non_equi_condition=non_equi),
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
        node = self.add(StreamExecIntervalJoin, [left.node, right.node], interval_join_spec=spec,
                        early_fire_delay=early.delay if early else None,
                        early_fire_time_mode=early.time_mode if early else None,
                        output_type=output.text, description=description)
        return Relation(node, out_scope)




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
        if isinstance(node, exp.Subquery) or (isinstance(node, exp.Select) and node is not select):
            raise UnsupportedSqlError("subquery", position.line, position.column, position.source)


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
