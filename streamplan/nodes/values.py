"""Values: a VALUES clause as a source of insert-only rows (Flink's StreamExecValues, whose
ValuesInputFormat emits its tuples once and finishes).

On Spark the tuples are a one-step feed of the values source: the query's first micro-batch
reads them and the source's offset records that it did, so a query restored from a
checkpoint does not emit them again -- as a finished Flink source is not run again when its
job is restored from a savepoint taken after it finished.
"""
from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import model_validator

from ..changelog import FeedRow, RowKind
from ..errors import ExecutionError
from ..runtime.rows import brief_repr, to_python
from ..types import STRING_TYPES, parse_type
from .base import ExecNode, PlanModel
from .fields import SqlTypeText
from .metadata import exec_node

FEED_PREFIX = "__values_node_"      # the feed a values node reads, by node id (never a table)
# A literal's value in the plan JSON, by its type (decimals, dates and timestamps as text).
_JSON_TYPES = {"TINYINT": (int,), "SMALLINT": (int,), "INT": (int,), "BIGINT": (int,),
               "FLOAT": (int, float), "DOUBLE": (int, float), "BOOLEAN": (bool,)}


class ValuesLiteral(PlanModel):
    """One literal of a tuple, as Flink's plans persist a RexLiteral: its value (JSON: a number,
    a string -- decimals and timestamps as text --, a boolean, or absent for NULL) and type."""

    kind: Literal["LITERAL"] = "LITERAL"
    value: Optional[Any] = None
    type: SqlTypeText

    @model_validator(mode="after")
    def _value_fits_type(self) -> "ValuesLiteral":
        sql_type = parse_type(self.type)
        value = self.value
        if value is None:
            if not sql_type.nullable:
                raise ValueError(f"value: a NULL literal of type {self.type}: its type must be "
                                 f"nullable")
            return self
        json_types = _JSON_TYPES.get(sql_type.name, (str,))
        if isinstance(value, bool) != (bool in json_types) or not isinstance(value, json_types):
            raise ValueError(f"value {brief_repr(value)} is no {self.type} literal (as JSON: "
                             f"{' or '.join(t.__name__ for t in json_types)})")
        try:
            to_python(value, sql_type)
        except ValueError as err:
            raise ValueError(f"value: {err}") from None
        if sql_type.name in ("VARCHAR", "CHAR") and len(value) > sql_type.params[0]:
            raise ValueError(f"value {brief_repr(value)} is longer than its type {self.type}")
        return self


@exec_node(name="stream-exec-values", version=1, min_plan_version="0.3", min_state_version="0.3")
class StreamExecValues(ExecNode):
    COMPOSITE_COLUMNS = True
    STATE_DOC = "source offsets (the tuples are emitted once, by the query's first micro-batch)"
    arity = 0
    tuples: list[list[ValuesLiteral]]

    @model_validator(mode="after")
    def _tuples_fit_row(self) -> "StreamExecValues":
        fields = self.row_type.fields
        for number, row in enumerate(self.tuples):
            if len(row) != len(fields):
                raise ValueError(f"tuple {number} has {len(row)} value(s) for {len(fields)} "
                                 f"output field(s) in outputType")
            for literal, field in zip(row, fields):
                literal_type = parse_type(literal.type)
                if not _assignable(literal_type.name, field.type.name):
                    raise ValueError(f"tuple {number}: a {literal.type} literal for field "
                                     f"'{field.name}' of type {field.type.text}")
                if literal.value is None and not field.type.nullable:
                    raise ValueError(f"tuple {number}: NULL for field '{field.name}' of type "
                                     f"{field.type.text}")
        return self

    def output_changelog(self, inputs):
        return frozenset({RowKind.INSERT})

    @property
    def feed_name(self) -> str:
        return f"{FEED_PREFIX}{self.id}"

    def feed_steps(self) -> list[list[FeedRow]]:
        """The feed of the values source: every tuple in its one step."""
        return [[(RowKind.INSERT, tuple(literal.value for literal in row)) for row in self.tuples]]

    def translate(self, ctx, inputs):
        from ..runtime.values_source import read_stream

        feed = ctx.feeds.get(self.feed_name)
        if feed is None:
            raise ExecutionError(f"node {self.id} ({self.type}): its tuples were not written to "
                                 f"a feed; run the plan with streamplan's executor")
        return read_stream(ctx.spark, self.row_type, feed)


def _assignable(literal: str, column: str) -> bool:
    """A literal of type `literal` in a column of type `column`: the same type, a string in a
    string column, or a number in a wider numeric column (the planner types the columns)."""
    numeric = ("TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE")
    return (literal == column or (literal in STRING_TYPES and column in STRING_TYPES)
            or (literal in numeric and column in numeric
                and numeric.index(literal) <= numeric.index(column)))
