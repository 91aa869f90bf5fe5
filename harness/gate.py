"""The PR gate: every audit check and every fixture restore, as JUnit XML and a short summary.

    python -m harness.gate [--junit out/gate.xml] [--snapshots DIR]

Exit status 0 only when every check passed and every fixture restored.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from streamplan.nodes import REGISTRY
from streamplan.nodes.metadata import Registry

from .audit import audit_checks
from .discovery import discover_programs
from .errors import ProgramError
from .fixtures import DEFAULT_SNAPSHOTS, scan_snapshots
from .junit import Case, write_junit
from .progress import run_each
from .restore import restore_fixture
from .runner import default_spark


def run_gate(snapshots: Path, junit: Optional[Path], console: Console,
             registry: Registry = REGISTRY, spark=None) -> int:
    try:
        programs = discover_programs(registry=registry)
    except ProgramError as err:
        console.print(f"[red]gate: cannot load the programs:[/] {err}", highlight=False)
        if junit:
            write_junit(junit, {"programs": [Case("discovery", failure=str(err))]})
        return 1
    spark = default_spark(spark)
    audit_cases = []
    for name, check in audit_checks(programs, snapshots, registry, spark).items():
        started = time.monotonic()
        findings = check()
        failure = "\n".join(str(finding) for finding in findings) or None
        audit_cases.append(Case(name, time.monotonic() - started, failure))
        mark = "[green]✓[/]" if failure is None else "[red]✗[/]"
        console.print(f"{mark} audit {name}", highlight=False)
        for finding in findings:
            console.print(f"    {finding}", markup=False, highlight=False)
    fixtures, _ = scan_snapshots(snapshots)     # stray entries are a completeness finding
    outcomes = run_each(fixtures, lambda f: f.id,
                        lambda f: restore_fixture(f, programs, registry, spark), "restore", console)
    restore_cases = [Case(o.name, o.seconds, o.error) for o in outcomes]
    if junit:
        write_junit(junit, {"audit": audit_cases, "restore": restore_cases})
    return _summary(audit_cases, restore_cases, junit, console)


def _summary(audit_cases: list[Case], restore_cases: list[Case], junit: Optional[Path],
             console: Console) -> int:
    failed = [case for case in audit_cases + restore_cases if case.failure is not None]
    passed_audit = sum(case.failure is None for case in audit_cases)
    restored = sum(case.failure is None for case in restore_cases)
    verdict = "[green]PASSED[/]" if not failed else "[red]FAILED[/]"
    console.print(f"\ngate {verdict}: audit {passed_audit}/{len(audit_cases)} checks passed, "
                  f"restore {restored}/{len(restore_cases)} fixtures restored", highlight=False)
    for case in failed:
        console.print(f"  ✗ {case.name}: {case.failure.splitlines()[0]}", markup=False, highlight=False)
    if junit:
        console.print(f"JUnit XML: {junit}", highlight=False)
    return 1 if failed else 0


def main(junit: Optional[Path] = typer.Option(None, help="write JUnit XML here"),
         snapshots: Path = typer.Option(DEFAULT_SNAPSHOTS, help="fixture root")) -> None:
    """Audit + restore every fixture; non-zero exit on any incompatibility."""
    raise typer.Exit(code=run_gate(snapshots, junit, Console(stderr=False)))


if __name__ == "__main__":
    typer.run(main)
