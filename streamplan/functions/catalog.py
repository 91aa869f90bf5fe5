"""Registered functions and their identity in plans.

A function is registered as Flink registers one: a temporary system function (called by its
name anywhere, `createTemporarySystemFunction`) or a catalog function (in
`default_catalog.default_database`, `createFunction`). The plan names it as Flink's plan JSON
does, by `systemName` or `catalogName`, plus the Python class that implements it
(`implementation`, `module:qualname`) and the signature it was compiled against. Executing a
plan resolves each function from that record; a missing class or a different signature is a
FunctionResolutionError naming the function, the node and what to do.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import FunctionError, FunctionResolutionError
from ..nodes.function_spec import FunctionSpec
from .base import (AGGREGATE, KINDS, implementation_path, import_implementation, instance_of,
                   kind_of)
from .data_types import canonical

DEFAULT_CATALOG, DEFAULT_DATABASE = "default_catalog", "default_database"


@dataclass(frozen=True)
class FunctionDefinition:
    """A registered function: how SQL calls it (`name`) and what the plan records (`spec`)."""

    name: str
    spec: FunctionSpec

    @property
    def kind(self) -> str:
        return self.spec.kind


def define_function(name: str, implementation: Any, temporary_system: bool) -> FunctionDefinition:
    """A function registered under `name` from its class (or 'module:qualname'); its declared
    types are checked now, so a broken declaration fails at registration."""
    if not isinstance(name, str) or not name.isidentifier():
        raise FunctionError(f"a function name is an identifier such as 'my_avg', got {name!r}")
    path = implementation if isinstance(implementation, str) else implementation_path(implementation)
    where = f"function {name} ({path})"
    try:
        cls = import_implementation(path)
    except (ImportError, AttributeError) as err:
        raise FunctionError(f"{where}: cannot import its class: {err}") from None
    kind = kind_of(cls) if isinstance(cls, type) else None
    if kind is None:
        raise FunctionError(f"{where}: not a ScalarFunction, TableFunction or AggregateFunction "
                            f"subclass (streamplan.functions)")
    try:
        arguments = [canonical(text) for text in cls.ARGUMENT_TYPES]
        result = canonical(cls.RESULT_TYPE)
        accumulator = canonical(cls.ACCUMULATOR_TYPE) if kind == AGGREGATE else None
    except (ValueError, TypeError) as err:
        raise FunctionError(f"{where}: a declared type (ARGUMENT_TYPES, RESULT_TYPE"
                            f"{', ACCUMULATOR_TYPE' if kind == AGGREGATE else ''}) is invalid: "
                            f"{err}") from None
    if cls.VARARGS and not arguments:
        raise FunctionError(f"{where}: VARARGS repeats the last of ARGUMENT_TYPES; declare it")
    lowered = name.lower()
    identity = ({"system_name": lowered} if temporary_system else
                {"catalog_name": f"`{DEFAULT_CATALOG}`.`{DEFAULT_DATABASE}`.`{lowered}`"})
    spec = FunctionSpec(**identity, implementation=path, kind=kind, argument_types=arguments,
                        varargs=True if cls.VARARGS else None, result_type=result,
                        accumulator_type=accumulator)
    return FunctionDefinition(lowered, spec)


def declared_spec(spec: FunctionSpec) -> dict[str, Any]:
    """The signature today's class declares, in the plan's terms (raises ImportError /
    AttributeError when the class is gone)."""
    cls = import_implementation(spec.implementation)
    kind = kind_of(cls) if isinstance(cls, type) else None
    return {"kind": kind,
            "argumentTypes": [canonical(t) for t in getattr(cls, "ARGUMENT_TYPES", ())],
            "varargs": bool(getattr(cls, "VARARGS", False)),
            "resultType": canonical(getattr(cls, "RESULT_TYPE", "")) if getattr(cls, "RESULT_TYPE", "") else "",
            "accumulatorType": (canonical(cls.ACCUMULATOR_TYPE) if kind == AGGREGATE else None)}


def signature_changes(spec: FunctionSpec) -> list[tuple[str, Any, Any]]:
    """(what, the plan's, today's) for each part of the signature that differs."""
    today = declared_spec(spec)
    recorded = {"kind": spec.kind, "argumentTypes": spec.argument_types,
                "varargs": bool(spec.varargs), "resultType": spec.result_type,
                "accumulatorType": spec.accumulator_type}
    return [(key, recorded[key], today[key]) for key in recorded if recorded[key] != today[key]]


def resolve(spec: FunctionSpec, where: str) -> Any:
    """The instance that runs `spec`, after checking that its class exists and declares the
    signature the plan was compiled against. `where` names the node and call."""
    try:
        changes = signature_changes(spec)
    except (ImportError, AttributeError) as err:
        raise FunctionResolutionError(
            f"{where}: {spec.described()} cannot be resolved: {type(err).__name__}: {err}. "
            f"The plan names the function by its class; make '{spec.implementation}' importable "
            f"where the plan runs (the driver and Spark's Python workers: PYTHONPATH), or "
            f"compile the plan again against the functions you have.") from None
    except ValueError as err:
        raise FunctionResolutionError(f"{where}: {spec.described()} declares an invalid type "
                                      f"today: {err}") from None
    if changes:
        shown = "; ".join(f"{what} {old!r} in the plan, {new!r} today" for what, old, new in changes)
        state = any(what == "accumulatorType" for what, _, _ in changes)
        remedy = ("Its accumulators are state: checkpoints of this plan hold the old layout. Give "
                  "the changed function a new name (plans and checkpoints of the old name keep "
                  "resolving the old class), or keep the old ACCUMULATOR_TYPE and migrate the "
                  "state explicitly." if state else
                  "Restore the declared signature, or register the changed function under a new "
                  "name and compile the plan again.")
        raise FunctionResolutionError(f"{where}: {spec.described()} declares another signature "
                                      f"than the plan was compiled against: {shown}. {remedy}")
    return instance_of(spec.implementation)
