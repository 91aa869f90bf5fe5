"""Run a program's SQL through streamplan: set up the environment, compile, feed the phases,
and check every sink against the program's expectations.

The three modes feed the same phases, so they see the same micro-batches:
    generate = [before]            (no end of input; the checkpoint stops right after it)
    restore  = [before, after] + end of input, from the generated checkpoint
    semantic = [before, after] + end of input, from a fresh checkpoint
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable, Literal, Optional, TypeVar

from streamplan.testing import (ChangelogRow, CompiledPlan, ExecutionError, RunResult,
                                StreamPlanError, TableEnvironment, advances_event_time,
                                load_plan, lookup_joins, one_chain_in_arrival_order,
                                phased_steps, source_scans, step_layout, step_times)

from .batches import chunk_sizes, other_shape
from .compare import materialized_view, order_diff, rows_diff, view_of_texts
from .discovery import check_runnable
from .errors import ExpectationMismatch, ProgramError, RefusalMismatch
from .program import TableTestProgram
from .waiting import consumed_steps, short_sinks, stopped_clock_ms, wait_clock

T = TypeVar("T")

# The harness's test clock: processing time stands still at this instant in fresh runs
# (generate, semantic), and at the checkpoint's last batch time in restores, so state TTL
# and every batch stamp come out the same whenever a program runs (2024-01-01T00:00:00Z).
TEST_CLOCK_START_MS = 1_704_067_200_000
Phase = Literal["before", "after"]
Stage = Literal["before", "after", "all"]   # which expectations a run's output must meet


def default_spark(spark=None):
    if spark is not None:
        return spark
    from streamplan.testing import spark_session

    return spark_session()


def program_environment(program: TableTestProgram, spark=None,
                        program_config: bool = True) -> TableEnvironment:
    """A fresh environment holding the program's tables, and its config unless
    `program_config` is False: then the session sets none of the program's options. The
    options a program is planned with (`planned_before`) come after its own config steps."""
    check_runnable(program)
    env = TableEnvironment(spark=default_spark(spark))
    try:
        options = [(step.key, step.value) for step in program.config_steps] \
            + list(program.planned_with)
        for key, value in options if program_config else ():
            env.config.set(key, value)
        for function in program.function_steps:
            register = (env.create_temporary_system_function if function.temporary_system
                        else env.create_function)
            register(function.name, function.implementation)
        env.execute_sql(program.setup_script(), source=f"program {program.id}")
        for step in program.temporal_function_steps:          # over the tables just created
            env.create_temporary_system_temporal_table_function(
                step.name, step.table, step.time_attribute, step.primary_key)
    except StreamPlanError as err:
        raise ProgramError(f"program {program.id}: {err}") from None
    return env


def compile_program(program: TableTestProgram, spark=None) -> tuple[TableEnvironment, CompiledPlan]:
    env = program_environment(program, spark)
    try:
        plan = env.compile_sql(program.run_step.text(), source=f"program {program.id}")
    except StreamPlanError as err:
        raise ProgramError(f"program {program.id}: {err}") from None
    return env, plan


def run_phases(env: TableEnvironment, plan: CompiledPlan, program: TableTestProgram,
               phases: list[Phase], end_of_input: bool, checkpoint: Path,
               output: Optional[Path] = None, shape: Optional[str] = None,
               resumed_shape: Optional[str] = None) -> RunResult:
    """Feed the sources' rows of `phases` (typed by the plan's scans) through `plan`, grouped
    into micro-batches of `shape` (by default the program's own, harness.batches); with
    `resumed_shape`, the phases after the first in that shape (the first keeps its own, so
    a checkpoint taken at its end resumes at the same step)."""
    row_types = {scan.table.identifier: scan.row_type for scan in source_scans(plan)}
    missing = sorted(set(row_types) - set(program.sources))
    if missing:
        raise ProgramError(f"program {program.id}: the plan reads table(s) {', '.join(missing)} "
                           f"that the program declares no source step for")
    data = [{table: program.sources[table].feed_rows(phase, row_type)
             for table, row_type in row_types.items()} for phase in phases]
    tables, event_time = sorted(row_types), advances_event_time(plan)
    advances = [(index, at, ms) for index, phase in enumerate(phases)
                for at, ms in program.clock_advances(phase, tables)]
    lengths = [max((len(phase[table]) for table in tables), default=0) for phase in data]
    cuts = [{at for index_, at, _ in advances if index_ == index} for index in range(len(data))]
    chunks = chunk_sizes(shape or program.batch_shape, lengths, cuts, seed=program.id)
    if resumed_shape is not None:
        resumed = chunk_sizes(resumed_shape, lengths, cuts, seed=program.id) or {}
        chunks = ({index: sizes for index, sizes in (chunks or {}).items() if index == 0}
                  | {index: sizes for index, sizes in resumed.items() if index > 0})
    steps = phased_steps(data, tables, end_of_input, event_time, chunks)
    layout = step_layout(data, tables, end_of_input, event_time, chunks)
    times = program_step_times(program, layout, advances)
    lookups = lookup_snapshots(plan, program, phases, advances)
    wait = wait_clock(plan)
    consumed = consumed_steps(checkpoint) if wait is not None else 0
    with tempfile.TemporaryDirectory(prefix="harness-out-") as scratch:
        def execute(times: Optional[list[int]]) -> RunResult:
            return env.execute_plan(plan, checkpoint=checkpoint, output=output or Path(scratch),
                                    data=steps, lookups=lookups,
                                    processing_time_ms=TEST_CLOCK_START_MS, step_times_ms=times)

        if wait is None:
            return execute(times)
        first_phase = sum(1 for step in layout if step.phase == 0)
        if times is None:     # the clock stands still: where it stands, as a list to extend
            times = [stopped_clock_ms(checkpoint) or TEST_CLOCK_START_MS] * len(layout)
        if len(phases) > 1 and consumed > first_phase:   # the generating run's wait ticks
            add_ticks(steps, times, first_phase, consumed - first_phase, wait.step_ms)
        result = execute(times)
        stage = "before" if phases == ["before"] else "after" if consumed else "all"
        for _ in range(wait.ticks):
            if not short_sinks(program, {name: len(sink.rows) for name, sink
                                         in result.sinks.items()}, stage):
                break
            add_ticks(steps, times, len(times), 1, wait.step_ms)
            for name, sink in execute(times).sinks.items():
                result.sinks[name].rows.extend(sink.rows)
        return result


def add_ticks(steps: dict[str, list[list]], times: list[int], at: int, count: int,
              step_ms: int) -> None:
    """`count` wait ticks (empty steps of every table) at step index `at`, each `step_ms`
    after the step before it (harness.waiting)."""
    for table_steps in steps.values():
        table_steps[at:at] = [[] for _ in range(count)]
    times[at:at] = [times[at - 1] + step_ms * (n + 1) for n in range(count)]


def lookup_snapshots(plan: CompiledPlan, program: TableTestProgram, phases: list[Phase],
                     advances: list[tuple[int, int, int]]) -> dict[str, list]:
    """Each lookup table's rows of each phase, holding from the phase's first processing time
    on: the external table a lookup join reads holds its before-restore rows, then its
    after-restore rows (Flink's restore tests initialise it so for each run)."""
    snapshots: dict[str, list] = {}
    for node in lookup_joins(plan):
        table = node.temporal_table.identifier
        if table in snapshots:
            continue
        if table not in program.sources:
            raise ProgramError(f"program {program.id}: the plan looks up table '{table}', which "
                               f"the program declares no source step for")
        for index, phase in enumerate(phases):
            start = TEST_CLOCK_START_MS + sum(ms for at_phase, at, ms in advances
                                              if at_phase < index or (at_phase == index and at == 0))
            previous = snapshots.setdefault(table, [])
            if previous and start <= previous[-1][0]:
                raise ProgramError(
                    f"program {program.id}: lookup table '{table}' holds other rows in phase "
                    f"'{phase}', but processing time does not move where that phase starts, so "
                    f"no lookup could tell the two apart; begin the phase with "
                    f"advance_processing_time(...) in a source the query reads")
            previous.append((start, program.sources[table].feed_rows(phase, node.table_row)))
    return snapshots


def program_step_times(program: TableTestProgram, layout: list,
                       advances: list[tuple[int, int, int]]) -> Optional[list[int]]:
    """The processing time of every step when the program moves the clock
    (`advance_processing_time`), counted from TEST_CLOCK_START_MS over both phases, so a
    restore's steps are at the times the semantic run gives them; None when it never moves
    (the clock stands still, as for every program before clock steps existed)."""
    if not any(program.clock_advances(phase) for phase in ("before", "after")):
        return None
    return step_times(layout, TEST_CLOCK_START_MS, advances)


# Spark waits a fixed 10 s for a new Python worker to connect back; on an oversubscribed
# machine a cold worker misses that. Such a failure says nothing about the plan or the
# fixture, so a run that hit it is repeated once, from scratch (callers pass a fresh start).
_WORKER_START_FAILURES = ("Python worker failed to connect back", "CANNOT_OPEN_SOCKET")


def retry_worker_start(attempt: Callable[[], T]) -> T:
    try:
        return attempt()
    except ExecutionError as err:
        if not any(marker in str(err) for marker in _WORKER_START_FAILURES):
            raise
    return attempt()


def check_outputs(program: TableTestProgram, result: RunResult, stage: Stage,
                  prior: Optional[dict[str, list[ChangelogRow]]] = None) -> None:
    """Compare every sink with the expectations of `stage`; `prior` holds the rows a
    restored sink received before the restore (a materialized view needs them)."""
    label = {"before": "before restore", "after": "after restore", "all": "all data"}[stage]
    diffs = []
    for name, sink in sorted(program.sinks.items()):
        output = result.sinks.get(name)
        if output is None:
            raise ProgramError(f"program {program.id}: sink '{name}' is declared but the plan "
                               f"does not write it")
        where = f"program {program.id}, sink '{name}', {label}"
        if sink.materialized:
            rows = list((prior or {}).get(name, [])) + output.rows
            actual = materialized_view(rows, sink.key_indexes(), output.node.row_type, where)
            expected = sink.expected_before if stage == "before" else sink.expected_after
        else:
            actual = output.texts
            expected = {"before": sink.expected_before, "after": sink.expected_after,
                        "all": sink.expected_before + sink.expected_after}[stage]
        diff = rows_diff(list(expected), actual)
        if diff is None and not sink.materialized:
            diff = order_diff(list(expected), actual, sink.key_indexes())
        if diff is not None:
            mode = "materialized view" if sink.materialized else "changelog"
            diffs.append(f"sink '{name}' ({mode}):\n{diff}")
    if diffs:
        raise ExpectationMismatch(f"program {program.id}, {label}", "\n".join(diffs))


def run_semantic(program: TableTestProgram, spark=None) -> RunResult:
    """All data in one run without a restore, checked against the before + after
    expectations — in another batch shape than the program's fixtures (batch invariance),
    unless the plan has event time (Spark advances watermarks at batch boundaries, so
    event-time results depend on them by design). The changelog must match where it cannot
    depend on the batches (`changelog_batch_invariant`): at most one stateful node (the values
    source reads a batch as one partition in arrival order, so the first keyed node sees each
    key's rows in order; a second one sees its upstream keys interleaved by partition within
    a batch, as a Flink operator sees its upstream subtasks), or keyed nodes one after another
    that take their input in Flink's arrival order. Elsewhere the materialized result must
    match."""
    env, plan = compile_program(program, spark)
    if program.planned_before is not None:
        plan = fixture_plan(program)
    shape = program.batch_shape if advances_event_time(plan) else other_shape(
        program.batch_shape, program.id)

    def attempt() -> RunResult:
        with tempfile.TemporaryDirectory(prefix="harness-semantic-") as work:
            return run_phases(env, plan, program, ["before", "after"], True,
                              Path(work) / "checkpoint", shape=shape)

    result = retry_worker_start(attempt)
    if shape == program.batch_shape or changelog_batch_invariant(plan, env.config):
        check_outputs(program, result, "all")
    else:
        check_views(program, result, f"{shape} batches")
    return result


def fixture_plan(program: TableTestProgram) -> CompiledPlan:
    """The plan of the program's fixture of the pinned Spark (`planned_before`)."""
    from .fixtures import DEFAULT_SNAPSHOTS
    from .generate import existing_fixture

    fixture = existing_fixture(program, DEFAULT_SNAPSHOTS)
    if fixture is None:
        raise ProgramError(f"program {program.id}: its semantic run takes its fixture's plan "
                           f"(planned_before: {program.planned_before}), and it has no fixture; "
                           f"run `harness generate --program {program.id}`")
    return load_plan(fixture.plan_path)


def changelog_batch_invariant(plan: CompiledPlan, config) -> bool:
    """Whether the plan's changelog cannot depend on how its rows are cut into micro-batches
    (event time aside: see run_semantic): every node's changelog batch-invariant
    (`CHANGELOG_BATCH_INVARIANT`), and at most one stateful node, or keyed nodes one after
    another in Flink's arrival order (streamplan/nodes/arrival_order.py)."""
    if not all(node.CHANGELOG_BATCH_INVARIANT for node in plan.nodes):
        return False
    stateful = [node for node in plan.nodes if node.state or node.arity == 2]
    return len(stateful) <= 1 or one_chain_in_arrival_order(plan, config)


def check_refused(program: TableTestProgram, spark=None) -> None:
    """A FAILING_PROGRAMS program: compiling its statement raises the error it names, with
    its message (Flink's runFailingSql)."""
    refusal = program.refusal
    env = program_environment(program, spark)
    wanted = f"{refusal.error.__name__} containing {refusal.message!r}"
    try:
        env.compile_sql(refusal.sql, source=f"program {program.id}")
    except Exception as err:         # any error is compared with the expected one
        if isinstance(err, refusal.error) and refusal.message in str(err):
            return
        raise RefusalMismatch(f"program {program.id}: its statement must fail with {wanted}, "
                              f"but it failed with {type(err).__name__}: {err}") from None
    raise RefusalMismatch(f"program {program.id}: its statement must fail with {wanted}, but "
                          f"it compiled")


def check_views(program: TableTestProgram, result: RunResult, label: str) -> None:
    """Every sink's materialized result equals the one its expected changelog gives."""
    diffs = []
    for name, sink in sorted(program.sinks.items()):
        where = f"program {program.id}, sink '{name}', {label}"
        output = result.sinks[name]
        actual = view_of_texts(output.texts, sink.key_indexes(), where)
        expected = (list(sink.expected_after) if sink.materialized else
                    view_of_texts(list(sink.expected_before + sink.expected_after),
                                  sink.key_indexes(), where))
        diff = rows_diff(expected, actual)
        if diff is not None:
            diffs.append(f"sink '{name}' (materialized result):\n{diff}")
    if diffs:
        raise ExpectationMismatch(f"program {program.id}, {label}", "\n".join(diffs))
