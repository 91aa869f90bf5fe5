"""What a user-defined function is written as: a class of one of three kinds, as Flink's
`ScalarFunction`, `TableFunction` and `AggregateFunction`, with its signature declared on
the class (Flink's `@FunctionHint` / `@DataTypeHint`):

    class WeightedAvg(AggregateFunction):
        ARGUMENT_TYPES = ("BIGINT", "INT")
        RESULT_TYPE = "BIGINT"
        ACCUMULATOR_TYPE = "ROW<sum BIGINT, count INT>"

        def create_accumulator(self): return SimpleNamespace(sum=0, count=0)
        def accumulate(self, acc, value, weight): ...
        def get_value(self, acc): ...

A function is found by its implementation path `module:qualname`, which is what plans
record (never pickled code); the class must be importable by that path on the driver and
on Spark's Python workers.
"""
from __future__ import annotations

import importlib
from typing import Any, ClassVar, Iterable, Optional

from ..errors import FunctionError

SCALAR, TABLE, AGGREGATE = "SCALAR", "TABLE", "AGGREGATE"
KINDS = (SCALAR, TABLE, AGGREGATE)


class UserDefinedFunction:
    """Declared signature: ARGUMENT_TYPES (with VARARGS the last one repeats, zero or more
    times), RESULT_TYPE. The instance is created once per process with no arguments, and
    `open()` is called on it before its first use (Flink's open(FunctionContext))."""

    KIND: ClassVar[str] = ""
    ARGUMENT_TYPES: ClassVar[tuple[str, ...]] = ()
    VARARGS: ClassVar[bool] = False
    RESULT_TYPE: ClassVar[str] = ""

    def open(self) -> None:
        """Called once per process before the first call."""


class ScalarFunction(UserDefinedFunction):
    """One value per row: `eval(*args)`."""

    KIND = SCALAR

    def eval(self, *args: Any) -> Any:
        raise NotImplementedError


class TableFunction(UserDefinedFunction):
    """Zero or more rows per row: `eval(*args)` yields tuples of RESULT_TYPE's fields."""

    KIND = TABLE

    def eval(self, *args: Any) -> Iterable[tuple]:
        raise NotImplementedError


class AggregateFunction(UserDefinedFunction):
    """Flink's AggregateFunction contract: `create_accumulator()`, `accumulate(acc, *args)`
    (changes `acc` in place; an accumulator that cannot change in place, such as an int,
    stays as created, exactly as a Java `Long` accumulator does), `get_value(acc)`, and
    optionally `retract(acc, *args)` (needed over an updating input) and `merge(acc,
    others)` (needed by two-phase aggregation). ACCUMULATOR_TYPE is the state layout the
    accumulator is kept in: a ROW's fields are the accumulator's attributes, an ARRAY a
    list, a MAP a dict."""

    KIND = AGGREGATE
    ACCUMULATOR_TYPE: ClassVar[str] = ""

    def create_accumulator(self) -> Any:
        raise NotImplementedError

    def accumulate(self, acc: Any, *args: Any) -> None:
        raise NotImplementedError

    def get_value(self, acc: Any) -> Any:
        raise NotImplementedError


def implementation_path(cls: Any) -> str:
    """`module:qualname` of a function class; refused for classes that cannot be imported by
    that path (defined in a function, in __main__)."""
    if not isinstance(cls, type):
        raise FunctionError(f"a function is given by its class (or 'module:qualname'), got "
                            f"{cls!r}")
    qualname, module = cls.__qualname__, cls.__module__
    if "<locals>" in qualname or module == "__main__":
        raise FunctionError(
            f"function class {qualname} is defined {'in __main__' if module == '__main__' else 'inside a function'}; "
            f"plans name a function by 'module:qualname', so define it at module level in an "
            f"importable module")
    return f"{module}:{qualname}"


def import_implementation(path: str) -> type:
    """The class named by `module:qualname`; ImportError / AttributeError pass through for
    the caller to word."""
    module_name, _, qualname = path.partition(":")
    if not module_name or not qualname:
        raise ImportError(f"'{path}' is not 'module:qualname'")
    target: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


_INSTANCES: dict[str, Any] = {}


def instance_of(path: str) -> Any:
    """One instance per implementation and process (workers import the class themselves)."""
    found = _INSTANCES.get(path)
    if found is None:
        found = import_implementation(path)()
        if callable(getattr(found, "open", None)):
            found.open()
        _INSTANCES[path] = found
    return found


def has_method(instance: Any, name: str) -> bool:
    return callable(getattr(instance, name, None))


def kind_of(cls: type) -> Optional[str]:
    for base, kind in ((AggregateFunction, AGGREGATE), (TableFunction, TABLE),
                       (ScalarFunction, SCALAR)):
        if issubclass(cls, base):
            return kind
    return None
