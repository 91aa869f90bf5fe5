"""The temporal sort rule: `ORDER BY <time attribute> [ASC][, other columns]` without LIMIT
becomes a stream-exec-temporal-sort over the block's FROM (and WHERE), and the SELECT list
is projected after it, as Flink's StreamPhysicalTemporalSortRule plans it. ORDER BY names
columns of the FROM clause. Any other ORDER BY without LIMIT is refused, as Flink refuses a
sort on a non-time attribute in streaming.
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from ..errors import UnsupportedSqlError
from ..nodes.rank import SortField, SortSpec
from ..nodes.temporal_sort import StreamExecTemporalSort
from ..types import RowType
from .common import QueryContext, Relation
from .scope import Scope, plain_column, spark_sql


class TemporalSortRules:
    """ORDER BY a time attribute; a mixin of PlanBuilder (builder.py)."""

    def _plan_temporal_sort(self, select: exp.Select, ctx: QueryContext,
                            sink_row: Optional[RowType], top_level: bool) -> Relation:
        position, where = ctx.position, ctx.where
        order = select.args["order"]

        def refuse(what: str) -> UnsupportedSqlError:
            return UnsupportedSqlError(what, position.line, position.column, position.source)

        if select.args.get("group") or select.args.get("having") or select.args.get("distinct") \
                or any(isinstance(n, exp.AggFunc) for e in select.expressions for n in e.walk()):
            raise refuse("ORDER BY over an aggregate without LIMIT (a sort on a non-time "
                         "attribute; Flink's stream-exec-sort needs "
                         "table.exec.non-temporal-sort.enabled)")
        inner = select.copy()
        inner.set("order", None)
        where_clause = inner.args.get("where")
        condition = where_clause.this if where_clause is not None else None
        relation, condition = self._plan_from(inner, condition, ctx, top_level)
        scope = Scope(relation.scope_fields, where)
        row = relation.node.row_type
        if condition is not None:
            rowtime = next((f.name for f in row.fields if f.rowtime), None)
            condition_sql = self._sql(scope.rewrite(condition), row, where)
            self.types.check_condition(row, condition_sql, where)
            node = self._calc(relation.node, [f"`{name}`" for name in row.names], row.names,
                              condition_sql, where, rowtime=rowtime)
            relation = Relation(node, relation.scope_fields, relation.names)
            row = node.row_type
        fields = []
        for item in order.expressions:
            if not plain_column(item.this):
                raise refuse(f"ORDER BY '{spark_sql(item.this)[:60]}' without LIMIT (only "
                             f"columns of the FROM clause)")
            index = row.index(scope.resolve(item.this).name)
            ascending = not item.args.get("desc")
            nulls_first = item.args.get("nulls_first")
            nulls_first = bool(nulls_first) if nulls_first is not None else ascending
            fields.append(SortField(index=index, is_ascending=ascending,
                                    null_is_last=not nulls_first))
        first = row.fields[fields[0].index]
        if not (first.rowtime or first.proctime) or not fields[0].is_ascending:
            raise refuse("ORDER BY without LIMIT on anything but a time attribute ascending (a "
                         "sort on a non-time attribute; Flink's stream-exec-sort needs "
                         "table.exec.non-temporal-sort.enabled)")
        if first.proctime and len(fields) > 1:
            raise refuse("ORDER BY the processing-time attribute and further columns (Flink's "
                         "ProcTimeSortOperator in stream-exec-temporal-sort, not implemented)")
        order_text = ", ".join(f"{row.names[f.index]} {'ASC' if f.is_ascending else 'DESC'}"
                               for f in fields)
        node = self.add(StreamExecTemporalSort, [relation.node],
                        order_by=SortSpec(fields=fields), output_type=row.text,
                        description=f"TemporalSort(orderBy=[{order_text}])")
        sorted_relation = Relation(node, relation.scope_fields, relation.names)
        return self._plan_projection(select.expressions, sorted_relation, None, ctx, sink_row)
