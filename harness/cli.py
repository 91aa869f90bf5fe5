"""`harness` command line: generate, restore, semantic, audit, gate, list.

    harness generate [--node calc] [--program calc-projection-filter] [--force]
    harness restore  [--node calc] [--program ID] [--cluster | --master spark://host:port]
    harness audit    [--no-compile]
    harness gate     [--junit out/gate.xml] [--gate-report out/gate.html] [--cluster] [--shard K/N]
    harness report merge OUT.xml OUT.html SHARD.xml...   one gate report from the shards' JUnit
    harness cluster image | up      the Spark cluster in Docker (harness.cluster)

Expected failures print as readable messages and exit 1; no tracebacks.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape

from streamplan.testing import StreamPlanError

from .discovery import discover_programs, node_of, select_programs, short_name
from .errors import HarnessError
from .fixtures import DEFAULT_SNAPSHOTS, Fixture, scan_snapshots
from .gate import CLUSTER_HELP, MASTER_HELP, SHARD
from .progress import Outcome, run_each

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Restore-compatibility tests for streamplan: table test programs, fixtures "
                       "per exec-node version, restore replay, audits.")
console = Console()
errors = Console(stderr=True)

NODE = typer.Option(None, "--node", help="exec node, short or full name (e.g. calc)")
PROGRAM = typer.Option(None, "--program", help="one program id")
SNAPSHOTS = typer.Option(DEFAULT_SNAPSHOTS, "--snapshots", help="fixture root directory")
CLUSTER = typer.Option(False, "--cluster", help=CLUSTER_HELP)
MASTER = typer.Option(None, "--master", help=MASTER_HELP)


def _say(line: str) -> None:
    errors.print(line, highlight=False)


def _fail(err: Exception) -> None:
    errors.print(f"[bold red]error:[/] {escape(str(err))}", highlight=False)
    raise typer.Exit(code=1)


def _finish(outcomes: list[Outcome], verb: str) -> None:
    failed = [outcome for outcome in outcomes if not outcome.ok]
    console.print(f"{len(outcomes) - len(failed)}/{len(outcomes)} {verb}", highlight=False)
    if failed or not outcomes:
        if not outcomes:
            errors.print("nothing matched the selection")
        raise typer.Exit(code=1)


@app.command()
def generate(node: Optional[str] = NODE, program: Optional[str] = PROGRAM,
             snapshots: Path = SNAPSHOTS,
             version: Optional[int] = typer.Option(None, help="refuse unless this is the latest "
                                                               "version (old versions are frozen)"),
             force: bool = typer.Option(False, help="overwrite a fixture even if today's node no "
                                                    "longer matches it (unreleased versions only)"),
             spark: Optional[str] = typer.Option(
                 None, "--spark", metavar="RELEASE",
                 help="run on this older PySpark release instead (an environment of its own, "
                      "created once): writes <program>/spark-RELEASE/ beside the pinned fixture, "
                      "sharing its plan"),
             release_run: bool = typer.Option(False, "--release-run", hidden=True)):
    """Write fixtures (plan, checkpoint, manifest) for the latest version of each node."""
    from streamplan.testing import running_spark_version

    from .generate import existing_fixture, generate_fixture, generate_release_fixture
    from .spark_releases import run_in_release, track_release

    if spark is not None:
        args = ["generate", "--release-run", "--snapshots", str(snapshots),
                *(["--node", node] if node else []), *(["--program", program] if program else []),
                *(["--force"] if force else [])]
        try:
            code = run_in_release(spark, args, console)
            if any(f.spark_release == spark for f in scan_snapshots(snapshots)[0]):
                track_release(snapshots, spark)      # the audit now expects it of every program
        except HarnessError as err:
            _fail(err)
        raise typer.Exit(code=code)
    try:
        selected = select_programs(discover_programs(), node, program)
    except HarnessError as err:
        _fail(err)
    if program is None and not force:     # a selection writes what is missing, nothing else
        release = running_spark_version() if release_run else None
        frozen = [p for p in selected if existing_fixture(p, snapshots, release=release)]
        if frozen:
            console.print(f"{len(frozen)} fixture(s) exist and are frozen: skipped")
            selected = [p for p in selected if p not in frozen]
            if not selected:
                raise typer.Exit(code=0)
    if release_run:
        action = lambda p: generate_release_fixture(p, snapshots, force=force)   # noqa: E731
    else:
        action = lambda p: generate_fixture(p, snapshots, version=version, force=force)  # noqa: E731
    outcomes = run_each(selected, lambda p: p.id, action, "generate", console)
    _finish(outcomes, "fixture(s) generated")


def _select_fixtures(snapshots: Path, node: Optional[str], program: Optional[str]) -> list[Fixture]:
    fixtures, _ = scan_snapshots(snapshots)
    if node is not None:
        fixtures = [f for f in fixtures if f.short_name == short_name(node)]
    if program is not None:
        fixtures = [f for f in fixtures if f.program_id == program]
    return fixtures


@app.command()
def restore(node: Optional[str] = NODE, program: Optional[str] = PROGRAM,
            snapshots: Path = SNAPSHOTS, cluster: bool = CLUSTER, master: Optional[str] = MASTER):
    """Restore every fixture (all registered versions) and compare with the expectations."""
    from .cluster.cluster import spark_target
    from .restore import restore_fixture

    try:
        programs = discover_programs()
        fixtures = _select_fixtures(snapshots, node, program)
        with spark_target(cluster, master, _say):
            outcomes = run_each(fixtures, lambda f: f.id, lambda f: restore_fixture(f, programs),
                                "restore", console)
    except HarnessError as err:
        _fail(err)
    _finish(outcomes, "fixture(s) restored")


@app.command()
def semantic(node: Optional[str] = NODE, program: Optional[str] = PROGRAM):
    """Run programs with all their data and no restore (no fixtures involved)."""
    from .runner import run_semantic

    try:
        selected = select_programs(discover_programs(), node, program)
    except HarnessError as err:
        _fail(err)
    outcomes = run_each(selected, lambda p: p.id, run_semantic, "semantic", console)
    _finish(outcomes, "program(s) passed")


@app.command()
def ported(write_docs: bool = typer.Option(False, "--write-docs",
                                           help="rewrite the table in docs/flink-programs.md")):
    """Flink's restore-test programs ported here: passing, or why not yet."""
    from .ported import PORTED_TABLE, ported_programs, ported_table, record_ported

    try:
        ported = ported_programs()
        table = ported_table(ported)
    except HarnessError as err:
        _fail(err)
    if write_docs:
        changed = PORTED_TABLE.write(table)
        console.print(f"{'updated' if changed else 'unchanged'}: {PORTED_TABLE.page}")
        for reference in record_ported(ported, DEFAULT_SNAPSHOTS):
            console.print(f"recorded as ported: {reference}", highlight=False)
    else:
        typer.echo(table, nl=False)


