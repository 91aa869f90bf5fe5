"""The query-block rule: one SELECT planned from FROM (tables, subqueries, CTEs and joins,
with WHERE conjuncts over both sides of an inner join pushed into it, as Flink's
FlinkFilterJoinRule does), then WHERE and the projection as a calc, cast implicitly to the
sink's column types at the top. GROUP BY and ROW_NUMBER blocks are handed to the aggregate
and rank rules; clauses the planner cannot plan are rejected here by name.
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from ..errors import PlanningError, UnsupportedSqlError
from ..sql.ast import Position
from ..types import NUMERIC_TYPES, STRING_TYPES, Field, RowType, SqlType, quote_identifier
from .field_access import field_name
from .group_windows import rewrite_group_window
from .common import QueryContext, Relation, _conjuncts, _dedupe
from .joins import _joins_both
from .subqueries import planned_subquery_nodes, subquery_predicate
from .scope import Scope, ScopeField, plain_column
from .overs import over_windows
from .temporal_functions import versioned_table_item
from .temporal_joins import temporal_version
from .using_joins import UsingExpansion, is_using_join, using_join
from .windows import window_tvf_call


# Clauses the planner cannot plan, with the exec node they would need.
_UNSUPPORTED_CLAUSES = {
    "qualify": "QUALIFY (needs stream-exec-rank)",
    "laterals": "LATERAL VIEW",
}


class SelectRules:
    """Query blocks, projections and FROM; a mixin of PlanBuilder (builder.py)."""

    def _plan_select(self, select: exp.Expression, ctx: QueryContext,
                     sink_row: Optional[RowType] = None, top_level: bool = False) -> Relation:
        """One query block: FROM (tables, subqueries, CTEs, joins), then WHERE and the
        projection, or WHERE, GROUP BY, aggregates, HAVING and the projection. A UNION goes
        to the union rule (unions.py), a block with LIMIT to the limit rule (limits.py)."""
        while isinstance(select, exp.Subquery) and not select.alias:
            select = select.this
        if isinstance(select, exp.Union):
            return self._plan_union(select, ctx, sink_row, top_level)
        if isinstance(select, (exp.Intersect, exp.Except)):
            return self._plan_intersect_except(select, ctx, sink_row, top_level)
        if not isinstance(select, exp.Select):
            kind = type(select).__name__.upper()
            raise UnsupportedSqlError(f"{kind} query (only SELECT)", ctx.position.line,
                                      ctx.position.column, ctx.position.source)
        if any(select.args.get(clause) for clause in ("order", "limit", "offset")):
            return self._plan_limit(select, ctx, sink_row, top_level)     # limits.py
        if select.args.get("distinct"):
            return self._plan_distinct(select, ctx, sink_row, top_level)
        select = rewrite_group_window(select, ctx.position)     # GROUP BY TUMBLE(ts, ...)
        _reject_unsupported(select, ctx.position, ranked=self._ranked_source(select, ctx))
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
                expansion = UsingExpansion()
                relation, condition = self._plan_from(select, condition, ctx, top_level,
                                                      expansion)
                select = expansion.expand(select)      # USING / NATURAL: using_joins.py
            if over_windows(select):
                return self._plan_over(select, self._without_unused_composites(relation, select, ctx),
                                       condition, ctx, sink_row, top_level)
            if select.args.get("group") or select.args.get("having") or _has_aggregates(select, self.functions):
                return self._plan_aggregate(select, relation, condition, ctx, sink_row, top_level)
            if relation.window is not None:    # no aggregate consumes the window
                relation = self._window_table_function(relation, ctx)
            return self._plan_projection(select.expressions, relation, condition, ctx, sink_row)
        finally:
            ctx.ctes = outer_ctes

    def _plan_distinct(self, select: exp.Select, ctx: QueryContext, sink_row: Optional[RowType],
                       top_level: bool) -> Relation:
        """SELECT DISTINCT as Flink plans it (Calcite's Aggregate over the projection): the
        query block without DISTINCT, then a group aggregate grouped by all its columns."""
        position = ctx.position
        if select.args["distinct"].args.get("on") is not None:
            raise UnsupportedSqlError("SELECT DISTINCT ON (...)", position.line, position.column,
                                      position.source)
        if (select.args.get("group") or select.args.get("having")
                or _has_aggregates(select, self.functions) or over_windows(select)):
            raise UnsupportedSqlError(
                "SELECT DISTINCT with GROUP BY, HAVING, aggregates or OVER (a distinct of "
                "computed results: write the query as a subquery in FROM and SELECT DISTINCT "
                "from it)", position.line, position.column, position.source)
        inner = select.copy()
        inner.set("distinct", None)
        relation = self._plan_select(inner, ctx, None, top_level)
        columns = [exp.column(exp.to_identifier(name, quoted=True))
                   for name in relation.node.row_type.names]
        grouped = exp.Select(expressions=columns).group_by(*(c.copy() for c in columns),
                                                           copy=False)
        return self._plan_aggregate(grouped, relation, None, ctx, sink_row, top_level)

    def _plan_projection(self, items: list[exp.Expression], relation: Relation,
                         condition: Optional[exp.Expression], ctx: QueryContext,
                         sink_row: Optional[RowType]) -> Relation:
        """A calc of `items` filtered by `condition` (none when it is the identity); with a
        sink row, the columns are cast implicitly to the sink's types."""
        where = ctx.where
        scope = Scope(relation.scope_fields, where)
        input_row = relation.node.row_type
        projection, names = self._projection(items, scope, input_row, ctx)
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
        rowtime = (_kept_rowtime(projection, names, relation.node)
                   if sink_row is None else None)
        node = self._calc(relation.node, projection, names, condition_sql, where, rowtime=rowtime)
        fields = node.row_type.fields if node is not relation.node else input_row.fields
        return Relation(node, [ScopeField("", name, f) for name, f in zip(names, fields)])

    def _projection(self, items: list[exp.Expression], scope: Scope, input_row: RowType,
                    ctx: QueryContext) -> tuple[list[str], list[str]]:
        where, position = ctx.where, ctx.position
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
                raise UnsupportedSqlError("OVER window (needs stream-exec-over-aggregate)",
                                          position.line, position.column, position.source)
            projection.append(self._sql(scope.rewrite(target), input_row, where))
            if isinstance(item, exp.Alias):
                names.append(item.alias)
            elif plain_column(target):
                names.append(target.name)
            else:
                names.append(field_name(target) or f"EXPR${index}")
        return projection, _dedupe(names)

    # --- FROM: tables, subqueries, CTEs, joins ------------------------------------------------
    def _plan_from(self, select: exp.Select, condition: Optional[exp.Expression],
                   ctx: QueryContext, top_level: bool,
                   expansion: Optional[UsingExpansion] = None
                   ) -> tuple[Relation, Optional[exp.Expression]]:
        """The FROM relation, and what is left of the WHERE `condition`: as Flink's
        FlinkFilterJoinRule does, a WHERE conjunct over both sides of an inner join (or a
        comma join) joins them, so time bounds written in WHERE make an interval join. A
        USING or NATURAL join is planned as its ON join; what its common columns mean to the
        SELECT list is recorded in `expansion` (using_joins.py), which the caller applies."""
        source = select.args.get("from_") or select.args.get("from")
        if source is None:
            raise UnsupportedSqlError("SELECT without FROM", ctx.position.line,
                                      ctx.position.column, ctx.position.source)
        relation = self._relation(source.this, ctx)
        if expansion is None and any(is_using_join(j) for j in select.args.get("joins") or []):
            raise UnsupportedSqlError("JOIN ... USING or NATURAL JOIN under ORDER BY without "
                                      "LIMIT (write the join with ON)", ctx.position.line,
                                      ctx.position.column, ctx.position.source)
        expansion = expansion or UsingExpansion()
        conjuncts = _conjuncts(condition) if condition is not None else []
        subqueries = [c for c in conjuncts if subquery_predicate(c) is not None]
        conjuncts = [c for c in conjuncts if subquery_predicate(c) is None]
        for join in select.args.get("joins") or []:
            join = versioned_table_item(join, self.temporal_functions) or join
            if temporal_version(join.this) is not None:      # temporal_joins.py
                pushed = [c for c in conjuncts if not join.side and _joins_both_temporal(
                    c, relation, join.this)]
                conjuncts = [c for c in conjuncts if all(c is not p for p in pushed)]
                relation = self._temporal_join(relation, join, ctx, pushed, select)
                # the versioned table's columns (the left side may have lost unused composite
                # columns to the calc in front of the join)
                versioned = join.this.alias_or_name
                expansion.joined([f for f in relation.scope_fields if f.qualifier == versioned])
                continue
            if isinstance(join.this, (exp.Lateral, exp.Unnest)):   # LATERAL TABLE(f(x)),
                before = len(relation.scope_fields)
                relation = self._correlate(relation, join, ctx)      # UNNEST: correlates.py
                expansion.joined(relation.scope_fields[before:])
                continue
            right = self._relation(join.this, ctx)
            # a window TVF joined is its window table function's rows (a window join when
            # the condition pairs the windows: window_joins.py)
            if relation.window is not None:
                relation = self._window_table_function(relation, ctx)
            if right.window is not None:
                right = self._window_table_function(right, ctx)
            if is_using_join(join):            # its ON join (using_joins.py)
                join = using_join(join, relation, right, expansion, ctx)
            else:
                # (a USING or NATURAL join's condition names columns the SELECT need not)
                relation = self._without_unused_composites(relation, select, ctx)
                right = self._without_unused_composites(right, select, ctx)
                expansion.joined(right.scope_fields)
            pushed = []
            if not join.side and (join.kind or "").upper() in ("", "INNER", "CROSS") \
                    and not join.args.get("using") and not join.method:
                pushed = [c for c in conjuncts if _joins_both(c, relation, right)]
                conjuncts = [c for c in conjuncts if all(c is not p for p in pushed)]
                if pushed and (join.kind or "").upper() == "CROSS":
                    join = join.copy()         # a cross (or comma) join filtered in WHERE
                    join.set("kind", None)     # is an inner join, as in Flink
            relation = self._join(relation, right, join, ctx, top_level, pushed)
        # [NOT] IN / EXISTS subqueries: semi and anti joins of what FROM joined (subqueries.py)
        relation, _ = self._subquery_joins(relation, subqueries, ctx, top_level)
        return relation, (exp.and_(*conjuncts) if conjuncts else None)

    def _relation(self, item: exp.Expression, ctx: QueryContext) -> Relation:
        where = ctx.where
        if isinstance(item, exp.Subquery):
            relation = self._plan_select(item.this, ctx)
            alias = item.alias or ""
            return Relation(relation.node, [ScopeField(alias, f.name, f.field)
                                            for f in relation.scope_fields], (alias,) if alias else ())
        tvf = window_tvf_call(item)
        if tvf is not None:
            return self._window_relation(item, tvf, ctx)
        if isinstance(item, exp.Values):
            return self._plan_values(item, ctx)            # values_rule.py
        if temporal_version(item) is not None:
            raise UnsupportedSqlError(f"FOR SYSTEM_TIME AS OF on '{item.name}' outside a join "
                                      f"(a temporal table is the right side of a JOIN)",
                                      ctx.position.line, ctx.position.column, ctx.position.source)
        if isinstance(item, (exp.Lateral, exp.Unnest)):
            raise UnsupportedSqlError(_correlate_refusal(item, self.functions), ctx.position.line,
                                      ctx.position.column, ctx.position.source)
        if not isinstance(item, exp.Table) or not isinstance(item.this, exp.Identifier):
            raise UnsupportedSqlError(f"{type(item).__name__} in FROM (tables, subqueries, "
                                      f"CTEs and VALUES are supported)")
        alias = item.alias or item.name
        names = tuple(dict.fromkeys((alias, item.name)))
        if item.name in ctx.ctes:
            relation = self._plan_select(ctx.ctes[item.name], ctx)
            return Relation(relation.node, [ScopeField(alias, f.name, f.field)
                                            for f in relation.scope_fields], names)
        table = self._table(item.name, where, role="source")
        node = self._scan(table)
        return Relation(node, [ScopeField(alias, f.name, f) for f in node.row_type.fields], names)


def _correlate_refusal(item: exp.Expression, functions) -> str:
    """UNNEST, and a LATERAL that is not joined to rows before it."""
    if isinstance(item, exp.Unnest):
        return ("UNNEST as the first FROM item (it joins the rows of the FROM items before it: "
                "FROM t CROSS JOIN UNNEST(t.arr) AS T(x))")
    return ("LATERAL as the first FROM item (a correlate joins a table function call to the "
            "rows of the FROM items before it: FROM t, LATERAL TABLE(f(t.x)) AS T(y))")


def _reject_unsupported(select: exp.Select, position: Position, ranked=None) -> None:
    for key, construct in _UNSUPPORTED_CLAUSES.items():
        if select.args.get(key):
            raise UnsupportedSqlError(construct, position.line, position.column, position.source)
    # WHERE's [NOT] IN / EXISTS conjuncts become semi and anti joins (their SELECTs are
    # checked when planned); not over a ranked FROM, whose WHERE bounds the row number.
    planned = set() if ranked is not None else planned_subquery_nodes(select)
    for node in select.walk(prune=lambda n: id(n) in planned):
        if id(node) in planned:
            continue
        in_from = isinstance(node, exp.Subquery) and isinstance(node.parent, (exp.From, exp.Join))
        nested = isinstance(node, exp.Select) and node is not select and not isinstance(
            node.parent, (exp.Subquery, exp.CTE, exp.SetOperation))
        if (isinstance(node, exp.Subquery) and not in_from) or nested:
            shown = (node.parent if isinstance(node.parent, (exp.In, exp.Exists)) else node)
            raise UnsupportedSqlError(
                f"subquery in an expression: '{shown.sql(dialect='spark')[:80]}' (only in FROM "
                f"and WITH, and as a WHERE conjunct [NOT] IN (SELECT ...) or [NOT] EXISTS "
                f"(SELECT ...), a SEMI or ANTI stream-exec-join; elsewhere it needs Flink's "
                f"subquery decorrelation into a join)",
                position.line, position.column, position.source)


def _has_aggregates(select: exp.Select, functions) -> bool:
    """Whether the SELECT list aggregates: an aggregate under OVER (...) is a window function,
    which the projection refuses by name (stream-exec-over-aggregate), not a group aggregate."""
    from .aggregates import is_aggregate

    return any(is_aggregate(node, functions) and not isinstance(node.parent, exp.Window)
               for item in select.expressions for node in item.walk())


def _widens(got: SqlType, want: SqlType) -> bool:
    if got.name == want.name == "DECIMAL":
        (p1, s1), (p2, s2) = got.params, want.params
        return s2 >= s1 and p2 - s2 >= p1 - s1
    return (got.name in NUMERIC_TYPES and want.name in NUMERIC_TYPES
            and NUMERIC_TYPES.index(got.name) < NUMERIC_TYPES.index(want.name))


def _cast_for_sink(expr: str, got: SqlType, target: Field, where: str) -> str:
    """Implicit casts Flink allows on INSERT: numeric widening, string lengths, timestamps,
    and any numeric into a DECIMAL (LogicalTypeCasts: DECIMAL is implicit from the NUMERIC
    family, whatever the precision), where a value that does not fit becomes NULL as Flink's
    decimal cast makes it (TRY_CAST)."""
    want = target.type
    if (got.name, got.params) == (want.name, want.params) or \
            (got.name in STRING_TYPES and want.name in STRING_TYPES) or \
            (got.is_timestamp and want.is_timestamp):
        return expr
    spark_type = want.to_spark().simpleString().upper()
    if _widens(got, want):
        return f"CAST({expr} AS {spark_type})"
    if want.name == "DECIMAL" and got.name in NUMERIC_TYPES:
        return f"TRY_CAST({expr} AS {spark_type})"
    raise PlanningError(f"{where}: query column {expr} of type {got.text} cannot be written to "
                        f"sink column '{target.name}' of type {want.text}; add an explicit CAST")


def _joins_both_temporal(conjunct: exp.Expression, left: Relation, right: exp.Table) -> bool:
    """A WHERE conjunct an inner temporal join takes into its condition: it names the left
    relation and the temporal table (by alias or name), and holds no subquery."""
    if conjunct.find(exp.Subquery, exp.Exists, exp.AggFunc, exp.Window) is not None:
        return False
    right_names = {right.alias or right.name, right.name}
    tables = {column.table for column in conjunct.find_all(exp.Column)}
    return bool(tables & right_names) and bool(tables & set(left.names))


def _kept_rowtime(projection: list[str], names: list[str], node) -> Optional[str]:
    """The output name that stays the rowtime attribute of a subquery's (a CTE's, a view's)
    projection or filter: as in Flink, the input's rowtime attribute selected as it is (not
    cast, not computed), its first such column, so a window, interval or temporal join over
    the subquery still has its time. Not past a window TVF: its time column is a plain
    timestamp in Flink (window_time is the window's time)."""
    from ..nodes.window_table_function import StreamExecWindowTableFunction

    if isinstance(node, StreamExecWindowTableFunction):
        return None
    for text, name in zip(projection, names):
        field = next((f for f in node.row_type.fields if quote_identifier(f.name) == text), None)
        if field is not None and field.rowtime:
            return name
    return None
