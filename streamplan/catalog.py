"""The exec-node catalog as docs/streamplan.md shows it, generated from the registry: each
node's versions from its annotations and its state from the node's `STATE_DOC`, so the table
cannot drift from the code. `streamplan nodes --write-docs` rewrites it; a test compares."""
from __future__ import annotations

from .generated_docs import DOCS, GeneratedBlock
from .nodes import NODE_CLASSES, REGISTRY
from .nodes.metadata import unsupported_nodes

NODE_CATALOG = GeneratedBlock(DOCS / "streamplan.md", "node catalog", "streamplan nodes --write-docs")


def node_table() -> str:
    """The markdown table of the registered nodes and the names known as unsupported."""
    lines = ["| node | versions | state |", "| --- | --- | --- |"]
    for cls in NODE_CLASSES:
        metas = cls.__dict__["_exec_node_metadata"]
        name = metas[0].name
        versions = sorted(meta.version for (_, meta) in REGISTRY.by_type.values()
                          if meta.name == name)
        lines.append(f"| `{name}` | {', '.join(map(str, versions))} | "
                     f"{' '.join(cls.STATE_DOC.split()) or '—'} |")
    unsupported = ", ".join(f"`{name}` ({what})" for name, what in sorted(unsupported_nodes(REGISTRY).items()))
    return "\n".join(lines) + f"\n\nKnown and not supported yet: {unsupported}.\n"
