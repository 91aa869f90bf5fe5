"""The exec-node base: plan JSON shape shared by all nodes, and the translation contract."""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Optional

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from ..changelog import RowKind, mode_names
from ..durations import format_duration_ms, parse_duration_ms
from ..errors import ChangelogModeError, OptionError
from ..options import Configuration, NodeConfiguration, lookup_option
from ..types import RowType, parse_row_type
from .fields import Duration, RowTypeText
from .metadata import ExecNodeMetadata, class_metadata

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import DataFrame, SparkSession


class PlanModel(BaseModel):
    """Plan JSON objects: camelCase keys, unknown keys rejected, immutable."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, alias_generator=to_camel,
                              frozen=True)


def validation_problems(err: ValidationError) -> str:
    """A pydantic error as the plan's fields: "field 'a.b': what is wrong; ..."."""
    return "; ".join(f"field '{'.'.join(map(str, e['loc']))}': "
                     f"{e['msg'].removeprefix('Value error, ')}" for e in err.errors())


class InputProperty(PlanModel):
    required_distribution: dict[str, Any] = {"type": "UNKNOWN"}
    dam_behavior: str = "PIPELINED"
    priority: int = 0


class StateMetadata(PlanModel):
    """FLIP-292: one entry per input of a TTL-bounded stateful node, editable by hand."""

    index: int
    ttl: Duration            # canonical duration, e.g. '3600000 ms'; '0 ms' = never expires
    name: str                # e.g. 'leftState', 'groupAggregateState'

    @field_validator("ttl")
    @classmethod
    def _not_negative(cls, value: str) -> str:
        if parse_duration_ms(value) < 0:
            raise ValueError(f"'{value}' is negative; a TTL is 0 ms (never) or positive")
        return value

    @property
    def ttl_ms(self) -> int:
        return parse_duration_ms(self.ttl)


_HEAD = ("id", "type", "configuration")
_TAIL = ("inputProperties", "outputType", "description", "state")


