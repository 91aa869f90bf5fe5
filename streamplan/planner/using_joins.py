"""JOIN ... USING (c, ...) and NATURAL JOIN, as Flink 2.3 (Calcite's validator) reads them.

The join is the regular (or interval, window) join of its ON rewrite: the equality of the
named columns (USING) or of every column both sides share by name (NATURAL; none shared is a
cross join). Calcite's column rules for the query block are an AST expansion of the SELECT
list and GROUP BY, as Calcite's expandStar / expandCommonColumn are:

* `*` lists each common column once, first, then the left side's other columns, then the
  right's (a chain of joins left to right; `t.*` is still all of t's columns);
* an unqualified common column is the merged column, Calcite's `COALESCE(l.c, r.c)`, which
  Flink's optimizer reduces, and so does this rule: to the left's column in an INNER or LEFT
  join, the right's in a RIGHT join (the one that cannot be NULL in an INNER join), when the
  two have one type; a FULL join, or columns of two types, keep the COALESCE;
* `l.c` / `r.c` still name each side's column; in WHERE, HAVING and ON an unqualified
  common column is ambiguous, as in Flink ("Column 'c' is ambiguous").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from sqlglot import exp

from ..errors import PlanningError, UnsupportedSqlError
from ..types import NUMERIC_TYPES, STRING_TYPES, SqlType
from .common import QueryContext, Relation
from .scope import ScopeField


def is_using_join(join: exp.Join) -> bool:
    return bool(join.args.get("using")) or (join.method or "").upper() == "NATURAL"


@dataclass
class UsingExpansion:
    """What the USING / NATURAL joins of one FROM clause mean to its SELECT list: the star's
    items in order (name, expression) and the merged common columns by name."""

    star: list[tuple[str, exp.Expression]] = field(default_factory=list)
    merged: dict[str, exp.Expression] = field(default_factory=dict)
    active: bool = False                 # a USING / NATURAL join was planned

    def start(self, relation: Relation) -> None:
        self.star = _star_items(relation.scope_fields)
        self.merged = {}

    def joined(self, fields: list[ScopeField]) -> None:
        """An ON (or comma, cross, temporal, lateral) join adding `fields`: they follow; a
        merged column they also have is ambiguous from now on, as in Flink."""
        names = {f.name for f in fields}
        self.merged = {n: e for n, e in self.merged.items() if n not in names}
        self.star = self.star + _star_items(fields)

    def expand(self, select: exp.Select) -> exp.Select:
        """`select` with `*` and the unqualified common columns of its SELECT list and GROUP BY
        expanded, as Calcite's validator expands them (unchanged without a USING join)."""
        if not self.active:
            return select
        select = select.copy()
        items = []
        for item in select.expressions:
            if isinstance(item, exp.Star) or (isinstance(item, exp.Column)
                                              and isinstance(item.this, exp.Star)
                                              and not item.table):
                items.extend(_item(name, expression) for name, expression in self.star)
            elif isinstance(item, exp.Column) and not item.table and item.name in self.merged:
                items.append(_item(item.name, self.merged[item.name]))
            else:
                items.append(self._merge(item))
        select.set("expressions", items)
        group = select.args.get("group")
        if group is not None:
            group.set("expressions", [self._merge(e) for e in group.expressions])
        return select

    def _merge(self, expression: exp.Expression) -> exp.Expression:
        def replace(node: exp.Expression) -> exp.Expression:
            if (isinstance(node, exp.Column) and not node.table and node.name in self.merged
                    and not isinstance(node.this, exp.Star)
                    and node.find_ancestor(exp.Select, exp.Subquery) is None):
                return self.merged[node.name].copy()
            return node
        return expression.transform(replace)


def _star_items(fields: list[ScopeField]) -> list[tuple[str, exp.Expression]]:
    return [(f.name, exp.column(exp.to_identifier(f.name),
                                table=exp.to_identifier(f.qualifier)
                                if f.qualifier else None))
            for f in fields]


def _item(name: str, expression: exp.Expression) -> exp.Expression:
    expression = expression.copy()
    if isinstance(expression, exp.Column) and expression.name == name:
        return expression
    return exp.alias_(expression, exp.to_identifier(name))


