"""Fields of ROW columns: `r.f`, `t.r.f`, `r.g.h`. Calcite reads a dotted name as a table
qualifier (when its head names one), then a column, then fields of that column; sqlglot reads
every dotted name as a qualified column. Before planning, a dotted name whose head names no
table, view, CTE or alias of the statement, or that has more parts than a qualified column,
becomes the field access it is (`exp.Dot` over the column): Spark runs it as a struct field
access, and a select list names it by its last field, as Calcite does."""
from __future__ import annotations

from sqlglot import exp


def with_field_access(query: exp.Expression, relations: set[str]) -> exp.Expression:
    """`query` (transformed in place; pass a copy) with ROW field accesses as exp.Dot chains;
    `relations`: the catalog's table and view names."""
    qualifiers = set(relations)
    qualifiers.update(alias.name for alias in query.find_all(exp.TableAlias) if alias.name)
    qualifiers.update(table.name for table in query.find_all(exp.Table))

    def replace(node: exp.Expression) -> exp.Expression:
        if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
            return node
        parts = list(node.parts)
        if len(parts) < 2 or (len(parts) == 2 and parts[0].name in qualifiers):
            return node
        column = 2 if parts[0].name in qualifiers else 1
        access: exp.Expression = exp.Column(this=parts[column - 1].copy(),
                                            table=parts[0].copy() if column == 2 else None)
        for part in parts[column:]:
            access = exp.Dot(this=access, expression=part.copy())
        return access

    return query.transform(replace, copy=False)


def field_name(expression: exp.Expression) -> str | None:
    """The name a select list gives a field access (its last field), else None."""
    if isinstance(expression, exp.Dot) and isinstance(expression.expression, exp.Identifier):
        inner = expression.this
        while isinstance(inner, exp.Dot):
            inner = inner.this
        if isinstance(inner, exp.Column):
            return expression.expression.name
    return None
