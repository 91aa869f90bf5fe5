"""The program builder API: what it renders, and the errors it raises at build time."""
from __future__ import annotations

import pytest

from harness import ProgramError, SinkTestStep, SourceTestStep, TableTestProgram
from harness.steps import StatementSetTestStep
from streamplan.changelog import RowKind


def source(*before, after=(), schema=("id INT", "name STRING"), **options):
    builder = SourceTestStep.new_builder("Src").add_schema(*schema)
    for key, value in options.items():
        builder = builder.add_option(key.replace("_", "-"), value)
    return builder.producing_before_restore(*before).producing_after_restore(*after).build()


def sink(before=(), after=(), name="Snk", schema=("id INT", "name STRING"), materialized=False):
    builder = SinkTestStep.new_builder(name).add_schema(*schema)
    builder = builder.consuming_before_restore(*before).consuming_after_restore(*after)
    return (builder.testing_materialized_data() if materialized else builder).build()


def program(*steps, sql="INSERT INTO Snk SELECT * FROM Src", id="calc-example"):
    builder = TableTestProgram.of(id, "an example")
    for step in steps:
        builder = builder.add_step(step)
    return builder.run_sql(sql).build() if sql else builder.build()


def test_a_program_renders_its_tables_and_sql():
    built = program(source([1, "a"], {"kind": "-D", "values": [1, "a"]}, after=[[2, None]],
                           schema=("id INT NOT NULL", "name STRING", "PRIMARY KEY (id) NOT ENFORCED"),
                           changelog_mode="I,D"),
                    sink(["+I[1, a]"], ["+I[2, null]"]))
    assert built.setup_script() == (
        "CREATE TABLE `Src` (\n  id INT NOT NULL,\n  name STRING,\n  PRIMARY KEY (id) NOT ENFORCED\n"
        ") WITH (\n  'connector' = 'values',\n  'changelog-mode' = 'I,D'\n);\n"
        "CREATE TABLE `Snk` (\n  id INT,\n  name STRING\n) WITH (\n  'connector' = 'values'\n);\n")
    assert built.run_step.text() == "INSERT INTO Snk SELECT * FROM Src"
    assert built.sources["Src"].feed_rows("before") == [(RowKind.INSERT, (1, "a")),
                                                        (RowKind.DELETE, (1, "a"))]
    assert built.sources["Src"].primary_key == ("id",)


def test_a_statement_set_renders_as_one_statement():
    step = StatementSetTestStep(("INSERT INTO A SELECT * FROM S;", "INSERT INTO B SELECT * FROM S"))
    assert step.text() == ("EXECUTE STATEMENT SET BEGIN\nINSERT INTO A SELECT * FROM S;\n"
                           "INSERT INTO B SELECT * FROM S;\nEND")


def test_source_rows_with_the_wrong_arity_fail_naming_table_and_row():
    with pytest.raises(ProgramError, match=r"table 'Src', rows before restore: row 1 has 1 values, "
                                           r"the table has 2 columns \(id, name\)"):
        source([1, "a"], [2])


def test_source_rows_with_bad_kinds_or_values_fail():
    with pytest.raises(ProgramError, match=r"rows after restore: row 0: '\+X' is not a row kind"):
        source(after=[{"kind": "+X", "values": [1, "a"]}])
    with pytest.raises(ProgramError, match=r"table 'Src', rows before restore: row 0: .*'one'"):
        source(["one", "a"])


@pytest.mark.parametrize("text, message", [
    ("I[1, a]", r"'I\[1, a\]' is not a row like '\+I\[1, Alice\]'"),
    ("+X[1, a]", r"'\+X\[1, a\]' is not a row like"),
    ("+I[1]", r"'\+I\[1\]' has 1 value\(s\), the sink has 2 column\(s\) \(id, name\)"),
])
def test_bad_expected_rows_fail_at_build(text, message):
    with pytest.raises(ProgramError, match=r"sink 'Snk', expected row 0 after restore: " + message):
        sink(after=[text])


def test_a_string_value_may_contain_the_separator():
    assert sink(["+I[1, hello, world]"]).expected_before == ("+I[1, hello, world]",)


def test_a_materialized_view_holds_inserts_only():
    with pytest.raises(ProgramError, match="a materialized view holds only \\+I rows"):
        sink(["-U[1, a]"], materialized=True)


def test_a_sink_without_expectations_fails():
    builder = SinkTestStep.new_builder("Snk").add_schema("id INT")
    with pytest.raises(ProgramError, match="sink 'Snk' has no expectations"):
        builder.build()


