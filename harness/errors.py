"""Typed errors of the harness. Each says what is wrong, where, and what to do about it."""
from __future__ import annotations

from dataclasses import dataclass


class HarnessError(Exception):
    """Base class of every error the harness raises on purpose (printed without traceback)."""


class ProgramError(HarnessError):
    """A table test program is malformed: bad rows, unknown tables, duplicate ids, ..."""


class FixtureError(HarnessError):
    """A fixture is missing, modified, or forbidden by the version rules; names the remedy."""


class FrozenFixtureError(FixtureError):
    """Generate was asked to write fixtures of a node version that is not the latest."""


class ExpectationMismatch(HarnessError):
    """A sink produced other rows than the program expects; carries a readable diff."""

    def __init__(self, where: str, diff: str):
        self.where = where
        self.diff = diff
        super().__init__(f"{where}: the sink output differs from the expectation "
                         f"(- expected, + actual):\n{diff}")


class RefusalMismatch(HarnessError):
    """A statement that must be refused compiled, or failed with another error."""


@dataclass(frozen=True)
class Finding:
    """One audit problem: which check found it, about what, and the message (with remedy)."""

    check: str          # restore-completeness | consumed-options | version-rules | annotations
    subject: str        # e.g. 'stream-exec-calc_1' or 'calc_1/calc-projection-filter'
    message: str

    def __str__(self) -> str:
        return f"[{self.check}] {self.subject}: {self.message}"


class AuditFailure(HarnessError):
    """The audit found problems; `findings` lists every one of them."""

    def __init__(self, findings: list[Finding]):
        self.findings = list(findings)
        lines = "\n".join(f"  - {finding}" for finding in self.findings)
        super().__init__(f"audit failed with {len(self.findings)} finding(s):\n{lines}")


class ClusterError(HarnessError):
    """The Spark cluster in Docker cannot be built, started or reached; says why and what to do."""
