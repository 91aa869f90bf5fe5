"""The temporal join rule: `o [LEFT] JOIN v FOR SYSTEM_TIME AS OF o.rowtime [AS r] ON ...`
becomes a stream-exec-temporal-join (Flink's StreamPhysicalTemporalJoinRule and
TemporalJoinRewriteWithUniqueKeyRule). The versioned side `v` is a table with a primary key
that the ON condition's equalities must cover and a rowtime attribute; `o.rowtime` is the
probe side's rowtime attribute. A left key that is an expression is computed by a calc in
front of the join, as Flink's join condition push-down does. Flink's own errors are raised
for the shapes it refuses (a processing-time AS OF, no primary key, a primary key outside the
condition, RIGHT and FULL joins). `AS OF` a processing-time attribute of a lookup table is a
lookup join (lookup_joins.py).
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from ..errors import PlanningError, UnsupportedSqlError
from ..join_type import JoinType
from ..nodes.common import JoinSpec
from ..nodes.temporal_join import StreamExecTemporalJoin
from ..types import RowType
from .common import QueryContext, Relation, _conjuncts
from .joins import _join_fields, _join_type
from .lookup_joins import is_lookup_table
from .scope import Scope, ScopeField, spark_sql


def temporal_version(item: exp.Expression) -> Optional[exp.Expression]:
    """The `FOR SYSTEM_TIME AS OF` clause of a FROM item, if it has one."""
    return item.args.get("version") if isinstance(item, exp.Table) else None


class TemporalJoinRules:
    """Event-time temporal table joins; a mixin of PlanBuilder (builder.py)."""

    def _temporal_join(self, left: Relation, join: exp.Join, ctx: QueryContext,
                       pushed: list[exp.Expression], select: exp.Select) -> Relation:
        where, position = ctx.where, ctx.position
        item: exp.Table = join.this
        version = item.args["version"]
        join_type = _join_type(join, position)
        if join_type not in (JoinType.INNER, JoinType.LEFT):     # Calcite's Correlate
            raise PlanningError(f"{where}: Unknown join type {join_type.value}: a temporal table "
                                f"join is an INNER or a LEFT join")
        if item.name in ctx.ctes:
            raise UnsupportedSqlError(f"FOR SYSTEM_TIME AS OF a view or CTE ('{item.name}'; a "
                                      f"versioned view needs Flink's deduplicate rewrite)",
                                      position.line, position.column, position.source)
        table = self._table(item.name, where, role="source")
        period = version.args.get("expression")
        if not isinstance(period, exp.Column):
            raise UnsupportedSqlError(f"FOR SYSTEM_TIME AS OF '{spark_sql(period)[:60]}' (only a "
                                      f"time attribute of the left table)", position.line,
                                      position.column, position.source)
        left_time = Scope(left.scope_fields, where).resolve(period)
        if left_time.proctime:
            if is_lookup_table(table):       # Flink's StreamPhysicalLookupJoinRule
                return self._lookup_join(left, join, table, join_type, ctx, pushed, select)
            # StreamExecTemporalJoin.createJoinOperator, for a source that is no lookup source
            raise PlanningError(f"{where}: Processing-time temporal join is not supported yet.")
        plain = item.copy()
        plain.set("version", None)
        right = self._relation(plain, ctx)
        right_row = right.node.row_type
        left, left_keys, right_keys, remaining = self._temporal_keys(
            left, right, join, pushed, ctx, select)
        function = item.meta.get("temporal_function")     # LATERAL TABLE (f(o.t)): temporal_functions.py
        primary_key = function.primary_key if function is not None else table.primary_key
        if function is not None and (right_row.rowtime_index is None or right_row.fields[
                right_row.rowtime_index].name != function.time_attribute):
            raise PlanningError(f"{where}: temporal table function '{function.name}': its time "
                                f"attribute '{function.time_attribute}' is not the rowtime "
                                f"attribute of '{table.name}' (declare WATERMARK FOR "
                                f"{function.time_attribute} on the table)")
        if not primary_key or any(right_row.index(name) not in right_keys
                                  for name in primary_key):
            # Flink's TemporalJoinRewriteWithUniqueKeyRule: the versioned table's primary key,
            # all of it within the condition's equalities
            raise PlanningError(f"{where}: Temporal Table Join requires primary key in "
                                f"versioned table, but no primary key can be found."
                                + (f" (the primary key [{', '.join(primary_key)}] of "
                                   f"'{table.name}' must be within the ON condition's "
                                   f"equalities)" if primary_key else ""))
        if not left_time.rowtime:
            raise PlanningError(
                f"{where}: Temporal table join currently only supports 'FOR SYSTEM_TIME AS OF' "
                f"left table's time attribute field, but '{period.name}' is a regular column")
        if right_row.rowtime_index is None:
            raise PlanningError(
                f"{where}: Event-Time Temporal Table Join requires both primary key and row time "
                f"attribute in versioned table, but no row time attribute can be found.")
        left_row = left.node.row_type
        out_fields, renamed = _join_fields(left_row, right_row, join_type)
        output = RowType(tuple(out_fields))
        out_scope = [ScopeField(sf.qualifier, sf.name, out_fields[i])
                     for i, sf in enumerate(left.scope_fields + right.scope_fields)]
        non_equi = self._non_equi(remaining, out_scope, output, where)
        left_time_index = left_row.index(left_time.name)
        right_time_index = right_row.rowtime_index
        keys = " AND ".join(f"=({renamed[l]}, {renamed[len(left_row.fields) + r]})"
                            for l, r in zip(left_keys, right_keys))
        description = (f"TemporalJoin(joinType=[{join_type.label}], where=[{keys} AND "
                       f"__TEMPORAL_JOIN_CONDITION({renamed[left_time_index]}, "
                       f"{renamed[len(left_row.fields) + right_time_index]})"
                       + (f" AND {non_equi}" if non_equi else "")
                       + f"], select=[{', '.join(renamed)}])")
        node = self.add(StreamExecTemporalJoin, [left.node, right.node],
                        join_spec=JoinSpec(join_type=join_type.value, left_keys=left_keys,
                                           right_keys=right_keys,
                                           filter_nulls=[True] * len(left_keys),
                                           non_equi_condition=non_equi),
                        is_temporal_function_join=function is not None,
                        left_time_attribute_index=left_time_index,
                        right_time_attribute_index=right_time_index,
                        output_type=output.text, description=description)
        return Relation(node, out_scope, left.names + right.names)

    def _temporal_keys(self, left: Relation, right: Relation, join: exp.Join,
                       pushed: list[exp.Expression], ctx: QueryContext, select: exp.Select):
        """The equalities of the condition between a left expression and a right column
        (the join keys; a left expression that is no plain column is computed by a calc in
        front of the join), and the rest of the condition."""
        where = ctx.where
        parts = ([join.args["on"]] if join.args.get("on") is not None else []) + pushed
        right_scope = Scope(right.scope_fields, where)
        left_scope = Scope(left.scope_fields, where)

        def names(column: exp.Column, fields: list[ScopeField]) -> bool:
            return any(f.name == column.name and (not column.table or f.qualifier == column.table)
                       for f in fields)

        def side(expression: exp.Expression) -> Optional[str]:
            """'L' or 'R' when every column of `expression` is of that side only."""
            sides = set()
            for column in expression.find_all(exp.Column):
                in_left, in_right = names(column, left.scope_fields), names(column, right.scope_fields)
                if in_left == in_right:
                    return None
                sides.add("L" if in_left else "R")
            return sides.pop() if len(sides) == 1 else None

        pairs, remaining = [], []
        # the conjuncts themselves, not copies: _referenced_outside finds the keys in `select`
        for conjunct in [c for part in parts for c in _conjuncts(part)]:
            if isinstance(conjunct, exp.EQ):
                a, b = conjunct.this, conjunct.expression
                sides = side(a), side(b)
                if sides == ("R", "L"):
                    a, b, sides = b, a, ("L", "R")
                if sides == ("L", "R") and isinstance(b, exp.Column):
                    pairs.append((a, b))
                    continue
            remaining.append(conjunct)
        computed = [a for a, _ in pairs if not isinstance(a, exp.Column)]
        names = {id(a): left_scope.resolve(a).name for a, _ in pairs if isinstance(a, exp.Column)}
        referenced = _referenced_outside(select, computed)
        if computed or _unused_composites(left.node.row_type, referenced):
            # one calc in front: the computed keys, without the unused composite columns
            left, computed_names = self._with_computed_keys(left, computed, ctx, referenced)
            names.update(zip((id(a) for a in computed), computed_names))
        left_keys = [left.node.row_type.index(names[id(a)]) for a, _ in pairs]
        right_keys = [right.node.row_type.index(right_scope.resolve(b).name) for _, b in pairs]
        return left, left_keys, right_keys, remaining

    def _without_unused_composites(self, relation: Relation, select: exp.Select,
                                   ctx: QueryContext) -> Relation:
        """`relation` without the composite columns (ARRAY, MAP, ROW) `select` names nowhere,
        for a join's input (a stateful node's Python core holds no composite values), as
        Flink prunes unused columns below a join; itself when there are none to leave out,
        so plans without composite columns are as they were. Time attributes stay such."""
        row = relation.node.row_type
        if (relation.window is not None or not any(f.type.is_composite for f in row.fields)
                or sum(f.rowtime for f in row.fields) > 1 or sum(f.proctime for f in row.fields) > 1):
            return relation            # (a calc keeps one time attribute of each kind)
        referenced = _referenced_outside(select, [])
        if not _unused_composites(row, referenced):
            return relation
        return self._with_computed_keys(relation, [], ctx, referenced)[0]

    def _with_computed_keys(self, left: Relation, computed: list[exp.Expression],
                            ctx: QueryContext, referenced: Optional[set[str]]
                            ) -> tuple[Relation, list[str]]:
        """The left relation with each key expression appended as a column `$f<i>` (and those
        columns' names; its time attributes stay such). A
        composite column (ARRAY, MAP, ROW) the query names nowhere but in
        the keys (`referenced`; None: a `*` names every column) is left out, as Flink prunes
        every unused column below a join: the temporal join keeps rows in a Python core,
        which holds no composite values. Other columns stay, so plans without composite
        columns are as they were."""
        where = ctx.where
        scope = Scope(left.scope_fields, where)
        row = left.node.row_type
        kept = [index for index, field in enumerate(row.fields)
                if referenced is None or not field.type.is_composite or field.name.lower() in referenced]
        projection = [f"`{row.fields[index].name}`" for index in kept]
        names = [row.fields[index].name for index in kept]
        for expression in computed:
            projection.append(self._sql(scope.rewrite(expression), row, where))
            names.append(f"$f{len(names)}")
        node = self._calc(left.node, projection, names, None, where,
                          rowtime=next((f.name for f in row.fields if f.rowtime), None),
                          proctime=next((f.name for f in row.fields if f.proctime), None))
        fields = node.row_type.fields
        scope_fields = [ScopeField(left.scope_fields[index].qualifier,
                                   left.scope_fields[index].name, fields[position])
                        for position, index in enumerate(kept)]
        scope_fields += [ScopeField("", names[i], fields[i])
                         for i in range(len(kept), len(fields))]
        return Relation(node, scope_fields, left.names), names[len(kept):]


def _unused_composites(row: RowType, referenced: Optional[set[str]]) -> bool:
    """Whether `row` has a composite column (ARRAY, MAP, ROW) outside `referenced` (None: a
    `*` references every column)."""
    return referenced is not None and any(f.type.is_composite and f.name.lower() not in referenced
                                          for f in row.fields)


def _referenced_outside(select: exp.Select, skipped: list[exp.Expression]) -> Optional[set[str]]:
    """The names (lower case: any case matches) of the columns `select` refers to outside
    the `skipped` expressions, or None when it holds a `*` (which refers to every column)."""
    skipped_ids = {id(expression) for expression in skipped}
    names: set[str] = set()
    for node in select.walk(prune=lambda n: id(n) in skipped_ids):
        if id(node) in skipped_ids:
            continue
        if isinstance(node, exp.Star) or (isinstance(node, exp.Column)
                                          and isinstance(node.this, exp.Star)):
            return None
        if isinstance(node, exp.Column):
            names.add(node.name.lower())
    return names
