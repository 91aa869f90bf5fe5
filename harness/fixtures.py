"""The fixture layout on disk, its manifest and its checksums.

    snapshots/<node short name>_<version>/<program id>/
        plan/<program id>.json   the compiled plan (byte-stable)
        checkpoint/              the Spark checkpoint after the before-restore data (portable)
        manifest.json            versions, plan and data checksums, state layouts and the
                                 before-restore sink output; byte-stable across regenerations
        checkpoint.sha256        sha256 of every checkpoint file (`sha256sum -c` format); it
                                 changes on regeneration because Spark writes random ids
        spark-<release>/         the same plan and data run on an older Spark release
            checkpoint/, manifest.json, checkpoint.sha256     (harness.spark_releases)
    snapshots/spark-releases.json   the older releases every latest-version program keeps
    snapshots/migrations.json       what migrating each older fixture must do (migration_ledger)
"""
from __future__ import annotations

import hashlib
import json
import platform
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

from pydantic import (BaseModel, ConfigDict, JsonValue, StringConstraints, ValidationError)

from streamplan.testing import (ChangelogRow, ENGINE_VERSION, RowKind, RowType, SPARK_VERSION,
                                brief_repr, parse_json, to_json, to_python, validation_problems)

from .errors import FixtureError

DEFAULT_SNAPSHOTS = Path(__file__).resolve().parents[1] / "snapshots"
MANIFEST = "manifest.json"
CHECKSUMS = "checkpoint.sha256"
MANIFEST_FORMAT = 1
RELEASE_PREFIX = "spark-"
RELEASES_FILE = "spark-releases.json"      # which older releases are kept (spark_releases)
LEDGER_FILE = "migrations.json"            # recorded migration outcomes (migration_ledger)
PORTED_FILE = "flink-programs.json"        # every Flink program ever ported (harness.ported)
_VERSION_DIR = re.compile(r"^(?P<short>[a-z0-9]+(?:-[a-z0-9]+)*)_(?P<version>[0-9]+)$")


@dataclass(frozen=True)
class Fixture:
    directory: Path         # the program's directory: the plan lives here
    short_name: str         # node name without 'stream-exec-'
    version: int
    program_id: str
    # The Spark release that wrote the checkpoint, when not the pinned one: such a fixture
    # shares the program's plan and keeps its own files in spark-<release>/.
    spark_release: Optional[str] = None

    @property
    def id(self) -> str:
        base = f"{self.short_name}_{self.version}/{self.program_id}"
        return f"{base}/{RELEASE_PREFIX}{self.spark_release}" if self.spark_release else base

    @property
    def files_dir(self) -> Path:
        """Where the checkpoint, manifest and checksums are."""
        if self.spark_release:
            return self.directory / f"{RELEASE_PREFIX}{self.spark_release}"
        return self.directory

    @property
    def plan_path(self) -> Path:
        return self.directory / "plan" / f"{self.program_id}.json"

    @property
    def checkpoint_dir(self) -> Path:
        return self.files_dir / "checkpoint"

    @property
    def manifest_path(self) -> Path:
        return self.files_dir / MANIFEST

    @property
    def checksums_path(self) -> Path:
        return self.files_dir / CHECKSUMS

    def on_release(self, release: str) -> "Fixture":
        """This program's fixture written by Spark `release`."""
        return replace(self, spark_release=release)


def fixture_for(snapshots: Path, short_name: str, version: int, program_id: str) -> Fixture:
    return Fixture(Path(snapshots) / f"{short_name}_{version}" / program_id, short_name, version,
                   program_id)


