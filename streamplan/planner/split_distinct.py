"""Split distinct aggregation (`table.optimizer.distinct-agg.split.enabled`), as Flink's
SplitAggregateRule plans it: a partial aggregate grouped also by a bucket of each distinct
argument (`MOD(HASH_CODE(x), 1024)`), and a final aggregate by the original keys over the
partial results. Where the calls need different buckets, an expand gives each input row one
copy per bucket set (`$e`), and each partial call a filter `$g_<e>` that picks its copies.

    COUNT(DISTINCT b), FIRST_VALUE(c) GROUP BY a
      -> Calc(a, b, c, MOD(HASH_CODE(b), 1024) AS $f3, MOD(HASH_CODE(c), 1024) AS $f4)
      -> Expand({a, b, c, $f3, null, 1 AS $e}, {a, b, c, null, $f4, 2 AS $e})
      -> Calc(..., $e = 1 AS $g_1, $e = 2 AS $g_2)
      -> GroupAggregate(groupBy=[a, $f3, $f4], PARTIAL: COUNT(DISTINCT b) FILTER $g_1,
                        FIRST_VALUE(c) FILTER $g_2)
      -> GroupAggregate(groupBy=[a], FINAL: $SUM0, FIRST_VALUE)

Under mini-batch the two aggregates are a partial local aggregate, an incremental one (the
partial global and the final local aggregate in one: Flink's IncrementalAggregateRule,
nodes/incremental_group_aggregate.py) and a final global one.

A window aggregate (event-time TUMBLE, HOP, CUMULATE) splits the same way: the partial window
aggregate groups by the keys and the bucket and fires each window as usual; a calc puts the
window's start and end after the keys; the final one, with `WindowAttached` windowing,
aggregates each fired window's partial rows by the original keys. In two phases each is a
local and a global window aggregate (nodes/global_window_aggregate.py); with ONE_PHASE each is
one stream-exec-window-aggregate.

    COUNT(*), COUNT(DISTINCT c) GROUP BY a, window_start, window_end  (TUMBLE 5 s)
      -> Calc(a, c, t, MOD(HASH_CODE(c), 1024) AS $f3)
      -> LocalWindowAggregate(groupBy=[a, $f3], TUMBLE(time_col=[t]), COUNT(*), COUNT(DISTINCT c))
      -> GlobalWindowAggregate(groupBy=[a, $f3], TUMBLE(slice_end=[$slice_end]), ...)
      -> Calc(a, window_start, window_end, $f3, $f4, $f5)
      -> LocalWindowAggregate(groupBy=[a], TUMBLE(win_start=[window_start], win_end=[window_end]),
                              $SUM0($f4), $SUM0($f5))
      -> GlobalWindowAggregate(groupBy=[a], TUMBLE(win_end=[$window_end]), $SUM0, $SUM0)

The buckets only spread the partial aggregate's keys: every value of an argument lands in one
bucket. HASH_CODE is Flink's (`hash_code`): the final FIRST_VALUE / LAST_VALUE depends on
which values share a bucket. Not planned
here, each refused by name: AVG (Flink splits it into $SUM0 and COUNT and divides after),
LISTAGG, a split in a window aggregate of calls needing two buckets, or under mini-batch with
`table.optimizer.incremental-agg-enabled` false, and FIRST_VALUE / LAST_VALUE in a window
aggregate (`refuse_unsplit`). The final aggregate's changelog depends on the
order in which the partial one hands on the copies of a row (one a bucket set): Flink's emits
them in the expand's order. Without mini-batch the partial group aggregate passes each row's
position on to the final one, which takes a key's rows in that order, as Flink's does
(nodes/arrival_order.py); the mini-batch and window aggregates hand them on in their own
order within a micro-batch, so there the intermediate rows can differ from Flink's (the
materialized result does not: FIRST_VALUE and LAST_VALUE, whose result would, have no merge,
so they never run under a mini-batch split, and are refused in a window one).
"""
from __future__ import annotations

from functools import cmp_to_key
from typing import Optional

from ..errors import UnsupportedSqlError
from ..nodes.expand import StreamExecExpand
from ..nodes.global_group_aggregate import GlobalAggCallSpec, StreamExecGlobalGroupAggregate
from ..nodes.global_window_aggregate import (StreamExecGlobalWindowAggregate,
                                             WindowEndAttachedStrategy)
