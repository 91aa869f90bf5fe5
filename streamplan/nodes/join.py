"""Regular join: `a [LEFT|RIGHT|FULL] JOIN b ON a.k = b.k [AND <condition>]` without time
bounds, over insert-only or updating inputs (Flink's StreamExecJoin); a join without keys
(`FROM a, b`, `CROSS JOIN`) keeps every row under one constant key, as Flink's singleton
exchange does; SEMI and ANTI joins (`IN` / `EXISTS` subqueries and their negations) output
the left row alone (Flink's StreamingSemiAntiJoinOperator)."""
from __future__ import annotations

from pydantic import model_validator

from ..changelog import OP_COLUMN, RowKind
from ..errors import ChangelogModeError
from ..join_type import JoinType
from ..durations import format_duration_ms
from ..options import STATE_TTL
from ..types import RowType, unique_names
from .base import ExecNode
from .common import JoinSpec
from .fields import FieldIndex
from .keyed import struct_ddl
from .metadata import exec_node, plan_migration

LEFT_STATE, RIGHT_STATE = "leftState", "rightState"


def joined_names(left: list[str], right: list[str]) -> list[str]:
    """The names of a joined row, left fields then right fields; a clashing right name gets a
    numeric suffix, as in Flink. A semi or anti join's condition reads these names."""
    return unique_names([*left, *right])


# Version 2 (FLIP-292) adds the per-input `state` TTL to the plan; the state layout is the
# same, so checkpoints of version 1 restore (min_state_version stays). Version 1 plans keep
# taking their TTL from the persisted table.exec.state.ttl.
@exec_node(name="stream-exec-join", version=1, min_plan_version="0.1", min_state_version="0.1",
           consumed_options=(STATE_TTL.key,))
