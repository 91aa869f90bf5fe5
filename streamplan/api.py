"""The Python API: a table environment that runs scripts, compiles, explains and executes plans.

    env = TableEnvironment()
    env.execute_sql(open("job.sql").read())          # CREATE TABLE / SET / COMPILE PLAN ...
    plan = env.compile_sql("INSERT INTO snk SELECT ...")
    result = env.execute_plan(plan, checkpoint="ckpt", output="out")
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence, Union

from .functions import FunctionDefinition, define_function
from .changelog import FeedRow, RowKind, short_mode_names
from .errors import PlanningError, StreamPlanError
from .options import Configuration
from .json_input import parse_json
from .plan import CompiledPlan, load_plan
from .planner.planner import PlanBuilder, check_changelog
from .planner.temporal_functions import TemporalTableFunction, define_temporal_table_function
from .planner.type_resolver import SparkTypeResolver
from .planner.views import check_view_reads
from .executor import PlanExecutor, RunResult, advances_event_time, phased_steps
from .migration import MigrationResult
from .sql.ast import (CompilePlan, CreateFunction, CreateTable, CreateView, ExecutePlan, ExplainPlan, Insert, MigratePlan,
                      SetOption, StatementSet)
from .sql.parser import parse_script
from .types import RowType

RowsInput = Iterable[Union[list, tuple, dict]]


@dataclass
class StatementResult:
    kind: str      # created | set | compiled | migrated | executed | explained | skipped
    detail: str = ""
    plan: Optional[CompiledPlan] = None
    run: Optional[RunResult] = None


@dataclass
class TableEnvironment:
    spark: Any = None
    config: Configuration = field(default_factory=Configuration)
    catalog: dict[str, CreateTable] = field(default_factory=dict)
    views: dict[str, CreateView] = field(default_factory=dict)
    functions: dict[str, FunctionDefinition] = field(default_factory=dict)   # by SQL name
    temporal_functions: dict[str, TemporalTableFunction] = field(default_factory=dict)  # by SQL name
    checkpoint_dir: Optional[Path] = None     # where INSERT / EXECUTE PLAN keep state
    output_dir: Optional[Path] = None         # where sinks record their changelog
    base_dir: Path = field(default_factory=Path.cwd)   # resolves relative plan and data paths
    # A plan is data: the 'path' of its tables stays below base_dir unless this allows more.
    allow_paths_outside: bool = False

    def __post_init__(self) -> None:
        # Flink built-ins that run as Python functions (streamplan/functions/builtins.py)
        from .functions.builtins import BUILTINS

        for name, implementation in BUILTINS.items():
            if name.lower() not in self.functions:
                self._register_function(name, implementation, temporary_system=True)

    def session(self):
        if self.spark is None:
            from .runtime.session import spark_session

            self.spark = spark_session()
        return self.spark

    # --- functions ------------------------------------------------------------------------------
    def create_temporary_system_function(self, name: str, implementation) -> FunctionDefinition:
        """Flink's createTemporarySystemFunction: `name` calls the function (a class of
        streamplan.functions, or 'module:qualname') anywhere; plans record it by system name."""
        return self._register_function(name, implementation, temporary_system=True)

    def create_function(self, name: str, implementation) -> FunctionDefinition:
        """Flink's createFunction: a catalog function in default_catalog.default_database;
        plans record it by that path."""
        return self._register_function(name, implementation, temporary_system=False)

    def create_temporary_system_temporal_table_function(
            self, name: str, table: str, time_attribute: str, primary_key: Sequence[str]
    ) -> TemporalTableFunction:
        """Flink's createTemporarySystemFunction(name, tableEnv.from(table)
        .createTemporalTableFunction($(time_attribute), $(primary_key...))): `LATERAL TABLE
        (name(o.t)) AS r` joins `table`'s versions as of `o.t` by `primary_key` (an event-time
        temporal join; planner/temporal_functions.py)."""
        key = ((primary_key,) if isinstance(primary_key, str) else tuple(primary_key)
               if isinstance(primary_key, (list, tuple)) else (primary_key,))
        function = define_temporal_table_function(
            name, self.catalog.get(table) if isinstance(table, str) else None, table,
            time_attribute, key)
        if name.lower() in self.functions or name.lower() in self.temporal_functions:
            raise PlanningError(f"function '{name}' is already registered")
        self.temporal_functions[name.lower()] = function
        return function

    def _register_function(self, name, implementation, temporary_system: bool) -> FunctionDefinition:
        definition = define_function(name, implementation, temporary_system)
        if definition.name in self.functions:
            raise PlanningError(f"function '{definition.name}' is already registered (as "
                                f"{self.functions[definition.name].spec.described()})")
        self.functions[definition.name] = definition
        return definition

    def _register_scalar_functions(self) -> None:
        """Scalar functions go into the Spark session before planning: Spark's analyzer types
        the calc expressions that call them."""
        from .functions.spark import register_scalar

        for definition in self.functions.values():
            if definition.kind == "SCALAR":
                register_scalar(self.session(), definition.spec, f"function {definition.name}",
                                check=False)

    # --- scripts ------------------------------------------------------------------------------
    def execute_sql(self, script: str, source: str = "<script>") -> list[StatementResult]:
        return [self._run_statement(statement) for statement in parse_script(script, source)]

    def _run_statement(self, statement) -> StatementResult:
        if isinstance(statement, CreateTable):
            self._check_new_relation(statement, "table")
            self.catalog[statement.name] = statement
            return StatementResult("created", statement.name)
        if isinstance(statement, CreateView):
            if statement.if_not_exists and statement.name in self.views:
                return StatementResult("skipped", f"view {statement.name} exists (IF NOT EXISTS)")
            self._check_new_relation(statement, "view")
            check_view_reads(statement, set(self.catalog) | set(self.views))
            self.views[statement.name] = statement
            return StatementResult("created", statement.name)
        if isinstance(statement, CreateFunction):
            if statement.name.lower() in self.functions and statement.if_not_exists:
                return StatementResult("skipped", f"function {statement.name} exists "
                                                  f"(IF NOT EXISTS)")
            register = (self.create_temporary_system_function if statement.temporary_system
                        else self.create_function)
            try:
                register(statement.name, statement.implementation)
            except StreamPlanError as err:
                raise type(err)(f"{statement.position}: {err}") from None
            return StatementResult("created", statement.name)
        if isinstance(statement, SetOption):
            self.config.set(statement.key, statement.value)
            return StatementResult("set", statement.key)
        if isinstance(statement, (Insert, StatementSet)):
            plan = self.compile_plan(statement)
            return StatementResult("executed", plan=plan, run=self.execute_plan(plan))
        if isinstance(statement, CompilePlan):
            return self._compile_to_file(statement)
        if isinstance(statement, MigratePlan):
            target = self._path(statement.path)
            if target.exists() and statement.if_not_exists:
                return StatementResult("skipped", f"{target} exists (IF NOT EXISTS)")
            migrated = self.migrate_plan(self._path(statement.source), target,
                                         where=str(statement.position))
            return StatementResult("migrated", migrated.describe(), migrated.plan)
        if isinstance(statement, ExecutePlan):
            plan = load_plan(self._path(statement.path))
            return StatementResult("executed", statement.path, plan, self.execute_plan(plan))
        if isinstance(statement, ExplainPlan):
            plan = load_plan(self._path(statement.path))
            return StatementResult("explained", explain_plan(plan), plan)
        raise StreamPlanError(f"cannot run statement {type(statement).__name__}")

    def _check_new_relation(self, statement: Union[CreateTable, CreateView], kind: str) -> None:
        """Tables and views share one namespace, as in Flink's catalog."""
        for existing, known in (("table", self.catalog), ("view", self.views)):
            if statement.name in known:
                raise PlanningError(f"{statement.position}: cannot create {kind} "
                                    f"'{statement.name}': a {existing} of that name already "
                                    f"exists")

    def _compile_to_file(self, statement: CompilePlan) -> StatementResult:
        target = self._path(statement.path)
        if target.exists():
            if statement.if_not_exists:
                return StatementResult("skipped", f"{target} exists (IF NOT EXISTS)")
            raise PlanningError(f"{statement.position}: plan file {target} already exists; delete it "
                                f"or write COMPILE PLAN '...' IF NOT EXISTS FOR ...")
        plan = self.compile_plan(statement.target)
        plan.write(target)
        return StatementResult("compiled", str(target), plan)

    def migrate_plan(self, source: str | Path, target: Optional[str | Path] = None,
                     where: str = "") -> MigrationResult:
        """Migrate the plan file `source` to today's node versions (FLIP-190's COMPILE PLAN
        ... FROM ...) and write it to `target` unless None (a dry run). Refuses to overwrite
        `target`."""
        from .migration import migrate_plan_file

        prefix = f"{where}: " if where else ""
        if target is not None and Path(target).exists():
            raise PlanningError(f"{prefix}plan file {target} already exists; delete it or write "
                                f"COMPILE PLAN '...' IF NOT EXISTS FROM '...'")
        result = migrate_plan_file(source)
        if target is not None:
            result.plan.write(target)
        return result

    def _path(self, path: str) -> Path:
        candidate = Path(path.removeprefix("file://"))
        return candidate if candidate.is_absolute() else self.base_dir / candidate

    def _data_path(self, table: str, path: str) -> Path:
        """A table's 'path' option, which a plan file carries: a tampered plan must not read
        files elsewhere (symlinks and '..' resolved before the check)."""
        resolved, base = self._path(path).resolve(), self.base_dir.resolve()
        if not self.allow_paths_outside and not resolved.is_relative_to(base):
            raise PlanningError(
                f"table '{table}': 'path' = '{path}' is {resolved}, outside the base directory "
                f"{base}; keep table data below it, or allow other paths explicitly "
                f"(TableEnvironment(allow_paths_outside=True), streamplan --allow-paths-outside)")
        return resolved

    # --- plans --------------------------------------------------------------------------------
    def compile_plan(self, statement: Union[Insert, StatementSet]) -> CompiledPlan:
        from .functions.spark import function_names_held

        inserts = list(statement.inserts) if isinstance(statement, StatementSet) else [statement]
        builder = PlanBuilder(self.catalog, self.config, SparkTypeResolver(self.session()),
                              functions=dict(self.functions),
                              temporal_functions=dict(self.temporal_functions),
                              views={name: view.query for name, view in self.views.items()})
        try:
            with function_names_held():    # Spark's analyzer types calls of our functions
                self._register_scalar_functions()
                return builder.plan(inserts)
        except RecursionError:
            raise PlanningError(f"{statement.position}: the query's expressions are nested too "
                                f"deeply to plan; split them (e.g. into a subquery)") from None

    def compile_sql(self, sql: str, source: str = "<script>") -> CompiledPlan:
        """Compile the one INSERT or statement set in `sql` (other statements run first)."""
        targets = []
        for statement in parse_script(sql, source):
            if isinstance(statement, (Insert, StatementSet)):
                targets.append(statement)
            else:
                self._run_statement(statement)
        if len(targets) != 1:
            raise PlanningError(f"{source}: expected exactly one INSERT or statement set to "
                                f"compile, found {len(targets)}")
        return self.compile_plan(targets[0])

    def execute_plan(self, plan: CompiledPlan, checkpoint: Optional[Path] = None,
                     output: Optional[Path] = None,
                     data: Optional[dict[str, list[list[FeedRow]]]] = None,
                     end_of_input: bool = True,
                     processing_time_ms: Optional[int] = None,
                     step_times_ms: Optional[list[int]] = None,
                     lookups: Optional[dict[str, list[tuple[Optional[int], list[FeedRow]]]]] = None
                     ) -> RunResult:
        """Run a plan; table data comes from `data` (steps) or each table's 'path' option.
        `processing_time_ms` stops the clock for the run (see PlanExecutor); None: wall clock.
        `step_times_ms` moves that clock step by step (the batch of step n at its time).
        `lookups`: a lookup table's rows as snapshots, (start ms, rows) in time order, each
        holding from its start on (the first from any time); by default its 'path' rows."""
        check_changelog(plan)
        checkpoint = Path(checkpoint or self.checkpoint_dir or tempfile.mkdtemp(prefix="ckpt-"))
        output = Path(output or self.output_dir or tempfile.mkdtemp(prefix="out-"))
        feeds = dict(data or {})
        from_files = {}
        for scan in source_scans(plan):
            name = scan.table.identifier
            if name not in feeds and "path" in scan.table.options:
                from_files[name] = read_rows_file(self._data_path(name, scan.table.options["path"]),
                                                  scan.row_type)
        if from_files:
            feeds.update(phased_steps([from_files], sorted(from_files), end_of_input,
                                      advances_event_time(plan)))
        lookups = dict(lookups or {})
        for node in lookup_joins(plan):
            name = node.temporal_table.identifier
            if name not in lookups and "path" in node.temporal_table.options:
                lookups[name] = [(None, read_rows_file(
                    self._data_path(name, node.temporal_table.options["path"]), node.table_row))]
        return PlanExecutor(plan, self.session(), self.config, processing_time_ms,
                            step_times_ms, lookups).run(checkpoint, output, feeds)