from ..nodes.group_aggregate import GroupAggCallSpec, StreamExecGroupAggregate
from ..nodes.incremental_group_aggregate import StreamExecIncrementalGroupAggregate
from ..nodes.local_group_aggregate import (StreamExecLocalGroupAggregate, accumulator_fields,
                                           accumulator_text)
from ..nodes.local_window_aggregate import (WINDOW_END, StreamExecLocalWindowAggregate,
                                            local_window_row)
from ..nodes.window_aggregate import (NamedWindowProperty, WindowAttachedStrategy,
                                      WindowingStrategy)

from ..options import AGG_PHASE_STRATEGY, MINIBATCH_ENABLED
from ..types import Field, RowType, SqlType, parse_type, quote_identifier
from .aggregates import result_type
from .common import QueryContext, _dedupe

BUCKETS = 1024                  # table.optimizer.distinct-agg.split.bucket-num's default
EXPAND_ID = "$e"
_HASHED = ("MIN", "MAX", "FIRST_VALUE", "LAST_VALUE")     # SplitAggregateRule.needAddHashFields
_FINAL = {"COUNT": "SUM0", "SUM": "SUM", "MIN": "MIN", "MAX": "MAX",
          "FIRST_VALUE": "FIRST_VALUE", "LAST_VALUE": "LAST_VALUE"}
_INTEGERS = ("TINYINT", "SMALLINT", "INT")
_STRINGS = ("STRING", "VARCHAR", "CHAR")


def splittable(specs: list[GroupAggCallSpec]) -> bool:
    """Flink's AggregateUtil.doAllAggSupportSplit: only built-ins split (a user-defined
    function or STDDEV's WELFORD_M2 leaves the aggregate as it is)."""
    return all(spec.user_function is None and spec.function != "WELFORD_M2" for spec in specs)


def refuse_unsplit(specs: list[GroupAggCallSpec], ctx: QueryContext,
                   ordered_calls: bool = False) -> None:
    """The calls this split does not run as Flink does, by name: AVG and LISTAGG (their split
    is not implemented), and FIRST_VALUE and LAST_VALUE unless `ordered_calls`: their final
    aggregate must take the partial results in the order Flink's partial aggregate emits
    them, which the row-by-row group aggregates pass on (nodes/arrival_order.py; they have
    no merge, so a split of them is never a mini-batch one); the window aggregates hand on
    the keys of a fired window in their own order, so the first value could differ."""
    for spec in specs:
        ordered = spec.function in ("FIRST_VALUE", "LAST_VALUE")
        if spec.function not in _FINAL or (ordered and not ordered_calls):
            raise UnsupportedSqlError(
                f"{spec.function} with table.optimizer.distinct-agg.split.enabled (Flink splits "
                f"it into a partial and a final aggregate; "
                + ("the final one's arrival order across the partial keys of a micro-batch is "
                   "Flink's here only for group aggregates" if ordered
                   else f"that split is not implemented here for {spec.function}")
                + ")", ctx.position.line, ctx.position.column, ctx.position.source)


def _needs_hash(spec: GroupAggCallSpec) -> bool:
    return spec.distinct or spec.function in _HASHED


def _calcite_order(a: frozenset, b: frozenset) -> int:
    """Calcite's ImmutableBitSet.COMPARATOR: an enclosing set first, else lexicographically by
    the sorted members (a set that ends first is smaller)."""
    if a == b:
        return 0
    if a > b:
        return -1
    if b > a:
        return 1
    left, right = sorted(a), sorted(b)
    for x, y in zip(left, right):
        if x != y:
            return -1 if x < y else 1
    return -1 if len(left) < len(right) else 1


def expand_id(full: list[int], group_set: frozenset) -> int:
    """ExpandUtil.genExpandId: a bit per field of the full set, highest first, set where the
    group set leaves the field out."""
    value, bit = 0, 1 << (len(full) - 1)
    for index in full:
        if index not in group_set:
            value |= bit
        bit >>= 1
    return value


