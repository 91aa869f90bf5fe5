"""Specs shared by several nodes: the catalog table a scan reads or a sink writes."""
from __future__ import annotations

from typing import Optional

from .base import PlanModel


class TableSpec(PlanModel):
    """A resolved catalog table as persisted in the plan (schema lives in outputType)."""

    identifier: str
    options: dict[str, str]
    primary_key: Optional[list[str]] = None


class JoinSpec(PlanModel):
    """Flink's JoinSpec: the join type, equi-join keys and the rest of the ON condition."""

    join_type: str                                   # INNER | LEFT | RIGHT | FULL
    left_keys: list[int]
    right_keys: list[int]
    filter_nulls: list[bool]
    non_equi_condition: Optional[str] = None         # Spark SQL over the output fields