def source_scans(plan: CompiledPlan) -> list:
    from .nodes.source_scan import StreamExecTableSourceScan

    return [node for node in plan.nodes if isinstance(node, StreamExecTableSourceScan)]


def lookup_joins(plan: CompiledPlan) -> list:
    from .nodes.lookup_join import StreamExecLookupJoin

    return [node for node in plan.nodes if isinstance(node, StreamExecLookupJoin)]


def normalize_rows(rows: RowsInput, row_type: RowType, where: str) -> list[FeedRow]:
    """Rows as [values...] (inserts) or {"kind": "+U", "values": [...]}, checked against the schema."""
    from .runtime.rows import to_python

    result: list[FeedRow] = []
    for index, row in enumerate(rows):
        kind, values = RowKind.INSERT, row
        if isinstance(row, dict):
            try:
                kind, values = RowKind.from_short(row.get("kind", "+I")), row["values"]
            except (KeyError, ValueError) as err:
                raise PlanningError(f"{where}: row {index}: {err}") from None
        if len(values) != len(row_type.fields):
            raise PlanningError(f"{where}: row {index} has {len(values)} values, the table has "
                                f"{len(row_type.fields)} columns ({', '.join(row_type.names)})")
        try:
            typed = tuple(to_python(v, f.type) for v, f in zip(values, row_type.fields))
        except ValueError as err:
            raise PlanningError(f"{where}: row {index}: {err}") from None
        result.append((kind, typed))
    return result


