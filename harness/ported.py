"""The programs ported from Flink's restore tests, and their table in docs/flink-programs.md,
generated from the program modules: each `ported_from` program, whether it is in its
module's PROGRAMS (it passes, with fixtures) or in its NOT_PASSING (with the reason).
`harness ported --write-docs` rewrites the table; a test compares it with the modules.

Every program ever ported is recorded in `snapshots/flink-programs.json` (`--write-docs`
adds new ones, nothing removes one), and the audit fails when a recorded program is gone:
a ported program that stops passing moves to NOT_PASSING with its reason, it is never
dropped quietly."""
from __future__ import annotations

import importlib
import json
import pkgutil
from dataclasses import dataclass
from pathlib import Path

from streamplan.testing import DOCS, GeneratedBlock

from .errors import Finding, FixtureError, ProgramError
from .fixtures import PORTED_FILE
from .program import TableTestProgram

PORTED_TABLE = GeneratedBlock(DOCS / "flink-programs.md", "ported programs",
                              "harness ported --write-docs")


@dataclass(frozen=True)
class PortedProgram:
    node: str                       # the node's short name, e.g. "join"
    program: TableTestProgram
    reason: str | None              # None: in PROGRAMS; else why it is not passing yet

    @property
    def status(self) -> str:
        if self.reason is not None:
            return f"not passing: {self.reason}"
        if self.program.planned_before is not None:
            options = "".join(f"; planned with '{key}' = '{value}'"
                              for key, value in self.program.planned_with)
            return (f"passes; fixtures; its semantic run takes its fixture's plan: "
                    f"{self.program.planned_before}{options}")
        return "passes; fixtures"


def ported_programs(package: str = "programs") -> list[PortedProgram]:
    """Every ported program of every module, in module then definition order; a ported program
    neither in PROGRAMS nor in NOT_PASSING, in both, or named unlike Flink's constant, is an
    error naming it."""
    found = []
    root = importlib.import_module(package)
    for info in sorted(pkgutil.iter_modules(root.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package}.{info.name}")
        running = {program.id for program in getattr(module, "PROGRAMS", [])}
        not_passing = getattr(module, "NOT_PASSING", {})
        both = running & set(not_passing)
        if both:
            raise ProgramError(f"{module.__name__}: {', '.join(sorted(both))} both in PROGRAMS "
                               f"and NOT_PASSING; a program that passes leaves NOT_PASSING")
        for value in vars(module).values():
            if not isinstance(value, TableTestProgram) or value.ported_from is None:
                continue
            constant = value.ported_from.reference.split("#")[1]
            if getattr(module, constant, None) is not value:
                raise ProgramError(f"{module.__name__}: {value.id} ({value.ported_from.reference}) "
                                   f"must be the module's {constant}, as Flink names it")
            if value.id not in running | set(not_passing):
                raise ProgramError(f"{module.__name__}: {value.id} ({value.ported_from.reference}) "
                                   f"is neither in PROGRAMS nor in NOT_PASSING with its reason")
            found.append(PortedProgram(info.name.replace("_", "-"), value,
                                       not_passing.get(value.id)))
    return found


def ported_table(ported: list[PortedProgram]) -> str:
    lines = ["| node | Flink program (`File.java#CONSTANT`, read at) | status |", "|---|---|---|"]
    for entry in ported:
        source = entry.program.ported_from
        lines.append(f"| {entry.node} | `{source.reference}` @ {source.commit[:12]} | "
                     f"{' '.join(entry.status.split())} |")
    return "\n".join(lines) + f"\n\n{counts(ported)}.\n"


def counts(ported: list[PortedProgram]) -> str:
    passing = sum(entry.reason is None for entry in ported)
    return f"{len(ported)} ported, {passing} passing"


def read_record(snapshots: Path) -> dict[str, str]:
    """`File.java#CONSTANT` -> program id of every program recorded as ported."""
    path = Path(snapshots) / PORTED_FILE
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))["programs"]
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise FixtureError(f"{path}: not a record of ported programs ({err}); restore it "
                           f"from git") from None


def record_ported(ported: list[PortedProgram], snapshots: Path) -> list[str]:
    """Add the ported programs not recorded yet; returns their references."""
    record = read_record(snapshots)
    added = [entry.program.ported_from.reference for entry in ported
             if entry.program.ported_from.reference not in record]
    if added:
        record.update({entry.program.ported_from.reference: entry.program.id
                       for entry in ported})
        text = json.dumps({"programs": dict(sorted(record.items()))}, indent=2) + "\n"
        (Path(snapshots) / PORTED_FILE).write_text(text, encoding="utf-8")
    return added


def check_ported(ported: list[PortedProgram], snapshots: Path, check: str) -> list[Finding]:
    """A recorded program that is no longer ported, or a ported one not recorded."""
    record = read_record(snapshots)
    now = {entry.program.ported_from.reference: entry.program.id for entry in ported}
    findings = [Finding(check, reference, f"ported program '{program_id}' is gone: a ported "
                        f"program stays, in PROGRAMS or in NOT_PASSING with its reason "
                        f"(removing one on purpose means deleting its entry from "
                        f"snapshots/{PORTED_FILE} in the same review)")
                for reference, program_id in sorted(record.items()) if reference not in now]
    findings += [Finding(check, reference, f"ported program '{program_id}' is not recorded in "
                         f"snapshots/{PORTED_FILE}: run `harness ported --write-docs`")
                 for reference, program_id in sorted(now.items()) if reference not in record]
    return findings
