"""The lookup join rule: `o [LEFT] JOIN d FOR SYSTEM_TIME AS OF o.proc_time [AS c] ON ...`
where `o.proc_time` is a processing-time attribute and `d` a values table that serves
lookups (not `'disable-lookup' = 'true'`) becomes a stream-exec-lookup-join (Flink's
StreamPhysicalLookupJoinRule). `d` is no input of the plan: the join reads it. The ON
condition splits as Flink splits it: equalities between an input expression and a column of
`d` are the lookup keys (at least one), conditions on `d` alone filter the table, conditions
on the input alone are the pre-filter (in a LEFT join a row they reject is padded without a
lookup), and the rest is checked on each joined row. The LOOKUP hint's options and the
table's 'async' option are recorded in the plan as Flink records them.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Optional

from sqlglot import exp

from ..durations import format_duration_ms, parse_duration_ms
from ..errors import PlanningError, UnsupportedSqlError
from ..join_type import JoinType
from ..nodes.lookup_join import (AsyncLookupOptions, LookupKey, RetryLookupOptions,
                                 StreamExecLookupJoin)
from ..sql.ast import CreateTable, Hint
from ..types import RowType
from .common import QueryContext, Relation
from .joins import _join_fields
from .scope import Scope, ScopeField
from .sources import table_row_type, table_spec

# Flink's defaults of table.exec.async-lookup.buffer-capacity, .timeout and .output-mode,
# which an async lookup without those hint options gets
_ASYNC_DEFAULTS = ("100", "3 min", "ordered")


def is_lookup_table(table: CreateTable) -> bool:
    """Flink's values source is a lookup source unless 'disable-lookup' is 'true'."""
    return table.options.get("disable-lookup", "false").lower() != "true"


class LookupJoinRules:
    """Lookup joins; a mixin of PlanBuilder (builder.py), asked by the temporal join rule."""

    def _lookup_join(self, left: Relation, join: exp.Join, table: CreateTable,
                     join_type: JoinType, ctx: QueryContext,
                     pushed: list[exp.Expression], select: exp.Select) -> Relation:
        where, position = ctx.where, ctx.position
        item: exp.Table = join.this
        if any(column.computed is not None for column in table.columns):
            raise UnsupportedSqlError(
                f"a lookup table with computed or metadata columns ('{table.name}'; a lookup "
                f"reads the table's physical columns)", position.line, position.column,
                position.source)
        right_row = table_row_type(table, physical_only=True)
        qualifier = item.alias or table.name
        right_scope = [ScopeField(qualifier, field.name, field) for field in right_row.fields]
        # the right side is no node of the plan: the key split needs its row and columns only
        right = Relation(SimpleNamespace(row_type=right_row), right_scope, (qualifier,))
        left, left_keys, right_keys, remaining = self._temporal_keys(
            left, right, join, pushed, ctx, select)
        if not left_keys:
            raise PlanningError(f"{where}: Temporal table join requires an equality condition on "
                                f"fields of table [{table.name}].")
        left_row = left.node.row_type
        table_only, input_only, mixed = [], [], []
        for conjunct in remaining:
            sides = {_side(column, left, right_scope) for column in conjunct.find_all(exp.Column)}
            (table_only if sides == {"R"} else input_only if sides <= {"L"} else mixed
             ).append(conjunct)
        out_fields, renamed = _join_fields(left_row, right_row, join_type)
        output = RowType(tuple(out_fields))
        out_scope = [ScopeField(sf.qualifier, sf.name, out_fields[i])
                     for i, sf in enumerate(left.scope_fields + right_scope)]
        table_filter = self._condition(table_only, right_scope, right_row, where)
        pre_filter = self._condition(input_only, left.scope_fields, left_row, where)
        rest = self._non_equi(mixed, out_scope, output, where)
        hint = ctx.hints.lookup.for_table(tuple(dict.fromkeys((qualifier, table.name))))
        async_options, retry_options = _lookup_options(hint, table)
        keys = ", ".join(f"{right_row.names[r]}={renamed[l]}"
                         for l, r in zip(left_keys, right_keys))
        description = (f"LookupJoin(table=[{table.name}], joinType=[{join_type.label}], "
                       f"lookup=[{keys}]"
                       + (f", where=[{table_filter}]" if table_filter else "")
                       + (f", joinCondition=[{rest}]" if rest else "")
                       + (f", preFilterCondition=[{pre_filter}]" if pre_filter else "")
                       + (", async=[true]" if async_options else "")
                       + (f", retry=[{retry_options.retry_predicate}, "
                          f"{retry_options.retry_strategy}]" if retry_options else "")
                       + f", select=[{', '.join(renamed)}])")
        node = self.add(StreamExecLookupJoin, [left.node], join_type=join_type.value,
                        temporal_table=table_spec(table), temporal_table_type=right_row.text,
                        lookup_keys=[LookupKey(temporal_index=r, input_index=l)
                                     for l, r in zip(left_keys, right_keys)],
                        filter_on_temporal_table=table_filter, pre_filter_condition=pre_filter,
                        remaining_join_condition=rest, async_options=async_options,
                        retry_options=retry_options, output_type=output.text,
                        description=description)
        return Relation(node, out_scope, left.names + (qualifier,))

    def _condition(self, conjuncts: list[exp.Expression], scope: list[ScopeField], row: RowType,
                   where: str) -> Optional[str]:
        if not conjuncts:
            return None
        joined = exp.and_(*conjuncts) if len(conjuncts) > 1 else conjuncts[0]
        text = self._sql(Scope(scope, where).rewrite(joined), row, where)
        self.types.check_condition(row, text, where)
        return text


def _side(column: exp.Column, left: Relation, right_scope: list[ScopeField]) -> Optional[str]:
    def names(field: ScopeField) -> bool:
        return field.name == column.name and (not column.table or field.qualifier == column.table)

    in_left = any(names(f) for f in left.scope_fields)
    in_right = any(names(f) for f in right_scope)
    return None if in_left == in_right else "L" if in_left else "R"


def _lookup_options(hint: Optional[Hint], table: CreateTable):
    """Flink's AsyncLookupOptions (async by the hint, else by the table's 'async' option) and
    RetryLookupOptions (by the hint)."""
    options = hint.options if hint is not None else {}
    is_async = options.get("async", table.options.get("async", "false")).lower() == "true"
    async_options = None
    if is_async:
        capacity, timeout, mode = (options.get("capacity", _ASYNC_DEFAULTS[0]),
                                   options.get("timeout", _ASYNC_DEFAULTS[1]),
                                   options.get("output-mode", _ASYNC_DEFAULTS[2]))
        async_options = AsyncLookupOptions(
            capacity=int(capacity), timeout=format_duration_ms(parse_duration_ms(timeout)),
            output_mode=mode.upper())
    retry_options = None
    if "retry-predicate" in options:
        retry_options = RetryLookupOptions(
            retry_predicate=options["retry-predicate"].lower(),
            retry_strategy=options["retry-strategy"].upper(),
            retry_fixed_delay=format_duration_ms(parse_duration_ms(options["fixed-delay"])),
            retry_max_attempts=int(options["max-attempts"]))
    return async_options, retry_options
