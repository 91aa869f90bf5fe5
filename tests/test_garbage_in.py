"""Property-based: generated garbage thrown at every entry point that reads outside input (the
SQL parser, the planner up to Spark, the plan loader, explain, fixture readers and the program
builder) gets only typed errors, each within a time bound, and writes no file outside temp
directories. Examples are derandomized, so every run tries the same inputs; the inputs that
found bugs are pinned with @example and stay as regression tests."""
from __future__ import annotations

import copy
import json
import re
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from harness.errors import FixtureError, HarnessError, ProgramError
from harness.fixtures import Fixture, read_checksums, read_manifest
from streamplan.api import TableEnvironment, explain_plan
from streamplan.checkpoints import CHECKPOINT_MARKER, check_restorable, written_by
from streamplan.errors import CheckpointError, PlanFormatError, PlanVersionError, StreamPlanError
from streamplan.json_input import MAX_INT_DIGITS, json_path
from streamplan.plan import parse_plan
from streamplan.sql.parser import parse_script

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "snapshots"
BOUND_S = 1.0            # no input may take longer than this to accept or reject

# derandomize: the same examples every run (a failure reproduces); no example database
# written into the checkout; deadline is the time bound, checked per example.
GARBAGE = settings(derandomize=True, database=None, deadline=None, max_examples=1000,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def typed_or_accepted(call, *errors: type[Exception], bound_s: float = BOUND_S):
    """Run `call`; any exception other than `errors` fails the test, as does a slow answer."""
    started = time.perf_counter()
    try:
        call()
    except errors:
        pass
    elapsed = time.perf_counter() - started
    assert elapsed < bound_s, f"took {elapsed:.2f} s"


@pytest.fixture(scope="module", autouse=True)
def writes_nothing_into_the_checkout():
    """No entry point may write files outside temp directories."""
    def status() -> str:
        return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                              cwd=ROOT, capture_output=True, text=True, check=True).stdout
    before = status()
    yield
    assert status() == before


# --------------------------------------------------------------------------------- SQL text

SQL_WORDS = ["SELECT", "FROM", "WHERE", "INSERT", "INTO", "CREATE", "TABLE", "WITH", "AS",
             "JOIN", "LEFT", "ON", "AND", "OR", "NOT", "BETWEEN", "INTERVAL", "'1'", "SECOND",
             "CASE", "WHEN", "THEN", "ELSE", "END", "GROUP", "BY", "HAVING", "WATERMARK", "FOR",
             "PRIMARY", "KEY", "NOT ENFORCED", "SET", "EXECUTE", "STATEMENT", "BEGIN", "COMPILE",
             "PLAN", "EXPLAIN", "ROW_NUMBER()", "OVER", "PARTITION", "ORDER", "/*+", "*/",
             "EARLY_FIRE", "'delay'", "=", "(", ")", ",", ";", "`", "'", "--", "\n", "*", "+", "-",
             "/", "T", "S", "a", "b", "t", "1", "1.5", "1E+999990", "9" * 50, "NULL", "TRUE",
             "INT", "BIGINT", "DECIMAL(10, 2)", "TIMESTAMP(3)", "STRING", "BYTES", "ARRAY<INT>",
             "'connector'", "'values'", "COUNT(*)", "SUM(a)", "reflect('x', 'y')", "\\", "\"",
             "\x00", "é", "IF NOT EXISTS", "ON CONFLICT DO NOTHING", "UNION ALL", "LIMIT 1"]
TABLES = ("CREATE TABLE T (a INT, b STRING, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '1' "
          "SECOND) WITH ('connector' = 'values');\n"
          "CREATE TABLE S (a INT, b STRING, t TIMESTAMP(3)) WITH ('connector' = 'values');\n")

sql_soup = st.lists(st.sampled_from(SQL_WORDS), max_size=40).map(" ".join)
sql_text = st.one_of(sql_soup, st.text(max_size=200),
                     sql_soup.map(lambda soup: TABLES + "INSERT INTO S " + soup))


