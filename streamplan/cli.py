"""`streamplan` command line: compile, migrate, explain, execute, run."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

from .errors import StreamPlanError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Flink-style streaming SQL compiled to versioned exec-node plans on Spark.")
console = Console()
errors = Console(stderr=True)


@app.callback()
def _options(verbose: bool = typer.Option(
        False, "-v", "--verbose",
        help="log what restores and migrations do per node (version read, migration applied, "
             "version executed) to stderr")):
    if verbose:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        logger = logging.getLogger("streamplan")
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


ALLOW_PATHS_OUTSIDE = typer.Option(
    False, "--allow-paths-outside",
    help="let tables read 'path' files outside the base directory (the current directory for "
         "execute, the script's for run); off, a tampered plan cannot read arbitrary files")


def _env(master: Optional[str], base: Path, allow_paths_outside: bool = False):
    from .api import TableEnvironment
    from .runtime.session import spark_session

    env = TableEnvironment(base_dir=base, allow_paths_outside=allow_paths_outside)
    if master:
        env.spark = spark_session(master=master)
    return env


def _fail(err: StreamPlanError) -> None:
    errors.print(f"[bold red]error:[/] {escape(str(err))}", markup=True, highlight=False, soft_wrap=True)
    raise typer.Exit(code=1)


@app.command()
def compile(script: Path = typer.Argument(..., exists=True, dir_okay=False,
                                          help="SQL script: CREATE TABLEs, SETs and one INSERT"),
            output: Path = typer.Option(..., "-o", "--output", help="plan file to write"),
            master: Optional[str] = typer.Option(None, help="Spark master URL (default local[2])")):
    """Compile SCRIPT's INSERT (or statement set) into a JSON plan."""
    try:
        plan = _env(master, script.parent).compile_sql(script.read_text(), str(script))
        plan.write(output)
    except StreamPlanError as err:
        _fail(err)
    console.print(f"wrote {output} ({len(plan.nodes)} nodes)", markup=False)


@app.command()
def migrate(old: Path = typer.Argument(..., exists=True, dir_okay=False,
                                       help="a plan written by an older engine"),
            output: Optional[Path] = typer.Option(None, "-o", "--output",
                                                  help="the migrated plan to write"),
            dry_run: bool = typer.Option(False, "--dry-run",
                                         help="show what would change; write nothing"),
            if_not_exists: bool = typer.Option(False, "--if-not-exists",
                                               help="do nothing when OUTPUT exists")):
    """Migrate OLD to today's node versions (COMPILE PLAN 'new.json' FROM 'old.json'); the
    checkpoint restores with the new plan. Prints each node's change as JSON paths."""
    from .api import TableEnvironment

    if output is None and not dry_run:
        errors.print("[bold red]error:[/] give -o/--output, or --dry-run to only show the changes")
        raise typer.Exit(code=2)
    if output is not None and output.exists() and if_not_exists:
        console.print(f"skipped: {output} exists (--if-not-exists)", markup=False)
        return
    try:
        result = TableEnvironment().migrate_plan(old, None if dry_run else output)
    except StreamPlanError as err:
        _fail(err)
    typer.echo(result.describe())
    if dry_run:
        console.print("dry run: nothing written")
    else:
        console.print(f"wrote {output}", markup=False)


@app.command()
def explain(plan_file: Path = typer.Argument(..., exists=True, dir_okay=False)):
    """Validate a plan and print its node tree (no Spark needed)."""
    from .api import explain_plan
    from .plan import load_plan

    try:
        typer.echo(explain_plan(load_plan(plan_file)), nl=False)
    except StreamPlanError as err:
        _fail(err)


@app.command()
def nodes(write_docs: bool = typer.Option(False, "--write-docs",
                                          help="rewrite the catalog in docs/streamplan.md")):
    """The exec nodes this engine runs: versions and state (docs/streamplan.md's catalog)."""
    from .catalog import NODE_CATALOG, node_table

    if write_docs:
        changed = NODE_CATALOG.write(node_table())
        console.print(f"{'updated' if changed else 'unchanged'}: {NODE_CATALOG.page}")
    else:
        typer.echo(node_table(), nl=False)


def _print_run(result) -> None:
    for name, sink in result.sinks.items():
        console.print(f"[bold]{escape(name)}[/]: {len(sink.rows)} changelog row(s)")
        for text in sink.texts:
            typer.echo(f"  {text}")


@app.command()
def execute(plan_file: Path = typer.Argument(..., exists=True, dir_okay=False),
            checkpoint: Path = typer.Option(..., help="checkpoint directory (created or resumed)"),
            output: Optional[Path] = typer.Option(None, help="where sinks record their changelog "
                                                             "(default: CHECKPOINT/../output)"),
            end_of_input: bool = typer.Option(True, help="advance event time to the end after "
                                                         "the data, flushing timers"),
            master: Optional[str] = typer.Option(None, help="Spark master URL"),
            allow_paths_outside: bool = ALLOW_PATHS_OUTSIDE):
    """Execute a compiled plan (never re-plans SQL); tables read their 'path' data files."""
    from .plan import load_plan

    try:
        plan = load_plan(plan_file)
        env = _env(master, Path.cwd(), allow_paths_outside)
        result = env.execute_plan(plan, checkpoint, output or checkpoint.parent / "output",
                                  end_of_input=end_of_input)
    except StreamPlanError as err:
        _fail(err)
    _print_run(result)


@app.command()
def run(script: Path = typer.Argument(..., exists=True, dir_okay=False),
        checkpoint: Optional[Path] = typer.Option(None, help="checkpoint directory for INSERTs"),
        output: Optional[Path] = typer.Option(None, help="sink output directory"),
        master: Optional[str] = typer.Option(None, help="Spark master URL"),
        allow_paths_outside: bool = ALLOW_PATHS_OUTSIDE):
    """Run every statement of a script (SET, CREATE TABLE, INSERT, COMPILE/EXECUTE/EXPLAIN PLAN)."""
    try:
        env = _env(master, script.parent, allow_paths_outside)
        env.checkpoint_dir, env.output_dir = checkpoint, output
        for result in env.execute_sql(script.read_text(), str(script)):
            if result.kind == "explained":
                typer.echo(result.detail, nl=False)
            elif result.run is not None:
                _print_run(result.run)
            elif result.kind == "migrated":
                typer.echo(result.detail)
            elif result.kind in ("compiled", "skipped"):
                console.print(f"{result.kind}: {result.detail}", markup=False)
    except StreamPlanError as err:
        _fail(err)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
