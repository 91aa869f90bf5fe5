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


def taken_for_keep_first(strategy: RankStrategy, rank_range: RankRange, output_row_number: bool,
                         order_by: SortSpec, mini_batch: bool = False) -> bool:
    """Flink 2.1+'s changelog inference takes a top 1 without its row number over insert-only
    input for a deduplication (RankUtil.isDeduplication, which never asks whether the sort is
    on a time attribute) that keeps the first row unless it is sorted by one field descending
    (keepLastDeduplicateRow), and plans it insert-only when mini-batch is off: the rank emits
    no -U while its FastTop1Function still sends +U for a better row, and its consumers take
    it for insert-only. Flink 2.3 runs `... ORDER BY price ASC) WHERE rn = 1` so (PyFlink
    2.3: +I then +U, no -U, into a retracting sink as into an insert-only one); this planner
    follows it. A plan records such a rank with `generateUpdateBefore` false."""
    return (strategy.type == APPEND_FAST and (rank_range.start, rank_range.end) == (1, 1)
            and not output_row_number and not mini_batch
            and not (len(order_by.fields) == 1 and not order_by.fields[0].is_ascending))


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
    def taken_for_keep_first(self, mini_batch: bool = False) -> bool:
        return type(self) is StreamExecRank and taken_for_keep_first(
            self.rank_strategy, self.rank_range, self.output_row_number, self.order_by,
            mini_batch)

    def generates_update_before(self, consumers_need: bool, config) -> bool:
        from ..options import MINIBATCH_ENABLED

        return consumers_need and not self.taken_for_keep_first(config.get(MINIBATCH_ENABLED))

    def output_changelog(self, inputs):
        if self.taken_for_keep_first() and not self.generate_update_before:
            return INSERT_ONLY            # as Flink 2.3 plans it (taken_for_keep_first)
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

    def needs_update_before(self, input_keys, downstream, input_row=None, input_modes=None):
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