def test_a_table_without_schema_or_with_bad_ddl_fails():
    with pytest.raises(ProgramError, match="table 'Src' has no schema"):
        SourceTestStep.new_builder("Src").build()
    with pytest.raises(ProgramError, match="table 'Src': .*syntax error"):
        SourceTestStep.new_builder("Src").add_schema("id INT,,").build()
    with pytest.raises(ProgramError, match="the connector is always 'values'"):
        SourceTestStep.new_builder("Src").add_option("connector", "kafka")


def test_duplicate_table_names_fail():
    with pytest.raises(ProgramError, match="table\\(s\\) Src declared twice"):
        program(source(), source(), sink(["+I[1, a]"]))


def test_tables_the_sql_names_must_be_declared_with_their_role_and_used():
    with pytest.raises(ProgramError, match="the SQL reads table 'Other', which is not declared"):
        program(source(), sink(["+I[1, a]"]), sql="INSERT INTO Snk SELECT * FROM Other")
    with pytest.raises(ProgramError, match="the SQL writes table 'Src', which is a source"):
        program(source(), sink(["+I[1, a]"]), sql="INSERT INTO Src SELECT * FROM Src")
    with pytest.raises(ProgramError, match="sink 'Extra' is declared but the SQL never writes it"):
        program(source(), sink(["+I[1, a]"]), sink(["+I[1, a]"], name="Extra"))


def test_a_cte_name_is_not_a_table_the_program_must_declare():
    built = program(source([1, "a"]), sink(["+I[1, a]"]),
                    sql="INSERT INTO Snk WITH t AS (SELECT * FROM Src) SELECT * FROM t")
    assert set(built.sources) == {"Src"}
    with pytest.raises(ProgramError, match="the SQL reads table 'Nope', which is not declared"):
        program(source([1, "a"]), sink(["+I[1, a]"]),
                sql="INSERT INTO Snk WITH t AS (SELECT * FROM Nope) SELECT * FROM t, Src")


def test_exactly_one_run_step():
    with pytest.raises(ProgramError, match="needs exactly one run step .* has 0"):
        program(source(), sink(["+I[1, a]"]), sql=None)
    builder = TableTestProgram.of("calc-x", "x").setup_table_source(source()).setup_table_sink(
        sink(["+I[1, a]"])).run_sql("INSERT INTO Snk SELECT * FROM Src")
    with pytest.raises(ProgramError, match=r"program .calc-x.: needs exactly one run step \(run_sql, "
                                           r"run_statement_set or run_failing_sql\), has 2"):
        builder.run_statement_set("INSERT INTO Snk SELECT * FROM Src").build()


def test_config_is_checked_against_the_options_registry():
    with pytest.raises(ProgramError, match="unknown option 'table.exec.sink.not-null-enforcr'. "
                                           "Did you mean 'table.exec.sink.not-null-enforcer'"):
        TableTestProgram.of("sink-x", "x").setup_config("table.exec.sink.not-null-enforcr", "DROP")
    with pytest.raises(ProgramError, match="'MAYBE' is not one of ERROR, DROP"):
        TableTestProgram.of("sink-x", "x").setup_config("table.exec.sink.not-null-enforcer", "MAYBE")
    step = TableTestProgram.of("sink-x", "x").setup_config(
        "table.exec.interval-join.min-cleanup-interval", "3s")._steps[0]
    assert (step.key, step.value) == ("table.exec.interval-join.min-cleanup-interval", "3000 ms")


def test_ids_descriptions_and_steps_are_checked():
    with pytest.raises(ProgramError, match="an id is lower-case words joined by '-'"):
        program(source(), sink(["+I[1, a]"]), id="Calc_Example")
    with pytest.raises(ProgramError, match="did you forget .build\\(\\)"):
        TableTestProgram.of("calc-x", "x").setup_table_source(SourceTestStep.new_builder("Src"))
    with pytest.raises(ProgramError, match="the description is empty"):
        TableTestProgram.of("calc-x", " ").setup_table_source(source()).setup_table_sink(
            sink(["+I[1, a]"])).run_sql("INSERT INTO Snk SELECT * FROM Src").build()


def test_the_data_fingerprint_covers_before_restore_data_only():
    base = program(source([1, "a"], after=[[2, "b"]]), sink(["+I[1, a]"]))
    other_after = program(source([1, "a"], after=[[3, "c"]]), sink(["+I[1, a]"]))
    other_before = program(source([1, "z"], after=[[2, "b"]]), sink(["+I[1, a]"]))
    assert base.before_data_fingerprint() == other_after.before_data_fingerprint()
    assert base.before_data_fingerprint() != other_before.before_data_fingerprint()


