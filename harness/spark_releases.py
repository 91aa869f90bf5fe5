"""Fixtures written by older Spark releases: which releases, their environments, known breaks.

A Spark upgrade changes the engine under an unchanged exec node (state store, encodings,
operator metadata), so the gate restores checkpoints written by older PySpark releases on
today's. Each release's fixtures are generated in an environment of its own (a venv with that
pyspark and this checkout on PYTHONPATH), created on first use and cached.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from rich.console import Console

from streamplan.testing import SPARK_VERSION, parse_json, parse_version

from .errors import HarnessError
from .fixtures import RELEASES_FILE

REPO = Path(__file__).resolve().parents[1]

# Minor lines that cannot run streamplan, and why (docs/fixtures.md repeats this).
UNRUNNABLE = {
    "4.0": "PySpark 4.0 has transformWithStateInPandas only; the row-based "
           "GroupedData.transformWithState that every stateful node uses arrived in 4.1",
}


@dataclass(frozen=True)
class KnownBreak:
    """A checkpoint of `release` that today's Spark cannot restore, and why: the gate expects
    the failure (strictly: a fix shows as a failure too, until the entry is removed)."""

    release: str
    fixture_prefix: str          # fixture ids starting with this, e.g. 'rank_1/'
    reason: str
    spark_issue: str             # e.g. 'SPARK-12345'


KNOWN_BREAKS: tuple[KnownBreak, ...] = ()


def known_break(fixture_id: str, release: Optional[str]) -> Optional[KnownBreak]:
    return next((known for known in KNOWN_BREAKS if known.release == release
                 and fixture_id.startswith(known.fixture_prefix)), None)


def tracked_releases(snapshots: Path) -> tuple[str, ...]:
    """The older Spark releases every program of the latest node versions has fixtures of:
    the latest patch release of each minor line from the oldest that runs streamplan's
    stateful nodes up to the pin, listed in <snapshots>/spark-releases.json."""
    path = Path(snapshots) / RELEASES_FILE
    if not path.exists():
        return ()
    expected = 'expected {"releases": ["4.1.4", ...]}'
    try:
        raw = parse_json(path.read_text(encoding="utf-8"), str(path), HarnessError, expected)
    except (OSError, UnicodeDecodeError) as err:
        raise HarnessError(f"{path}: unreadable ({err}); {expected}") from None
    releases = raw.get("releases") if isinstance(raw, dict) else None
    if not isinstance(releases, list) or not all(_is_release(release) for release in releases):
        raise HarnessError(f"{path}: unreadable (releases are version strings); {expected}")
    return tuple(releases)


def _is_release(value: object) -> bool:
    try:
        parse_version(value)
    except ValueError:
        return False
    return True


def track_release(snapshots: Path, release: str) -> None:
    """Record that fixtures of `release` are kept (generate --spark does it)."""
    releases = sorted(set(tracked_releases(snapshots)) | {release}, key=parse_version)
    path = Path(snapshots) / RELEASES_FILE
    path.write_text(json.dumps({"releases": releases}, indent=2) + "\n", encoding="utf-8")


def environments_root() -> Path:
    return Path(os.environ.get("STREAMPLAN_SPARK_ENVS",
                               Path.home() / ".cache" / "streamplan" / "spark-envs"))


def requirements(release: str) -> list[str]:
    """The project's dependencies with pyspark pinned to `release` instead of the pin."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    others = [req for req in project["dependencies"] if not req.replace(" ", "").startswith("pyspark")]
    return [f"pyspark=={release}", *others]


def release_python(release: str, console: Console) -> Path:
    """The interpreter of `release`'s environment, created (or brought up to date) first."""
    if release == SPARK_VERSION:
        raise HarnessError(f"Spark {release} is the pinned release: plain `harness generate` "
                           f"writes its fixtures")
    reqs = requirements(release)
    env = environments_root() / f"pyspark-{release}"
    python = env / "bin" / "python"
    stamp = env / f".installed-{hashlib.sha256(' '.join(reqs).encode()).hexdigest()[:16]}"
    if stamp.exists():
        return python
    console.print(f"creating the environment of Spark {release} in {env} (once)")
    try:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(env)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *reqs], check=True)
    except subprocess.CalledProcessError as err:
        raise HarnessError(f"could not create the environment of Spark {release} in {env} "
                           f"({err}); is pyspark {release} on the package index?") from None
    stamp.touch()
    return python


def run_in_release(release: str, harness_args: list[str], console: Console) -> int:
    """`python -m harness <harness_args>` in `release`'s environment, on this checkout's code;
    its output goes to this terminal. The exit status of that process."""
    python = release_python(release, console)
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYSPARK_PYTHON": str(python),
           "PYSPARK_DRIVER_PYTHON": str(python)}
    return subprocess.run([str(python), "-m", "harness", *harness_args], env=env,
                          cwd=REPO).returncode
