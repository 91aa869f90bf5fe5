"""Query hints of an INSERT's SELECT, validated here:

* `EARLY_FIRE('delay'='5s'[, 'time-mode'='rowtime'])` on an interval join (FLIP-497);
* `STATE_TTL('o'='1d', 'c'='12h')` and `JOIN_STATE_TTL(...)`: per-input state TTL of the
  query's joins and aggregates, keyed by table name or alias (FLIP-292 in the plan);
* `LOOKUP('table'='c', 'async'='true', 'retry-predicate'='lookup_miss', ...)`: how a lookup
  join calls its table (Flink's LookupJoinHintOptions), recorded in the lookup join's plan.

Anything else is named and rejected.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..durations import format_duration_ms, parse_duration_ms
from ..errors import PlanningError
from ..sql.ast import Hint

EARLY_FIRE = "EARLY_FIRE"
STATE_TTL = "STATE_TTL"
JOIN_STATE_TTL = "JOIN_STATE_TTL"
LOOKUP = "LOOKUP"
KNOWN_HINTS = (EARLY_FIRE, STATE_TTL, JOIN_STATE_TTL, LOOKUP)
# Flink's LookupJoinHintOptions and what each takes
_LOOKUP_KEYS = {"table": "a table name or alias", "async": "'true' or 'false'",
                "output-mode": "'ordered' or 'allow_unordered'",
                "capacity": "a positive integer", "timeout": "a duration such as '180s'",
                "retry-predicate": "'lookup_miss'", "retry-strategy": "'fixed_delay'",
                "fixed-delay": "a duration such as '10s'", "max-attempts": "a positive integer",
                "shuffle": "'true' or 'false'"}
_EARLY_FIRE_KEYS = ("delay", "time-mode")
_TIME_MODES = ("rowtime", "proctime")


@dataclass(frozen=True)
class EarlyFire:
    delay: str                   # canonical, e.g. '2000 ms'
    time_mode: Optional[str]     # ROWTIME / PROCTIME as given; None: the join's own


@dataclass
class StateTtlHints:
    """TTL per table name or alias; every key must name an input of a join or aggregate."""

    ttl_ms: dict[str, int] = field(default_factory=dict)
    joins_only: set[str] = field(default_factory=set)     # keys from JOIN_STATE_TTL
    hint_of: dict[str, Hint] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    inputs_seen: list[str] = field(default_factory=list)

    def for_input(self, names: tuple[str, ...], is_join: bool) -> Optional[int]:
        """The hinted TTL of an operator input known by `names` (alias, table name)."""
        self.inputs_seen.extend(name for name in names if name not in self.inputs_seen)
        for name in names:
            if name in self.ttl_ms and (is_join or name not in self.joins_only):
                self.used.add(name)
                return self.ttl_ms[name]
        return None

    def check_all_used(self) -> None:
        for name, hint in self.hint_of.items():
            if name not in self.used:
                what = "join" if name in self.joins_only else "join or aggregate"
                inputs = ", ".join(self.inputs_seen) or "none"
                raise PlanningError(
                    f"{hint.position}: {hint.name} names '{name}', which is not an input of a "
                    f"{what} of this query (the inputs are: {inputs}); use a table name or "
                    f"alias of the FROM clause")


@dataclass
class LookupHints:
    """LOOKUP hints by the table name or alias their 'table' option names; each must name a
    lookup table of the query (its lookup join takes it)."""

    by_table: dict[str, Hint] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)

    def for_table(self, names: tuple[str, ...]) -> Optional[Hint]:
        for name in names:
            if name in self.by_table:
                self.used.add(name)
                return self.by_table[name]
        return None

    def check_all_used(self) -> None:
        for name, hint in self.by_table.items():
            if name not in self.used:
                raise PlanningError(f"{hint.position}: the LOOKUP hint names '{name}', which is "
                                    f"no lookup table of this query (a table joined FOR "
                                    f"SYSTEM_TIME AS OF a processing-time attribute)")


@dataclass
class QueryHints:
    early_fire: Optional[EarlyFire] = None
    early_fire_hint: Optional[Hint] = None
    state_ttl: StateTtlHints = field(default_factory=StateTtlHints)
    lookup: LookupHints = field(default_factory=LookupHints)


def parse_hints(hints: tuple[Hint, ...]) -> QueryHints:
    """Validate the hints of one SELECT; where they apply is checked while planning."""
    result = QueryHints()
    for hint in hints:
        where = str(hint.position)
        if hint.name == EARLY_FIRE:
            if result.early_fire is not None:
                raise PlanningError(f"{where}: EARLY_FIRE is given twice")
            result.early_fire = _resolve_early_fire(hint, where)
            result.early_fire_hint = hint
        elif hint.name in (STATE_TTL, JOIN_STATE_TTL):
            _add_state_ttl(result.state_ttl, hint, where)
        elif hint.name == LOOKUP:
            _add_lookup(result.lookup, hint, where)
        else:
            raise PlanningError(f"{where}: unknown hint '{hint.name}'; supported hints: "
                                f"{', '.join(KNOWN_HINTS)}")
    return result


def _add_state_ttl(hints: StateTtlHints, hint: Hint, where: str) -> None:
    if not hint.options:
        raise PlanningError(f"{where}: {hint.name} needs options, e.g. /*+ {hint.name}('o' = "
                            f"'1d', 'c' = '12h') */ (table name or alias = TTL)")
    for name, value in hint.options.items():
        try:
            ttl = parse_duration_ms(value)
        except ValueError as err:
            raise PlanningError(f"{where}: {hint.name} option '{name}': {err}") from None
        if ttl < 0:
            raise PlanningError(f"{where}: {hint.name} option '{name}': a TTL cannot be "
                                f"negative, got '{value}'")
        if name in hints.ttl_ms:
            # An earlier hint already set it, and the first one wins: Flink's own plan of
            # JoinTestPrograms#JOIN_WITH_STATE_TTL_HINT, /*+ STATE_TTL('v1' = '1d', 'v2' =
            # '4d'), STATE_TTL('v2' = '8d') */, records 4 d for v2.
            continue
        hints.ttl_ms[name] = ttl
        hints.hint_of[name] = hint
        if hint.name == JOIN_STATE_TTL:
            hints.joins_only.add(name)


def _add_lookup(hints: LookupHints, hint: Hint, where: str) -> None:
    unknown = [key for key in hint.options if key not in _LOOKUP_KEYS]
    if unknown:
        raise PlanningError(f"{where}: LOOKUP has unknown option '{unknown[0]}'; its options "
                            f"are {', '.join(repr(k) for k in _LOOKUP_KEYS)}")
    table = hint.options.get("table")
    if not table:
        raise PlanningError(f"{where}: LOOKUP needs option 'table' (the lookup table's name or "
                            f"alias), e.g. /*+ LOOKUP('table'='c', 'async'='true') */")
    if table in hints.by_table:
        raise PlanningError(f"{where}: two LOOKUP hints name table '{table}'; give one")
    for key, value in hint.options.items():
        if not _lookup_value_fits(key, value):
            raise PlanningError(f"{where}: LOOKUP option '{key}' takes {_LOOKUP_KEYS[key]}, "
                                f"got '{value}'")
    retry = [key for key in ("retry-predicate", "retry-strategy", "fixed-delay", "max-attempts")
             if key in hint.options]
    if retry and len(retry) != 4:
        missing = [k for k in ("retry-predicate", "retry-strategy", "fixed-delay", "max-attempts")
                   if k not in retry]
        raise PlanningError(f"{where}: a LOOKUP retry needs 'retry-predicate', 'retry-strategy', "
                            f"'fixed-delay' and 'max-attempts'; missing: {', '.join(missing)}")
    hints.by_table[table] = hint


def _lookup_value_fits(key: str, value: str) -> bool:
    if key in ("async", "shuffle"):
        return value.lower() in ("true", "false")
    if key == "output-mode":
        return value.lower() in ("ordered", "allow_unordered")
    if key in ("capacity", "max-attempts"):
        return value.isdigit() and int(value) > 0
    if key in ("timeout", "fixed-delay"):
        try:
            return parse_duration_ms(value) > 0
        except ValueError:
            return False
    if key == "retry-predicate":
        return value.lower() == "lookup_miss"
    if key == "retry-strategy":
        return value.lower() == "fixed_delay"
    return True


def check_early_fire_applies(hints: QueryHints, has_interval_join: bool) -> None:
    if hints.early_fire is not None and not has_interval_join:
        raise PlanningError(f"{hints.early_fire_hint.position}: the EARLY_FIRE hint applies to "
                            f"interval joins, but this query has no interval join")


def _resolve_early_fire(hint: Hint, where: str) -> EarlyFire:
    unknown = [key for key in hint.options if _canonical_key(key) not in _EARLY_FIRE_KEYS]
    if unknown:
        raise PlanningError(f"{where}: EARLY_FIRE has unknown option '{unknown[0]}'; its options are "
                            f"'delay' (required) and 'time-mode'")
    options: dict[str, str] = {}
    for key, value in hint.options.items():
        if _canonical_key(key) in options:
            twice = [k for k in hint.options if _canonical_key(k) == _canonical_key(key)]
            raise PlanningError(f"{where}: EARLY_FIRE option '{_canonical_key(key)}' is given "
                                f"twice ({', '.join(repr(k) for k in twice)}); option names "
                                f"ignore case (and 'time_mode' is 'time-mode'), so give it once")
        options[_canonical_key(key)] = value
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
    mode = options.get("time-mode")
    if mode is not None and mode.lower() not in _TIME_MODES:
        raise PlanningError(f"{where}: EARLY_FIRE option 'time-mode' must be 'rowtime' or "
                            f"'proctime', got '{mode}'")
    return EarlyFire(format_duration_ms(delay_ms), mode.upper() if mode else None)


def _canonical_key(key: str) -> str:
    """Flink's option is 'time-mode' (EarlyFireJoinHintOptions); FLIP-497's text, which this
    project started from, spells it 'time_mode': both are accepted, as one option."""
    return key.lower().replace("_", "-")


def early_fire_time_mode(early: EarlyFire, join_is_event_time: bool, where: str) -> str:
    """The time mode of an EARLY_FIRE on a join of the given time domain: the join's own
    unless the hint says otherwise (Flink's default resolution)."""
    if early.time_mode is None:
        return "ROWTIME" if join_is_event_time else "PROCTIME"
    if early.time_mode == "PROCTIME" and join_is_event_time:
        raise PlanningError(
            f"{where}: EARLY_FIRE('time-mode'='proctime') on an event-time interval join is not "
            f"supported on Spark: a transformWithState operator has a single time mode, so it "
            f"cannot fire processing-time timers while it cleans up on event-time timers. Use "
            f"'time-mode'='rowtime' (the default for event-time joins).")
    if early.time_mode == "ROWTIME" and not join_is_event_time:
        raise PlanningError(f"{where}: EARLY_FIRE('time-mode'='rowtime') needs an event-time "
                            f"join; this interval join is on processing time (PROCTIME())")
    return early.time_mode
