"""How a plan names a user-defined function (streamplan.functions): by identity, as Flink's
plan JSON does (`systemName` for a temporary system function, `catalogName` for a catalog
function), with the Python class that implements it and the signature it was compiled
against; never by pickled code."""
from __future__ import annotations

from typing import Literal, Optional

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

    @property
    def identity(self) -> str:
        return self.system_name or self.catalog_name or "?"

    def described(self) -> str:
        return f"function {self.identity} ({self.implementation})"
