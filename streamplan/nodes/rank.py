"""Top-N: `ROW_NUMBER() OVER (PARTITION BY k ORDER BY ...) AS rn ... WHERE rn <= N` (also
`rn < N`, `rn BETWEEN a AND b`), with or without the rank number in the output, over
insert-only or updating input (Flink's StreamExecRank with AppendOnlyTopNFunction,
RetractableTopNFunction or, for a sort key that only moves towards the top,
UpdatableTopNFunction)."""
from __future__ import annotations

from typing import ClassVar, Literal, Optional

from pydantic import Field, model_validator

from ..changelog import INSERT_ONLY, RowKind
from .base import PlanModel
from .fields import FieldIndex
from .keyed import KeyedNode
from .metadata import exec_node

APPEND_FAST, RETRACT, UPDATE_FAST = "AppendFast", "Retract", "UpdateFast"


class PartitionSpec(PlanModel):
    fields: list[FieldIndex]


class SortField(PlanModel):
    index: FieldIndex
    is_ascending: bool
    null_is_last: bool


class SortSpec(PlanModel):
    fields: list[SortField]


class RankRange(PlanModel):
    type: Literal["Constant"] = "Constant"
    start: int = Field(ge=1)
    end: int

    @model_validator(mode="after")
    def _not_empty(self) -> "RankRange":
        if self.end < self.start:
            raise ValueError(f"rank range {self.start}..{self.end} is empty")
        return self


class RankStrategy(PlanModel):
    """Flink's RankProcessStrategy. AppendFast: insert-only input; UpdateFast: updating input
    without -U, unique by `primaryKeys` (which hold the partition key), whose sort key only
    moves towards the top; Retract: any other."""

    type: Literal["AppendFast", "Retract", "UpdateFast"]
    primary_keys: Optional[list[FieldIndex]] = None

    @model_validator(mode="after")
    def _keys_with_update_fast(self) -> "RankStrategy":
        if (self.type == UPDATE_FAST) != bool(self.primary_keys):
            raise ValueError("primaryKeys is given with the UpdateFast strategy, and only there")
        return self

    @property
    def label(self) -> str:
        """As the node's description shows it (Flink's RankProcessStrategy.toString)."""
        if self.type == UPDATE_FAST:
            return f"{UPDATE_FAST}[{','.join(map(str, self.primary_keys))}]"
        return self.type


@exec_node(name="stream-exec-rank", version=1, min_plan_version="0.2", min_state_version="0.2")
class StreamExecRank(KeyedNode):
    STATE_DOC = ("per partition key, by Flink's Top-N function: the top row (FastTop1Function), the TopN "
                 "buffer (AppendOnlyTopNFunction; UpdatableTopNFunction, by the input's unique "
                 "key) or every row with its sort key's count (RetractableTopNFunction); TTL "
                 "from `state`")
    RUNTIME = "rank"
    STATE_NAMES = ("rankState",)
    POSITIONED: ClassVar[bool] = True
    rank_type: Literal["ROW_NUMBER"]
    partition: PartitionSpec
    order_by: SortSpec
    rank_range: RankRange
    rank_strategy: RankStrategy
    output_row_number: bool
    generate_update_before: bool

    def input_field_indexes(self):
        return [("partition.fields", 0, self.partition.fields),
                ("orderBy.fields", 0, [field.index for field in self.order_by.fields]),
                ("rankStrategy.primaryKeys", 0, self.rank_strategy.primary_keys or [])]

    def output_unique_keys(self, inputs, input_keys):
        """Flink's upsert keys of a Rank (FlinkRelMdUpsertKeys, getRankUniqueKeys): the input's
        that contain the partition key (rows are distributed by it), and the partition key
        with the row number, or alone for a top 1."""
        partition = set(self.partition.fields)
        keys = [list(key) for key in input_keys[0] if partition <= set(key)]
        if self.output_row_number:
            keys.insert(0, list(self.partition.fields) + [len(self.row_type.fields) - 1])
        elif self.rank_range.end == 1:
            keys.insert(0, list(self.partition.fields))
        return keys

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        # As Flink's planner, every change (rows enter, leave and move in the top N); -U only
        # when a consumer needs it.
        kinds = {RowKind.INSERT, RowKind.UPDATE_AFTER, RowKind.DELETE}
        if self.generate_update_before:
            kinds.add(RowKind.UPDATE_BEFORE)
        return frozenset(kinds)

    def check_input_changelog(self, inputs, origins) -> None:
        if self.rank_strategy.type == APPEND_FAST and inputs[0] != INSERT_ONLY:
            raise self.unsupported_changes(f"Rank node {self.id} (strategy AppendFast)",
                                           inputs[0] - INSERT_ONLY, origins[0],
                                           "The plan was edited: updating input needs the "
                                           "Retract strategy.")
        kinds = inputs[0]
        if self.rank_strategy.type == UPDATE_FAST:
            # UpdatableTopNFunction reads every row as an insert or an update of its key (a -D
            # too, as in Flink); a -U would be read as one
            if RowKind.UPDATE_BEFORE in kinds:
                raise self.unsupported_changes(
                    f"Rank node {self.id} (strategy UpdateFast)",
                    frozenset({RowKind.UPDATE_BEFORE}), origins[0],
                    "The plan was edited: input with -U needs the Retract strategy.")
            return
        if RowKind.UPDATE_AFTER in kinds and RowKind.UPDATE_BEFORE not in kinds:
            raise self.unsupported_changes(f"Rank node {self.id}", frozenset(
                {RowKind.UPDATE_AFTER}), origins[0], "It needs update-before rows (-U).")

    def needs_update_before(self, input_keys, downstream):
        return self.rank_strategy.type != UPDATE_FAST

    # --- state and runtime ---------------------------------------------------------------
    def key_indexes(self):
        return self.partition.fields

    def runtime_params(self, input_row):
        return self.runtime().RankParams(
            sort_key=tuple((f.index, f.is_ascending, not f.null_is_last)
                           for f in self.order_by.fields),
            rank_start=self.rank_range.start, rank_end=self.rank_range.end,
            output_rank_number=self.output_row_number,
            generate_update_before=self.generate_update_before,
            input_insert_only=self.rank_strategy.type == APPEND_FAST, ttl_ms=self.state_ttl_ms(),
            row_key=tuple(self.rank_strategy.primary_keys or ()))
