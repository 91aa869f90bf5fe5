"""Make a Spark checkpoint portable (checked in, restored from anywhere) and small.

Spark writes the absolute path of the checkpoint into the operator metadata of stateful
queries (`state/<op>/_metadata/v2/<batch>` lists the state schema files by absolute URI),
so a copied checkpoint fails with "File ... does not exist". Generate replaces that path by
a placeholder; restore copies the fixture to a temp dir and puts the new path in.

Pruning keeps what a restart after the last committed batch reads: the last two offsets
and commits, each state partition's newest RocksDB snapshot with the SST files it lists,
and the operator metadata and schema files. Hadoop `.crc` side files are dropped: the
fixture's own sha256 list guards integrity, and Spark reads files without them.
"""
from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path

from streamplan.testing import log_files

from .errors import FixtureError

PLACEHOLDER = "@STREAMPLAN_CHECKPOINT_ROOT@"
KEEP_LOG_ENTRIES = 2       # restarting batch N+1 reads offsets N and N-1
_SNAPSHOT = re.compile(r"^([0-9]+)\.zip$")


def _metadata_files(checkpoint: Path) -> list[Path]:
    return [path for path in sorted(checkpoint.glob("*/state/*/_metadata/**/*"))
            if path.is_file() and not path.name.endswith(".crc")]


def _replace_in(path: Path, old: str, new: str) -> None:
    content = path.read_bytes()
    if old.encode() in content:
        path.write_bytes(content.replace(old.encode(), new.encode()))


def make_portable(checkpoint: Path) -> None:
    """Rewrite absolute paths to the placeholder, prune, and prove no absolute path is left."""
    checkpoint = Path(checkpoint)
    roots = sorted({str(checkpoint), str(checkpoint.resolve())}, key=len, reverse=True)
    prune(checkpoint)      # first: the .crc of a rewritten file would no longer match
    for path in _metadata_files(checkpoint):
        for root in roots:
            _replace_in(path, root, PLACEHOLDER)
    for path in sorted(checkpoint.rglob("*")):
        if path.is_file() and any(root.encode() in path.read_bytes() for root in roots):
            raise FixtureError(
                f"Spark wrote the absolute checkpoint path into {path.relative_to(checkpoint)}; a "
                f"fixture holding it could not be restored elsewhere. Teach "
                f"harness/portable_checkpoint.py to rewrite that file too.")


def materialize(fixture_checkpoint: Path, target: Path) -> Path:
    """Copy a portable checkpoint to `target` and point its metadata at `target`."""
    target = Path(target)
    shutil.copytree(fixture_checkpoint, target)
    for path in _metadata_files(target):
        _replace_in(path, PLACEHOLDER, str(target.resolve()))
    return target


def prune(checkpoint: Path) -> None:
    for crc in checkpoint.rglob("*.crc"):
        crc.unlink()
    for log in [*checkpoint.glob("*/offsets"), *checkpoint.glob("*/commits")]:
        for old in log_files(log)[:-KEEP_LOG_ENTRIES]:
            old.unlink()
    for partition in checkpoint.glob("*/state/*/*"):
        if partition.is_dir() and partition.name.isdigit():
            _prune_rocksdb_partition(partition)


def _prune_rocksdb_partition(partition: Path) -> None:
    """Keep the newest snapshot zip and the SST files its metadata lists."""
    snapshots = sorted((p for p in partition.iterdir() if _SNAPSHOT.match(p.name)),
                       key=lambda p: int(_SNAPSHOT.match(p.name).group(1)))
    if not snapshots:
        return
    newest = snapshots[-1]
    with zipfile.ZipFile(newest) as archive:
        lines = archive.read("metadata").decode("utf-8").splitlines()
    referenced = {entry["dfsSstFileName"] for entry in json.loads(lines[1])["sstFiles"]}
    for old in snapshots[:-1]:
        old.unlink()
    for sst in (partition / "SSTs").glob("*.sst"):
        if sst.name not in referenced:
            sst.unlink()


def state_variables(checkpoint: Path) -> dict[str, dict[str, str]]:
    """Per query directory (e.g. 'sink-7'): the user state variables Spark recorded for its
    stateful operators, name -> type ('MapState', 'ValueState', 'ListState')."""
    found: dict[str, dict[str, str]] = {}
    for operator in sorted(Path(checkpoint).glob("*/state/*")):
        files = [p for p in (operator / "_metadata").rglob("*") if p.is_file() and p.name.isdigit()]
        if not files:
            continue
        latest = max(files, key=lambda p: int(p.name))
        lines = latest.read_text(encoding="utf-8").splitlines()
        properties = json.loads(json.loads(lines[1]).get("operatorPropertiesJson") or "{}")
        variables = found.setdefault(operator.parent.parent.name, {})
        for variable in properties.get("stateVariables", []):
            if not variable["stateName"].startswith("$"):      # Spark's own timers
                variables[variable["stateName"]] = variable["stateVariableType"]
    return found
