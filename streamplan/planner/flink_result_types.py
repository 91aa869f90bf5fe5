"""Built-ins whose result type in Flink follows their argument's type where Spark's does not:

* CEIL / FLOOR / TRUNCATE of a DOUBLE or FLOAT stay DOUBLE / FLOAT (`CEIL(2.5)` is 3.0; Spark's
  give a BIGINT, so `CEIL(d) / 2` would be an integer division);
* SIGN of an INT, BIGINT, FLOAT or DECIMAL keeps its type (`SIGN(m)` of a DECIMAL(10, 2) is
  -1.00; Spark's SIGN is always a DOUBLE);
* TIMESTAMPADD of a unit of a day or longer to a DATE is a DATE (Spark's a TIMESTAMP), of a
  shorter unit a TIMESTAMP(6).

Each needs its argument's type, which only Spark's analysis knows, so this runs before
integer_division and spark_builtins (planner.builder). Checked against Flink 2.3 by the
program `calc-flink-result-types`.
"""
from __future__ import annotations

from sqlglot import exp

from ..types import RowType, SqlType
from .scope import spark_sql

# From these magnitudes on every DOUBLE / FLOAT is whole (its rounding is itself), and
# Spark's BIGINT rounding could overflow: the value is kept as it is, NaN and infinities too.
_WHOLE_FROM = {"DOUBLE": 2 ** 52, "FLOAT": 2 ** 23}
_SIGN_KEEPS = ("INT", "BIGINT", "FLOAT", "DECIMAL")
_DATE_UNITS = ("DAY", "WEEK", "MONTH", "QUARTER", "YEAR")


_CALLS = (exp.Ceil, exp.Floor, exp.Trunc, exp.Sign, exp.TimestampAdd)


def _applies(node: exp.Expression) -> bool:
    if isinstance(node, (exp.Ceil, exp.Floor)):
        return node.args.get("to") is None and node.args.get("decimals") is None
    if isinstance(node, exp.Trunc):
        return node.args.get("decimals") is None
    if isinstance(node, exp.TimestampAdd):
        return node.unit is not None
    return isinstance(node, exp.Sign)


def flink_result_types(expression: exp.Expression, input_row: RowType, types,
                       where: str) -> exp.Expression:
    """`expression` (over `input_row`) with each call above given Flink's result type;
    `types` is the planner's SparkTypeResolver."""
    if not any(_applies(node) for node in expression.find_all(*_CALLS)):
        return expression
    root = exp.Paren(this=expression.copy())   # a parent, so the top node can be replaced too
    calls = [node for node in root.find_all(*_CALLS) if _applies(node)]
    for node in sorted(calls, key=lambda call: call.depth, reverse=True):   # innermost first
        (argument,) = types.resolve(input_row, [spark_sql(node.this)], None, where)
        typed = _typed(node, argument)
        if typed is not node:
            node.replace(typed)
    return root.this


def _typed(node: exp.Expression, argument: SqlType) -> exp.Expression:
    if isinstance(node, exp.TimestampAdd):
        if argument.name != "DATE":
            return node
        if node.unit.name.upper() in _DATE_UNITS:
            return exp.Cast(this=node.copy(), to=exp.DataType.build("DATE"))
        # a TIMESTAMP(6) in Flink: the cast as the parser reads CAST(x AS TIMESTAMP), so its
        # text gets six fractional digits (flink_builtins._timestamp_precision)
        return exp.TryCast(this=node.copy(), to=exp.DataType(this=exp.DataType.Type.TIMESTAMPTZ))
    if isinstance(node, exp.Sign):
        return (exp.Cast(this=node.copy(), to=exp.DataType.build(argument.text, dialect="spark"))
                if argument.name in _SIGN_KEEPS else node)
    if argument.name not in _WHOLE_FROM:
        return node
    return _rounded_in_kind(node, argument.name)


def _rounded_in_kind(node: exp.Expression, kind: str) -> exp.Expression:
    """Flink's rounding of a DOUBLE or FLOAT in Spark SQL: whole values, NaN and infinities as
    they are, else Spark's integral rounding cast back. CEIL and FLOOR are Java's Math.ceil and
    Math.floor, which keep -0.0 and give it for a CEIL in (-1, 0); TRUNCATE goes through a
    BigDecimal, which has no -0.0."""
    value = node.this

    def number(text: str) -> exp.Expression:
        return exp.Cast(this=exp.Literal.string(text), to=exp.DataType.build(kind))

    whole = exp.Not(this=exp.Paren(this=exp.LT(this=exp.Abs(this=value.copy()),
                                               expression=exp.Literal.number(_WHOLE_FROM[kind]))))
    if not isinstance(node, exp.Trunc):
        whole = exp.or_(whole, exp.EQ(this=value.copy(), expression=exp.Literal.number(0)))
    ifs = [exp.If(this=whole, true=value.copy())]
    if isinstance(node, exp.Ceil):
        ifs.append(exp.If(this=exp.and_(exp.LT(this=value.copy(), expression=exp.Literal.number(0)),
                                        exp.GT(this=value.copy(), expression=exp.Literal.number(-1))),
                          true=number("-0.0")))
    rounded = (exp.Cast(this=value.copy(), to=exp.DataType.build("BIGINT"))
               if isinstance(node, exp.Trunc) else type(node)(this=value.copy()))
    return exp.Case(ifs=ifs, default=exp.Cast(this=rounded, to=exp.DataType.build(kind)))
