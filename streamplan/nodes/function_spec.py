"""How a plan names a user-defined function (streamplan.functions): by identity, as Flink's
plan JSON does (`systemName` for a temporary system function, `catalogName` for a catalog
function), with the Python class that implements it and the signature it was compiled
against; never by pickled code."""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import model_validator

from .base import PlanModel


class FunctionSpec(PlanModel):
    """A function as a plan records it (Flink: `systemName` / `catalogName`)."""

    system_name: Optional[str] = None
    catalog_name: Optional[str] = None
    implementation: str                      # module:qualname of the class
    kind: Literal["SCALAR", "TABLE", "AGGREGATE"]
    argument_types: list[str]
    varargs: Optional[bool] = None           # absent: False
    result_type: str
    accumulator_type: Optional[str] = None   # AGGREGATE only: the state layout of its accumulator

    @model_validator(mode="after")
    def _named(self) -> "FunctionSpec":
        if not self.system_name and not self.catalog_name:
            raise ValueError("a function needs its systemName or its catalogName")
        return self

    @property
    def identity(self) -> str:
        return self.system_name or self.catalog_name or "?"

    def described(self) -> str:
        return f"function {self.identity} ({self.implementation})"
