"""User-defined functions without Spark: registration and declared types, the plan record,
resolution (missing class, changed signature), and UDAFs in the group aggregate's core with
Flink's AggregateFunction contract (accumulate, retract) against Flink's expected rows of
GroupAggregateTestPrograms' UDF programs, the accumulators going through their state layout
between every row as they would across restores."""
from __future__ import annotations

import pytest

from programs import _functions as udfs
from programs.group_aggregate import SOURCE_TWO
from streamplan.changelog import RowKind
from streamplan.errors import FunctionError, FunctionResolutionError
from streamplan.functions import define_function, resolve
from streamplan.nodes.function_spec import FunctionSpec
from streamplan.runtime.group_aggregate import (AggCall, GroupAggCore, GroupAggParams, _decode,
                                                _encode, state_layout)


def udaf_call(cls, args, name="f"):
    spec = define_function(name, cls, temporary_system=True).spec
    return AggCall("UDAF", None, False, spec.result_type, None, spec.implementation,
                   spec.accumulator_type, tuple(args))


def run(calls, rows, key_index=4):
    """Rows through the core keyed by `key_index`, each key's state encoded and decoded
    between rows; the upsert sink's view of the output (+I and +U)."""
    core = GroupAggCore(GroupAggParams(1, tuple(calls), generate_update_before=True))
    stored: dict = {}
    out_rows = []
    for row in rows:
        key = (row[key_index],)
        acc = _decode(stored[key], calls) if key in stored else None
        out: list = []
        acc = core.process(key, acc, RowKind.INSERT if len(row) == 5 else row[5], row[:5], out)
        if acc is None:
            stored.pop(key, None)
        else:
            stored[key] = _encode(acc, calls)
        out_rows += [f"{RowKind.from_code(code).short}[{', '.join(map(str, values))}]"
                     for code, values in out if code != RowKind.UPDATE_BEFORE.code]
    return out_rows




def source_rows(phase):
    return [tuple(values) for _, values in SOURCE_TWO.feed_rows(phase)]


def test_with_merge_program_rows_are_flinks():
    from programs.group_aggregate import GROUP_BY_UDF_WITH_MERGE as program

    calls = [udaf_call(udfs.WeightedAvgWithMerge, (4, 0), "my_avg"),
             udaf_call(udfs.ConcatDistinctAggFunction, (3,), "my_concat")]
    got = run(calls, source_rows("before") + source_rows("after"))
    sink = program.sinks["sink_t"]
    assert got == list(sink.expected_before) + list(sink.expected_after)


def test_without_merge_program_rows_are_flinks():
    """my_sum2's accumulator is an int that accumulate cannot change: always 0, as Flink's."""
    from programs.group_aggregate import GROUP_BY_UDF_WITHOUT_MERGE as program

    rows = [row + (10, 5) for row in source_rows("before") + source_rows("after")]
    calls = [udaf_call(udfs.VarSum1AggFunction, (2, 5), "my_sum1"),
             udaf_call(udfs.VarSum2AggFunction, (6, 2), "my_sum2"),
             udaf_call(udfs.WeightedAvg, (4, 0), "my_avg")]
    core = GroupAggCore(GroupAggParams(1, tuple(calls), generate_update_before=False))
    stored, got = {}, []
    for row in rows:
        key = (row[4],)
        acc = _decode(stored[key], calls) if key in stored else None
        out: list = []
        acc = core.process(key, acc, RowKind.INSERT, row, out)
        stored[key] = _encode(acc, calls)
        got += [f"{RowKind.from_code(code).short}[{', '.join(map(str, values))}]"
                for code, values in out]
    sink = program.sinks["sink_t"]
    assert got == list(sink.expected_before) + list(sink.expected_after)


