"""The statement model the SQL front end produces and the planner consumes.

Expressions stay sqlglot trees (Spark dialect): Spark evaluates them, we only plan.
Every statement knows where it starts in the script so later errors can point there.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from sqlglot import exp


@dataclass(frozen=True)
class Position:
    """1-based line and column in the script the statement came from."""

    line: int
    column: int
    source: str = "<script>"

    def __str__(self) -> str:
        return f"{self.source}:{self.line}:{self.column}"


@dataclass(frozen=True)
class ColumnDef:
    name: str
    type_text: str | None          # e.g. "TIMESTAMP(3)"; None for a computed column
    nullable: bool = True
    computed: exp.Expression | None = None  # `name AS expr`
    position: Position | None = None
    # `name TYPE METADATA [FROM 'key']`: the connector's metadata `key` (the column's name
    # when FROM is absent); None for a physical or computed column.
    metadata: str | None = None


@dataclass(frozen=True)
class WatermarkDef:
    """`WATERMARK FOR column AS column [- INTERVAL 'n' UNIT]`."""

    column: str
    delay_ms: int
    text: str                      # the expression as written, for descriptions
    position: Position | None = None
    # `WATERMARK FOR c AS SOURCE_WATERMARK()`: the source emits the watermarks (Flink's
    # SupportsSourceWatermark); no watermark assigner, delay_ms is 0.
    from_source: bool = False


@dataclass(frozen=True)
class CreateTable:
    name: str
    columns: tuple[ColumnDef, ...]
    watermark: WatermarkDef | None
    primary_key: tuple[str, ...] | None
    options: dict[str, str]
    position: Position
    partition_keys: tuple[str, ...] | None = None   # PARTITIONED BY (...)
    distribution: "Distribution | None" = None      # DISTRIBUTED [BY ...] [INTO n BUCKETS]


@dataclass(frozen=True)
class Distribution:
    """Flink's TableDistribution: `DISTRIBUTED BY [HASH | RANGE] (keys) [INTO n BUCKETS]` or
    `DISTRIBUTED INTO n BUCKETS` (kind UNKNOWN when no algorithm is named)."""

    kind: str                      # HASH, RANGE or UNKNOWN
    bucket_keys: tuple[str, ...]
    bucket_count: int | None


@dataclass(frozen=True)
class SetOption:
    key: str
    value: str
    position: Position


@dataclass(frozen=True)
class Hint:
    """`/*+ NAME('k'='v', ...) */` attached to the SELECT that carries it."""

    name: str                      # upper-cased
    options: dict[str, str]        # keys as written (lower-case by convention)
    position: Position


@dataclass(frozen=True)
class Insert:
    target: str
    query: exp.Select | exp.SetOperation  # sqlglot tree, Spark dialect: a SELECT or a set
                                          # operation (UNION [ALL], INTERSECT, EXCEPT)
    hints: tuple[Hint, ...]
    position: Position
    text: str                      # the statement text as written
    on_conflict: Optional[str] = None   # ON CONFLICT DO <DEDUPLICATE|NOTHING|ERROR> (Flink 2.3)
    overwrite: bool = False             # INSERT OVERWRITE
    # INSERT INTO t PARTITION (k = v, ...): the static partition columns and their literals
    static_partition: tuple[tuple[str, exp.Expression], ...] = ()
    columns: Optional[tuple[str, ...]] = None   # INSERT INTO t (c1, c2, ...)


@dataclass(frozen=True)
class StatementSet:
    inserts: tuple[Insert, ...]
    position: Position


@dataclass(frozen=True)
class CompilePlan:
    path: str
    target: Union[Insert, StatementSet]
    position: Position
    if_not_exists: bool = False


@dataclass(frozen=True)
class MigratePlan:
    """COMPILE PLAN 'path' [IF NOT EXISTS] FROM 'source': migrate an older plan (FLIP-190)."""

    path: str
    source: str
    position: Position
    if_not_exists: bool = False


@dataclass(frozen=True)
class ExecutePlan:
    path: str
    position: Position


@dataclass(frozen=True)
class ExplainPlan:
    path: str
    position: Position


@dataclass(frozen=True)
class CreateFunction:
    """`CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] name AS 'module:qualname'
    [LANGUAGE PYTHON]`: a temporary system function, or a (temporary) catalog function."""

    name: str
    implementation: str
    temporary_system: bool
    if_not_exists: bool
    position: Position


@dataclass(frozen=True)
class CreateView:
    """`CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name AS <query>`: a named query. As Flink
    expands a view, every query after it that names it plans the view's query in its place
    (the same as a CTE of that name)."""

    name: str
    query: exp.Select | exp.SetOperation
    if_not_exists: bool
    position: Position


Statement = Union[CreateTable, CreateView, CreateFunction, SetOption, Insert, StatementSet, CompilePlan, MigratePlan,
                  ExecutePlan, ExplainPlan]


@dataclass
class Script:
    statements: list[Statement] = field(default_factory=list)
    source: str = "<script>"
