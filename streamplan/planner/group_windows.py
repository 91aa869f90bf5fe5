"""Flink's legacy group window syntax, `GROUP BY TUMBLE(ts, size)` / `HOP(ts, slide, size)` /
`SESSION(ts, gap)` with `TUMBLE_START(...)`, `_END`, `_ROWTIME` in the select list, planned as
the window table-valued function aggregate it equals: `FROM TABLE(TUMBLE(TABLE t,
DESCRIPTOR(ts), size)) GROUP BY ..., window_start, window_end`, the auxiliary functions read as
`window_start`, `window_end` and `window_time`; a legacy session is per group key, so the
SESSION TVF is partitioned by the other group keys. Over an insert-only input Flink's legacy operator
(StreamExecGroupWindowAggregate: WindowOperator) and its window TVF aggregate give the same
rows: a window fires when the watermark reaches its end, empty windows emit nothing, and a row
is dropped as late only when every window holding it has fired.

A group window over a join or a sub-query is refused, naming the table-valued function to
write instead.
"""
from __future__ import annotations

from sqlglot import exp

from ..errors import UnsupportedSqlError
from ..sql.parser import PARTITION_KEYS, SESSION_STANDIN

# the intervals after the time attribute; the parser renames a SESSION call SESSION_STANDIN
_WINDOWS = {"TUMBLE": 1, "HOP": 2, SESSION_STANDIN: 1}
_NAMES = {SESSION_STANDIN: "SESSION"}            # as the user wrote them
_AUXILIARY = {"START": "window_start", "END": "window_end", "ROWTIME": "window_time"}


def rewrite_group_window(select: exp.Select, position) -> exp.Select:
    """`select` with its legacy group window rewritten as the window TVF; itself without one."""
    group = select.args.get("group")
    calls = [key for key in (group.expressions if group else ())
             if isinstance(key, exp.Anonymous) and key.name.upper() in _WINDOWS]
    if not calls:
        return select

    def refuse(what: str, instead: str = "FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), ...)) "
                                         "GROUP BY window_start, window_end") -> UnsupportedSqlError:
        return UnsupportedSqlError(
            f"{what} (Flink's legacy group window aggregate); write the window table-valued "
            f"function instead: {instead}", position.line, position.column, position.source)

    if len(calls) > 1:
        raise refuse("two group windows in one GROUP BY")
    (call,) = calls
    name = call.name.upper()
    shown_name = _NAMES.get(name, name)
    args = call.expressions
    if len(args) != 1 + _WINDOWS[name] or not isinstance(args[0], exp.Column) \
            or not all(isinstance(arg, exp.Interval) for arg in args[1:]):
        shown = {"TUMBLE": "ts, INTERVAL size", "HOP": "ts, INTERVAL slide, INTERVAL size",
                 SESSION_STANDIN: "ts, INTERVAL gap"}[name]
        raise refuse(f"GROUP BY {shown_name}(...): {shown_name} takes ({shown})")
    keys = [key for key in group.expressions if key is not call]
    # A legacy session is per group key: the SESSION TVF partitioned by the other keys.
    partition = []
    if name == SESSION_STANDIN:
        if not all(isinstance(key, exp.Column) for key in keys):
            raise refuse("GROUP BY SESSION(...) with a key that is no column",
                         "FROM TABLE(SESSION(TABLE t PARTITION BY keys, DESCRIPTOR(ts), gap)) "
                         "GROUP BY keys, window_start, window_end")
        if keys:
            partition = [exp.Anonymous(this=PARTITION_KEYS,
                                       expressions=[exp.column(key.name) for key in keys])]
    source = select.args.get("from_")
    table = source.this if source is not None else None
    if select.args.get("joins") or not isinstance(table, exp.Table) \
            or not isinstance(table.this, exp.Identifier):
        raise refuse(f"GROUP BY {shown_name}(...) over a join or a sub-query")
    rewritten = select.copy()
    window = exp.Anonymous(this=name, expressions=[
        exp.Column(this=table.this.copy()), *partition,
        exp.Anonymous(this="DESCRIPTOR", expressions=[args[0].copy()]),
        *(arg.copy() for arg in args[1:])])
    alias = table.args.get("alias")
    rewritten.set("from_", exp.From(this=exp.Table(
        this=exp.Anonymous(this="TABLE", expressions=[window]),
        alias=alias.copy() if alias is not None else None)))
    grouped = []
    for key in group.expressions:
        grouped.extend([exp.column("window_start"), exp.column("window_end")] if key is call
                       else [key.copy()])
    rewritten.set("group", exp.Group(expressions=grouped))
    call_sql = [arg.sql() for arg in args]

    def auxiliary(node: exp.Expression) -> exp.Expression:
        if not (isinstance(node, exp.Anonymous)
                and node.name.upper().startswith(shown_name + "_")):
            return node
        column = _AUXILIARY.get(node.name.upper()[len(shown_name) + 1:])
        if column is None:
            raise refuse(f"{node.name.upper()}(...)")
        if [arg.sql() for arg in node.expressions] != call_sql:
            raise refuse(f"{node.sql()} names another window than GROUP BY {call.sql()}")
        return exp.column(column)

    for clause in ("expressions", "having"):
        value = rewritten.args.get(clause)
        if isinstance(value, list):
            rewritten.set(clause, [item.transform(auxiliary) for item in value])
        elif value is not None:
            rewritten.set(clause, value.transform(auxiliary))
    return rewritten