def hash_code(column: str, sql_type: SqlType, where: str) -> str:
    """The bucket hash of `column` in Spark SQL the plan loader accepts (NULL for NULL), Flink's
    HASH_CODE: for the integer types Integer.hashCode and Long.hashCode ((int) (v ^ (v >>> 32)),
    with the shift as a floor division) in plain SQL; for strings the HASH_CODE built-in
    (functions/builtins.py: Math.abs of Java's String.hashCode), which Spark SQL has no form
    of. The bucket decides which partial key a value lands in: no COUNT, SUM, MIN or MAX result
    depends on it, but the final FIRST_VALUE / LAST_VALUE does (a partial key's update retracts
    its earlier value and adds it anew)."""
    if sql_type.name in _INTEGERS:
        return f"CAST({column} AS INT)"
    if sql_type.name == "BIGINT":
        low = f"({column} & 4294967295)"
        remainder = f"(({column} % 4294967296) + 4294967296) % 4294967296"
        high = f"((({column} - {remainder}) DIV 4294967296) & 4294967295)"
        folded = f"({low} ^ {high})"
        return (f"CAST({folded} - CASE WHEN {folded} >= 2147483648 THEN 4294967296 ELSE 0 END "
                f"AS INT)")
    if sql_type.name in _STRINGS:
        return f"HASH_CODE({column})"
    raise UnsupportedSqlError(f"a distinct or MIN/MAX/FIRST_VALUE/LAST_VALUE argument of type "
                              f"{sql_type.text} with table.optimizer.distinct-agg.split.enabled "
                              f"(its bucket, MOD(HASH_CODE(x), 1024), is implemented for "
                              f"integer and string arguments) at {where}")


