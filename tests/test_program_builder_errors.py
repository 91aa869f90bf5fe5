"""Bad input to the program builder is a ProgramError that names the program or table (and
the row and column) and says what to give instead, never a raw Python exception, and it
fails fast: no value is converted before it is known to fit (10**10 for BYTES would be
ten gigabytes)."""
from __future__ import annotations

import re
import time
from contextlib import contextmanager

import pytest

from harness import ProgramError, SinkTestStep, SourceTestStep, TableTestProgram
from harness.errors import HarnessError
from streamplan.testing import brief_repr


@contextmanager
def rejected(match: str):
    """The block raises a ProgramError matching `match`, well under a second."""
    start = time.perf_counter()
    with pytest.raises(ProgramError, match=match) as info:
        yield info
    assert time.perf_counter() - start < 0.5
    assert isinstance(info.value, HarnessError)


def short_id(value):
    """pytest's own id of a huge int would be its str(), which Python refuses."""
    return brief_repr(value) if type(value) is int and value.bit_length() > 64 else None


def source_builder(*schema: str):
    return SourceTestStep.new_builder("Src").add_schema(*(schema or ("id INT", "name STRING")))


def sink_step():
    return (SinkTestStep.new_builder("Snk").add_schema("id INT", "name STRING")
            .consuming_before_restore("+I[1, a]").build())


# --- program: ids, descriptions, steps, SQL -----------------------------------------------

@pytest.mark.parametrize("id", [None, 5, b"calc-x", ["calc-x"]])
def test_a_program_id_that_is_not_a_str(id):
    with rejected(r"TableTestProgram.of: an id is a str like 'calc-projection-filter', got "):
        TableTestProgram.of(id, "x")


def test_a_malformed_program_id_fails_at_of():
    with rejected(r"program 'Calc_X': an id is lower-case words joined by '-'"):
        TableTestProgram.of("Calc_X", "x")


@pytest.mark.parametrize("description, message", [
    (None, r"the description is a str saying what the program tests, got None \(NoneType\)"),
    (5, r"the description is a str .*, got 5 \(int\)"),
    ("  ", r"the description is empty"),
])
def test_a_description_that_is_not_a_non_empty_str(description, message):
    with rejected(r"program 'calc-x': " + message):
        TableTestProgram.of("calc-x", description)


@pytest.mark.parametrize("key, value, message", [
    (None, "1 s", r"config step: an option key is a str like 'table.exec.state.ttl', got None"),
    (5, "1 s", r"config step: an option key is a str .*, got 5 \(int\)"),
    ("", "1 s", r"config step: an option key is a str .*, got ''"),
    ("table.exec.state.ttl", None, r"config step 'table.exec.state.ttl': an option value is a "
                                   r"str \(or a number or bool\), got None"),
    ("table.exec.state.ttl", ["1 s"], r"config step 'table.exec.state.ttl': an option value is a "
                                      r"str .*, got \['1 s'\] \(list\)"),
])
def test_setup_config_with_wrong_types(key, value, message):
    with rejected(r"program calc-x: " + message):
        TableTestProgram.of("calc-x", "x").setup_config(key, value)


@pytest.mark.parametrize("args, message", [
    ((None, "T", "t", "k"), r"'None': a name is a non-blank str, got None"),
    (("F", 5, "t", "k"), r"'F': a table name is a non-blank str, got 5 \(int\)"),
    (("F", "T", "", "k"), r"'F': a time attribute column is a non-blank str, got ''"),
    (("F", "T", "t", ()), r"'F': a primary key of at least one column is needed"),
    (("F", "T", "t", ("k", None)), r"'F': a primary key column is a non-blank str, got None"),
])
def test_setup_temporal_table_function_with_wrong_types(args, message):
    with rejected(r"program temporal-join-x: temporal table function step " + message):
        TableTestProgram.of("temporal-join-x", "x").setup_temporary_system_temporal_table_function(
            *args)


def test_setup_config_takes_a_number_as_its_text():
    builder = TableTestProgram.of("calc-x", "x").setup_config("table.exec.state.ttl", 5000)
    assert builder._steps[0].value == "5000 ms"


@pytest.mark.parametrize("sql, message", [
    (None, r"got None \(NoneType\)"), (5, r"got 5 \(int\)"), ("  ", r"got '  ' \(str\)")])
def test_run_sql_takes_a_str(sql, message):
    with rejected(r"program calc-x: run_sql: the SQL is a str 'INSERT INTO <sink> SELECT "
                  r"\.\.\. FROM <source>', " + message):
        TableTestProgram.of("calc-x", "x").run_sql(sql)


