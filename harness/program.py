"""TableTestProgram: a declarative streaming SQL test, runnable three ways (semantic,
generate, restore), modelled on Flink's TableTestProgram.

Example (``programs/interval_join.py``)::

    from harness import SinkTestStep, SourceTestStep, TableTestProgram

    INTERVAL_JOIN_EARLY_FIRE = (
        TableTestProgram.of("interval-join-early-fire",
                            "left interval join pads early and corrects on match")
        .setup_config("table.exec.interval-join.min-cleanup-interval", "1 s")
        .setup_table_source(
            SourceTestStep.new_builder("Orders")
            .add_schema("id BIGINT", "t TIMESTAMP(3)",
                        "WATERMARK FOR t AS t - INTERVAL '1' SECOND")
            .producing_before_restore([1, "2024-01-01 10:00:00"])
            .producing_after_restore([2, "2024-01-01 10:00:09"])
            .build())
        .setup_table_source(...Shipments...)
        .setup_table_sink(
            SinkTestStep.new_builder("Out")
            .add_schema("id BIGINT", "ship_id BIGINT")
            .add_option("sink-insert-only", "false")
            .consuming_before_restore("+I[1, null]")
            .consuming_after_restore("-U[1, null]", "+U[1, 100]", "+I[2, null]")
            .build())
        .run_sql("INSERT INTO Out SELECT /*+ EARLY_FIRE('delay'='2s') */ o.id, s.ship_id "
                 "FROM Orders o LEFT JOIN Shipments s ON o.id = s.id "
                 "AND s.t BETWEEN o.t AND o.t + INTERVAL '5' SECOND")
        .build())

    PROGRAMS = [INTERVAL_JOIN_EARLY_FIRE]

The id starts with the short name of the exec node under test (`interval-join`), which
decides where its fixtures live: ``snapshots/interval-join_<version>/<id>/``.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from dataclasses import replace
from typing import Any, Optional, Union

from sqlglot import exp

from streamplan.testing import brief_repr, parse_script, to_json

from .batches import PHASE, ROW, SHAPES
from .compare import view_of_texts
from .errors import ProgramError
from .steps import (ConfigOptionTestStep, FailingSqlTestStep, FunctionTestStep, SinkTestStep, SourceTestStep,
                    TemporalTableFunctionTestStep,
                    SqlTestStep,
                    StatementSetTestStep, TableTestStep, TestStep, parse_run_sql, render_ddl,
                    require_text, require_unicode, shown)

_PROGRAM_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
# Flink names a few programs with '_' too ("sink-bucketing_with-count"); a ported program
# keeps Flink's id.
_FLINK_PROGRAM_ID = re.compile(r"^[a-z0-9]+([-_][a-z0-9]+)*$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
# The commit of a program read from a copy of Flink's file that does not say which commit it
# is (the module says where the copy came from, and that Flink 2.3 gives its rows).
UNKNOWN_COMMIT = "unknown"
RunStep = Union[SqlTestStep, StatementSetTestStep, FailingSqlTestStep]
RUN_STEPS = (SqlTestStep, StatementSetTestStep, FailingSqlTestStep)
# What Flink's RestoreTestBase gives every sink it registers; a ported program's sinks get the
# same unless they set the option themselves, so the program runs as Flink runs it.
FLINK_SINK_DEFAULTS = (("sink-insert-only", "false"),)
# Flink's RestoreTestBase restores a savepoint generated long before the test runs, and its
# expectations count on that: a processing-time join's cached rows expire across the restore
# (IntervalJoinTestPrograms#INTERVAL_JOIN_PROC_TIME), as does a 1 s state TTL
# (GroupAggregateTestPrograms#AGG_WITH_STATE_TTL_HINT), while a TTL of a day does not
# (JoinTestPrograms#JOIN_WITH_STATE_TTL_HINT). A ported program's processing time therefore
# moves on by this much at the restore point, in its restores and its semantic runs alike.
FLINK_RESTORE_GAP_MS = 60 * 60 * 1000
MINIBATCH_KEY = "table.exec.mini-batch.enabled"


@dataclass(frozen=True)
class FlinkSource:
    """Where a program ported from Flink comes from: `<File>.java#<CONSTANT>` in Flink's
    restore tests, read at `commit` of apache/flink."""

    reference: str
    commit: str

    def __str__(self) -> str:
        return f"{self.reference} @ {self.commit[:12]}"


@dataclass(frozen=True)
class TableTestProgram:
    id: str
    description: str
    steps: tuple[TestStep, ...]
    ported_from: Optional[FlinkSource] = None
    batch_shape: str = ROW             # how its fixtures group rows into micro-batches
    node: Optional[str] = None         # the node it tests when its id does not say (for_node)
    planned_before: Optional[str] = None   # why its semantic run takes its fixture's plan
    planned_with: tuple[tuple[str, str], ...] = ()   # options its plans are compiled under

    __test__ = False       # not a pytest test class despite the name

    @staticmethod
    def of(id: str, description: str) -> "TableTestProgramBuilder":
        return TableTestProgramBuilder(id, description)

    # --- steps by kind ----------------------------------------------------------------------
    @property
    def config_steps(self) -> list[ConfigOptionTestStep]:
        return [step for step in self.steps if isinstance(step, ConfigOptionTestStep)]

    @property
    def function_steps(self) -> list[FunctionTestStep]:
        return [step for step in self.steps if isinstance(step, FunctionTestStep)]

    @property
    def temporal_function_steps(self) -> list[TemporalTableFunctionTestStep]:
        return [step for step in self.steps if isinstance(step, TemporalTableFunctionTestStep)]

    @property
    def sources(self) -> dict[str, SourceTestStep]:
        return {step.name: step for step in self.steps if isinstance(step, SourceTestStep)}

    @property
    def sinks(self) -> dict[str, SinkTestStep]:
        return {step.name: step for step in self.steps if isinstance(step, SinkTestStep)}

    @property
    def run_step(self) -> RunStep:
        (step,) = [step for step in self.steps if isinstance(step, RUN_STEPS)]
        return step

    @property
    def refusal(self) -> Optional[FailingSqlTestStep]:
        """The failure its statement must meet, for a program of FAILING_PROGRAMS."""
        step = self.run_step
        return step if isinstance(step, FailingSqlTestStep) else None

    def clock_advances(self, phase: str, tables: Optional[list[str]] = None) -> list[tuple[int, int]]:
        """(index of the row from which on, milliseconds) of each processing-time advance of
        `phase` in the sources `tables` (all by default): the sources' markers, and for a
        ported program the restore gap (FLINK_RESTORE_GAP_MS) where the after phase starts."""
        sources = self.sources
        advances = [advance for table in (tables if tables is not None else sorted(sources))
                    for advance in sources[table].clock_advances(phase)]
        if self.ported_from is not None and phase == "after":
            advances.insert(0, (0, FLINK_RESTORE_GAP_MS))
        return advances

    # --- rendering --------------------------------------------------------------------------
    def setup_script(self) -> str:
        """The CREATE TABLE statements of every source and sink."""
        tables = [step for step in self.steps if isinstance(step, TableTestStep)]
        return "".join(f"{table.ddl()};\n" for table in tables)

    def before_data_fingerprint(self) -> str:
        """sha256 of the sources' schemas and before-restore rows: a fixture's checkpoint is
        only valid for the data it was generated from."""
        data = {name: {"schema": list(step.schema), "options": [list(o) for o in step.options],
                       "rows": [[kind.short, [to_json(v) for v in values]]
                                for kind, values in step.feed_rows("before")]}
                for name, step in sorted(self.sources.items())}
        for name, step in self.sources.items():
            if step.partition_keys:                # absent otherwise: older fingerprints hold
                data[name]["partition keys"] = list(step.partition_keys)
        for name, step in self.sources.items():
            if step.clock_advances("before"):      # absent otherwise: older fingerprints hold
                data[name]["clock"] = step.clock_advances("before")
        if self.batch_shape != ROW:                # likewise
            data = {"tables": data, "batch shape": self.batch_shape}
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


class TableTestProgramBuilder:
    def __init__(self, id: str, description: str):
        # Checked now, so every later error can name the program.
        if not isinstance(id, str):
            raise ProgramError(f"TableTestProgram.of: an id is a str like "
                               f"'calc-projection-filter', got {shown(id)}")
        _check_id_and_description(id, description)
        self._id = id
        self._description = description
        self._steps: list[TestStep] = []
        self._ported_from: Optional[FlinkSource] = None
        self._batch_shape: Optional[str] = None        # None: ROW, or PHASE for mini-batch
        self._node: Optional[str] = None
        self._planned_before: Optional[str] = None
        self._planned_with: tuple[tuple[str, str], ...] = ()

    def ported_from(self, reference: str, commit: str) -> "TableTestProgramBuilder":
        """A program transcribed from Flink's restore tests, as it is there:
        `reference` is `<File>.java#<CONSTANT>`, `commit` the apache/flink commit it was
        read at. Its sinks get what Flink's RestoreTestBase gives every sink."""
        if not isinstance(reference, str) or not re.match(r"^\w+\.java#\w+$", reference):
            raise ProgramError(f"program {self._id}: ported_from names Flink's program as "
                               f"'<File>.java#<CONSTANT>', got {shown(reference)}")
        if not isinstance(commit, str) or not (_COMMIT.match(commit) or commit == UNKNOWN_COMMIT):
            raise ProgramError(f"program {self._id}: ported_from needs the apache/flink commit "
                               f"it was read at (40 hex digits; UNKNOWN_COMMIT for a copy that "
                               f"does not name it), got {shown(commit)}")
        self._ported_from = FlinkSource(reference, commit)
        return self

    def for_node(self, node: str) -> "TableTestProgramBuilder":
        """The exec node this program tests ('group-aggregate'), for a program ported under
        Flink's id when that id starts with no node's short name (Flink files its programs by
        the RestoreTest class that runs them, not by id). Only for ported programs: our own
        ids start with their node's short name."""
        if self._ported_from is None:
            raise ProgramError(f"program {self._id}: for_node is for programs ported under "
                               f"Flink's id (call ported_from first); name your own program "
                               f"'<node>-...' instead")
        self._node = require_text(node, f"program {self._id}: for_node", "the node's short "
                                  "name, e.g. 'group-aggregate'")
        return self

    def planned_before(self, reason: str,
                       options: Optional[dict[str, str]] = None) -> "TableTestProgramBuilder":
        """A ported program whose expected rows come from the plan Flink compiled when the
        test was written, where Flink 2.3 (and this planner, which follows it) compiles the
        statement otherwise: its semantic run feeds all its rows through the plan of its
        fixture of the pinned Spark, as Flink's RestoreTestBase runs its stored plan, instead
        of compiling the statement again. `reason` says what Flink changed; the table of
        ported programs shows it. Without `options` the fixture was generated before the
        planner changed, and the plan snapshot records today's plan. `options` are planner
        options under which today's planner compiles the plan Flink stored (e.g.
        `table.exec.sink.upsert-materialize` FORCE for a materializer Flink 2.3 refuses to
        add by itself): every compile of the program sets them after its own config steps,
        so its fixtures, plan snapshot and audit see that plan; the program's steps stay as
        Flink wrote them."""
        if self._ported_from is None:
            raise ProgramError(f"program {self._id}: planned_before is for programs ported "
                               f"from Flink (call ported_from first)")
        self._planned_before = require_text(reason, f"program {self._id}: planned_before",
                                            "what Flink compiles otherwise today")
        options = {} if options is None else options
        if not isinstance(options, dict) or not all(
                isinstance(key, str) and isinstance(value, str) for key, value in options.items()):
            raise ProgramError(f"program {self._id}: planned_before's options map option "
                               f"names to values, both str, got {shown(options)}")
        self._planned_with = tuple(sorted(options.items()))
        return self

    def in_batches(self, shape: str) -> "TableTestProgramBuilder":
        """How the program's fixtures group its rows into micro-batches (harness.batches):
        'row' (one row a batch, the default), 'phase' (a phase's rows together, split only
        where the clock advances) or 'random' (seeded groups). Its checkpoints then hold state
        written by batches of that shape."""
        if shape not in SHAPES:
            raise ProgramError(f"program {self._id}: batch shape {shown(shape)} is none of "
                               f"{', '.join(SHAPES)}")
        self._batch_shape = shape
        return self

    def setup_config(self, key: str, value: str) -> "TableTestProgramBuilder":
        """A session option (`SET`); unknown keys and bad values fail here."""
        try:
            return self.add_step(ConfigOptionTestStep.of(key, value))
        except ProgramError as err:
            raise ProgramError(f"program {self._id}: {err}") from None

    def setup_temporary_system_function(self, name: str, implementation: Any
                                        ) -> "TableTestProgramBuilder":
        """Flink's setupTemporarySystemFunction: `name` calls `implementation` (a class of
        streamplan.functions, defined at module level, or its 'module:qualname'); plans
        record it by its system name."""
        return self._function(name, implementation, temporary_system=True)

    def setup_catalog_function(self, name: str, implementation: Any) -> "TableTestProgramBuilder":
        """Flink's setupCatalogFunction: a function in default_catalog.default_database;
        plans record it by that path."""
        return self._function(name, implementation, temporary_system=False)

    def setup_temporary_catalog_function(self, name: str, implementation: Any
                                         ) -> "TableTestProgramBuilder":
        """Flink's setupTemporaryCatalogFunction: a temporary function in
        default_catalog.default_database; plans record it by that path, as a catalog
        function's."""
        return self._function(name, implementation, temporary_system=False)

    def setup_temporary_system_temporal_table_function(
            self, name: str, table: str, time_attribute: str,
            primary_key: Union[str, tuple[str, ...], list[str]]) -> "TableTestProgramBuilder":
        """Flink's setupTemporarySystemTemporalTableFunction(name, table, $(time_attribute),
        $(primary_key...)): `LATERAL TABLE (name(o.t))` joins `table`'s versions as of `o.t`
        (registered after the program's tables)."""
        try:
            step = TemporalTableFunctionTestStep.of(name, table, time_attribute, primary_key)
        except ProgramError as err:
            raise ProgramError(f"program {self._id}: {err}") from None
        return self.add_step(step)

    def _function(self, name: str, implementation: Any, temporary_system: bool):
        try:
            step = FunctionTestStep.of(name, implementation, temporary_system)
        except ProgramError as err:
            raise ProgramError(f"program {self._id}: {err}") from None
        if any(isinstance(other, FunctionTestStep) and other.name == step.name
               for other in self._steps):
            raise ProgramError(f"program {self._id}: function '{step.name}' registered twice")
        return self.add_step(step)

    def setup_table_source(self, step: SourceTestStep) -> "TableTestProgramBuilder":
        return self.add_step(self._expect(step, SourceTestStep, "setup_table_source"))

    def setup_table_sink(self, step: SinkTestStep) -> "TableTestProgramBuilder":
        return self.add_step(self._expect(step, SinkTestStep, "setup_table_sink"))

    def run_sql(self, sql: str) -> "TableTestProgramBuilder":
        require_text(sql, f"program {self._id}: run_sql", "the SQL is a str "
                     "'INSERT INTO <sink> SELECT ... FROM <source>'")
        return self.add_step(SqlTestStep(sql.strip().rstrip(";")))

    def run_failing_sql(self, sql: str, error: type, message: str) -> "TableTestProgramBuilder":
        """A statement that must be refused (Flink's runFailingSql): compiling it must raise
        `error` (a streamplan error class, e.g. ChangelogModeError) whose text contains
        `message`. Such a program belongs in its module's FAILING_PROGRAMS: it has no data to
        restore, so no fixtures."""
        require_text(sql, f"program {self._id}: run_failing_sql", "the SQL is a str")
        require_text(message, f"program {self._id}: run_failing_sql", "the message is a str")
        if not (isinstance(error, type) and issubclass(error, Exception)):
            raise ProgramError(f"program {self._id}: run_failing_sql needs the error class the "
                               f"statement must raise, got {shown(error)}")
        return self.add_step(FailingSqlTestStep(sql.strip().rstrip(";"), error, message))

    def run_statement_set(self, *inserts: str) -> "TableTestProgramBuilder":
        if not inserts:
            raise ProgramError(f"program {self._id}: run_statement_set needs at least one "
                               f"'INSERT INTO ...' str")
        for insert in inserts:
            require_text(insert, f"program {self._id}: run_statement_set",
                         "each statement is a str 'INSERT INTO <sink> SELECT ...'")
        return self.add_step(StatementSetTestStep(tuple(inserts)))

    def _expect(self, step: Any, cls: type, method: str) -> Any:
        """A source passed as a sink (or the reverse) fails here, not as a confusing SQL
        error; anything that is no step at all is left to add_step's message."""
        if isinstance(step, TestStep) and not isinstance(step, cls):
            raise ProgramError(f"program {self._id}: {method} takes a {cls.__name__} "
                               f"({cls.__name__}.new_builder(...)...build()), got "
                               f"{type(step).__name__} {getattr(step, 'name', '')!r}")
        return step

    def add_step(self, step: TestStep) -> "TableTestProgramBuilder":
        """Any step; runners refuse kinds they cannot run."""
        if not isinstance(step, TestStep):
            raise ProgramError(f"program {self._id}: {step!r} is not a TestStep (did you forget "
                               f".build() on a step builder?)")
        self._steps.append(step)
        return self

    def build(self) -> TableTestProgram:
        steps = tuple(self._steps)
        if self._ported_from is not None:
            steps = tuple(_with_flink_sink_defaults(step) if isinstance(step, SinkTestStep)
                          else step for step in steps)
        program = TableTestProgram(self._id, self._description, steps, self._ported_from,
                                   self._batch_shape or _default_shape(steps), self._node,
                                   self._planned_before, self._planned_with)
        _validate(program)
        return program


