"""The LIMIT rule: a query block with `LIMIT n [OFFSET m]` becomes, over the block's plan, a
limit node (without ORDER BY: the first rows to arrive) or a sort-limit node (with ORDER BY:
a global top-N), both Flink's ranks under a constant key with rank range m + 1 .. m + n, then
the cast to the sink's columns. ORDER BY names columns of the SELECT list (by name, alias or
position), or of a plain SELECT's FROM clause: those are carried to the sort and dropped after
it, as Calcite plans them. ORDER BY without LIMIT is the temporal sort rule's (temporal_sorts.py).
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from ..changelog import RowKind
from ..errors import PlanningError, UnsupportedSqlError
from ..nodes.limit import StreamExecLimit
from ..nodes.rank import (APPEND_FAST, RETRACT, PartitionSpec, RankRange, RankStrategy,
                          SortField, SortSpec)
from ..nodes.sort_limit import StreamExecSortLimit
from ..types import RowType, unique_names
from .common import QueryContext, Relation
from .ranks import _plain_row
from .scope import ScopeField, plain_column


class LimitRules:
    """LIMIT and ORDER BY ... LIMIT; a mixin of PlanBuilder (builder.py)."""

    def _plan_limit(self, select: exp.Select, ctx: QueryContext, sink_row: Optional[RowType],
                    top_level: bool) -> Relation:
        position = ctx.position
        order = select.args.get("order")
        if select.args.get("limit") is None:
            if order is not None and select.args.get("offset") is None:
                return self._plan_temporal_sort(select, ctx, sink_row, top_level)
            raise UnsupportedSqlError(
                "OFFSET without LIMIT (a sort on a non-time attribute; Flink's "
                "stream-exec-sort needs table.exec.non-temporal-sort.enabled)", position.line,
                position.column, position.source)
        fetch = _count(select.args["limit"].expression, "LIMIT", ctx)
        offset_clause = select.args.get("offset")
        offset = _count(offset_clause.expression, "OFFSET", ctx) if offset_clause else 0
        if fetch < 1:
            raise UnsupportedSqlError("LIMIT 0 (a query without rows)", position.line,
                                      position.column, position.source)
        select = select.copy()              # hidden sort columns rename its ORDER BY items
        hidden = _hidden_sort_columns(select)
        order = select.args.get("order")
        inner = select.copy()
        for clause in ("order", "limit", "offset"):
            inner.set(clause, None)
        if hidden:          # sorted by, not selected: carried to the sort, then dropped
            inner.set("expressions", [*inner.expressions, *hidden])
        relation = self._plan_select(inner, ctx, None, top_level)
        input_node = relation.node
        row = input_node.row_type
        sort = [self._sort_field(item, relation, select, ctx) for item in
                (order.expressions if order else [])]
        insert_only = self.modes[input_node.id] == frozenset({RowKind.INSERT})
        strategy = APPEND_FAST if insert_only else RETRACT
        out_row = _plain_row(row)
        spec = dict(rank_type="ROW_NUMBER", partition=PartitionSpec(fields=[]),
                    order_by=SortSpec(fields=[SortField(index=i, is_ascending=asc,
                                                        null_is_last=not nulls_first)
                                              for i, asc, nulls_first in sort]),
                    rank_range=RankRange(start=offset + 1, end=offset + fetch),
                    rank_strategy=RankStrategy(type=strategy), output_row_number=False,
                    generate_update_before=True, output_type=out_row.text)
        if sort:
            order_text = ", ".join(f"{row.names[i]}{'' if asc else ' DESC'}" for i, asc, _ in sort)
            node = self.add(StreamExecSortLimit, [input_node],
                            description=f"SortLimit(orderBy=[{order_text}], offset=[{offset}], "
                                        f"fetch=[{fetch}], strategy=[{strategy}Strategy])",
                            **spec)
        else:
            node = self.add(StreamExecLimit, [input_node],
                            description=f"Limit(offset=[{offset}], fetch=[{fetch}])", **spec)
        limited = Relation(node, [ScopeField(f.qualifier, f.name, node.row_type.fields[i])
                                  for i, f in enumerate(relation.scope_fields)], relation.names)
        if hidden:
            visible = [exp.column(exp.to_identifier(f.name, quoted=True))
                       for f in limited.scope_fields[:len(limited.scope_fields) - len(hidden)]]
            limited = self._plan_projection(visible, limited, None, ctx, None)
        if sink_row is None:
            return limited
        return self._plan_projection([exp.Star()], limited, None, ctx, sink_row)

    def _sort_field(self, item: exp.Ordered, relation: Relation, select: exp.Select,
                    ctx: QueryContext) -> tuple[int, bool, bool]:
        """(output field index, ascending, nulls first) of one ORDER BY item. As in Flink,
        NULLs come first ascending and last descending unless NULLS FIRST/LAST says."""
        target = item.this
        names = relation.node.row_type.names
        index = None
        if isinstance(target, exp.Literal) and not target.is_string and target.this.isdigit():
            index = int(target.this) - 1
            if not 0 <= index < len(names):
                raise PlanningError(f"{ctx.where}: ORDER BY {target.this}: the SELECT list has "
                                    f"{len(names)} column(s)")
        elif plain_column(target):
            hits = [i for i, f in enumerate(relation.scope_fields) if f.name == target.name
                    and (not target.table or f.qualifier == target.table)]
            index = hits[0] if len(hits) == 1 else None
        if index is None:
            position = ctx.position
            raise UnsupportedSqlError(
                f"ORDER BY '{target.sql(dialect='spark')[:60]}' (only a column of the SELECT "
                f"list, by name or position)", position.line, position.column, position.source)
        ascending = not item.args.get("desc")
        nulls_first = item.args.get("nulls_first")
        return index, ascending, bool(nulls_first) if nulls_first is not None else ascending


def _hidden_sort_columns(select: exp.Select) -> list[exp.Expression]:
    """ORDER BY columns of the FROM clause that the SELECT list leaves out, as Calcite plans
    them: projected below the sort under a name of their own, dropped above it. Only for a
    plain SELECT (no *, DISTINCT, GROUP BY or aggregate, whose ORDER BY must name its output)."""
    items = select.expressions
    if select.args.get("distinct") or select.args.get("group") or any(
            isinstance(item, exp.Star) or isinstance(item.find(exp.Star), exp.Star)
            or item.find(exp.AggFunc) is not None for item in items):
        return []
    # the names the SELECT list gives: an alias, or a plain column's own name (an expression
    # such as CAST(amount AS BIGINT) is unnamed, EXPR$n, though sqlglot calls it `amount`)
    selected = {item.alias if isinstance(item, exp.Alias) else item.name
                for item in items if isinstance(item, exp.Alias) or plain_column(item)}
    hidden = []
    for ordered in select.args["order"].expressions if select.args.get("order") else []:
        target = ordered.this
        if plain_column(target) and target.name not in selected and not any(
                h.this.sql() == target.sql() for h in hidden):
            name = unique_names([*selected, *(h.alias for h in hidden), target.name])[-1]
            hidden.append(exp.alias_(target.copy(), name, quoted=True))
            ordered.set("this", exp.column(exp.to_identifier(name, quoted=True)))
    return hidden


def _count(expression: exp.Expression, clause: str, ctx: QueryContext) -> int:
    if isinstance(expression, exp.Literal) and not expression.is_string and \
            expression.this.isdigit():
        return int(expression.this)
    position = ctx.position
    raise UnsupportedSqlError(f"{clause} '{expression.sql(dialect='spark')[:40]}' (an integer "
                              f"literal is supported)", position.line, position.column,
                              position.source)