@exec_node(name="stream-exec-join", version=2, min_plan_version="0.2", min_state_version="0.1")
class StreamExecJoin(ExecNode):
    STATE_DOC = ("per side, as the input's uniqueness allows (Flink's `JoinRecordStateView`): one row "
                 "per join key, rows by unique key, or rows with their multiplicity; outer sides and "
                 "the left side of a semi or anti join also count each row's matches. TTL: version 1 from `table.exec.state.ttl`, version 2 from "
                 "`state`")
    arity = 2
    STATE_NAMES = (LEFT_STATE, RIGHT_STATE)
    # A batch's left rows are joined before its right rows (runtime/join.py), so an outer
    # join's padding can come and go in another order than row by row.
    CHANGELOG_BATCH_INVARIANT = False
    join_spec: JoinSpec
    left_unique_keys: list[list[FieldIndex]]        # of the left input (Flink: leftUniqueKeys)
    right_unique_keys: list[list[FieldIndex]]

    @property
    def ttl_source(self) -> type["TtlFromOption"]:
        """Where this node's version takes its state TTL from: chosen once, by version."""
        return TTL_SOURCES[self.version]

    @model_validator(mode="after")
    def _state_matches_version(self) -> "StreamExecJoin":
        problem = self.ttl_source.state_problem(self.state)
        if problem:
            raise ValueError(problem)
        return self

    @classmethod
    def default_state(cls, version, ttls_ms, spec):
        if not TTL_SOURCES[version].in_plan:
            return None
        return super().default_state(version, ttls_ms, spec)

    @plan_migration(from_version=1)
    def _state_ttl_into_the_plan(node: dict) -> dict:
        """the persisted table.exec.state.ttl becomes both inputs' `state` TTL (FLIP-292)"""
        configuration = dict(node.get("configuration") or {})
        persisted = [configuration.pop(key) for key in (STATE_TTL.key, *STATE_TTL.fallback_keys)
                     if key in configuration]
        # A compiled version 1 plan always persists it; a hand-written one without it ran
        # with the session's value, which a plan file cannot know: the default is taken.
        ttl = format_duration_ms(STATE_TTL.parse(persisted[0] if persisted else STATE_TTL.default))
        return {**node, "configuration": configuration,
                "state": [{"index": 0, "ttl": ttl, "name": LEFT_STATE},
                          {"index": 1, "ttl": ttl, "name": RIGHT_STATE}]}

    def input_field_indexes(self):
        return [*self.join_spec.key_indexes("joinSpec"),
                ("leftUniqueKeys", 0, [i for key in self.left_unique_keys for i in key]),
                ("rightUniqueKeys", 1, [i for key in self.right_unique_keys for i in key])]

    @property
    def join_type(self) -> JoinType:
        return JoinType(self.join_spec.join_type)

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        """Flink's StreamingSemiAntiJoinOperator for SEMI and ANTI, else StreamingJoinOperator.
        StreamingJoinOperator: an inner side forwards its input's kinds (+I/+U,
        -D/-U) unless the other side is outer, an outer side emits +I/-D, and padding is
        emitted (+I) and retracted (-D)."""
        join_type = self.join_type
        if join_type.semi_or_anti:
            return frozenset(semi_anti_changelog(join_type, *inputs))
        kinds = set()
        for own_outer, other_outer, own in ((join_type.left_outer, join_type.right_outer, inputs[0]),
                                            (join_type.right_outer, join_type.left_outer, inputs[1])):
            kinds.add(RowKind.INSERT)
            retracting = own - {RowKind.INSERT, RowKind.UPDATE_AFTER}
            if own_outer:
                kinds |= {RowKind.DELETE} if retracting else set()
            else:
                kinds |= retracting
                if not other_outer:
                    kinds |= own & {RowKind.UPDATE_AFTER}
        if join_type is not JoinType.INNER:
            kinds.add(RowKind.DELETE)          # padding is retracted when a match arrives
        return frozenset(kinds)

    def output_unique_keys(self, inputs, input_keys):
        """Flink's upsert keys of a join (FlinkRelMdUpsertKeys.getJoinUpsertKeys): a semi or
        anti join outputs each left row at most once, so the left input's keys; otherwise each
        side's keys that contain its join key, a left key joined with a right key, and one
        side's keys alone where the other side is unique on the join key and the join does not
        pad that side with NULLs (FlinkRelMdUniqueKeys.getJoinUniqueKeys)."""
        if self.join_type.semi_or_anti:
            return [list(key) for key in input_keys[0]]
        left_join, right_join = set(self.join_spec.left_keys), set(self.join_spec.right_keys)
        width = len(inputs[0].fields)
        left = [sorted(key) for key in input_keys[0] if set(key) >= left_join]
        right = [sorted(i + width for i in key) for key in input_keys[1]
                 if set(key) >= right_join]
        keys = [sorted(set(a) | set(b)) for a in left for b in right]
        left_unique = any(set(key) <= left_join for key in input_keys[0])
        right_unique = any(set(key) <= right_join for key in input_keys[1])
        if right_unique and not self.join_type.right_outer:     # left rows are never NULL
            keys = left + keys
        if left_unique and not self.join_type.left_outer:
            keys = keys + right
        unique: list[list[int]] = []
        for key in keys:
            if key not in unique:
                unique.append(key)
        return unique

    def needs_update_before(self, input_keys, downstream, input_row=None, input_modes=None):
        """Flink's SatisfyUpdateKindTraitVisitor for a join: -U from every updating input,
        unless no consumer needs -U and every updating input has a unique key that holds its
        join key (StreamPhysicalJoin.inputUniqueKeyContainsJoinKey): an update then replaces
        its row in the join's state, and the joined +U replaces the joined row downstream.
        One input that cannot do without -U makes both send them, as in Flink."""
        if downstream or input_modes is None:
            return True
        return not all(RowKind.UPDATE_AFTER not in kinds or self.takes_updates_without_before(side)
                       for side, kinds in enumerate(input_modes))

    def takes_updates_without_before(self, side: int) -> bool:
        """Whether a unique key of input `side` (0 left, 1 right) holds all its join keys."""
        unique_keys = self.left_unique_keys if side == 0 else self.right_unique_keys
        join_keys = set(self.join_spec.left_keys if side == 0 else self.join_spec.right_keys)
        return any(join_keys <= set(key) for key in unique_keys)

    def check_input_changelog(self, inputs, origins) -> None:
        for index, (side, kinds, origin) in enumerate(zip(("left", "right"), inputs, origins)):
            if RowKind.UPDATE_AFTER in kinds and RowKind.UPDATE_BEFORE not in kinds \
                    and not self.takes_updates_without_before(index):
                producer = origin[RowKind.UPDATE_AFTER]
                raise ChangelogModeError(
                    f"Join node {self.id} needs the update-before rows (-U) of its {side} input "
                    f"to retract joined rows, but node {producer.id} '{producer.type}' "
                    f"({producer.description}) emits updates without them.")

    # --- options and state ---------------------------------------------------------------
    def read_options(self, config):
        return self.ttl_source.read_options(config)

    def ttl_ms(self, options: dict) -> tuple[int, int]:
        """(left, right) state TTL in milliseconds; 0 = never expires."""
        return self.ttl_source.ttls(self, options)

    def side_specs(self):
        from ..runtime.join import CONTAINS_UNIQUE_KEY, HAS_UNIQUE_KEY, NO_UNIQUE_KEY, SideSpec

        def spec(unique_keys: list[list[int]], join_keys: list[int]) -> SideSpec:
            # Flink's JoinUtil.analyzeJoinInput: the smallest unique key the join key
            # contains, else the smallest unique key, else none.
            if not unique_keys:
                return SideSpec(NO_UNIQUE_KEY)
            contained = [key for key in unique_keys if set(key) <= set(join_keys)]
            if contained:
                return SideSpec(CONTAINS_UNIQUE_KEY, tuple(min(contained, key=len)))
            return SideSpec(HAS_UNIQUE_KEY, tuple(min(unique_keys, key=len)))

        return (spec(self.left_unique_keys, self.join_spec.left_keys),
                spec(self.right_unique_keys, self.join_spec.right_keys))

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        from ..runtime.join import LEFT_RECORDS, RIGHT_RECORDS, side_layout

        layouts = {}
        for name, row, spec, outer in zip((LEFT_RECORDS, RIGHT_RECORDS), inputs, self.side_specs(),
                                          (self.join_type.left_counts_matches,
                                           self.join_type.right_outer)):
            layouts[name] = side_layout(name, spec, struct_ddl(row),
                                        struct_ddl(row, list(spec.unique_key)), outer)
        return layouts

    # --- runtime -------------------------------------------------------------------------
    def translate(self, ctx, inputs):
        from pyspark.sql import types as T

        from ..runtime.join import JoinParams, JoinProcessor
        from .two_input import keyed_union

        left, right = inputs
        left_row, right_row = ctx.input_types(self)
        union, key_names = keyed_union(left, right, self.join_spec.left_keys,
                                       self.join_spec.right_keys)
        left_ttl, right_ttl = self.ttl_ms(ctx.options(self))
        left_spec, right_spec = self.side_specs()
        params = JoinParams(self.join_spec.join_type, len(left_row.fields), len(right_row.fields),
                            left_spec, right_spec, tuple(self.row_type.names),
                            self.join_spec.non_equi_condition, left_ttl, right_ttl,
                            key_arity=len(self.join_spec.left_keys),
                            condition_names=tuple(joined_names(left_row.names, right_row.names))
                            if self.join_type.semi_or_anti else (),
                            filter_nulls=tuple(self.join_spec.filter_nulls))
        output = self.row_type.to_spark().add(OP_COLUMN, T.ByteType(), False)
        processor = JoinProcessor(params, self.state_layout([left_row, right_row]), (),
                                  tuple(self.row_type.names))
        return union.groupBy(*key_names).transformWithState(processor, output, "Append",
                                                            "ProcessingTime")


