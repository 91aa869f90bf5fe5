"""What a checkpoint holds: offsets, commits and every state variable, read through Spark's own
state data sources (`state-metadata` and `statestore`), plus the plan's nodes.

    report = inspect_checkpoint(resolve_target("interval-join_1/interval-join-early-fire"))
    render(report, console)          # rich tables
    print(report_json_text(report))  # one JSON document for tools

A target is a fixture directory, a fixture id (resolved under a snapshots root) or a raw
checkpoint directory (`streamplan.json` and `sink-<id>/` query directories). The checkpoint is
always read from a temp copy made by `harness.portable_checkpoint.materialize` (a fixture's checkpoint
is portable: its state metadata holds a placeholder instead of an absolute path), so nothing
is ever written into `snapshots/` or into the checkpoint inspected.

What Spark shows, per query directory:
* the last committed batch and the last offsets file (watermark, one offset per source);
* per stateful operator (`state/<opId>`), from its operator metadata: the state variables of
  a transformWithState operator, each read with `stateVarName` (grouping key, map user key
  and value or value, partition; a TTL-enabled variable also carries Spark's expiration
  column), and the registered timers (`readRegisteredTimers`). Other stateful operators are
  read per state store (`storeName`).
"""
from __future__ import annotations

import base64
import datetime as dt
import json
import re
import tempfile
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Optional

from rich.console import Console
from rich.table import Table
from rich.text import Text

from streamplan.testing import last_log_entry, load_plan

from .portable_checkpoint import materialize
from .errors import FixtureError
from .fixtures import DEFAULT_SNAPSHOTS, Fixture, fixture_for

ENGINE_FILE = "streamplan.json"
QUERY_PREFIX = "sink-"
_FIXTURE_ID = re.compile(r"^(?P<short>[a-z0-9]+(?:-[a-z0-9]+)*)_(?P<version>[0-9]+)/(?P<program>[^/]+)/?$")
_VERSION_DIR = re.compile(r"^(?P<short>[a-z0-9]+(?:-[a-z0-9]+)*)_(?P<version>[0-9]+)$")
EXPECTED = ("a fixture directory (<snapshots>/<node>_<version>/<program>/ holding checkpoint/ and "
            "plan/), a fixture id under {snapshots} (<node>_<version>/<program>, e.g. "
            "interval-join_1/interval-join-early-fire), or a checkpoint directory (holding "
            f"{ENGINE_FILE} and {QUERY_PREFIX}<id>/ query directories)")


@dataclass(frozen=True)
class Target:
    checkpoint: Path                    # read only; inspect works on a temp copy
    fixture: Optional[Fixture] = None
    plan_file: Optional[Path] = None    # the fixture's plan, or --plan for a raw checkpoint


# ------------------------------------------------------------------------------- resolving

def resolve_target(text: str, snapshots: Path = DEFAULT_SNAPSHOTS,
                   plan_file: Optional[Path] = None) -> Target:
    """A fixture directory, a fixture id under `snapshots`, or a raw checkpoint directory;
    anything else is a FixtureError naming the path and what was expected."""
    if plan_file is not None and not Path(plan_file).is_file():
        raise FixtureError(f"cannot inspect '{text}' with --plan {plan_file}: no such plan file")
    path = Path(text)
    if path.is_dir():
        if (path / "checkpoint").is_dir():
            return _fixture_target(_fixture_at(path), plan_file)
        if _is_checkpoint(path):
            return Target(path, None, plan_file)
        raise _not_a_target(text, snapshots, f"{path} is a directory with neither checkpoint/ nor "
                                             f"{ENGINE_FILE} and {QUERY_PREFIX}<id>/")
    if path.exists():
        raise _not_a_target(text, snapshots, f"{path} is a file")
    match = _FIXTURE_ID.match(text)
    if match is not None:
        fixture = fixture_for(snapshots, match["short"], int(match["version"]), match["program"])
        if fixture.checkpoint_dir.is_dir():
            return _fixture_target(fixture, plan_file)
        raise _not_a_target(text, snapshots, f"there is no fixture {fixture.id} under {snapshots} "
                                             f"(`harness list` shows the fixtures)")
    raise _not_a_target(text, snapshots, f"{path} does not exist")


def _not_a_target(text: str, snapshots: Path, why: str) -> FixtureError:
    return FixtureError(f"cannot inspect '{text}': {why}. Expected "
                        f"{EXPECTED.format(snapshots=snapshots)}")


