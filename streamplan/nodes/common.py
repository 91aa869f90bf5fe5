"""Specs shared by several nodes: the catalog table a scan reads or a sink writes."""
from __future__ import annotations

from typing import Optional

from .base import PlanModel


class TableSpec(PlanModel):
    """A resolved catalog table as persisted in the plan (schema lives in outputType)."""

    identifier: str
    options: dict[str, str]
    primary_key: Optional[list[str]] = None
