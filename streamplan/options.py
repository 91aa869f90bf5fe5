"""The options registry: the analogue of Flink's ExecutionConfigOptions.

Exec nodes declare which keys they consume; only those are persisted into a node's
`configuration` in the plan, and on restore the persisted values win over the session's.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Callable

from .durations import format_duration_ms, parse_duration_ms
from .errors import OptionError, UndeclaredOptionError


@dataclass(frozen=True)
class ConfigOption:
    key: str
    kind: str                       # duration | enum | bool | int | string | time-zone
    default: str
    description: str
    fallback_keys: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()

    def parse(self, raw: str) -> Any:
        """Typed value of a raw string; OptionError says which key and why."""
        try:
            return _PARSERS[self.kind](self, raw)
        except ValueError as err:
            raise OptionError(f"option '{self.key}': {err}") from None

    def normalize(self, raw: str) -> str:
        """The canonical string persisted into plans (so equal values give equal bytes)."""
        value = self.parse(raw)
        if self.kind == "duration":
            return format_duration_ms(value)
        if self.kind == "bool":
            return "true" if value else "false"
        return str(value)


def _parse_enum(option: ConfigOption, raw: str) -> str:
    value = raw.strip().upper()
    if value not in option.choices:
        raise ValueError(f"'{raw}' is not one of {', '.join(option.choices)}")
    return value


def _parse_bool(option: ConfigOption, raw: str) -> bool:
    value = raw.strip().lower()
    if value not in ("true", "false"):
        raise ValueError(f"'{raw}' is not a boolean (true or false)")
    return value == "true"


def _parse_int(option: ConfigOption, raw: str) -> int:
    return int(raw.strip())


_PARSERS: dict[str, Callable[[ConfigOption, str], Any]] = {
    "duration": lambda option, raw: parse_duration_ms(raw),
    "enum": _parse_enum,
    "bool": _parse_bool,
    "int": _parse_int,
    "string": lambda option, raw: raw,
    "time-zone": lambda option, raw: _parse_time_zone(option, raw),
}

STATE_TTL = ConfigOption(
    "table.exec.state.ttl", "duration", "0 ms",
    "Minimum time an idle key's state is retained; 0 means never cleaned. Written into "
    "the plan's per-input `state` metadata of TTL-driven stateful nodes (FLIP-292).",
    fallback_keys=("table.exec.state-retention",),
)
SINK_UPSERT_MATERIALIZE = ConfigOption(
    "table.exec.sink.upsert-materialize", "enum", "AUTO",
    "Whether a SinkUpsertMaterializer is added in front of sinks with a primary key.",
    choices=("NONE", "AUTO", "FORCE"),
)
SOURCE_CDC_EVENTS_DUPLICATE = ConfigOption(
    "table.exec.source.cdc-events-duplicate", "bool", "false",
    "Whether the CDC source may emit duplicate events, requiring a ChangelogNormalize node.",
)
SINK_NOT_NULL_ENFORCER = ConfigOption(
    "table.exec.sink.not-null-enforcer", "enum", "ERROR",
    "What a sink does with NULL in a NOT NULL column: ERROR fails the query, DROP drops the row.",
    choices=("ERROR", "DROP"),
)
INTERVAL_JOIN_MIN_CLEANUP_INTERVAL = ConfigOption(
    "table.exec.interval-join.min-cleanup-interval", "duration", "0 ms",
    "Minimum interval between cleanups of an interval join's row cache; larger values "
    "mean fewer timers but state (and outer-join padding) is held longer.",
)
# Mini-batch aggregation (Flink's ExecutionConfigOptions.TABLE_EXEC_MINIBATCH_*). On Spark a
# mini-batch is the micro-batch: allow-latency is what Flink's MiniBatchAssigner waits between
# mini-batches (the plan records it; here the source's micro-batches end a mini-batch), size
# is Flink's count trigger: a local or global aggregate flushes after that many input rows
# within a micro-batch, and always at its end (docs/streamplan.md, "Mini-batch aggregation").
MINIBATCH_ENABLED = ConfigOption(
    "table.exec.mini-batch.enabled", "bool", "false",
    "Whether group aggregates run in mini-batches (the planner adds a MiniBatchAssigner after "
    "each source and plans a local and a global aggregate, as Flink does).",
)
MINIBATCH_ALLOW_LATENCY = ConfigOption(
    "table.exec.mini-batch.allow-latency", "duration", "0 ms",
    "The longest a mini-batch waits (Flink's MiniBatchAssigner interval); must be above 0 ms "
    "when mini-batch is enabled. Here a mini-batch also ends with its micro-batch.",
)
MINIBATCH_SIZE = ConfigOption(
    "table.exec.mini-batch.size", "int", "-1",
    "The most input rows a mini-batch aggregate buffers before it flushes (Flink's count "
    "trigger); must be above 0 when mini-batch is enabled.",
)
AGG_PHASE_STRATEGY = ConfigOption(
    "table.optimizer.agg-phase-strategy", "enum", "AUTO",
    "Flink's aggregation phase strategy, read by the planner. Group aggregates with mini-batch "
    "(Flink's TwoStageOptimizedAggregateRule): AUTO and TWO_PHASE plan a local and a global "
    "aggregate, ONE_PHASE is refused (Flink's one-phase mini-batch aggregate is not "
    "implemented). Window aggregates (TwoStageOptimizedWindowAggregateRule): AUTO and "
    "TWO_PHASE plan a local and a global window aggregate for an event-time TUMBLE, HOP or "
    "CUMULATE window, ONE_PHASE one window aggregate; a SESSION or processing-time window is "
    "always one phase.",
    choices=("AUTO", "ONE_PHASE", "TWO_PHASE"),
)
DISTINCT_AGG_SPLIT_ENABLED = ConfigOption(
    "table.optimizer.distinct-agg.split.enabled", "bool", "false",
    "Whether a group aggregate with a distinct call is split into a partial aggregate by a "
    "bucket of each distinct argument and a final one (Flink's SplitAggregateRule); under "
    "mini-batch the partial and final aggregates are a local, an incremental and a global "
    "one. Refused by name in a window aggregate.",
)
INCREMENTAL_AGG_ENABLED = ConfigOption(
    "table.optimizer.incremental-agg-enabled", "bool", "true",
    "Whether a split distinct aggregate under mini-batch merges its partial global and final "
    "local aggregates into one incremental aggregate (Flink's IncrementalAggregateRule); "
    "false (four aggregates) is refused by name.",
)


def _parse_time_zone(option: ConfigOption, raw: str) -> str:
    value = raw.strip()
    if value == "default" or value.upper() == "UTC":
        return value
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"'{raw}' is not a time zone id (e.g. 'UTC', 'Europe/Berlin') or "
                         f"'default'") from None
    return value


LOCAL_TIME_ZONE = ConfigOption(
    "table.local-time-zone", "time-zone", "default",
    "Flink's session time zone. Windows over TIMESTAMP time attributes (the only ones here) do "
    "not shift by it (Flink's shiftTimeZone is UTC for them); the window nodes persist it.",
)

OPTIONS: dict[str, ConfigOption] = {
    option.key: option
    for option in (STATE_TTL, SINK_UPSERT_MATERIALIZE, SOURCE_CDC_EVENTS_DUPLICATE,
                   SINK_NOT_NULL_ENFORCER, INTERVAL_JOIN_MIN_CLEANUP_INTERVAL,
                   MINIBATCH_ENABLED, MINIBATCH_ALLOW_LATENCY, MINIBATCH_SIZE,
                   AGG_PHASE_STRATEGY, DISTINCT_AGG_SPLIT_ENABLED, INCREMENTAL_AGG_ENABLED,
                   LOCAL_TIME_ZONE)
}
_BY_FALLBACK = {fallback: option for option in OPTIONS.values() for fallback in option.fallback_keys}


def lookup_option(key: str) -> ConfigOption:
    """The option for a key or one of its fallback keys; OptionError suggests close keys."""
    if key in OPTIONS:
        return OPTIONS[key]
    if key in _BY_FALLBACK:
        return _BY_FALLBACK[key]
    close = difflib.get_close_matches(key, list(OPTIONS) + list(_BY_FALLBACK), n=1)
    suggestion = f" Did you mean '{close[0]}'?" if close else ""
    raise OptionError(f"unknown option '{key}'.{suggestion} Known options: {', '.join(sorted(OPTIONS))}")


def option_exists(key: str) -> bool:
    return key in OPTIONS or key in _BY_FALLBACK


@dataclass
class Configuration:
    """Session configuration: raw values by canonical key, validated when set."""

    values: dict[str, str] = field(default_factory=dict)

    def set(self, key: str, raw: str) -> None:
        option = lookup_option(key)
        self.values[option.key] = option.normalize(raw)

    def get(self, option: ConfigOption) -> Any:
        return option.parse(self.values.get(option.key, option.default))

    def raw(self, option: ConfigOption) -> str:
        return self.values.get(option.key, option.normalize(option.default))

    def persisted_for(self, keys: tuple[str, ...]) -> dict[str, str]:
        """The `configuration` map written into a node: its consumed keys, canonical values."""
        return {key: self.raw(lookup_option(key)) for key in sorted(keys)}



class NodeConfiguration:
    """The only configuration an exec node can read: the options it declares in
    `consumed_options`, with the values persisted in its plan winning over the session's
    (restore semantics). Reading any other option fails, so an undeclared dependency --
    one the plan does not persist, that would silently change behaviour after a restore
    under another session config -- fails at compile and translate time instead."""

    def __init__(self, node: str, declared: tuple[str, ...], persisted: dict[str, str],
                 session: Configuration):
        self.node = node
        self.declared = {lookup_option(key).key for key in declared}
        self.persisted = {lookup_option(key).key: raw for key, raw in persisted.items()}
        self.session = session
        self.reads: set[str] = set()          # what was read: the audit compares with declared

    def get(self, option: ConfigOption) -> Any:
        if option.key not in self.declared:
            raise UndeclaredOptionError(
                f"{self.node} reads option '{option.key}', which it does not declare: its plan "
                f"does not persist it, so a restore under another session configuration would "
                f"silently change its behaviour. Add '{option.key}' to consumed_options of its "
                f"@exec_node annotation -- a new version, since its plan's configuration changes "
                f"-- or stop reading it.")
        self.reads.add(option.key)
        return option.parse(self.persisted.get(option.key, self.session.raw(option)))
