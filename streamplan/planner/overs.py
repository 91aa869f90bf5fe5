"""The OVER rule: a query block whose SELECT list holds aggregates over a window,
`agg(...) OVER (PARTITION BY k ORDER BY <column> ROWS|RANGE BETWEEN ... AND CURRENT ROW)`,
becomes (WHERE as a calc) an over aggregate node, whose output is the input row and one
result per call (named `w0$o0`, ... as in Flink), and the SELECT list as a calc over it.

As in Flink's StreamExecOverAggregate: every call of the block must share one window (one
partition, one ascending ORDER BY column, one frame); an OVER without a frame is RANGE
BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW; the upper bound is CURRENT ROW. A column that is
no time attribute takes an unbounded frame only (Flink refuses a bounded one), RANGE
(NonTimeRangeUnboundedPrecedingFunction) or ROWS (NonTimeRowsUnboundedPrecedingFunction).
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from ..errors import PlanningError, UnsupportedSqlError
from ..nodes.group_aggregate import AggCallSpec
from ..nodes.over_aggregate import (CURRENT_ROW, PRECEDING, UNBOUNDED_PRECEDING,
                                    OverAggCallSpec, OverGroup,
                                    OverSpec, StreamExecOverAggregate, WindowBound)
from ..nodes.rank import PartitionSpec, SortField, SortSpec
from ..durations import format_duration_ms
from ..types import Field, RowType, quote_identifier
from .aggregates import aggregate_calls, over_aggregate_call, result_type
from .common import QueryContext, Relation, _column
from .interval_bounds import interval_ms
from .scope import Scope, ScopeField, plain_column
from .user_aggregates import user_aggregate_spec

NEEDS = "stream-exec-over-aggregate"


def over_windows(select: exp.Select) -> list[exp.Window]:
    """The OVER windows of the SELECT list (an aggregate's or another function's)."""
    return [window for item in select.expressions for window in item.find_all(exp.Window)]


class OverRules:
    """Over aggregation; a mixin of PlanBuilder (builder.py)."""

    def _plan_over(self, select: exp.Select, relation: Relation,
                   condition: Optional[exp.Expression], ctx: QueryContext,
                   sink_row: Optional[RowType], top_level: bool) -> Relation:
        where = ctx.where

        def refuse(construct: str) -> UnsupportedSqlError:
            return UnsupportedSqlError(construct, ctx.position.line, ctx.position.column,
                                       ctx.position.source)

        if select.args.get("group") or select.args.get("having"):
            raise refuse("GROUP BY or HAVING with an OVER window in one SELECT (plan the "
                         "aggregate in a subquery)")
        # each item under a root, so that a window that is a whole item can be replaced too
        roots = [exp.Paren(this=item) for item in _expand_stars(select.expressions, relation)]
        windows = [w for root in roots for w in root.find_all(exp.Window)]
        _resolve_named_windows(select, windows, refuse)
        node = relation.node
        row = node.row_type
        if condition is not None:              # WHERE first, the time attributes kept
            scope = Scope(relation.scope_fields, where)
            text = self._sql(scope.rewrite(condition), row, where)
            self.types.check_condition(row, text, where)
            node = self._calc(node, [quote_identifier(n) for n in row.names], list(row.names),
                              text, where, **_time_attributes(row))
            row = node.row_type
        scope = Scope(relation.scope_fields, where)

        def index(expression: exp.Expression, what: str) -> int:
            if not plain_column(expression):
                raise refuse(f"an expression in {what} of an OVER window (only columns)")
            return row.index(scope.resolve(expression).name)

        frames, specs, results = set(), [], {}
        constants: list[tuple[str, str]] = []   # LAG's offsets and defaults: (SQL, name)
        for window in windows:
            function = window.this
            if not over_aggregate_call(window, self.functions):
                name = function.sql(dialect="spark").split("(")[0].upper()
                raise refuse(f"{name}() OVER (...) outside a top-N or deduplication (an over "
                             f"aggregate takes COUNT, SUM, MIN, MAX, AVG, FIRST_VALUE, "
                             f"LAST_VALUE, LAG and user-defined aggregate functions)")
            frame = self._over_frame(window, index, row, where, refuse)
            frames.add(frame)
            if isinstance(function, exp.Lag):
                if window.args.get("spec") is not None:     # Calcite's validator
                    raise PlanningError(f"{where}: ROW/RANGE not allowed with RANK, DENSE_RANK "
                                        f"or ROW_NUMBER functions (LAG takes no frame)")
                key = _lag_call(function, index, row, constants, refuse)
                if key not in results:
                    arg_type = row.fields[key[1]].type
                    results[key] = f"w0$o{len(specs)}"
                    specs.append(OverAggCallSpec(
                        name=results[key], function="LAG", arg_list=[key[1], *key[2]],
                        type=arg_type.with_nullable(True).text))
                window.replace(_column(results[key]))
                continue
            (call,) = aggregate_calls(function, self.functions)
            if call.condition is not None:
                raise refuse("FILTER on an OVER aggregate")
            if call.udf is not None:
                key = self._over_udaf(call, frame, index, row, constants, specs, where, refuse)
                if key not in results:
                    results[key] = specs[-1].name
                else:
                    specs.pop()                  # the same call twice: one result
                window.replace(_column(results[key]))
                continue
            arg = None if call.argument is None else index(call.argument, "the argument")
            key = (call.function, arg, call.distinct)
            if key not in results:
                arg_type = row.fields[arg].type if arg is not None else None
                name = f"w0$o{len(specs)}"
                specs.append(OverAggCallSpec(name=name, function=call.function,
                                         arg_list=[] if arg is None else [arg],
                                         distinct=call.distinct,
                                         type=result_type(call.function, arg_type).text))
                results[key] = name
            window.replace(_column(results[key]))
        if len(frames) > 1:
            raise refuse("OVER windows with different PARTITION BY, ORDER BY or frames in one "
                         "SELECT (each needs its own stream-exec-over-aggregate)")
        (partition, order, is_rows, (kind, rows, interval)), = frames
        if constants:           # LAG's constants as columns after the input's (OverSpec constants)
            node = self._calc(node, [quote_identifier(n) for n in row.names]
                              + [sql for sql, _ in constants],
                              list(row.names) + [name for _, name in constants], None, where,
                              **_time_attributes(row))
            row = node.row_type
        if any(s.function == "LAG" for s in specs) and (kind != UNBOUNDED_PRECEDING or not (
                row.fields[order].rowtime or row.fields[order].proctime)):
            raise refuse("LAG() OVER a bounded frame or a non-time ORDER BY (LAG cannot "
                         "retract; Flink's LagAggFunction has no retract)")
        if any(s.function in ("FIRST_VALUE", "LAST_VALUE") for s in specs) and not (
                row.fields[order].rowtime or row.fields[order].proctime):
            raise refuse("FIRST_VALUE() / LAST_VALUE() OVER a non-time ORDER BY (Flink's "
                         "non-time over aggregate takes them in sort order, which is not "
                         "implemented here)")
        lower = WindowBound(kind=kind, rows=rows, interval=interval)
        out_row = RowType(row.fields + tuple(Field(spec.name, _result_field_type(spec))
                                             for spec in specs))
        hinted = relation.names if top_level else ()
        text = ", ".join(f"{s.function}({'DISTINCT ' if s.distinct else ''}"
                         f"{', '.join(row.names[i] for i in s.arg_list) if s.arg_list else '*'})"
                         f" AS {s.name}" for s in specs)
        over = self.add(
            StreamExecOverAggregate, [node],
            over_spec=OverSpec(partition=PartitionSpec(fields=list(partition)), groups=[OverGroup(
                order_by=SortSpec(fields=[SortField(index=order, is_ascending=True,
                                                    null_is_last=False)]),
                is_rows=is_rows, lower_bound=lower,
                upper_bound=WindowBound(kind=CURRENT_ROW), agg_calls=specs)]),
            output_type=out_row.text,
            state_ttls=[self._state_ttl(hinted, ctx, is_join=False)],
            description=f"OverAggregate(partitionBy=[{', '.join(row.names[i] for i in partition)}], "
                        f"orderBy=[{row.names[order]} ASC], window=[{_frame_text(is_rows, lower)}], "
                        f"select=[{', '.join(row.names)}, {text}])")
        fields = [ScopeField(f.qualifier, f.name, f.field) for f in relation.scope_fields]
        fields += [ScopeField("", spec.name, out_row.fields[len(row.fields) + n])
                   for n, spec in enumerate(specs)]
        items = [root.this for root in roots]
        return self._plan_projection(items, Relation(over, fields), None, ctx, sink_row)

    def _over_udaf(self, call, frame, index, row: RowType, constants: list[tuple[str, str]],
                   specs: list, where: str, refuse) -> tuple:
        """A user-defined aggregate function over a time-ordered window: its arguments are
        columns, or constants (literals, casts of literals: no column) projected after the
        input's columns (as LAG's, as Flink's calc under the over aggregate does); a
        bounded frame retracts the rows that leave it, so the function needs retract (Flink's
        bounded over functions call it). Appends its spec; returns the key of equal calls."""
        _, order, is_rows, (kind, _, _) = frame
        field = row.fields[order]
        if is_rows and not (field.rowtime or field.proctime):
            raise refuse(f"{call.udf.name}() OVER a non-time ORDER BY with ROWS (Flink's "
                         f"NonTimeRowsUnboundedPrecedingFunction keeps a later row's aggregate "
                         f"value where it reads accumulators, which holds only for built-in "
                         f"aggregates whose value is their accumulator; RANGE runs them)")
        arg_list = []
        for argument in call.arguments:
            if not any(True for _ in argument.find_all(exp.Column)):    # a constant
                text = argument.sql(dialect="spark")
                known = [n for n, (sql, _) in enumerate(constants) if sql == text]
                if not known:
                    constants.append((text, f"$udaf_constant{len(constants)}"))
                arg_list.append(len(row.fields) + (known[0] if known else len(constants) - 1))
            else:
                arg_list.append(index(argument, "the arguments"))
        arg_types = [row.fields[i].type if i < len(row.fields) else
                     self.types.resolve(row, [constants[i - len(row.fields)][0]], None, where)[0]
                     for i in arg_list]
        spec = user_aggregate_spec(call, arg_types, kind != UNBOUNDED_PRECEDING, where,
                                   "its OVER frame is bounded (rows that leave the frame are "
                                   "retracted from the accumulator)")
        specs.append(OverAggCallSpec(name=f"w0$o{len(specs)}", function="UDAF",
                                     arg_list=arg_list, type=spec.result_type,
                                     user_function=spec))
        return ("UDAF", spec.identity, tuple(arg_list))

    def _over_frame(self, window: exp.Window, index, row: RowType, where: str, refuse):
        """(partition indexes, ORDER BY index, ROWS?, lower bound as (kind, rows, interval))
        of one OVER window."""
        partition = tuple(index(e, "PARTITION BY") for e in window.args.get("partition_by") or [])
        order = window.args.get("order")
        ordered = list(order.expressions) if order else []
        if len(ordered) != 1:
            raise PlanningError(f"{where}: an OVER window in stream mode is ordered by one time "
                                f"attribute (got {len(ordered)} ORDER BY columns)")
        if ordered[0].args.get("desc"):
            raise PlanningError(f"{where}: The window can only be ordered in ASCENDING mode.")
        order_index = index(ordered[0].this, "ORDER BY")
        field = row.fields[order_index]
        non_time = not (field.rowtime or field.proctime)
        spec = window.args.get("spec")
        if spec is None:
            return partition, order_index, False, (UNBOUNDED_PRECEDING, None, None)
        is_rows = str(spec.args.get("kind")).upper() == "ROWS"
        end = spec.args.get("end") or "CURRENT ROW"     # `RANGE x PRECEDING`: SQL's shorthand
        if not (isinstance(end, str) and end.upper() == "CURRENT ROW"):
            raise refuse(f"an OVER frame ending at {end} (Flink: OVER RANGE FOLLOWING windows are "
                         f"not supported yet; the frame ends at CURRENT ROW)")
        start, side = spec.args.get("start"), str(spec.args.get("start_side") or "").upper()
        unbounded = isinstance(start, str) and start.upper() == "UNBOUNDED" and side == PRECEDING
        # StreamExecOverAggregate's TableException for a bounded frame on a non-time ORDER BY
        if non_time and side == PRECEDING and not unbounded:
            raise PlanningError(f"{where}: ORDER BY {field.name} ({field.type.text}), no time "
                                f"attribute: Non-time attribute sort is not supported for "
                                f"bounded OVER window.")
        if unbounded:
            return partition, order_index, is_rows, (UNBOUNDED_PRECEDING, None, None)
        if side != PRECEDING:
            raise refuse(f"an OVER frame starting at {spec.sql(dialect='spark')}")
        if is_rows:
            if not (isinstance(start, exp.Literal) and not start.is_string
                    and start.this.isdigit()):
                raise PlanningError(f"{where}: ROWS n PRECEDING takes an integer literal")
            return partition, order_index, True, (PRECEDING, int(start.this), None)
        if not isinstance(start, exp.Interval):
            raise refuse(f"RANGE {start.sql(dialect='spark')} PRECEDING over a time attribute "
                         f"(an INTERVAL)")
        return partition, order_index, False, (PRECEDING, None,
                                               format_duration_ms(interval_ms(start)))


def _time_attributes(row: RowType) -> dict[str, Optional[str]]:
    """The columns of `row` that are its rowtime and proctime attributes, which a calc below
    the over aggregate keeps (the ORDER BY column's kind picks Flink's function)."""
    return {"rowtime": next((f.name for f in row.fields if f.rowtime), None),
            "proctime": next((f.name for f in row.fields if f.proctime), None)}


def _lag_call(function: exp.Lag, index, row: RowType, constants: list[tuple[str, str]],
              refuse) -> tuple:
    """LAG(value[, offset[, default]]): the value's input index and the indexes its offset
    (an integer literal, 1 when left out) and default (a literal, NULL when left out, cast to
    the value's type) take among the constants projected after the input's columns; the key
    that tells equal calls apart."""
    value = index(function.this, "the argument")
    offset, default = function.args.get("offset"), function.args.get("default")
    extra = []
    if offset is not None:
        if not (isinstance(offset, exp.Literal) and not offset.is_string and offset.this.isdigit()):
            raise refuse(f"LAG with the offset {offset.sql(dialect='spark')} (a non-negative "
                         f"integer literal)")
        extra.append(f"CAST({int(offset.this)} AS INT)")
    if default is not None:
        if any(True for _ in default.find_all(exp.Column, exp.Window)):
            raise refuse(f"LAG with the default {default.sql(dialect='spark')} (a constant)")
        if offset is None:
            extra.append("CAST(1 AS INT)")
        extra.append(f"CAST({default.sql(dialect='spark')} AS "
                     f"{row.fields[value].type.to_spark().simpleString().upper()})")
    indexes = []
    for sql in extra:
        known = [n for n, (text, _) in enumerate(constants) if text == sql]
        if not known:
            constants.append((sql, f"$lag_constant{len(constants)}"))
        indexes.append(len(row.fields) + (known[0] if known else len(constants) - 1))
    return ("LAG", value, tuple(indexes))


def _resolve_named_windows(select: exp.Select, windows: list[exp.Window], refuse) -> None:
    """`OVER w` with `WINDOW w AS (...)`: the reference takes the definition's partition,
    ORDER BY and frame (in place)."""
    named = {w.this.name: w for w in select.args.get("windows") or []}
    for window in windows:
        alias = window.args.get("alias")
        if alias is None:
            continue
        definition = named.get(alias.name)
        if definition is None:
            raise refuse(f"OVER {alias.name}: no WINDOW {alias.name} AS (...) in the SELECT")
        if definition.args.get("alias") is not None or any(
                window.args.get(part) for part in ("partition_by", "order", "spec")):
            raise refuse(f"a window that refines another (OVER ({alias.name} ...))")
        window.set("alias", None)
        for part in ("partition_by", "order", "spec"):
            value = definition.args.get(part)
            window.set(part, value.copy() if isinstance(value, exp.Expression)
                       else [v.copy() for v in value] if value else None)


def _expand_stars(items: list[exp.Expression], relation: Relation) -> list[exp.Expression]:
    """Copies of the SELECT items with `*` and `t.*` spelled out (the over results are not
    columns of the FROM clause)."""
    expanded = []
    for item in items:
        if isinstance(item, exp.Star) or (isinstance(item, exp.Column)
                                          and isinstance(item.this, exp.Star)):
            qualifier = item.table if isinstance(item, exp.Column) else ""
            expanded.extend(exp.column(exp.to_identifier(f.name, quoted=True),
                                       table=exp.to_identifier(f.qualifier) if f.qualifier else None)
                            for f in relation.scope_fields
                            if not qualifier or f.qualifier == qualifier)
        else:
            expanded.append(item.copy())
    return expanded


def _result_field_type(spec: AggCallSpec):
    from ..types import parse_type

    return parse_type(spec.type)


def _frame_text(is_rows: bool, lower: WindowBound) -> str:
    """Flink's rendering: ROWS BETWEEN 2 PRECEDING AND CURRENT ROW."""
    if lower.kind == UNBOUNDED_PRECEDING:
        start = "UNBOUNDED PRECEDING"
    elif lower.rows is not None:
        start = f"{lower.rows} PRECEDING"
    else:
        start = f"{lower.interval} PRECEDING"
    return f"{'ROWS' if is_rows else 'RANG'} BETWEEN {start} AND CURRENT ROW"
