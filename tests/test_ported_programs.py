"""Programs ported from Flink's restore tests: where each comes from, the sink defaults
Flink's RestoreTestBase applies, and the table in docs/flink-programs.md that lists every
ported program — passing or not — so none disappears unnoticed."""
from __future__ import annotations

import pytest

from harness import SinkTestStep, SourceTestStep, TableTestProgram
from harness.errors import ProgramError
from harness.ported import PORTED_TABLE, ported_programs, ported_table

COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"


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


def test_the_docs_table_is_the_modules():
    assert PORTED_TABLE.documented() == ported_table(ported_programs()), (
        "docs/flink-programs.md's table is out of date: run `./run.sh harness ported "
        "--write-docs` and commit the page")


def test_every_ported_program_is_named_as_flink_names_it_and_has_a_status(tmp_path, monkeypatch):
    ported = ported_programs()
    assert ported and all(entry.program.ported_from for entry in ported)
    # a ported program left out of both lists is named
    package = tmp_path / "stray_programs"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "calc.py").write_text(
        "from harness import SinkTestStep, SourceTestStep, TableTestProgram\n"
        "SIMPLE_CALC = (TableTestProgram.of('calc-stray', 'x')\n"
        f"    .ported_from('CalcTestPrograms.java#SIMPLE_CALC', '{COMMIT}')\n"
        "    .setup_table_source(SourceTestStep.new_builder('T').add_schema('a INT')\n"
        "                        .producing_before_restore([1]).build())\n"
        "    .setup_table_sink(SinkTestStep.new_builder('S').add_schema('a INT')\n"
        "                      .consuming_before_restore('+I[1]').build())\n"
        "    .run_sql('INSERT INTO S SELECT a FROM T').build())\n"
        "PROGRAMS = []\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ProgramError, match="calc-stray .* is neither in PROGRAMS nor in NOT_PASSING"):
        ported_programs("stray_programs")


def test_a_ported_materialized_sink_expects_before_and_after_together_as_flink_does():
    sink = (SinkTestStep.new_builder("S").add_schema("a INT", "PRIMARY KEY (a) NOT ENFORCED")
            .testing_materialized_data().consuming_before_restore("+I[1]")
            .consuming_after_restore("+I[2]"))
    program = (TableTestProgram.of("calc-materialized", "x")
               .setup_table_source(SourceTestStep.new_builder("T").add_schema("a INT")
                                   .producing_before_restore([1]).producing_after_restore([2])
                                   .build())
               .setup_table_sink(sink.build()).run_sql("INSERT INTO S SELECT a FROM T"))
    assert program.build().sinks["S"].expected_after == ("+I[2]",)
    ported = program.ported_from("CalcTestPrograms.java#SIMPLE_CALC", COMMIT).build()
    assert ported.sinks["S"].expected_after == ("+I[1]", "+I[2]")


def test_a_recorded_ported_program_that_disappears_fails_the_audit(tmp_path):
    from harness.audit import FLINK_PROGRAMS
    from harness.ported import check_ported, read_record, record_ported

    ported = ported_programs()
    assert record_ported(ported, tmp_path) == [p.program.ported_from.reference for p in ported]
    assert record_ported(ported, tmp_path) == []                 # recorded once
    assert check_ported(ported, tmp_path, FLINK_PROGRAMS) == []
    gone, *rest = ported
    (finding,) = check_ported(rest, tmp_path, FLINK_PROGRAMS)
    assert finding.subject == gone.program.ported_from.reference
    assert f"ported program '{gone.program.id}' is gone" in finding.message
    assert "NOT_PASSING with its reason" in finding.message
    record_ported(rest, tmp_path)                                # recording never removes
    assert gone.program.ported_from.reference in read_record(tmp_path)
    (unrecorded,) = check_ported(ported, tmp_path / "empty-sub", FLINK_PROGRAMS)[:1]
    assert "is not recorded in snapshots/flink-programs.json" in unrecorded.message


def test_every_ported_program_of_the_repository_is_recorded():
    from harness.audit import FLINK_PROGRAMS
    from harness.fixtures import DEFAULT_SNAPSHOTS
    from harness.ported import check_ported

    assert check_ported(ported_programs(), DEFAULT_SNAPSHOTS, FLINK_PROGRAMS) == []


def read_but_not_ported() -> set[str]:
    """The Flink programs the docs' "Read but not ported" table names: `File.java#NAME`, a
    later `#NAME` of the same file, `*` patterns."""
    import re

    from streamplan.testing import DOCS

    text = (DOCS / "flink-programs.md").read_text().split("## Read but not ported", 1)[1]
    named = set()
    for line in text.split("\n\n", 2)[2].splitlines():   # the table after the intro paragraph
        if not line.startswith("| `"):
            continue
        cell = line.split(" | ")[0]
        java = None
        for file, name in re.findall(r"`(?:(\w+\.java))?#([\w*]+)`", cell):
            java = file or java
            named.add(f"{java}#{name}")
    return named


def test_no_program_the_docs_call_not_ported_is_ported():
    """The page's list of programs left out must not name one that a module ports (it goes
    stale when a later change ports it)."""
    from fnmatch import fnmatchcase

    listed = read_but_not_ported()
    assert len(listed) >= 10, "the docs' 'Read but not ported' table was not found"
    ported = {p.program.ported_from.reference for p in ported_programs()}
    stale = sorted(pattern for pattern in listed
                   if any(fnmatchcase(reference, pattern) for reference in ported))
    assert not stale, ("docs/flink-programs.md lists as not ported programs a module ports; "
                       "drop them from 'Read but not ported': " + "; ".join(stale))
