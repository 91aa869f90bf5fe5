"""The cluster's node image, built here from what these machines reach: no image registry,
but Debian's package archive. debootstrap makes a Debian root file system with the JVM and
the shared libraries Python's extension modules link against; `docker import` turns it into
an image. Its tag is a hash of those inputs, so an image is built once and reused until the
recipe changes.

Spark and the project are not in the image: the cluster mounts the driver's own
(harness.cluster.cluster), so executors always run the driver's versions. So is Python, unless
the driver's is the distribution's own (under /usr): then the image carries Debian's python3
of the same suite, checked to be the driver's minor version (harness.cluster.python).
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from ..errors import ClusterError
from .python import DriverPython, driver_python

REPOSITORY = "streamplan-spark-node"
SUITE = "bookworm"
MIRROR = os.environ.get("STREAMPLAN_DEBIAN_MIRROR", "http://deb.debian.org/debian")
PACKAGES = (
    "openjdk-17-jre-headless",          # Spark's master, workers and executors
    "procps",                           # spark-class and Spark's scripts call ps
    # what the driver's CPython and its extension modules link against (ldd of lib-dynload)
    "libbz2-1.0", "libexpat1", "libffi8", "liblzma5", "libncursesw6", "libnsl2",
    "libreadline8", "libsqlite3-0", "libssl3", "libtirpc3", "libuuid1", "zlib1g",
)
SUITE_PYTHON = "3.11"                   # the major.minor of SUITE's python3 package
CHANGES = ("ENV LANG=C.UTF-8", "ENV TZ=UTC", 'CMD ["/bin/bash"]')
RECIPE = 1                              # bump when the build steps below change
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "streamplan"

Say = Callable[[str], None]


def image_packages(python: DriverPython) -> tuple[str, ...]:
    """The image's packages for a driver running `python`: Debian's python3 as well when the
    driver's Python is the distribution's own, which the containers cannot mount."""
    if not python.in_image:
        return PACKAGES
    if python.version != SUITE_PYTHON:
        raise ClusterError(
            f"the driver's Python is {python.version} from {python.base_prefix}, a system "
            f"directory, so the cluster's image must carry the same interpreter; the image is "
            f"Debian {SUITE}, whose python3 is {SUITE_PYTHON}. Create the project's .venv with "
            f"a Python {SUITE_PYTHON} (Debian {SUITE}'s python3), or with a Python installed "
            f"outside /usr (pyenv, uv, /usr/local), which the containers mount")
    return (*PACKAGES, "python3")


def image_tag(packages: tuple[str, ...] | None = None) -> str:
    """`streamplan-spark-node:<hash of the recipe>`: the same inputs give the same tag."""
    inputs = json.dumps({"suite": SUITE, "packages": sorted(packages or PACKAGES), "changes": CHANGES,
                         "recipe": RECIPE}, sort_keys=True)
    return f"{REPOSITORY}:{hashlib.sha256(inputs.encode()).hexdigest()[:16]}"


def ensure_image(client, say: Say = lambda line: None,
                 python: DriverPython | None = None) -> str:
    """The node image's tag for a driver running `python` (this process's by default),
    built first when the engine does not hold it."""
    packages = image_packages(python or driver_python())
    tag = image_tag(packages)
    with _build_lock():
        if _present(client, tag):
            return tag
        started = time.monotonic()
        carried = " + python3" if "python3" in packages else ""
        say(f"building the cluster image {tag} (debootstrap {SUITE} + JVM{carried}; a few "
            f"minutes, once)")
        _build(client, tag, packages, say)
        say(f"built {tag} in {time.monotonic() - started:.0f} s")
    return tag


def _present(client, tag: str) -> bool:
    from docker.errors import ImageNotFound

    try:
        client.images.get(tag)
        return True
    except ImageNotFound:
        return False


@contextmanager
def _build_lock() -> Iterator[None]:
    """One build at a time on this machine (two test processes may ask at once)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / "cluster-image.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _build(client, tag: str, packages: tuple[str, ...], say: Say) -> None:
    if shutil.which("debootstrap") is None:
        raise ClusterError("debootstrap is missing; ci/docker-engine installs it (with the "
                           "Docker engine), or `apt-get install debootstrap`")
    if os.geteuid() != 0:
        raise ClusterError("building the cluster image needs root (debootstrap creates a root "
                           "file system); run once as root, later runs reuse the image")
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="image-build-", dir=CACHE) as work:
        rootfs, log = Path(work) / "rootfs", CACHE / "cluster-image-build.log"
        say(f"  debootstrap {SUITE} from {MIRROR} (log: {log})")
        _run(["debootstrap", "--variant=minbase", f"--include={','.join(packages)}", SUITE,
              str(rootfs), MIRROR], log)
        if "python3" in packages:
            _check_python(rootfs, log)
        shutil.rmtree(rootfs / "var" / "cache" / "apt" / "archives", ignore_errors=True)
        archive = Path(work) / "rootfs.tar"
        say("  packing the root file system")
        _run(["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(archive), "."], log)
        say("  docker import")
        repository, version = tag.split(":")
        client.api.import_image_from_file(str(archive), repository=repository, tag=version,
                                          changes=list(CHANGES))
    if not _present(client, tag):
        raise ClusterError(f"docker import reported no error, but the engine holds no {tag}")


def _check_python(rootfs: Path, log: Path) -> None:
    """The suite's python3 must be the minor version SUITE_PYTHON says (the driver's)."""
    probe = "import sys; print('%d.%d' % sys.version_info[:2])"
    done = subprocess.run(["chroot", str(rootfs), "/usr/bin/python3", "-c", probe],
                          capture_output=True, text=True)
    found = done.stdout.strip()
    if done.returncode != 0 or found != SUITE_PYTHON:
        raise ClusterError(f"Debian {SUITE}'s python3 in the image is {found or 'missing'} "
                           f"({done.stderr.strip() or 'no error'}), not {SUITE_PYTHON}; "
                           f"SUITE_PYTHON in {__file__} must say what {SUITE} ships (log: {log})")


def _run(command: list[str], log: Path) -> None:
    with log.open("a") as handle:
        handle.write(f"\n$ {' '.join(command)}\n")
        handle.flush()
        done = subprocess.run(command, stdout=handle, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        raise ClusterError(f"building the cluster image failed: `{command[0]}` exited with "
                           f"{done.returncode}; the last lines of {log}:\n{tail}")
