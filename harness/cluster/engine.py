"""The Docker engine the cluster runs on: reached through the docker SDK, started by the
project's own script (ci/docker-engine: installs Debian's docker.io, starts dockerd) when
none answers."""
from __future__ import annotations

import subprocess
from pathlib import Path

from ..errors import ClusterError

ENGINE_SCRIPT = Path(__file__).resolve().parents[2] / "ci" / "docker-engine"


def docker_client(start: bool = True):
    """A docker SDK client of an engine that answers; with `start`, ci/docker-engine is run
    first when none does (a Docker engine that cannot run here fails with its reason)."""
    import docker
    from docker.errors import DockerException

    try:
        client = docker.from_env()
        client.ping()
        return client
    except DockerException as err:
        if not start:
            raise ClusterError(f"no Docker engine answers ({err}); start one with "
                               f"{ENGINE_SCRIPT} (installs Debian's docker.io, starts dockerd)"
                               ) from None
    done = subprocess.run(["bash", str(ENGINE_SCRIPT)], capture_output=True, text=True)
    if done.returncode != 0:
        raise ClusterError(f"the Docker engine could not be started, so the Spark cluster cannot "
                           f"run on this machine: {ENGINE_SCRIPT} said:\n"
                           f"{(done.stderr or done.stdout).strip()}")
    return docker_client(start=False)
