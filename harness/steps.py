"""The steps a table test program is made of, and their builders (Flink's TableTestStep family).

Every step validates itself when built, so a broken program fails at import with a message
that names the table and the row, not minutes later inside a Spark query.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional, Union

from streamplan.testing import (CreateTable, FeedRow, FunctionDefinition, define_function, Insert, RowType, StatementSet,
                                StreamPlanError, brief_repr, lookup_option,
                                normalize_rows, option_value_problem, parse_duration_ms,
                                parse_script, readable_metadata, scan_row_type,
                                surrogate_problem, table_row_type, to_python)

from .errors import ProgramError

@dataclass(frozen=True)
class ClockAdvance:
    """Among a source's rows: processing time moves on by `ms` from this table's next row on
    (`advance_processing_time`)."""

    ms: int
    text: str


def changelog_row(row_kind: str, *values) -> dict:
    """A source row of another kind than +I: `changelog_row("-U", "a", 1)` is
    {"kind": "-U", "values": ["a", 1]}."""
    return {"kind": row_kind, "values": list(values)}


def advance_processing_time(duration: str) -> ClockAdvance:
    """A marker among a source's rows: from the next row of this table on, every micro-batch
    (of every table) is stamped `duration` later, e.g. `advance_processing_time("2 d")`.
    State TTL, PROCTIME() and the checkpoint's batch times follow it; advances of several
    tables add up. The clock is the harness's, not the wall clock: runs stay deterministic."""
    try:
        ms = parse_duration_ms(duration)
    except (ValueError, TypeError, StreamPlanError) as err:
        raise ProgramError(f"advance_processing_time({brief_repr(duration)}): {err}") from None
    if ms <= 0:
        raise ProgramError(f"advance_processing_time({brief_repr(duration)}): processing time "
                           f"only moves forward; give a positive duration such as '1 h'")
    return ClockAdvance(ms, duration)


Row = Union[list, tuple, dict, ClockAdvance]   # [v, ...] is an insert; {"kind": "-D", ...}
_TABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ROW_TEXT = re.compile(r"^(\+I|-U|\+U|-D)\[(.*)\]$", re.S)
_STRING_TYPES = ("STRING", "VARCHAR", "CHAR")
_ROW_KINDS = ("+I", "-U", "+U", "-D")
_ROW_HINT = "a row is a list of values like [1, 'Alice'] or {'kind': '-D', 'values': [...]}"


def shown(value: Any) -> str:
    """A value and its type for messages, short even when the value is huge."""
    return f"{brief_repr(value)} ({type(value).__name__})"


def require_text(value: Any, where: str, what: str) -> str:
    """`value` if it is a non-blank str of Unicode text; builders get user input, not
    checked types."""
    if not isinstance(value, str) or not value.strip():
        raise ProgramError(f"{where}: {what}, got {shown(value)}")
    return require_unicode(value, where)


def require_unicode(text: str, where: str) -> str:
    """`text` unless it holds a lone surrogate ('\\ud800'), which no file, Spark or report
    can encode: refused here rather than wherever it is first written."""
    problem = surrogate_problem(text)
    if problem is not None:
        raise ProgramError(f"{where}: {brief_repr(text)} holds {problem}, which is not text")
    return text


