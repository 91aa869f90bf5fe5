"""GROUPING SETS, ROLLUP and CUBE: which grouping sets a GROUP BY names, and the expand node
that feeds an aggregate one copy of each row per set (Flink's DecomposeGroupingSetsRule:
Expand, then the aggregate grouped by the keys and the expand id `$e`).

`$e` is Flink's expand id (ExpandUtil.genExpandId): one bit per key, the first key the
highest bit, set where the key is not in the set (NULL in that copy). The sets are ordered as
Calcite orders an aggregate's group sets (ImmutableBitSet.COMPARATOR: enclosing sets first,
then by their first differing key), which is `$e` ascending. `GROUPING(k)` and
`GROUPING_ID(k, ...)` are bits of `$e`.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Callable, Optional

from sqlglot import exp

from ..errors import PlanningError, UnsupportedSqlError
from ..nodes.expand import StreamExecExpand
from ..types import Field, RowType, SqlType, quote_identifier
from .common import QueryContext, _dedupe

EXPAND_ID = "$e"
EXPAND_ID_TYPE = SqlType("BIGINT", (), nullable=False)


@dataclass(frozen=True)
class GroupingSets:
    """The GROUP BY keys (each once, in order of first appearance) and the grouping sets as
    key indexes, `$e` ascending. `sets` is None for a plain GROUP BY (one set of all keys)."""

    keys: tuple[exp.Expression, ...]
    sets: Optional[tuple[frozenset[int], ...]]

    def expand_id(self, grouping_set: frozenset[int]) -> int:
        count = len(self.keys)
        return sum(1 << (count - 1 - i) for i in range(count) if i not in grouping_set)

    def without(self, removed: set[int]) -> "GroupingSets":
        """The same sets over the keys that are not `removed` (a window aggregate's window
        columns, which every set holds and the window itself groups by)."""
        return _reindexed(self.keys, self.sets,
                          [i for i in range(len(self.keys)) if i not in removed])

    def in_input_order(self, position: Callable[[exp.Expression], Optional[int]]) -> "GroupingSets":
        """Keys that are all columns of the aggregate's input in the input's order, as Flink
        orders them (Calcite merges the projection below into the aggregate, whose group set
        is a bit set of input fields): `GROUP BY b, ROLLUP(a)` keys a, b. Keys with an
        expression among them keep the order they are written in. A plain GROUP BY is left
        as it is (its plans are released)."""
        positions = [position(key) for key in self.keys]
        if self.sets is None or any(p is None for p in positions):
            return self
        return _reindexed(self.keys, self.sets,
                          sorted(range(len(self.keys)), key=positions.__getitem__))


def _reindexed(keys, sets, kept: list[int]) -> GroupingSets:
    index = {old: new for new, old in enumerate(kept)}
    new_keys = tuple(keys[i] for i in kept)
    if sets is None:
        return GroupingSets(new_keys, None)
    remapped = [frozenset(index[i] for i in s if i in index) for s in sets]
    return GroupingSets(new_keys, None if len(remapped) == 1 else _ordered(new_keys, remapped))


def grouping_sets(items: list[exp.Expression], canonical: Callable[[exp.Expression], str],
                  ctx: QueryContext) -> GroupingSets:
    """The keys and grouping sets of GROUP BY `items`: a plain item is in every set, and the
    items multiply (`GROUP BY a, ROLLUP(b, c)` is the sets (a, b, c), (a, b), (a))."""
    keys: list[exp.Expression] = []
    texts: list[str] = []

    def key(expression: exp.Expression) -> int:
        text = canonical(expression)
        if text not in texts:
            texts.append(text)
            keys.append(expression)
        return texts.index(text)

    def group(element: exp.Expression) -> frozenset[int]:
        """One element of a set list: `a`, `(a)`, `(a, b)` or `()`."""
        if isinstance(element, exp.Tuple):
            return frozenset(key(e) for e in element.expressions)
        if isinstance(element, exp.Paren):
            return group(element.this)
        return frozenset({key(element)})

    def sets_of(item: exp.Expression) -> list[frozenset[int]]:
        if isinstance(item, exp.Rollup):
            groups = [group(e) for e in item.expressions]
            return [frozenset().union(*groups[:n]) for n in range(len(groups), -1, -1)]
        if isinstance(item, exp.Cube):
            groups = [group(e) for e in item.expressions]
            return [frozenset().union(*(g for g, taken in zip(groups, mask) if taken))
                    for mask in product((True, False), repeat=len(groups))]
        if isinstance(item, exp.GroupingSets):
            return [s for element in item.expressions
                    for s in (sets_of(element) if isinstance(element, (exp.Rollup, exp.Cube))
                              else [group(element)])]
        return [group(item)]

    nested = any(isinstance(item, (exp.Rollup, exp.Cube, exp.GroupingSets)) for item in items)
    combined = [frozenset().union(*choice) for choice in product(*map(sets_of, items))]
    if not nested:
        return GroupingSets(tuple(keys), None)
    if len(set(combined)) != len(combined):
        twice = next(s for s in combined if combined.count(s) > 1)
        names = ", ".join(keys[i].sql(dialect="spark") for i in sorted(twice))
        raise UnsupportedSqlError(
            f"the grouping set ({names}) more than once in GROUP BY (Flink adds GROUP_ID() and a "
            f"union of aggregates for a repeated set; name each set once)",
            ctx.position.line, ctx.position.column, ctx.position.source)
    if len(combined) == 1:                 # GROUPING SETS ((a, b)) is GROUP BY a, b
        return GroupingSets(tuple(keys), None)
    return GroupingSets(tuple(keys), _ordered(keys, combined))


def _ordered(keys, sets: list[frozenset[int]]) -> tuple[frozenset[int], ...]:
    probe = GroupingSets(tuple(keys), None)
    return tuple(sorted(sets, key=probe.expand_id))


def grouping_function(call: exp.Expression, grouping: GroupingSets, key_index: Callable,
                      expand_id_column: Optional[str], where: str) -> exp.Expression:
    """`GROUPING(k)` / `GROUPING_ID(k1, ...)` as an expression over `$e` (BIGINT NOT NULL);
    0 without grouping sets, where every key is in the one set."""
    arguments = list(call.expressions)
    if not arguments:
        raise PlanningError(f"{where}: {call.sql(dialect='spark')} needs at least one GROUP BY "
                            f"key as its argument")
    positions = []
    for argument in arguments:
        index = key_index(argument)
        if index is None:
            raise PlanningError(f"{where}: the argument {argument.sql(dialect='spark')} of "
                                f"{call.sql(dialect='spark')} is not a GROUP BY key; name a key")
        positions.append(len(grouping.keys) - 1 - index)
    if grouping.sets is None or expand_id_column is None:
        return exp.cast(exp.Literal.number(0), "BIGINT")
    # Flink's rendering: a CASE over the expand ids, each set's value worked out here
    column = exp.column(expand_id_column, quoted=True)
    values = []
    for grouping_set in grouping.sets:
        absent = grouping.expand_id(grouping_set)
        value = 0
        for position in positions:     # GROUPING_ID(a, b) = GROUPING(a) * 2 + GROUPING(b)
            value = value * 2 + ((absent >> position) & 1)
        values.append((grouping.expand_id(grouping_set), value))
    case = exp.Case(ifs=[exp.If(this=exp.EQ(this=column.copy(), expression=exp.Literal.number(e)),
                                true=exp.Literal.number(v)) for e, v in values[:-1]],
                    default=exp.Literal.number(values[-1][1]))
    return exp.cast(case, "BIGINT")


class GroupingSetRules:
    """The expand under an aggregate with grouping sets; a mixin of PlanBuilder (builder.py)."""

    def _expand_grouping_sets(self, node, grouping: GroupingSets):
        """An expand over `node` (keys first, then arguments and the time attribute): per set,
        the keys outside it NULL and `$e` after the keys, so the aggregate groups by the keys
        and `$e` (contiguous, unlike Flink's, which appends `$e` last)."""
        row = node.row_type
        count = len(grouping.keys)
        expand_id = _dedupe(list(row.names) + [EXPAND_ID])[-1]
        nullable = {i for i in range(count) if any(i not in s for s in grouping.sets)}
        fields = [Field(f.name, f.type.with_nullable(True) if i in nullable else f.type,
                        rowtime=f.rowtime, proctime=f.proctime)
                  for i, f in enumerate(row.fields[:count])]
        fields.append(Field(expand_id, EXPAND_ID_TYPE))
        fields += list(row.fields[count:])
        columns = [quote_identifier(name) for name in row.names]
        projects, described = [], []
        for grouping_set in grouping.sets:
            value = grouping.expand_id(grouping_set)
            kept = [columns[i] if i in grouping_set
                    else f"CAST(NULL AS {row.fields[i].type.to_spark().simpleString().upper()})"
                    for i in range(count)]
            projects.append(kept + [f"CAST({value} AS BIGINT)"] + columns[count:])
            described.append("{" + ", ".join(
                [row.names[i] if i in grouping_set else f"null AS {row.names[i]}"
                 for i in range(count)] + [f"{value} AS {expand_id}"]
                + list(row.names[count:])) + "}")
        return self.add(StreamExecExpand, [node], projects=projects,
                        output_type=RowType(tuple(fields)).text,
                        description=f"Expand(projects=[{', '.join(described)}])")
