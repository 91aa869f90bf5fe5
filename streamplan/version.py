"""The engine release this code is. Plans and checkpoints record it; node annotations compare to it."""
import re

ENGINE_VERSION = "0.3"
SPARK_VERSION = "4.3.0"


def running_spark_version() -> str:
    """The PySpark release this process runs; SPARK_VERSION is the one the project pins (and
    plans record). They differ when fixtures are generated on an older Spark release."""
    from importlib.metadata import version

    return version("pyspark")


def is_version(value: object) -> bool:
    """A version string as plans and checkpoints record them ('0.3', '4.3.0'), bounded in size."""
    return (isinstance(value, str)
            and re.fullmatch(r"[0-9]{1,6}(\.[0-9]{1,6}){1,3}", value) is not None)


def parse_version(text: str) -> tuple[int, ...]:
    """'0.1' -> (0, 1); raises ValueError on anything that is not dotted integers (a JSON
    null or number from a hand-edited file included)."""
    if not isinstance(text, str) or re.fullmatch(r"[0-9]{1,9}(\.[0-9]{1,9})*", text) is None:
        raise ValueError(f"{text!r:.40} is not a version like '0.1'")
    return tuple(int(part) for part in text.split("."))