def _is_checkpoint(path: Path) -> bool:
    return (path / ENGINE_FILE).is_file() and any(_query_dirs(path))


def _fixture_at(directory: Path) -> Fixture:
    match = _VERSION_DIR.match(directory.resolve().parent.name)
    if match is None:
        raise FixtureError(f"cannot inspect '{directory}': it holds checkpoint/ like a fixture, but "
                           f"a fixture lives in a '<node>_<version>' directory, not in "
                           f"'{directory.resolve().parent.name}'. Pass its checkpoint/ directory "
                           f"to inspect it as a raw checkpoint")
    return fixture_for(directory.parent.parent, match["short"], int(match["version"]), directory.name)


def _fixture_target(fixture: Fixture, plan_file: Optional[Path]) -> Target:
    plan = Path(plan_file or fixture.plan_path)
    if not plan.is_file():
        raise FixtureError(f"fixture {fixture.id}: plan {plan} is missing; restore the fixture from "
                           f"git, or pass --plan FILE")
    return Target(fixture.checkpoint_dir, fixture, plan)


def _query_dirs(checkpoint: Path) -> list[Path]:
    """The `sink-<id>` query directories, by sink node id."""
    def order(path: Path) -> tuple[int, str]:
        suffix = path.name.removeprefix(QUERY_PREFIX)
        return (int(suffix), "") if suffix.isdigit() else (-1, path.name)

    return sorted((p for p in checkpoint.glob(f"{QUERY_PREFIX}*") if p.is_dir()), key=order)


# ------------------------------------------------------------------------------- reading

def inspect_checkpoint(target: Target, spark=None) -> dict[str, Any]:
    """The JSON document of `target`: {source, plan, queries -> {lastBatch, offsets,
    operators -> {variables -> {kind, rows}}}}, values JSON-friendly."""
    engine = _read_json(target.checkpoint / ENGINE_FILE)
    report: dict[str, Any] = {
        "source": {"fixture": target.fixture.id if target.fixture else None,
                   "checkpoint": str(target.checkpoint),
                   "engineVersion": (engine or {}).get("engineVersion")},
        "plan": _plan_document(target.plan_file) if target.plan_file else None,
        "queries": {},
    }
    if spark is None:
        from streamplan.testing import spark_session

        spark = spark_session()
    with tempfile.TemporaryDirectory(prefix="harness-inspect-") as scratch:
        copy = materialize(target.checkpoint, Path(scratch) / "checkpoint")
        for query_dir in _query_dirs(copy):
            report["queries"][query_dir.name] = _read_query(query_dir, spark)
    return report


def _plan_document(plan_file: Path) -> dict[str, Any]:
    plan = load_plan(plan_file)
    return {"file": str(plan_file), "engineVersion": plan.engine_version,
            "nodes": [{"id": node.id, "type": node.type, "description": node.description}
                      for node in plan.nodes]}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _read_query(query_dir: Path, spark) -> dict[str, Any]:
    offsets = last_log_entry(query_dir / "offsets")
    commit = last_log_entry(query_dir / "commits")
    return {
        "lastBatch": commit.batch if commit else None,
        "offsetsBatch": offsets.batch if offsets else None,
        "watermarkMs": ((offsets and offsets.metadata) or {}).get("batchWatermarkMs"),
        "nextWatermarkMs": ((commit and commit.metadata) or {}).get("nextBatchWatermarkMs"),
        "offsets": offsets.sources if offsets else [],
        "operators": _read_operators(query_dir, spark) if (query_dir / "state").is_dir() else {},
    }


def _read_operators(query_dir: Path, spark) -> dict[str, Any]:
    stores: dict[int, list] = {}
    for row in spark.read.format("state-metadata").load(str(query_dir)).collect():
        stores.setdefault(int(row["operatorId"]), []).append(row)
    operators: dict[str, Any] = {}
    for operator_id, rows in sorted(stores.items()):
        first = rows[0]
        properties = json.loads(first["operatorProperties"] or "{}")
        variables = properties.get("stateVariables")

        def reader():
            return spark.read.format("statestore").option("operatorId", operator_id)

        operator: dict[str, Any] = {"name": first["operatorName"],
                                    "partitions": first["numPartitions"],
                                    "timeMode": properties.get("timeMode"),
                                    "variables": {}, "timers": None}
        if variables is not None:           # transformWithState: one read per state variable
            for variable in variables:
                name = variable["stateName"]
                if name.startswith("$"):    # Spark's own timer column families
                    continue
                frame = reader().option("stateVarName", name).load(str(query_dir))
                operator["variables"][name] = {"kind": variable["stateVariableType"],
                                               "ttlEnabled": bool(variable.get("ttlEnabled")),
                                               **_frame(frame)}
            if properties.get("timeMode") not in (None, "NoTime", "None"):
                frame = reader().option("readRegisteredTimers", "true").load(str(query_dir))
                operator["timers"] = _frame(frame)
        else:                               # other stateful operators: one read per store
            for row in rows:
                store = row["stateStoreName"]
                frame = reader().option("storeName", store).load(str(query_dir))
                operator["variables"][store] = {"kind": "store", "ttlEnabled": False, **_frame(frame)}
        operators[str(operator_id)] = operator
    return operators