@GARBAGE
@given(sql_text)
@example("(" * 60 + "a" + ")" * 60)
@example("CREATE TABLE T (a DECIMAL(" + "9" * 4400 + ", 2)) WITH ('connector' = 'values')")
@example(TABLES + "INSERT INTO S SELECT 1E+999990, b, t FROM T")
@example(TABLES + "INSERT INTO S SELECT '\udfff', b, t FROM T")
def test_the_sql_parser_answers_garbage_with_typed_errors(text):
    typed_or_accepted(lambda: parse_script(text), StreamPlanError)


# ------------------------------------------------------------------------------ plan JSON

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=20)
PLANS = sorted(SNAPSHOTS.glob("*/*/plan/*.json"))
# A few real plans covering every node type; mutations of them reach the node loaders.
SEED_PLANS = [json.loads(path.read_text()) for path in PLANS[::7]]


def leaf_paths(value, path=()):
    if isinstance(value, dict):
        for key, child in value.items():
            yield from leaf_paths(child, path + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from leaf_paths(child, path + (index,))
    yield path


@st.composite
def mutated_plans(draw):
    plan = json.loads(json.dumps(draw(st.sampled_from(SEED_PLANS))))
    for _ in range(draw(st.integers(1, 3))):
        paths = [path for path in leaf_paths(plan) if path]
        path = draw(st.sampled_from(paths))
        parent = plan
        for key in path[:-1]:
            parent = parent[key]
        replacement = draw(json_values)
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = replacement
    return json.dumps(plan)


def load_and_explain(text: str) -> None:
    explain_plan(parse_plan(text, "plan.json"))


@GARBAGE
@given(st.one_of(mutated_plans(), json_values.map(json.dumps), st.text(max_size=100)))
@example('{"engineVersion": "0.3", "sparkVersion": "4.3.0", "edges": [], "nodes": '
         + "[" * 5000 + "]" * 5000 + "}")
@example(json.dumps({"engineVersion": {}, "sparkVersion": "4.3.0", "nodes": [], "edges": []}))
def test_the_plan_loader_and_explain_answer_garbage_with_typed_errors(text):
    typed_or_accepted(lambda: load_and_explain(text), StreamPlanError)


# --------------------------------------------------------------------------- fixture files

@GARBAGE
@given(st.one_of(st.binary(max_size=200), json_values.map(lambda v: json.dumps(v).encode())))
@example(b'{"formatVersion": 1, \xfe}')
@example(b"[1]")
def test_fixture_readers_answer_garbage_with_typed_errors(tmp_path_factory, content):
    directory = tmp_path_factory.mktemp("fixture") / "calc_1" / "calc-x"
    directory.mkdir(parents=True)
    fixture = Fixture(directory, "calc", 1, "calc-x")
    fixture.manifest_path.write_bytes(content)
    (directory / "checkpoint.sha256").write_bytes(content)
    (directory / "streamplan.json").write_bytes(content)
    typed_or_accepted(lambda: read_manifest(fixture), HarnessError)
    typed_or_accepted(lambda: read_checksums(directory / "checkpoint.sha256"), HarnessError)
    typed_or_accepted(lambda: written_by(directory), StreamPlanError)


# ------------------------------------------------------------------------- program builder

python_values = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
                          st.binary(max_size=8), st.lists(st.integers(), max_size=3),
                          st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
                          st.just(10 ** 10), st.just(2 ** 63), st.just("2024-01-01 10:00:00"))
COLUMN_TYPES = ["INT", "BIGINT", "TINYINT", "DECIMAL(10, 2)", "DOUBLE", "STRING", "BYTES",
                "BOOLEAN", "DATE", "TIMESTAMP(3)"]


