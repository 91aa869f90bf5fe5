"""Flink built-in functions that Spark spells differently, rewritten into Spark's equivalent
before an expression goes into a plan (the plan holds Spark SQL; the loader's allow-list
holds what these rewrites produce). Each rewrite keeps Flink's result for every input,
NULLs and out-of-range arguments included; each is checked against Flink 2.3 by a program
(programs/calc.py, `calc-flink-builtins`)."""
from __future__ import annotations

from sqlglot import exp

from ..errors import UnsupportedSqlError

# FLOOR / CEIL (ts TO unit): the units where Spark's date_trunc truncates as Flink does.
# WEEK is left out: Flink's week starts on Sunday (Calcite), Spark's on Monday.
_TRUNCATED_UNITS = ("YEAR", "QUARTER", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND")


def spark_builtins(expression: exp.Expression, where: str) -> exp.Expression:
    """`expression` with every Flink-only built-in replaced by Spark's equivalent; a call
    these rewrites cannot keep Flink's result for is refused, naming `where`."""
    try:
        return expression.transform(_rewrite)
    except _Refused as refused:
        raise UnsupportedSqlError(f"{refused} at {where}") from None


class _Refused(Exception):
    """A call no rewrite can express (message: the construct as written)."""


def _rewrite(node: exp.Expression) -> exp.Expression:
    if isinstance(node, (exp.Floor, exp.Ceil)) and node.args.get("to") is not None:
        return _floor_or_ceil_to(node)
    if isinstance(node, exp.Week):
        # WEEK(d): the ISO-8601 week of the year, Spark's weekofyear
        return exp.WeekOfYear(this=node.this)
    if isinstance(node, exp.Anonymous) and node.name.upper() == "SPLIT_INDEX":
        return _split_index(node)
    return node


def _floor_or_ceil_to(node: exp.Floor | exp.Ceil) -> exp.Expression:
    """FLOOR(ts TO unit) is date_trunc(unit, ts); CEIL(ts TO unit) is the truncation, one unit
    later unless ts already sits on it."""
    unit = node.args["to"].name.upper()
    name = "FLOOR" if isinstance(node, exp.Floor) else "CEIL"
    if unit not in _TRUNCATED_UNITS:
        raise _Refused(f"{name}(... TO {unit}) (supported units: {', '.join(_TRUNCATED_UNITS)})")
    value = node.this
    floor = exp.TimestampTrunc(this=value.copy(), unit=exp.Literal.string(unit))
    if isinstance(node, exp.Floor):
        return floor
    later = exp.TimestampAdd(this=floor.copy(), expression=exp.Literal.number(1),
                             unit=exp.var(unit))
    return exp.Case(ifs=[exp.If(this=exp.EQ(this=floor, expression=value.copy()),
                                true=floor.copy())], default=later)


def _split_index(node: exp.Anonymous) -> exp.Expression:
    """Flink's SPLIT_INDEX(str, separator, index): the index-th (from 0) piece of str split at
    every occurrence of the separator taken literally (StringUtils
    .splitByWholeSeparatorPreserveAllTokens, so empty pieces count); NULL when the index is
    negative or past the last piece, for an empty str (no pieces) and for any NULL argument."""
    if len(node.expressions) != 3:
        raise _Refused(f"SPLIT_INDEX with {len(node.expressions)} arguments (it takes str, "
                       f"separator, index)")
    text, separator, index = (arg.copy() for arg in node.expressions)
    if not (isinstance(separator, exp.Literal) and separator.is_string and separator.this):
        raise _Refused("SPLIT_INDEX with a separator that is not a non-empty string literal")
    # Spark splits at a regular expression: \Q...\E quotes the separator (Java regex).
    pattern = exp.Literal.string("\\Q" + separator.this.replace("\\E", "\\E\\\\E\\Q") + "\\E")
    pieces = exp.RegexpSplit(this=text.copy(), expression=pattern, limit=exp.Literal.number(-1))
    piece = exp.Anonymous(this="TRY_ELEMENT_AT",
                          expressions=[pieces, exp.Add(this=index.copy(),
                                                       expression=exp.Literal.number(1))])
    return exp.Case(ifs=[exp.If(this=exp.Or(this=exp.LT(this=index, expression=exp.Literal.number(0)),
                                            expression=exp.EQ(this=text,
                                                              expression=exp.Literal.string(""))),
                                true=exp.Null())], default=piece)
