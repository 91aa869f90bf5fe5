"""Flink built-ins whose result follows their argument's type, rewritten once that type is
known (a column's from the input row, any other argument's from Spark's analysis):

* EXTRACT(MILLISECOND | MICROSECOND | NANOSECOND | EPOCH FROM x): Flink computes them from a
  timestamp's epoch milliseconds with Java's integer remainder and division, so before 1970
  they are negative (`EXTRACT(MILLISECOND FROM TIMESTAMP '1969-12-31 23:59:58.5')` is -500)
  and EPOCH is the seconds truncated toward zero; of a DATE, EPOCH is its days' seconds and
  MILLISECOND its day count's remainder by 1000 (Flink reads the day number as
  milliseconds), MICROSECOND and NANOSECOND are refused as Flink refuses them. Spark has no
  such units.
* IS_DIGIT / IS_ALPHA / IS_DECIMAL of a number: Flink passes the number itself, not its
  text, so an integral argument is a digit and a decimal (a NULL one too: Flink hands the
  type's default), a DOUBLE or FLOAT a decimal, a DECIMAL neither, and nothing numeric is
  alphabetic. A string argument is left to spark_builtins.

Runs before spark_builtins (planner.builder); checked against Flink 2.3 by the program
`calc-flink-text-predicates`.
"""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from ..errors import UnsupportedSqlError
from ..types import RowType, SqlType
from .scope import spark_sql

_SUBSECOND_UNITS = ("MILLISECOND", "MICROSECOND", "NANOSECOND", "EPOCH")
_CHARACTER_TESTS = ("IS_DIGIT", "IS_ALPHA", "IS_DECIMAL")
_TEXT = ("STRING", "VARCHAR", "CHAR")
_INTEGRAL = ("TINYINT", "SMALLINT", "INT", "BIGINT")
_FLOATING = ("FLOAT", "DOUBLE")


def _argument(node: exp.Expression) -> Optional[exp.Expression]:
    """The argument whose type decides the call's rewrite, or None when it is not such a call."""
    if isinstance(node, exp.Extract) and node.name.upper() in _SUBSECOND_UNITS:
        return node.expression
    if isinstance(node, exp.Anonymous) and node.name.upper() in _CHARACTER_TESTS \
            and len(node.expressions) == 1:
        return node.expressions[0]
    return None


def typed_builtins(expression: exp.Expression, input_row: RowType, types,
                   where: str) -> exp.Expression:
    """`expression` (over `input_row`) with each call above rewritten for its argument's type;
    `types` is the planner's SparkTypeResolver."""
    if not any(_argument(node) is not None
               for node in expression.find_all(exp.Extract, exp.Anonymous)):
        return expression
    from .flink_builtins import spark_builtins

    root = exp.Paren(this=expression.copy())   # a parent, so the top node can be replaced too
    calls = [node for node in root.find_all(exp.Extract, exp.Anonymous)
             if _argument(node) is not None]
    for node in sorted(calls, key=lambda call: call.depth, reverse=True):   # innermost first
        argument = _argument(node)
        if isinstance(argument, exp.Column) and argument.name in input_row.names:
            sql_type = input_row.field(argument.name).type
        elif isinstance(argument, exp.Literal) and argument.is_string:
            continue
        else:
            (sql_type,) = types.resolve(
                input_row, [spark_sql(spark_builtins(argument, where, input_row))], None, where)
        typed = (_extracted(node, sql_type, where) if isinstance(node, exp.Extract)
                 else _character_test(node, sql_type, where))
        if typed is not node:
            node.replace(typed)
    return root.this


def _number(value: int) -> exp.Literal:
    return exp.Literal.number(value)


def _extracted(node: exp.Extract, sql_type: SqlType, where: str) -> exp.Expression:
    unit, value = node.name.upper(), node.expression
    if sql_type.name == "DATE":
        days = exp.Cast(this=exp.UnixDate(this=value.copy()), to=exp.DataType.build("BIGINT"))
        if unit == "EPOCH":
            return exp.Paren(this=exp.Mul(this=days, expression=_number(86400)))
        if unit == "MILLISECOND":
            return exp.Paren(this=exp.Mod(this=days, expression=_number(1000)))
        raise UnsupportedSqlError(f"EXTRACT({unit} FROM ...) of a DATE (Flink: unit {unit} can "
                                  f"not be applied to DATE variable) at {where}")
    if sql_type.name not in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return node
    millis = exp.UnixMillis(this=value.copy())
    if unit == "EPOCH":                  # Java's division: toward zero
        return exp.Paren(this=exp.IntDiv(this=millis, expression=_number(1000)))
    millisecond = exp.Mod(this=millis, expression=_number(1000))     # Java's remainder
    if unit == "MILLISECOND":
        return exp.Paren(this=millisecond)
    # the microseconds within the millisecond, 0 to 999 (Flink's nanoOfMillisecond / 1000)
    micro_of_milli = exp.Sub(this=exp.UnixMicros(this=value.copy()),
                             expression=exp.Mul(this=millis.copy(), expression=_number(1000)))
    microsecond = exp.Add(this=exp.Mul(this=millisecond, expression=_number(1000)),
                          expression=exp.Paren(this=micro_of_milli))
    if unit == "MICROSECOND":
        return exp.Paren(this=microsecond)
    return exp.Paren(this=exp.Mul(this=exp.Paren(this=microsecond), expression=_number(1000)))


def _character_test(node: exp.Anonymous, sql_type: SqlType, where: str) -> exp.Expression:
    name = node.name.upper()
    if sql_type.name in _TEXT:
        return node
    if sql_type.name in _INTEGRAL:
        return exp.Boolean(this=name != "IS_ALPHA")
    if sql_type.name in _FLOATING:
        return exp.Boolean(this=name == "IS_DECIMAL")
    if sql_type.name == "DECIMAL":
        return exp.false()
    raise UnsupportedSqlError(f"{name} of a {sql_type.name} (Flink's takes a string or a "
                              f"number) at {where}")