def test_run_statement_set_takes_strs():
    with rejected(r"program calc-x: run_statement_set needs at least one 'INSERT INTO \.\.\.'"):
        TableTestProgram.of("calc-x", "x").run_statement_set()
    with rejected(r"program calc-x: run_statement_set: each statement is a str .*got None"):
        TableTestProgram.of("calc-x", "x").run_statement_set("INSERT INTO A SELECT * FROM S",
                                                             None)


def test_a_source_passed_as_a_sink_and_the_reverse():
    source = source_builder().producing_before_restore([1, "a"]).build()
    with rejected(r"program calc-x: setup_table_sink takes a SinkTestStep "
                  r"\(SinkTestStep.new_builder\(...\)...build\(\)\), got SourceTestStep 'Src'"):
        TableTestProgram.of("calc-x", "x").setup_table_sink(source)
    with rejected(r"program calc-x: setup_table_source takes a SourceTestStep .*got SinkTestStep"):
        TableTestProgram.of("calc-x", "x").setup_table_source(sink_step())


@pytest.mark.parametrize("step", [None, 5, "Src"])
def test_a_table_step_that_is_no_step_at_all(step):
    with rejected(r"program calc-x: .* is not a TestStep"):
        TableTestProgram.of("calc-x", "x").setup_table_source(step)


# --- tables: names, schema, options -------------------------------------------------------

@pytest.mark.parametrize("name, message", [
    (None, r"new_builder: a table name is a str like 'Orders', got None \(NoneType\)"),
    (5, r"new_builder: a table name is a str like 'Orders', got 5 \(int\)"),
    ("my table", r"table name 'my table' is not a plain identifier"),
])
def test_table_names(name, message):
    with rejected(message):
        SourceTestStep.new_builder(name)
    with rejected(message):
        SinkTestStep.new_builder(name)


@pytest.mark.parametrize("component, shown", [(5, r"5 \(int\)"), (None, r"None \(NoneType\)"),
                                              ("", r"'' \(str\)")])
def test_add_schema_takes_strs(component, shown):
    with rejected(r"table 'Src': add_schema: a column or constraint is a str like 'id BIGINT', "
                  r"got " + shown):
        SourceTestStep.new_builder("Src").add_schema("id INT", component)


@pytest.mark.parametrize("components, statements", [
    (("id INT) WITH ('connector' = 'values'); CREATE TABLE X (b INT",), 2),
    (("id INT", "name STRING) WITH ('connector' = 'values'); SET 'a' = 'b'; CREATE TABLE Y (c INT"),
     3),
], ids=["a second table", "a SET and a second table"])
def test_a_schema_component_that_ends_the_table_is_named(components, statements):
    with rejected(rf"^table 'Src': add_schema: the components make {statements} statements, not "
                  rf"one CREATE TABLE; a component is one column or constraint like 'id "
                  rf"BIGINT', but {re.escape(brief_repr(components[-1]))} ends the table's "
                  rf"definition$"):
        SourceTestStep.new_builder("Src").add_schema(*components).build()


@pytest.mark.parametrize("call", [
    lambda: SourceTestStep.new_builder("Src").add_schema("id\ud800 INT"),
    lambda: source_builder().add_option("path", "rows\udc00.json"),
    lambda: TableTestProgram.of("calc-x", "doubles \ud800"),
    lambda: TableTestProgram.of("calc-x", "x").run_sql("INSERT INTO S SELECT '\ud800' FROM T"),
    lambda: source_builder().producing_before_restore([1, "a\ud800"]).build(),
    lambda: SinkTestStep.new_builder("Snk").add_schema("id INT").consuming_after_restore(
        "+I[\ud800]"),
], ids=["schema", "option value", "description", "sql", "row value", "expected row"])
def test_a_lone_surrogate_in_any_text_is_refused_where_it_is_given(call):
    with rejected(r"['\"].*\\ud[8c]00.*['\"] holds a lone surrogate \(\\ud[8c]00 at character "
                  r"\d+\), which is not text$"):
        call()


def test_add_option_with_wrong_types():
    with rejected(r"table 'Src': add_option: an option key is a str like 'changelog-mode', "
                  r"got 5 \(int\)"):
        source_builder().add_option(5, "I,D")
    with rejected(r"table 'Src': option 'changelog-mode': an option value is a str \(or a "
                  r"number or bool\), got None"):
        source_builder().add_option("changelog-mode", None)
    with rejected(r"option 'changelog-mode': an option value is a str .*got \{'I': 1\} \(dict\)"):
        source_builder().add_option("changelog-mode", {"I": 1})


