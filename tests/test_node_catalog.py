"""docs/streamplan.md's node catalog is generated from the registry (`streamplan nodes
--write-docs`): every registered node with its versions and state, and the names left
unsupported. It fails when the code and the page disagree."""
from __future__ import annotations

from streamplan.catalog import NODE_CATALOG, node_table
from streamplan.nodes import NODE_CLASSES


def test_the_docs_catalog_is_the_registrys():
    assert NODE_CATALOG.documented() == node_table(), (
        "docs/streamplan.md's node catalog is out of date: run `./run.sh streamplan nodes "
        "--write-docs` and commit the page")


def test_every_stateful_node_says_what_its_state_holds():
    stateful = [cls for cls in NODE_CLASSES if cls.STATE_NAMES or cls.arity == 2]
    assert stateful and all(cls.STATE_DOC for cls in stateful)
    rows = node_table().splitlines()
    for cls in NODE_CLASSES:
        name = cls.__dict__["_exec_node_metadata"][0].name
        assert any(row.startswith(f"| `{name}` |") for row in rows)


def test_writing_the_catalog_replaces_only_the_block(tmp_path):
    begin, end = NODE_CATALOG.begin, NODE_CATALOG.end
    page = tmp_path / "page.md"
    page.write_text(f"before\n{begin}\n{end}\nafter\n")
    assert NODE_CATALOG.write(node_table(), page) is True
    assert page.read_text() == f"before\n{begin}\n{node_table()}{end}\nafter\n"
    assert NODE_CATALOG.write(node_table(), page) is False      # a second run changes nothing


def test_a_page_without_the_markers_says_which_lines_to_add(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("no markers\n")
    import pytest

    with pytest.raises(ValueError, match="node catalog markers are missing"):
        NODE_CATALOG.write(node_table(), page)
