"""Typed errors of streamplan. Every error says what is wrong, where, and what to do."""
from __future__ import annotations


class StreamPlanError(Exception):
    """Base class of every error this package raises on purpose."""


class SqlSyntaxError(StreamPlanError):
    """The SQL text cannot be parsed; carries the 1-based line and column."""

    def __init__(self, message: str, line: int, column: int, source: str = "<script>"):
        self.message = message
        self.line = line
        self.column = column
        self.source = source
        super().__init__(f"{source}:{line}:{column}: syntax error: {message}")


class UnsupportedSqlError(StreamPlanError):
    """Valid SQL that streamplan does not (yet) support; names the construct."""

    def __init__(self, construct: str, line: int | None = None, column: int | None = None,
                 source: str = "<script>", hint: str = ""):
        self.construct = construct
        self.line = line
        self.column = column
        where = f"{source}:{line}:{column}: " if line is not None else ""
        tail = f" {hint}" if hint else ""
        super().__init__(f"{where}unsupported: {construct}.{tail}")


class PlanningError(StreamPlanError):
    """The statement is understood but cannot be planned (unknown table, bad hint, type clash)."""


class ChangelogModeError(PlanningError):
    """A node receives row kinds it cannot consume; names the node that produces them."""


class OptionError(StreamPlanError):
    """Unknown configuration key or a value that does not fit its type."""


class UndeclaredOptionError(OptionError):
    """An exec node read an option it does not declare in consumed_options."""


class RegistryError(StreamPlanError):
    """The exec-node annotations break a registry rule; names the class."""


class PlanFormatError(StreamPlanError):
    """A compiled plan file is malformed; names the file, the node and the field."""


class PlanVersionError(PlanFormatError):
    """A plan or checkpoint is older than the node version allows; says how to migrate."""


class CheckpointError(StreamPlanError):
    """A checkpoint directory is not one streamplan can resume (missing or broken marker)."""


class ExecutionError(StreamPlanError):
    """The streaming query failed at run time."""


class NotInsertOnlyError(ExecutionError, ValueError):
    """An operator that takes insert-only input (a deduplicate, an append-only Top-N) got
    another row kind (Flink's checkInsertOnly)."""


class NotNullViolation(ExecutionError):
    """A NULL reached a NOT NULL sink column while the enforcer is ERROR."""


class EnvironmentSetupError(StreamPlanError):
    """Something this machine must provide is missing (a JDK to build the JVM source, ...)."""


class FunctionError(StreamPlanError):
    """A user-defined function cannot be registered or called as written (its class, its
    declared types, its arguments); names the function and what to do."""


class FunctionResolutionError(FunctionError):
    """A plan names a function that cannot be resolved where it runs: its implementation is
    missing, or it declares another signature than the plan (and its checkpoints) hold."""
