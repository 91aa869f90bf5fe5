"""Exec-node version annotations and the registry that checks them.

`@exec_node(...)` is repeatable: one class may serve several versions of one node name.
The registry enforces the rules at import time and `harness audit` re-checks them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import PlanFormatError, PlanVersionError, RegistryError
from ..options import option_exists
from ..version import ENGINE_VERSION, parse_version


@dataclass(frozen=True)
class ExecNodeMetadata:
    name: str
    version: int
    min_plan_version: str
    min_state_version: str
    consumed_options: tuple[str, ...] = ()

    @property
    def type_id(self) -> str:
        return f"{self.name}_{self.version}"


def exec_node(*, name: str, version: int, min_plan_version: str, min_state_version: str,
              consumed_options: tuple[str, ...] = ()):
    """Annotate an ExecNode class with one version; stack it for several versions."""
    meta = ExecNodeMetadata(name, version, min_plan_version, min_state_version,
                            tuple(consumed_options))

    def decorate(cls):
        own = list(cls.__dict__.get("_exec_node_metadata", ()))
        cls._exec_node_metadata = (meta, *own)
        return cls

    return decorate


def annotations(cls: type) -> tuple[ExecNodeMetadata, ...]:
    """The class's own @exec_node annotations (not inherited ones), newest version first."""
    own = cls.__dict__.get("_exec_node_metadata", ())
    return tuple(sorted(own, key=lambda meta: meta.version, reverse=True))


def node_name(cls: type) -> str:
    """The exec node name a class serves ('stream-exec-calc')."""
    metas = annotations(cls)
    if not metas:
        raise RegistryError(f"{cls.__name__} has no @exec_node annotation")
    return metas[0].name


def class_metadata(cls: type, type_id: str) -> ExecNodeMetadata:
    """The annotation `cls` carries for a plan node type such as 'stream-exec-calc_1'."""
    for meta in annotations(cls):
        if meta.type_id == type_id:
            return meta
    raise PlanFormatError(f"{cls.__name__} carries no @exec_node annotation for node type "
                          f"'{type_id}' (it serves: "
                          f"{', '.join(m.type_id for m in annotations(cls)) or 'nothing'})")


@dataclass(frozen=True)
class PlanMigration:
    """FLIP-190's plan migration of one node: its JSON of `from_version` to `from_version + 1`."""

    name: str
    from_version: int
    function: Callable[[dict[str, Any]], dict[str, Any]]

    @property
    def to_version(self) -> int:
        return self.from_version + 1

    @property
    def summary(self) -> str:
        """What the step does: the first line of its docstring."""
        return (self.function.__doc__ or self.function.__name__).strip().splitlines()[0]


def plan_migration(*, from_version: int):
    """Declare a function in an exec-node class body as the migration of the node's plan
    JSON from version `from_version` to `from_version + 1`. It gets a copy of a node's JSON
    of the old version and returns the new version's JSON (the caller sets the new `type`
    and validates the result). Its docstring's first line says what it changes.

    A migration stays after the old version's annotation is removed: it is how users' plans
    of the dropped version reach today's (`COMPILE PLAN 'new.json' FROM 'old.json'`)."""

    def mark(function):
        function._migrates_from = from_version
        return staticmethod(function)

    return mark


def declared_migrations(cls: type) -> list[tuple[int, Callable]]:
    """The class's own @plan_migration functions, by the version they migrate from."""
    found = []
    for value in cls.__dict__.values():
        function = getattr(value, "__func__", value)
        if hasattr(function, "_migrates_from"):
            found.append((function._migrates_from, function))
    return sorted(found, key=lambda item: item[0])


# Node names Flink has that this engine knows it does not support yet: the planner names
# them in its errors, and the registry accepts them as "explicitly unsupported". A name that
# gets registered is supported from then on (the registry is asked first), so adding a node
# is adding its module; `unsupported_nodes()` is what is left.
UNSUPPORTED_NODES: dict[str, str] = {
    "stream-exec-group-window-aggregate": ("the legacy group window aggregate node (GROUP BY "
                                           "TUMBLE(...) / HOP(...) / SESSION(...) plan as the "
                                           "window TVF aggregate, which gives the same rows)"),
    "stream-exec-match": "MATCH_RECOGNIZE",
}


