"""streamplan's JVM code (`jvm/*.java`: the `values` source, and the local file system of
local sessions), built into a jar for Spark.

The jar is compiled on first use with the JDK's `javac`, against the jars of the PySpark
that runs it, and cached under a name made of the sources' hash and the PySpark version:
the same inputs are built once per machine. Executors get it from the driver (`spark.jars`).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..errors import EnvironmentSetupError

SOURCES = Path(__file__).with_name("jvm")
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "streamplan" / "jars"
JAVA_RELEASE = "17"
INSTALL_HINT = ("install a JDK 17 or newer (Debian/Ubuntu: apt-get install "
                "openjdk-17-jdk-headless) or run ./run.sh, which does")


def _java_sources() -> list[Path]:
    return sorted(SOURCES.glob("*.java"))


def jar_name() -> str:
    """`streamplan-jvm-<hash>.jar`: the hash covers the sources, the Java release and the
    PySpark version compiled against, so any change builds a new jar."""
    import pyspark

    digest = hashlib.sha256(f"{pyspark.__version__}\0{JAVA_RELEASE}".encode())
    for source in _java_sources():
        digest.update(b"\0" + source.name.encode() + b"\0" + source.read_bytes())
    return f"streamplan-jvm-{digest.hexdigest()[:16]}.jar"


def streamplan_jar(cache: Path = CACHE) -> Path:
    """The jar of streamplan's JVM code, built first when the cache does not hold it."""
    jar = cache / jar_name()
    if jar.exists():
        return jar
    javac, jar_tool = shutil.which("javac"), shutil.which("jar")
    if javac is None or jar_tool is None:
        raise EnvironmentSetupError(
            f"streamplan's values source is Java ({SOURCES}) and is compiled on first use, but "
            f"this machine has no JDK ('javac' and 'jar' are not on PATH): {INSTALL_HINT}")
    import pyspark

    spark_jars = Path(pyspark.__file__).resolve().parent / "jars"
    cache.mkdir(parents=True, exist_ok=True)
    # Built in a temp dir and moved into place: processes that build at once never see half
    # a jar, and the last one's (identical) jar wins.
    with tempfile.TemporaryDirectory(dir=cache, prefix=".build-") as build:
        classes = Path(build) / "classes"
        _run([javac, "--release", JAVA_RELEASE, "-nowarn", "-encoding", "UTF-8",
              "-cp", str(spark_jars / "*"), "-d", str(classes),
              *map(str, _java_sources())], "compiling")
        built = Path(build) / jar.name
        _run([jar_tool, "--create", "--file", str(built), "-C", str(classes), "."], "packaging")
        os.replace(built, jar)
    return jar


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise EnvironmentSetupError(
            f"{what} streamplan's JVM code failed ({' '.join(command[:1])}, exit "
            f"{done.returncode}):\n{(done.stderr or done.stdout).strip()}")


def jvm_class(jvm, name: str):
    """The JVM class `name` (dotted) through a py4j view, e.g. `spark._jvm`: one lookup of the
    whole name. Walking it (`jvm.java.util.ArrayList`) asks the JVM to load each prefix as a
    class first ("java", "java.util"), and each miss searches every jar on the class path."""
    return getattr(jvm, name)
