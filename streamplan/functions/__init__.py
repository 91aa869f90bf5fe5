"""User-defined functions: how they are written (base), their declared types (data_types),
and how they are registered, recorded in plans and resolved when a plan runs (catalog).

The catalog loads on first use (PEP 562): it brings the plan's models (pydantic, every node
module, sqlglot), which Spark's Python workers never need, yet every worker that runs a
user's function or keeps an aggregate's state imports this package, and a
transformWithState query starts a fresh interpreter for each stateful node."""
from .base import (AGGREGATE, SCALAR, TABLE, AggregateFunction, ScalarFunction, TableFunction,
                   UserDefinedFunction, has_method, instance_of)

_CATALOG = ("FunctionDefinition", "FunctionSpec", "define_function", "resolve",
            "signature_changes")

__all__ = ["AGGREGATE", "SCALAR", "TABLE", "AggregateFunction", "ScalarFunction", "TableFunction",
           "UserDefinedFunction", *_CATALOG, "has_method", "instance_of"]


def __getattr__(name: str):
    if name in _CATALOG:
        from . import catalog
        return getattr(catalog, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
