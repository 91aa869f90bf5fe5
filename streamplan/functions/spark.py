"""Scalar functions on Spark: each one a pandas UDF (Arrow batches in and out, the function's
`eval` per value) registered in the session under the name the calc's SQL calls it by."""
from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager
from typing import Any

from ..nodes.function_spec import FunctionSpec
from .catalog import resolve
from .data_types import parse_data_type, to_spark


def sql_name(spec: FunctionSpec) -> str:
    """The name a query calls the function by: its system name, or the last part of its
    catalog path."""
    return spec.system_name or spec.catalog_name.rsplit(".", 1)[-1].strip("`")


def _evaluator(implementation: str, argument_types: tuple[str, ...], varargs: bool,
               result_type: str):
    """The pandas UDF body: each row's values as plain Python values of the declared argument
    types (a NULL as None, an INT as int even where pandas made the column float), `eval`,
    and the results as a Series of the result type."""
    def evaluate(*columns):
        import pandas as pd

        from .base import instance_of

        function = instance_of(implementation)
        kinds = list(argument_types)
        if varargs and kinds:
            kinds += [kinds[-1]] * max(len(columns) - len(kinds), 0)
        values = [function.eval(*(_plain(v, kind) for v, kind in zip(row, kinds)))
                  for row in zip(*columns)]
        if result_type.startswith("TIMESTAMP"):
            return pd.to_datetime(pd.Series(values, dtype=object))
        return pd.Series(values, dtype=object)

    return evaluate


def _plain(value: Any, kind: str) -> Any:
    """A value pandas handed over as the plain Python value of its declared type."""
    try:
        import pandas as pd

        if value is None or bool(pd.isna(value)):
            return None
    except (TypeError, ValueError):
        return value
    name = kind.split("(")[0].split()[0]
    if name in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        return int(value)
    if name in ("FLOAT", "DOUBLE"):
        return float(value)
    if name == "BOOLEAN":
        return bool(value)
    if name.startswith("TIMESTAMP") and hasattr(value, "to_pydatetime"):
        return value.to_pydatetime()
    return value


# Per session, the spec last registered under each SQL name. Every compile and every run of a
# plan registers its functions; registering the spec a name already holds again only costs
# py4j round trips (~6 ms each), so it is skipped.
_REGISTERED: "weakref.WeakKeyDictionary[Any, dict[str, FunctionSpec]]" = weakref.WeakKeyDictionary()
_REGISTERING = threading.RLock()


@contextmanager
def function_names_held():
    """Held from registering a query's functions until Spark's analyzer has resolved their
    names: queries started on one session at once (the gate's run-ahead threads) may register
    other functions under the same name, and a name is resolved when the query is analyzed."""
    with _REGISTERING:
        yield


def register_scalar(spark, spec: FunctionSpec, where: str, check: bool = True) -> None:
    """Register `spec` (a SCALAR function) in `spark` under its SQL name, unless that name
    already holds this spec there; with `check`, the class must resolve with the plan's
    signature first (catalog.resolve)."""
    from pyspark.sql.functions import pandas_udf

    if check:
        resolve(spec, where)
    name = sql_name(spec)
    with _REGISTERING:
        registered = _REGISTERED.setdefault(spark, {})
        if registered.get(name) == spec:
            return
        result = to_spark(parse_data_type(spec.result_type))
        evaluate = _evaluator(spec.implementation, tuple(spec.argument_types),
                              bool(spec.varargs), spec.result_type)
        spark.udf.register(name, pandas_udf(evaluate, result))
        registered[name] = spec


def scalar_functions_called(functions: dict, expressions: list[str]) -> list:
    """The registered scalar functions (FunctionDefinition) that Spark SQL `expressions`
    call, in name order."""
    import re

    text = "\n".join(expressions)
    return [definition for name, definition in sorted(functions.items())
            if definition.kind == "SCALAR"
            and re.search(rf"(?<![\w`.]){re.escape(name)}\s*\(", text, re.IGNORECASE)]
