"""Scalar functions on Spark: each one a pandas UDF (Arrow batches in and out, the function's
`eval` per value) registered in the session under the name the calc's SQL calls it by."""
from __future__ import annotations

from typing import Any

from ..nodes.function_spec import FunctionSpec
from .catalog import resolve
from .data_types import parse_data_type, to_spark


def sql_name(spec: FunctionSpec) -> str:
    """The name a query calls the function by: its system name, or the last part of its
    catalog path."""
    return spec.system_name or spec.catalog_name.rsplit(".", 1)[-1].strip("`")


def _evaluator(implementation: str):
    def evaluate(*columns):
        import pandas as pd

        from .base import instance_of

        function = instance_of(implementation)
        values = [function.eval(*(None if _missing(v) else v for v in row))
                  for row in zip(*columns)]
        return pd.Series(values, dtype=object)

    return evaluate


def _missing(value: Any) -> bool:
    try:
        import pandas as pd

        return value is None or bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def register_scalar(spark, spec: FunctionSpec, where: str, check: bool = True) -> None:
    """Register `spec` (a SCALAR function) in `spark` under its SQL name; with `check`, the
    class must resolve with the plan's signature first (catalog.resolve)."""
    from pyspark.sql.functions import pandas_udf

    if check:
        resolve(spec, where)
    result = to_spark(parse_data_type(spec.result_type))
    spark.udf.register(sql_name(spec), pandas_udf(_evaluator(spec.implementation), result))


def scalar_functions_called(functions: dict, expressions: list[str]) -> list:
    """The registered scalar functions (FunctionDefinition) that Spark SQL `expressions`
    call, in name order."""
    import re

    text = "\n".join(expressions)
    return [definition for name, definition in sorted(functions.items())
            if definition.kind == "SCALAR"
            and re.search(rf"(?<![\w`.]){re.escape(name)}\s*\(", text, re.IGNORECASE)]
