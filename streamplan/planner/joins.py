"""The join rule: a join whose condition (ON and the WHERE conjuncts pushed into it) bounds
the rowtime attributes of both sides from below and above is an interval join; any other
is a regular join, keeping its state by the inputs' unique keys. Equality conjuncts between
the sides become the join keys; the rest is the non-equi condition, which must run inside
the Python join operator.
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from ..errors import PlanningError, UnsupportedSqlError
from ..join_type import JoinType
from ..nodes import REGISTRY, ExecNode
from ..nodes.common import JoinSpec
from ..nodes.interval_join import IntervalJoinSpec, StreamExecIntervalJoin, WindowBounds
from ..nodes.join import StreamExecJoin, joined_names
from ..nodes.metadata import node_name
from ..sql.ast import Position
from ..types import Field, RowType
from .common import QueryContext, Relation, _conjuncts
from .hints import early_fire_time_mode
from .interval_bounds import Bounds, add_to_bounds, time_predicate
from .scope import Scope, ScopeField, spark_sql


class JoinRules:
    """Interval and regular joins; a mixin of PlanBuilder (builder.py)."""

    def _join(self, left: Relation, right: Relation, join: exp.Join, ctx: QueryContext,
              top_level: bool, pushed: list[exp.Expression]) -> Relation:
        """An interval join when the condition (ON and the `pushed` WHERE conjuncts) bounds
        the rowtime attributes of both sides from below and above; otherwise a regular join."""
        where = ctx.where
        join_type = _join_type(join, ctx.position)
        scope = Scope(left.scope_fields + right.scope_fields, where)
        left_row, right_row = left.node.row_type, right.node.row_type
        parts = ([join.args["on"]] if join.args.get("on") is not None else []) + pushed
        # Without a condition (`FROM a, b`, CROSS JOIN) a join has no keys: every row of both
        # sides under one constant key, as Flink's singleton exchange (`where=[true]`).
        condition = exp.and_(*parts) if parts else exp.true()

        def side_of(column: exp.Column) -> Optional[str]:
            return _column_side(column, left, right)

        def time_kind(column: exp.Column) -> Optional[str]:
            """'rowtime' or 'proctime' for a side's time attribute, else None."""
            side = side_of(column)
            if side is None:
                return None
            field_ = (left_row if side == "L" else right_row).field(scope.resolve(column).name)
            return "rowtime" if field_.rowtime else "proctime" if field_.proctime else None

        def is_time_column(column: exp.Column) -> Optional[str]:
            return side_of(column) if time_kind(column) else None

        left_keys, right_keys, time_conjuncts, remaining = [], [], [], []
        for conjunct in _conjuncts(condition) if parts else []:
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
        window = self._window_join_keys(left, right, left_keys, right_keys)
        if window is not None:                 # a window join first, as Flink (window_joins.py)
            non_equi = self._non_equi([c for c, _ in time_conjuncts] + remaining, out_scope,
                                      output, where)
            node = self._add_window_join(left, right, join_type, window, non_equi, output, renamed)
            return Relation(node, out_scope, names)
        if has_lower and has_upper:
            time_kinds = {time_kind(column) for conjunct, _ in time_conjuncts
                          for column in conjunct.find_all(exp.Column)} - {None}
            if len(time_kinds) > 1:     # as Flink's IntervalJoinUtil
                raise PlanningError(f"{where}: an interval join bounds the time attributes of "
                                    f"both sides, and they must both be rowtime or both "
                                    f"proctime; this condition mixes a rowtime and a proctime "
                                    f"attribute")
            bounds = Bounds()
            for _, predicates in time_conjuncts:
                add_to_bounds(bounds, predicates, where)
            if top_level:
                ctx.interval_joins += 1
            node = self._interval_join(left, right, join_type, left_keys, right_keys, remaining,
                                       bounds, condition, out_scope, output, renamed, ctx,
                                       top_level, event_time=time_kinds == {"rowtime"})
            return Relation(node, out_scope, names)
        remaining = [conjunct for conjunct, _ in time_conjuncts] + remaining
        non_equi = self._non_equi(remaining, out_scope, output, where)
        node = self._regular_join(left, right, join_type, left_keys, right_keys, non_equi,
                                  condition, output, renamed, ctx, top_level)
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
                       condition, out_scope, output, renamed, ctx, top_level,
                       event_time: bool) -> ExecNode:
        where = ctx.where
        left_row, right_row = left.node.row_type, right.node.row_type
        early = ctx.hints.early_fire if top_level else None
        non_equi = self._non_equi(remaining, out_scope, output, where)
        time_index = (lambda row: row.rowtime_index) if event_time else \
            (lambda row: row.proctime_index)
        left_time, right_time = time_index(left_row), time_index(right_row)
        spec = IntervalJoinSpec(
            join_spec=JoinSpec(join_type=join_type.value, left_keys=left_keys,
                               right_keys=right_keys, filter_nulls=[True] * len(left_keys),
                               non_equi_condition=non_equi),
            window_bounds=WindowBounds(is_event_time=event_time, left_lower_bound=bounds.lower,
                                       left_upper_bound=bounds.upper,
                                       left_time_index=left_time, right_time_index=right_time))
        time_mode = (early_fire_time_mode(early, event_time, str(ctx.hints.early_fire_hint.position))
                     if early else None)
        description = (
            f"IntervalJoin(joinType=[{join_type.label}], windowBounds=[isRowTime="
            f"{str(event_time).lower()}, leftLowerBound={bounds.lower}, leftUpperBound="
            f"{bounds.upper}, leftTimeIndex={left_time}, rightTimeIndex={right_time}], "
            f"where=[{spark_sql(condition)}], select=[{', '.join(renamed)}]"
            + (f", earlyFire=[delay={early.delay}, timeMode={time_mode}]" if early else "")
            + ")")
        return self.add(StreamExecIntervalJoin, [left.node, right.node], interval_join_spec=spec,
                        early_fire_delay=early.delay if early else None,
                        early_fire_time_mode=time_mode,
                        output_type=output.text, description=description)

    def _regular_join(self, left, right, join_type, left_keys, right_keys, non_equi, condition,
                      output, renamed, ctx, top_level) -> ExecNode:
        """A stream-exec-join; `condition` (all of it) is shown in the description, `output`
        is the joined row (the left row for a semi or anti join)."""
        where = ctx.where
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