class ExecNode(PlanModel):
    """One node of the compiled plan. Subclasses add their specs as fields.

    Field order in the JSON is fixed (head, specs, tail) so plans are byte-stable.
    """

    arity: ClassVar[int] = 1       # number of inputs
    variadic: ClassVar[bool] = False   # True: `arity` or more inputs (a union)

    id: int
    type: str
    configuration: dict[str, str] = {}
    input_properties: list[InputProperty] = []
    output_type: RowTypeText
    description: str
    state: Optional[list[StateMetadata]] = None

    @field_validator("configuration")
    @classmethod
    def _known_options(cls, configuration: dict[str, str]) -> dict[str, str]:
        for key, raw in configuration.items():
            try:
                lookup_option(key).parse(raw)
            except OptionError as err:
                raise ValueError(str(err)) from None
        return configuration

    @property
    def row_type(self) -> RowType:
        return parse_row_type(self.output_type)

    @property
    def version(self) -> int:
        return int(self.type.rpartition("_")[2])

    def input_field_indexes(self) -> list[tuple[str, int, list[int]]]:
        """The field indexes this node holds, as (plan field, input number, indexes): the
        plan loader checks them against the inputs' types."""
        return []

    def state_ttl_ms(self, index: int = 0) -> int:
        """The TTL of input `index`'s state from the plan's `state` entries (0: never)."""
        return next((entry.ttl_ms for entry in self.state or () if entry.index == index), 0)

    @property
    def metadata(self) -> "ExecNodeMetadata":
        """The annotation of this node's class for the version the node was loaded as."""
        return class_metadata(type(self), self.type)

    def to_json(self) -> dict[str, Any]:
        raw = self.model_dump(by_alias=True, exclude_none=True, mode="json")
        head = {key: raw.pop(key) for key in _HEAD}
        tail = {key: raw.pop(key) for key in _TAIL if key in raw}
        return {**head, **raw, **tail}

    # --- planning contract -------------------------------------------------------------
    def output_changelog(self, inputs: list[frozenset[RowKind]]) -> frozenset[RowKind]:
        """Row kinds this node emits given what its inputs emit (default: pass through)."""
        return inputs[0] if inputs else frozenset({RowKind.INSERT})

    def check_input_changelog(self, inputs: list[frozenset[RowKind]],
                              origins: list[dict[RowKind, "ExecNode"]]) -> None:
        """Raise ChangelogModeError when an input carries kinds this node cannot consume.

        `origins[i][kind]` is the upstream node that introduced `kind` into input i, so the
        error can name the cause rather than the nearest pass-through node."""

    def read_options(self, config: NodeConfiguration) -> dict[str, Any]:
        """The node's typed option values, read from `config` (its declared options only).
        The one way a node reads configuration: the planner calls it when it builds the
        node, translation when it runs it, the audit to see which options are read."""
        return {}

    def options_view(self, session: Configuration) -> NodeConfiguration:
        return NodeConfiguration(f"node {self.id} ({self.type})", self.metadata.consumed_options,
                                 self.configuration, session)

    def changelog_reason(self) -> str:
        """Why this node emits updates or deletes, when a hint or option causes it (for errors)."""
        return ""

    def unsupported_changes(self, consumer: str, kinds: frozenset[RowKind],
                            origin: dict[RowKind, "ExecNode"], remedy: str = "") -> ChangelogModeError:
        """The error for a consumer that cannot take `kinds`, naming the node that
        introduces them (not the nearest pass-through node) and why it does."""
        producer = origin[min(kinds, key=lambda kind: kind.code)]
        return ChangelogModeError(
            f"{consumer} doesn't support consuming update and delete changes "
            f"({', '.join(mode_names(kinds))}) which are produced by node {producer.id} "
            f"'{producer.type}' ({producer.description}).{producer.changelog_reason()}"
            + (f" {remedy}" if remedy else ""))

    # --- planning traits (Flink's metadata queries, answered by the node) -------------------
    STATE_NAMES: ClassVar[tuple[str, ...]] = ()   # FLIP-292 state entries, one per input
    STATE_DOC: ClassVar[str] = ""                  # what the state holds (docs' node catalog)
    # Whether the node's input rows may hold ARRAY, MAP and ROW columns. Only nodes whose rows
    # stay on the JVM do; the Python cores keep rows as hashable tuples and in state.
    COMPOSITE_COLUMNS: ClassVar[bool] = False
    # Whether the node emits the same changelog per key however its input is cut into
    # micro-batches (the harness checks it); False where a batch reorders rows of a key.
    CHANGELOG_BATCH_INVARIANT: ClassVar[bool] = True

    @classmethod
    def default_state(cls, version: int, ttls_ms: list[int],
                      spec: dict[str, Any]) -> Optional[list["StateMetadata"]]:
        """The `state` entries a new node of `version` gets (Flink's
        StateMetadata.getOneInputOperatorDefaultMeta): one per input, with `ttls_ms[i]`
        (the hinted TTL or table.exec.state.ttl); None for a node without them."""
        if not cls.STATE_NAMES:
            return None
        return [StateMetadata(index=index, ttl=format_duration_ms(ttl), name=name)
                for index, (name, ttl) in enumerate(zip(cls.STATE_NAMES, ttls_ms))]

    def output_unique_keys(self, inputs: list[RowType],
                           input_keys: list[list[list[int]]]) -> list[list[int]]:
        """Flink's unique keys of this node's output (FlinkRelMdUniqueKeys), given its
        inputs' types and unique keys; the join's state and the sink's upsert key use them.
        Default: none known."""
        return []

    def generates_update_before(self, consumers_need: bool, config) -> bool:
        """For a node that can emit -U (a `generate_update_before` field): whether it does,
        given whether its consumers need them. Default: when they do."""
        return consumers_need

    # Whether planning checks the node's input changelog only once every producer's -U is
    # decided (a sink that takes updates without -U), not as the node is added.
    CHECKED_AFTER_UPDATE_BEFORE: ClassVar[bool] = False

    def needs_update_before(self, input_keys: list[list[int]], downstream: bool,
                            input_row: Optional[RowType] = None,
                            input_modes: Optional[list[frozenset]] = None) -> bool:
        """Whether this node needs -U rows from an input with unique keys `input_keys` and
        row type `input_row` (Flink's UpdateKindTrait); `downstream`: whether its own
        consumers need them; `input_modes`: the changelog kinds of all its inputs, in order
        (None where they are not known)."""
        return True

    def requires_watermark(self, inputs: list[RowType]) -> bool:
        """Flink's StreamPhysicalRel.requireWatermark: whether the node runs on the rowtime
        watermark (event-time windows, joins, sorts, over aggregates, rowtime deduplication).
        A mini-batch assigner upstream of one runs in row-time mode (planner.builder)."""
        return False

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        """State variables and their schemas (empty for stateless nodes). Fixtures record it;
        the audit fails when it changes without a version bump."""
        return {}

    # --- runtime contract --------------------------------------------------------------
    RUNTIME: ClassVar[str] = ""           # the module of streamplan/runtime/ that runs it

    def runtime(self) -> ModuleType:
        """The runtime module that runs this node (imported when needed: it loads Spark)."""
        return importlib.import_module(f"streamplan.runtime.{self.RUNTIME}")

    def translate(self, ctx: "TranslateContext", inputs: list["DataFrame"]) -> "DataFrame":
        raise NotImplementedError(f"{type(self).__name__} cannot be translated")


@dataclass
class TranslateContext:
    """What translation needs besides the node: Spark, the session's config, bindings. A node
    reads its options through `options(node)` only: the values its plan persisted, the
    session's only for an option the plan does not hold."""

    spark: "SparkSession"
    config: Configuration
    feeds: dict[str, str] = field(default_factory=dict)          # table name -> feed file
    keep_end_of_input: set[int] = field(default_factory=set)     # scan ids feeding a watermark
    plan: Any = None                                             # the CompiledPlan
    # lookup table name -> its snapshots, (start ms, rows) in time order (lookup_join.py)
    lookups: dict[str, list] = field(default_factory=dict)

    def input_types(self, node: ExecNode) -> list[RowType]:
        return [producer.row_type for producer in self.plan.inputs_of(node)]

    def options(self, node: ExecNode) -> dict[str, Any]:
        """The node's option values: persisted ones win over the session's."""
        return node.read_options(node.options_view(self.config))
