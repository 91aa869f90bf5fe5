"""STDDEV_POP, STDDEV_SAMP (STDDEV), VAR_POP and VAR_SAMP (VARIANCE) as Flink 2.3 plans them:
reduced to its internal WELFORD_M2 aggregate (the sum of squared deviations, kept by Welford's
online algorithm) and COUNT, and a projection over their results, so the aggregate's state is
Welford's (n, mean, m2) and the results are Flink's to the last bit:

    VAR_POP(x)  = WELFORD_M2(x) / COUNT(x)
    VAR_SAMP(x) = WELFORD_M2(x) / CASE WHEN COUNT(x) = 1 THEN NULL ELSE COUNT(x) - 1 END
    STDDEV_*(x) = POWER(VAR_*(x), 0.5)

each cast to the call's type, AVG's (an INT stays an INT, a DECIMAL(p, s) is a
DECIMAL(38, max(s, 6))).
"""
from __future__ import annotations

from typing import Callable

from sqlglot import exp

from ..errors import UnsupportedSqlError
from ..types import SqlType
from .aggregates import WelfordM2, result_type

# call -> (divides by the count, not count - 1; takes the square root)
_REDUCED = {exp.VariancePop: (True, False), exp.Variance: (False, False),
            exp.StddevPop: (True, True), exp.StddevSamp: (False, True), exp.Stddev: (False, True)}


def reduce_variance(expression: exp.Expression,
                    argument_type: Callable[[exp.Expression], SqlType]) -> exp.Expression:
    """`expression` with every variance or standard deviation call replaced by its formula
    over WELFORD_M2 and COUNT; `argument_type` gives the type of a call's argument."""
    def reduce(node: exp.Expression) -> exp.Expression:
        shape = _REDUCED.get(type(node))
        if shape is None:
            return node
        argument = node.this
        if argument is None or isinstance(argument, (exp.Distinct, exp.Star)) \
                or isinstance(node.parent, exp.Filter):
            raise UnsupportedSqlError(f"{node.sql(dialect='spark')} (the variance functions take "
                                      f"one argument, without DISTINCT or FILTER)")
        argument_sql_type = argument_type(argument)
        try:
            typed = result_type("AVG", argument_sql_type).text
        except UnsupportedSqlError:
            raise UnsupportedSqlError(f"{node.sql_name()} of a {argument_sql_type.text} argument "
                                      f"(it needs a number)") from None
        population, root = shape

        def count() -> exp.Expression:
            return exp.Count(this=argument.copy())

        denominator = count() if population else exp.Case(
            ifs=[exp.If(this=exp.EQ(this=count(), expression=exp.Literal.number(1)),
                        true=exp.Cast(this=exp.Null(), to=exp.DataType.build("BIGINT")))],
            default=exp.Sub(this=count(), expression=exp.Literal.number(1)))
        value: exp.Expression = exp.Div(this=WelfordM2(this=argument.copy()),
                                        expression=exp.Paren(this=denominator))
        if root:
            value = exp.Pow(this=value, expression=exp.Literal.number("0.5"))
        return exp.Cast(this=value, to=exp.DataType.build(typed))

    return expression.transform(reduce)