@app.command()
def audit(snapshots: Path = SNAPSHOTS,
          compile: bool = typer.Option(True, help="compile programs to compare plan shapes "
                                                  "(needs Spark); --no-compile skips that rule")):
    """Check annotations, consumed options, restore completeness and the version rules."""
    from .audit import run_audit

    from .ported import counts, ported_programs

    try:
        results = run_audit(discover_programs(), snapshots, compile=compile)
        console.print(f"Flink programs: {counts(ported_programs())}", highlight=False)
    except (HarnessError, StreamPlanError) as err:
        _fail(err)
    failed = False
    for name, findings in results.items():
        mark = "[green]✓[/]" if not findings else "[red]✗[/]"
        console.print(f"{mark} {name}", highlight=False)
        for finding in findings:
            console.print(f"    {finding.subject}: {finding.message}", markup=False, highlight=False)
        failed = failed or bool(findings)
    if failed:
        raise typer.Exit(code=1)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def gate(ctx: typer.Context,
         junit: Optional[Path] = typer.Option(None, help="write JUnit XML here"),
         report: Optional[Path] = typer.Option(None, "--gate-report", "--report",
                                          help="write the HTML gate report here"),
         snapshots: Path = SNAPSHOTS,
         spark: Optional[str] = typer.Option(
             None, "--spark", metavar="RELEASE",
             help="run the gate on another PySpark release (its own environment, created "
                  "once): the check before moving the pin (docs/fixtures.md)"),
         cluster: bool = CLUSTER, master: Optional[str] = MASTER,
         shard: Optional[str] = SHARD):
    """The PR gate: every audit check, fixture restore and program run, by pytest (extra
    arguments go to pytest, e.g. `harness gate -k interval-join`)."""
    from .gate import run_gate
    from .spark_releases import run_in_release

    if spark is not None and (cluster or master):
        _fail(HarnessError("--spark runs the gate locally in another release's environment; "
                           "it does not combine with --cluster or --master"))
    if spark is not None:
        args = ["gate", "--snapshots", str(snapshots),
                *([f"--junit={junit}"] if junit else []),
                *([f"--gate-report={report}"] if report else []),
                *([f"--shard={shard}"] if shard else []), *ctx.args]
        try:
            raise typer.Exit(code=run_in_release(spark, args, console))
        except HarnessError as err:
            _fail(err)
    try:
        code = run_gate(snapshots, junit, extra=ctx.args, report=report, cluster=cluster,
                        master=master, shard=shard)
    except HarnessError as err:
        _fail(err)
    raise typer.Exit(code=code)


