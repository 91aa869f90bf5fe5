"""Views (`CREATE VIEW v AS <query>`): Flink expands a view where a query names it, so a view
plans as a CTE of every INSERT after it. What a view reads must exist when it is created,
which also keeps views from reading themselves, directly or through another view."""
from __future__ import annotations

from sqlglot import exp

from ..errors import PlanningError
from ..sql.ast import CreateView
from ..sql.parser import SESSION_STANDIN, WINDOW_TVFS

_TVF_NAMES = frozenset(WINDOW_TVFS) | {SESSION_STANDIN}


def relations_read(query: exp.Expression) -> set[str]:
    """The tables and views `query` names (FROM, JOIN, subqueries, window TVFs' TABLE
    arguments), without the CTEs it defines itself."""
    own = {cte.alias for with_ in query.find_all(exp.With) for cte in with_.expressions}
    names = {table.name for table in query.find_all(exp.Table)
             if isinstance(table.this, exp.Identifier)}
    names |= {call.expressions[0].name for call in query.find_all(exp.Anonymous)
              if call.name.upper() in _TVF_NAMES and call.expressions
              and isinstance(call.expressions[0], exp.Column)}
    return names - own


def check_view_reads(view: CreateView, defined: set[str]) -> None:
    """Every relation the view reads is a table or view created before it."""
    missing = sorted(relations_read(view.query) - defined)
    if missing:
        itself = " (a view cannot read itself)" if view.name in missing else ""
        raise PlanningError(
            f"{view.position}: view '{view.name}' reads "
            f"{', '.join(repr(name) for name in missing)}, which is not a table or view created "
            f"before it{itself}; create it first, with CREATE TABLE or CREATE VIEW")
