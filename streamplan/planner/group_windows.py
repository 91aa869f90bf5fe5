"""Flink's legacy group window syntax, `GROUP BY TUMBLE(ts, size)` / `HOP(ts, slide, size)`
with `TUMBLE_START(...)`, `_END`, `_ROWTIME` in the select list, planned as the window
table-valued function aggregate it equals: `FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size))
GROUP BY ..., window_start, window_end`, the auxiliary functions read as `window_start`,
`window_end` and `window_time`. Over an insert-only input Flink's legacy operator
(StreamExecGroupWindowAggregate: WindowOperator) and its window TVF aggregate give the same
rows: a window fires when the watermark reaches its end, empty windows emit nothing, and a row
is dropped as late only when every window holding it has fired.

`GROUP BY SESSION(...)` (sessions per group key) and a group window over a join or a sub-query
are refused, naming the table-valued function to write instead.
"""
from __future__ import annotations

from sqlglot import exp

from ..errors import UnsupportedSqlError
from ..sql.parser import SESSION_STANDIN

_WINDOWS = {"TUMBLE": 1, "HOP": 2}          # the intervals after the time attribute
_LEGACY = ("TUMBLE", "HOP", SESSION_STANDIN)    # the parser renames a SESSION call
_AUXILIARY = {"START": "window_start", "END": "window_end", "ROWTIME": "window_time"}


def rewrite_group_window(select: exp.Select, position) -> exp.Select:
    """`select` with its legacy group window rewritten as the window TVF; itself without one."""
    group = select.args.get("group")
    calls = [key for key in (group.expressions if group else ())
             if isinstance(key, exp.Anonymous) and key.name.upper() in _LEGACY]
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
    if name == SESSION_STANDIN:
        raise refuse("GROUP BY SESSION(...)", "FROM TABLE(SESSION(TABLE t PARTITION BY keys, "
                     "DESCRIPTOR(ts), gap)) GROUP BY keys, window_start, window_end")
    args = call.expressions
    if len(args) != 1 + _WINDOWS[name] or not isinstance(args[0], exp.Column) \
            or not all(isinstance(arg, exp.Interval) for arg in args[1:]):
        shown = "ts, INTERVAL size" if name == "TUMBLE" else "ts, INTERVAL slide, INTERVAL size"
        raise refuse(f"GROUP BY {call.sql()}: {name} takes ({shown})")
    source = select.args.get("from_")
    table = source.this if source is not None else None
    if select.args.get("joins") or not isinstance(table, exp.Table) \
            or not isinstance(table.this, exp.Identifier):
        raise refuse(f"GROUP BY {name}(...) over a join or a sub-query")
    rewritten = select.copy()
    window = exp.Anonymous(this=name, expressions=[
        exp.Column(this=table.this.copy()),
        exp.Anonymous(this="DESCRIPTOR", expressions=[args[0].copy()]),
        *(arg.copy() for arg in args[1:])])
    alias = table.args.get("alias")
    rewritten.set("from_", exp.From(this=exp.Table(
        this=exp.Anonymous(this="TABLE", expressions=[window]),
        alias=alias.copy() if alias is not None else None)))
    keys = []
    for key in group.expressions:
        keys.extend([exp.column("window_start"), exp.column("window_end")] if key is call
                    else [key.copy()])
    rewritten.set("group", exp.Group(expressions=keys))
    call_sql = [arg.sql() for arg in args]

    def auxiliary(node: exp.Expression) -> exp.Expression:
        if not (isinstance(node, exp.Anonymous) and node.name.upper().startswith(name + "_")):
            return node
        column = _AUXILIARY.get(node.name.upper()[len(name) + 1:])
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