class SplitDistinctRules:
    """Flink's SplitAggregateRule for group and window aggregates; a mixin of PlanBuilder
    (builder.py)."""

    def _buckets(self, node, key_count: int, specs: list[GroupAggCallSpec], where: str,
                 rowtime: Optional[str] = None):
        """STEP 1: a bucket column (MOD(HASH_CODE(x), 1024)) per hashed argument, after the
        input's columns: the calc (or the node itself when nothing is hashed) and each hashed
        argument's bucket column. `rowtime`: the column that stays the time attribute."""
        row = node.row_type
        keys = frozenset(range(key_count))
        hashed = sorted({a for spec in specs if _needs_hash(spec) for a in spec.arg_list} - keys)
        bucket_of: dict[int, int] = {}
        if hashed:
            names = list(row.names)
            projection = [quote_identifier(name) for name in names]
            for arg in hashed:
                bucket_of[arg] = len(names)
                names.append(_dedupe(names + [f"$f{len(names)}"])[-1])
                code = hash_code(quote_identifier(row.names[arg]), row.fields[arg].type, where)
                projection.append(f"MOD({code}, {BUCKETS})")
            node = self._calc(node, projection, names, None, where, rowtime=rowtime)
        return node, bucket_of

    def _split_window_distinct(self, node, relation, key_count: int,
                               specs: list[GroupAggCallSpec], window_keys: list[str],
                               key_names: list[str], time_index: int, ctx: QueryContext):
        """A split window aggregate (module doc): the partial window aggregate by the keys and
        the bucket, the calc, the final window aggregate over the fired windows, whose output
        is the unsplit window aggregate's; each of two phases (a local and a global window
        aggregate), or with table.optimizer.agg-phase-strategy ONE_PHASE of one."""
        from .aggregate_rule import _agg_text
        from .windows import WINDOW_COLUMNS, window_property_fields

        where = str(ctx.position)
        refuse_unsplit(specs, ctx)
        node, bucket_of = self._buckets(node, key_count, specs, where,
                                        rowtime=node.row_type.names[time_index])
        if len(bucket_of) > 1:
            raise UnsupportedSqlError(
                "calls over two hashed arguments with table.optimizer.distinct-agg.split.enabled "
                "in a window aggregate (Flink expands each row into a copy per bucket there: not "
                "implemented for window aggregates; a group aggregate splits so)",
                ctx.position.line, ctx.position.column, ctx.position.source)
        row = node.row_type
        spec = relation.window.spec
        windowing = WindowingStrategy(window=spec, time_attribute_index=time_index)
        grouping = list(range(key_count)) + sorted(bucket_of.values())
        group_names = [row.names[i] for i in grouping]
        # the partial window aggregate: the calls as they are, by the keys and the bucket
        names = list(group_names)
        partial_calls = []
        for call in specs:
            names.append(_dedupe(names + [f"$f{len(names)}"])[-1])
            arg_type = row.fields[call.arg_list[0]].type if call.arg_list else None
            partial_calls.append(call.model_copy(update={
                "name": names[-1], "type": result_type(call.function, arg_type).text}))
        bounds = ["window_start", "window_end"]
        by_name = {f.name: f for f in window_property_fields()}
        partial_row = RowType(tuple(Field(n, row.fields[i].type) for n, i in zip(names, grouping))
                              + tuple(Field(c.name, parse_type(c.type)) for c in partial_calls)
                              + tuple(by_name[name] for name in bounds))
        properties = [NamedWindowProperty(name=name, property=WINDOW_COLUMNS[name])
                      for name in bounds]
        property_texts = ["start('w$) AS window_start", "end('w$) AS window_end"]
        one_phase = self.config.get(AGG_PHASE_STRATEGY) == "ONE_PHASE"
        if one_phase:
            selected = group_names + [_agg_text(c, row) for c in partial_calls] + property_texts
            partial = self._one_phase_window(
                node, grouping, partial_calls, windowing, properties, partial_row,
                f"WindowAggregate(groupBy=[{', '.join(group_names)}], window=["
                f"{spec.describe(row.names[time_index])}], select=[{', '.join(selected)}])")
        else:
            partial = self._local_global_window(node, grouping, partial_calls, windowing,
                                                properties, partial_row, group_names,
                                                property_texts)
        # the calc: the keys, the window's bounds, the buckets, the partial results
        partial_out = partial.row_type.names
        order = (list(range(key_count)) + [len(partial_out) - 2, len(partial_out) - 1]
                 + list(range(key_count, len(partial_out) - 2)))
        calc_names = _dedupe([partial_out[i] for i in order])
        calc = self._calc(partial, [quote_identifier(partial_out[i]) for i in order], calc_names,
                          None, where)
        calc_row = calc.row_type
        first_result = len(grouping) + 2
        final_calls = GlobalAggCallSpec.of([
            GroupAggCallSpec(name=call.name, function=_FINAL[call.function],
                             arg_list=[first_result + i], type=call.type)
            for i, call in enumerate(specs)])
        # the final window aggregate over the fired windows (WindowAttached)
        attached = WindowAttachedStrategy(window=spec, window_start=key_count,
                                          window_end=key_count + 1)
        fields = ([Field(f.name, f.type) for f in calc_row.fields[:key_count]]
                  + [Field(call.name, parse_type(call.type)) for call in specs]
                  + [by_name[name] for name in window_keys])
        output = RowType(tuple(fields))
        final_properties = [NamedWindowProperty(name=name, property=WINDOW_COLUMNS[name])
                            for name in window_keys]
        final_property_texts = [
            f"{'start' if n == 'window_start' else 'end' if n == 'window_end' else 'rowtime'}"
            f"('w$) AS {n}" for n in window_keys]
        group_by = f"groupBy=[{', '.join(key_names)}], " if key_count else ""
        if one_phase:
            selected = (key_names + [_agg_text(c, calc_row).replace("SUM0", "$SUM0")
                                     for c in final_calls] + final_property_texts)
            return self._one_phase_window(
                calc, list(range(key_count)), final_calls, attached, final_properties, output,
                f"WindowAggregate({group_by}window=[{attached.describe(calc_row)}], "
                f"select=[{', '.join(selected)}])")
        local_row = local_window_row(calc_row, list(range(key_count)), final_calls, WINDOW_END)
        accs = accumulator_fields(final_calls, calc_row)
        local_select = ", ".join(key_names + [
            f"{_agg_text(call, calc_row).rpartition(' AS ')[0].replace('SUM0', '$SUM0')} AS "
            f"{accumulator_text(own)}" for call, own in zip(final_calls, accs)]
            + [f"slice_end('w$) AS {WINDOW_END}"])
        local = self.add(
            StreamExecLocalWindowAggregate, [calc], grouping=list(range(key_count)),
            agg_calls=final_calls, windowing=attached, output_type=local_row.text,
            description=f"LocalWindowAggregate({group_by}window=[{attached.describe(calc_row)}], "
                        f"select=[{local_select}])")
        global_select = ", ".join(key_names + [
            f"{_FINAL[call.function].replace('SUM0', '$SUM0')}({accumulator_text(own)}) AS "
            f"{call.name}" for call, own in zip(specs, accs)] + final_property_texts)
        ended = WindowEndAttachedStrategy(window=spec, window_end=len(local_row.fields) - 1)
        window_text = attached.describe(calc_row).replace(
            "win_start=[window_start], win_end=[window_end]", f"win_end=[{WINDOW_END}]")
        return self.add(
            StreamExecGlobalWindowAggregate, [local], grouping=list(range(key_count)),
            agg_calls=final_calls, windowing=ended, named_window_properties=final_properties,
            local_agg_input_row_type=calc_row.text, output_type=output.text,
            description=f"GlobalWindowAggregate({group_by}window=[{window_text}], "
                        f"select=[{global_select}])")

    def _split_distinct(self, node, key_count: int, specs: list[GroupAggCallSpec],
                        out_names: list[str], output: RowType, need_retraction: bool,
                        ttls: list[int], ctx: QueryContext):
        where = str(ctx.position)
        refuse_unsplit(specs, ctx, ordered_calls=True)   # no merge: never mini-batch
        keys = frozenset(range(key_count))
        node, bucket_of = self._buckets(node, key_count, specs, where)
        row = node.row_type
        # STEP 2: each call's group set; the partial aggregate groups by all of them
        group_sets, new_sets, sets = [], 0, set()
        for spec in specs:
            if _needs_hash(spec):
                group_set = keys | {bucket_of.get(a, a) for a in spec.arg_list}
                new_sets += group_set not in sets
            else:
                group_set = keys
            sets.add(group_set)
            group_sets.append(group_set)
        ordered = sorted(sets, key=cmp_to_key(_calcite_order))
        full = sorted(frozenset().union(*ordered))
        partial_specs = [spec.model_copy(update={}) for spec in specs]
        if new_sets > 1:
            node, partial_specs = self._expand_for_split(node, full, ordered, specs, group_sets,
                                                         where)
            row = node.row_type
        # STEP 2.3: the partial aggregate
        group_names = [row.names[i] for i in full]
        names = list(group_names)
        partial_calls = []
        for spec in partial_specs:
            name = _dedupe(names + [f"$f{len(names)}"])[-1]
            names.append(name)
            arg_type = row.fields[spec.arg_list[0]].type if spec.arg_list else None
            partial_calls.append(spec.model_copy(update={
                "name": name, "type": result_type(spec.function, arg_type).text}))
        partial_row = RowType(tuple(Field(n, row.fields[i].type) for n, i in zip(group_names, full))
                              + tuple(Field(call.name, parse_type(call.type))
                                      for call in partial_calls))
        from .aggregate_rule import _agg_text

        final_calls = [GroupAggCallSpec(name=spec.name, function=_FINAL[spec.function],
                                        arg_list=[len(full) + i], type=spec.type)
                       for i, spec in enumerate(specs)]
        if self.config.get(MINIBATCH_ENABLED):
            return self._incremental_split(node, full, key_count, partial_calls, partial_row,
                                           final_calls, out_names, output, need_retraction, ttls)
        partial = self.add(
            StreamExecGroupAggregate, [node], grouping=full, agg_calls=partial_calls,
            generate_update_before=True, need_retraction=need_retraction,
            output_type=partial_row.text, state_ttls=ttls,
            description=(f"GroupAggregate(groupBy=[{', '.join(group_names)}], "
                         f"partialFinalType=[PARTIAL], select=[{', '.join(group_names + [_agg_text(c, row) for c in partial_calls])}])"))
        # STEP 3: the final aggregate by the original keys over the partial results
        keys_text = ", ".join(out_names[:key_count])
        return self.add(
            StreamExecGroupAggregate, [partial], grouping=list(range(key_count)),
            agg_calls=final_calls, generate_update_before=True, need_retraction=True,
            output_type=output.text, state_ttls=ttls,
            description=(f"GroupAggregate({f'groupBy=[{keys_text}], ' if key_count else ''}"
                         f"partialFinalType=[FINAL], select=[{', '.join(out_names[:key_count] + [_agg_text(c, partial_row) for c in final_calls])}])"))

    def _incremental_split(self, node, full: list[int], key_count: int,
                           partial_calls: list[GroupAggCallSpec], partial_row: RowType,
                           final_calls: list[GroupAggCallSpec], out_names: list[str],
                           output: RowType, need_retraction: bool, ttls: list[int]):
        """Under mini-batch (IncrementalAggregateRule): the partial local aggregate, the
        incremental one (the partial global and the final local aggregate in one), and the
        final global aggregate, described as Flink 2.3's EXPLAIN shows them."""
        from .aggregate_rule import _agg_text, _function_text

        row = node.row_type
        group_names = [row.names[i] for i in full]
        accs = accumulator_fields(partial_calls, row)
        local_row = RowType(tuple(row.fields[i] for i in full)
                            + tuple(field for own in accs for field in own))
        local_select = ", ".join(group_names + [
            f"{_agg_text(spec, row).rpartition(' AS ')[0]} AS {accumulator_text(own)}"
            for spec, own in zip(partial_calls, accs)] + [f"COUNT(*) AS {accs[-1][0].name}"])
        local = self.add(
            StreamExecLocalGroupAggregate, [node], grouping=full, agg_calls=partial_calls,
            need_retraction=need_retraction, output_type=local_row.text,
            description=(f"LocalGroupAggregate(groupBy=[{', '.join(group_names)}], "
                         f"partialFinalType=[PARTIAL], select=[{local_select}])"))
        keys = out_names[:key_count]
        finals = accumulator_fields(final_calls, partial_row)
        incremental_row = RowType(tuple(row.fields[i] for i in full[:key_count])
                                  + tuple(field for own in finals for field in own))
        incremental_select = ", ".join(keys + [
            f"{_function_text(spec)}({'distinct ' if spec.distinct else ''}"
            f"{accumulator_text(partial_own)}) AS {accumulator_text(own)}"
            for spec, partial_own, own in zip(partial_calls, accs, finals)])
        incremental = self.add(
            StreamExecIncrementalGroupAggregate, [local], partial_agg_grouping=full,
            final_agg_grouping=list(range(key_count)), partial_original_agg_calls=partial_calls,
            partial_local_agg_input_row_type=row.text,
            partial_agg_need_retraction=need_retraction, output_type=incremental_row.text,
            state_ttls=ttls,
            description=(f"IncrementalGroupAggregate(partialAggGrouping=[{', '.join(group_names)}], "
                         f"finalAggGrouping=[{', '.join(keys)}], select=[{incremental_select}])"))
        group_by = f"groupBy=[{', '.join(keys)}], " if keys else ""
        global_select = ", ".join(keys + [
            f"{_function_text(call).replace('SUM0', '$SUM0')}({accumulator_text(own)}) AS "
            f"{call.name}" for call, own in zip(final_calls, finals)])
        return self.add(
            StreamExecGlobalGroupAggregate, [incremental], grouping=list(range(key_count)),
            agg_calls=GlobalAggCallSpec.of(final_calls), local_agg_input_row_type=partial_row.text,
            generate_update_before=True, need_retraction=need_retraction,
            output_type=output.text, state_ttls=ttls,
            description=(f"GlobalGroupAggregate({group_by}partialFinalType=[FINAL], "
                         f"select=[{global_select}])"))

    def _expand_for_split(self, node, full: list[int], ordered: list[frozenset],
                          specs: list[GroupAggCallSpec], group_sets: list[frozenset], where: str):
        """The expand (one copy per group set, the bucket columns outside it NULL, `$e`
        last) and the calc of the partial calls' filters (`$g_<e>`, ANDed with a call's own
        FILTER), as ExpandUtil.buildExpandNode and SplitAggregateRule's STEP 2.2 build them."""
        row = node.row_type
        columns = [quote_identifier(name) for name in row.names]
        nulled = {i for i in full if any(i not in s for s in ordered)}
        fields = [Field(f.name, f.type.with_nullable(True) if i in nulled else f.type)
                  for i, f in enumerate(row.fields)]
        expand_name = _dedupe(list(row.names) + [EXPAND_ID])[-1]
        fields.append(Field(expand_name, SqlType("BIGINT", (), nullable=False)))
        projects, described = [], []
        for group_set in ordered:
            value = expand_id(full, group_set)
            projects.append([columns[i] if i not in full or i in group_set
                             else f"CAST(NULL AS {row.fields[i].type.to_spark().simpleString().upper()})"
                             for i in range(len(columns))] + [f"CAST({value} AS BIGINT)"])
            described.append("{" + ", ".join(
                [row.names[i] if i not in full or i in group_set else f"null AS {row.names[i]}"
                 for i in range(len(columns))] + [f"{value} AS {expand_name}"]) + "}")
        expand = self.add(StreamExecExpand, [node], projects=projects,
                          output_type=RowType(tuple(fields)).text,
                          description=f"Expand(projects=[{', '.join(described)}])")
        names = list(row.names)
        projection = [quote_identifier(name) for name in names]
        filters: dict[tuple[frozenset, Optional[int]], int] = {}
        partial_specs = []
        for spec, group_set in zip(specs, group_sets):
            key = (group_set, spec.filter_arg)
            if key not in filters:
                value = expand_id(full, group_set)
                condition = f"{quote_identifier(expand_name)} = {value}"
                if spec.filter_arg is not None:
                    condition = f"({condition}) AND {columns[spec.filter_arg]}"
                filters[key] = len(names)
                names.append(_dedupe(names + [f"$g_{value}"])[-1])
                projection.append(condition)
            partial_specs.append(spec.model_copy(update={"filter_arg": filters[key]}))
        return self._calc(expand, projection, names, None, where), partial_specs