def build_program(program_id, description, column_type, values, config, option, sql) -> None:
    from harness import SinkTestStep, SourceTestStep, TableTestProgram

    source = (SourceTestStep.new_builder("T").add_schema(f"a {column_type}")
              .add_option(*option).producing_before_restore(values).build())
    sink = SinkTestStep.new_builder("S").add_schema(f"a {column_type}").build()
    (TableTestProgram.of(program_id, description).setup_config(*config)
     .setup_table_source(source).setup_table_sink(sink).run_sql(sql).build())


@GARBAGE
@given(program_id=st.one_of(st.just("calc-x"), python_values),
       description=st.one_of(st.just("a program"), python_values),
       column_type=st.sampled_from(COLUMN_TYPES),
       values=st.one_of(st.lists(python_values, min_size=1, max_size=2), python_values),
       config=st.one_of(st.just(("table.exec.state.ttl", "1 h")),
                        st.tuples(python_values, python_values)),
       option=st.one_of(st.just(("changelog-mode", "I")), st.tuples(python_values, python_values)),
       sql=st.one_of(st.just("INSERT INTO S SELECT a FROM T"), python_values))
@example(program_id="calc-x", description=None, column_type="INT", values=[1],
         config=("table.exec.state.ttl", "1 h"), option=("changelog-mode", "I"),
         sql="INSERT INTO S SELECT a FROM T")
@example(program_id="calc-x", description="a program", column_type="BYTES", values=[10 ** 10],
         config=("table.exec.state.ttl", "1 h"), option=("changelog-mode", "I"),
         sql="INSERT INTO S SELECT a FROM T")
def test_the_program_builder_answers_garbage_with_typed_errors(program_id, description, column_type,
                                                                values, config, option, sql):
    typed_or_accepted(lambda: build_program(program_id, description, column_type, values, config,
                                            option, sql), HarnessError, StreamPlanError)


# ------------------------------------------- hostile JSON: every file the project reads
# Shapes Python's json reads but no file of the project holds: integers past the digit bound
# (past 4,300 digits Python itself refuses to convert them), lone surrogates in strings and
# keys, and values of the wrong JSON type in every field. Each must be the reader's typed
# error naming the file and the JSON path; the test asserts it, not just "no crash".

HUGE = "@@huge-integer@@"          # stands for the digits json.dumps cannot write
huge_digits = st.tuples(st.sampled_from(["", "-"]), st.integers(MAX_INT_DIGITS + 1, 6000)).map(
    lambda t: t[0] + "7" * t[1])
surrogate_text = st.tuples(st.text(max_size=4), st.integers(0xD800, 0xDFFF).map(chr),
                           st.text(max_size=4)).map("".join)
KINDS = {"bool": st.booleans(), "int": st.integers(-3, 2 ** 40),
         "float": st.floats(-1e6, 1e6).filter(lambda f: f != int(f)),
         "str": st.text(max_size=6), "list": st.lists(st.integers(0, 3), max_size=2),
         "dict": st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)}
MANIFESTS = sorted(SNAPSHOTS.glob("*/*/manifest.json"))
SEED_MANIFESTS = [json.loads(path.read_text()) for path in MANIFESTS[::9]]


def kind_of(value) -> str:
    if value is None:
        return "null"
    for name, kind in (("bool", bool), ("int", int), ("float", float), ("str", str),
                       ("list", list), ("dict", dict)):
        if isinstance(value, kind):
            return name
    raise TypeError(value)


def value_at(document, path):
    for key in path:
        document = document[key]
    return document


def with_value(document, path, value):
    if not path:
        return value
    value_at(document, path[:-1])[path[-1]] = value
    return document


def dumped(document, digits: str = "") -> str:
    return json.dumps(document).replace(json.dumps(HUGE), digits, 1)


