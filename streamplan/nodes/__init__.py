"""All exec nodes, registered and checked at import.

A class that subclasses ExecNode must be annotated with @exec_node; node names the
engine knows but does not support are listed in metadata.UNSUPPORTED_NODES.
"""
from __future__ import annotations

from ..errors import RegistryError
from .base import ExecNode, TranslateContext
from .calc import StreamExecCalc
from .changelog_normalize import StreamExecChangelogNormalize
from .deduplicate import StreamExecDeduplicate
from .drop_update_before import StreamExecDropUpdateBefore
from .group_aggregate import StreamExecGroupAggregate
from .interval_join import StreamExecIntervalJoin
from .join import StreamExecJoin
from .rank import StreamExecRank
from .metadata import REGISTRY, UNSUPPORTED_NODES, ExecNodeMetadata, exec_node
from .sink import StreamExecSink
from .source_scan import StreamExecTableSourceScan
from .watermark_assigner import StreamExecWatermarkAssigner

NODE_CLASSES = (StreamExecTableSourceScan, StreamExecDropUpdateBefore, StreamExecChangelogNormalize,
                StreamExecWatermarkAssigner, StreamExecCalc, StreamExecIntervalJoin, StreamExecJoin,
                StreamExecGroupAggregate, StreamExecDeduplicate, StreamExecRank, StreamExecSink)


def _all_subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found.append(sub)
        found.extend(_all_subclasses(sub))
    return found


def register_all(registry=REGISTRY) -> None:
    """Register every node class; fail naming any subclass that is neither registered nor listed."""
    for cls in NODE_CLASSES:
        registry.register(cls)
    stray = [cls for cls in _all_subclasses(ExecNode)
             if cls not in NODE_CLASSES and cls.__module__.startswith("streamplan.")]
    if stray:
        names = ", ".join(f"{cls.__module__}.{cls.__name__}" for cls in stray)
        raise RegistryError(f"exec node class(es) {names} are not registered: add them to "
                            f"NODE_CLASSES or list their node name in UNSUPPORTED_NODES")


register_all()

__all__ = ["ExecNode", "TranslateContext", "REGISTRY", "UNSUPPORTED_NODES", "ExecNodeMetadata",
           "exec_node", "NODE_CLASSES"]
