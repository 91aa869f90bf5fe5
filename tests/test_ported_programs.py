"""Programs ported from Flink's restore tests: where each comes from, the sink defaults
Flink's RestoreTestBase applies, and the table in docs/flink-programs.md that lists every
ported program — passing or not — so none disappears unnoticed."""
from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

from harness import SinkTestStep, SourceTestStep, TableTestProgram
from harness.errors import ProgramError

import programs

COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"
DOC = Path(__file__).resolve().parents[1] / "docs" / "flink-programs.md"


def builder(sink_options=()):
    sink = SinkTestStep.new_builder("S").add_schema("a INT")
    for key, value in sink_options:
        sink = sink.add_option(key, value)
    return (TableTestProgram.of("calc-ported", "a ported program")
            .setup_table_source(SourceTestStep.new_builder("T").add_schema("a INT")
                                .producing_before_restore([1]).build())
            .setup_table_sink(sink.consuming_before_restore("+I[1]").build())
            .run_sql("INSERT INTO S SELECT a FROM T"))


def test_a_ported_program_records_its_source_and_gets_flinks_sink_defaults():
    program = builder().ported_from("CalcTestPrograms.java#SIMPLE_CALC", COMMIT).build()
    assert str(program.ported_from) == f"CalcTestPrograms.java#SIMPLE_CALC @ {COMMIT[:12]}"
    sink = program.sinks["S"]
    assert sink.options == (("sink-insert-only", "false"),)
    assert "'sink-insert-only' = 'false'" in program.setup_script()
    assert sink.table.options["sink-insert-only"] == "false"


def test_a_sink_option_the_program_sets_wins_over_the_default():
    program = (builder([("sink-insert-only", "true")])
               .ported_from("CalcTestPrograms.java#SIMPLE_CALC", COMMIT).build())
    assert program.sinks["S"].options == (("sink-insert-only", "true"),)


def test_a_program_of_our_own_keeps_the_connectors_defaults():
    program = builder().build()
    assert program.ported_from is None and program.sinks["S"].options == ()


@pytest.mark.parametrize("reference, commit, message", [
    ("RankTestPrograms#RANK_N_TEST", COMMIT, "'<File>.java#<CONSTANT>'"),
    ("RankTestPrograms.java#RANK_N_TEST", "0658fb7c", "40 hex digits"),
    (42, COMMIT, r"'<File>.java#<CONSTANT>', got 42 \(int\)"),
])
def test_a_bad_source_is_refused_with_what_it_should_be(reference, commit, message):
    with pytest.raises(ProgramError, match=message):
        builder().ported_from(reference, commit)


def _program_modules():
    for info in pkgutil.iter_modules(programs.__path__):
        yield importlib.import_module(f"programs.{info.name}")


def _documented() -> dict[str, str]:
    """reference -> status, from the table of docs/flink-programs.md."""
    rows = re.findall(r"^\| \w[\w-]* \| `(\w+\.java#\w+)` @ [0-9a-f]{12} \| (.+) \|$",
                      DOC.read_text(), re.M)
    return dict(rows)


def test_every_ported_program_is_in_the_docs_table_with_its_status():
    documented = _documented()
    assert documented, "docs/flink-programs.md lists no ported program"
    found = {}
    for module in _program_modules():
        running = {program.id for program in getattr(module, "PROGRAMS", [])}
        not_passing = getattr(module, "NOT_PASSING", {})
        assert not running & set(not_passing), f"{module.__name__}: listed as not passing " \
                                               f"but in PROGRAMS: {running & set(not_passing)}"
        for value in vars(module).values():
            if isinstance(value, TableTestProgram) and value.ported_from is not None:
                reference = value.ported_from.reference
                constant = reference.split("#")[1]
                assert getattr(module, constant, None) is value, \
                    f"{value.id}: the module names it {constant}, as Flink does"
                assert value.id in running | set(not_passing), \
                    f"{value.id} ({reference}) is neither run nor listed as not passing"
                found[reference] = "passes" if value.id in running else "not passing"
    assert set(found) == set(documented), "docs/flink-programs.md and the ported programs differ"
    for reference, status in found.items():
        assert documented[reference].startswith(status), (reference, documented[reference])
