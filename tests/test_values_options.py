"""The values connector's option values are checked by one table
(streamplan/values_connector.py), wherever a table comes from: the planner names the table,
the option, what it takes and the statement's position; the plan loader names the node and
field; the program builder names the table. No pydantic ValidationError escapes the planner
(issue 34). Planning here stops before Spark: a stub answers the planner's type questions."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness import ProgramError, SourceTestStep
from streamplan.errors import PlanFormatError, PlanningError
from streamplan.options import Configuration
from streamplan.plan import parse_plan
from streamplan.planner.planner import PlanBuilder
from streamplan.sql.parser import parse_script

SNAPSHOTS = Path(__file__).resolve().parent.parent / "snapshots"
PLAN = SNAPSHOTS / "calc_1" / "calc-changelog" / "plan" / "calc-changelog.json"

# option, bad value, what the error says the option takes
BAD_VALUES = {
    "changelog-mode X": ("changelog-mode", "X", r"'X' is not a changelog kind \(I, UB, UA, D\); "
                                                r"'changelog-mode' takes row kinds I, UB, UA and "
                                                r"D separated by commas, e.g. 'I,UB,UA,D'"),
    "changelog-mode empty part": ("changelog-mode", "I,,D", r"'' is not a changelog kind .*, "
                                                            r"e.g. 'I,UB,UA,D'"),
    "sink-insert-only maybe": ("sink-insert-only", "maybe", r"'maybe' is not a boolean; "
                                                            r"'sink-insert-only' takes 'true' or "
                                                            r"'false'"),
    "sink-changelog-mode-enforced UX": ("sink-changelog-mode-enforced", "I,UX",
                                        r"'UX' is not a changelog kind \(I, UB, UA, D\); "
                                        r"'sink-changelog-mode-enforced' takes row kinds I, UB, "
                                        r"UA and D separated by commas, e.g. 'I,UA,D'"),
    "disable-lookup yes": ("disable-lookup", "yes", r"'yes' is not a boolean; 'disable-lookup' "
                                                   r"takes 'true' or 'false' \(a planning hint; "
                                                   r"ignored\)"),
}


class _ReachedSpark(Exception):
    """The planner got past the tables to the question only Spark answers."""


class _NoSpark:
    def resolve(self, *args, **kwargs):
        raise _ReachedSpark()


def plan_script(source_option: tuple[str, str] = ("changelog-mode", "I"),
                sink_option: tuple[str, str] = ("sink-insert-only", "true")) -> None:
    script = (f"SET 'table.exec.state.ttl' = '1 h';\n"
              f"CREATE TABLE T (a INT) WITH ('connector' = 'values', '{source_option[0]}' = "
              f"'{source_option[1]}');\n"
              f"CREATE TABLE S (a INT) WITH ('connector' = 'values', '{sink_option[0]}' = "
              f"'{sink_option[1]}');\n"
              f"INSERT INTO S SELECT a FROM T")
    _, source, sink, insert = parse_script(script)
    PlanBuilder({"T": source, "S": sink}, Configuration(), _NoSpark()).plan([insert])


def test_valid_options_get_past_the_tables():
    with pytest.raises(_ReachedSpark):
        plan_script(("changelog-mode", "i, ub,UA,D"), ("sink-insert-only", "FALSE"))


@pytest.mark.parametrize("option", [("filterable-fields", "a"), ("disable-lookup", "true"),
                                    ("enable-watermark-push-down", "false")])
def test_flinks_planning_hints_of_the_values_connector_are_accepted(option):
    # Flink's own programs declare them; they shape Flink's plan, not the results
    with pytest.raises(_ReachedSpark):
        plan_script(option)


@pytest.mark.parametrize("key, value, takes", BAD_VALUES.values(), ids=BAD_VALUES.keys())
def test_the_planner_names_the_table_the_option_and_what_it_takes(key, value, takes):
    as_source = not key.startswith("sink-")
    line, table = (2, "T") if as_source else (3, "S")
    options = {"source_option": (key, value)} if as_source else {"sink_option": (key, value)}
    with pytest.raises(PlanningError, match=rf"^<script>:{line}:1: table '{table}': option "
                                            rf"'{key}': {takes}$"):
        plan_script(**options)


@pytest.mark.parametrize("key, value, takes", BAD_VALUES.values(), ids=BAD_VALUES.keys())
def test_the_plan_loader_names_the_node_and_field(key, value, takes):
    plan = json.loads(PLAN.read_text())
    node = plan["nodes"][0 if key != "sink-insert-only" else 2]
    node["table"]["options"][key] = value
    with pytest.raises(PlanFormatError, match=rf"node {node['id']} .*field 'table.options': "
                                              rf"{takes}"):
        parse_plan(json.dumps(plan), "plan.json")


@pytest.mark.parametrize("key, value, takes", BAD_VALUES.values(), ids=BAD_VALUES.keys())
def test_the_program_builder_names_the_table(key, value, takes):
    with pytest.raises(ProgramError, match=rf"^table 'T': option '{key}': {takes}$"):
        SourceTestStep.new_builder("T").add_schema("a INT").add_option(key, value)
