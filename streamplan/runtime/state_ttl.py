"""State TTL on Spark: processing time, set when a state variable is created.

Spark fixes whether a state variable has a TTL when the checkpoint is first written, so
TTL-bounded state always gets one: "no TTL" (a plan's `ttl` of 0 ms) is a TTL no query
outlives. The plan's `ttl` can then be edited either way between restarts, and the
checkpoint keeps its state schema.
"""
from __future__ import annotations

NEVER_MS = 100 * 365 * 86_400_000


def spark_ttl_ms(plan_ttl_ms: int) -> int:
    return plan_ttl_ms if plan_ttl_ms > 0 else NEVER_MS

# What Flink logs when a retraction finds no state (it was probably cleared by TTL).
STATE_CLEARED_WARN_MSG = ("The state is cleared because of state ttl. This will result in "
                          "incorrect result. You can increase the state ttl to avoid this.")
