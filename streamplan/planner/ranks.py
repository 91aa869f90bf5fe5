"""The ROW_NUMBER rule: a FROM that is one subquery or CTE with ROW_NUMBER() OVER (...) in
its SELECT list, filtered on the row number by the outer WHERE, becomes a deduplicate
(first or last row per key by a time attribute, the row number unread) or a rank node
(top-N, its rank range taken from the outer WHERE, as in Flink).
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from ..changelog import RowKind
from ..errors import PlanningError, UnsupportedSqlError
from ..nodes.deduplicate import StreamExecDeduplicate
from ..nodes.calc import StreamExecCalc
from ..nodes.rank import APPEND_FAST, RETRACT, UPDATE_FAST
from ..nodes.rank import (PartitionSpec, RankRange, RankStrategy, SortField, SortSpec,
                          StreamExecRank, taken_for_keep_first)
from ..options import MINIBATCH_ENABLED
from ..plan import CompiledPlan
from ..types import Field, RowType, SqlType, quote_identifier
from .aggregates import over_aggregate_call
from .common import QueryContext, Relation, _conjuncts, _dedupe
from .monotonicity import CONSTANT, DECREASING, INCREASING, MonotonicityQuery
from .scope import Scope, ScopeField, plain_column


class RankRules:
    """Deduplication and top-N; a mixin of PlanBuilder (builder.py)."""

    def _ranked_source(self, select: exp.Select, ctx: QueryContext):
        """(inner SELECT, its ROW_NUMBER item, alias) when FROM is a single subquery or CTE
        whose SELECT list holds a ROW_NUMBER() OVER (...) window."""
        source = select.args.get("from_") or select.args.get("from")
        if source is None or select.args.get("joins"):
            return None
        item = source.this
        if isinstance(item, exp.Subquery) and isinstance(item.this, exp.Select):
            inner, alias = item.this, item.alias or ""
        elif isinstance(item, exp.Table) and isinstance(ctx.ctes.get(item.name), exp.Select):
            inner, alias = ctx.ctes[item.name], item.alias or item.name
        else:
            return None
        windows = [e for e in inner.expressions if isinstance(e, exp.Alias)
                   and isinstance(e.this, exp.Window)
                   and not over_aggregate_call(e.this, self.functions)]
        if not windows:
            return None
        if len(windows) > 1:
            raise UnsupportedSqlError("several OVER windows in one SELECT", ctx.position.line,
                                      ctx.position.column, ctx.position.source)
        return inner, windows[0], alias

    def _plan_rank(self, inner: exp.Select, item: exp.Alias, alias: str, outer: exp.Select,
                   condition: Optional[exp.Expression], ctx: QueryContext,
                   top_level: bool) -> tuple[Relation, Optional[exp.Expression]]:
        """The inner SELECT without its ROW_NUMBER, then a deduplicate or rank node; returns
        the relation the outer query reads and the rest of its WHERE."""
        where = ctx.where
        window, rn = item.this, item.alias
        function = window.this
        if not isinstance(function, exp.RowNumber):
            name = function.sql(dialect="spark").split("(")[0].upper()
            raise UnsupportedSqlError(
                f"{name}() OVER (only ROW_NUMBER() is supported for top-N and deduplication)",
                ctx.position.line, ctx.position.column, ctx.position.source)
        if window.args.get("spec"):
            raise UnsupportedSqlError("a window frame on ROW_NUMBER()", ctx.position.line,
                                      ctx.position.column, ctx.position.source)
        rest = [conjunct for conjunct in (_conjuncts(condition) if condition is not None else [])]
        start, end, remaining = _rank_range(rest, rn, where)
        if end is None:
            raise UnsupportedSqlError(
                f"ROW_NUMBER() without an upper bound on '{rn}' in the outer WHERE (an OVER "
                f"aggregate, needs stream-exec-over-aggregate)", ctx.position.line,
                ctx.position.column, ctx.position.source)
        stripped = inner.copy()
        stripped.set("expressions", [e for e in stripped.expressions
                                     if not (isinstance(e, exp.Alias) and e.alias == rn)])
        window, hidden = _window_reads_from_scope(window, stripped)
        source = self._plan_select(stripped, ctx)
        scope = Scope(source.scope_fields, where)
        row = source.node.row_type

        def index(expression: exp.Expression, what: str) -> int:
            if not plain_column(expression):
                raise UnsupportedSqlError(f"an expression in {what} of ROW_NUMBER() (only "
                                          f"columns)", ctx.position.line, ctx.position.column,
                                          ctx.position.source)
            return row.index(scope.resolve(expression).name)

        partition = [index(e, "PARTITION BY") for e in window.args.get("partition_by") or []]
        order = window.args.get("order")
        ordered = list(order.expressions) if order else []
        if not ordered:
            raise PlanningError(f"{where}: ROW_NUMBER() needs ORDER BY in its OVER clause")
        sort = [(index(o.this, "ORDER BY"), not o.args.get("desc"),
                 bool(o.args.get("nulls_first"))) for o in ordered]
        uses_rn = _outer_reads(outer, remaining, rn, alias)
        time_field = row.fields[sort[0][0]] if len(sort) == 1 else None
        names = (alias,) if alias else ()
        hinted = names if top_level else ()
        input_node = source.node
        window = self._attached_window(input_node, partition)      # window_ranks.py
        if window is not None:
            node = self._window_rank(window, input_node, partition, sort, start, end, uses_rn,
                                     rn, ctx)
            fields = list(node.row_type.fields)
        elif (start, end) == (1, 1) and time_field is not None and not uses_rn and (
                time_field.rowtime or time_field.proctime):
            keep_last = not sort[0][1]
            ttls = [self._state_ttl(hinted, ctx, is_join=False)]
            keys = ", ".join(row.names[i] for i in partition)
            node = self.add(StreamExecDeduplicate, [input_node], unique_keys=partition,
                            is_rowtime=time_field.rowtime, keep_last_row=keep_last,
                            generate_update_before=True, output_type=_plain_row(row).text,
                            # Flink's ChangelogPlanUtils.isInsertOnly (mini-batch is off)
                            output_insert_only=not keep_last,
                            description=f"Deduplicate(keep=[{'LastRow' if keep_last else 'FirstRow'}], "
                                        f"key=[{keys}], order=[{'ROWTIME' if time_field.rowtime else 'PROCTIME'}]"
                                        f"{'' if keep_last else ', outputInsertOnly=[true]'})",
                            state_ttls=ttls)
            fields = list(node.row_type.fields)
        else:
            insert_only = self.modes[input_node.id] == frozenset({RowKind.INSERT})
            out_row = _plain_row(row)
            rn_name = _dedupe([*out_row.names, rn])[-1]   # apart from a column of that name
            # Flink's RankNumberColumnRemoveRule: a row number that can only be one value is
            # not output by the rank but projected as a constant after it.
            constant_rn = uses_rn and start == end
            if uses_rn and not constant_rn:
                out_row = RowType(out_row.fields + (Field(rn_name, SqlType("BIGINT", (), False)),))
            ttls = [self._state_ttl(hinted, ctx, is_join=False)]
            order_text = ", ".join(f"{row.names[i]} {'ASC' if asc else 'DESC'}"
                                   for i, asc, _ in sort)
            strategy = RankStrategy(type=APPEND_FAST if insert_only else RETRACT)
            sort_spec = SortSpec(fields=[SortField(index=i, is_ascending=asc,
                                                   null_is_last=not nulls_first)
                                         for i, asc, nulls_first in sort])
            rank_range = RankRange(start=start, end=end)
            node = self.add(
                StreamExecRank, [input_node], rank_type="ROW_NUMBER",
                partition=PartitionSpec(fields=partition), order_by=sort_spec,
                rank_range=rank_range,
                rank_strategy=strategy, output_row_number=uses_rn and not constant_rn,
                generate_update_before=not taken_for_keep_first(
                    strategy, rank_range, uses_rn and not constant_rn, sort_spec,
                    self.config.get(MINIBATCH_ENABLED)),
                output_type=out_row.text, state_ttls=ttls,
                description=f"Rank(strategy=[{APPEND_FAST if insert_only else RETRACT}], "
                            f"rankType=[ROW_NUMBER], rankRange=[rankStart={start}, "
                            f"rankEnd={end}], partitionBy=[{', '.join(row.names[i] for i in partition)}], "
                            f"orderBy=[{order_text}], select=[{', '.join(out_row.names)}])")
            if constant_rn:
                node = self._calc(node, [quote_identifier(n) for n in out_row.names]
                                  + [f"CAST({start} AS BIGINT)"], [*out_row.names, rn_name],
                                  None, where)
            fields = list(node.row_type.fields)
        scope_fields = [ScopeField(alias, f.name, fields[i])
                        for i, f in enumerate(source.scope_fields) if f.name not in hidden]
        if uses_rn:
            scope_fields.append(ScopeField(alias, rn, fields[-1]))
        remaining_condition = exp.and_(*remaining) if len(remaining) > 1 else (
            remaining[0] if remaining else None)
        return Relation(node, scope_fields, names), remaining_condition

    def _update_fast_ranks(self) -> None:
        """Flink's UpdateFastStrategy, decided once the graph is complete (before the -U
        inference): a rank or sort-limit planned with the Retract strategy takes it when
        (RankProcessStrategy.analyzeRankProcessStrategies) its input has a unique key holding
        the partition key and every sort field only moves towards the top (monotonicity.py),
        and (the changelog inference's ONLY_UPDATE_AFTER) the node producing its updates can
        leave out -U: an aggregate, rank, deduplicate or normalize reached through
        projections without a filter that feed nothing else. Its input then emits no -U."""
        plan = CompiledPlan(self.nodes, self.edges)
        monotonicity = MonotonicityQuery(plan.inputs_of)
        consumers: dict[int, int] = {}
        for edge in self.edges:
            consumers[edge.source] = consumers.get(edge.source, 0) + 1
        for index, node in enumerate(self.nodes):
            if not isinstance(node, StreamExecRank) or node.rank_strategy.type != RETRACT:
                continue
            (source,) = plan.inputs_of(node)
            keys = self.unique_keys[source.id]
            partition = set(node.partition.fields)
            if not keys or not any(partition <= set(key) for key in keys):
                continue
            if not _moves_to_top(node, monotonicity.of(source)):
                continue
            if not _updates_without_before(source, plan, consumers, self.unique_keys):
                continue
            strategy = RankStrategy(type=UPDATE_FAST, primary_keys=list(keys[0]))
            description = node.description.replace(   # a sort-limit's, then a rank's
                f"strategy=[{RETRACT}Strategy]",
                f"strategy=[{UPDATE_FAST}Strategy[{','.join(map(str, keys[0]))}]]").replace(
                f"strategy=[{RETRACT}]", f"strategy=[{strategy.label}]")
            self.nodes[index] = node.model_copy(update={"rank_strategy": strategy,
                                                        "description": description})


def _moves_to_top(rank: StreamExecRank, monotonicity) -> bool:
    """Every sort field is CONSTANT, or INCREASING sorted descending, or DECREASING sorted
    ascending: an update can only move a row towards the top."""
    if monotonicity is None or not rank.order_by.fields:
        return False
    return all(monotonicity[f.index] == CONSTANT
               or (monotonicity[f.index] == INCREASING and not f.is_ascending)
               or (monotonicity[f.index] == DECREASING and f.is_ascending)
               for f in rank.order_by.fields)


def _updates_without_before(node, plan: CompiledPlan, consumers: dict[int, int],
                            unique_keys: dict[int, list[list[int]]]) -> bool:
    """Whether `node` can send its one consumer updates without -U (Flink's
    ONLY_UPDATE_AFTER): a node that generates its updates, through calcs that need no -U
    themselves (no filter, or one on the input's upsert key: FLINK-9528)."""
    while consumers.get(node.id) == 1:
        if "generate_update_before" in type(node).model_fields:
            return True
        if not isinstance(node, StreamExecCalc):
            return False
        (source,) = plan.inputs_of(node)
        if node.needs_update_before(unique_keys[source.id], False, source.row_type):
            return False
        node = source
    return False


def _outer_reads(outer: exp.Select, remaining: list[exp.Expression], rn: str,
                 alias: str) -> bool:
    """Whether the outer query reads the ROW_NUMBER column `rn`: by name, or through a `*`
    (or `alias.*`), which expands to every column of the subquery, `rn` included."""
    for item in outer.expressions:
        if isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(
                item.this, exp.Star) and item.table in ("", alias)):
            return True
    return any(isinstance(c, exp.Column) and c.name == rn and c.table in ("", alias)
               for e in list(outer.expressions) + remaining for c in e.find_all(exp.Column))


def _window_reads_from_scope(window: exp.Window, select: exp.Select
                             ) -> tuple[exp.Window, set[str]]:
    """PARTITION BY and ORDER BY of a ROW_NUMBER() read the FROM clause's columns, as in
    Flink, not only the SELECT list's: a column they read that the list does not output (or a
    qualified one, `c.name`, under a `*`, whose expansion drops qualifiers) is added to
    `select` under a hidden name (dropped again after the rank), and the window is rewritten
    to read it there; a qualified column the list selects is read under its output name.
    Returns the window and the hidden names."""
    star = any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
               for e in select.expressions)
    outputs = {e.alias_or_name for e in select.expressions}
    window, hidden = window.copy(), {}
    order = window.args.get("order")
    reads = list(window.args.get("partition_by") or []) + (
        [o.this for o in order.expressions] if order else [])
    for column in reads:
        if not plain_column(column):
            continue
        if column.table and not star:   # `c.name`: the item selecting that column, by its name
            same = next((item.alias_or_name for item in select.expressions
                         if plain_column(item.unalias()) and item.unalias().name == column.name
                         and item.unalias().table in ("", column.table)), None)
            if same is not None:
                column.replace(exp.column(exp.to_identifier(same, quoted=True)))
                continue
        elif not column.table and (star or column.name in outputs):
            continue
        key = (column.table, column.name)
        if key not in hidden:
            hidden[key] = _dedupe([*outputs, *hidden.values(), f"{column.name}$over"])[-1]
            select.set("expressions", [*select.expressions,
                                       exp.alias_(column.copy(), hidden[key], quoted=True)])
        column.replace(exp.column(exp.to_identifier(hidden[key], quoted=True)))
    return window, set(hidden.values())


