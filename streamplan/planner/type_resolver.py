"""Spark infers the types of projected expressions (and checks them) at planning time."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional

from ..errors import PlanningError
from ..runtime.jvm import jvm_class
from ..types import RowType, SqlType, from_spark

# PySpark logs every analysis error it raises, stack trace and all, before we turn it into a
# PlanningError that says the same in one line: not while the planner asks on purpose.
_ANALYSIS_ERROR_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")


@contextmanager
def _analysis_errors_unlogged() -> Iterator[None]:
    from pyspark.logger import PySparkLogger

    loggers = [PySparkLogger.getLogger(name) for name in _ANALYSIS_ERROR_LOGGERS]
    before = [logger.disabled for logger in loggers]
    for logger in loggers:
        logger.disabled = True
    try:
        yield
    finally:
        for logger, disabled in zip(loggers, before):
            logger.disabled = disabled


class SparkTypeResolver:
    def __init__(self, spark):
        self.spark = spark
        self._frames: dict[str, object] = {}

    def _empty_frame(self, input_type: RowType):
        """An empty DataFrame of `input_type` (declared nullability), one per type a compile.
        A LocalRelation built on the JVM: `createDataFrame([], schema)` goes through an RDD,
        ~16 ms of py4j calls where this takes two."""
        from pyspark.sql.classic.dataframe import DataFrame

        schema = input_type.to_spark(declared_nullability=True).json()
        if schema not in self._frames:
            session = self.spark._jsparkSession
            rows = jvm_class(self.spark._jvm, "java.util.ArrayList")()
            self._frames[schema] = DataFrame(
                session.createDataFrame(rows, session.parseDataType(schema)), self.spark)
        return self._frames[schema]

    def resolve(self, input_type: RowType, projection: list[str], condition: Optional[str],
                where: str) -> list[SqlType]:
        """Types of `projection` over `input_type`; Spark's analysis errors become PlanningError."""
        from py4j.protocol import Py4JJavaError
        from pyspark.errors import PySparkException

        frame = self._empty_frame(input_type)
        try:
            with _analysis_errors_unlogged():
                if condition is not None:
                    frame = frame.filter(condition)
                frame = frame.selectExpr(*projection)
                fields = frame.schema.fields
        except PySparkException as err:
            message = str(err).strip().splitlines()[0]
            raise PlanningError(f"{where}: Spark rejected the expression(s): {message}") from None
        except Py4JJavaError as err:    # an error Spark raises outside its analysis (internal)
            message = str(err.java_exception).strip().splitlines()[0]
            raise PlanningError(f"{where}: Spark could not resolve the expression(s) "
                                f"{', '.join(projection)}: {message}") from None
        types = []
        for text, spark_field in zip(projection, fields):
            try:
                types.append(from_spark(spark_field.dataType, spark_field.nullable))
            except ValueError as err:      # e.g. a bare NULL: Spark's VOID, no SQL type
                raise PlanningError(f"{where}: expression {text} has no SQL type ({err}); give "
                                    f"it one, e.g. CAST(NULL AS INT), as Flink requires") from None
        return types

    def check_condition(self, input_type: RowType, condition: str, where: str) -> None:
        types = self.resolve(input_type, [f"({condition}) AS c"], None, where)
        if types[0].name != "BOOLEAN":
            raise PlanningError(f"{where}: condition '{condition}' is of type {types[0].text}, "
                                f"not BOOLEAN")
