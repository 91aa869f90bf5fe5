"""streamplan's public surface for test frameworks (the harness imports only this module).

Everything a restore-compatibility harness needs: compile and run plans, load them against
any registry, read and apply changelogs, check checkpoints and annotations. What is not
here is internal and may change without notice.
"""
from __future__ import annotations

from .api import TableEnvironment, explain_plan, lookup_joins, normalize_rows, source_scans
from .changelog import FeedRow, RowKind
from .checkpoints import (CHECKPOINT_MARKER, check_restorable, check_spark_release, last_batch_time_ms,
                          last_log_entry, log_files, written_by)
from .errors import (CheckpointError, ExecutionError, PlanFormatError, PlanVersionError,
                     StreamPlanError)
from .functions import FunctionDefinition, FunctionSpec, define_function, signature_changes
from .json_diff import describe_changes, json_changes
from .json_input import parse_json, surrogate_problem
from .durations import parse_duration_ms
from .generated_docs import DOCS, GeneratedBlock
from .executor import (RunResult, SinkOutput, advances_event_time, phased_steps, step_layout,
                       step_times)
from .migration import (MigrationResult, NodeMigration, migrate_plan_file, migrate_plan_text,
                        state_readable)
from .nodes import REGISTRY, ExecNode
from .nodes.arrival_order import one_chain_in_arrival_order
from .nodes.base import validation_problems
from .nodes.metadata import ExecNodeMetadata, Registry, annotation_problems
from .options import Configuration, lookup_option, option_exists
from .plan import (CompiledPlan, build_plan, load_plan, load_plan_nodes, parse_plan_document,
                   read_plan_text)
from .planner.planner import table_row_type
from .planner.sources import readable_metadata, scan_row_type
from .runtime.changelog_sink import ChangelogRow
from .runtime.rows import format_row
from .runtime.rows import brief_repr, to_json, to_python
from .sql.ast import CreateTable, Insert, StatementSet
from .sql.parser import parse_script
from .types import RowType
from .values_connector import option_value_problem
from .version import ENGINE_VERSION, SPARK_VERSION, parse_version, running_spark_version


def spark_session():
    """The process-wide SparkSession (started on first use)."""
    from .runtime.session import spark_session as start

    return start()


def stop_spark_session() -> None:
    """Stop the process-wide SparkSession, if one runs (the next use starts a new one)."""
    from .runtime.session import stop_session

    stop_session()


__all__ = [
    # environments and plans
    "TableEnvironment", "explain_plan", "source_scans", "lookup_joins", "normalize_rows",
    "CompiledPlan",
    "load_plan", "read_plan_text", "parse_plan_document", "load_plan_nodes", "build_plan",
    "spark_session",
    # running and changelogs
    "FeedRow", "DOCS", "GeneratedBlock", "parse_duration_ms", "phased_steps", "step_layout", "step_times", "advances_event_time", "one_chain_in_arrival_order", "RunResult", "SinkOutput", "ChangelogRow", "RowKind",
    "format_row", "to_json", "to_python", "brief_repr", "validation_problems", "RowType", "table_row_type",
    "readable_metadata", "scan_row_type",
    # scripts and tables
    "parse_script", "CreateTable", "Insert", "StatementSet", "option_value_problem",
    # user-defined functions
    "FunctionDefinition", "FunctionSpec", "define_function", "signature_changes",
    # nodes, options, versions
    "REGISTRY", "Registry", "ExecNode", "ExecNodeMetadata", "annotation_problems",
    "Configuration", "lookup_option", "option_exists", "ENGINE_VERSION", "SPARK_VERSION",
    "parse_version", "running_spark_version",
    # plan migration
    "MigrationResult", "NodeMigration", "migrate_plan_file", "migrate_plan_text", "state_readable",
    # checkpoints
    "CHECKPOINT_MARKER", "written_by", "check_restorable", "check_spark_release", "log_files", "last_log_entry",
    "last_batch_time_ms",
    # JSON: the strict reader of files from outside, and differences
    "parse_json", "surrogate_problem", "json_changes", "describe_changes",
    # errors
    "StreamPlanError", "PlanFormatError", "PlanVersionError", "CheckpointError", "ExecutionError",
]
