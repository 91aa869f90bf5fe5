"""The audit's function-accumulators check: a user-defined aggregate function's accumulator
is state. Every fixture's plan names the functions it ran by identity and class, with the
accumulator type its checkpoint holds (the manifest's state layout records the same, per
accumulator field). When today's class declares another accumulator type (or another
signature) while fixtures hold the old one, their checkpoints can no longer be restored by
it: the check fails, naming the function and every fixture that holds it, and says what to
do instead (a new function name, or a state migration)."""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator

from streamplan.testing import FunctionSpec, parse_plan_document, read_plan_text, signature_changes

from .errors import Finding
from .fixtures import scan_snapshots

FUNCTION_ACCUMULATORS = "function-accumulators"


def _user_functions(value: Any) -> Iterator[dict]:
    """Every function record in a plan document (`userFunction` objects of any node)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "userFunction" and isinstance(item, dict):
                yield item
            else:
                yield from _user_functions(item)
    elif isinstance(value, list):
        for item in value:
            yield from _user_functions(item)


def functions_held(snapshots: Path) -> dict[tuple, list[str]]:
    """(identity, implementation, the record as JSON text) -> the fixtures whose plans hold it."""
    held: dict[tuple, list[str]] = defaultdict(list)
    for fixture in scan_snapshots(snapshots)[0]:
        try:
            raw = parse_plan_document(read_plan_text(fixture.plan_path), f"fixture {fixture.id}")
        except Exception:         # an unreadable plan is the version rules' finding
            continue
        for record in _user_functions(raw):
            key = (record.get("systemName") or record.get("catalogName"),
                   record.get("implementation"), json.dumps(record, sort_keys=True))
            if fixture.id not in held[key]:
                held[key].append(fixture.id)
    return held


def check_function_accumulators(snapshots: Path) -> list[Finding]:
    findings = []
    for (identity, implementation, text), fixtures in sorted(functions_held(snapshots).items()):
        record = json.loads(text)
        shown = f"function {identity} ({implementation})"
        holders = ", ".join(sorted(fixtures))
        try:
            spec = FunctionSpec.model_validate(record)
            changes = signature_changes(spec)
        except (ImportError, AttributeError) as err:
            findings.append(Finding(FUNCTION_ACCUMULATORS, str(identity), (
                f"{shown} cannot be imported ({type(err).__name__}: {err}), but fixtures hold "
                f"plans that call it: {holders}. Keep the class at '{implementation}' (plans "
                f"name functions by class path), or, if it moved, keep an alias there.")))
            continue
        except ValueError as err:
            findings.append(Finding(FUNCTION_ACCUMULATORS, str(identity),
                                    f"{shown}: its plan record or declared types are invalid: "
                                    f"{err} (fixtures: {holders})"))
            continue
        for what, old, new in changes:
            if what == "accumulatorType":
                findings.append(Finding(FUNCTION_ACCUMULATORS, str(identity), (
                    f"aggregate {shown}: its accumulator type changed from '{old}' to '{new}' "
                    f"while fixtures hold accumulators of the old type in their checkpoints: "
                    f"{holders}. Those checkpoints (and users' savepoints of the same plans) "
                    f"cannot be restored by the changed class. Either register the changed "
                    f"function under a new name (a new class path; keep the old class where it "
                    f"is for the plans that name it), or keep ACCUMULATOR_TYPE '{old}' and "
                    f"migrate the state (convert the accumulators explicitly, then add a new "
                    f"program with fixtures for the new layout).")))
            else:
                findings.append(Finding(FUNCTION_ACCUMULATORS, str(identity), (
                    f"{shown}: its declared {what} changed from {old!r} to {new!r} while "
                    f"fixtures hold plans compiled against the old one: {holders}. Restoring "
                    f"them fails. Restore the declaration, or register the changed function "
                    f"under a new name.")))
    return findings
