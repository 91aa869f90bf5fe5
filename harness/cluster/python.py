"""Where the driver's Python comes from, and so how the cluster's nodes get the same one.

An interpreter installed outside the system directories (pyenv, uv, a source build,
/usr/local) is mounted into the containers at its own path. A distribution's own Python
(`sys.base_prefix` is `/usr`) cannot be: mounting the host's /usr would hide the image's
own system. The image carries the same interpreter instead, from the same Debian suite's
`python3` package (harness.cluster.image), and only the project's venv is mounted.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import ClusterError

# Directories the image itself fills; a path under one cannot be mounted from the host.
# /usr/local is the administrator's, empty in the image: an interpreter there is mounted.
_SYSTEM_DIRS = (Path("/usr"), Path("/bin"), Path("/lib"), Path("/lib64"), Path("/sbin"),
                Path("/etc"))
_NOT_SYSTEM = (Path("/usr/local"),)


def is_system_path(path: Path) -> bool:
    return (any(path.is_relative_to(system) for system in _SYSTEM_DIRS)
            and not any(path.is_relative_to(local) for local in _NOT_SYSTEM))


@dataclass(frozen=True)
class DriverPython:
    """The interpreter the driver runs: its installation (`base_prefix`), the environment
    it runs in (`prefix`: the project's venv) and its `major.minor` version."""

    base_prefix: Path
    prefix: Path
    version: str

    @property
    def in_image(self) -> bool:
        """True for a distribution's Python: the node image carries it (Debian's python3)."""
        return is_system_path(self.base_prefix)

    def mounts(self) -> set[Path]:
        """The directories of this Python the containers take from the host."""
        if not self.in_image:
            return {self.prefix, self.base_prefix}
        if is_system_path(self.prefix):
            raise ClusterError(
                f"the driver runs {self.base_prefix}'s Python outside a virtual environment "
                f"(sys.prefix is {self.prefix}), so PySpark and the project's dependencies are "
                f"in system directories the cluster's containers cannot take from the host; "
                f"run from the project's .venv (./run.sh creates it)")
        return {self.prefix}


def driver_python() -> DriverPython:
    return DriverPython(base_prefix=Path(sys.base_prefix).resolve(),
                        prefix=Path(sys.prefix).resolve(),
                        version="%d.%d" % tuple(sys.version_info[:2]))
