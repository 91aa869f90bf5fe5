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
    if isinstance(target, exp.Cast) and not negative:
        return _cast_literal(target, ctx)
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


# CAST(literal AS type) in VALUES: Calcite folds it into a literal of that type. The types a
# literal is cast to here, and only casts that keep its value exactly (no rounding, no
# truncation, no CHAR padding); anything else is refused by name.
_CAST_TARGETS = {exp.DataType.Type.TINYINT: "TINYINT", exp.DataType.Type.SMALLINT: "SMALLINT",
                 exp.DataType.Type.INT: "INT", exp.DataType.Type.BIGINT: "BIGINT",
                 exp.DataType.Type.FLOAT: "FLOAT", exp.DataType.Type.DOUBLE: "DOUBLE",
                 exp.DataType.Type.DECIMAL: "DECIMAL", exp.DataType.Type.TEXT: "STRING",
                 exp.DataType.Type.BOOLEAN: "BOOLEAN"}


def _cast_literal(node: exp.Cast, ctx: QueryContext):
    """(JSON value, type) of CAST(literal AS type): a typed NULL, or the literal's value in
    that type when the cast keeps it exactly."""
    name = _CAST_TARGETS.get(node.to.this)
    value, literal_type = _literal(node.this, ctx)
    params = tuple(int(param.this.this) for param in node.to.expressions)
    if name == "DECIMAL" and len(params) == 1:
        params = (params[0], 0)
    to = SqlType(name, params or ((10, 0) if name == "DECIMAL" else ()), True) if name else None
    if to is not None and literal_type is None:
        return None, to
    converted = _exact(value, literal_type, to) if to is not None else None
    if converted is None:
        raise UnsupportedSqlError(
            f"'{node.sql(dialect='spark')[:60]}' in VALUES (a CAST of a literal only to a "
            f"numeric, STRING or BOOLEAN type that keeps its value exactly)", ctx.position.line,
            ctx.position.column, ctx.position.source)
    return converted, to.with_nullable(False)


def _exact(value, literal_type: SqlType, to: SqlType):
    """`value` (of `literal_type`) as a JSON value of `to`, or None when the cast would change it."""
    kind = literal_type.name
    if to.name == "BOOLEAN":
        return value if kind == "BOOLEAN" else None
    if to.name == "STRING":
        return value if kind in ("CHAR", "STRING") else None
    if kind not in ("INT", "BIGINT", "DECIMAL", "DOUBLE") or isinstance(value, bool):
        return None
    if to.name in INTEGRAL_RANGES:
        if kind not in ("INT", "BIGINT"):
            return None
        low, high = INTEGRAL_RANGES[to.name]
        return value if low <= value <= high else None
    if to.name in ("DOUBLE", "FLOAT"):
        number = float(value)
        return number if kind == "DOUBLE" or Decimal(number) == Decimal(str(value)) else None
    if kind == "DOUBLE":                             # DECIMAL of a DOUBLE literal: refused
        return None
    precision, scale = to.params
    number = Decimal(str(value))
    scaled = number.quantize(Decimal(1).scaleb(-scale))
    if scaled != number or len(scaled.as_tuple().digits) > precision:
        return None
    return str(scaled)


def _shown(value, literal_type) -> str:
    if literal_type is None or value is None:
        return "null"
    if literal_type.name in ("CHAR", "STRING"):
        return "'" + str(value).replace("'", "''") + "'"
    if literal_type.name == "BOOLEAN":
        return "true" if value else "false"
    return str(value)
