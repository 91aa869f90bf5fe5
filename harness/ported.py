"""The programs ported from Flink's restore tests, and their table in docs/flink-programs.md,
generated from the program modules: each `ported_from` program, whether it is in its
module's PROGRAMS (it passes, with fixtures) or in its NOT_PASSING (with the reason).
`harness ported --write-docs` rewrites the table; a test compares it with the modules."""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass

from streamplan.testing import DOCS, GeneratedBlock

from .errors import ProgramError
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
        return "passes; fixtures" if self.reason is None else f"not passing: {self.reason}"


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
    passing = sum(entry.reason is None for entry in ported)
    return "\n".join(lines) + f"\n\n{len(ported)} ported, {passing} passing.\n"
