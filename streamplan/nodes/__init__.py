"""All exec nodes, found, registered and checked at import.

Every module of this package is imported; every class in it annotated with @exec_node is
registered. A subclass of ExecNode that is neither annotated nor a base of annotated
classes (such as KeyedNode) is refused by name, and node names the engine knows but does
not support are listed in metadata.UNSUPPORTED_NODES. Adding a node is adding its module.
"""
from __future__ import annotations

import importlib
import pkgutil

from ..errors import RegistryError
from .base import ExecNode, TranslateContext
from .metadata import REGISTRY, UNSUPPORTED_NODES, ExecNodeMetadata, exec_node

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")


def _all_subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found.append(sub)
        found.extend(_all_subclasses(sub))
    return found


def _annotated(cls: type) -> bool:
    return "_exec_node_metadata" in cls.__dict__


def _ours() -> list[type]:
    return [cls for cls in _all_subclasses(ExecNode) if cls.__module__.startswith(f"{__name__}.")]


NODE_CLASSES = tuple(sorted((cls for cls in _ours() if _annotated(cls)),
                            key=lambda cls: (cls.__module__, cls.__name__)))


def register_all(registry=REGISTRY) -> None:
    """Register every node class; fail naming any subclass that is neither registered nor a
    base of registered ones."""
    for cls in NODE_CLASSES:
        registry.register(cls)
    stray = [cls for cls in _ours() if not _annotated(cls)
             and not any(_annotated(sub) for sub in _all_subclasses(cls))]
    if stray:
        names = ", ".join(f"{cls.__module__}.{cls.__name__}" for cls in stray)
        raise RegistryError(f"exec node class(es) {names} are not registered: annotate them with "
                            f"@exec_node, or list their node name in UNSUPPORTED_NODES")


register_all()

__all__ = ["ExecNode", "TranslateContext", "REGISTRY", "UNSUPPORTED_NODES", "ExecNodeMetadata",
           "exec_node", "NODE_CLASSES"]