def scan_snapshots(snapshots: Path) -> tuple[list[Fixture], list[str]]:
    """Every fixture directory, and the entries that are not fixtures (as problems)."""
    root = Path(snapshots)
    fixtures: list[Fixture] = []
    problems: list[str] = []
    if not root.is_dir():
        return fixtures, problems
    for version_dir in sorted(root.iterdir()):
        if version_dir.name.startswith(".") or version_dir.name in (RELEASES_FILE, LEDGER_FILE,
                                                                            PORTED_FILE):
            continue
        match = _VERSION_DIR.match(version_dir.name)
        if not version_dir.is_dir() or match is None:
            problems.append(f"{version_dir}: not a '<node>_<version>' fixture directory")
            continue
        for program_dir in sorted(version_dir.iterdir()):
            if program_dir.name.startswith("."):
                continue
            if not program_dir.is_dir():
                problems.append(f"{program_dir}: not a fixture directory")
                continue
            fixture = Fixture(program_dir, match["short"], int(match["version"]), program_dir.name)
            fixtures.append(fixture)
            fixtures += [fixture.on_release(release.name.removeprefix(RELEASE_PREFIX))
                         for release in sorted(program_dir.glob(f"{RELEASE_PREFIX}*"))
                         if release.is_dir()]
    return fixtures, problems


# ------------------------------------------------------------------------------------ JSON

def json_text(data: Any) -> str:
    """Byte-stable JSON: sorted keys, indent 2, newline at the end; a list that fits on one
    line (a row, a list of names) stays on one line, so rows read like rows."""
    return _dump(data, 0) + "\n"


def _dump(value: Any, depth: int) -> str:
    compact = json.dumps(value, sort_keys=True, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or not value or (
            isinstance(value, list) and len(compact) + 2 * depth <= 100):
        return compact
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(key, ensure_ascii=False)}: {_dump(value[key], depth + 1)}"
                 for key in sorted(value)]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    return "[\n" + ",\n".join(f"{inner}{_dump(item, depth + 1)}" for item in value) + f"\n{pad}]"


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def encode_rows(rows: list[ChangelogRow]) -> list[list]:
    return [[row.kind.short, [to_json(value) for value in row.values]] for row in rows]


def decode_rows(data: list[list], row_type: RowType, where: str) -> list[ChangelogRow]:
    """Rows as encode_rows wrote them, checked against the sink's type (FixtureError)."""
    types = [f.type for f in row_type.fields]
    rows = []
    for index, (kind, values) in enumerate(data):
        if len(values) != len(types):
            raise FixtureError(f"{where}: row {index} has {len(values)} value(s), the sink has "
                               f"{len(types)} column(s)")
        try:
            rows.append(ChangelogRow(RowKind.from_short(kind),
                                     tuple(to_python(v, t) for v, t in zip(values, types))))
        except ValueError as err:
            raise FixtureError(f"{where}: row {index}: {err}") from None
    return rows


# -------------------------------------------------------------------------------- manifest

@dataclass(frozen=True)
class Manifest:
    program: str
    node_type: str                          # e.g. 'stream-exec-calc_1'
    plan_sha256: str
    data_sha256: str                        # TableTestProgram.before_data_fingerprint()
    outputs: dict[str, list]                # sink -> encoded before-restore changelog rows
    state_layouts: dict[str, dict]          # node id -> {"type": ..., "layout": {...}}
    engine_version: str = ENGINE_VERSION
    spark_version: str = SPARK_VERSION
    python_version: str = platform.python_version()

    def to_json(self) -> dict[str, Any]:
        return {"formatVersion": MANIFEST_FORMAT, "program": self.program,
                "nodeType": self.node_type, "engineVersion": self.engine_version,
                "sparkVersion": self.spark_version, "pythonVersion": self.python_version,
                "plan": {"sha256": self.plan_sha256}, "beforeRestoreData": {"sha256": self.data_sha256},
                "beforeRestoreOutput": self.outputs, "stateLayouts": self.state_layouts}

    @staticmethod
    def from_json(raw: Any) -> "Manifest":
        """The manifest of a JSON document; ValidationError names each field of the wrong
        shape (a manifest is data from a file, like a plan)."""
        _ManifestDocument.model_validate(raw)
        return Manifest(program=raw["program"], node_type=raw["nodeType"],
                        plan_sha256=raw["plan"]["sha256"], data_sha256=raw["beforeRestoreData"]["sha256"],
                        outputs=raw["beforeRestoreOutput"], state_layouts=raw["stateLayouts"],
                        engine_version=raw["engineVersion"], spark_version=raw["sparkVersion"],
                        python_version=raw["pythonVersion"])


class _Digest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sha256: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


