"""The aggregation rule: a query block with GROUP BY, HAVING or aggregate calls becomes a
calc (group keys and distinct arguments, WHERE), a group aggregate (one result per
distinct call) and a calc over the keys and results (HAVING, the SELECT list). Which calls
are supported and their result types are in aggregates.py.
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from ..changelog import RowKind
from ..errors import PlanningError, UnsupportedSqlError
from ..nodes.global_group_aggregate import GlobalAggCallSpec, StreamExecGlobalGroupAggregate
from ..nodes.group_aggregate import AggCallSpec, GroupAggCallSpec, StreamExecGroupAggregate
from ..nodes.window_aggregate import RETRACTING_WINDOW_CALLS
from ..nodes.local_group_aggregate import (StreamExecLocalGroupAggregate, accumulator_fields,
                                           accumulator_text)
from ..options import (AGG_PHASE_STRATEGY, DISTINCT_AGG_SPLIT_ENABLED, INCREMENTAL_AGG_ENABLED,
                       MINIBATCH_ENABLED)
from ..types import Field, RowType, SqlType, parse_type, quote_identifier
from .aggregates import (ORDERED_FUNCTIONS, AggregateCall, aggregate_calls, is_aggregate,
                         is_grouping_function, result_type)
from .grouping_sets import GroupingSets, grouping_function, grouping_sets
from .split_distinct import SplitDistinctRules, splittable
from .user_aggregates import (check_user_functions_in_window, need_retraction_of,
                              user_aggregate_spec, without_merge)
from .field_access import field_name
from .common import QueryContext, Relation, _column, _dedupe
from .scope import Scope, ScopeField, plain_column, spark_sql
from .variance import reduce_variance
from .windows import splits_no_distinct, uses_window_column


class AggregateRules(SplitDistinctRules):
    """GROUP BY and aggregates; a mixin of PlanBuilder (builder.py)."""

    def _plan_aggregate(self, select: exp.Select, relation: Relation,
                        where_condition: Optional[exp.Expression], ctx: QueryContext,
                        sink_row: Optional[RowType], top_level: bool) -> Relation:
        """Calc (group keys, arguments; WHERE) -> group aggregate -> Calc (HAVING, SELECT)."""
        where = ctx.where
        scope = Scope(relation.scope_fields, where)
        input_row = relation.node.row_type
        group = select.args.get("group")
        grouping = grouping_sets(list(group.expressions) if group else [],
                                 lambda key: spark_sql(scope.rewrite(key)), ctx)
        window_keys: list[str] = []
        unsplit = splits_no_distinct(relation, list(grouping.keys))
        if relation.window is not None:
            split = self._window_aggregate(relation, list(grouping.keys), ctx)
            if split is None:               # a group aggregate over the window TVF's rows
                relation = self._window_table_function(relation, ctx)
                scope = Scope(relation.scope_fields, where)
                input_row = relation.node.row_type
            else:
                grouping = _without_window_keys(grouping, split[0], relation, ctx)
                window_keys = split[1]
        grouping = grouping.in_input_order(
            lambda key: input_row.names.index(scope.resolve(key).name) if plain_column(key) else None)
        keys = list(grouping.keys)
        having = select.args.get("having")

        def argument_type(argument: exp.Expression) -> SqlType:
            text = self._sql(scope.rewrite(argument), input_row, where)
            return self.types.resolve(input_row, [text], None, where)[0]

        # STDDEV / VARIANCE as Flink reduces them: WELFORD_M2 and COUNT (variance.py)
        try:
            items = [reduce_variance(item, argument_type) for item in select.expressions]
            if having:
                having = exp.Having(this=reduce_variance(having.this, argument_type))
        except UnsupportedSqlError as err:
            raise UnsupportedSqlError(err.construct, ctx.position.line, ctx.position.column,
                                      ctx.position.source) from None
        calls: list[AggregateCall] = []
        for expression in items + ([having.this] if having else []):
            try:
                calls.extend(aggregate_calls(expression, self.functions))
            except UnsupportedSqlError as err:
                if err.line is not None:
                    raise
                raise UnsupportedSqlError(err.construct, ctx.position.line, ctx.position.column,
                                          ctx.position.source) from None
        if any(isinstance(item, exp.Star) or (isinstance(item, exp.Column)
                                              and isinstance(item.this, exp.Star)) for item in items):
            raise PlanningError(f"{where}: SELECT * cannot be used with GROUP BY or aggregates; "
                                f"name the grouped columns and aggregates")
        # 1. the calc below the aggregate: group keys, then the distinct aggregate arguments
        # and FILTER conditions (a condition as `(c) IS TRUE`, Calcite's boolean NOT NULL
        # column: NULL skips the row like FALSE), in the order of the calls
        key_sql = [self._sql(scope.rewrite(key), input_row, where) for key in keys]
        # the aggregate groups by the keys and, with grouping sets, the expand id after them
        key_count = len(keys) + (grouping.sets is not None)
        arg_sql: list[str] = []

        def column_of(expression: Optional[exp.Expression], is_filter: bool = False):
            """The calc column (after the keys) of an argument or FILTER condition."""
            if expression is None:
                return None
            text = self._sql(scope.rewrite(expression), input_row, where)
            if is_filter:
                self.types.check_condition(input_row, text, where)
                text = self._sql(exp.Is(this=exp.Paren(this=scope.rewrite(expression)),
                                        expression=exp.true()), input_row, where)
            if text not in arg_sql:
                arg_sql.append(text)
            return key_count + arg_sql.index(text)   # in the aggregate's input

        if relation.window is not None:
            for expression in [*keys, *(c.argument for c in calls if c.argument is not None),
                               *(c.condition for c in calls if c.condition is not None),
                               *([where_condition] if where_condition is not None else [])]:
                column = uses_window_column(expression, relation)
                if column is not None:
                    raise UnsupportedSqlError(
                        f"{column} in '{expression.sql(dialect='spark')}' below the window "
                        f"aggregate (a window aggregate over the window table function's "
                        f"columns, Flink's WindowAttached windowing)",
                        ctx.position.line, ctx.position.column, ctx.position.source)
        columns = [([column_of(a) for a in call.arguments] if call.arguments
                    else column_of(call.argument), column_of(call.condition, is_filter=True))
                   for call in calls]
        condition = (self._sql(scope.rewrite(where_condition), input_row, where)
                     if where_condition is not None else None)
        if condition is not None:
            self.types.check_condition(input_row, condition, where)
        projection = key_sql + arg_sql
        key_names = [key.name if plain_column(key) else f"$f{i}" for i, key in enumerate(keys)]
        names = _dedupe(key_names + [f"$f{len(keys) + i}" for i in range(len(arg_sql))])
        if relation.window is not None:      # the time attribute, last (Flink's calc)
            time_field = input_row.fields[relation.window.time_index]
            time_sql = quote_identifier(time_field.name)
            if time_sql not in arg_sql:
                projection.append(time_sql)
                names = _dedupe(names + [time_field.name])
        time_name = None
        if relation.window is not None:
            time_sql = quote_identifier(input_row.fields[relation.window.time_index].name)
            time_name = names[projection.index(time_sql)]
        proctime = relation.window is not None and relation.window.proctime
        node = self._calc(relation.node, projection, names, condition, where,
                          rowtime=None if proctime else time_name,
                          proctime=time_name if proctime else None)
        if grouping.sets is not None:
            node = self._expand_grouping_sets(node, grouping)
        pre_row = node.row_type
        # 2. the aggregate: group keys first, then one result per distinct call
        specs: list[AggCallSpec] = []
        call_columns: dict[str, str] = {}          # call text -> its result column
        out_names = list(pre_row.names[:key_count])
        for call, (arg_index, filter_index) in zip(calls, columns):
            text = call.node.sql(dialect="spark")
            arg_list = (arg_index if isinstance(arg_index, list)
                        else [] if arg_index is None else [arg_index])
            user_function = (user_aggregate_spec(call, [pre_row.fields[i].type for i in arg_list],
                                                 need_retraction_of(self, node), where)
                             if call.udf is not None else None)
            same = next((spec for spec in specs if (spec.function, spec.distinct, spec.filter_arg,
                                                     spec.user_function)
                         == (call.function, call.distinct, filter_index, user_function)
                         and spec.arg_list == arg_list), None)
            if same is not None:
                call_columns[text] = same.name
                continue
            name = _dedupe(out_names + [f"EXPR${len(out_names)}"])[-1]
            out_names.append(name)
            if user_function is not None:
                out_type = parse_type(user_function.result_type).text
            else:
                arg_type = pre_row.fields[arg_list[0]].type if arg_list else None
                try:
                    out_type = result_type(call.function, arg_type).text
                except UnsupportedSqlError as err:       # at the INSERT's position
                    raise UnsupportedSqlError(err.construct, ctx.position.line,
                                              ctx.position.column, ctx.position.source) from None
            specs.append(GroupAggCallSpec(name=name, function=call.function, arg_list=arg_list,
                                     distinct=call.distinct, filter_arg=filter_index,
                                     type=out_type, user_function=user_function))
            call_columns[text] = name
        key_fields = [Field(f.name, f.type) for f in pre_row.fields[:key_count]]
        output = RowType(tuple(key_fields + [Field(spec.name, parse_type(spec.type))
                                             for spec in specs]))
        need_retraction = self.modes[node.id] != frozenset({RowKind.INSERT})
        grouped = ", ".join(out_names[:key_count])
        selected = ", ".join(out_names[:key_count] + [_agg_text(spec, pre_row) for spec in specs])
        split = not unsplit and self._distinct_split(specs, relation, ctx)
        if relation.window is not None:
            kind = relation.window.spec.type
            refuse_ordered([spec for spec in specs if spec.function == "LISTAGG"
                            or kind != "TumblingWindow"],
                           f"a {kind} aggregate: FIRST_VALUE and LAST_VALUE have no merge, so "
                           f"they run in a TUMBLE window (one slice a window) and in "
                           f"stream-exec-group-aggregate, LISTAGG in stream-exec-group-aggregate "
                           f"only", ctx)
            check_user_functions_in_window(specs, kind, ctx)
            time_index = pre_row.index(time_name)
            if split:
                agg = self._split_window_distinct(node, relation, key_count, specs, window_keys,
                                                  out_names[:key_count], time_index, ctx)
            else:
                if need_retraction and relation.window.spec.is_session:
                    refuse_unretractable_in_session(specs, ctx)
                agg = self._add_window_aggregate(node, relation, key_count, specs, window_keys,
                                                 out_names[:key_count] + [
                                                     _agg_text(spec, pre_row) for spec in specs],
                                                 out_names[:key_count], time_index,
                                                 need_retraction)
            output = agg.row_type
        elif split:
            ttls = [self._state_ttl(relation.names if top_level else (), ctx, is_join=False)]
            agg = self._split_distinct(node, key_count, specs, out_names, output,
                                       need_retraction, ttls, ctx)
        elif self._two_phase(ctx, specs):
            ttls = [self._state_ttl(relation.names if top_level else (), ctx, is_join=False)]
            agg = self._local_global(node, key_count, specs, out_names, output, need_retraction,
                                     ttls)
        else:
            ttls = [self._state_ttl(relation.names if top_level else (), ctx, is_join=False)]
            description = (f"GroupAggregate({f'groupBy=[{grouped}], ' if keys else ''}"
                           f"select=[{selected}])")
            agg = self.add(StreamExecGroupAggregate, [node], grouping=list(range(key_count)),
                           agg_calls=specs, generate_update_before=True,
                           need_retraction=need_retraction, output_type=output.text,
                           description=description, state_ttls=ttls)
        # 3. the calc above: HAVING and the SELECT list, over the keys and the results
        key_columns = {spark_sql(scope.rewrite(key)): output.fields[i].name
                       for i, key in enumerate(keys)}
        key_texts = list(key_columns)
        expand_id = output.fields[len(keys)].name if grouping.sets is not None else None

        def key_index(argument: exp.Expression) -> Optional[int]:
            text = spark_sql(scope.rewrite(argument))
            return key_texts.index(text) if text in key_texts else None
        for name in window_keys:              # the window columns: the node's properties
            key_columns[spark_sql(scope.rewrite(exp.column(name)))] = name

        def over_aggregate(expression: exp.Expression) -> exp.Expression:
            def replace(sub: exp.Expression) -> exp.Expression:
                if is_grouping_function(sub):
                    return grouping_function(sub, grouping, key_index, expand_id, where)
                if isinstance(sub, exp.Filter) or is_aggregate(sub, self.functions):
                    return _column(call_columns[sub.sql(dialect="spark")])
                if not isinstance(sub, exp.Literal) and not any(
                        is_aggregate(inner, self.functions) for inner in sub.walk()):
                    text = spark_sql(scope.rewrite(sub))
                    if text in key_columns:
                        return _column(key_columns[text])
                if isinstance(sub, exp.Column):
                    raise PlanningError(
                        f"{where}: column '{sub.sql(dialect='spark')}' is neither grouped nor "
                        f"aggregated; add it to GROUP BY or aggregate it")
                return sub

            return expression.copy().transform(replace)

        rewritten = []
        for index, item in enumerate(items):
            target = item.this if isinstance(item, exp.Alias) else item
            name = (item.alias if isinstance(item, exp.Alias)
                    else target.name if plain_column(target)
                    else field_name(target) or f"EXPR${index}")
            rewritten.append(exp.alias_(over_aggregate(target), name, quoted=True))
        having_expr = over_aggregate(having.this) if having else None
        agg_scope = [ScopeField("", f.name, f) for f in output.fields]
        return self._plan_projection(rewritten, Relation(agg, agg_scope), having_expr, ctx,
                                     sink_row)

    # --- mini-batch: two phases (Flink's TwoStageOptimizedAggregateRule) -------------------
    def _two_phase(self, ctx: QueryContext, specs: list[AggCallSpec]) -> bool:
        """With table.exec.mini-batch.enabled an aggregate is a local and a global one (Flink's
        TwoStageOptimizedAggregateRule) unless table.optimizer.agg-phase-strategy is ONE_PHASE
        or a call has no merge (FIRST_VALUE, LAST_VALUE, a UDAF without `merge`): then it is
        one group aggregate that runs in bundles (version 2, MiniBatchGroupAggFunction)."""
        if not self.config.get(MINIBATCH_ENABLED):
            return False
        if (self.config.get(AGG_PHASE_STRATEGY) == "ONE_PHASE" or without_merge(specs)
                or any(spec.function in UNMERGEABLE_FUNCTIONS for spec in specs)):
            return False
        refuse_ordered(specs, "a two-phase group aggregate (table.exec.mini-batch.enabled: "
                       "Flink merges LISTAGG's accumulators in a local and a global aggregate, "
                       "which do not run it here; with table.optimizer.agg-phase-strategy "
                       "ONE_PHASE it runs in one mini-batch stream-exec-group-aggregate)", ctx)
        return True

    def _distinct_split(self, specs: list[AggCallSpec], relation, ctx: QueryContext) -> bool:
        """Whether Flink's SplitAggregateRule splits this aggregate
        (table.optimizer.distinct-agg.split.enabled, a distinct call, every call a built-in:
        planner/split_distinct.py); its variants not implemented here are refused by name."""
        if not (self.config.get(DISTINCT_AGG_SPLIT_ENABLED) and any(s.distinct for s in specs)
                and splittable(specs)):
            return False
        def refuse(where: str, why: str) -> UnsupportedSqlError:
            return UnsupportedSqlError(
                f"a distinct aggregate with table.optimizer.distinct-agg.split.enabled {where} "
                f"({why})", ctx.position.line, ctx.position.column, ctx.position.source)

        if relation.window is not None:      # SESSION and processing time: never split
            return True
        if self.config.get(MINIBATCH_ENABLED):
            if not self._two_phase(ctx, specs):
                raise refuse("under mini-batch with table.optimizer.agg-phase-strategy ONE_PHASE",
                             "Flink splits it into two mini-batch group aggregates there: not "
                             "implemented; AUTO and TWO_PHASE plan "
                             "stream-exec-incremental-group-aggregate")
            if not self.config.get(INCREMENTAL_AGG_ENABLED):
                raise refuse("under mini-batch with table.optimizer.incremental-agg-enabled "
                             "false", "Flink plans four aggregates there: not implemented; the "
                             "default, true, plans stream-exec-incremental-group-aggregate")
        return True

    def _local_global(self, node, key_count: int, specs: list[AggCallSpec], out_names: list[str],
                      output: RowType, need_retraction: bool, ttls: list[int]):
        """LocalGroupAggregate -> GlobalGroupAggregate, described as Flink describes them."""
        pre_row = node.row_type
        accs = accumulator_fields(specs, pre_row)
        local_row = RowType(tuple(pre_row.fields[:key_count])
                            + tuple(field for own in accs for field in own))
        grouped = ", ".join(out_names[:key_count])
        group_by = f"groupBy=[{grouped}], " if key_count else ""
        local_select = ", ".join(out_names[:key_count] + [
            f"{_agg_text(spec, pre_row).rpartition(' AS ')[0]} AS {accumulator_text(own)}"
            for spec, own in zip(specs, accs)] + [f"COUNT(*) AS {accs[-1][0].name}"])
        local = self.add(StreamExecLocalGroupAggregate, [node], grouping=list(range(key_count)),
                         agg_calls=specs, need_retraction=need_retraction,
                         output_type=local_row.text,
                         description=f"LocalGroupAggregate({group_by}select=[{local_select}])")
        global_select = ", ".join(out_names[:key_count] + [
            f"{_function_text(spec)}({'DISTINCT ' if spec.distinct else ''}"
            f"{accumulator_text(own)}) AS {spec.name}" for spec, own in zip(specs, accs)])
        return self.add(StreamExecGlobalGroupAggregate, [local], grouping=list(range(key_count)),
                        agg_calls=GlobalAggCallSpec.of(specs), local_agg_input_row_type=pre_row.text,
                        generate_update_before=True, need_retraction=need_retraction,
                        output_type=output.text, state_ttls=ttls,
                        description=f"GlobalGroupAggregate({group_by}select=[{global_select}])")


# Built-in aggregates without merge (Flink's FirstValue/LastValue[WithRetract]AggFunction): a
# mini-batch aggregate with them runs in one phase, as AggregateUtil.doAllSupportPartialMerge
# decides.
UNMERGEABLE_FUNCTIONS = ("FIRST_VALUE", "LAST_VALUE")


def refuse_ordered(specs: list[AggCallSpec], where: str, ctx: QueryContext) -> None:
    """FIRST_VALUE, LAST_VALUE and LISTAGG among `specs` are refused, naming `where` (the node
    and why)."""
    ordered = [spec.function for spec in specs if spec.function in ORDERED_FUNCTIONS]
    if ordered:
        raise UnsupportedSqlError(f"{', '.join(dict.fromkeys(ordered))} in {where}",
                                  ctx.position.line, ctx.position.column, ctx.position.source)


def _function_text(spec: AggCallSpec) -> str:
    """A call's function as Flink renders it: `COUNT`, or a UDAF's name (`my_avg`)."""
    if spec.user_function is not None:
        return spec.user_function.identity.replace('`', '')
    return spec.function


def refuse_unretractable_in_session(specs: list[AggCallSpec], ctx: QueryContext) -> None:
    """A SESSION window aggregate over an updating input retracts (Flink's needRetraction):
    the calls that cannot are refused by name."""
    for spec in specs:
        if spec.function not in RETRACTING_WINDOW_CALLS and not spec.distinct:
            raise UnsupportedSqlError(
                f"{_function_text(spec)} in a SESSION window aggregate over an updating input "
                f"(Flink retracts it there, its MIN/MAX keeping every value: not implemented; "
                f"COUNT, SUM, AVG, STDDEV/VARIANCE and DISTINCT calls retract)",
                ctx.position.line, ctx.position.column, ctx.position.source)


def _agg_text(spec: AggCallSpec, pre_row: RowType) -> str:
    """Flink's rendering: `COUNT(DISTINCT a) FILTER $f3 AS cnt`, `my_avg(e, a) AS s1`."""
    if spec.user_function is not None:
        args = ", ".join(pre_row.fields[i].name for i in spec.arg_list)
        return f"{_function_text(spec)}({args}) AS {spec.name}"
    inner = "*" if not spec.arg_list else (
        ("DISTINCT " if spec.distinct else "") + pre_row.fields[spec.arg_list[0]].name)
    condition = (f" FILTER {pre_row.fields[spec.filter_arg].name}"
                 if spec.filter_arg is not None else "")
    return f"{spec.function}({inner}){condition} AS {spec.name}"


def _without_window_keys(grouping: GroupingSets, plain: list[exp.Expression], relation: Relation,
                         ctx: QueryContext) -> GroupingSets:
    """A window aggregate's grouping sets over its plain keys: the window columns must be in
    every set (`GROUP BY window_start, window_end, GROUPING SETS (...)`, as Flink requires),
    and the window groups by them itself."""
    window = {i for i, key in enumerate(grouping.keys) if not any(key is p for p in plain)}
    if grouping.sets is not None:
        if any(not window <= grouping_set for grouping_set in grouping.sets):
            raise UnsupportedSqlError(
                "window_start / window_end in only some grouping sets (a window aggregate "
                "needs them in every set: GROUP BY window_start, window_end, GROUPING SETS "
                "(...))", ctx.position.line, ctx.position.column, ctx.position.source)
        if relation.window.spec.is_session:
            raise UnsupportedSqlError(
                "GROUPING SETS / ROLLUP / CUBE on a SESSION window aggregate (its sessions are "
                "per partition key, which some sets leave out)", ctx.position.line,
                ctx.position.column, ctx.position.source)
    return grouping.without(window)


