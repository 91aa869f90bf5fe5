"""Execute a compiled plan: translate its nodes to one Spark streaming query per sink, feed
the values sources step by step, and run until every step (and every timer) is processed.

Executing a plan never re-plans SQL: it only reads the plan's nodes.
"""
from __future__ import annotations

import contextlib

import logging
import re
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, NamedTuple, Optional

from .changelog import END_OF_INPUT, FeedRow
from .checkpoints import (CHECKPOINT_MARKER, check_restorable, last_batch_time_ms, write_marker,
                          written_by)
from .errors import ExecutionError, PlanFormatError
from .nodes import ExecNode, TranslateContext
from .nodes.sink import StreamExecSink
from .nodes.source_scan import StreamExecTableSourceScan
from .nodes.values import StreamExecValues
from .nodes.calc import StreamExecCalc
from .nodes.watermark_assigner import StreamExecWatermarkAssigner
from .options import Configuration
from .plan import CompiledPlan
from .runtime.changelog_sink import ChangelogRow, batch_file_writer, batch_ids, read_batches
from .runtime.manual_clock import StepTimes, manual_clock, start_at
from .runtime.values_source import write_feed

log = logging.getLogger("streamplan.executor")


def phased_steps(phases: list[dict[str, list[FeedRow]]], tables: list[str],
                 end_of_input: bool, event_time: bool = True,
                 chunks: Optional[dict[int, list[int]]] = None) -> dict[str, list[list[FeedRow]]]:
    """Micro-batch steps of every table, aligned across tables.

    Each row is its own step (so watermarks advance row by row, as Flink's per-record
    watermarks do); within a phase the i-th rows of all tables share a step. Every phase
    ends with an empty tick step, so timers due at the phase's last watermark fire before
    it ends; at end of input the marker rides in the last phase's last step instead (it is
    dropped right after the watermark assigner, so the step's rows run at the watermark
    they would run at alone) and one tick follows, at the end of time: it fires every timer
    still due, those of the phase's last watermark first, in timestamp order, as Flink's
    final watermark does after the last one. No-data batches are disabled, so the same
    data always gives the same batches.

    `event_time=False` says the plan has no event time (`advances_event_time`): then no step
    without rows can fire a timer or emit a row, so at end of input the last phase ends with
    its last row (it keeps its tick only when it has no rows, so a run resumed where the
    phase before it ended still runs a batch on the restored state) and no end-of-input
    steps follow. Steps before the last phase are the same either way, so a checkpoint
    taken at the end of an earlier phase resumes at the same step.

    `chunks` reshapes micro-batches: for a phase, the sizes of consecutive groups of its row
    positions, each group one step (the i-th rows of every table together, in order); a
    phase without an entry has one position a step.
    """
    layout = step_layout(phases, tables, end_of_input, event_time, chunks)
    steps: dict[str, list[list[FeedRow]]] = {table: [] for table in tables}
    for step in layout:
        for table in tables:
            if step.phase == len(phases):                  # end of input, then a tick
                steps[table].append([END_OF_INPUT] if step.at == 0 else [])
            else:
                rows = phases[step.phase].get(table, [])
                steps[table].append(list(rows[step.at:step.at + step.rows])
                                    + ([END_OF_INPUT] if step.end else []))
    return steps


class Step(NamedTuple):
    """One micro-batch of a phased feed: the rows at positions [at, at + rows) of phase
    `phase` (rows = 0: the phase's closing tick, at its length), followed by the end-of-input
    marker when `end`. Phase len(phases) is the end of input: at 0 the marker alone (when
    the last phase has no rows), at 1 the tick after it."""

    phase: int
    at: int
    rows: int
    end: bool = False


def step_layout(phases: list[dict[str, list]], tables: list[str], end_of_input: bool,
                event_time: bool = True,
                chunks: Optional[dict[int, list[int]]] = None) -> list[Step]:
    """The steps `phased_steps` makes: each phase's rows (one position a step, or the phase's
    `chunks`), then its closing tick; then the end of input."""
    layout: list[Step] = []
    trim_end = end_of_input and not event_time
    for index, phase in enumerate(phases):
        length = max((len(phase.get(table, [])) for table in tables), default=0)
        sizes = (chunks or {}).get(index) or [1] * length
        if sum(sizes) != length or any(size < 1 for size in sizes):
            raise ValueError(f"phase {index} has {length} row position(s); chunks {sizes} "
                             f"must be positive and add up to it")
        at = 0
        for size in sizes:
            layout.append(Step(index, at, size))
            at += size
        if not end_of_input or index < len(phases) - 1 or (trim_end and length == 0):
            layout.append(Step(index, length, 0))          # the closing tick
        elif not trim_end and length:
            # The last rows carry the marker: the tick at the end of time closes the phase.
            layout[-1] = layout[-1]._replace(end=True)
        elif not trim_end:
            layout.append(Step(len(phases), 0, 0))         # no rows: the marker alone
    if end_of_input and not trim_end:
        layout.append(Step(len(phases), 1, 0))
    return layout