def option_text(value: Any, where: str) -> str:
    """An option value as text: a str, or a number or bool written as Flink would."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return require_unicode(value, where)
    if isinstance(value, (int, float)):
        return str(value)
    raise ProgramError(f"{where}: an option value is a str (or a number or bool), got "
                       f"{shown(value)}")


class TestStep:
    """A step of a program. `kind` is what runners dispatch on; a runner refuses kinds it
    cannot run (never skips them)."""

    __test__ = False       # not a pytest test class despite the name
    kind: ClassVar[str] = "abstract"


@dataclass(frozen=True)
class ConfigOptionTestStep(TestStep):
    """`SET key = value`, checked against the options registry and kept in canonical form."""

    kind: ClassVar[str] = "config"
    key: str
    value: str

    @staticmethod
    def of(key: str, value: str) -> "ConfigOptionTestStep":
        require_text(key, "config step", "an option key is a str like 'table.exec.state.ttl'")
        text = option_text(value, f"config step '{key}'")
        try:
            option = lookup_option(key)
            return ConfigOptionTestStep(option.key, option.normalize(text))
        except StreamPlanError as err:
            raise ProgramError(f"config step: {err}") from None


@dataclass(frozen=True)
class TableTestStep(TestStep):
    """A `values` table: its schema components as written and its WITH options."""

    name: str
    schema: tuple[str, ...]
    options: tuple[tuple[str, str], ...]
    table: CreateTable = field(repr=False, compare=False)
    partition_keys: tuple[str, ...] = ()                 # PARTITIONED BY (...)
    distribution: Optional["TableDistribution"] = None   # DISTRIBUTED ...

    @property
    def row_type(self) -> RowType:
        """The physical columns: what rows and expected rows are made of."""
        return table_row_type(self.table, physical_only=True)

    @property
    def primary_key(self) -> Optional[tuple[str, ...]]:
        return self.table.primary_key

    def ddl(self) -> str:
        return render_ddl(self.name, self.schema, self.options, self.partition_keys,
                          self.distribution)


@dataclass(frozen=True)
class TableDistribution:
    """Flink's TableDistribution (`addDistribution` of a table step): how a table's rows are
    bucketed. `of_unknown(3)`, `of_unknown(["a"], 3)`, `of_hash(["a"], 3)`,
    `of_hash(["a"], None)`, `of_range(["a"], 3)`; rendered as Flink renders it."""

    kind: str
    bucket_keys: tuple[str, ...]
    bucket_count: Optional[int]

    @staticmethod
    def of_unknown(*args) -> "TableDistribution":
        """(count) or (keys, count)."""
        keys, count = ((), args[0]) if len(args) == 1 else (tuple(args[0]), args[1])
        return TableDistribution("UNKNOWN", keys, count)

    @staticmethod
    def of_hash(keys, count: Optional[int]) -> "TableDistribution":
        return TableDistribution("HASH", tuple(keys), count)

    @staticmethod
    def of_range(keys, count: Optional[int]) -> "TableDistribution":
        return TableDistribution("RANGE", tuple(keys), count)

    def __str__(self) -> str:
        keys = ", ".join(f"`{key}`" for key in self.bucket_keys)
        text = "DISTRIBUTED"
        if self.bucket_keys:
            text += " BY " + ("" if self.kind == "UNKNOWN" else self.kind) + f"({keys})"
        if self.bucket_count is not None:
            text += f" INTO {self.bucket_count} BUCKETS"
        return text


def render_ddl(name: str, schema: tuple[str, ...], options: tuple[tuple[str, str], ...],
               partition_keys: tuple[str, ...] = (),
               distribution: Optional[TableDistribution] = None) -> str:
    columns = ",\n".join(f"  {component}" for component in schema)
    rendered = ",\n".join(f"  {_quote(key)} = {_quote(value)}"
                          for key, value in (("connector", "values"),) + options)
    clauses = (f"{distribution}\n" if distribution is not None else "") + (
        f"PARTITIONED BY ({', '.join(f'`{key}`' for key in partition_keys)})\n"
        if partition_keys else "")
    return f"CREATE TABLE `{name}` (\n{columns}\n) {clauses}WITH (\n{rendered}\n)"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class SourceTestStep(TableTestStep):
    """A source table with the rows it produces before and after the restore."""

    kind: ClassVar[str] = "source"
    rows_before: tuple[Row, ...] = ()
    rows_after: tuple[Row, ...] = ()
    extra_values_ignored: bool = False

    @property
    def row_type(self) -> RowType:
        """What the table's scan reads: its physical columns, then its metadata columns
        (ordered as their keys in 'readable-metadata')."""
        return scan_row_type(self.table)

    def value_indexes(self) -> dict[str, int]:
        """Where each column the scan reads is in a row, as Flink's values source lays rows
        out: the physical values in order, then a value for each key of
        'readable-metadata' (ordered by key)."""
        keys = list(readable_metadata(self.table))
        physical = [c.name for c in self.table.columns
                    if c.computed is None and c.metadata is None]
        indexes = {name: index for index, name in enumerate(physical)}
        for column in self.table.columns:
            if column.metadata is not None and column.metadata in keys:
                indexes[column.name] = len(physical) + keys.index(column.metadata)
        return indexes

    @staticmethod
    def new_builder(name: str) -> "SourceTestStepBuilder":
        return SourceTestStepBuilder(name)

    def _phase(self, phase: str) -> tuple[Row, ...]:
        return self.rows_before if phase == "before" else self.rows_after

    def clock_advances(self, phase: str) -> list[tuple[int, int]]:
        """(index of the row from which on, milliseconds) of each processing-time advance."""
        advances, index = [], 0
        for row in self._phase(phase):
            if isinstance(row, ClockAdvance):
                advances.append((index, row.ms))
            else:
                index += 1
        return advances

    def feed_rows(self, phase: str, row_type: Optional[RowType] = None) -> list[FeedRow]:
        """Typed rows of one phase ('before' or 'after'), checked against `row_type` (the
        scan's type in the plan being run; the declared schema by default)."""
        rows = tuple(row for row in self._phase(phase) if not isinstance(row, ClockAdvance))
        row_type = row_type or self.row_type
        where = f"table '{self.name}', rows {phase} restore"
        rows = self._laid_out(rows, row_type, where)
        _check_rows(rows, row_type, where)
        try:
            return normalize_rows(rows, row_type, where)
        except StreamPlanError as err:
            raise ProgramError(str(err)) from None


    def _laid_out(self, rows: tuple[Row, ...], row_type: RowType, where: str) -> tuple[Row, ...]:
        """The rows' values for the columns of `row_type`, taken where value_indexes puts
        them; a row with values the table does not read fails unless the step ignores them
        (ignoring_extra_values). Rows already in the scan's layout pass unchanged."""
        indexes = self.value_indexes()
        width = max(indexes.values(), default=-1) + 1
        if [indexes.get(name) for name in row_type.names] == list(range(len(row_type.fields))) \
                and width == len(row_type.fields) and not self.extra_values_ignored:
            return rows                     # the common case: the layout is the scan's
        missing = [name for name in row_type.names if name not in indexes]
        if missing:
            raise ProgramError(f"{where}: the scan reads column(s) {', '.join(missing)}, "
                               f"which the table's rows have no values for")
        laid_out = []
        for index, row in enumerate(rows):
            values = _row_values(row, f"{where}: row {index}")
            if len(values) < width or (len(values) > width and not self.extra_values_ignored):
                raise ProgramError(f"{where}: row {index} has {len(values)} values, the table "
                                   f"has {width} columns and metadata values ("
                                   f"{', '.join(sorted(indexes, key=indexes.get))})")
            picked = [values[indexes[name]] for name in row_type.names]
            laid_out.append({**row, "values": picked} if isinstance(row, dict) else picked)
        return tuple(laid_out)


def _check_rows(rows: tuple[Row, ...], row_type: RowType, where: str) -> None:
    """Each row's shape and each value against its column, so the error names the column
    (normalize_rows names only the row)."""
    fields = row_type.fields
    for index, row in enumerate(rows):
        values = _row_values(row, f"{where}: row {index}")
        if len(values) != len(fields):
            raise ProgramError(f"{where}: row {index} has {len(values)} values, the table has "
                               f"{len(fields)} columns ({', '.join(row_type.names)})")
        for value, column in zip(values, fields):
            if isinstance(value, str):
                require_unicode(value, f"{where}: row {index}: column '{column.name}'")
            try:
                to_python(value, column.type)
            except ValueError as err:
                raise ProgramError(f"{where}: row {index}: column '{column.name}' "
                                   f"{column.type.text}: {err}") from None


def _row_values(row: Any, where: str) -> Union[list, tuple]:
    if isinstance(row, dict):
        unknown = [key for key in row if key not in ("kind", "values")]
        if unknown or "values" not in row:
            raise ProgramError(f"{where}: {brief_repr(row)} is not a row; {_ROW_HINT}")
        kind = row.get("kind", "+I")
        if kind not in _ROW_KINDS:      # also a non-str kind
            raise ProgramError(f"{where}: {brief_repr(kind)} is not a row kind "
                               f"(+I, -U, +U or -D)")
        row = row["values"]
    if not isinstance(row, (list, tuple)):
        raise ProgramError(f"{where}: {shown(row)} is not a row; {_ROW_HINT}")
    return row


@dataclass(frozen=True)
class SinkTestStep(TableTestStep):
    """A sink table with the rows it must receive before and after the restore, as
    `+I[...]` strings. By default they are compared as a changelog (order-insensitive);
    with `testing_materialized_data()` as the materialized view (by primary key when the
    sink has one), the after-restore rows being the view at the end (cumulative)."""

    kind: ClassVar[str] = "sink"
    expected_before: tuple[str, ...] = ()
    expected_after: tuple[str, ...] = ()
    materialized: bool = False
    deduplicated_fields: tuple[int, ...] = ()    # the view's key instead of the primary key

    @staticmethod
    def new_builder(name: str) -> "SinkTestStepBuilder":
        return SinkTestStepBuilder(name)

    def key_indexes(self) -> Optional[list[int]]:
        if self.deduplicated_fields:
            return list(self.deduplicated_fields)
        if not self.primary_key:
            return None
        return [self.row_type.index(name) for name in self.primary_key]


@dataclass(frozen=True)
class FunctionTestStep(TestStep):
    """A user-defined function registered before the SQL runs (Flink's
    setupTemporarySystemFunction / setupCatalogFunction): `name` as the SQL calls it, the
    definition (its class's path and declared types, checked when the step is built) and
    whether it is a temporary system function or a catalog function."""

    kind: ClassVar[str] = "function"
    name: str
    implementation: str                     # module:qualname
    temporary_system: bool
    definition: FunctionDefinition = field(repr=False, compare=False)

    @staticmethod
    def of(name: str, implementation: Any, temporary_system: bool) -> "FunctionTestStep":
        try:
            definition = define_function(name, implementation, temporary_system)
        except StreamPlanError as err:
            raise ProgramError(f"function step: {err}") from None
        return FunctionTestStep(definition.name, definition.spec.implementation,
                                temporary_system, definition)


@dataclass(frozen=True)
class TemporalTableFunctionTestStep(TestStep):
    """A temporal table function registered after the tables (Flink's
    setupTemporarySystemTemporalTableFunction): `LATERAL TABLE (name(o.t))` joins the versions of
    `table` as of `o.t` by `primary_key`."""

    kind: ClassVar[str] = "temporal-table-function"
    name: str
    table: str
    time_attribute: str
    primary_key: tuple[str, ...]

    @staticmethod
    def of(name: str, table: str, time_attribute: str,
           primary_key: Union[str, tuple[str, ...], list[str]]) -> "TemporalTableFunctionTestStep":
        where = f"temporal table function step '{name}'"
        for value, what in ((name, "a name"), (table, "a table name"),
                            (time_attribute, "a time attribute column")):
            require_text(value, where, f"{what} is a non-blank str")
        keys = (primary_key,) if isinstance(primary_key, str) else tuple(primary_key)
        if not keys:
            raise ProgramError(f"{where}: a primary key of at least one column is needed")
        for key in keys:
            require_text(key, where, "a primary key column is a non-blank str")
        return TemporalTableFunctionTestStep(name, table, time_attribute, keys)


@dataclass(frozen=True)
class SqlTestStep(TestStep):
    """The one INSERT INTO ... SELECT the program runs."""

    kind: ClassVar[str] = "sql"
    sql: str

    def text(self) -> str:
        return self.sql


@dataclass(frozen=True)
class StatementSetTestStep(TestStep):
    """Several INSERTs run as one statement set (one plan, one query per sink)."""

    kind: ClassVar[str] = "statement-set"
    statements: tuple[str, ...]

    def text(self) -> str:
        body = "\n".join(statement.strip().rstrip(";") + ";" for statement in self.statements)
        return f"EXECUTE STATEMENT SET BEGIN\n{body}\nEND"


@dataclass(frozen=True)
class FailingSqlTestStep(TestStep):
    """A statement that must be refused (Flink's runFailingSql): compiling it raises `error`
    with `message` in its text."""

    kind: ClassVar[str] = "failing-sql"
    sql: str
    error: type
    message: str

    def text(self) -> str:
        return self.sql


# ----------------------------------------------------------------------------------- builders

class _TableStepBuilder:
    def __init__(self, name: str):
        if not isinstance(name, str):
            raise ProgramError(f"new_builder: a table name is a str like 'Orders', got "
                               f"{shown(name)}")
        if not _TABLE_NAME.match(name):
            raise ProgramError(f"table name '{name}' is not a plain identifier "
                               f"(letters, digits, underscores)")
        self._name = name
        self._schema: list[str] = []
        self._options: dict[str, str] = {}
        self._partition_keys: list[str] = []
        self._distribution: Optional[TableDistribution] = None

    def add_schema(self, *components: str):
        """Column definitions and constraints as in CREATE TABLE: "id BIGINT NOT NULL",
        "t TIMESTAMP(3)", "ts AS TIMESTAMP_MILLIS(ms)", "WATERMARK FOR t AS t - INTERVAL '1'
        SECOND", "PRIMARY KEY (id) NOT ENFORCED"."""
        for component in components:
            require_text(component, f"table '{self._name}': add_schema",
                         "a column or constraint is a str like 'id BIGINT'")
        self._schema.extend(component.strip() for component in components)
        return self

    def add_option(self, key: str, value: str):
        """A WITH option of the values connector, e.g. ('changelog-mode', 'I,UB,UA,D')."""
        require_text(key, f"table '{self._name}': add_option",
                     "an option key is a str like 'changelog-mode'")
        if key == "connector":
            raise ProgramError(f"table '{self._name}': the connector is always 'values'")
        text = option_text(value, f"table '{self._name}': option '{key}'")
        problem = option_value_problem(key, text)
        if problem is not None:
            raise ProgramError(f"table '{self._name}': option '{key}': {problem}")
        self._options[key] = text
        return self

    def add_partition_keys(self, *keys: str):
        """Flink's addPartitionKeys: the table is PARTITIONED BY these columns."""
        for key in keys:
            require_text(key, f"table '{self._name}': add_partition_keys", "a column name")
        self._partition_keys.extend(keys)
        return self

    def add_distribution(self, distribution: "TableDistribution"):
        """Flink's addDistribution: the table is DISTRIBUTED as `distribution` says."""
        if not isinstance(distribution, TableDistribution):
            raise ProgramError(f"table '{self._name}': add_distribution takes a "
                               f"TableDistribution, got {shown(distribution)}")
        self._distribution = distribution
        return self

    def _parse(self) -> CreateTable:
        if not self._schema:
            raise ProgramError(f"table '{self._name}' has no schema; call add_schema(...)")
        ddl = render_ddl(self._name, tuple(self._schema), tuple(sorted(self._options.items())),
                         tuple(self._partition_keys), self._distribution)
        try:
            statements = parse_script(ddl, source=f"table '{self._name}'")
        except StreamPlanError as err:
            raise ProgramError(f"table '{self._name}': {err}") from None
        if len(statements) != 1 or not isinstance(statements[0], CreateTable):
            # A component that closes the column list (`a INT) WITH (...); CREATE ...`)
            # makes the DDL several statements.
            closing = next((c for c in self._schema if ";" in c), self._schema[-1])
            raise ProgramError(
                f"table '{self._name}': add_schema: the components make {len(statements)} "
                f"statements, not one CREATE TABLE; a component is one column or constraint "
                f"like 'id BIGINT', but {brief_repr(closing)} ends the table's definition")
        return statements[0]

    def _base(self) -> dict[str, Any]:
        return {"name": self._name, "schema": tuple(self._schema),
                "options": tuple(sorted(self._options.items())), "table": self._parse(),
                "partition_keys": tuple(self._partition_keys),
                "distribution": self._distribution}


class SourceTestStepBuilder(_TableStepBuilder):
    def __init__(self, name: str):
        super().__init__(name)
        self._before: list[Row] = []
        self._after: list[Row] = []
        self._extra_values_ignored = False

    def ignoring_extra_values(self) -> "SourceTestStepBuilder":
        """Rows as Flink's values source reads them: values after those the table reads
        (its physical columns, then its metadata keys) are ignored, not an error. For
        Flink's programs, whose rows sometimes carry a value the table never declares."""
        self._extra_values_ignored = True
        return self

    def producing_before_restore(self, *rows: Row) -> "SourceTestStepBuilder":
        """Rows read before the restore: [v, ...] inserts or {"kind": "+U", "values": [...]}."""
        self._before.extend(self._shaped(rows, self._before, "before"))
        return self

    def producing_after_restore(self, *rows: Row) -> "SourceTestStepBuilder":
        self._after.extend(self._shaped(rows, self._after, "after"))
        return self

    def _shaped(self, rows: tuple, earlier: list, phase: str) -> tuple:
        """Rows of the right shape; their values are checked against the schema at build()."""
        for offset, row in enumerate(rows):
            if not isinstance(row, ClockAdvance):
                _row_values(row, f"table '{self._name}', rows {phase} restore: row "
                                 f"{len(earlier) + offset}")
        return rows

    def build(self) -> SourceTestStep:
        step = SourceTestStep(**self._base(), rows_before=tuple(self._before),
                              rows_after=tuple(self._after),
                              extra_values_ignored=self._extra_values_ignored)
        step.feed_rows("before")       # validates arity, kinds and values now
        step.feed_rows("after")
        return step


class SinkTestStepBuilder(_TableStepBuilder):
    def __init__(self, name: str):
        super().__init__(name)
        self._before: Optional[list[str]] = None
        self._after: Optional[list[str]] = None
        self._materialized = False
        self._deduplicated: tuple[int, ...] = ()

    def consuming_before_restore(self, *rows: str) -> "SinkTestStepBuilder":
        """Rows the sink holds right before the restore, e.g. "+I[1, Alice, 2020-04-15T08:00:01]"."""
        self._before = (self._before or []) + self._texts(rows, self._before,
                                                          "consuming_before_restore")
        return self

    def consuming_after_restore(self, *rows: str) -> "SinkTestStepBuilder":
        self._after = (self._after or []) + self._texts(rows, self._after,
                                                        "consuming_after_restore")
        return self

    def _texts(self, rows: tuple, earlier: Optional[list], method: str) -> list[str]:
        for offset, row in enumerate(rows):
            where = f"sink '{self._name}': {method}, row {len(earlier or ()) + offset}"
            if not isinstance(row, str):
                raise ProgramError(f"{where}: {shown(row)} is not a row text like "
                                   f"'+I[1, Alice]' (kinds +I, -U, +U, -D)")
            require_unicode(row, where)
        return list(rows)

    def testing_materialized_data(self) -> "SinkTestStepBuilder":
        """Compare the materialized view instead of the changelog."""
        self._materialized = True
        return self

    def deduplicated_field_indices(self, *indices: int) -> "SinkTestStepBuilder":
        """Key the materialized view by these fields (Flink's deduplicatedFieldIndices, for a
        sink without a primary key): a row replaces the row of its key, in the rows the sink
        received and in the expected ones alike (a ported program's final view is then its
        before and after rows deduplicated, the last of a key kept, as Flink's
        SinkTestStep.getExpectedAsStrings builds it)."""
        where = f"sink '{self._name}': deduplicated_field_indices"
        if not indices or not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0
                                  for i in indices) or len(set(indices)) != len(indices):
            raise ProgramError(f"{where}: field indexes, distinct ints >= 0, e.g. "
                               f"deduplicated_field_indices(0), got {shown(indices)}")
        self._deduplicated = tuple(indices)
        return self

    def build(self) -> SinkTestStep:
        if self._before is None and self._after is None:
            raise ProgramError(
                f"sink '{self._name}' has no expectations; declare them with "
                f"consuming_before_restore(...) and/or consuming_after_restore(...) (an "
                f"undeclared phase expects no rows)")
        if self._deduplicated and not self._materialized:
            raise ProgramError(f"sink '{self._name}': deduplicated_field_indices keys the "
                               f"materialized view; call testing_materialized_data() too")
        step = SinkTestStep(**self._base(), expected_before=tuple(self._before or ()),
                            expected_after=tuple(self._after or ()),
                            materialized=self._materialized,
                            deduplicated_fields=self._deduplicated)
        arity = len(step.row_type.fields)
        if any(i >= arity for i in step.deduplicated_fields):
            raise ProgramError(f"sink '{self._name}': deduplicated_field_indices "
                               f"{list(step.deduplicated_fields)}: the sink has {arity} "
                               f"column(s), indexes 0 to {arity - 1}")
        for phase, rows in (("before", step.expected_before), ("after", step.expected_after)):
            for index, text in enumerate(rows):
                _check_row_text(step, phase, index, text)
        return step


