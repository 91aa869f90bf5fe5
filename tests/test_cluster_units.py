"""The cluster plumbing that needs no Docker engine: the image's tag, the paths mounted into
the containers, the driver's environment, and the command line's refusals."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.cluster import cluster as cluster_module
from harness.cluster import image
from harness.cluster.cluster import (SparkCluster, driver_environment, environment_set,
                                     spark_target)
from harness.cluster.python import driver_python, is_system_path
from harness.errors import ClusterError


def test_the_image_tag_is_a_hash_of_the_recipe(monkeypatch):
    tag = image.image_tag()
    assert tag == image.image_tag()
    assert tag.startswith(f"{image.REPOSITORY}:") and len(tag.split(":")[1]) == 16
    monkeypatch.setattr(image, "PACKAGES", (*image.PACKAGES, "curl"))
    assert image.image_tag() != tag, "a new package must give a new image"


def _simulate_python(monkeypatch, base_prefix: str, prefix: str, minor: int = 11) -> None:
    """The driver's interpreter as the cluster sees it, whatever runs this test."""
    monkeypatch.setattr(sys, "base_prefix", base_prefix)
    monkeypatch.setattr(sys, "prefix", prefix)
    monkeypatch.setattr(sys, "version_info", (3, minor, 2, "final", 0))


def _assert_each_path_mounted_once(paths: list[Path]) -> None:
    assert not any(a != b and a.is_relative_to(b) for a in paths for b in paths), paths


def test_a_python_outside_system_directories_is_mounted_with_project_and_venv(monkeypatch):
    for base in ("/root/.pyenv/versions/3.11.7", "/opt/python3.11", "/usr/local"):
        _simulate_python(monkeypatch, base, "/srv/project/.venv")
        paths = cluster_module._driver_paths()
        for needed in (cluster_module.REPOSITORY_ROOT, Path("/srv/project/.venv"), Path(base)):
            assert any(needed.is_relative_to(path) for path in paths), (base, needed, paths)
        _assert_each_path_mounted_once(paths)
        assert not driver_python().in_image
        assert image.image_packages(driver_python()) == image.PACKAGES


def test_a_distribution_python_is_carried_by_the_image_and_only_the_venv_mounted(monkeypatch):
    _simulate_python(monkeypatch, "/usr", "/srv/project/.venv")
    paths = cluster_module._driver_paths()
    assert sorted(paths) == sorted({cluster_module.REPOSITORY_ROOT, Path("/srv/project/.venv")})
    assert not any(Path(path).is_relative_to("/usr") for path in paths), "never mount /usr"
    python = driver_python()
    assert python.in_image and python.version == image.SUITE_PYTHON
    packages = image.image_packages(python)
    assert packages == (*image.PACKAGES, "python3")
    assert image.image_tag(packages) != image.image_tag(), "another recipe, another image"


def test_a_distribution_python_of_another_minor_version_is_refused_with_the_remedy(monkeypatch):
    _simulate_python(monkeypatch, "/usr", "/srv/project/.venv", minor=12)
    with pytest.raises(ClusterError, match=r"Python is 3\.12 from /usr.*python3 is 3\.11.*pyenv"):
        image.image_packages(driver_python())


def test_a_distribution_python_without_a_venv_is_refused_with_the_remedy(monkeypatch):
    _simulate_python(monkeypatch, "/usr", "/usr")
    with pytest.raises(ClusterError, match=r"outside a virtual environment.*\.venv"):
        cluster_module._driver_paths()


def test_this_machines_python_gives_mount_paths_covering_its_interpreter():
    paths = cluster_module._driver_paths()
    executable = Path(sys.executable).resolve()
    carried = is_system_path(Path(sys.base_prefix).resolve())
    assert carried or any(executable.is_relative_to(path) for path in paths), executable
    assert any(Path(sys.prefix).resolve().is_relative_to(path) for path in paths)
    _assert_each_path_mounted_once(paths)


def test_the_driver_environment_points_master_and_temp_dir_at_the_cluster():
    cluster = SparkCluster()
    cluster.master_port = 7177
    try:
        env = driver_environment(cluster)
        assert env["STREAMPLAN_MASTER"] == "spark://127.0.0.1:7177"
        assert Path(env["TMPDIR"]).is_relative_to(cluster.shared) and Path(env["TMPDIR"]).is_dir()
        assert "spark.shuffle.readHostLocalDisk=false" in env["PYSPARK_SUBMIT_ARGS"]
        assert env["STREAMPLAN_SHARED_TEMP"] == "1"
    finally:
        cluster.close()
    assert not cluster.shared.exists()


def test_an_existing_master_is_set_for_the_run_and_restored_after(monkeypatch):
    monkeypatch.setenv("STREAMPLAN_MASTER", "local[2]")
    with spark_target(master="spark://10.0.0.1:7077") as running:
        assert running is None and os.environ["STREAMPLAN_MASTER"] == "spark://10.0.0.1:7077"
    assert os.environ["STREAMPLAN_MASTER"] == "local[2]"
    assert tempfile.gettempdir() != ""


def test_environment_set_restores_set_variables_and_removes_new_ones(monkeypatch):
    monkeypatch.setenv("STREAMPLAN_TEST_KEPT", "before")
    monkeypatch.delenv("STREAMPLAN_TEST_NEW", raising=False)
    with pytest.raises(RuntimeError):
        with environment_set({"STREAMPLAN_TEST_KEPT": "during", "STREAMPLAN_TEST_NEW": "x"}):
            assert os.environ["STREAMPLAN_TEST_KEPT"] == "during"
            assert os.environ["STREAMPLAN_TEST_NEW"] == "x"
            raise RuntimeError("the body fails; the environment is restored all the same")
    assert os.environ["STREAMPLAN_TEST_KEPT"] == "before"
    assert "STREAMPLAN_TEST_NEW" not in os.environ


def test_cluster_and_master_together_are_refused():
    with pytest.raises(ClusterError, match="not both"):
        with spark_target(cluster=True, master="spark://h:7077"):
            pass
    result = CliRunner().invoke(app, ["restore", "--cluster", "--master", "spark://h:7077"])
    assert result.exit_code == 1 and "not both" in " ".join(result.output.split())
    result = CliRunner().invoke(app, ["gate", "--spark", "4.1.4", "--cluster"])
    assert result.exit_code == 1 and "does not combine" in " ".join(result.output.split())


def test_a_cluster_needs_a_worker():
    with pytest.raises(ClusterError, match="at least one worker"):
        SparkCluster(workers=0)