ClockAdvance = tuple[int, int, int]     # (phase index, position from which on, milliseconds)


def step_times(layout: list[Step], start_ms: int, advances: list[ClockAdvance]) -> list[int]:
    """The processing time of every step: `start_ms` plus every advance at or before its
    first position (an advance at (phase, position) moves the clock for the step holding
    that position and all later ones; chunks must not straddle one)."""
    times = []
    for step in layout:
        inside = [at for at_phase, at, _ in advances
                  if at_phase == step.phase and step.at < at < step.at + step.rows]
        if inside:
            raise ValueError(f"a clock advance at position {inside[0]} of phase {step.phase} "
                             f"falls inside a micro-batch of positions {step.at} to "
                             f"{step.at + step.rows - 1}; split the chunks there")
        times.append(start_ms + sum(ms for at_phase, at, ms in advances
                                    if at_phase < step.phase
                                    or (at_phase == step.phase and at <= step.at)))
    return times


def advances_event_time(plan: CompiledPlan) -> bool:
    """Whether a step without rows can make the plan emit: only a watermark assigner moves
    event time (and carries the end-of-input marker), and only event-time timers fire
    without input. Processing time is not a reason: no node registers processing-time
    timers, and state TTL expires state without emitting."""
    return any(isinstance(node, StreamExecWatermarkAssigner) for node in plan.nodes)


@dataclass
class SinkOutput:
    table: str
    node: StreamExecSink
    rows: list[ChangelogRow]                     # rows this run produced

    @property
    def texts(self) -> list[str]:
        return [row.text(self.node.row_type) for row in self.rows]


@dataclass
class RunResult:
    sinks: dict[str, SinkOutput] = field(default_factory=dict)