def using_join(join: exp.Join, left: Relation, right: Relation, expansion: UsingExpansion,
               ctx: QueryContext) -> exp.Join:
    """The ON join that `join` (USING or NATURAL) is; records its merged columns and star."""
    position, where = ctx.position, ctx.where
    side = (join.side or "").upper()
    kind = (join.kind or "").upper()
    label = "NATURAL" if join.method else "USING"
    if kind in ("CROSS", "SEMI", "ANTI"):
        raise UnsupportedSqlError(f"{kind} JOIN with {label}", position.line, position.column,
                                  position.source, hint="(Flink: Cannot specify condition "
                                  "(NATURAL keyword, or ON or USING clause) following CROSS "
                                  "JOIN)" if kind == "CROSS" else "")
    if not expansion.active:            # the FROM clause's columns so far
        expansion.start(left)
    left_names = [name for name, _ in expansion.star]
    right_names = [f.name for f in right.scope_fields]
    if join.method:
        names = [name for name in dict.fromkeys(left_names) if name in right_names]
    else:
        names = list(dict.fromkeys(identifier.name for identifier in join.args["using"]))
    left_shown = _shown("left", left.names)
    right_shown = _shown("right", right.names)
    conditions, merged = [], {}
    for name in names:
        left_hits = [e for n, e in expansion.star if n == name]
        right_hits = [f for f in right.scope_fields if f.name == name]
        for hits, shown, columns in ((left_hits, left_shown, left_names),
                                     (right_hits, right_shown, right_names)):
            if not hits:
                raise PlanningError(
                    f"{where}: {label} column '{name}' is not a column of the join's {shown} "
                    f"(its columns: {', '.join(dict.fromkeys(columns))}); Flink: Column "
                    f"'{name}' not found in any table")
            if len(hits) > 1:
                raise PlanningError(
                    f"{where}: {label} column '{name}' is ambiguous on the join's {shown}: "
                    f"more than one of its tables has it; write the join with ON")
        left_column = left_hits[0]
        if not isinstance(left_column, exp.Column):
            raise UnsupportedSqlError(
                f"{label} on '{name}', the merged COALESCE column of a FULL join or of two "
                f"types before it (write the join with ON)", position.line, position.column,
                position.source)
        if any(f.qualifier == "" for f in right_hits) or not left_column.table:
            raise UnsupportedSqlError(
                f"{label} on '{name}' of a FROM item without a name (give the subquery an "
                f"alias)", position.line, position.column, position.source)
        right_field = right_hits[0]
        left_type = _left_type(left_column, left.scope_fields)
        if left_type is not None and not _comparable(left_type, right_field.field.type):
            raise PlanningError(
                f"{where}: {label} column '{name}' is {left_type.text} on the join's "
                f"{left_shown} and {right_field.field.type.text} on its {right_shown}: Flink "
                f"refuses the join (implicit type conversion between them is not supported on "
                f"join's condition); CAST one side in a subquery")
        right_column = exp.column(exp.to_identifier(name),
                                  table=exp.to_identifier(right_field.qualifier))
        conditions.append(exp.EQ(this=left_column.copy(), expression=right_column))
        merged[name] = _merged(side, left_column, left.scope_fields, right_column,
                               right_field)
    rewritten = join.copy()
    for key in ("using", "method"):
        rewritten.set(key, None)
    if conditions:
        rewritten.set("on", exp.and_(*conditions) if len(conditions) > 1 else conditions[0])
    elif not side:                      # NATURAL without a common column: a cross join
        rewritten.set("kind", "CROSS")
    else:
        rewritten.set("on", exp.true())
    expansion.active = True
    expansion.merged = {**{n: e for n, e in expansion.merged.items()
                           if n not in right_names}, **merged}
    expansion.star = ([(name, merged[name]) for name in names]
                      + [(n, e) for n, e in expansion.star if n not in merged]
                      + [(n, e) for n, e in _star_items(right.scope_fields) if n not in merged])
    return rewritten


def _shown(side: str, names: tuple[str, ...]) -> str:
    return f"{side} side" + (f" ({', '.join(names)})" if names else "")


def _merged(side: str, left_column: exp.Column, left_fields: list[ScopeField],
            right_column: exp.Column, right_field: ScopeField) -> exp.Expression:
    """The unqualified common column: Calcite's COALESCE(l.c, r.c), reduced to one side's
    column where Flink's optimizer reduces it (one type; not a FULL join)."""
    left_field = _left_field(left_column, left_fields)
    coalesce = exp.Coalesce(this=left_column.copy(), expressions=[right_column.copy()])
    if left_field is None or side == "FULL":
        return coalesce
    lt, rt = left_field.field.type, right_field.field.type
    if (lt.name, lt.params, lt.children) != (rt.name, rt.params, rt.children):
        return coalesce
    if side == "RIGHT" or (not side and lt.nullable and not rt.nullable):
        return right_column.copy()
    return left_column.copy()



def _left_field(column: exp.Column, fields: list[ScopeField]) -> Optional[ScopeField]:
    return next((f for f in fields if f.name == column.name and f.qualifier == column.table),
                None)


def _left_type(column: exp.Column, fields: list[ScopeField]) -> Optional[SqlType]:
    found = _left_field(column, fields)
    return found.field.type if found is not None else None


def _comparable(a: SqlType, b: SqlType) -> bool:
    """Types a join condition compares: Flink's JoinConditionTypeCoerceRule widens numbers
    (and strings of any length) to a common type, and refuses anything else."""
    return ((a.name in NUMERIC_TYPES and b.name in NUMERIC_TYPES)
            or (a.name in STRING_TYPES and b.name in STRING_TYPES) or a.name == b.name)
