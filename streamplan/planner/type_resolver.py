"""Spark infers the types of projected expressions (and checks them) at planning time."""
from __future__ import annotations

from typing import Optional

from ..errors import PlanningError
from ..types import RowType, SqlType, from_spark


class SparkTypeResolver:
    def __init__(self, spark):
        self.spark = spark

    def resolve(self, input_type: RowType, projection: list[str], condition: Optional[str],
                where: str) -> list[SqlType]:
        """Types of `projection` over `input_type`; Spark's analysis errors become PlanningError."""
        from pyspark.errors import PySparkException

        frame = self.spark.createDataFrame([], input_type.to_spark(declared_nullability=True))
        try:
            if condition is not None:
                frame = frame.filter(condition)
            frame = frame.selectExpr(*projection)
            fields = frame.schema.fields
        except PySparkException as err:
            message = str(err).strip().splitlines()[0]
            raise PlanningError(f"{where}: Spark rejected the expression(s): {message}") from None
        return [from_spark(f.dataType, f.nullable) for f in fields]

    def check_condition(self, input_type: RowType, condition: str, where: str) -> None:
        types = self.resolve(input_type, [f"({condition}) AS c"], None, where)
        if types[0].name != "BOOLEAN":
            raise PlanningError(f"{where}: condition '{condition}' is of type {types[0].text}, "
                                f"not BOOLEAN")