def _default_shape(steps: tuple[TestStep, ...]) -> str:
    """One row a micro-batch, except for a program that enables mini-batch
    (`table.exec.mini-batch.enabled`): Flink's restore tests deliver a phase's rows well
    within the mini-batch latency, so its mini-batches are cut by `table.exec.mini-batch.size`
    alone; here a phase is one micro-batch (PHASE), which the aggregates cut by that size."""
    enabled = any(isinstance(step, ConfigOptionTestStep) and step.key == MINIBATCH_KEY
                  and step.value.strip().lower() == "true" for step in steps)
    return PHASE if enabled else ROW


def _with_flink_sink_defaults(step: SinkTestStep) -> SinkTestStep:
    """What Flink's RestoreTestBase does with a sink: registers it with FLINK_SINK_DEFAULTS,
    and, for materialized data, expects the final view to be the before rows plus the after
    rows (here a materialized sink's after expectation is the whole final view), deduplicated
    by its key fields when it names them (deduplicated_field_indices)."""
    if step.materialized:
        final = step.expected_before + step.expected_after
        if step.deduplicated_fields:
            final = tuple(view_of_texts(list(final), step.key_indexes(),
                                        f"sink '{step.name}', expected rows"))
        step = replace(step, expected_after=final)
    options = dict(FLINK_SINK_DEFAULTS)
    options.update(step.options)
    if options == dict(step.options):
        return step
    ordered = tuple(sorted(options.items()))
    (table,) = parse_script(render_ddl(step.name, step.schema, ordered, step.partition_keys,
                                       step.distribution), source=f"table '{step.name}'")
    return replace(step, options=ordered, table=table)


