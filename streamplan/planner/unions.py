"""The set-operation rule: `q1 UNION ALL q2 [UNION ALL ...]` becomes one union node over the
queries' plans (Calcite merges a chain of unions of one kind into one, as Flink's
UnionMergeRule), each input cast to the union's column types first; `UNION` (distinct) is
that union under a group aggregate on every column, as Flink plans it (Union(all=[true]) then
GroupAggregate(groupBy=[all columns])). Column names are the first query's; each column's
type is the least restrictive of the queries' (Calcite's leastRestrictive): nullable when
any is, numbers widened, strings to the longest.

`q1 INTERSECT q2` and `q1 EXCEPT q2` are, as Flink plans them (ReplaceIntersectWithSemiJoinRule,
ReplaceExceptWithAntiJoinRule), a semi or anti join of q1 with q2 on every column compared
with IS NOT DISTINCT FROM (keys with filterNulls false: NULLs match), under a group aggregate
on every column; the ALL variants (Flink's replicate_rows table function) are refused.
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from ..errors import PlanningError, UnsupportedSqlError
from ..join_type import JoinType
from ..nodes.common import JoinSpec
from ..nodes.join import StreamExecJoin
from ..nodes.union import StreamExecUnion
from ..types import (NUMERIC_TYPES, STRING_TYPES, Field, RowType, SqlType,
                     decimal_precision_scale, quote_identifier)
from .common import QueryContext, Relation, _column
from .scope import ScopeField

# Digits an integral type needs as a DECIMAL (Calcite's leastRestrictive of an integer and a
# DECIMAL keeps both: DECIMAL(max(digits, p - s) + s, s)).
_INTEGRAL_DIGITS = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}


class UnionRules:
    """UNION [ALL]; a mixin of PlanBuilder (builder.py)."""

    def _plan_union(self, union: exp.Union, ctx: QueryContext, sink_row: Optional[RowType],
                    top_level: bool) -> Relation:
        position = ctx.position
        for clause, construct in (("order", "ORDER BY"), ("limit", "LIMIT"), ("offset", "OFFSET")):
            if union.args.get(clause):
                raise UnsupportedSqlError(f"{construct} on a UNION (needs stream-exec-sort-limit "
                                          f"over the union)", position.line, position.column,
                                          position.source)
        distinct = bool(union.args.get("distinct"))
        relations = [self._plan_select(query, ctx) for query in _branches(union, distinct)]
        row = _union_row(relations, ctx.where)
        inputs = [self._cast_to(relation, row, ctx.where) for relation in relations]
        node = self.add(StreamExecUnion, inputs, output_type=row.text,
                        description=f"Union(all=[true], union=[{', '.join(row.names)}])")
        relation = Relation(node, [ScopeField("", f.name, f) for f in row.fields])
        if distinct:
            columns = [_column(name) for name in row.names]
            grouped = exp.Select(expressions=[c.copy() for c in columns]).group_by(*columns)
            return self._plan_aggregate(grouped, relation, None, ctx, sink_row, top_level)
        if sink_row is None:
            return relation
        return self._plan_projection([exp.Star()], relation, None, ctx, sink_row)

    def _plan_intersect_except(self, operation: exp.Expression, ctx: QueryContext,
                               sink_row: Optional[RowType], top_level: bool) -> Relation:
        position = ctx.position
        name = "INTERSECT" if isinstance(operation, exp.Intersect) else "EXCEPT"
        if not operation.args.get("distinct"):
            raise UnsupportedSqlError(f"{name} ALL (Flink's replicate_rows table function over a "
                                      f"union and an aggregate)", position.line, position.column,
                                      position.source)
        for clause, construct in (("order", "ORDER BY"), ("limit", "LIMIT"), ("offset", "OFFSET")):
            if operation.args.get(clause):
                raise UnsupportedSqlError(f"{construct} on {name} (needs stream-exec-sort-limit "
                                          f"over it)", position.line, position.column,
                                          position.source)
        relations = [self._plan_select(query, ctx)
                     for query in (operation.this, operation.expression)]
        row = _union_row(relations, ctx.where, name)
        left, right = (Relation(self._cast_to(relation, row, ctx.where), relation.scope_fields,
                                relation.names) for relation in relations)
        join_type = JoinType.SEMI if name == "INTERSECT" else JoinType.ANTI
        keys = list(range(len(row.fields)))
        right_names = right.node.row_type.names
        condition = ", ".join(
            f"OR(=({left_name}, {right_name}), AND(IS NULL({left_name}), IS NULL({right_name})))"
            for left_name, right_name in zip(row.names, right_names))
        node = self.add(StreamExecJoin, [left.node, right.node],
                        join_spec=JoinSpec(join_type=join_type.value, left_keys=keys,
                                           right_keys=keys, filter_nulls=[False] * len(keys)),
                        left_unique_keys=self.unique_keys[left.node.id],
                        right_unique_keys=self.unique_keys[right.node.id],
                        output_type=left.node.row_type.text,
                        description=f"Join(joinType=[{join_type.label}], where=[AND({condition})], "
                                    f"select=[{', '.join(left.node.row_type.names)}])")
        fields = node.row_type.fields
        relation = Relation(node, [ScopeField("", f.name, f) for f in fields])
        columns = [_column(name) for name in node.row_type.names]
        grouped = exp.Select(expressions=[c.copy() for c in columns]).group_by(*columns)
        return self._plan_aggregate(grouped, relation, None, ctx, sink_row, top_level)

    def _cast_to(self, relation: Relation, row: RowType, where: str):
        """The relation's node, under a calc casting its columns to `row`'s types where they
        differ (other than by nullability)."""
        node = relation.node
        fields = node.row_type.fields
        if all(_same_type(f.type, target.type) for f, target in zip(fields, row.fields)):
            return node
        projection = [quote_identifier(f.name) if _same_type(f.type, target.type) else
                      f"CAST({quote_identifier(f.name)} AS "
                      f"{target.type.to_spark().simpleString().upper()})"
                      for f, target in zip(fields, row.fields)]
        return self._calc(node, projection, [f.name for f in fields], None, where)


def _branches(union: exp.Expression, distinct: bool) -> list[exp.Expression]:
    """The queries of a chain of unions of one kind, left to right, parentheses removed."""
    while isinstance(union, exp.Subquery) and not union.alias:
        union = union.this
    if isinstance(union, exp.Union) and bool(union.args.get("distinct")) == distinct and not any(
            union.args.get(clause) for clause in ("order", "limit", "offset")):
        return _branches(union.this, distinct) + _branches(union.expression, distinct)
    return [union]


def _same_type(a: SqlType, b: SqlType) -> bool:
    return (a.name, a.params) == (b.name, b.params)


def _union_row(relations: list[Relation], where: str, operation: str = "UNION") -> RowType:
    rows = [relation.node.row_type for relation in relations]
    widths = {len(row.fields) for row in rows}
    if len(widths) > 1:
        raise PlanningError(f"{where}: the queries of a {operation} have different numbers of columns "
                            f"({', '.join(str(len(row.fields)) for row in rows)}); each must "
                            f"select as many")
    fields = []
    for index, first in enumerate(rows[0].fields):
        column = [row.fields[index] for row in rows]
        sql_type = column[0].type
        for other in column[1:]:
            common = _least_restrictive(sql_type, other.type)
            if common is None:
                raise PlanningError(
                    f"{where}: column {index + 1} of the {operation} ('{first.name}') is "
                    f"{sql_type.text} in one query and {other.type.text} in another, which have "
                    f"no common type; CAST one of them")
            sql_type = common
        fields.append(Field(first.name, sql_type,
                            rowtime=all(f.rowtime for f in column),
                            proctime=all(f.proctime for f in column)))
    return RowType(tuple(fields))


def _least_restrictive(a: SqlType, b: SqlType) -> Optional[SqlType]:
    nullable = a.nullable or b.nullable
    if _same_type(a, b):
        return a.with_nullable(nullable)
    if a.name in STRING_TYPES and b.name in STRING_TYPES:
        if "STRING" in (a.name, b.name):
            return SqlType("STRING", (), nullable)
        return SqlType("VARCHAR", (max(a.params[0], b.params[0]),), nullable)
    if a.is_timestamp and b.is_timestamp and a.name == b.name:
        return SqlType(a.name, (max(a.params[0], b.params[0]),), nullable)
    if a.name in NUMERIC_TYPES and b.name in NUMERIC_TYPES:
        if "DOUBLE" in (a.name, b.name) or "FLOAT" in (a.name, b.name):
            name = max(a.name, b.name, key=NUMERIC_TYPES.index)
            return SqlType(name, (), nullable)
        if "DECIMAL" in (a.name, b.name):
            (p1, s1), (p2, s2) = (_as_decimal(t) for t in (a, b))
            scale = max(s1, s2)
            return SqlType("DECIMAL", (min(max(p1 - s1, p2 - s2) + scale, 38), scale), nullable)
        return SqlType(max(a.name, b.name, key=NUMERIC_TYPES.index), (), nullable)
    return None


def _as_decimal(sql_type: SqlType) -> tuple[int, int]:
    if sql_type.name == "DECIMAL":
        return decimal_precision_scale(sql_type)
    return _INTEGRAL_DIGITS[sql_type.name], 0
