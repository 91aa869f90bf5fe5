"""Typed plan fields: each checks its value when a plan loads, not when it later runs.

A plan file can be edited by hand or by anyone; every string that means something (a row
type, a duration, an expression, a changelog kind) is parsed at load, so a broken plan
fails with the node and field named instead of deep inside a Spark job.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Callable, Optional

from pydantic import AfterValidator, Field

from ..changelog import RowKind
from ..durations import parse_duration_ms
from ..join_type import JoinType
from ..sql.expressions import parse_plan_expression, user_functions_declared
from ..types import parse_row_type, parse_type


@lru_cache(maxsize=65536)
def _problem(parse: Callable[[str], object], text: str, *context) -> Optional[str]:
    """What `parse` says is wrong with `text` (its ValueError), or None. Plans repeat the same
    texts in every node and every fixture, and the parsers are pure: each text is read once.
    `context`: what else the parser's answer depends on."""
    try:
        parse(text)
    except ValueError as err:
        return str(err)
    return None


def _checked(parse: Callable[[str], object], text: str, *context) -> str:
    problem = _problem(parse, text, *context)
    if problem is not None:
        raise ValueError(problem)
    return text


def _row_type(text: str) -> str:
    return _checked(parse_row_type, text)     # raises ValueError naming the problem


def _sql_type(text: str) -> str:
    return _checked(parse_type, text)


def _duration(text: str) -> str:
    return _checked(parse_duration_ms, text)


def _expression(text: str) -> str:
    # which function names the expression may call is part of the answer
    return _checked(parse_plan_expression, text, user_functions_declared())


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