def test_add_option_writes_a_bool_as_flink_does():
    step = (SinkTestStep.new_builder("Snk").add_schema("id INT")
            .add_option("sink-insert-only", False).consuming_before_restore("+I[1]").build())
    assert step.options == (("sink-insert-only", "false"),)


# --- source rows: shape -------------------------------------------------------------------

@pytest.mark.parametrize("row, message", [
    (5, r"row 0: 5 \(int\) is not a row; a row is a list of values like \[1, 'Alice'\] or "),
    (None, r"row 0: None \(NoneType\) is not a row"),
    ("1, a", r"row 0: '1, a' \(str\) is not a row"),
    ({"values": 5}, r"row 0: 5 \(int\) is not a row"),
    ({"kind": "+I", "value": [1, "a"]}, r"row 0: \{'kind': '\+I', 'value': \[1, 'a'\]\} is not "
                                        r"a row; a row is"),
    ({"kind": 5, "values": [1, "a"]}, r"row 0: 5 is not a row kind \(\+I, -U, \+U or -D\)"),
])
def test_source_rows_of_the_wrong_shape_fail_when_added(row, message):
    with rejected(r"table 'Src', rows before restore: " + message):
        source_builder().producing_before_restore(row)


def test_the_row_index_counts_across_calls():
    builder = source_builder().producing_after_restore([1, "a"])
    with rejected(r"table 'Src', rows after restore: row 2: 5 \(int\) is not a row"):
        builder.producing_after_restore([2, "b"], 5)


# --- source rows: values against column types ---------------------------------------------

@pytest.mark.parametrize("column, value, message", [
    ("d DECIMAL(10, 2)", "a", r"'a' is not a decimal number"),
    ("d DECIMAL(10, 2)", {}, r"\{\} is not a decimal number"),
    ("d DECIMAL(10, 2)", True, r"True is not a decimal number"),
    ("d DECIMAL(10, 2)", float("nan"), r"nan is not a finite decimal number"),
    ("d DECIMAL(10, 2)", "123456789", r"'123456789' does not fit DECIMAL\(10,2\) \(at most 8 "
                                      r"digit\(s\) before the point\)"),
    # rounds (half up, as Spark does) to 100000000.00: one digit too many
    ("d DECIMAL(10, 2)", "99999999.995", r"'99999999.995' does not fit DECIMAL\(10,2\)"),
    ("d DECIMAL", 10**50, r"<an integer of 167 bits> does not fit DECIMAL\(10,0\)"),
    ("d DECIMAL(5)", "1e9", r"'1e9' does not fit DECIMAL\(5,0\)"),
    ("b BYTES", {}, r"\{\} is not bytes; give hex text like '0aff', bytes or a list of ints"),
    ("b BYTES", 2**63, r"9223372036854775808 is not bytes"),
    ("b BYTES", 10**10, r"10000000000 is not bytes"),       # would allocate 10 GB
    ("b BYTES", 5, r"5 is not bytes"),
    ("b BYTES", [1, 300], r"\[1, 300\] is not bytes"),
    ("b BYTES", "zz", r"'zz' is not hex text like '0aff'"),
    ("n TINYINT", 128, r"128 is out of range for TINYINT \(-128 to 127\)"),
    ("n TINYINT", -129, r"-129 is out of range for TINYINT"),
    ("n SMALLINT", 32768, r"32768 is out of range for SMALLINT \(-32768 to 32767\)"),
    ("n INT", 2**31, r"2147483648 is out of range for INT \(-2147483648 to 2147483647\)"),
    ("n INT", 10**100000, r"<an integer of 332193 bits> is out of range for INT"),
    ("n BIGINT", 2**63, r"9223372036854775808 is out of range for BIGINT"),
    ("n BIGINT", -2**63 - 1, r"-9223372036854775809 is out of range for BIGINT"),
    ("n BIGINT", "9" * 5000, r"'99999.*99999' is not an integer"),
    ("n BIGINT", 1.5, r"1.5 is not an integer"),
    ("n INT", True, r"True is not an integer"),
    ("f DOUBLE", {}, r"\{\} is not a number"),
    ("f DOUBLE", "x", r"'x' is not a DOUBLE number"),
    ("f DOUBLE", 10**400, r"<an integer of 1329 bits> is out of range for DOUBLE"),
    ("f FLOAT", False, r"False is not a number"),
    ("ok BOOLEAN", "true", r"'true' is not a boolean"),
    ("d DATE", 5, r"5 is not a date like '2024-01-01' \(int\)"),
    ("d DATE", "2024-13-01", r"'2024-13-01' is not a date like '2024-01-01' \(month must be"),
    ("t TIMESTAMP(3)", 5, r"5 is not a timestamp like '2024-01-01 10:00:00'"),
    ("t TIMESTAMP(3)", {}, r"\{\} is not a timestamp"),
    ("s STRING", {"a": 1}, r"\{'a': 1\} is not a string"),
    ("s VARCHAR(10)", [1], r"\[1\] is not a string"),
    ("s STRING", b"x", r"b'x' is not a string"),
    ("s STRING", 10**5000, r"<an integer of 16610 bits> is too long for a string"),
], ids=short_id)
def test_values_that_do_not_fit_their_column_fail_at_build(column, value, message):
    name, sql_type = column.split(" ", 1)
    type_text = sql_type.replace(", ", ",")       # as the type renders
    builder = source_builder("id INT", column).producing_before_restore([1, None])
    builder = builder.producing_before_restore({"kind": "-D", "values": [1, value]})
    with rejected(rf"table 'Src', rows before restore: row 1: column '{name}' "
                  rf"{_escaped(type_text)}: " + message):
        builder.build()


