"""Finding programs, filing them under their node, and refusing what cannot be run."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.discovery import (check_programs, discover_programs, node_of, resolve_node,
                               select_programs)
from harness.errors import ProgramError
from harness.steps import TestStep
from streamplan.nodes import REGISTRY
from harness_support import CALC_PROGRAM, JOIN_PROGRAM, calc_program


def test_the_checked_in_programs_cover_every_node_and_are_filed_by_id():
    programs = discover_programs()
    assert {node_of(p) for p in programs} == {meta.name for meta in REGISTRY.all_metadata()}
    assert "interval-join-early-fire" in {p.id for p in programs}


def test_a_program_tests_the_node_whose_short_name_is_its_longest_prefix():
    assert node_of(JOIN_PROGRAM) == "stream-exec-interval-join"
    assert node_of(CALC_PROGRAM) == "stream-exec-calc"
    assert resolve_node("interval-join") == resolve_node("stream-exec-interval-join") == \
        "stream-exec-interval-join"
    with pytest.raises(ProgramError, match="no exec node 'match'; known: "
                                           "calc, changelog-normalize, correlate, deduplicate"):
        resolve_node("match")


def test_an_id_naming_no_node_fails():
    from dataclasses import replace
    with pytest.raises(ProgramError, match="program 'aggregate-x' does not start with the short name "
                                           "of a registered exec node"):
        node_of(replace(CALC_PROGRAM, id="aggregate-x"))


def test_duplicate_ids_fail():
    with pytest.raises(ProgramError, match="duplicate program id 'calc-tiny'"):
        check_programs([CALC_PROGRAM, calc_program()])


@dataclass(frozen=True)
class ModelTestStep(TestStep):
    kind: ClassVar[str] = "model"   # Flink's model steps: no runner here
    name: str


def test_a_step_kind_the_runners_cannot_run_fails_instead_of_being_skipped():
    from dataclasses import replace
    program = replace(CALC_PROGRAM, steps=CALC_PROGRAM.steps + (ModelTestStep("m"),))
    with pytest.raises(ProgramError, match="step kind 'model' \\(ModelTestStep\\) cannot be "
                                           "run by the semantic/generate/restore runners"):
        check_programs([program])


def test_programs_must_live_in_the_module_of_their_node(tmp_path, monkeypatch):
    package = tmp_path / "fake_programs"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sink.py").write_text("from harness_support import CALC_PROGRAM\nPROGRAMS = [CALC_PROGRAM]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ProgramError, match="program 'calc-tiny' tests stream-exec-calc and belongs in "
                                           "fake_programs/calc.py, not fake_programs.sink"):
        discover_programs("fake_programs")
    (package / "sink.py").unlink()
    (package / "calc.py").write_text("PROGRAMS = None\n")
    with pytest.raises(ProgramError, match="fake_programs.calc: expected a module-level PROGRAMS"):
        discover_programs("fake_programs")


def test_selection_by_node_and_program():
    programs = [CALC_PROGRAM, JOIN_PROGRAM]
    assert select_programs(programs, node="calc") == [CALC_PROGRAM]
    assert select_programs(programs, program_id="interval-join-tiny") == [JOIN_PROGRAM]
    with pytest.raises(ProgramError, match="no program 'nope'; known: calc-tiny, interval-join-tiny"):
        select_programs(programs, program_id="nope")


def test_cli_errors_are_messages_with_exit_code_1(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["generate", "--program", "nope", "--snapshots", str(tmp_path)])
    assert result.exit_code == 1
    assert "error: no program 'nope'" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(app, ["restore", "--node", "calc", "--snapshots", str(tmp_path)])
    assert result.exit_code == 1
    assert "nothing matched the selection" in result.output
    result = runner.invoke(app, ["list", "--snapshots", str(tmp_path)])
    assert result.exit_code == 0
    assert "interval-join: interval-join-early-fire" in result.output


def test_generate_for_a_node_skips_the_fixtures_that_exist(monkeypatch):
    """Landed fixtures are frozen: a selection writes only what is missing, and says so."""
    import harness.generate
    from harness.discovery import short_name
    from harness.fixtures import DEFAULT_SNAPSHOTS

    written = []
    monkeypatch.setattr(harness.generate, "generate_fixture",
                        lambda program, *args, **kwargs: written.append(program.id))
    calc = [p for p in discover_programs() if short_name(node_of(p)) == "calc"]
    result = CliRunner().invoke(app, ["generate", "--node", "calc", "--snapshots", str(DEFAULT_SNAPSHOTS)])
    assert result.exit_code == 0, result.output
    assert f"{len(calc)} fixture(s) exist and are frozen: skipped" in result.output
    assert written == []