@st.composite
def hostile_documents(draw, seeds: list):
    """(JSON text, JSON path of the one planted problem, what the error says it is)."""
    document = copy.deepcopy(draw(st.sampled_from(seeds)))
    paths = list(leaf_paths(document))
    shape = draw(st.sampled_from(["huge integer", "surrogate", "surrogate key"]))
    if shape == "surrogate key":
        path = draw(st.sampled_from([p for p in paths if isinstance(value_at(document, p), dict)]))
        value_at(document, path)[draw(surrogate_text)] = 1
        return dumped(document), path, "a key with a lone surrogate"
    path = draw(st.sampled_from(paths))
    if shape == "surrogate":
        return dumped(with_value(document, path, draw(surrogate_text))), path, \
            "a string with a lone surrogate"
    digits = draw(huge_digits)
    return (dumped(with_value(document, path, HUGE), digits), path,
            f"an integer of {len(digits.lstrip('-'))} digits")


@st.composite
def wrong_typed_documents(draw, seeds: list, free_form):
    """(JSON text, path) with the value at path replaced by one of another JSON type (never
    null: optional fields take it). `free_form(path)` marks values no schema types."""
    document = copy.deepcopy(draw(st.sampled_from(seeds)))
    paths = [path for path in leaf_paths(document)
             if path and value_at(document, path) is not None and not free_form(path)]
    path = draw(st.sampled_from(paths))
    was = kind_of(value_at(document, path))
    kind = draw(st.sampled_from([kind for kind in KINDS if kind != was]))
    return dumped(with_value(document, path, draw(KINDS[kind]))), path


def named_key(path) -> str:
    """The last key of a path, as an error naming the field shows it."""
    return next(str(key) for key in reversed(path) if isinstance(key, str))


def plan_free_form(path) -> bool:
    # requiredDistribution is Flink's shape ({"type": "UNKNOWN"}, {"type": "HASH", "keys":
    # [...]}) kept as written: the engine never reads it.
    return "requiredDistribution" in path[:-1]


@GARBAGE
@given(hostile_documents(SEED_PLANS))
def test_a_huge_integer_or_a_lone_surrogate_anywhere_in_a_plan_is_refused_at_its_path(case):
    text, path, what = case
    with pytest.raises(PlanFormatError, match=rf"^plan.json: at {re.escape(json_path(path))}: "
                                              rf"{what}"):
        parse_plan(text, "plan.json")


@GARBAGE
@given(wrong_typed_documents(SEED_PLANS, plan_free_form))
def test_a_value_of_the_wrong_json_type_in_any_plan_field_is_refused_naming_it(case):
    text, path = case
    with pytest.raises(PlanFormatError, match=r"^plan.json: ") as info:
        parse_plan(text, "plan.json")
    named = "node type" if path[0] == "nodes" and path[2:] == ("type",) else named_key(path)
    assert named in str(info.value)


@pytest.mark.parametrize("functions", [5, 1.5, True, "f"])
def test_a_calc_whose_functions_field_is_no_list_is_refused_naming_it(functions):
    """The calc reads its functions' names before the field's own validation: a value of
    another JSON type must reach that validation, not break the read."""
    path = next(path for path in PLANS if '"type": "stream-exec-calc_1"' in path.read_text())
    plan = json.loads(path.read_text())
    calc = next(node for node in plan["nodes"] if node["type"] == "stream-exec-calc_1")
    calc["functions"] = functions
    with pytest.raises(PlanFormatError, match=r"^plan.json: .*functions"):
        parse_plan(json.dumps(plan), "plan.json")


@pytest.mark.parametrize("names", [{}, {"systemName": None, "catalogName": ""}])
def test_a_function_without_a_name_is_refused_naming_the_field(names):
    """A function spec names its function (systemName or catalogName): without a name the
    calc's functions field is refused as such, not with an error of the name lookup."""
    path = next(path for path in PLANS if '"type": "stream-exec-calc_1"' in path.read_text())
    plan = json.loads(path.read_text())
    calc = next(node for node in plan["nodes"] if node["type"] == "stream-exec-calc_1")
    calc["functions"] = [{"implementation": "programs._functions:Upper", "kind": "SCALAR",
                          "argumentTypes": ["STRING"], "resultType": "STRING", **names}]
    with pytest.raises(PlanFormatError, match=r"^plan.json: .*functions.*systemName or its "
                                              r"catalogName"):
        parse_plan(json.dumps(plan), "plan.json")


