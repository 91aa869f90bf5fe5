"""A sharded gate: `--shard K/N` runs a deterministic, balanced 1/N of the gate's checks.

* The audit checks (and any test that is not a restore, migration or semantic run) are in
  shard 1: they are cheap and global.
* The restores, migrations and semantic runs are split by a cost every checkout can compute
  the same way, from the programs alone (no fixture manifest, no earlier JUnit times): a
  run costs one (starting the query) plus one per micro-batch step it feeds in the row
  shape, i.e. the longest source's row count of each phase it feeds (a restore or a
  migration feeds the after-restore phase, a semantic run both phases).
* Greedy: the costliest test first (ties by test id) to the lightest shard (ties by the
  lower shard number). Every machine computes the same split; every test is in exactly one
  shard; the costliest shard costs at most the mean plus the costliest test.

harness.pytest_plugin applies it for `--gate-shard K/N` (`ci/gate --shard K/N`, `harness gate
--shard K/N`); `harness report merge` (harness.report_merge) puts the shards' JUnit back
together.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping

from .errors import HarnessError
from .steps import ClockAdvance

SHARD_PROPERTY = "gate-shard"          # the JUnit testsuite property a shard's report carries
_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardError(HarnessError):
    """A --shard value that is not K/N with 1 <= K <= N."""


@dataclass(frozen=True, order=True)
class Shard:
    index: int          # 1..count
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """'2/4' -> Shard(2, 4); anything else is a ShardError naming the value."""
    match = _SHARD.match(text) if isinstance(text, str) else None
    if match is None:
        raise ShardError(f"--shard {text!r}: expected K/N, e.g. 1/4 (the first of four shards)")
    index, count = int(match[1]), int(match[2])
    if count < 1 or not 1 <= index <= count:
        raise ShardError(f"--shard {text!r}: K must be between 1 and N (N at least 1), "
                         f"e.g. 1/{max(count, 1)} to {max(count, 1)}/{max(count, 1)}")
    return Shard(index, count)


def program_steps(program, phases: Iterable[str] = ("before", "after")) -> int:
    """A program's micro-batch steps in the row shape: per phase, its longest source's rows."""
    steps = 0
    for phase in phases:
        lengths = [sum(not isinstance(row, ClockAdvance)
                       for row in (source.rows_before if phase == "before" else source.rows_after))
                   for source in program.sources.values()]
        steps += max(lengths, default=0)
    return steps


def run_cost(suite: str, program) -> int:
    """The cost model of one gate run: 1 (the query's start) + its micro-batch steps; 1 when
    the program is unknown (its test fails on its own)."""
    if program is None:
        return 1
    phases = ("before", "after") if suite == "semantic" else ("after",)
    return 1 + program_steps(program, phases)


def split(costs: Mapping[str, float], count: int,
          pinned: Iterable[str] = ()) -> dict[str, int]:
    """Test id -> shard number (1..count). `pinned` tests go to shard 1 and weigh nothing;
    the others, costliest first (ties by id), each to the lightest shard (ties: lower
    number)."""
    if count < 1:
        raise ShardError(f"a gate is split into at least one shard, not {count}")
    assigned = {test: 1 for test in pinned}
    loads = [0.0] * count
    for test in sorted((t for t in costs if t not in assigned), key=lambda t: (-costs[t], t)):
        lightest = min(range(count), key=lambda i: (loads[i], i))
        loads[lightest] += costs[test]
        assigned[test] = lightest + 1
    return assigned

