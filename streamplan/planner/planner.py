"""INSERT INTO ... SELECT statements to a compiled plan of exec nodes.

A query is a SELECT over tables, subqueries and CTEs, joined by interval joins (both time
bounds between the rowtime attributes) or regular joins, with WHERE, projection, GROUP BY
aggregates and HAVING. Every other construct is rejected by name, with the exec node it
would need.

This module holds no rule: it keeps the planner's public names where callers import them
(streamplan.api, streamplan.testing, the tests). The planner is split one concern a module,
as sqlglot's optimizer keeps one rule a module: builder (the PlanBuilder, its graph and the
INSERT statement), select (query blocks), sources (tables and scans), joins, ranks
(ROW_NUMBER), aggregate_rule (GROUP BY), changelog (update-before and changelog inference
over the planned graph) and common (what the rules share).
"""
from __future__ import annotations

from .builder import PlanBuilder, integer_division
from .changelog import check_changelog, infer_node_changelog
from .common import QueryContext, Relation
from .sources import PROCTIME_SQL, PROCTIME_TYPE, table_row_type

__all__ = ["PROCTIME_SQL", "PROCTIME_TYPE", "PlanBuilder", "QueryContext", "Relation",
           "check_changelog", "infer_node_changelog", "integer_division", "table_row_type"]
