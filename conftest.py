"""Shared pytest set-up: the restore gate's plugin, one SparkSession for the whole test
session (JVM start ~10 s), and a planning test module's table environment (`env`)."""
from __future__ import annotations

import os

import pytest

pytest_plugins = ["harness.pytest_plugin"]


@pytest.fixture(scope="session")
def spark():
    from streamplan.runtime.session import spark_session

    return spark_session(shuffle_partitions=session_shuffle_partitions(os.environ))


@pytest.fixture()
def env(spark, request):
    """A TableEnvironment on the session's Spark, with the test module's `DDL` run in it."""
    from streamplan.api import TableEnvironment

    environment = TableEnvironment(spark=spark)
    environment.execute_sql(request.module.DDL)
    return environment


def session_shuffle_partitions(environ) -> int | None:
    """One shuffle partition for the queries a local test session starts afresh (semantic
    runs, tests' own generations): a fifth less time per semantic run, and no check depends
    on the count — restores keep the two partitions their fixtures' checkpoints pinned, and
    fixtures are generated (`harness generate`) with the default two. A cluster session, or
    $STREAMPLAN_SHUFFLE_PARTITIONS, keeps its own."""
    if environ.get("STREAMPLAN_MASTER") or environ.get("STREAMPLAN_SHUFFLE_PARTITIONS"):
        return None
    return 1