def unsupported_nodes(registry: "Registry") -> dict[str, str]:
    """The listed names no class of `registry` serves."""
    served = {meta.name for (_, meta) in registry.by_type.values()}
    return {name: what for name, what in UNSUPPORTED_NODES.items() if name not in served}


def annotation_problems(cls: type, meta: ExecNodeMetadata) -> list[str]:
    """Every rule an annotation must meet: the registry refuses the first problem at import,
    the audit reports them all. Each problem says what to do."""
    problems = []
    if meta.version < 1:
        problems.append(f"version must be >= 1, is {meta.version}")
    for key in meta.consumed_options:
        if not option_exists(key):
            problems.append(
                f"consumes option '{key}', which does not exist (by key or fallback key) in "
                f"streamplan/options.py; restore the option or remove it from consumed_options "
                f"(plans persist consumed options: removing one from a released version changes "
                f"its plan JSON, so bump the version)")
    for label, value in (("min_plan_version", meta.min_plan_version),
                         ("min_state_version", meta.min_state_version)):
        try:
            too_new = parse_version(value) > parse_version(ENGINE_VERSION)
        except ValueError:
            problems.append(f"{label} '{value}' is not a version like '0.1'")
            continue
        if too_new:
            problems.append(f"{label} {value} is above the engine version {ENGINE_VERSION}: no "
                            f"release could have written what it claims to restore; lower it to "
                            f"at most {ENGINE_VERSION}")
    versions = [other.version for other in cls.__dict__.get("_exec_node_metadata", ())]
    if versions.count(meta.version) > 1:
        problems.append(f"{cls.__name__} is annotated more than once with version {meta.version}; "
                        f"every version of a node needs its own number")
    return problems


@dataclass
class Registry:
    by_type: dict[str, tuple[type, ExecNodeMetadata]] = field(default_factory=dict)
    classes: list[type] = field(default_factory=list)
    migrations: dict[tuple[str, int], PlanMigration] = field(default_factory=dict)

    def register(self, cls: type) -> type:
        """Check one annotated class and add all its versions."""
        metas = cls.__dict__.get("_exec_node_metadata", ())
        if not metas:
            raise RegistryError(
                f"{cls.__module__}.{cls.__name__} has no @exec_node annotation; annotate it "
                f"or list its node name in UNSUPPORTED_NODES")
        names = {meta.name for meta in metas}
        if len(names) != 1:
            raise RegistryError(f"{cls.__name__} is annotated with several node names: {sorted(names)}")
        for meta in metas:
            self._check(cls, meta)
            self.by_type[meta.type_id] = (cls, meta)
        (name,) = names
        for from_version, function in declared_migrations(cls):
            self._add_migration(cls, PlanMigration(name, from_version, function))
        self.classes.append(cls)
        return cls

    def _add_migration(self, cls: type, migration: PlanMigration) -> None:
        key = (migration.name, migration.from_version)
        latest = self.latest(migration.name).version
        if key in self.migrations:
            raise RegistryError(f"{cls.__name__}: two plan migrations from version "
                                f"{migration.from_version} of {migration.name}")
        if not 1 <= migration.from_version < latest:
            raise RegistryError(
                f"{cls.__name__}: @plan_migration(from_version={migration.from_version}) of "
                f"{migration.name} leads to version {migration.to_version}, but the registered "
                f"versions end at {latest}; a migration goes from an older version to the next")
        self.migrations[key] = migration

    def _check(self, cls: type, meta: ExecNodeMetadata) -> None:
        if meta.type_id in self.by_type:
            other = self.by_type[meta.type_id][0].__name__
            raise RegistryError(f"{cls.__name__}: node type '{meta.type_id}' is already registered by {other}")
        problems = annotation_problems(cls, meta)
        if problems:
            raise RegistryError(f"{cls.__name__} ({meta.type_id}): {problems[0]}")

    def resolve(self, type_id: str, where: str = "") -> tuple[type, ExecNodeMetadata]:
        """The class and annotation for a plan node type; errors say what exists instead."""
        if type_id in self.by_type:
            return self.by_type[type_id]
        name, _, version = type_id.rpartition("_")
        prefix = f"{where}: " if where else ""
        shown = brief_type(type_id)
        known = sorted(meta.version for (_, meta) in self.by_type.values() if meta.name == name)
        supported = f"supported versions: {', '.join(map(str, known))}"
        if known and not _VERSION_NUMBER.fullmatch(version):
            raise PlanFormatError(
                f"{prefix}node type '{shown}': the version after '{name}_' is a number of at "
                f"most 9 ASCII digits ({supported}), not '{brief_type(version)}'")
        if known and (name, int(version)) in self.migrations:
            raise PlanVersionError(
                f"{prefix}node type '{shown}': version {version} of '{name}' is no longer "
                f"supported by engine {ENGINE_VERSION} ({supported}), but plans of it can be "
                f"migrated. Migrate the plan and restore with the migrated one: COMPILE PLAN "
                f"'new.json' FROM 'old.json' (or `streamplan migrate old.json -o new.json`).")
        if known:
            raise PlanVersionError(
                f"{prefix}node type '{shown}': version {version} of '{name}' is not supported by "
                f"engine {ENGINE_VERSION} ({supported}). Recompile the plan from its SQL with "
                f"this engine, or restore with an engine release that still has that version.")
        if name in UNSUPPORTED_NODES:
            raise PlanFormatError(f"{prefix}node type '{shown}' ({UNSUPPORTED_NODES[name]}) is not "
                                  f"supported by this engine")
        raise PlanFormatError(f"{prefix}unknown node type '{shown}'; known types: "
                              f"{', '.join(sorted(self.by_type))}")

    def latest(self, name: str) -> ExecNodeMetadata:
        versions = [meta for (_, meta) in self.by_type.values() if meta.name == name]
        if not versions:
            raise RegistryError(f"no registered exec node named '{name}'")
        return max(versions, key=lambda meta: meta.version)

    def latest_class(self, name: str) -> tuple[type, ExecNodeMetadata]:
        """The class serving the latest version of a node name, and that version's annotation."""
        return self.by_type[self.latest(name).type_id]

    def all_metadata(self) -> list[ExecNodeMetadata]:
        return sorted((meta for (_, meta) in self.by_type.values()), key=lambda m: (m.name, m.version))


