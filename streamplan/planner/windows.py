"""The window TVF rule: `FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))`
(and `HOP`, `CUMULATE`, each with an optional offset) becomes a relation over `t` that also
has `window_start`, `window_end` and `window_time`. As Flink plans it, an aggregate grouped by
`window_start, window_end` consumes the window: the TVF is folded into a
`stream-exec-window-aggregate` (aggregate_rule.py asks `_window_aggregate` here); a SESSION
only when the aggregate groups by its partition keys. Anything else over the window (a
projection, a filter, a group aggregate by other keys, a session of the whole stream) reads it
from a `stream-exec-window-table-function` node (`_window_table_function`; stateful for a
SESSION).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sqlglot import exp

from ..durations import INTERVAL_UNITS_MS, format_duration_ms
from ..errors import PlanningError, UnsupportedSqlError
from ..nodes.window_aggregate import (NamedWindowProperty, StreamExecWindowAggregate,
                                      WindowAggCallSpec, WindowingStrategy, WindowSpec)
from ..nodes.global_window_aggregate import (SliceAttachedWindowingStrategy,
                                             StreamExecGlobalWindowAggregate)
from ..nodes.global_group_aggregate import GlobalAggCallSpec
from ..nodes.local_group_aggregate import accumulator_fields, accumulator_text
from ..nodes.local_window_aggregate import (SLICE_END, StreamExecLocalWindowAggregate,
                                            local_window_row)
from ..nodes.window_table_function import StreamExecWindowTableFunction
from ..options import AGG_PHASE_STRATEGY, LOCAL_TIME_ZONE
from ..sql.parser import PARTITION_KEYS, SESSION_STANDIN
from ..types import Field, RowType, SqlType, parse_type
from .aggregates import ORDERED_FUNCTIONS
from .common import QueryContext, Relation
from .scope import ScopeField
from .user_aggregates import without_merge

WINDOW_COLUMNS = {"window_start": "WindowStart", "window_end": "WindowEnd",
                  "window_time": "WindowTime"}
_TVF_ARGS = {"TUMBLE": ("size",), "HOP": ("slide", "size"), "CUMULATE": ("step", "max size"),
             "SESSION": ("gap",)}
_WINDOW_TYPE = SqlType("TIMESTAMP", (3,), nullable=False)
_UTC_ZONES = {"default", "UTC", "Z", "GMT", "Etc/UTC", "+00:00", "UTC+00:00"}


@dataclass(frozen=True)
class WindowTvf:
    """A window TVF of a relation: its window and the index of its time attribute."""

    function: str
    spec: WindowSpec
    time_index: int
    time_column: str
    partition_keys: tuple[str, ...] = ()   # SESSION's PARTITION BY columns
    proctime: bool = False                 # a window on a processing-time attribute


def window_tvf_call(item: exp.Expression) -> Optional[exp.Anonymous]:
    """`TABLE(TUMBLE(...))` in FROM as sqlglot reads it (the parser blanked the inner TABLE)."""
    if isinstance(item, exp.Table) and isinstance(item.this, exp.Anonymous) \
            and item.this.name.upper() == "TABLE" and len(item.this.expressions) == 1:
        inner = item.this.expressions[0]
        if isinstance(inner, exp.Anonymous):
            return inner
    return None


def window_property_fields() -> list[Field]:
    return [Field("window_start", _WINDOW_TYPE), Field("window_end", _WINDOW_TYPE),
            Field("window_time", _WINDOW_TYPE, rowtime=True)]


class WindowRules:
    """Window TVFs and the window aggregate; a mixin of PlanBuilder (builder.py)."""

    def _window_relation(self, item: exp.Table, call: exp.Anonymous,
                         ctx: QueryContext) -> Relation:
        position = ctx.position
        function = call.name.upper()
        function = "SESSION" if function == SESSION_STANDIN else function

        def refuse(construct: str) -> UnsupportedSqlError:
            return UnsupportedSqlError(construct, position.line, position.column, position.source)

        if function not in _TVF_ARGS:
            raise refuse(f"table function {call.name} in FROM (the window TVFs TUMBLE, HOP, "
                         f"CUMULATE and SESSION are supported)")
        args = list(call.expressions)
        partition_keys: tuple[str, ...] = ()
        if len(args) > 1 and isinstance(args[1], exp.Anonymous) \
                and args[1].name.upper() == PARTITION_KEYS:
            keys = args.pop(1).expressions
            if not all(isinstance(key, exp.Column) and not key.table for key in keys):
                raise refuse(f"PARTITION BY {', '.join(k.sql(dialect='spark') for k in keys)} "
                             f"(partition keys are columns of the table)")
            partition_keys = tuple(key.name for key in keys)
            if function != "SESSION":
                raise refuse(f"PARTITION BY in {function} (only SESSION windows are partitioned)")
        sizes = _TVF_ARGS[function]
        if any(isinstance(arg, (exp.Kwarg, exp.PropertyEQ)) for arg in args):
            raise refuse(f"named arguments of {function} (pass them by position)")
        offsets = () if function == "SESSION" else (1,)
        if len(args) not in (2 + len(sizes), *(2 + len(sizes) + n for n in offsets)):
            raise PlanningError(
                f"{ctx.where}: {function} takes TABLE t{' [PARTITION BY k]' if not offsets else ''}"
                f", DESCRIPTOR(time column), {', '.join(sizes)}"
                f"{' [, offset]' if offsets else ''}; got {len(args)} arguments")
        table, descriptor = args[0], args[1]
        if not isinstance(table, exp.Column) or table.table:
            raise refuse(f"{function} over {table.sql(dialect='spark')} (its first argument is "
                         f"TABLE <table or CTE name>)")
        if not (isinstance(descriptor, exp.Anonymous) and descriptor.name.upper() == "DESCRIPTOR"
                and len(descriptor.expressions) == 1
                and isinstance(descriptor.expressions[0], exp.Column)):
            raise PlanningError(f"{ctx.where}: the second argument of {function} is "
                                f"DESCRIPTOR(<time column>)")
        intervals = [_interval_ms(arg, function, ctx) for arg in args[2:]]
        base = self._relation(exp.Table(this=exp.to_identifier(table.name)), ctx)
        column = descriptor.expressions[0].name
        matches = [i for i, f in enumerate(base.node.row_type.fields) if f.name == column]
        if not matches:
            raise PlanningError(f"{ctx.where}: DESCRIPTOR({column}) of {function}: column "
                                f"'{column}' is not a column of '{table.name}'")
        time_index = matches[0]
        for key in partition_keys:
            if key not in base.node.row_type.names:
                raise PlanningError(f"{ctx.where}: PARTITION BY {key} of {function}: column "
                                    f"'{key}' is not a column of '{table.name}'")
        field = base.node.row_type.fields[time_index]
        if function == "SESSION" and field.proctime:
            raise refuse(f"SESSION on the processing-time attribute '{column}' (session "
                         f"windows run on event time only; TUMBLE, HOP and CUMULATE run on "
                         f"processing time too)")
        if not (field.rowtime or field.proctime):
            raise PlanningError(
                f"{ctx.where}: DESCRIPTOR({column}) of {function}: '{column}' is not a time "
                f"attribute; declare WATERMARK FOR {column} AS ... on '{table.name}'")
        try:
            spec = _window_spec(function, intervals)
            if not spec.is_session:
                spec.assigner()
        except ValueError as err:           # pydantic's ValidationError is one too
            raise PlanningError(f"{ctx.where}: {err}") from None
        alias = item.alias or ""
        qualifier = alias or table.name
        fields = [ScopeField(qualifier, f.name, f.field) for f in base.scope_fields]
        fields += [ScopeField(qualifier, f.name, f) for f in window_property_fields()]
        return Relation(base.node, fields, (qualifier,),
                        WindowTvf(function, spec, time_index, column, partition_keys,
                                  field.proctime))

    def _window_aggregate(self, relation: Relation, keys: list[exp.Expression],
                          ctx: QueryContext) -> Optional[tuple[list[exp.Expression], list[str]]]:
        """Splits GROUP BY into its plain keys and the window columns it groups by; None
        when these are not window_start and window_end (then it is no window aggregate)."""
        plain, grouped = [], []
        for key in keys:
            name = _window_column(key, relation)
            if name is None:
                plain.append(key)
            elif name not in grouped:
                grouped.append(name)
        if not {"window_start", "window_end"} <= set(grouped):
            return None                    # not a window aggregate: the TVF is a node of its own
        window = relation.window
        zone = self.config.get(LOCAL_TIME_ZONE)
        if window.proctime and zone not in _UTC_ZONES:
            raise UnsupportedSqlError(
                f"a processing-time window with 'table.local-time-zone' = '{zone}' (Flink aligns "
                f"processing-time windows to the session time zone; they run in UTC here)",
                ctx.position.line, ctx.position.column, ctx.position.source)
        if window.proctime and "window_time" in grouped:
            raise UnsupportedSqlError(
                "window_time of a processing-time window (Flink makes it a processing-time "
                "attribute; group by window_start, window_end)",
                ctx.position.line, ctx.position.column, ctx.position.source)
        if window.spec.is_session:
            # Flink folds a session into the aggregate when it partitions by the group keys
            # (a session per group); else the session TVF is a node of its own. Flink plans no
            # two phases for an unaligned window (TwoStageOptimizedWindowAggregateRule).
            names = [key.name if isinstance(key, exp.Column) else None for key in plain]
            if sorted(names, key=str) != sorted(window.partition_keys):
                return None
            return plain, [name for name in WINDOW_COLUMNS if name in grouped]
        return plain, [name for name in WINDOW_COLUMNS if name in grouped]

    def _window_table_function(self, relation: Relation, ctx: QueryContext) -> Relation:
        """The window TVF as a node of its own (Flink's StreamExecWindowTableFunction): the
        relation's rows with window_start, window_end and window_time appended."""
        window = relation.window
        if window.proctime:
            raise UnsupportedSqlError(
                f"{window.function} on the processing-time attribute '{window.time_column}' "
                f"whose windows no aggregate grouped by window_start, window_end consumes (the "
                f"window table function runs on event time only)",
                ctx.position.line, ctx.position.column, ctx.position.source)
        input_row = relation.node.row_type
        spec = window.spec
        if spec.is_session:                # the stateful one (UnalignedWindowTableFunctionOperator)
            spec = spec.model_copy(update={"partition_key_indices": [
                input_row.names.index(name) for name in window.partition_keys]})
        taken = set(WINDOW_COLUMNS) & set(input_row.names)
        if taken:
            raise PlanningError(f"{ctx.where}: {window.function} adds {', '.join(WINDOW_COLUMNS)}, "
                                f"but its table already has {', '.join(sorted(taken))}; rename "
                                f"the column")
        output = RowType(tuple(input_row.fields) + tuple(window_property_fields()))
        node = self.add(StreamExecWindowTableFunction, [relation.node],
                        windowing=WindowingStrategy(window=spec,
                                                    time_attribute_index=window.time_index),
                        output_type=output.text,
                        description=f"WindowTableFunction(window=["
                                    f"{spec.describe(window.time_column, input_row.names)}])")
        fields = {f.name: f for f in output.fields}
        scope = [ScopeField(f.qualifier, f.name, fields[f.field.name]) for f in relation.scope_fields]
        return Relation(node, scope, relation.names)

    def _add_window_aggregate(self, node, relation: Relation, key_count: int, specs, window_keys,
                              description_select: list[str], key_names: list[str],
                              time_index: int, need_retraction: bool = False):
        window = relation.window
        properties = [NamedWindowProperty(name=name, property=WINDOW_COLUMNS[name])
                      for name in window_keys]
        pre_row = node.row_type
        spec = window.spec
        if spec.is_session:                # the partition keys are the group keys
            spec = spec.model_copy(update={"partition_key_indices": sorted(
                pre_row.names[:key_count].index(name) for name in window.partition_keys)})
        fields = [Field(f.name, f.type) for f in pre_row.fields[:key_count]]
        fields += [Field(spec.name, parse_type(spec.type)) for spec in specs]
        by_name = {f.name: f for f in window_property_fields()}
        fields += [by_name[name] for name in window_keys]
        output = RowType(tuple(fields))
        grouped = ", ".join(key_names)
        property_texts = [
            f"{'start' if n == 'window_start' else 'end' if n == 'window_end' else 'rowtime'}"
            f"('w$) AS {n}" for n in window_keys]
        selected = ", ".join(description_select + property_texts)
        description = (f"WindowAggregate({f'groupBy=[{grouped}], ' if key_count else ''}"
                       f"window=[{spec.describe(pre_row.names[time_index], pre_row.names)}], "
                       f"select=[{selected}])")
        windowing = WindowingStrategy(window=spec, time_attribute_index=time_index,
                                      is_rowtime=not window.proctime)
        # Flink: no two phases for a processing-time window (its time cannot be materialized
        # in one node), an unaligned one (a session), or calls without merge (FIRST_VALUE,
        # LAST_VALUE, a UDAF without merge: AggregateUtil.doAllSupportPartialMerge)
        if not spec.is_session and not window.proctime \
                and self.config.get(AGG_PHASE_STRATEGY) != "ONE_PHASE" \
                and not any(call.function in ORDERED_FUNCTIONS for call in specs) \
                and not without_merge(specs):
            return self._local_global_window(node, list(range(key_count)), specs, windowing,
                                             properties, output, key_names, property_texts)
        # an updating input goes into sessions (Flink's needRetraction); a slicing window
        # refuses it when the node checks its input
        retracting = need_retraction and spec.is_session
        return self._one_phase_window(node, list(range(key_count)), specs, windowing, properties,
                                      output, description, need_retraction=retracting or None)

    def _one_phase_window(self, node, grouping: list[int], specs, windowing, properties,
                          output: RowType, description: str, need_retraction=None):
        """One stream-exec-window-aggregate (`windowing`: over the time attribute, or
        WindowAttached over fired windows)."""
        return self.add(StreamExecWindowAggregate, [node], grouping=grouping,
                        agg_calls=[WindowAggCallSpec.model_validate(spec, from_attributes=True)
                                   for spec in specs], windowing=windowing,
                        named_window_properties=properties, output_type=output.text,
                        description=description, need_retraction=need_retraction)

    def _local_global_window(self, node, grouping: list[int], specs,
                             windowing: WindowingStrategy, properties, output: RowType,
                             key_names: list[str], property_texts: list[str]):
        """Flink's TwoStageOptimizedWindowAggregateRule: unless the phase strategy is
        ONE_PHASE, an event-time aggregate of an aligned window (TUMBLE, HOP, CUMULATE; every
        call here merges) is a local window aggregate and a global one, described as Flink
        describes them. `grouping`: the group keys' input columns."""
        from .aggregate_rule import _agg_text

        key_count = len(grouping)
        pre_row = node.row_type
        local_row = local_window_row(pre_row, grouping, specs)
        accs = accumulator_fields(specs, pre_row)
        group_by = f"groupBy=[{', '.join(key_names)}], " if key_count else ""
        window = windowing.window
        local_select = ", ".join(key_names + [
            f"{_agg_text(spec, pre_row).rpartition(' AS ')[0]} AS {accumulator_text(own)}"
            for spec, own in zip(specs, accs)] + [f"COUNT(*) AS {accs[-1][0].name}",
                                                  f"slice_end('w$) AS {SLICE_END}"])
        local = self.add(StreamExecLocalWindowAggregate, [node], grouping=grouping,
                         agg_calls=GlobalAggCallSpec.of(specs), windowing=windowing, output_type=local_row.text,
                         description=f"LocalWindowAggregate({group_by}window=["
                                     f"{window.describe(pre_row.names[windowing.time_attribute_index])}"
                                     f"], select=[{local_select}])")
        global_select = ", ".join(key_names + [
            f"{spec.function}({'DISTINCT ' if spec.distinct else ''}"
            f"{accumulator_text(own)}) AS {spec.name}" for spec, own in zip(specs, accs)]
            + property_texts)
        slice_end = len(local_row.fields) - 1
        described = window.describe(SLICE_END).replace("time_col=", "slice_end=", 1)
        return self.add(StreamExecGlobalWindowAggregate, [local], grouping=list(range(key_count)),
                        agg_calls=GlobalAggCallSpec.of(specs),
                        windowing=SliceAttachedWindowingStrategy(window=window,
                                                                 slice_end=slice_end),
                        named_window_properties=properties,
                        local_agg_input_row_type=pre_row.text, output_type=output.text,
                        description=f"GlobalWindowAggregate({group_by}window=[{described}], "
                                    f"select=[{global_select}])")


def _window_column(key: exp.Expression, relation: Relation) -> Optional[str]:
    if isinstance(key, exp.Column) and key.name in WINDOW_COLUMNS and (
            not key.table or key.table in relation.names):
        return key.name
    return None


def splits_no_distinct(relation: Relation, keys: list[exp.Expression]) -> bool:
    """Flink's SplitAggregateRule leaves a window aggregate of a SESSION or processing-time
    window unsplit: an aggregate grouped by such a window's window_start and window_end, whether
    it is planned as a window aggregate or over the window TVF's rows."""
    window = relation.window
    if window is None or not (window.spec.is_session or window.proctime):
        return False
    return {"window_start", "window_end"} <= {_window_column(key, relation) for key in keys}


def uses_window_column(expression: exp.Expression, relation: Relation) -> Optional[str]:
    return next((column.name for column in expression.find_all(exp.Column)
                 if _window_column(column, relation) is not None), None)


def _interval_ms(arg: exp.Expression, function: str, ctx: QueryContext) -> int:
    if isinstance(arg, exp.Interval) and isinstance(arg.this, exp.Literal) and arg.unit is not None:
        unit = arg.unit.name.upper()
        unit = unit[:-1] if unit.endswith("S") and unit[:-1] in INTERVAL_UNITS_MS else unit
        if unit in INTERVAL_UNITS_MS:
            try:
                amount = int(arg.this.name)
            except ValueError:
                amount = None
            if amount is not None:
                return amount * INTERVAL_UNITS_MS[unit]
    raise PlanningError(f"{ctx.where}: {function}: '{arg.sql(dialect='spark')}' is not an "
                        f"interval such as INTERVAL '5' SECOND (units: "
                        f"{', '.join(INTERVAL_UNITS_MS)})")


def _window_spec(function: str, intervals: list[int]) -> WindowSpec:
    ms = [format_duration_ms(value) for value in intervals]
    if function == "SESSION":               # partition keys: indexes of the aggregate's input
        return WindowSpec(type="SessionWindow", gap=ms[0], partition_key_indices=[])
    if function == "TUMBLE":
        return WindowSpec(type="TumblingWindow", size=ms[0], offset=ms[1] if len(ms) > 1 else None)
    if function == "HOP":
        return WindowSpec(type="HoppingWindow", slide=ms[0], size=ms[1],
                          offset=ms[2] if len(ms) > 2 else None)
    return WindowSpec(type="CumulativeWindow", step=ms[0], max_size=ms[1],
                      offset=ms[2] if len(ms) > 2 else None)
