"""Shared pytest set-up: the restore gate's plugin, and one SparkSession for the whole test
session (JVM start ~10 s)."""
from __future__ import annotations

import pytest

pytest_plugins = ["harness.pytest_plugin"]


@pytest.fixture(scope="session")
def spark():
    from streamplan.runtime.session import spark_session

    return spark_session()
