"""`harness demo`: the flagship program end to end, in a temporary snapshots root.

Generates the INTERVAL_JOIN_EARLY_FIRE fixture (plan + checkpoint after the before-restore
data), restores it with today's code and shows what each phase emitted. The checked-in
snapshots/ are not touched.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from .discovery import discover_programs, select_programs
from .generate import generate_fixture
from .restore import restore_fixture

FLAGSHIP = "interval-join-early-fire"


def _size_kib(directory: Path) -> float:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file()) / 1024


def run_demo(console: Console, program_id: str = FLAGSHIP) -> None:
    programs = discover_programs()
    (program,) = select_programs(programs, program_id=program_id)
    console.print(f"[bold]{program.id}[/]: {escape(program.description)}")
    console.print(program.run_step.text(), highlight=False, markup=False)
    with tempfile.TemporaryDirectory(prefix="harness-demo-") as root:
        fixture = generate_fixture(program, Path(root))
        console.print(f"\n[bold]generated[/] {fixture.directory.relative_to(root)} "
                      f"({_size_kib(fixture.directory):.0f} KiB: plan, checkpoint, manifest)")
        for name, step in program.sinks.items():
            console.print(f"  {name} before the restore: {', '.join(step.expected_before)}",
                          highlight=False, markup=False)
        result = restore_fixture(fixture, programs)
        console.print("[bold]restored[/] from a copy of the checkpoint; after the restore:")
        for name, output in result.sinks.items():
            for text in output.texts:
                console.print(f"  {name} {text}", highlight=False, markup=False)
        console.print("[green]outputs match the program's expectations[/]")
