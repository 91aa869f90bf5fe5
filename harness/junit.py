"""JUnit XML, as CI systems render it: one suite per phase, one testcase per check."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


@dataclass(frozen=True)
class Case:
    name: str
    seconds: float = 0.0
    failure: Optional[str] = None     # the message; None when the case passed


def write_junit(path: Path, suites: dict[str, list[Case]]) -> None:
    root = ET.Element("testsuites", name="harness-gate")
    for suite_name, cases in suites.items():
        suite = ET.SubElement(root, "testsuite", name=suite_name, tests=str(len(cases)),
                              failures=str(sum(case.failure is not None for case in cases)),
                              errors="0", time=f"{sum(case.seconds for case in cases):.3f}")
        for case in cases:
            element = ET.SubElement(suite, "testcase", classname=suite_name, name=case.name,
                                    time=f"{case.seconds:.3f}")
            if case.failure is not None:
                failure = ET.SubElement(element, "failure", message=case.failure.splitlines()[0])
                failure.text = case.failure
    ET.indent(root)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
