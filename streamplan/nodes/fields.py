"""Typed plan fields: each checks its value when a plan loads, not when it later runs.

A plan file can be edited by hand or by anyone; every string that means something (a row
type, a duration, an expression, a changelog kind) is parsed at load, so a broken plan
fails with the node and field named instead of deep inside a Spark job.
"""
from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from ..changelog import RowKind
from ..durations import parse_duration_ms
from ..join_type import JoinType
from ..sql.expressions import parse_plan_expression
from ..types import parse_row_type, parse_type


def _row_type(text: str) -> str:
    parse_row_type(text)                     # raises ValueError naming the problem
    return text


def _sql_type(text: str) -> str:
    parse_type(text)
    return text


def _duration(text: str) -> str:
    parse_duration_ms(text)
    return text


def _expression(text: str) -> str:
    parse_plan_expression(text)
    return text


def _join_type(text: str) -> str:
    if text not in JoinType.__members__:
        raise ValueError(f"'{text}' is not a join type ({', '.join(JoinType.__members__)})")
    return text


def _row_kind_name(text: str) -> str:
    if text not in RowKind.__members__:
        raise ValueError(f"'{text}' is not a row kind ({', '.join(RowKind.__members__)})")
    return text


RowTypeText = Annotated[str, AfterValidator(_row_type)]
SqlTypeText = Annotated[str, AfterValidator(_sql_type)]
Duration = Annotated[str, AfterValidator(_duration)]
SparkExpression = Annotated[str, AfterValidator(_expression)]
JoinTypeName = Annotated[str, AfterValidator(_join_type)]
RowKindName = Annotated[str, AfterValidator(_row_kind_name)]
# An index into an input's fields; the upper bound needs the input's type, which only the
# whole plan knows (ExecNode.input_field_indexes).
FieldIndex = Annotated[int, Field(ge=0)]