REGISTRY = Registry()

# A node version as a plan writes it: 'stream-exec-calc_1'. isdigit() would also admit
# '²' and int() refuses more than 4,300 digits: both raised ValueError from resolve().
_VERSION_NUMBER = re.compile(r"[0-9]{1,9}")


def brief_type(text: str) -> str:
    """A node type from a plan, short enough for a message."""
    return text if len(text) <= 60 else text[:50] + f"... ({len(text)} characters)"


def _check_min_version(meta: ExecNodeMetadata, written_by: str, where: str, what: str,
                       minimum: str, label: str, remedy: str) -> None:
    try:
        written = parse_version(written_by)
    except ValueError:
        raise PlanFormatError(f"{where}: {what} records engine version {written_by!r}, which is "
                              f"not a version like '0.1'") from None
    if written < parse_version(minimum):
        raise PlanVersionError(
            f"{where}: node type '{meta.type_id}' needs {what} written by engine >= {minimum} "
            f"({label}), but it was written by engine {written_by}. Migrate: {remedy}")


def check_plan_version(meta: ExecNodeMetadata, plan_engine_version: str, where: str) -> None:
    """A plan compiled by an engine older than min_plan_version cannot be restored."""
    _check_min_version(
        meta, plan_engine_version, where, "a plan", meta.min_plan_version, "min_plan_version",
        f"recompile the plan from its SQL (COMPILE PLAN) with this engine and start from a fresh "
        f"checkpoint, or restore with engine {plan_engine_version}.")


def check_state_version(meta: ExecNodeMetadata, state_engine_version: str, where: str) -> None:
    """A checkpoint written by an engine older than min_state_version cannot be restored."""
    _check_min_version(
        meta, state_engine_version, where, "a checkpoint", meta.min_state_version,
        "min_state_version", f"drain the query on engine {state_engine_version} and start this "
        f"plan from a fresh checkpoint.")
