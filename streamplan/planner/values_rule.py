"""The VALUES rule: `FROM (VALUES (1, 'a'), (2, 'b')) [AS t(x, y)]` becomes a values node
(Flink's StreamExecValues). Literals are typed as Calcite types them -- an integer INT (BIGINT
beyond INT's range), a number with a point DECIMAL(digits, digits after the point), one with
an exponent DOUBLE, a string CHAR(length), TRUE/FALSE BOOLEAN, all NOT NULL; NULL takes its
column's type --, and each column has the least restrictive type of its literals (two
strings of different lengths: VARCHAR of the longer). Columns are named by the alias's column
list, else EXPR$0, EXPR$1, ... as in Flink.
"""
from __future__ import annotations

from decimal import Decimal

from sqlglot import exp

from ..errors import PlanningError, UnsupportedSqlError
from ..nodes.values import StreamExecValues, ValuesLiteral
from ..types import INTEGRAL_RANGES, Field, RowType, SqlType
from .common import QueryContext, Relation
from .scope import ScopeField
from .unions import _least_restrictive

class ValuesRules:
    """VALUES in FROM; a mixin of PlanBuilder (builder.py)."""

    def _plan_values(self, values: exp.Values, ctx: QueryContext) -> Relation:
        where = ctx.where
        tuples = []
        for row in values.expressions:
            items = row.expressions if isinstance(row, exp.Tuple) else [row]
            tuples.append([_literal(item, ctx) for item in items])
        widths = {len(row) for row in tuples}
        if len(widths) != 1:
            raise PlanningError(f"{where}: the rows of a VALUES clause have different numbers of "
                                f"values ({', '.join(str(len(row)) for row in tuples)})")
        (width,) = widths
        alias = values.args.get("alias")
        names = [column.name for column in alias.columns] if alias and alias.columns else []
        if names and len(names) != width:
            raise PlanningError(f"{where}: the VALUES alias names {len(names)} column(s) for "
                                f"{width} value(s) a row")
        names = names or [f"EXPR${index}" for index in range(width)]
        types = []
        for index, name in enumerate(names):
            column_type = None
            nullable = False
            for row in tuples:
                value, literal_type = row[index]
                if literal_type is None:
                    nullable = True
                    continue
                column_type = literal_type if column_type is None else \
                    _least_restrictive(column_type, literal_type)
                if column_type is None:
                    raise PlanningError(f"{where}: column {index + 1} of the VALUES clause holds "
                                        f"values of types without a common type")
            if column_type is None:
                raise UnsupportedSqlError(f"a VALUES column of only NULLs ('{name}': it has no "
                                          f"type)", ctx.position.line, ctx.position.column,
                                          ctx.position.source)
            types.append(column_type.with_nullable(nullable or column_type.nullable))
        row_type = RowType(tuple(Field(name, sql_type) for name, sql_type in zip(names, types)))
        literals = [[ValuesLiteral(value=None if literal_type is None else value,
                                   type=(literal_type or sql_type).text)
                     for (value, literal_type), sql_type in zip(row, types)] for row in tuples]
        shown = ", ".join("{ " + ", ".join(_shown(value, literal_type) for value, literal_type
                                           in row) + " }" for row in tuples)
        node = self.add(StreamExecValues, [], tuples=literals, output_type=row_type.text,
                        description=f"Values(tuples=[[{shown}]])")
        qualifier = alias.name if alias else ""
        return Relation(node, [ScopeField(qualifier, f.name, f) for f in row_type.fields],
                        (qualifier,) if qualifier else ())


def _literal(item: exp.Expression, ctx: QueryContext):
    """(JSON value, type) of a literal; (None, None) for NULL."""
    negative = False
    target = item
    if isinstance(target, exp.Neg):
        negative, target = True, target.this
    if isinstance(target, exp.Null) and not negative:
        return None, None
    if isinstance(target, exp.Boolean) and not negative:
        return bool(target.this), SqlType("BOOLEAN", (), False)
    if isinstance(target, exp.Literal) and target.is_string and not negative:
        text = target.this
        return text, (SqlType("CHAR", (len(text),), False) if text else SqlType("STRING", (), False))
    if isinstance(target, exp.Literal) and not target.is_string:
        text = ("-" if negative else "") + target.this
        if "e" in text.lower():
            return float(text), SqlType("DOUBLE", (), False)
        if "." in text:
            number = Decimal(text)
            digits = len(number.as_tuple().digits)
            scale = -number.as_tuple().exponent
            return text, SqlType("DECIMAL", (max(digits, scale, 1), scale), False)
        number = int(text)
        for name in ("INT", "BIGINT"):
            low, high = INTEGRAL_RANGES[name]
            if low <= number <= high:
                return number, SqlType(name, (), False)
    raise UnsupportedSqlError(
        f"'{item.sql(dialect='spark')[:60]}' in VALUES (only literals: numbers, strings, TRUE, "
        f"FALSE and NULL)", ctx.position.line, ctx.position.column, ctx.position.source)


def _shown(value, literal_type) -> str:
    if literal_type is None:
        return "null"
    if literal_type.name in ("CHAR", "STRING"):
        return "'" + str(value).replace("'", "''") + "'"
    if literal_type.name == "BOOLEAN":
        return "true" if value else "false"
    return str(value)
