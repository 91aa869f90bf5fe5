"""Table sink: checks the changelog it receives and enforces NOT NULL columns."""
from __future__ import annotations

from typing import Optional

from ..changelog import ALL_KINDS, INSERT_ONLY, OP_COLUMN, RowKind, parse_changelog_mode
from ..options import SINK_NOT_NULL_ENFORCER
from ..types import RowType, quote_identifier
from .base import ExecNode
from .common import TableSpec
from .fields import FieldIndex, RowKindName
from .keyed import build_processor, struct_ddl, transform_keyed
from .metadata import exec_node



def sink_accepts(options: dict[str, str]) -> frozenset[RowKind]:
    """Flink's values sink: the kinds of 'sink-changelog-mode-enforced' when set, else
    insert-only unless 'sink-insert-only' = 'false'."""
    enforced = options.get("sink-changelog-mode-enforced")
    if enforced is not None:
        return parse_changelog_mode(enforced)
    return INSERT_ONLY if options.get("sink-insert-only", "true").lower() == "true" else ALL_KINDS


@exec_node(name="stream-exec-sink", version=1, min_plan_version="0.1", min_state_version="0.1",
           consumed_options=(SINK_NOT_NULL_ENFORCER.key,))
class StreamExecSink(ExecNode):
    COMPOSITE_COLUMNS = True
    CHECKED_AFTER_UPDATE_BEFORE = True     # e.g. 'sink-changelog-mode-enforced' = 'I,UA,D'
    STATE_DOC = ("none, unless it materializes upserts (SinkUpsertMaterializer): per primary key the "
                 "rows added and not retracted; TTL from `state`")
    RUNTIME = "upsert_materializer"
    STATE_NAMES = ("sinkMaterializeState",)     # only when the sink materializes
    table: TableSpec
    input_changelog_mode: list[RowKindName]
    # The sink upsert materializer (Flink's SinkUpsertMaterializer), when the plan has one:
    # rows kept per primary key, matched by the input's upsert key if it has one. Additive
    # and omitted when absent, so plans without it load unchanged (no version bump).
    upsert_materialize: Optional[bool] = None
    input_upsert_key: Optional[list[FieldIndex]] = None
    conflict_strategy: Optional[str] = None      # ON CONFLICT DO DEDUPLICATE (Flink 2.3)
    # INSERT OVERWRITE (Flink's OverwriteSpec): a streaming values sink is written as by
    # INSERT INTO, as Flink's is. Additive and omitted when absent.
    overwrite: Optional[bool] = None

    def input_field_indexes(self):
        return [("inputUpsertKey", 0, self.input_upsert_key or [])]

    @classmethod
    def default_state(cls, version, ttls_ms, spec):
        return super().default_state(version, ttls_ms, spec) if spec.get("upsert_materialize") else None

    def needs_update_before(self, input_keys, downstream, input_row=None, input_modes=None):
        """-U is needed unless the sink's primary key is the input's unique key (each row
        then replaces its key's row), or the sink has no primary key and takes updates
        without -U ('sink-changelog-mode-enforced' = 'I,UA,D': Flink's sink trait
        ONLY_UPDATE_AFTER, kept where no primary key can differ from the upsert key); the
        materializer always retracts."""
        if self.materializes:
            return True
        if not self.table.primary_key:
            accepted = sink_accepts(self.table.options)
            return RowKind.UPDATE_AFTER not in accepted or RowKind.UPDATE_BEFORE in accepted
        wanted = sorted(self.row_type.index(name) for name in self.table.primary_key)
        return not any(sorted(key) == wanted for key in input_keys)

    @property
    def materializes(self) -> bool:
        return bool(self.upsert_materialize)

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        if not self.materializes:
            return {}
        return self.runtime().state_layout(self.runtime_params(self.row_type),
                                           struct_ddl(self.row_type))

    def runtime_params(self, input_row):
        return self.runtime().UpsertMaterializerParams(
            ttl_ms=self.state_ttl_ms(),
            upsert_key=tuple(self.input_upsert_key) if self.input_upsert_key else None)

    def check_input_changelog(self, inputs, origins) -> None:
        accepted = sink_accepts(self.table.options)
        extra = inputs[0] - accepted
        if extra:
            raise self.unsupported_changes(
                f"Table sink '{self.table.identifier}'", frozenset(extra), origins[0],
                "Declare the sink with 'sink-insert-only' = 'false' to accept a changelog.")

    def read_options(self, config):
        return {"not_null_enforcer": config.get(SINK_NOT_NULL_ENFORCER)}

    def translate(self, ctx, inputs):
        from pyspark.sql import functions as F

        # The query's columns map to the sink's by position, as in Flink.
        payload = [name for name in inputs[0].columns if name != OP_COLUMN]
        frame = inputs[0].select(*[F.col(quote_identifier(old)).alias(new)
                                   for old, new in zip(payload, self.row_type.names)],
                                 F.col(OP_COLUMN))
        required = [field.name for field in self.row_type.fields if not field.type.nullable]
        if not required:
            return self._materialized(frame)
        any_null = F.lit(False)
        for name in required:
            any_null = any_null | F.col(name).isNull()
        if ctx.options(self)["not_null_enforcer"] == "DROP":
            return self._materialized(frame.filter(~any_null))
        message = (f"Column(s) {', '.join(required)} of table sink '{self.table.identifier}' are "
                   f"NOT NULL but a row carries NULL; set '{SINK_NOT_NULL_ENFORCER.key}' = 'DROP' "
                   f"to drop such rows instead of failing")
        # A filter keeps raise_error from being pruned: it is evaluated for every row.
        return self._materialized(frame.filter(F.when(any_null, F.raise_error(F.lit(message)))
                                               .isNull()))

    def _materialized(self, frame):
        """After the constraint checks, as in Flink: the materializer, keyed by the PK."""
        if not self.materializes:
            return frame
        row = self.row_type
        processor = build_processor(self.runtime(), self.runtime_params(row),
                                    self.state_layout([row]), row, row)
        keys = [row.index(name) for name in self.table.primary_key]
        return transform_keyed(frame, row, keys, processor, row)
