"""User-defined functions: how they are written (base), their declared types (data_types),
and how they are registered, recorded in plans and resolved when a plan runs (catalog)."""
from .base import (AGGREGATE, SCALAR, TABLE, AggregateFunction, ScalarFunction, TableFunction,
                   UserDefinedFunction, has_method, instance_of)
from .catalog import (FunctionDefinition, FunctionSpec, define_function, resolve,
                      signature_changes)

__all__ = ["AGGREGATE", "SCALAR", "TABLE", "AggregateFunction", "ScalarFunction", "TableFunction",
           "UserDefinedFunction", "FunctionDefinition", "FunctionSpec", "define_function",
           "resolve", "signature_changes", "has_method", "instance_of"]
