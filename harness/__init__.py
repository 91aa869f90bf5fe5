"""Restore-compatibility test harness for streamplan: table test programs, fixtures per
exec-node version, restore replay, audits and the PR gate.

Programs use the builder API re-exported here (see harness.program for an example)::

    from harness import SinkTestStep, SourceTestStep, TableTestProgram
"""
from .errors import (AuditFailure, ExpectationMismatch, Finding, FixtureError, FrozenFixtureError,
                     HarnessError, ProgramError)
from .program import TableTestProgram
from .steps import (ConfigOptionTestStep, SinkTestStep, SourceTestStep, TableDistribution,
                    TestStep, advance_processing_time, changelog_row)

__all__ = ["TableTestProgram", "SourceTestStep", "SinkTestStep", "ConfigOptionTestStep", "TestStep",
           "TableDistribution",
           "advance_processing_time", "changelog_row",
           "HarnessError", "ProgramError", "FixtureError", "FrozenFixtureError",
           "ExpectationMismatch", "AuditFailure", "Finding"]