def _input_spec_label(unique_keys: list[list[int]], join_keys: list[int]) -> str:
    if not unique_keys:
        return "NoUniqueKey"
    if any(set(key) <= set(join_keys) for key in unique_keys):
        return "JoinKeyContainsUniqueKey"
    return "HasUniqueKey"


def _join_type(join: exp.Join, position: Position) -> JoinType:
    side = (join.side or "").upper()
    kind = (join.kind or "").upper()
    if kind in ("SEMI", "ANTI") or join.args.get("using") or join.method:
        label = kind or ("USING" if join.args.get("using") else join.method)
        hint = (f" (write it as WHERE [NOT] EXISTS (SELECT ...) or [NOT] IN (SELECT ...): a "
                f"{kind} stream-exec-join)" if kind in ("SEMI", "ANTI") else "")
        raise UnsupportedSqlError(f"{label} join{hint}", position.line, position.column,
                                  position.source)
    if kind == "CROSS" and join.args.get("on") is not None:
        raise UnsupportedSqlError("CROSS join with ON", position.line, position.column,
                                  position.source)
    return JoinType.from_sql(side)


def _join_fields(left: RowType, right: RowType, join_type: JoinType) -> tuple[list[Field], list[str]]:
    """Left fields then right fields; a clashing right name gets a numeric suffix, as in Flink
    (nodes.join.joined_names).

    Time attributes do not survive the join; the padded side of an outer join is nullable.
    """
    names = joined_names(left.names, right.names)
    fields = [Field(name, f.type.with_nullable(True) if nullable else f.type)
              for name, f, nullable in zip(
                  names, [*left.fields, *right.fields],
                  [join_type.right_outer] * len(left.fields)
                  + [join_type.left_outer] * len(right.fields))]
    return fields, names


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
    if conjunct.find(exp.Subquery, exp.Exists, exp.AggFunc, exp.Window) is not None:
        return False
    sides = {_column_side(column, left, right) for column in conjunct.find_all(exp.Column)}
    return sides == {"L", "R"}


def _check_python_condition(condition: str, output: RowType, where: str) -> None:
    """The join filter runs inside the Python operator; fail now if it cannot be evaluated there."""
    from ..runtime.pyeval import compile_predicate

    try:
        compile_predicate(condition, columns=output.names)
    except UnsupportedSqlError as err:
        raise UnsupportedSqlError(f"{err.construct} in the join condition at {where}") from None
