"""The PR gate: the tests of `restore_tests/` (every audit check, every fixture restore,
every program's semantic run), run by pytest, with JUnit XML, an HTML report and a one-line
verdict.

    python -m harness.gate [--junit out/gate.xml] [--gate-report out/gate.html] [--snapshots DIR]
                           [--cluster | --master spark://host:port] [--shard K/N]
                           [-- PYTEST ARGS...]

pytest is the gate's only runner (see harness.pytest_plugin), so `ci/gate`, `harness gate`,
`./run.sh test` and `pytest restore_tests` run exactly the same checks. Exit status 0 only
when every check passed. `--cluster` runs it on a Spark cluster in containers started for the
run (harness.cluster), `--master` on an existing cluster; the checks are the same. `--shard
K/N` runs shard K of N (harness.shard; `harness report merge` joins the shards' JUnit XML).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

import typer

from .errors import HarnessError
from .fixtures import DEFAULT_SNAPSHOTS

CLUSTER_HELP = ("run on a Spark standalone cluster (master + 2 workers) in Docker containers, "
                "started for this run and removed after it (harness.cluster; builds its image "
                "once)")
MASTER_HELP = "run on an existing Spark cluster, e.g. spark://host:7077 (default: local[2])"
SHARD_HELP = ("run shard K of N: the audit checks in shard 1, the restores, migrations and "
              "semantic runs split by cost, the same split on every machine (merge the shards' "
              "JUnit XML with `harness report merge`)")


def check_shard(value: Optional[str]) -> Optional[str]:
    """Typer callback of --shard: K/N with 1 <= K <= N, else a usage error naming the value."""
    from .shard import ShardError, parse_shard

    if value is None:
        return None
    try:
        return str(parse_shard(value))
    except ShardError as err:
        raise typer.BadParameter(str(err)) from None


SHARD = typer.Option(None, "--shard", metavar="K/N", help=SHARD_HELP, callback=check_shard)

REPOSITORY = Path(__file__).resolve().parents[1]
GATE_TESTS = REPOSITORY / "restore_tests"


def gate_arguments(snapshots: Path = DEFAULT_SNAPSHOTS, junit: Optional[Path] = None,
                   programs: str = "programs", extra: Sequence[str] = (),
                   report: Optional[Path] = None, shard: Optional[str] = None) -> list[str]:
    args = [str(GATE_TESTS), f"--rootdir={REPOSITORY}", "-p", "no:cacheprovider",
            f"--snapshots={Path(snapshots).resolve()}", f"--programs={programs}",
            "-o", "junit_suite_name=restore-gate"]
    if junit is not None:
        Path(junit).parent.mkdir(parents=True, exist_ok=True)
        args.append(f"--junitxml={junit}")
    if report is not None:
        args.append(f"--gate-report={Path(report).resolve()}")
    if shard is not None:
        args.append(f"--gate-shard={shard}")
    return args + list(extra)


def run_gate(snapshots: Path = DEFAULT_SNAPSHOTS, junit: Optional[Path] = None,
             programs: str = "programs", extra: Sequence[str] = (),
             report: Optional[Path] = None, cluster: bool = False,
             master: Optional[str] = None, shard: Optional[str] = None) -> int:
    """Run the gate in this process; returns pytest's exit status (0: every check passed).
    `report`: write the HTML gate report (harness.gate_report) there. `cluster`/`master`:
    where Spark runs (harness.cluster.spark_target). `shard`: 'K/N', run only that shard."""
    import pytest
    from rich.console import Console

    from .cluster.cluster import spark_target

    console = Console(stderr=True)
    with spark_target(cluster, master, lambda line: console.print(line, highlight=False)):
        return int(pytest.main(gate_arguments(snapshots, junit, programs, extra, report, shard)))


def main(pytest_args: Optional[list[str]] = typer.Argument(
             None, help="more pytest arguments, after --, e.g. -- -k interval-join"),
         junit: Optional[Path] = typer.Option(None, help="write JUnit XML here"),
         report: Optional[Path] = typer.Option(None, "--gate-report", "--report",
                                          help="write the HTML gate report here"),
         snapshots: Path = typer.Option(DEFAULT_SNAPSHOTS, help="fixture root"),
         programs: str = typer.Option("programs", help="package of table test programs"),
         cluster: bool = typer.Option(False, "--cluster", help=CLUSTER_HELP),
         master: Optional[str] = typer.Option(None, "--master", help=MASTER_HELP),
         shard: Optional[str] = SHARD) -> None:
    """Audit + restore every fixture + run every program; non-zero exit on any failure."""
    try:
        code = run_gate(snapshots, junit, programs, pytest_args or (), report, cluster, master,
                        shard)
    except HarnessError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(code=1) from None
    raise typer.Exit(code=code)


if __name__ == "__main__":
    typer.run(main)
