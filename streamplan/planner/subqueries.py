"""The subquery rule: a WHERE conjunct `x [NOT] IN (SELECT ...)` or `[NOT] EXISTS (SELECT ...)`
becomes a SEMI or ANTI stream-exec-join of the FROM relation and the subquery, as Flink's
subquery removal plans it (FlinkJoinType SEMI / ANTI, StreamingSemiAntiJoinOperator). Its
output is the FROM relation's row; the other conjuncts filter it as before.

* `x IN (SELECT v ...)`: SEMI, x = v a join key.
* `x NOT IN (SELECT v ...)`: ANTI with SQL's three-valued NOT IN. When x or v is nullable
  the pair is no key but the condition `x IS NULL OR v IS NULL OR x = v` (what Flink's plan
  holds, the IS NULL of a NOT NULL side left out): a NULL on the right matches every row, so
  NOT IN returns none; a NULL x matches any right row. Both NOT NULL: x = v is a key.
* `[NOT] EXISTS (SELECT ... WHERE inner = outer ...)`: SEMI / ANTI, each equality between a
  column of the subquery and one of the outer query a join key; without correlation the join
  has no keys (one constant key).

A correlated subquery may refer to the outer query only in equalities that are conjuncts of
its WHERE, and then has no GROUP BY, aggregate, DISTINCT or LIMIT; a subquery anywhere else
(under OR, in the SELECT list, ...) is refused by name.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sqlglot import exp

from ..errors import UnsupportedSqlError
from ..join_type import JoinType
from ..nodes.join import joined_names
from ..types import Field, RowType
from .common import QueryContext, Relation, _conjuncts
from .joins import _join_fields
from .scope import Scope, ScopeField
from .sources import table_row_type

SUBQUERY_HINT = ("only `x [NOT] IN (SELECT ...)` and `[NOT] EXISTS (SELECT ...)` as conjuncts "
                 "of WHERE are planned, as a SEMI or ANTI stream-exec-join")


@dataclass
class SubqueryPredicate:
    negated: bool
    needle: Optional[exp.Expression]       # x of `x IN (...)`; None for EXISTS
    select: exp.Expression


def subquery_predicate(conjunct: exp.Expression) -> Optional[SubqueryPredicate]:
    """The [NOT] IN / [NOT] EXISTS subquery a WHERE conjunct is, else None."""
    node = conjunct.unnest() if isinstance(conjunct, exp.Paren) else conjunct
    negated = isinstance(node, exp.Not)
    if negated:
        node = node.this.unnest() if isinstance(node.this, exp.Paren) else node.this
    if isinstance(node, exp.In) and isinstance(node.args.get("query"), exp.Subquery):
        return SubqueryPredicate(negated, node.this, node.args["query"].this)
    if isinstance(node, exp.Exists):
        return SubqueryPredicate(negated, None, node.this)
    return None


def planned_subquery_nodes(select: exp.Select) -> set[int]:
    """ids of the SELECTs (and their wrapping subqueries) this rule plans: those of the
    WHERE conjuncts that are subquery predicates."""
    where = select.args.get("where")
    ids: set[int] = set()
    for conjunct in _conjuncts(where.this) if where is not None else []:
        predicate = subquery_predicate(conjunct)
        if predicate is not None:
            ids.add(id(predicate.select))
            if isinstance(predicate.select.parent, exp.Subquery):
                ids.add(id(predicate.select.parent))
    return ids


class SubqueryRules:
    """Semi and anti joins of WHERE subqueries; a mixin of PlanBuilder (builder.py)."""

    def _subquery_joins(self, relation: Relation, conjuncts: list[exp.Expression],
                        ctx: QueryContext, top_level: bool
                        ) -> tuple[Relation, list[exp.Expression]]:
        """`relation` semi- or anti-joined with each subquery predicate among `conjuncts`, in
        order; the conjuncts left."""
        rest = []
        for conjunct in conjuncts:
            predicate = subquery_predicate(conjunct)
            if predicate is None:
                rest.append(conjunct)
            else:
                relation = self._subquery_join(relation, predicate, ctx, top_level)
        return relation, rest

    def _subquery_join(self, left: Relation, predicate: SubqueryPredicate, ctx: QueryContext,
                       top_level: bool) -> Relation:
        where = ctx.where
        shown = f"{'NOT ' if predicate.negated else ''}" + (
            "IN (SELECT ...)" if predicate.needle is not None else "EXISTS (SELECT ...)")

        def refuse(construct: str) -> UnsupportedSqlError:
            return UnsupportedSqlError(f"{construct} in {shown}", ctx.position.line,
                                       ctx.position.column, ctx.position.source,
                                       hint=f"({SUBQUERY_HINT})")

        select = predicate.select
        if not isinstance(select, exp.Select):
            raise refuse(f"{type(select).__name__.upper()} query")
        if predicate.needle is not None and not isinstance(predicate.needle, exp.Column):
            raise refuse(f"'{predicate.needle.sql(dialect='spark')}' on the left of IN (only a "
                         f"column; a row or an expression needs a projection before the join)")
        value_count = 1 if predicate.needle is not None else 0
        if value_count and len(select.expressions) != 1:
            raise refuse(f"a subquery of {len(select.expressions)} columns (IN needs one)")
        correlations, inner = self._decorrelate(select, left, ctx, refuse, value_count)
        scope = Scope(left.scope_fields, where)
        right = self._plan_select(inner, ctx)
        left_row, right_row = left.node.row_type, right.node.row_type
        names = joined_names(left_row.names, right_row.names)
        joined = RowType(tuple(_join_fields(left_row, right_row, JoinType.INNER)[0]))

        def column(name: str) -> exp.Column:
            return exp.column(exp.to_identifier(name, quoted=True))

        left_keys, right_keys, shown_keys, non_equi = [], [], [], []
        pairs = [(left_row.index(scope.resolve(outer).name), value_count + index)
                 for index, (outer, _) in enumerate(correlations)]
        if predicate.needle is not None:
            needle = left_row.index(scope.resolve(predicate.needle).name)
            needle_type, value_type = left_row.fields[needle].type, right_row.fields[0].type
            if predicate.negated and (needle_type.nullable or value_type.nullable):
                a, b = column(names[needle]), column(names[len(left_row.fields)])
                parts = ([exp.Is(this=a.copy(), expression=exp.Null())] if needle_type.nullable
                         else []) + ([exp.Is(this=b.copy(), expression=exp.Null())]
                                     if value_type.nullable else []) + [
                    exp.Paren(this=exp.EQ(this=a, expression=b))]
                condition = parts[0]
                for part in parts[1:]:
                    condition = exp.Or(this=condition, expression=part)
                non_equi.append(exp.Paren(this=condition))
            else:
                pairs.insert(0, (needle, 0))
        for left_index, right_index in pairs:
            left_keys.append(left_index)
            right_keys.append(right_index)
            shown_keys.append(exp.EQ(this=column(names[left_index]),
                                     expression=column(names[len(left_row.fields) + right_index])))
        non_equi_sql = None
        if non_equi:
            non_equi_sql = self._sql(exp.and_(*non_equi), joined, where)
            self.types.check_condition(joined, non_equi_sql, where)
        shown_condition = exp.and_(*shown_keys, *non_equi) if shown_keys or non_equi else exp.true()
        join_type = JoinType.ANTI if predicate.negated else JoinType.SEMI
        # the left row, its time attributes materialized as by any regular join
        output = RowType(tuple(Field(f.name, f.type) for f in left_row.fields))
        window = self._window_join_keys(left, right, left_keys, right_keys)
        if window is not None:                 # both sides windowed alike (window_joins.py)
            node = self._add_window_join(left, right, join_type, window, non_equi_sql, output,
                                         list(output.names))
        else:
            node = self._regular_join(left, right, join_type, left_keys, right_keys,
                                      non_equi_sql, shown_condition, output, output.names, ctx,
                                      top_level)
        return Relation(node, [ScopeField(f.qualifier, f.name, node.row_type.fields[i])
                               for i, f in enumerate(left.scope_fields)], left.names)

    def _decorrelate(self, select: exp.Select, outer: Relation, ctx: QueryContext, refuse,
                     value_count: int) -> tuple[list[tuple[exp.Column, exp.Column]], exp.Select]:
        """(outer column, inner column) of each correlating equality of the subquery's WHERE,
        and the subquery to plan: without them, selecting its first `value_count` items (an
        IN's value) and then the inner columns they compare."""
        inner_qualifiers, inner_names = self._inner_scope(select, ctx)

        def is_outer(column: exp.Column) -> bool:
            if column.table:
                return column.table not in inner_qualifiers and any(
                    f.qualifier == column.table and f.name == column.name
                    for f in outer.scope_fields)
            return (inner_names is not None and column.name not in inner_names
                    and any(f.name == column.name for f in outer.scope_fields))

        own_where = select.args.get("where")
        conjuncts = _conjuncts(own_where.this) if own_where is not None else []
        correlations, kept = [], []
        for conjunct in conjuncts:
            outer_columns = [c for c in conjunct.find_all(exp.Column) if is_outer(c)]
            if not outer_columns:
                kept.append(conjunct)
                continue
            sides = (conjunct.this, conjunct.expression) if isinstance(conjunct, exp.EQ) else ()
            if (len(sides) == 2 and all(isinstance(s, exp.Column) for s in sides)
                    and is_outer(sides[0]) != is_outer(sides[1])):
                correlations.append(sides if is_outer(sides[0]) else sides[::-1])
                continue
            raise refuse(f"the correlated condition '{conjunct.sql(dialect='spark')}' (only "
                         f"equalities between a column of the subquery and one of the outer "
                         f"query; others need a join's non-equi condition over both)")
        stray = [c for item in select.expressions for c in item.find_all(exp.Column)
                 if is_outer(c)]
        if stray:
            raise refuse(f"the outer column '{stray[0].sql(dialect='spark')}' in the subquery's "
                         f"SELECT list")
        if not correlations:
            return [], select
        for key, construct in (("group", "GROUP BY"), ("having", "HAVING"),
                               ("distinct", "DISTINCT"), ("limit", "LIMIT")):
            if select.args.get(key):
                raise refuse(f"{construct} in a correlated subquery")
        if any(isinstance(node, exp.AggFunc) for item in select.expressions
               for node in item.walk()):
            raise refuse("an aggregate in a correlated subquery")
        inner = select.copy()
        inner.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
        inner.set("expressions", list(inner.expressions)[:value_count]
                  + [column.copy() for _, column in correlations])
        return correlations, inner

    def _inner_scope(self, select: exp.Select, ctx: QueryContext
                     ) -> tuple[set[str], Optional[set[str]]]:
        """The qualifiers of the subquery's FROM and the column names they hold (None when
        one of them is a subquery or CTE whose columns are not listed by name)."""
        source = select.args.get("from_") or select.args.get("from")
        items = ([source.this] if source is not None else []) + [
            join.this for join in select.args.get("joins") or []]
        qualifiers: set[str] = set()
        names: Optional[set[str]] = set()
        for item in items:
            qualifiers.add(item.alias_or_name)
            if isinstance(item, exp.Table):
                qualifiers.add(item.name)
                query = ctx.ctes.get(item.name)
                if query is None and item.name in self.catalog:
                    columns = table_row_type(self.catalog[item.name], physical_only=False).names
                else:
                    columns = _listed_names(query)
            else:
                columns = _listed_names(item.this if isinstance(item, exp.Subquery) else None)
            names = None if names is None or columns is None else names | set(columns)
        return qualifiers, names


def _listed_names(query: Optional[exp.Expression]) -> Optional[list[str]]:
    if not isinstance(query, exp.Select):
        return None
    names = []
    for item in query.expressions:
        if isinstance(item, exp.Star) or (isinstance(item, exp.Column)
                                          and isinstance(item.this, exp.Star)):
            return None
        names.append(item.alias_or_name)
    return names