# A before-restore changelog row as generate writes it: ["+U", [value, ...]].
_EncodedRow = tuple[Literal["+I", "-U", "+U", "-D"], list[JsonValue]]


class _ManifestDocument(BaseModel):
    """The JSON shape of manifest.json, checked before any field is used."""

    model_config = ConfigDict(extra="forbid")
    formatVersion: int
    program: str
    nodeType: str
    engineVersion: str
    sparkVersion: str
    pythonVersion: str
    plan: _Digest
    beforeRestoreData: _Digest
    beforeRestoreOutput: dict[str, list[_EncodedRow]]
    stateLayouts: dict[str, dict[str, JsonValue]]


def read_manifest(fixture: Fixture) -> Manifest:
    remedy = (f"regenerate it with `harness generate --program {fixture.program_id}` if "
              f"{fixture.short_name}_{fixture.version} is the latest version, else restore it from git")
    try:
        text = fixture.manifest_path.read_text(encoding="utf-8")
    except OSError as err:
        raise FixtureError(f"fixture {fixture.id}: cannot read {MANIFEST}: {err.strerror}; "
                           f"{remedy}") from None
    except UnicodeDecodeError as err:
        raise FixtureError(f"fixture {fixture.id}: {MANIFEST} is not UTF-8 text (byte "
                           f"{err.start}); {remedy}") from None
    raw = parse_json(text, f"fixture {fixture.id}: {MANIFEST}", FixtureError, remedy)
    found = raw.get("formatVersion") if isinstance(raw, dict) else None
    if type(found) is not int or found != MANIFEST_FORMAT:
        raise FixtureError(f"fixture {fixture.id}: manifest format {brief_repr(found)} "
                           f"is not {MANIFEST_FORMAT}; {remedy}")
    try:
        return Manifest.from_json(raw)
    except ValidationError as err:
        raise FixtureError(f"fixture {fixture.id}: {MANIFEST} is malformed "
                           f"({validation_problems(err)}); {remedy}") from None


# ------------------------------------------------------------------------------- checksums

def tree_checksums(directory: Path, relative_to: Path) -> dict[str, str]:
    return {path.relative_to(relative_to).as_posix(): sha256_file(path)
            for path in sorted(directory.rglob("*")) if path.is_file()}


def write_checksums(path: Path, sums: dict[str, str]) -> None:
    path.write_text("".join(f"{digest}  {name}\n" for name, digest in sorted(sums.items())))


def read_checksums(path: Path) -> dict[str, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise FixtureError(f"{path}: not UTF-8 text (byte {err.start}); restore it from git") from None
    sums = {}
    for line in text.splitlines():
        digest, _, name = line.partition("  ")
        sums[name] = digest
    return sums


def verify_fixture(fixture: Fixture, manifest: Manifest) -> None:
    """Fail when the plan or any checkpoint file differs from what generate wrote."""
    remedy = (f"Fixtures are never edited by hand: restore it from git, or regenerate it with "
              f"`harness generate --program {fixture.program_id}` if version {fixture.version} "
              f"is the latest")
    if not fixture.plan_path.is_file():
        raise FixtureError(f"fixture {fixture.id}: plan {fixture.plan_path} is missing. {remedy}")
    if sha256_file(fixture.plan_path) != manifest.plan_sha256:
        raise FixtureError(f"fixture {fixture.id}: plan {fixture.plan_path.name} was modified after "
                           f"generation (sha256 differs from the manifest). {remedy}")
    if not fixture.checksums_path.is_file():
        raise FixtureError(f"fixture {fixture.id}: {CHECKSUMS} is missing. {remedy}")
    recorded = read_checksums(fixture.checksums_path)
    actual = tree_checksums(fixture.checkpoint_dir, fixture.files_dir)
    problems = ([f"{name} modified" for name in sorted(recorded.keys() & actual.keys())
                 if recorded[name] != actual[name]]
                + [f"{name} missing" for name in sorted(recorded.keys() - actual.keys())]
                + [f"{name} added" for name in sorted(actual.keys() - recorded.keys())])
    if problems:
        raise FixtureError(f"fixture {fixture.id}: the checkpoint differs from {CHECKSUMS}: "
                           f"{'; '.join(problems)}. {remedy}")