def _check_row_text(step: SinkTestStep, phase: str, index: int, text: Any) -> None:
    where = f"sink '{step.name}', expected row {index} {phase} restore"
    match = _ROW_TEXT.match(text) if isinstance(text, str) else None
    if match is None:
        raise ProgramError(f"{where}: {brief_repr(text)} is not a row like '+I[1, Alice]' "
                           f"(kinds +I, -U, +U, -D)")
    if step.materialized and match.group(1) != "+I":
        raise ProgramError(f"{where}: {text!r}: a materialized view holds only +I rows")
    fields = step.row_type.fields
    parts = len(split_values(match.group(2))) if fields else 0
    # A string value may itself contain ", ", so more parts than columns is only an error
    # when no column is a string.
    has_strings = any(f.type.name in _STRING_TYPES for f in fields)
    if parts < len(fields) or (parts > len(fields) and not has_strings):
        raise ProgramError(f"{where}: {text!r} has {parts} value(s), the sink has "
                           f"{len(fields)} column(s) ({', '.join(step.row_type.names)})")


def split_values(body: str) -> list[str]:
    """Values of a row text: split at ", " outside brackets (nested rows, arrays, maps)."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(body):
        if char in "[({":
            depth += 1
        elif char in "])}":
            depth -= 1
        elif depth == 0 and body.startswith(", ", index):
            parts.append(body[start:index])
            start = index + 2
    parts.append(body[start:])
    return parts


def parse_run_sql(text: str, program_id: str) -> list[Insert]:
    """The INSERTs of a run step; syntax errors name the program."""
    try:
        statements = parse_script(text, source=f"program {program_id}")
    except StreamPlanError as err:
        raise ProgramError(str(err)) from None
    inserts: list[Insert] = []
    for statement in statements:
        if isinstance(statement, Insert):
            inserts.append(statement)
        elif isinstance(statement, StatementSet):
            inserts.extend(statement.inserts)
        else:
            raise ProgramError(f"program {program_id}: a run step holds INSERT statements only, "
                               f"found {type(statement).__name__}; use setup_config / "
                               f"setup_table_source / setup_table_sink for the setup")
    if not inserts:
        raise ProgramError(f"program {program_id}: the run step has no INSERT statement")
    return inserts
