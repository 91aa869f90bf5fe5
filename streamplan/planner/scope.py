"""Name resolution: which input field a (possibly qualified) column of the query means."""
from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from ..errors import PlanningError
from ..types import Field


@dataclass(frozen=True)
class ScopeField:
    qualifier: str          # table alias (or table name)
    name: str               # column name as declared
    field: Field            # the input field it is, by the input's field name


@dataclass
class Scope:
    """The columns visible to a SELECT, in input order."""

    fields: list[ScopeField]
    where: str              # statement position, for errors

    def resolve(self, column: exp.Column) -> Field:
        qualifier, name = column.table, column.name
        hits = [f for f in self.fields
                if f.name == name and (not qualifier or f.qualifier == qualifier)]
        if len(hits) == 1:
            return hits[0].field
        if hits:
            raise PlanningError(f"{self.where}: column '{name}' is ambiguous; qualify it with one of "
                                f"{', '.join(sorted({h.qualifier for h in hits}))}")
        if qualifier and qualifier not in {f.qualifier for f in self.fields}:
            raise PlanningError(f"{self.where}: table or alias '{qualifier}' is not in the FROM clause")
        near = [f.name for f in self.fields if f.name.lower() == name.lower()]
        hint = f" Did you mean '{near[0]}'? (identifiers are case-sensitive)" if near else ""
        shown = f"{qualifier}.{name}" if qualifier else name
        raise PlanningError(f"{self.where}: column '{shown}' not found in any table of the FROM "
                            f"clause.{hint}")

    def star(self, qualifier: str | None) -> list[Field]:
        chosen = [f.field for f in self.fields if not qualifier or f.qualifier == qualifier]
        if not chosen:
            raise PlanningError(f"{self.where}: '{qualifier}.*' names no table of the FROM clause")
        return chosen

    def rewrite(self, expression: exp.Expression) -> exp.Expression:
        """A copy with every column replaced by the backquoted input field it resolves to."""
        def replace(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
                field = self.resolve(node)
                return exp.column(exp.to_identifier(field.name, quoted=True))
            return node

        return expression.copy().transform(replace)

    def fields_referenced(self, expression: exp.Expression) -> list[Field]:
        return [self.resolve(col) for col in expression.find_all(exp.Column)]


def spark_sql(expression: exp.Expression) -> str:
    return expression.sql(dialect="spark")


def plain_column(expression: exp.Expression) -> bool:
    return isinstance(expression, exp.Column) and not isinstance(expression.this, exp.Star)
