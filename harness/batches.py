"""Micro-batch shapes: how a program's rows are grouped into micro-batches.

* `row`   — one row position a micro-batch (the i-th rows of every table together): the
            shape of every program's fixtures unless it says otherwise;
* `phase` — a phase's rows in as few micro-batches as its clock allows (split only where
            processing time advances), so one batch holds several rows of one key;
* `random` — seeded groups of one to four positions (split where the clock advances), seeded
            by the program's id: the same groups on every run.

A program's fixtures are generated and restored in its own shape (`in_batches`); the gate's
semantic run feeds it in another one and checks batch invariance (see harness.runner).
"""
from __future__ import annotations

import hashlib
import random
from typing import Optional

ROW, PHASE, RANDOM = "row", "phase", "random"
SHAPES = (ROW, PHASE, RANDOM)


def chunk_sizes(shape: str, lengths: list[int], cuts: list[set[int]],
                seed: str = "") -> Optional[dict[int, list[int]]]:
    """Per phase index, the sizes of its consecutive micro-batches (None: one row a batch).
    `lengths[i]`: phase i's row positions; `cuts[i]`: positions that must start a batch
    (where the clock advances)."""
    if shape == ROW:
        return None
    rng = random.Random(int(hashlib.sha256(seed.encode()).hexdigest()[:16], 16))
    chunks = {}
    for index, (length, must_cut) in enumerate(zip(lengths, cuts)):
        sizes, start = [], 0
        for position in range(1, length + 1):
            end = position == length or position in must_cut
            if end or (shape == RANDOM and position - start >= rng.randint(1, 4)):
                sizes.append(position - start)
                start = position
        if sizes:
            chunks[index] = sizes
    return chunks


def other_shape(shape: str, program_id: str) -> str:
    """The shape the gate's semantic run uses to check batch invariance: never the program's
    own; `phase` or `random` by the id, so both are exercised across the catalog."""
    if shape != ROW:
        return ROW
    return PHASE if int(hashlib.sha256(program_id.encode()).hexdigest(), 16) % 2 else RANDOM
