"""Run one action per item under a rich progress bar and collect the outcomes.

Expected failures (harness and streamplan errors) become outcomes with a message; anything
else is a bug and propagates with its traceback.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Optional, TypeVar

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                           TimeElapsedColumn)

from streamplan.testing import StreamPlanError

from .errors import HarnessError

T = TypeVar("T")
EXPECTED_ERRORS = (HarnessError, StreamPlanError)


@dataclass(frozen=True)
class Outcome:
    name: str
    seconds: float
    error: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None


def run_each(items: list[T], name_of: Callable[[T], str], action: Callable[[T], object],
             title: str, console: Console) -> list[Outcome]:
    outcomes = []
    columns = (SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
               MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(title, total=len(items))
        for item in items:
            name = name_of(item)
            progress.update(task, description=f"{title} {name}")
            started = time.monotonic()
            try:
                action(item)
                outcome = Outcome(name, time.monotonic() - started)
            except EXPECTED_ERRORS as err:
                outcome = Outcome(name, time.monotonic() - started, str(err))
            outcomes.append(outcome)
            report(outcome, console)
            progress.advance(task)
    return outcomes


def report(outcome: Outcome, console: Console) -> None:
    mark = "[green]✓[/]" if outcome.ok else "[red]✗[/]"
    console.print(f"{mark} {outcome.name} [dim]({outcome.seconds:.1f} s)[/]", highlight=False)
    if not outcome.ok:
        for line in outcome.error.splitlines():
            console.print(f"    {line}", markup=False, highlight=False)