def read_rows_file(path: Path, row_type: RowType) -> list[FeedRow]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise PlanningError(f"{path}: cannot read table data: {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise PlanningError(f"{path}: not UTF-8 text (byte {err.start}); table data is JSON "
                            f"text") from None
    rows = parse_json(text, str(path), PlanningError)
    if not isinstance(rows, list):
        raise PlanningError(f"{path}: table data is a JSON list of rows")
    return normalize_rows(rows, row_type, str(path))


def explain_plan(plan: CompiledPlan) -> str:
    """A readable tree of the plan, sinks first, as Flink's EXPLAIN prints it."""
    modes = check_changelog(plan)
    lines = [f"== Compiled plan (engine {plan.engine_version}, Spark {plan.spark_version}) =="]

    printed: set[int] = set()
    # Depth first with an explicit stack: plans deeper than Python's recursion limit print too.
    stack = [(sink, "", "") for sink in reversed(plan.sinks)]
    while stack:
        node, prefix, child_prefix = stack.pop()
        if node.id in printed:      # an input shared by several consumers: printed once
            lines.append(f"{prefix}Reused(#{node.id}, printed above)")
            continue
        printed.add(node.id)
        extras = [f"#{node.id} {node.type}",
                  "changelog=" + ",".join(short_mode_names(modes[node.id]))]
        if node.configuration:
            extras.append(", ".join(f"{k}={v}" for k, v in node.configuration.items()))
        lines.append(f"{prefix}{node.description} [{'; '.join(extras)}]")
        inputs = plan.inputs_of(node)
        for index in reversed(range(len(inputs))):
            last = index == len(inputs) - 1
            stack.append((inputs[index], child_prefix + ("+- " if last else ":- "),
                          child_prefix + ("   " if last else ":  ")))
    return "\n".join(lines) + "\n"