@GARBAGE
@given(st.sampled_from(SEED_PLANS), st.one_of(
    st.integers(2, 5000).map(lambda n: "1" * n), st.text(max_size=12),
    st.sampled_from(["²", "١", "1_0", "+1", " 1", "0x1", "1e3", "-1"])))
@example(SEED_PLANS[0], "11111111111111111111111")
def test_a_node_type_with_any_version_suffix_is_a_plan_format_error(seed, version):
    plan = copy.deepcopy(seed)
    name = plan["nodes"][0]["type"].rpartition("_")[0]
    plan["nodes"][0]["type"] = f"{name}_{version}"
    if version in ("1", "01"):                              # a version the node has
        return
    with pytest.raises(PlanFormatError, match=r"^plan.json: node \d+: (unknown )?node type '"):
        parse_plan(json.dumps(plan), "plan.json")


# ----------------------------------------------------------------------- checkpoint markers

VERSION_TEXT = re.compile(r"[0-9]{1,6}(\.[0-9]{1,6}){1,3}")
ABSENT = object()
marker_values = st.one_of(st.sampled_from(["0.1", "0.3", "4.3.0", "99.0.0"]), st.just(ABSENT),
                          st.just(HUGE), st.none(), surrogate_text,
                          *(KINDS[kind] for kind in KINDS))
PLAN_NODES = parse_plan(json.dumps(SEED_PLANS[0]), "plan.json").nodes


@GARBAGE
@given(engine=marker_values, spark=marker_values, digits=huge_digits)
@example(engine=None, spark=ABSENT, digits="1" * 5000)        # was AttributeError (issue 34)
@example(engine=HUGE, spark=ABSENT, digits="1" * 5000)        # was ValueError
def test_a_checkpoint_marker_with_a_bad_field_is_a_checkpoint_error(tmp_path_factory, engine,
                                                                    spark, digits):
    directory = tmp_path_factory.mktemp("checkpoint")
    marker = {key: value for key, value in (("engineVersion", engine), ("sparkVersion", spark))
              if value is not ABSENT}
    (directory / CHECKPOINT_MARKER).write_text(dumped(marker, digits), encoding="utf-8")
    valid = (isinstance(engine, str) and VERSION_TEXT.fullmatch(engine) is not None and
             (spark is ABSENT or isinstance(spark, str) and VERSION_TEXT.fullmatch(spark)))
    if valid:      # a good marker may still be too old for a node, or of a newer Spark
        typed_or_accepted(lambda: check_restorable(PLAN_NODES, directory, "restore"),
                          CheckpointError, PlanVersionError)
        return
    for call in (lambda: written_by(directory),
                 lambda: check_restorable(PLAN_NODES, directory, "restore")):
        with pytest.raises(CheckpointError, match=re.escape(str(directory / CHECKPOINT_MARKER))):
            call()


# -------------------------------------------------------------------------------- manifests

def manifest_fixture(tmp_path_factory, text: str) -> Fixture:
    directory = tmp_path_factory.mktemp("fixture") / "calc_1" / "calc-x"
    directory.mkdir(parents=True)
    fixture = Fixture(directory, "calc", 1, "calc-x")
    fixture.manifest_path.write_text(text, encoding="utf-8")
    return fixture


def manifest_free_form(path) -> bool:
    # A state layout is the node's own description; row values are checked against the
    # sink's types when the rows are decoded (decode_rows), not by the manifest's shape.
    return (path[:1] == ("stateLayouts",) and len(path) > 2) or \
        (path[:1] == ("beforeRestoreOutput",) and len(path) > 4)


