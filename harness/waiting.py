"""Waiting for a phase's rows, as Flink's restore tests wait on the wall clock.

Flink's RestoreTestBase feeds a phase's rows, then waits until every sink holds as many rows
as the phase expects, and only then takes the savepoint (or ends the test). A processing-time
window fires when the wall clock passes its end, so Flink's expected rows for such windows
count on that wait: a window fires during it, and a later one does not, because the test
stopped first. The harness's clock stands still within a phase; where the plan has
processing-time windows and a changelog sink is still short of its phase's rows, the clock
moves on instead, one wait tick (an empty micro-batch) at a time, until the sinks have their
rows or the longest window has passed. A tick is a step of the feed: a restore finds the
generating run's ticks in the checkpoint (its source offset) and lays them out again before
the after-restore rows, so the after-restore steps start where the checkpoint stopped.
"""
from __future__ import annotations

from functools import reduce
from math import gcd
from pathlib import Path
from typing import NamedTuple, Optional

from streamplan.testing import CompiledPlan, last_batch_time_ms, last_log_entry

from .program import TableTestProgram

_SINK_QUERIES = "sink-*"


class WaitClock(NamedTuple):
    """How the clock moves while waiting: `step_ms` a tick, at most `ticks` ticks a phase."""

    step_ms: int
    ticks: int


def wait_clock(plan: CompiledPlan) -> Optional[WaitClock]:
    """The plan's processing-time windows decide: a tick is the gcd of their slides (so a
    tick crosses one window end of each at most) and the wait lasts until the longest has
    passed; None when the plan has no processing-time window (nothing fires by waiting)."""
    assigners = [node.windowing.window.assigner() for node in plan.nodes
                 if getattr(node, "time_mode", None) == "ProcessingTime"
                 and hasattr(getattr(node, "windowing", None), "window")
                 and not node.windowing.window.is_session]
    if not assigners:
        return None
    step = reduce(gcd, (assigner.slide for assigner in assigners))
    return WaitClock(step, max(assigner.size for assigner in assigners) // step + 1)


def short_sinks(program: TableTestProgram, counts: dict[str, int], expected: str) -> list[str]:
    """The changelog sinks holding fewer rows than the `expected` stage ('before', 'after' or
    'all') asks for. A materialized sink's rows are a view, not a count Flink's test waits on."""
    short = []
    for name, sink in sorted(program.sinks.items()):
        if sink.materialized:
            continue
        wanted = {"before": sink.expected_before, "after": sink.expected_after,
                  "all": sink.expected_before + sink.expected_after}[expected]
        if counts.get(name, 0) < len(wanted):
            short.append(name)
    return short


def consumed_steps(checkpoint: Path) -> int:
    """How many feed steps the checkpoint's queries have read: the values source's offset in
    each sink query's last offsets entry ({"step": n}; 0 for a fresh checkpoint)."""
    consumed = 0
    for query in sorted(Path(checkpoint).glob(_SINK_QUERIES)):
        entry = last_log_entry(query / "offsets")
        for source in entry.sources if entry is not None else ():
            if isinstance(source, dict) and isinstance(source.get("step"), int):
                consumed = max(consumed, source["step"])
    return consumed


def stopped_clock_ms(checkpoint: Path) -> Optional[int]:
    """Where a resumed run's standing clock stands: the checkpoint's last batch time (None for
    a fresh checkpoint), as streamplan's executor resumes it."""
    stamps = [last_batch_time_ms(query) for query in sorted(Path(checkpoint).glob(_SINK_QUERIES))]
    return max((stamp for stamp in stamps if stamp is not None), default=None)
