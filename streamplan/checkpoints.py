"""A checkpoint records the engine release that wrote it (`<checkpoint>/streamplan.json`);
`min_state_version` of each node decides whether today's engine can restore it. The one
place that reads the record and applies that rule (executor, harness restore and audit)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from .errors import CheckpointError
from .nodes.base import ExecNode
from .nodes.metadata import check_state_version
from .version import ENGINE_VERSION

CHECKPOINT_MARKER = "streamplan.json"


def write_marker(checkpoint: Path) -> None:
    """Mark a new checkpoint as written by this engine release."""
    checkpoint.mkdir(parents=True, exist_ok=True)
    (checkpoint / CHECKPOINT_MARKER).write_text(json.dumps({"engineVersion": ENGINE_VERSION}) + "\n")


def written_by(checkpoint: Path) -> str:
    """The engine release recorded in a checkpoint; CheckpointError says what is wrong."""
    marker = Path(checkpoint) / CHECKPOINT_MARKER
    try:
        recorded = json.loads(marker.read_text(encoding="utf-8"))["engineVersion"]
    except FileNotFoundError:
        raise CheckpointError(f"{marker}: missing; a streamplan checkpoint records the engine "
                              f"that wrote it there") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as err:
        raise CheckpointError(f"{marker}: unreadable ({type(err).__name__}: {err}); expected "
                              f'{{"engineVersion": "<version>"}}') from None
    if not isinstance(recorded, str):
        raise CheckpointError(f"{marker}: engineVersion must be a string like '0.1', "
                              f"not {recorded!r}")
    return recorded


def check_restorable(nodes: Iterable[ExecNode], checkpoint: Path, where: str) -> None:
    """Every node's min_state_version must admit the engine that wrote the checkpoint."""
    engine = written_by(checkpoint)
    for node in nodes:
        check_state_version(node.metadata, engine, f"{where}: node {node.id}")
