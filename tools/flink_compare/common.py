"""Helpers shared by both runners (plain Python: runs in either venv)."""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import by_name  # noqa: E402

DEFAULT_OUT = Path("/tmp/flink_compare")


def parse_args(engine: str, watermark_option: bool = False) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=f"run the comparison cases on {engine}")
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT / f"{engine}.json",
                        help="results JSON (default: %(default)s)")
    parser.add_argument("--work", type=Path, default=DEFAULT_OUT / f"work-{engine}",
                        help="scratch directory (default: %(default)s)")
    if watermark_option:
        parser.add_argument("--watermark-interval", default=None,
                            help="Flink's pipeline.auto-watermark-interval, e.g. '0 ms' (a "
                                 "watermark per row) or '1 h' (none before end of input)")
    args = parser.parse_args()
    args.selected = by_name(args.cases)
    return args


def materialize(changelog: list[str]) -> list[str]:
    """Apply a changelog of '+I[...]' texts as a multiset: +I/+U add, -U/-D remove one equal row."""
    bag: list[str] = []
    for text in changelog:
        kind, body = text[:2], text[2:]
        if kind in ("+I", "+U"):
            bag.append(body)
        elif body in bag:
            bag.remove(body)
        else:
            bag.append("RETRACTION-OF-MISSING-ROW " + body)
    return sorted("+I" + body for body in bag)


def save(out: Path, results: dict) -> None:
    """Merge `results` into the JSON file (so single cases can be re-run)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    merged = json.loads(out.read_text()) if out.exists() else {}
    merged.update(results)
    out.write_text(json.dumps(merged, indent=1, ensure_ascii=False))


def first_line(error: BaseException, limit: int = 300) -> str:
    """A readable one-line error: the deepest Spark error class or Java 'Caused by', else line 1."""
    text = str(error)
    wrappers = ("[STREAM_FAILED]", "[FOREACH_BATCH_USER_FUNCTION_ERROR]")
    classes = [m.group(0) for m in re.finditer(r"\[[A-Z][A-Z_.]{3,}\][^\n]*", text)
               if not m.group(0).startswith(wrappers)]
    causes = [line.strip() for line in text.splitlines() if line.strip().startswith("Caused by:")]
    lines = text.splitlines()
    java = [lines[i].strip(" :") + (" " + lines[i + 1].strip() if i + 1 < len(lines)
                                    and lines[i + 1].startswith("Cause:") else "")
            for i in range(len(lines)) if re.match(r"[:\s]*[\w.$]+(Exception|Error): ", lines[i])][:1]
    line = (classes or causes or java or [next((l for l in text.splitlines() if l.strip()), text)])[-1]
    return f"{type(error).__name__}: {line.strip()}"[:limit]
