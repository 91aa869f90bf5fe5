"""Tiny programs and registry doubles for the harness tests (few rows: each row is a batch)."""
from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import Field

from programs.calc import CALC_PROGRAM, calc_program  # noqa: F401 (re-exported)
from programs.interval_join import JOIN_PROGRAM  # noqa: F401 (re-exported)
from harness.discovery import discover_programs
from streamplan.nodes import NODE_CLASSES
from streamplan.nodes.calc import StreamExecCalc
from streamplan.nodes.interval_join import StreamExecIntervalJoin
from streamplan.nodes.join import StreamExecJoin
from streamplan.nodes.metadata import Registry, exec_node
from streamplan.options import INTERVAL_JOIN_MIN_CLEANUP_INTERVAL, STATE_TTL


GATE_PROGRAMS = "gate_programs"      # tests/gate_programs: each node's TINY program
PROGRAMS = discover_programs(GATE_PROGRAMS)


# --- registry doubles: today's classes, with one node swapped for a changed one -----------------

# The interval join doubles serve both versions, as StreamExecIntervalJoin does.
INTERVAL_JOIN_V2 = exec_node(name="stream-exec-interval-join", version=2, min_plan_version="0.3",
                             min_state_version="0.3",
                             consumed_options=(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL.key,))


@INTERVAL_JOIN_V2
@exec_node(name="stream-exec-interval-join", version=1, min_plan_version="0.1", min_state_version="0.1",
           consumed_options=(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL.key,))
class RenamedStateJoin(StreamExecIntervalJoin):
    """Same name and version 1, but a state variable renamed: a break without a bump.
    Version 2 is today's."""

    def state_layout(self, inputs):
        layout = super().state_layout(inputs)
        if self.version == 1:
            layout["left-rows"] = layout.pop("left-cache")
        return layout


@INTERVAL_JOIN_V2
@exec_node(name="stream-exec-interval-join", version=1, min_plan_version="0.1", min_state_version="0.1",
           consumed_options=(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL.key,))
class RebucketedJoin(StreamExecIntervalJoin):
    """Same name and version 2, but join keys spread over other buckets: the state a
    checkpoint holds per bucket no longer belongs to the bucket that reads it. Version 1 is
    today's."""

    def state_layout(self, inputs):
        layout = super().state_layout(inputs)
        if self.version == 2:
            layout["join-state"]["grouping"] = "pmod(hash(join key), 2048)"
        return layout


@exec_node(name="stream-exec-calc", version=1, min_plan_version="0.1", min_state_version="0.1")
class RenamedFieldCalc(StreamExecCalc):
    """Same name and version, but the plan field 'projection' is now written 'projections'."""

    projection: list[str] = Field(alias="projections")


@exec_node(name="stream-exec-calc", version=2, min_plan_version="0.1", min_state_version="0.1")
class CalcV2(StreamExecCalc):
    """A bumped calc: version 2 served by its own class, version 1 by today's."""


@INTERVAL_JOIN_V2
@exec_node(name="stream-exec-interval-join", version=1, min_plan_version="0.1", min_state_version="0.1",
           consumed_options=(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL.key,))
class RetypedStateJoin(StreamExecIntervalJoin):
    """Same name and version 1, but a state variable's value schema narrowed (BIGINT -> INT)
    and another's kind changed (value -> list): the bytes in the checkpoint mean something else.
    Version 2 is today's."""

    def state_layout(self, inputs):
        layout = super().state_layout(inputs)
        if self.version != 1:
            return layout
        layout["left-cleanup-time"] = {"kind": "value", "value": "time INT"}
        layout["late-rows"] = {"kind": "list", "value": "count BIGINT"}
        return layout


@exec_node(name="stream-exec-calc", version=1, min_plan_version="0.1", min_state_version="0.1")
class RequiredFieldCalc(StreamExecCalc):
    """Same name and version, but a new required plan field: released plans no longer load."""

    null_handling: str


@exec_node(name="stream-exec-calc", version=1, min_plan_version="0.1", min_state_version="0.1")
class LowerCaseCalc(StreamExecCalc):
    """Same name, version, plan JSON and state, but different behaviour: UPPER now lower-cases."""

    def translate(self, ctx, inputs):
        changed = self.model_copy(update={"projection": [expr.replace("UPPER(", "LOWER(")
                                                         for expr in self.projection]})
        return StreamExecCalc.translate(changed, ctx, inputs)


@INTERVAL_JOIN_V2
@exec_node(name="stream-exec-interval-join", version=1, min_plan_version="0.1", min_state_version="0.1",
           consumed_options=(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL.key,))
class TtlReadingJoin(StreamExecIntervalJoin):
    """Same name and version, but it also reads table.exec.state.ttl, which it does not
    declare (so its plan would not persist it)."""

    def read_options(self, config):
        return {**super().read_options(config), "ttl": config.get(STATE_TTL)}


@exec_node(name="stream-exec-calc", version=1, min_plan_version="0.1", min_state_version="0.1",
           consumed_options=(STATE_TTL.key,))
class TtlDeclaringCalc(StreamExecCalc):
    """Declares table.exec.state.ttl but never reads it."""


@exec_node(name="stream-exec-join", version=2, min_plan_version="0.2", min_state_version="0.1")
class JoinWithVersion1Dropped(StreamExecJoin):
    """stream-exec-join after its version 1 was dropped: only version 2 is annotated, and the
    migration from version 1 stays (FLIP-190's drop step done right)."""

    _state_ttl_into_the_plan = StreamExecJoin.__dict__["_state_ttl_into_the_plan"]


@exec_node(name="stream-exec-join", version=2, min_plan_version="0.2", min_state_version="0.1")
class JoinWithVersion1AndItsMigrationDropped(StreamExecJoin):
    """stream-exec-join after version 1 was dropped together with its migration: users of
    version 1 plans are stuck."""


@exec_node(name="stream-exec-join", version=1, min_plan_version="0.1", min_state_version="0.1",
           consumed_options=(STATE_TTL.key,))
@exec_node(name="stream-exec-join", version=2, min_plan_version="0.2", min_state_version="0.1")
class JoinBumpedWithoutMigration(StreamExecJoin):
    """stream-exec-join's versions 1 and 2 as today, but version 2's plan change came
    without its migration."""


def raised_min_versions(plan: str = "0.1", state: str = "0.1") -> type:
    """A calc version 1 whose annotation no longer accepts plans / checkpoints older than
    `plan` / `state` (register it while the engine version is patched to at least those)."""

    @exec_node(name="stream-exec-calc", version=1, min_plan_version=plan, min_state_version=state)
    class RaisedCalc(StreamExecCalc):
        pass

    return RaisedCalc


def registry_with(*replacements: type, extra: tuple[type, ...] = ()) -> Registry:
    """Today's node classes, each replaced by the given class of the same node name, plus
    `extra` classes (more versions)."""
    by_name = {cls._exec_node_metadata[0].name: cls for cls in replacements}
    registry = Registry()
    for cls in NODE_CLASSES:
        registry.register(by_name.get(cls._exec_node_metadata[0].name, cls))
    for cls in extra:
        registry.register(cls)
    return registry


def tree_digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(Path(directory).rglob("*")):
        digest.update(path.relative_to(directory).as_posix().encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()