def test_retract_runs_the_functions_retract():
    calls = [udaf_call(udfs.CountWithRetract, (3,))]
    core = GroupAggCore(GroupAggParams(1, tuple(calls), generate_update_before=True))
    out: list = []
    acc = core.process(("k",), None, RowKind.INSERT, (0, 0, 0, "x", "k"), out)
    acc = core.process(("k",), acc, RowKind.INSERT, (0, 0, 0, "y", "k"), out)
    acc = core.process(("k",), acc, RowKind.UPDATE_BEFORE, (0, 0, 0, "y", "k"), out)
    assert [(RowKind.from_code(c).short, v) for c, v in out] == [
        ("+I", ("k", 1)), ("-U", ("k", 1)), ("+U", ("k", 2)), ("-U", ("k", 2)), ("+U", ("k", 1))]


def test_state_layout_records_each_accumulator():
    calls = (udaf_call(udfs.WeightedAvgWithMerge, (4, 0), "my_avg"),
             udaf_call(udfs.ConcatDistinctAggFunction, (3,), "my_concat"))
    (layout,) = state_layout("`e`: BIGINT", calls, [None, None], [None, None]).values()
    assert layout["value"] == ("acc STRUCT<rowCount: BIGINT, a0: STRUCT<`sum`: BIGINT, `count`: "
                               "INT>, a1: STRUCT<`map`: MAP<STRING, BOOLEAN>, `list`: "
                               "ARRAY<STRING>>>")
    assert layout["accumulators"] == (
        "a0: programs._functions:WeightedAvgWithMerge ROW<sum BIGINT, count INT>; "
        "a1: programs._functions:ConcatDistinctAggFunction ROW<map MAP<STRING, BOOLEAN>, "
        "list ARRAY<STRING>>")


def test_registration_checks_the_class_and_its_types():
    with pytest.raises(FunctionError, match="not a ScalarFunction, TableFunction or AggregateFunction"):
        define_function("f", "programs._functions:_java_long_division", True)
    with pytest.raises(FunctionError, match="cannot import its class"):
        define_function("f", "programs._functions:Nope", True)

    class Local(udfs.WeightedAvg):
        pass

    with pytest.raises(FunctionError, match="inside a function"):
        define_function("f", Local, True)


def test_plans_name_functions_by_identity():
    system = define_function("My_Concat", udfs.ConcatDistinctAggFunction, True).spec
    catalog = define_function("my_avg", udfs.WeightedAvg, False).spec
    assert system.model_dump(by_alias=True, exclude_none=True) == {
        "systemName": "my_concat", "implementation": "programs._functions:ConcatDistinctAggFunction",
        "kind": "AGGREGATE", "argumentTypes": ["STRING"], "resultType": "STRING",
        "accumulatorType": "ROW<map MAP<STRING, BOOLEAN>, list ARRAY<STRING>>"}
    assert catalog.catalog_name == "`default_catalog`.`default_database`.`my_avg`"


def test_resolution_names_a_missing_function_and_the_node():
    spec = define_function("my_avg", udfs.WeightedAvg, False).spec
    gone = FunctionSpec(**{**spec.model_dump(), "implementation": "programs._gone:WeightedAvg"})
    with pytest.raises(FunctionResolutionError) as err:
        resolve(gone, "node 3 ('stream-exec-group-aggregate_1'), aggregate call 's3'")
    assert "node 3" in str(err.value) and "`default_catalog`.`default_database`.`my_avg`" in str(err.value)
    assert "make 'programs._gone:WeightedAvg' importable" in str(err.value)


def test_resolution_refuses_a_changed_accumulator(monkeypatch):
    spec = define_function("my_avg", udfs.WeightedAvg, False).spec
    monkeypatch.setattr(udfs.WeightedAvg, "ACCUMULATOR_TYPE", "ROW<sum BIGINT, count BIGINT>")
    with pytest.raises(FunctionResolutionError) as err:
        resolve(spec, "node 3")
    message = str(err.value)
    assert "accumulatorType 'ROW<sum BIGINT, count INT>' in the plan" in message
    assert "new name" in message and "migrate the state" in message


