"""Flink built-in functions that Spark spells differently, rewritten into Spark's equivalent
before an expression goes into a plan (the plan holds Spark SQL; the loader's allow-list
holds what these rewrites produce). Each rewrite keeps Flink's result for every input,
NULLs and out-of-range arguments included; each is checked against Flink 2.3 by a program
(programs/calc.py, `calc-flink-builtins`)."""
from __future__ import annotations

from typing import Optional

from sqlglot import exp

from ..errors import UnsupportedSqlError
from ..types import RowType

# FLOOR / CEIL (ts TO unit): the units where Spark's date_trunc truncates as Flink does.
# WEEK is left out: Flink's week starts on Sunday (Calcite), Spark's on Monday.
_TRUNCATED_UNITS = ("YEAR", "QUARTER", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND")


def spark_builtins(expression: exp.Expression, where: str,
                   input_row: Optional[RowType] = None) -> exp.Expression:
    """`expression` (over `input_row`'s columns) with every Flink-only built-in replaced by
    Spark's equivalent; a call these rewrites cannot keep Flink's result for is refused,
    naming `where`."""
    def rewrite(node: exp.Expression) -> exp.Expression:
        if input_row is not None and isinstance(node, (exp.Cast, exp.TryCast)):
            return _timestamp_string(node, input_row)
        return _rewrite(node)

    try:
        return expression.transform(rewrite)
    except _Refused as refused:
        raise UnsupportedSqlError(f"{refused} at {where}") from None


def _timestamp_string(node: exp.Cast, input_row: RowType) -> exp.Expression:
    """CAST(ts AS STRING) of a TIMESTAMP(p) or TIMESTAMP_LTZ(p) column: Flink prints p
    fractional digits ('10:00:02.000'), Spark drops trailing zeros ('10:00:02'); the column's
    declared precision (a computed value's is not known here: left to Spark) picks the
    pattern."""
    if node.to.this not in (exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR) \
            or node.to.expressions or not isinstance(node.this, exp.Column):
        return node
    name = node.this.name
    if name not in input_row.names:
        return node
    sql_type = input_row.field(name).type
    if sql_type.name not in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return node
    precision = sql_type.params[0] if sql_type.params else 6
    if precision > 6:                   # Spark keeps microseconds
        return node
    pattern = "yyyy-MM-dd HH:mm:ss" + ("." + "S" * precision if precision else "")
    return exp.Anonymous(this="DATE_FORMAT",
                         expressions=[node.this.copy(), exp.Literal.string(pattern)])


class _Refused(Exception):
    """A call no rewrite can express (message: the construct as written)."""


def _rewrite(node: exp.Expression) -> exp.Expression:
    if isinstance(node, (exp.Floor, exp.Ceil)) and node.args.get("to") is not None:
        return _floor_or_ceil_to(node)
    if isinstance(node, exp.Extract) and not _is_bigint_cast(node.parent):
        # Flink's EXTRACT gives a BIGINT, SECOND the whole seconds; Spark's an INT, SECOND
        # a DECIMAL(8, 6) with the fraction: the cast truncates it
        return exp.Cast(this=node, to=exp.DataType.build("BIGINT"))
    if isinstance(node, exp.Week):
        # WEEK(d): the ISO-8601 week of the year, Spark's weekofyear
        return exp.WeekOfYear(this=node.this)
    if isinstance(node, exp.Anonymous) and node.name.upper() == "SPLIT_INDEX":
        return _split_index(node)
    return node


def _is_bigint_cast(node: Optional[exp.Expression]) -> bool:
    return isinstance(node, exp.Cast) and node.to.this == exp.DataType.Type.BIGINT


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