def _validate(program: TableTestProgram) -> None:
    where = f"program {program.id!r}"
    _check_id_and_description(program.id, program.description, program.ported_from is not None)
    names = [step.name for step in program.steps if isinstance(step, TableTestStep)]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ProgramError(f"{where}: table(s) {', '.join(duplicates)} declared twice; each "
                           f"source and sink needs its own name")
    runs = [step for step in program.steps if isinstance(step, RUN_STEPS)]
    if len(runs) != 1:
        raise ProgramError(f"{where}: needs exactly one run step (run_sql, run_statement_set "
                           f"or run_failing_sql), has {len(runs)}")
    if program.refusal is None:         # a refused statement may name what does not exist
        _check_table_references(program, where)


def _check_id_and_description(id: object, description: object, ported: bool = True) -> None:
    """`ported`: whether Flink's ids (with '_') are allowed; the builder checks the id
    before it knows, and build() again once it does."""
    where = f"program {brief_repr(id)}"
    if not isinstance(id, str) or not (_FLINK_PROGRAM_ID if ported else _PROGRAM_ID).match(id):
        raise ProgramError(f"{where}: an id is lower-case words joined by '-', starting with the "
                           f"exec node's short name (e.g. 'calc-projection-filter')")
    if not isinstance(description, str):
        raise ProgramError(f"{where}: the description is a str saying what the program tests, "
                           f"got {shown(description)}")
    if not description.strip():
        raise ProgramError(f"{where}: the description is empty; say what the program tests")
    require_unicode(description, f"{where}: the description")


