"""Find the programs (every module of the `programs` package exposes `PROGRAMS`) and map each
to the exec node it tests: the registered node whose short name is the longest prefix of
the program id, or the node a ported program names (its Flink id may start with none)."""
from __future__ import annotations

import importlib
import pkgutil
from typing import Iterable, Optional

from streamplan.testing import REGISTRY, Registry

from .errors import ProgramError
from .program import TableTestProgram

NODE_PREFIX = "stream-exec-"

# Step kinds the semantic, generate and restore runners know how to run.
RUNNABLE_STEP_KINDS = frozenset({"config", "function", "temporal-table-function", "source",
                                 "sink", "sql", "statement-set", "failing-sql"})


def short_name(node_name: str) -> str:
    """'stream-exec-interval-join' -> 'interval-join' (fixture dirs and program ids)."""
    return node_name.removeprefix(NODE_PREFIX)


def node_names(registry: Registry = REGISTRY) -> list[str]:
    return sorted({meta.name for meta in registry.all_metadata()})


def resolve_node(text: str, registry: Registry = REGISTRY) -> str:
    """A node given as 'calc' or 'stream-exec-calc' -> its full name; errors list the known."""
    names = node_names(registry)
    for name in names:
        if text in (name, short_name(name)):
            return name
    raise ProgramError(f"no exec node '{text}'; known: {', '.join(map(short_name, names))}")


def node_of(program: TableTestProgram, registry: Registry = REGISTRY) -> str:
    """The node a program tests: the one it names (`for_node`), else the longest short name
    its id starts with."""
    if program.node is not None:
        return resolve_node(program.node, registry)
    matches = [name for name in node_names(registry)
               if program.id == short_name(name) or program.id.startswith(short_name(name) + "-")]
    if not matches:
        raise ProgramError(
            f"program '{program.id}' does not start with the short name of a registered exec "
            f"node ({', '.join(map(short_name, node_names(registry)))}); its id decides which "
            f"node's fixtures it generates (a program ported under Flink's id names its node "
            f"with .for_node(...))")
    return max(matches, key=len)


def check_runnable(program: TableTestProgram) -> None:
    """Runners refuse step kinds they cannot run; silently skipping would fake coverage."""
    for step in program.steps:
        if step.kind not in RUNNABLE_STEP_KINDS:
            raise ProgramError(
                f"program '{program.id}': step kind '{step.kind}' ({type(step).__name__}) cannot "
                f"be run by the semantic/generate/restore runners (they run: "
                f"{', '.join(sorted(RUNNABLE_STEP_KINDS))})")


def discover_programs(package: str = "programs", registry: Registry = REGISTRY) -> list[TableTestProgram]:
    """Every program of every module in `package`, checked: ids unique, each program in the
    module of its node, every step runnable. A package that lists its programs itself (a
    package-level PROGRAMS, as tests/gate_programs picks each node's TINY) is taken as it is."""
    root = importlib.import_module(package)
    programs: list[TableTestProgram] = []
    if hasattr(root, "PROGRAMS"):
        programs.extend(root.PROGRAMS)
        check_programs(programs)
        return programs
    for info in sorted(pkgutil.iter_modules(root.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        found = getattr(module, "PROGRAMS", None)
        if not isinstance(found, (list, tuple)) or not all(isinstance(p, TableTestProgram) for p in found):
            raise ProgramError(f"{module.__name__}: expected a module-level PROGRAMS list of "
                               f"TableTestProgram (built with TableTestProgram.of(...)...build())")
        for program in found:
            _check_module(program, info.name, module.__name__, package, registry)
            if program.refusal is not None:
                raise ProgramError(f"program '{program.id}' runs a statement that must fail: it "
                                   f"belongs in {module.__name__}.FAILING_PROGRAMS (no fixtures), "
                                   f"not PROGRAMS")
        programs.extend(found)
    check_programs(programs)
    return programs


def _check_module(program: TableTestProgram, module: str, qualified: str, package: str,
                  registry: Registry) -> None:
    node = node_of(program, registry)
    expected = short_name(node).replace("-", "_")
    if module != expected:
        raise ProgramError(f"program '{program.id}' tests {node} and belongs in "
                           f"{package}/{expected}.py, not {qualified}")


def discover_failing_programs(package: str = "programs",
                              registry: Registry = REGISTRY) -> list[TableTestProgram]:
    """Every module's FAILING_PROGRAMS: statements that must be refused with a given error
    (Flink's runFailingSql), each in the module of its node, ids unique among all programs."""
    root = importlib.import_module(package)
    if hasattr(root, "PROGRAMS"):
        return []
    failing: list[TableTestProgram] = []
    for info in sorted(pkgutil.iter_modules(root.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        for program in getattr(module, "FAILING_PROGRAMS", []):
            _check_module(program, info.name, module.__name__, package, registry)
            if program.refusal is None:
                raise ProgramError(f"program '{program.id}' in {module.__name__}.FAILING_PROGRAMS "
                                   f"has no run_failing_sql step; a program that runs belongs "
                                   f"in PROGRAMS")
            failing.append(program)
    check_programs(discover_programs(package, registry) + failing)
    return failing


def tiny_programs(package: str = "programs") -> list[TableTestProgram]:
    """Each node module's TINY program: the smallest program that crosses a restore, which
    the harness's own tests run as a whole gate in seconds."""
    root = importlib.import_module(package)
    modules = sorted(pkgutil.iter_modules(root.__path__), key=lambda m: m.name)
    return [importlib.import_module(f"{package}.{info.name}").TINY for info in modules
            if not info.name.startswith("_")]


def check_programs(programs: Iterable[TableTestProgram]) -> None:
    seen: set[str] = set()
    for program in programs:
        if program.id in seen:
            raise ProgramError(f"duplicate program id '{program.id}'; ids name fixture "
                               f"directories and must be unique")
        seen.add(program.id)
        check_runnable(program)


def select_programs(programs: list[TableTestProgram], node: Optional[str] = None,
                    program_id: Optional[str] = None,
                    registry: Registry = REGISTRY) -> list[TableTestProgram]:
    """Filter by node (short or full name) and/or program id; an unknown filter is an error."""
    selected = programs
    if node is not None:
        name = resolve_node(node, registry)
        selected = [p for p in selected if node_of(p, registry) == name]
    if program_id is not None:
        if program_id not in {p.id for p in programs}:
            raise ProgramError(f"no program '{program_id}'; known: "
                               f"{', '.join(sorted(p.id for p in programs))}")
        selected = [p for p in selected if p.id == program_id]
    return selected