def semi_anti_changelog(join_type: JoinType, left: frozenset, right: frozenset) -> set:
    """StreamingSemiAntiJoinOperator's kinds: the left input's own (a left row is emitted
    with its kind); a right row emits a matched left row with the right row's kind (SEMI), or
    retracts it with -D and re-emits it with +I (ANTI)."""
    if join_type is JoinType.SEMI:
        return set(left) | set(right)
    retracting = right - {RowKind.INSERT, RowKind.UPDATE_AFTER}
    return set(left) | {RowKind.DELETE} | ({RowKind.INSERT} if retracting else set())


# --- the versions' state TTL: chosen once per node (ttl_source) -------------------------------

class TtlFromOption:
    """Version 1: both inputs' TTL is the persisted table.exec.state.ttl; no `state` field."""

    in_plan = False

    @staticmethod
    def state_problem(state) -> str:
        return ("" if state is None else "version 1 has no 'state' field (per-input TTL came "
                "with version 2); remove it, or recompile the plan to version 2")

    @staticmethod
    def read_options(config) -> dict:
        return {"state_ttl_ms": config.get(STATE_TTL)}

    @staticmethod
    def ttls(node: StreamExecJoin, options: dict) -> tuple[int, int]:
        return options["state_ttl_ms"], options["state_ttl_ms"]


class TtlFromState(TtlFromOption):
    """Version 2 (FLIP-292): one `state` entry per input, editable in the plan."""

    in_plan = True

    @staticmethod
    def state_problem(state) -> str:
        if state is None or sorted(entry.index for entry in state) != [0, 1]:
            return ("version 2 needs 'state' with one entry per input (index 0: left, index 1: "
                    "right)")
        return ""

    @staticmethod
    def read_options(config) -> dict:
        return {}

    @staticmethod
    def ttls(node: StreamExecJoin, options: dict) -> tuple[int, int]:
        return node.state_ttl_ms(0), node.state_ttl_ms(1)


TTL_SOURCES = {1: TtlFromOption, 2: TtlFromState}