def _escaped(text: str) -> str:
    return text.replace("(", r"\(").replace(")", r"\)")


@pytest.mark.parametrize("column, value, typed", [
    ("d DECIMAL(10, 2)", "12345678.99", "12345678.99"),
    ("d DECIMAL(10, 2)", 1.234, "1.234"),         # more scale than the column: Spark rounds
    ("d DECIMAL(10, 2)", -99999999.99, "-99999999.99"),
    ("b BYTES", "0aff", b"\n\xff"),
    ("b BYTES", [1, 2], b"\x01\x02"),
    ("n TINYINT", -128, -128),
    ("n BIGINT", 2**63 - 1, 2**63 - 1),
    ("n INT", "42", 42),
    ("f DOUBLE", "1e400", float("inf")),
    ("s STRING", 5, "5"),
])
def test_values_that_fit_still_build(column, value, typed):
    step = source_builder("id INT", column).producing_after_restore([1, value]).build()
    ((_, (_, converted)),) = step.feed_rows("after")
    assert (str(converted) if column.startswith("d ") else converted) == typed


def test_the_arity_is_checked_before_the_values():
    with rejected(r"table 'Src', rows after restore: row 0 has 3 values, the table has 2 "
                  r"columns \(id, name\)"):
        source_builder().producing_after_restore(["x", "a", "b"]).build()


# --- sink rows ----------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["consuming_before_restore", "consuming_after_restore"])
@pytest.mark.parametrize("row, shown", [(5, r"5 \(int\)"), (None, r"None \(NoneType\)"),
                                        (["+I[1, a]"], r"\['\+I\[1, a\]'\] \(list\)")])
def test_expected_rows_that_are_not_strs_fail_when_added(method, row, shown):
    builder = SinkTestStep.new_builder("Snk").add_schema("id INT", "name STRING")
    with rejected(rf"sink 'Snk': {method}, row 1: {shown} is not a row text like "
                  r"'\+I\[1, Alice\]'"):
        getattr(builder, method)("+I[1, a]", row)


def test_a_huge_bad_expected_row_is_shown_short():
    text = "+I[" + "1, " * 100000
    with rejected(r"sink 'Snk', expected row 0 before restore: '\+I\[1, .*\.\.\..* is not a row "
                  r"like") as info:
        SinkTestStep.new_builder("Snk").add_schema("id INT").consuming_before_restore(text).build()
    assert len(str(info.value)) < 300


def test_for_node_is_for_ported_programs_and_must_name_a_node():
    with rejected("for_node is for programs ported under Flink's id"):
        TableTestProgram.of("p-own", "ours").for_node("group-aggregate")
    ported = TableTestProgram.of("agg-x", "ported").ported_from("X.java#AGG_X", "a" * 40)
    with rejected("for_node: the node's short name"):
        ported.for_node(7)
    from harness.discovery import node_of

    program = (ported.for_node("match").setup_table_source(source_builder().build())
               .setup_table_sink(sink_step()).run_sql("INSERT INTO Snk SELECT * FROM Src").build())
    with rejected("no exec node 'match'; known: "):
        node_of(program)
