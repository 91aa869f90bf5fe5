"""The audit's function-accumulators check over the checked-in fixtures (no Spark): a UDAF
whose accumulator type changes while fixtures hold it fails the audit, naming the function,
the fixtures and the remedies; unchanged functions pass."""
from __future__ import annotations

from harness.audit import CHECKS, audit_checks
from harness.fixtures import DEFAULT_SNAPSHOTS
from harness.function_rules import FUNCTION_ACCUMULATORS, check_function_accumulators, functions_held
from programs import _functions as udfs

UDAF_FIXTURE = "group-aggregate_1/group-aggregate-udf-without-merge"


def test_fixtures_hold_the_udaf_programs_functions():
    held = {(identity, implementation): fixtures
            for (identity, implementation, _), fixtures in functions_held(DEFAULT_SNAPSHOTS).items()}
    assert UDAF_FIXTURE in held[("`default_catalog`.`default_database`.`my_avg`",
                                 "programs._functions:WeightedAvg")]
    assert ("my_concat", "programs._functions:ConcatDistinctAggFunction") in held


def test_unchanged_functions_pass():
    assert FUNCTION_ACCUMULATORS in CHECKS
    assert check_function_accumulators(DEFAULT_SNAPSHOTS) == []


def test_a_changed_accumulator_type_fails_naming_function_and_fixtures(monkeypatch):
    monkeypatch.setattr(udfs.VarSum1AggFunction, "ACCUMULATOR_TYPE", "ROW<sum DOUBLE>")
    findings = audit_checks([], DEFAULT_SNAPSHOTS)[FUNCTION_ACCUMULATORS]()
    # one finding per name the class is registered under: my_sum1 (the group aggregate's
    # programs) and my_sum (over-aggregate-udaf)
    assert sorted(finding.subject for finding in findings) == ["my_sum", "my_sum1"], findings
    (finding,) = [finding for finding in findings if finding.subject == "my_sum1"]
    assert "over-aggregate_1/over-aggregate-udaf" in next(
        f.message for f in findings if f.subject == "my_sum")
    message = finding.message
    assert "programs._functions:VarSum1AggFunction" in message
    assert "changed from 'ROW<sum BIGINT>' to 'ROW<sum DOUBLE>'" in message
    assert UDAF_FIXTURE in message
    assert f"{UDAF_FIXTURE}/spark-4.1.4" in message          # every Spark release's fixture
    assert "new name" in message and "migrate the state" in message


def test_a_missing_class_fails_naming_the_fixtures(monkeypatch):
    monkeypatch.delattr(udfs, "ConcatDistinctAggFunction")
    (finding,) = check_function_accumulators(DEFAULT_SNAPSHOTS)
    assert finding.subject == "my_concat"
    assert "cannot be imported" in finding.message
    assert "group-aggregate_1/group-aggregate-udf-with-merge" in finding.message