report_app = typer.Typer(add_completion=False, no_args_is_help=True,
                         help="Gate reports: merge the JUnit XML of a sharded gate's shards.")
app.add_typer(report_app, name="report")


@report_app.command("merge")
def report_merge(out_xml: Path = typer.Argument(..., metavar="OUT.xml", help="merged JUnit XML"),
                 out_html: Path = typer.Argument(..., metavar="OUT.html", help="HTML gate report"),
                 shards: list[Path] = typer.Argument(..., metavar="SHARD.xml...",
                                                     help="every shard's JUnit XML")):
    """One JUnit XML and one HTML gate report from the shards of `ci/gate --shard K/N`
    (refuses unreadable files, a test in two shards, shards of different N or missing)."""
    from .report_merge import merge_reports

    try:
        line = merge_reports(out_xml, out_html, shards)
    except HarnessError as err:
        _fail(err)
    typer.echo(f"{line}\nmerged JUnit XML: {out_xml}\ngate report: {out_html}")


cluster_app = typer.Typer(add_completion=False, no_args_is_help=True,
                          help="The Spark standalone cluster in Docker (master + 2 workers on "
                               "127.0.0.1) that `--cluster` runs on.")
app.add_typer(cluster_app, name="cluster")


@cluster_app.command("image")
def cluster_image():
    """Build the cluster's node image (debootstrap + docker import), or say it exists."""
    from .cluster.engine import docker_client
    from .cluster.image import ensure_image

    try:
        console.print(ensure_image(docker_client(), _say), highlight=False)
    except HarnessError as err:
        _fail(err)


@cluster_app.command("up")
def cluster_up(workers: int = typer.Option(2, help="number of workers (one core each)")):
    """Start a cluster and keep it until Ctrl-C; prints the environment a driver needs."""
    import shlex
    import time

    from .cluster.cluster import SparkCluster, driver_environment

    try:
        with SparkCluster(workers=workers, say=_say) as cluster:
            environment = driver_environment(cluster)
            console.print(f"master {cluster.master_url}; a driver on it needs this environment "
                          f"(temp dirs in the directory the workers share):", highlight=False)
            for key, value in environment.items():
                console.print(f"export {key}={shlex.quote(value)}", markup=False, highlight=False)
            console.print("then e.g. `harness restore`; Ctrl-C stops the cluster.", highlight=False)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                _say("stopping the cluster")
    except HarnessError as err:
        _fail(err)


@app.command("list")
def list_(snapshots: Path = SNAPSHOTS):
    """Programs by node, and the fixtures on disk."""
    try:
        programs = discover_programs()
    except HarnessError as err:
        _fail(err)
    for program in programs:
        console.print(f"{short_name(node_of(program))}: [bold]{program.id}[/] - "
                      f"{escape(program.description)}",
                      highlight=False)
    fixtures, problems = scan_snapshots(snapshots)
    console.print(f"\n{len(fixtures)} fixture(s) under {snapshots}", highlight=False)
    for fixture in fixtures:
        console.print(f"  {fixture.id}", highlight=False)
    for problem in problems:
        console.print(f"  [red]?[/] {escape(str(problem))}", highlight=False)


@app.command()
def demo(program: str = typer.Option("interval-join-early-fire", "--program",
                                     help="program to generate and restore")):
    """Generate one program's fixture into a temp dir and restore it (the flagship by default)."""
    from .demo import run_demo

    try:
        run_demo(console, program)
    except (HarnessError, StreamPlanError) as err:
        _fail(err)


@app.command()
def inspect(target: str = typer.Argument(..., help="fixture directory, fixture id "
                                                   "(interval-join_1/interval-join-early-fire) "
                                                   "or checkpoint directory"),
            snapshots: Path = SNAPSHOTS,
            plan: Optional[Path] = typer.Option(None, "--plan", help="plan file to list with a "
                                                                     "raw checkpoint"),
            json_output: bool = typer.Option(False, "--json", help="print one JSON document")):
    """What a checkpoint holds (offsets, state variables, timers) via Spark's state reader."""
    from .inspect import inspect_checkpoint, render, report_json_text, resolve_target

    try:
        report = inspect_checkpoint(resolve_target(target, snapshots, plan))
    except (HarnessError, StreamPlanError) as err:
        _fail(err)
    if json_output:
        typer.echo(report_json_text(report), nl=False)
    else:
        render(report, console)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
