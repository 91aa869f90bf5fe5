"""Temporal table functions (Flink's `createTemporarySystemFunction(name,
table.createTemporalTableFunction(timeAttribute, primaryKey))`): `LATERAL TABLE (Rates(o.t))
AS r` joins the versions of the history table `Rates` stands for, as of the left row's time
attribute, by the function's primary key. Flink plans it as the event-time temporal join of
`FOR SYSTEM_TIME AS OF` with `isTemporalFunctionJoin`; so does this planner, by reading the
call as that join's versioned table (`versioned_table_item`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from sqlglot import exp

from ..errors import PlanningError
from ..sql.ast import CreateTable


@dataclass(frozen=True)
class TemporalTableFunction:
    name: str
    table: str                 # the history table
    time_attribute: str        # its rowtime column
    primary_key: tuple[str, ...]


def define_temporal_table_function(name: str, table: Optional[CreateTable], table_name: str,
                                   time_attribute: str, primary_key: tuple[str, ...]
                                   ) -> TemporalTableFunction:
    """The function over `table` (None: no such table), checked as Flink checks
    createTemporalTableFunction: the time attribute and key are columns of the table."""
    what = f"temporal table function '{name}'"
    for value, role in ((name, "its name"), (table_name, "the table"),
                        (time_attribute, "the time attribute"), *((key, "a primary key column")
                                                                   for key in primary_key)):
        if not isinstance(value, str) or not value.strip():
            raise PlanningError(f"{what}: {role} is a column or table name (a non-blank str), "
                                f"not {value!r}"[:300])
    if table is None:
        raise PlanningError(f"{what}: there is no table '{table_name}' (create it first)")
    columns = {column.name: column for column in table.columns}
    if time_attribute not in columns:
        raise PlanningError(f"{what}: '{time_attribute}' is no column of '{table.name}' "
                            f"(columns: {', '.join(columns)})")
    if not primary_key:
        raise PlanningError(f"{what}: a primary key of at least one column is needed")
    missing = [key for key in primary_key if key not in columns]
    if missing:
        raise PlanningError(f"{what}: primary key column(s) {', '.join(missing)} are no columns "
                            f"of '{table.name}' (columns: {', '.join(columns)})")
    return TemporalTableFunction(name, table.name, time_attribute, tuple(primary_key))


def table_function_call(lateral: exp.Lateral) -> Optional[exp.Anonymous]:
    """The function call `f(...)` of `LATERAL TABLE(f(...))`; None for any other LATERAL."""
    call = lateral.this
    inner = call.expressions[0] if (isinstance(call, exp.Anonymous) and call.name.upper() == "TABLE"
                                    and len(call.expressions) == 1) else None
    return inner if isinstance(inner, exp.Anonymous) else None


def versioned_table_item(join: exp.Join, functions: dict[str, TemporalTableFunction]
                         ) -> Optional[exp.Join]:
    """`join` with its `LATERAL TABLE (f(o.t)) AS r` of a temporal table function `f` read as
    `<f's table> FOR SYSTEM_TIME AS OF o.t AS r` (the function kept in the item's meta, for the
    temporal join to take its key from); None when it calls no temporal table function."""
    lateral = join.this
    if not isinstance(lateral, exp.Lateral):
        return None
    inner = table_function_call(lateral)
    if inner is None or inner.name.lower() not in functions:
        return None
    function = functions[inner.name.lower()]
    if len(inner.expressions) != 1:
        raise PlanningError(f"temporal table function '{function.name}' takes one argument, the "
                            f"left table's time attribute, not {len(inner.expressions)}")
    alias = lateral.args.get("alias")
    item = exp.Table(this=exp.to_identifier(function.table),
                     version=exp.Version(this="TIMESTAMP", kind="AS OF",
                                         expression=inner.expressions[0].copy()),
                     alias=exp.TableAlias(this=alias.this) if alias is not None and alias.this
                     else None)
    item.meta["temporal_function"] = function
    rewritten = join.copy()
    rewritten.set("this", item)
    return rewritten