def calc_json(projection, functions=None):
    node = {"id": 2, "type": "stream-exec-calc_1", "projection": projection,
            "outputType": "ROW<`a` STRING>", "description": "Calc"}
    if functions is not None:
        node["functions"] = functions
    return node


def test_a_calc_may_call_only_the_functions_it_names():
    from streamplan.nodes.calc import StreamExecCalc

    shout = define_function("shout", udfs.Shout, True).spec.model_dump(by_alias=True,
                                                                       exclude_none=True)
    assert StreamExecCalc.model_validate(calc_json(["SHOUT(`s`)"], [shout])).functions[0].system_name == "shout"
    with pytest.raises(Exception, match="function SHOUT"):
        StreamExecCalc.model_validate(calc_json(["SHOUT(`s`)"]))
    with pytest.raises(Exception, match="function WHISPER"):
        StreamExecCalc.model_validate(calc_json(["WHISPER(`s`)"], [shout]))


def test_scalar_functions_called_are_found_by_name():
    from streamplan.functions.spark import scalar_functions_called

    functions = {d.name: d for d in (define_function("shout", udfs.Shout, True),
                                     define_function("my_avg", udfs.WeightedAvg, False))}
    assert [d.name for d in scalar_functions_called(functions, ["SHOUT(`s`)", "`shout`"])] == ["shout"]
    assert scalar_functions_called(functions, ["`t`.`shout`", "my_avg(a, b)"]) == []


def test_a_program_registers_each_kind_of_function():
    from harness import SinkTestStep, SourceTestStep, TableTestProgram
    from harness.errors import ProgramError

    builder = (TableTestProgram.of("calc-functions", "registers every kind")
               .setup_temporary_system_function("shout", udfs.Shout)
               .setup_catalog_function("split_words", "programs._functions:SplitWords")
               .setup_catalog_function("my_avg", udfs.WeightedAvg)
               .setup_table_source(SourceTestStep.new_builder("T").add_schema("s STRING").build())
               .setup_table_sink(SinkTestStep.new_builder("S").add_schema("s STRING")
                                 .consuming_before_restore().build())
               .run_sql("INSERT INTO S SELECT shout(s) FROM T"))
    program = builder.build()
    kinds = {(step.name, step.definition.kind, step.temporary_system)
             for step in program.function_steps}
    assert kinds == {("shout", "SCALAR", True), ("split_words", "TABLE", False),
                     ("my_avg", "AGGREGATE", False)}
    with pytest.raises(ProgramError, match="function 'shout' registered twice"):
        builder.setup_catalog_function("SHOUT", udfs.Shout)
    with pytest.raises(ProgramError, match="ACCUMULATOR_TYPE"):
        TableTestProgram.of("calc-x", "x").setup_catalog_function("bad", BadAccumulator)


class BadAccumulator(udfs.WeightedAvg):
    ACCUMULATOR_TYPE = "ROW<sum BIGINT,>"


def test_the_group_aggregate_resolves_its_functions_before_it_runs():
    from types import SimpleNamespace

    from streamplan.nodes.group_aggregate import AggCallSpec, resolve_user_functions

    spec = define_function("my_avg", udfs.WeightedAvg, False).spec
    gone = FunctionSpec(**{**spec.model_dump(), "implementation": "programs._functions:Gone"})
    calls = [AggCallSpec(name="EXPR$1", function="UDAF", arg_list=[0, 1], type="BIGINT",
                         user_function=gone)]
    node = SimpleNamespace(id=3, type="stream-exec-group-aggregate_1")
    with pytest.raises(FunctionResolutionError) as err:
        resolve_user_functions(node, calls)
    assert str(err.value).startswith("node 3 ('stream-exec-group-aggregate_1'), aggregate call "
                                     "'EXPR$1': function `default_catalog`.`default_database`."
                                     "`my_avg` (programs._functions:Gone) cannot be resolved")