def _frame(frame) -> dict[str, Any]:
    columns = list(frame.columns)
    rows = [{column: jsonable(row[column]) for column in columns} for row in frame.collect()]
    rows.sort(key=lambda row: [json.dumps(row[c], sort_keys=True) for c in columns])
    return {"columns": columns, "rows": rows}


def jsonable(value: Any) -> Any:
    """A value the state reader returns, as JSON: Rows as dicts, datetimes as ISO strings."""
    if hasattr(value, "asDict"):                              # pyspark.sql.Row
        return {key: jsonable(item) for key, item in value.asDict().items()}
    if isinstance(value, dict):
        return {(key if isinstance(key, str) else json.dumps(jsonable(key), sort_keys=True)):
                jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return value


def report_json_text(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------------------- rendering

def compact(value: Any) -> str:
    """A cell: a one-field struct shows its value, others `name=value`, lists `[...]`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        if len(value) == 1:
            return compact(next(iter(value.values())))
        return "(" + ", ".join(f"{key}={compact(item)}" for key, item in value.items()) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(compact(item) for item in value) + "]"
    return str(value)


def _iso_ms(ms: Optional[int]) -> str:
    if ms is None:
        return "-"
    if ms == 0:                 # Spark's watermark before any event time was seen
        return "none (0)"
    moment = dt.datetime.fromtimestamp(ms / 1000, tz=dt.timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def render(report: dict[str, Any], console: Console) -> None:
    """One table for the plan, one for the offsets, one per state variable and timer set;
    each under a heading line that names it."""
    source = report["source"]
    what = f"fixture {source['fixture']}" if source["fixture"] else "checkpoint"
    console.print(Text(f"{what}: {source['checkpoint']} (engine {source['engineVersion']}; "
                       f"read from a temp copy)", style="bold"))
    plan = report["plan"]
    if plan is not None:
        table = _table(console, f"plan {plan['file']}", ["id", "type", "description"])
        for node in plan["nodes"]:
            table.add_row(Text(str(node["id"])), Text(node["type"]), Text(node["description"]))
        console.print(table)
    offsets = _table(console, "offsets and commits (per query directory)",
                     ["query", "committed batch", "offsets batch", "watermark", "source offsets"])
    for name, query in report["queries"].items():
        sources = "\n".join(f"{index}: {json.dumps(offset, sort_keys=True)}"
                            for index, offset in enumerate(query["offsets"]))
        offsets.add_row(*(Text(cell) for cell in (
            name, compact(query["lastBatch"]), compact(query["offsetsBatch"]),
            _iso_ms(query["watermarkMs"]), sources or "-")))
    console.print(offsets)
    for name, query in report["queries"].items():
        if not query["operators"]:
            console.print(Text(f"\n{name}: no stateful operator"))
        for operator_id, operator in query["operators"].items():
            where = f"{name} · operator {operator_id} ({operator['name']})"
            for variable, content in sorted(operator["variables"].items()):
                ttl = ", TTL" if content["ttlEnabled"] else ""
                _print_rows(console, f"{where} · {variable} ({content['kind']}{ttl})", content)
            if operator["timers"] is not None:
                _print_rows(console, f"{where} · timers ({operator['timeMode']})", operator["timers"])


def _table(console: Console, heading: str, columns: list[str]) -> Table:
    console.print(Text(f"\n{heading}", style="bold"))
    table = Table()
    for column in columns:
        table.add_column(column, overflow="fold")
    return table


def _print_rows(console: Console, heading: str, content: dict[str, Any]) -> None:
    table = _table(console, heading + ("" if content["rows"] else ": empty"), content["columns"])
    for row in content["rows"]:
        table.add_row(*(Text(compact(row[column])) for column in content["columns"]))
    console.print(table)