def test_planned_before_is_for_ported_programs_with_a_reason():
    with pytest.raises(ProgramError, match="planned_before is for programs ported from Flink"):
        TableTestProgram.of("calc-x", "d").planned_before("Flink changed")
    with pytest.raises(ProgramError, match="planned_before"):
        (TableTestProgram.of("calc-x", "d")
         .ported_from("CalcTestPrograms.java#X", "0" * 40).planned_before(""))


def test_a_planned_before_program_runs_its_fixtures_plan_not_todays():
    """RANK_TEST_APPEND_FAST_STRATEGY: today's plan drops the constant row number and emits no
    -U (Flink 2.3's), its fixture's plan outputs the row number and emits -U, as its expected
    rows (Flink's, from the plan Flink stored) need."""
    from harness.runner import fixture_plan
    from programs.rank import RANK_TEST_APPEND_FAST_STRATEGY

    plan = fixture_plan(RANK_TEST_APPEND_FAST_STRATEGY)
    (rank,) = [node for node in plan.nodes if node.type.startswith("stream-exec-rank")]
    assert rank.output_row_number and rank.generate_update_before


def test_planned_before_options_map_names_to_values():
    ported = TableTestProgram.of("calc-x", "d").ported_from("CalcTestPrograms.java#X", "0" * 40)
    with pytest.raises(ProgramError, match="planned_before's options map option names to values"):
        ported.planned_before("Flink changed", {"table.exec.sink.upsert-materialize": 1})
    built = (ported.planned_before("Flink changed", {"b.option": "2", "a.option": "1"})
             .add_step(source()).add_step(sink()).run_sql("INSERT INTO Snk SELECT * FROM Src")
             .build())
    assert built.planned_with == (("a.option", "1"), ("b.option", "2"))


def test_a_program_planned_with_options_compiles_with_them_after_its_own(spark):
    """Flink 2.3 refuses this INSERT (no upsert key in the sink's primary key); the plan Flink
    stored has the upsert materializer, which FORCE plans: every compile of the program takes
    the option, and without it the statement is refused as Flink 2.3 refuses it."""
    import dataclasses

    from harness.runner import compile_program
    from programs.over_aggregate import (
        OVER_AGGREGATE_NON_TIME_RANGE_UNBOUNDED_SUM_RETRACT_MODE_SINK_PRIMARY_KEY as PROGRAM)

    assert PROGRAM.planned_with == (("table.exec.sink.upsert-materialize", "FORCE"),)
    _, plan = compile_program(PROGRAM, spark)
    (sink_node,) = [node for node in plan.nodes if node.type.startswith("stream-exec-sink")]
    assert sink_node.upsert_materialize
    with pytest.raises(ProgramError, match="upsert key that differs from the primary key"):
        compile_program(dataclasses.replace(PROGRAM, planned_with=()), spark)
    bad = dataclasses.replace(PROGRAM, planned_with=(("table.exec.sink.upsert-materialize",
                                                      "SOMETIMES"),))
    with pytest.raises(ProgramError, match=f"program {PROGRAM.id}: .*SOMETIMES"):
        compile_program(bad, spark)


def test_deduplicated_field_indices_key_the_view_and_the_ported_final_view():
    """Flink's deduplicatedFieldIndices: the materialized view is keyed by the fields, and a
    ported program's final view is its before and after rows with the last row of a key."""
    def builder():
        return (SinkTestStep.new_builder("Snk").add_schema("id INT", "name STRING")
                .consuming_before_restore("+I[1, a]", "+I[2, b]")
                .consuming_after_restore("+I[1, c]"))

    own = builder().testing_materialized_data().deduplicated_field_indices(0).build()
    assert own.key_indexes() == [0]
    ported = (TableTestProgram.of("calc-x", "d").ported_from("CalcTestPrograms.java#X", "0" * 40)
              .add_step(source()).add_step(own).run_sql("INSERT INTO Snk SELECT * FROM Src")
              .build())
    assert ported.sinks["Snk"].expected_after == ("+I[1, c]", "+I[2, b]")
    with pytest.raises(ProgramError, match="keys the materialized view; call "
                                           "testing_materialized_data"):
        builder().deduplicated_field_indices(0).build()
    with pytest.raises(ProgramError, match="the sink has 2 column\\(s\\), indexes 0 to 1"):
        builder().testing_materialized_data().deduplicated_field_indices(2).build()
    for bad in ((), ("0",), (0, 0), (-1,)):
        with pytest.raises(ProgramError, match="distinct ints >= 0"):
            builder().deduplicated_field_indices(*bad)