@GARBAGE
@given(hostile_documents(SEED_MANIFESTS))
def test_a_huge_integer_or_a_lone_surrogate_anywhere_in_a_manifest_is_refused_at_its_path(
        tmp_path_factory, case):
    text, path, what = case
    with pytest.raises(FixtureError, match=rf"^fixture calc_1/calc-x: manifest.json: at "
                                           rf"{re.escape(json_path(path))}: {what}"):
        read_manifest(manifest_fixture(tmp_path_factory, text))


@GARBAGE
@given(wrong_typed_documents(SEED_MANIFESTS, manifest_free_form))
def test_a_value_of_the_wrong_json_type_in_any_manifest_field_is_refused_naming_it(
        tmp_path_factory, case):
    text, path = case
    with pytest.raises(FixtureError, match=r"^fixture calc_1/calc-x: manifest") as info:
        read_manifest(manifest_fixture(tmp_path_factory, text))
    named = "manifest format" if path == ("formatVersion",) else named_key(path)
    assert named in str(info.value)


# ------------------------------------------------------------------- program steps, malformed

SCHEMA_FRAGMENTS = ["a INT", "b STRING", "t TIMESTAMP(3)", ")", "(", ";", ",", "'", "`", "--",
                    "/*", "*/", "\n", "NOT NULL", "AS", "x", "WITH ('connector' = 'values')",
                    "CREATE TABLE X (c INT", "SET 'a' = 'b'", "INSERT INTO S SELECT 1",
                    "PRIMARY KEY (a) NOT ENFORCED", "WATERMARK FOR t AS t - INTERVAL '1' SECOND",
                    "DECIMAL(" + "9" * 50 + ", 2)", "ARRAY<INT>", "ROW<x INT>", "a AS b + 1"]
schema_components = st.lists(st.sampled_from(SCHEMA_FRAGMENTS), min_size=1, max_size=8).map(
    " ".join)
OPTION_VALUES = st.one_of(st.sampled_from(["I", "I,UB,UA,D", "I,UA,D", "X", "", "true", "maybe",
                                           "rows.json"]), st.text(max_size=8), python_values)


def build_source(schema, option, rows) -> None:
    from harness import SourceTestStep

    (SourceTestStep.new_builder("T").add_schema(*schema).add_option(*option)
     .producing_before_restore(*rows).build())


@GARBAGE
@given(schema=st.lists(schema_components, min_size=1, max_size=3),
       option=st.tuples(st.sampled_from(["changelog-mode", "sink-insert-only", "path"]),
                        OPTION_VALUES),
       rows=st.lists(st.lists(python_values, max_size=3), max_size=2))
@example(schema=["a INT) WITH ('connector'='values'); CREATE TABLE X (b INT"],
         option=("changelog-mode", "I"), rows=[])                 # was ValueError (issue 34)
def test_malformed_program_steps_are_program_errors(schema, option, rows):
    typed_or_accepted(lambda: build_source(schema, option, rows), ProgramError)


@GARBAGE
@given(columns=st.lists(st.sampled_from(["a INT", "b STRING", "c BIGINT NOT NULL"]), min_size=1,
                        max_size=3, unique=True),
       second=st.sampled_from(["CREATE TABLE X (b INT", "SET 'a' = 'b'; CREATE TABLE Y (c INT",
                               "INSERT INTO T SELECT 1 FROM X; CREATE TABLE Z (d INT"]))
def test_a_schema_component_that_closes_the_table_is_a_program_error(columns, second):
    closing = columns[-1] + ") WITH ('connector' = 'values'); " + second
    with pytest.raises(ProgramError, match=r"^table 'T': add_schema: the components make \d "
                                           r"statements, not one CREATE TABLE"):
        build_source([*columns[:-1], closing], ("changelog-mode", "I"), [])


