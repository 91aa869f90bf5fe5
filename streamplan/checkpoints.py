"""A checkpoint records the engine release that wrote it (`<checkpoint>/streamplan.json`);
`min_state_version` of each node decides whether today's engine can restore it. The one
place that reads the record and applies that rule (executor, harness restore and audit),
and that reads Spark's own logs in a query's checkpoint directory (`offsets/`, `commits/`).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Optional

from .errors import CheckpointError
from .json_input import parse_json
from .nodes.base import ExecNode
from .nodes.metadata import check_state_version
from .runtime.rows import brief_repr
from .version import ENGINE_VERSION, is_version, parse_version, running_spark_version

CHECKPOINT_MARKER = "streamplan.json"


def write_marker(checkpoint: Path) -> None:
    """Mark a new checkpoint as written by this engine release."""
    checkpoint.mkdir(parents=True, exist_ok=True)
    marker = {"engineVersion": ENGINE_VERSION, "sparkVersion": running_spark_version()}
    # Atomically: a process killed while writing must not leave a truncated marker.
    temporary = checkpoint / f".{CHECKPOINT_MARKER}.tmp"
    temporary.write_text(json.dumps(marker) + "\n")
    temporary.replace(checkpoint / CHECKPOINT_MARKER)


@dataclass(frozen=True)
class Marker:
    engine_version: str
    spark_version: Optional[str]       # recorded from engine 0.3 on; None in older checkpoints


def read_marker(checkpoint: Path) -> Marker:
    """What a checkpoint records of its writer; CheckpointError says what is wrong."""
    marker = Path(checkpoint) / CHECKPOINT_MARKER
    expected = '{"engineVersion": "<version>", "sparkVersion": "<version>"}'
    try:
        text = marker.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CheckpointError(f"{marker}: missing; a streamplan checkpoint records the engine "
                              f"that wrote it there") from None
    except OSError as err:
        raise CheckpointError(f"{marker}: cannot read it: {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise CheckpointError(f"{marker}: not UTF-8 text (byte {err.start}); expected "
                              f"{expected}") from None
    raw = parse_json(text, str(marker), CheckpointError, remedy=f"expected {expected}")
    if not isinstance(raw, dict) or "engineVersion" not in raw:
        raise CheckpointError(f"{marker}: no engineVersion recorded; expected {expected}")
    # sparkVersion is recorded from engine 0.3 on: older checkpoints have none.
    for field_name in ("engineVersion", "sparkVersion"):
        if field_name in raw and not is_version(raw[field_name]):
            raise CheckpointError(f"{marker}: {field_name} must be a version string like "
                                  f"'4.3.0', not {brief_repr(raw[field_name])}")
    return Marker(raw["engineVersion"], raw.get("sparkVersion"))


def written_by(checkpoint: Path) -> str:
    """The engine release recorded in a checkpoint."""
    return read_marker(checkpoint).engine_version


def check_restorable(nodes: Iterable[ExecNode], checkpoint: Path, where: str) -> None:
    """The checkpoint's Spark release must not be newer than the one running, and every
    node's min_state_version must admit the engine that wrote it. Checked before Spark
    touches the checkpoint."""
    marker = read_marker(checkpoint)
    check_spark_release(marker.spark_version, where)
    for node in nodes:
        check_state_version(node.metadata, marker.engine_version, f"{where}: node {node.id}")


def check_spark_release(written: Optional[str], where: str) -> None:
    """Spark reads checkpoints of its own and older releases only: its state store and
    operator metadata formats move forward, never back."""
    running = running_spark_version()
    if written is not None and parse_version(written) > parse_version(running):
        raise CheckpointError(
            f"{where}: written by Spark {written}, newer than the Spark {running} running here; "
            f"Spark reads checkpoints of its own and older releases only. Restore it with "
            f"Spark {written} or newer (upgrade pyspark), or start from a new checkpoint")



# --- Spark's offsets and commits logs ------------------------------------------------------
_BATCH_FILE = re.compile(r"^[0-9]+$")


@dataclass(frozen=True)
class LogEntry:
    """One file of a Spark metadata log: 'v1', a metadata JSON line, then (offsets only) one
    line per source, its offset JSON or '-' for a source without an offset yet."""

    batch: int
    metadata: Optional[dict]
    sources: list[Any]


def log_files(log: Path) -> list[Path]:
    """The batch files of an `offsets/` or `commits/` directory, oldest first."""
    if not log.is_dir():
        return []
    return sorted((p for p in log.iterdir() if _BATCH_FILE.match(p.name)), key=lambda p: int(p.name))


def read_log_entry(path: Path) -> LogEntry:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise CheckpointError(f"{path}: unreadable Spark log file ({err})") from None
    metadata = _log_line(lines[1]) if len(lines) > 1 else None
    return LogEntry(int(path.name), metadata if isinstance(metadata, dict) else None,
                    [_log_line(line) for line in lines[2:]])


def last_log_entry(log: Path) -> Optional[LogEntry]:
    files = log_files(log)
    return read_log_entry(files[-1]) if files else None


def last_batch_time_ms(query_dir: Path) -> Optional[int]:
    """The processing time Spark stamped on the query's last planned micro-batch, or None
    for a query without batches."""
    entry = last_log_entry(Path(query_dir) / "offsets")
    if entry is None:
        return None
    stamp = (entry.metadata or {}).get("batchTimestampMs")
    if not isinstance(stamp, int) or isinstance(stamp, bool):
        raise CheckpointError(f"{query_dir}/offsets/{entry.batch}: no batchTimestampMs in its "
                              f"metadata line; is this a Spark streaming checkpoint?")
    return stamp


def _log_line(line: str) -> Any:
    if line == "-":
        return None
    try:
        return json.loads(line)
    except ValueError:
        return line