def _table_read(table: exp.Table) -> str:
    """The table a FROM item reads: its name, or for a window TVF, `TABLE(TUMBLE(t, ...))` as
    the parser hands it over, the table of its first argument."""
    call = table.this
    if isinstance(call, exp.Anonymous) and call.name.upper() == "TABLE" and call.expressions:
        inner = call.expressions[0]
        if isinstance(inner, exp.Anonymous) and inner.expressions \
                and isinstance(inner.expressions[0], exp.Column):
            return inner.expressions[0].name
    return table.name


def _check_table_references(program: TableTestProgram, where: str) -> None:
    """Every table the SQL names is declared with the right role, and every declared table
    is used: a typo fails here instead of as an unbound Spark source."""
    inserts = parse_run_sql(program.run_step.text(), program.id)
    sources, sinks = program.sources, program.sinks
    ctes = {cte.alias for insert in inserts for cte in insert.query.find_all(exp.CTE)}
    read = {_table_read(table) for insert in inserts
            for table in insert.query.find_all(exp.Table)} - ctes
    written = {insert.target for insert in inserts}
    problems = []
    for name in sorted(read - set(sources)):
        role = "a sink" if name in sinks else "not declared"
        problems.append(f"the SQL reads table '{name}', which is {role}; declare it with "
                        f"setup_table_source(...)")
    for name in sorted(written - set(sinks)):
        role = "a source" if name in sources else "not declared"
        problems.append(f"the SQL writes table '{name}', which is {role}; declare it with "
                        f"setup_table_sink(...)")
    # Flink's programs may declare tables their SQL never reads (RestoreTestBase registers
    # every one): a ported program keeps them as written.
    for name in sorted(set(sources) - read) if program.ported_from is None else ():
        problems.append(f"source '{name}' is declared but the SQL never reads it")
    for name in sorted(set(sinks) - written):
        problems.append(f"sink '{name}' is declared but the SQL never writes it")
    if problems:
        raise ProgramError(f"{where}: " + "; ".join(problems))