class PlanExecutor:
    """Runs one plan against a checkpoint directory and an output directory.

    Processing time (state TTL, PROCTIME, the batch stamps in the checkpoint) is the wall
    clock unless `processing_time_ms` is given: then it stands still for the whole run, at
    the time of the sink query's last micro-batch when its checkpoint has one (a restore
    continues where the checkpoint stopped, however long ago that was), else at
    `processing_time_ms`. Tests use it so that outcomes never depend on when they run.
    `step_times_ms` (with `processing_time_ms`) moves that clock batch by batch instead:
    the batch reading step n is stamped `step_times_ms[n]` (`step_times`).
    """

    def __init__(self, plan: CompiledPlan, spark, config: Optional[Configuration] = None,
                 processing_time_ms: Optional[int] = None,
                 step_times_ms: Optional[list[int]] = None,
                 lookups: Optional[dict[str, list[tuple[Optional[int], list[FeedRow]]]]] = None):
        if step_times_ms is not None and processing_time_ms is None:
            raise ValueError("step_times_ms needs a manual clock: give processing_time_ms too")
        self.plan = plan
        self.spark = spark
        self.config = config or Configuration()
        self.processing_time_ms = processing_time_ms
        self.step_times_ms = step_times_ms
        self.lookups = dict(lookups or {})   # lookup table -> [(start ms, rows)], time order

    def run(self, checkpoint: Path, output: Path, feeds: dict[str, list[list[FeedRow]]],
            on_progress: Optional[Callable[[str, int], None]] = None) -> RunResult:
        checkpoint, output = Path(checkpoint), Path(output)
        self._check_checkpoint(checkpoint)
        with tempfile.TemporaryDirectory(prefix="streamplan-feeds-") as feed_dir:
            feed_files = self._write_feeds(Path(feed_dir), feeds)
            ctx = TranslateContext(self.spark, self.config, feed_files,
                                   self._scans_feeding_watermarks(), plan=self.plan,
                                   lookups=self.lookups)
            frames: dict[int, object] = {}
            result = RunResult()
            for sink in self.plan.sinks:
                result.sinks[sink.table.identifier] = self._run_sink(
                    sink, ctx, frames, checkpoint, output, on_progress)
        return result

    # --- checkpoint identity ------------------------------------------------------------------
    def _check_checkpoint(self, checkpoint: Path) -> None:
        """Checkpoints record the engine that wrote them; min_state_version guards restores."""
        if not (checkpoint / CHECKPOINT_MARKER).exists():
            write_marker(checkpoint)
            state = "a new checkpoint"
        else:
            check_restorable(self.plan.nodes, checkpoint, f"checkpoint {checkpoint}")
            state = f"restoring a checkpoint of engine {written_by(checkpoint)}"
        for node in self.plan.nodes:
            log.info("node %s: executes %s (plan of engine %s; %s)", node.id, node.type,
                     self.plan.engine_version, state)

    # --- sources ------------------------------------------------------------------------------
    def _write_feeds(self, directory: Path, feeds: dict[str, list[list[FeedRow]]]) -> dict[str, str]:
        files = {}
        for scan in self.plan.nodes:
            if not isinstance(scan, StreamExecTableSourceScan):
                continue
            name = scan.table.identifier
            steps = feeds.get(name)
            if steps is None:
                continue
            path = directory / f"{re.sub(r'[^A-Za-z0-9_]', '_', name)}-{scan.id}.arrow"
            write_feed(path, scan.row_type, steps)
            files[name] = str(path)
        for node in self.plan.nodes:          # VALUES clauses: their tuples, in one step
            if isinstance(node, StreamExecValues):
                path = directory / f"values-{node.id}.arrow"
                write_feed(path, node.row_type, node.feed_steps())
                files[node.feed_name] = str(path)
        return files

    def _scans_feeding_watermarks(self) -> set[int]:
        """Scans whose rows reach a watermark assigner keep the end-of-input marker."""
        keep = set()
        for scan in self.plan.nodes:
            if not isinstance(scan, StreamExecTableSourceScan):
                continue
            node: ExecNode = scan
            while True:
                consumers = self.plan.consumers_of(node)
                if len(consumers) != 1:
                    break
                node = consumers[0]
                if isinstance(node, StreamExecWatermarkAssigner):
                    keep.add(scan.id)
                    break
                if not isinstance(node, StreamExecCalc):
                    break
        return keep

    # --- translation and running --------------------------------------------------------------
    def _frame(self, node: ExecNode, ctx: TranslateContext, frames: dict):
        from pyspark.errors import PySparkException

        if node.id not in frames:
            inputs = [self._frame(producer, ctx, frames) for producer in self.plan.inputs_of(node)]
            try:
                frames[node.id] = node.translate(ctx, inputs)
            except PySparkException as err:
                raise ExecutionError(f"node {node.id} ('{node.type}', {node.description}) cannot "
                                     f"be translated to Spark: {_root_message(err)}") from None
        return frames[node.id]

    def _run_sink(self, sink: StreamExecSink, ctx, frames, checkpoint: Path, output: Path,
                  on_progress) -> SinkOutput:
        from pyspark.errors import StreamingQueryException

        table = sink.table.identifier
        directory = output / table
        before = set(batch_ids(directory))
        frame = self._frame(sink, ctx, frames)
        query_dir = checkpoint / f"sink-{sink.id}"
        # Query names are unique per session: several plans may run at once (the gate does).
        writer = (frame.writeStream.queryName(f"sink_{sink.id}_{uuid.uuid4().hex[:8]}")
                  .option("checkpointLocation", str(query_dir))
                  .trigger(processingTime="0 seconds"))
        writer._jwrite.foreachBatch(batch_file_writer(self.spark, directory))
        with contextlib.ExitStack() as clock_scope:
            if self.processing_time_ms is None:
                query = writer.start()
            else:
                resumed = last_batch_time_ms(query_dir)
                clock = manual_clock(self.spark, self.processing_time_ms if resumed is None
                                     else resumed)
                if self.step_times_ms is not None:
                    clock_scope.enter_context(StepTimes(self.spark, clock, list(ctx.feeds.values()),
                                                        self.step_times_ms))
                query = start_at(writer, clock)
            try:
                query.processAllAvailable()
            except StreamingQueryException as err:
                raise ExecutionError(f"query for table sink '{table}' (node {sink.id}) failed: "
                                     f"{_root_message(err)}") from None
            finally:
                query.stop()
        if on_progress:
            on_progress(table, len(query.recentProgress))
        new_ids = [batch for batch in batch_ids(directory) if batch not in before]
        return SinkOutput(table, sink, read_batches(directory, sink.row_type, new_ids))


# Error classes that only wrap the real cause.
_WRAPPERS = {"STREAM_FAILED", "FOREACH_BATCH_USER_FUNCTION_ERROR"}
_ERROR_CLASS = re.compile(r"\[([A-Z_]+(?:\.[A-Z_]+)?)\]\s*(.*?)\s*(?:SQLSTATE|\n|$)", re.S)


def _root_message(err: Exception) -> str:
    """The error class and message of the root cause, without wrappers or JVM frames."""
    text = str(err)
    for match in _ERROR_CLASS.finditer(text):
        if match.group(1) not in _WRAPPERS:
            message = match.group(2).strip()
            return message if match.group(1) == "USER_RAISED_EXCEPTION" else \
                f"[{match.group(1)}] {message}"
    python = re.search(r"PythonException:\s*(.*)", text, re.S)
    if python:
        # the exception line that ends the Python worker's traceback, not its banner
        raised = re.findall(r"^([A-Za-z_.]*(?:Error|Exception|Exit)\b.*)$", python.group(1), re.M)
        return raised[0].strip() if raised else python.group(1).strip().splitlines()[0]
    return text.strip().splitlines()[0] if text.strip() else type(err).__name__


def sink_nodes(plan: CompiledPlan) -> list[StreamExecSink]:
    sinks = [node for node in plan.sinks if isinstance(node, StreamExecSink)]
    if len(sinks) != len(plan.sinks):
        raise PlanFormatError("every path of a plan must end in a stream-exec-sink node")
    return sinks
