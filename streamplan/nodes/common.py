"""Specs shared by several nodes: the catalog table a scan reads or a sink writes."""
from __future__ import annotations

from typing import Optional

from pydantic import field_validator, model_validator

from ..values_connector import option_value_problem
from .base import PlanModel
from .fields import FieldIndex, JoinTypeName, SparkExpression


class DistributionSpec(PlanModel):
    """Flink's TableDistribution of a table: `DISTRIBUTED BY ...` as written."""

    kind: str                                  # HASH, RANGE or UNKNOWN
    bucket_keys: list[str] = []
    bucket_count: Optional[int] = None


class TableSpec(PlanModel):
    """A resolved catalog table as persisted in the plan (schema lives in outputType).
    `partition_keys` and `distribution` are additive and omitted when the table has none,
    so plans without them load unchanged: a values table's partitions and buckets change no
    row (its 'partition-list' option, which does, is among the options)."""

    identifier: str
    options: dict[str, str]
    primary_key: Optional[list[str]] = None
    partition_keys: Optional[list[str]] = None
    distribution: Optional[DistributionSpec] = None

    @field_validator("options")
    @classmethod
    def _known_option_values(cls, options: dict[str, str]) -> dict[str, str]:
        for key, value in options.items():
            problem = option_value_problem(key, value)
            if problem is not None:
                raise ValueError(problem)
        return options


class JoinSpec(PlanModel):
    """Flink's JoinSpec: the join type, equi-join keys and the rest of the ON condition."""

    join_type: JoinTypeName                  # INNER | LEFT | RIGHT | FULL | SEMI | ANTI
    left_keys: list[FieldIndex]
    right_keys: list[FieldIndex]
    filter_nulls: list[bool]
    non_equi_condition: Optional[SparkExpression] = None     # Spark SQL over the output fields

    def key_indexes(self, path: str) -> list[tuple[str, int, list[int]]]:
        return [(f"{path}.leftKeys", 0, self.left_keys), (f"{path}.rightKeys", 1, self.right_keys)]

    @model_validator(mode="after")
    def _one_entry_per_key(self) -> "JoinSpec":
        if not len(self.left_keys) == len(self.right_keys) == len(self.filter_nulls):
            raise ValueError(f"leftKeys, rightKeys and filterNulls pair up, one entry per equality; "
                             f"got {len(self.left_keys)}, {len(self.right_keys)} and "
                             f"{len(self.filter_nulls)}")
        return self