@GARBAGE
@given(where=st.sampled_from(["schema", "option", "description", "sql", "row", "expected"]),
       text=surrogate_text)
def test_a_lone_surrogate_in_any_program_text_is_a_program_error(where, text):
    from harness import SinkTestStep, TableTestProgram

    calls = {
        "schema": lambda: build_source([f"a{text} INT"], ("changelog-mode", "I"), []),
        "option": lambda: build_source(["a INT"], ("path", text), []),
        "description": lambda: TableTestProgram.of("calc-x", f"a{text}"),
        "sql": lambda: TableTestProgram.of("calc-x", "x").run_sql(f"INSERT INTO S SELECT '{text}'"),
        "row": lambda: build_source(["a STRING"], ("changelog-mode", "I"), [[text]]),
        "expected": lambda: SinkTestStep.new_builder("S").add_schema("a STRING")
        .consuming_before_restore(f"+I[{text}]"),
    }
    with pytest.raises(ProgramError, match=r"holds a lone surrogate \(\\ud[89a-f][0-9a-f]{2} at "
                                           r"character \d+\), which is not text$"):
        calls[where]()


# ---------------------------------------------------------------------- planner up to Spark

columns = st.sampled_from(["a", "b", "t", "T.a", "x", "`a`", "`a``b`"])
literals = st.sampled_from(["1", "-7", "1.5", "'s'", "NULL", "TRUE", "1E3", "DATE '2024-01-01'",
                            "INTERVAL '1' SECOND", "X'0A'"])
functions = st.sampled_from(["UPPER", "ABS", "COALESCE", "CHAR_LENGTH", "SUBSTRING", "ROUND",
                             "CONCAT", "REFLECT", "JAVA_METHOD", "NO_SUCH_FN", "COUNT", "SUM",
                             "MAX", "ROW_NUMBER", "CAST_", "IF", "TRY_CAST_", "RAISE_ERROR"])
types = st.sampled_from(["INT", "STRING", "DECIMAL(10, 2)", "TIMESTAMP(3)", "BYTES", "BOOLEAN"])


def combine(children):
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "%", "=", "<>", "<", "AND",
                                                  "OR", "||", "IS NOT DISTINCT FROM"]), children
                       ).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    call = st.tuples(functions, st.lists(children, max_size=3)).map(
        lambda t: (f"CAST({t[1][0]} AS INT)" if t[0] == "CAST_" and t[1] else
                   f"TRY_CAST({t[1][0]} AS STRING)" if t[0] == "TRY_CAST_" and t[1] else
                   f"{t[0]}({', '.join(t[1])})"))
    case = st.tuples(children, children, children).map(
        lambda t: f"CASE WHEN {t[0]} THEN {t[1]} ELSE {t[2]} END")
    cast = st.tuples(children, types).map(lambda t: f"CAST({t[0]} AS {t[1]})")
    return binary | call | case | cast


expressions = st.recursive(columns | literals, combine, max_leaves=8)


@pytest.mark.spark
@settings(GARBAGE, max_examples=60)
@given(projection=expressions, condition=st.one_of(st.none(), expressions))
@example(projection="reflect('java.lang.System', 'getProperty', 'user.home')", condition=None)
@example(projection="NULL", condition=None)                 # Spark types it VOID: was a raw ValueError
def test_the_planner_answers_garbage_with_typed_errors(spark, projection, condition):
    env = TableEnvironment(spark=spark)
    env.execute_sql(TABLES.replace("S (a INT, b STRING, t TIMESTAMP(3))", "S (x STRING)"))
    where = f" WHERE {condition}" if condition else ""
    # Spark's analyzer resolves the expression types: its round trips get a wider bound.
    typed_or_accepted(lambda: env.compile_sql(f"INSERT INTO S SELECT {projection} FROM T{where}"),
                      StreamPlanError, bound_s=5.0)