def _plain_row(row: RowType) -> RowType:
    """The same fields without time attributes: they do not survive a stateful operator."""
    return RowType(tuple(Field(f.name, f.type) for f in row.fields))


def _rank_range(conjuncts: list[exp.Expression], rn: str,
                where: str) -> tuple[int, Optional[int], list[exp.Expression]]:
    """Flink's constant rank range from `rn = n`, `rn <= n`, `rn < n`, `rn >= n`, `rn > n`,
    `rn BETWEEN a AND b` (either orientation); the other conjuncts stay a filter."""
    start, end, rest = 1, None, []

    def is_rn(node: exp.Expression) -> bool:
        return isinstance(node, exp.Column) and node.name == rn

    def number(node: exp.Expression) -> Optional[int]:
        if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
            return int(node.this)
        return None

    flip = {exp.LT: exp.GT, exp.LTE: exp.GTE, exp.GT: exp.LT, exp.GTE: exp.LTE, exp.EQ: exp.EQ}
    for conjunct in conjuncts:
        if isinstance(conjunct, exp.Between) and is_rn(conjunct.this):
            low, high = number(conjunct.args["low"]), number(conjunct.args["high"])
            if low is None or high is None:
                raise PlanningError(f"{where}: the bounds of '{rn}' must be integer literals")
            start, end = max(start, low), high if end is None else min(end, high)
            continue
        op = type(conjunct)
        if op in flip and (is_rn(conjunct.this) or is_rn(conjunct.expression)):
            value = number(conjunct.expression if is_rn(conjunct.this) else conjunct.this)
            if value is None:
                raise PlanningError(f"{where}: '{rn}' must be compared with an integer literal")
            op = op if is_rn(conjunct.this) else flip[op]
            if op in (exp.EQ, exp.LTE, exp.LT):
                limit = value if op is not exp.LT else value - 1
                end = limit if end is None else min(end, limit)
            if op in (exp.EQ, exp.GTE, exp.GT):
                start = max(start, value if op is not exp.GT else value + 1)
            continue
        rest.append(conjunct)
    if end is not None and end < start:
        raise PlanningError(f"{where}: the condition on '{rn}' selects no rank ({start} to {end})")
    return start, end, rest
