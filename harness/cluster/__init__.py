"""A Spark standalone cluster in Docker for the restore gate: one master and two workers on
the loopback interface, started through testcontainers.

    image.py    the node image, built locally (debootstrap + docker import), cached by hash
    python.py   the driver's Python: mounted, or carried by the image (a distribution's own)
    engine.py   the Docker engine: reach it, or start it with ci/docker-engine
    cluster.py  master + workers as containers; kill a worker, stop and start the cluster

The containers hold the operating system and the JVM; Spark, Python and the project are the
driver's own, mounted read-only at the same paths (a Python under /usr is Debian's python3 of
the image's suite, checked to be the driver's minor version), so driver and executors cannot
run different versions. A directory shared by driver and workers at the same path holds every
checkpoint and feed file (the driver's temp dir points there while it uses the cluster).
"""
