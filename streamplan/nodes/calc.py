"""Calc: projection and filter, expressions in Spark SQL evaluated by Spark; row kinds pass through."""
from __future__ import annotations

import re

from typing import Optional

from pydantic import ValidationError, model_validator

from ..changelog import OP_COLUMN
from ..types import quote_identifier
from .base import ExecNode
from .fields import SparkExpression
from .function_spec import FunctionSpec
from .metadata import exec_node


@exec_node(name="stream-exec-calc", version=1, min_plan_version="0.1", min_state_version="0.1")
class StreamExecCalc(ExecNode):
    COMPOSITE_COLUMNS = True
    projection: list[SparkExpression]
    condition: Optional[SparkExpression] = None
    # the user-defined scalar functions its expressions call (absent when none): by identity
    # and class, resolved and registered in Spark before the calc runs
    functions: Optional[list[FunctionSpec]] = None

    @model_validator(mode="wrap")
    @classmethod
    def _calls_its_functions(cls, data, handler):
        """Its expressions may call the functions it names (and the built-ins)."""
        from ..functions.spark import sql_name
        from ..sql.expressions import user_functions

        names = []
        declared = data.get("functions") if isinstance(data, dict) else None
        if isinstance(declared, list):         # anything else: the field's validation says so
            for raw in declared:
                try:
                    names.append(sql_name(FunctionSpec.model_validate(raw)))
                except ValidationError:    # the field's own validation reports it
                    pass
        with user_functions(names):
            return handler(data)

    @model_validator(mode="after")
    def _one_expression_per_field(self) -> "StreamExecCalc":
        if len(self.projection) != len(self.row_type.fields):
            raise ValueError(f"{len(self.projection)} projection expression(s) for "
                             f"{len(self.row_type.fields)} output field(s) in outputType")
        return self

    def output_unique_keys(self, inputs, input_keys):
        """A unique key survives when every one of its columns is projected as is, or through
        a lossless cast (Calcite's RexUtil.isLosslessCast, as Flink's FlinkRelMdUniqueKeys
        keeps `CAST(a AS BIGINT)` of an INT: an integer to a wider integer)."""
        row = inputs[0]
        position = {quote_identifier(name): i for i, name in enumerate(row.names)}
        mapped: dict[int, int] = {}
        for out_index, expr in enumerate(self.projection):
            cast = _CAST_OF_COLUMN.match(expr)
            if cast and cast.group(1) in position and _lossless(
                    row.fields[position[cast.group(1)]].type.name, cast.group(2).upper()):
                expr = cast.group(1)
            if expr in position:
                mapped.setdefault(position[expr], out_index)
        return [[mapped[i] for i in key] for key in input_keys[0] if all(i in mapped for i in key)]

    def needs_update_before(self, input_keys, downstream, input_row=None, input_modes=None):
        """A filter may drop a +U whose -U it let through (FLINK-9528), unless it reads only
        columns of one of the input's upsert keys (Flink's isNonUpsertKeyCondition): then a
        key's rows all pass or all fail it."""
        if self.condition is None or self._on_upsert_key(input_keys, input_row):
            return downstream
        return True

    def _on_upsert_key(self, input_keys, input_row) -> bool:
        if input_row is None or not input_keys:
            return False
        from sqlglot import exp

        read = {column.name for column in
                exp.maybe_parse(self.condition, dialect="spark").find_all(exp.Column)}
        indexes = {i for i, name in enumerate(input_row.names) if name in read}
        return len(indexes) == len(read) and any(indexes <= set(key) for key in input_keys)

    def translate(self, ctx, inputs):
        from ..functions.spark import function_names_held, register_scalar

        frame = inputs[0]
        with function_names_held():        # until the names below are resolved
            for spec in self.functions or []:
                register_scalar(frame.sparkSession, spec, f"node {self.id} ('{self.type}')")
            if self.condition is not None:
                frame = frame.filter(self.condition)
            names = self.row_type.names
            columns = [f"{expr} AS {quote_identifier(name)}"
                       for expr, name in zip(self.projection, names)]
            return frame.selectExpr(*columns, quote_identifier(OP_COLUMN), *self._carried(ctx))

    def _carried(self, ctx) -> tuple[str, ...]:
        """The row positions a calc between keyed nodes hands on (arrival_order.py)."""
        from ..runtime.positions import SEQ_COLUMN
        from .arrival_order import carries_positions

        return (quote_identifier(SEQ_COLUMN),) if carries_positions(self, ctx) else ()


_CAST_OF_COLUMN = re.compile(r"^CAST\((`(?:[^`]|``)+`) AS ([A-Za-z]+)\)$")
_INTEGER_WIDTHS = ("TINYINT", "SMALLINT", "INT", "BIGINT")


def _lossless(source: str, target: str) -> bool:
    """Whether every value of `source` casts to a distinct value of `target`: the same type,
    or an integer to a wider integer."""
    if source == target:
        return True
    return (source in _INTEGER_WIDTHS and target in _INTEGER_WIDTHS
            and _INTEGER_WIDTHS.index(source) <= _INTEGER_WIDTHS.index(target))
