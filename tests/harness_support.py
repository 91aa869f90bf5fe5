"""Tiny programs and registry doubles for the harness tests (few rows: each row is a batch)."""
from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import Field

from harness import SinkTestStep, SourceTestStep, TableTestProgram
from streamplan.nodes import NODE_CLASSES
from streamplan.nodes.calc import StreamExecCalc
from streamplan.nodes.interval_join import StreamExecIntervalJoin
from streamplan.nodes.metadata import Registry, exec_node
from streamplan.options import INTERVAL_JOIN_MIN_CLEANUP_INTERVAL


def calc_program(after_expected: str = "+I[2, B]", before_expected: str = "+I[1, A]",
                 before_value: str = "a") -> TableTestProgram:
    return (TableTestProgram.of("calc-tiny", "upper-cases one column")
            .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "v STRING")
                                .producing_before_restore([1, before_value])
                                .producing_after_restore([2, "b"]).build())
            .setup_table_sink(SinkTestStep.new_builder("Out").add_schema("id INT", "v STRING")
                              .consuming_before_restore(before_expected)
                              .consuming_after_restore(after_expected).build())
            .run_sql("INSERT INTO Out SELECT id, UPPER(v) FROM T")
            .build())


def _timed(name: str, side: str, before: list, after: list) -> SourceTestStep:
    return (SourceTestStep.new_builder(name)
            .add_schema("k INT", f"{side}t TIMESTAMP(3)", f"WATERMARK FOR {side}t AS {side}t - INTERVAL '1' SECOND")
            .producing_before_restore(*before).producing_after_restore(*after).build())


# L1 is cached before the restore; R1 arriving after it must find it in the restored state.
JOIN_PROGRAM = (
    TableTestProgram.of("interval-join-tiny", "a left row cached before the restore joins after it")
    .setup_table_source(_timed("L", "l", [[1, "2024-01-01 10:00:00"]], []))
    .setup_table_source(_timed("R", "r", [[2, "2024-01-01 10:00:00"]], [[1, "2024-01-01 10:00:01"]]))
    .setup_table_sink(SinkTestStep.new_builder("J").add_schema("lk INT", "rk INT")
                      .consuming_after_restore("+I[1, 1]").build())
    .run_sql("INSERT INTO J SELECT L.k, R.k FROM L LEFT JOIN R ON L.k = R.k "
             "AND L.lt BETWEEN R.rt - INTERVAL '2' SECOND AND R.rt + INTERVAL '2' SECOND")
    .build())

CALC_PROGRAM = calc_program()
PROGRAMS = [CALC_PROGRAM, JOIN_PROGRAM]


# --- registry doubles: today's classes, with one node swapped for a changed one -----------------

@exec_node(name="stream-exec-interval-join", version=1, min_plan_version="0.1", min_state_version="0.1",
           consumed_options=(INTERVAL_JOIN_MIN_CLEANUP_INTERVAL.key,))
class RenamedStateJoin(StreamExecIntervalJoin):
    """Same name and version, but a state variable renamed: a break without a bump."""

    def state_layout(self, inputs):
        layout = super().state_layout(inputs)
        layout["left-rows"] = layout.pop("left-cache")
        return layout


@exec_node(name="stream-exec-calc", version=1, min_plan_version="0.1", min_state_version="0.1",
           produced_operators=("project", "filter"))
class RenamedFieldCalc(StreamExecCalc):
    """Same name and version, but the plan field 'projection' is now written 'projections'."""

    projection: list[str] = Field(alias="projections")


@exec_node(name="stream-exec-calc", version=2, min_plan_version="0.1", min_state_version="0.1",
           produced_operators=("project", "filter"))
class CalcV2(StreamExecCalc):
    """A bumped calc: version 2 served by its own class, version 1 by today's."""


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
