"""Query hints: EARLY_FIRE is validated here; anything else is named and rejected."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..durations import format_duration_ms, parse_duration_ms
from ..errors import PlanningError, UnsupportedSqlError
from ..sql.ast import Hint

EARLY_FIRE = "EARLY_FIRE"
_EARLY_FIRE_KEYS = ("delay", "time_mode")
_TIME_MODES = ("rowtime", "proctime")


@dataclass(frozen=True)
class EarlyFire:
    delay: str            # canonical, e.g. '2000 ms'
    time_mode: str        # ROWTIME


def early_fire_from_hints(hints: tuple[Hint, ...], has_join: bool,
                          join_is_event_time: bool) -> Optional[EarlyFire]:
    """Validate the hints of one SELECT; return the resolved EARLY_FIRE, if any."""
    found: Optional[EarlyFire] = None
    for hint in hints:
        where = str(hint.position)
        if hint.name == "JOIN_STATE_TTL":
            raise UnsupportedSqlError(
                "hint JOIN_STATE_TTL: it configures regular joins (stream-exec-join), which are not "
                "supported yet", hint.position.line, hint.position.column, hint.position.source)
        if hint.name != EARLY_FIRE:
            raise PlanningError(f"{where}: unknown hint '{hint.name}'; supported hints: {EARLY_FIRE}")
        if found is not None:
            raise PlanningError(f"{where}: EARLY_FIRE is given twice")
        if not has_join:
            raise PlanningError(f"{where}: the EARLY_FIRE hint applies to interval joins, but this "
                                f"query has no join")
        found = _resolve(hint, where, join_is_event_time)
    return found


def _resolve(hint: Hint, where: str, join_is_event_time: bool) -> EarlyFire:
    unknown = [key for key in hint.options if key.lower() not in _EARLY_FIRE_KEYS]
    if unknown:
        raise PlanningError(f"{where}: EARLY_FIRE has unknown option '{unknown[0]}'; its options are "
                            f"'delay' (required) and 'time_mode'")
    options = {key.lower(): value for key, value in hint.options.items()}
    if "delay" not in options:
        raise PlanningError(f"{where}: EARLY_FIRE needs option 'delay', e.g. "
                            f"/*+ EARLY_FIRE('delay'='5s') */")
    try:
        delay_ms = parse_duration_ms(options["delay"])
    except ValueError as err:
        raise PlanningError(f"{where}: EARLY_FIRE option 'delay': {err}") from None
    if delay_ms <= 0:
        raise PlanningError(f"{where}: EARLY_FIRE option 'delay' must be positive, got "
                            f"'{options['delay']}'")
    default_mode = "rowtime" if join_is_event_time else "proctime"
    mode = options.get("time_mode", default_mode).lower()
    if mode not in _TIME_MODES:
        raise PlanningError(f"{where}: EARLY_FIRE option 'time_mode' must be 'rowtime' or "
                            f"'proctime', got '{options['time_mode']}'")
    if mode == "proctime" and join_is_event_time:
        raise PlanningError(
            f"{where}: EARLY_FIRE('time_mode'='proctime') on an event-time interval join is not "
            f"supported on Spark: a transformWithState operator has a single time mode, so it "
            f"cannot fire processing-time timers while it cleans up on event-time timers. Use "
            f"'time_mode'='rowtime' (the default for event-time joins).")
    if mode == "rowtime" and not join_is_event_time:
        raise PlanningError(f"{where}: EARLY_FIRE('time_mode'='rowtime') needs an event-time join")
    return EarlyFire(format_duration_ms(delay_ms), mode.upper())
