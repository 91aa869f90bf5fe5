"""Config steps shared by the mini-batch programs (a module whose name starts with `_` holds
no programs: discovery skips it)."""
from __future__ import annotations


def mini_batch(builder, size: int, latency: str = "1 s"):
    """`builder` with Flink's mini-batch options: bundles of `size` rows (on Spark a mini-batch
    is the micro-batch; see docs/streamplan.md, "Mini-batch aggregation")."""
    return (builder.setup_config("table.exec.mini-batch.enabled", "true")
            .setup_config("table.exec.mini-batch.allow-latency", latency)
            .setup_config("table.exec.mini-batch.size", str(size)))
