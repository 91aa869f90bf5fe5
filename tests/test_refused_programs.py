"""Statements that must be refused (Flink's runFailingSql): `run_failing_sql` programs live in
their module's FAILING_PROGRAMS, have no fixtures, and the gate checks the error type and its
message (restore_tests: test_semantic)."""
from __future__ import annotations

import pytest

from harness import SinkTestStep, SourceTestStep, TableTestProgram
from harness.discovery import discover_failing_programs, discover_programs
from harness.errors import ProgramError, RefusalMismatch
from harness.runner import check_refused
from streamplan.errors import ChangelogModeError, UnsupportedSqlError

INSERT_ONLY_SINK = SinkTestStep.new_builder("S").add_schema("k STRING", "n BIGINT")


def refusing(error=ChangelogModeError, message="doesn't support consuming update",
             sql="INSERT INTO S SELECT k, COUNT(*) FROM T GROUP BY k"):
    return (TableTestProgram.of("sink-refusing", "refused")
            .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING").build())
            .setup_table_sink(INSERT_ONLY_SINK.consuming_before_restore().build())
            .run_failing_sql(sql, error, message).build())


def test_a_failing_program_names_what_it_expects_and_needs_an_error_class():
    program = refusing()
    assert program.refusal.error is ChangelogModeError and program.sinks["S"].expected_before == ()
    with pytest.raises(ProgramError, match="needs the error class the statement must raise, got "
                                           "'boom' \\(str\\)"):
        refusing(error="boom")


def _package(tmp_path, monkeypatch, body: str) -> str:
    package = tmp_path / "refusing_programs"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "sink.py").write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "refusing_programs"


def test_a_failing_program_belongs_in_failing_programs(tmp_path, monkeypatch):
    package = _package(tmp_path, monkeypatch,
                       "from test_refused_programs import refusing\nPROGRAMS = [refusing()]\n")
    with pytest.raises(ProgramError, match="belongs in refusing_programs.sink.FAILING_PROGRAMS"):
        discover_programs(package)


def test_the_shipped_failing_programs_load_and_are_checked_by_the_gate():
    failing = discover_failing_programs()
    assert failing and all(program.refusal is not None for program in failing)
    assert not {p.id for p in failing} & {p.id for p in discover_programs()}


@pytest.mark.spark
@pytest.mark.parametrize("program, message", [
    (refusing(), None),
    (refusing(error=UnsupportedSqlError), "must fail with UnsupportedSqlError .* but it failed "
                                          "with ChangelogModeError"),
    (refusing(message="no such words"), "containing 'no such words', but it failed with"),
    (refusing(sql="INSERT INTO S SELECT k, CAST(1 AS BIGINT) FROM T"), "but it compiled"),
])
def test_the_refusal_must_be_the_named_error_with_its_message(spark, program, message):
    if message is None:
        check_refused(program, spark)
    else:
        with pytest.raises(RefusalMismatch, match=message):
            check_refused(program, spark)
