"""Registry rules: checked at import, with errors that name the class."""
from __future__ import annotations

import pytest

from streamplan.errors import RegistryError
from streamplan.nodes.calc import StreamExecCalc
from streamplan.nodes import NODE_CLASSES
from streamplan.nodes.metadata import REGISTRY, Registry, exec_node, unsupported_nodes
from streamplan.options import STATE_TTL, lookup_option


def fresh_class(*annotations, base=StreamExecCalc, name="Probe"):
    cls = type(name, (base,), {"__module__": "tests.fake_nodes"})
    for annotation in reversed(annotations):
        cls = annotation(cls)
    return cls


def test_one_class_can_serve_several_versions():
    cls = fresh_class(exec_node(name="probe", version=1, min_plan_version="0.1", min_state_version="0.1"),
                      exec_node(name="probe", version=2, min_plan_version="0.1", min_state_version="0.1"))
    registry = Registry()
    registry.register(cls)
    assert registry.latest("probe").version == 2
    assert registry.resolve("probe_1")[0] is cls
    assert registry.resolve("probe_2")[0] is cls
    assert [(meta.type_id, meta.version) for meta in registry.all_metadata()] == [("probe_1", 1),
                                                                               ("probe_2", 2)]


def test_duplicate_name_and_version_is_rejected_naming_both_classes():
    registry = Registry()
    registry.register(fresh_class(exec_node(name="probe", version=1, min_plan_version="0.1",
                                            min_state_version="0.1"), name="First"))
    with pytest.raises(RegistryError, match="Second: node type 'probe_1' is already registered by First"):
        registry.register(fresh_class(exec_node(name="probe", version=1, min_plan_version="0.1",
                                                min_state_version="0.1"), name="Second"))


def test_consumed_option_must_exist_in_options_registry():
    cls = fresh_class(exec_node(name="probe", version=1, min_plan_version="0.1", min_state_version="0.1",
                                consumed_options=("table.exec.no-such-option",)))
    with pytest.raises(RegistryError, match=r"Probe \(probe_1\): consumes option 'table.exec.no-such-option', which does not exist"):
        Registry().register(cls)


def test_consumed_option_may_be_named_by_its_fallback_key():
    # 'table.exec.state-retention' is not a key of its own: it is the fallback key of
    # table.exec.state.ttl (streamplan/options.py).
    assert lookup_option("table.exec.state-retention") is STATE_TTL
    assert STATE_TTL.key == "table.exec.state.ttl"
    cls = fresh_class(exec_node(name="probe", version=1, min_plan_version="0.1", min_state_version="0.1",
                                consumed_options=("table.exec.state-retention",)))
    registry = Registry()
    assert registry.register(cls) is cls
    registered, meta = registry.resolve("probe_1")
    assert registered is cls
    assert meta.consumed_options == ("table.exec.state-retention",)


def test_class_without_annotation_is_rejected():
    with pytest.raises(RegistryError, match="Bare has no @exec_node annotation"):
        Registry().register(fresh_class(name="Bare"))


def test_min_versions_may_not_be_above_the_engine():
    cls = fresh_class(exec_node(name="probe", version=1, min_plan_version="9.0", min_state_version="0.1"))
    with pytest.raises(RegistryError, match="min_plan_version 9.0 is above the engine version"):
        Registry().register(cls)


def test_a_registered_node_is_no_longer_unsupported():
    # Adding a node Flink has is adding its module: the registry is asked first, and the
    # name leaves what is reported as unsupported.
    cls = fresh_class(exec_node(name="stream-exec-match", version=1,
                                min_plan_version="0.1", min_state_version="0.1"))
    registry = Registry()
    assert "stream-exec-match" in unsupported_nodes(registry)
    registry.register(cls)
    assert registry.resolve("stream-exec-match_1")[0] is cls
    assert "stream-exec-match" not in unsupported_nodes(registry)
    assert "stream-exec-window-aggregate" not in unsupported_nodes(REGISTRY)   # served now


def test_the_shipped_registry_has_the_expected_node_versions():
    # One `@exec_node(..., version=N)` per released version in each node module of
    # streamplan/nodes/ (join has two: version 2 added per-input state TTL; interval join has
    # two: version 2 changed the state layout; changelog normalize has two: version 2 persists
    # the mini-batch options); all_metadata() sorts by name, then version.
    assert [m.type_id for m in REGISTRY.all_metadata()] == [
        "stream-exec-calc_1", "stream-exec-changelog-normalize_1",
        "stream-exec-changelog-normalize_2", "stream-exec-correlate_1", "stream-exec-deduplicate_1",
        "stream-exec-drop-update-before_1", "stream-exec-expand_1",
        "stream-exec-global-group-aggregate_1",
        "stream-exec-global-window-aggregate_1", "stream-exec-group-aggregate_1", "stream-exec-group-aggregate_2",
        "stream-exec-incremental-group-aggregate_1", "stream-exec-interval-join_1", "stream-exec-interval-join_2", "stream-exec-join_1",
        "stream-exec-join_2", "stream-exec-limit_1", "stream-exec-local-group-aggregate_1",
        "stream-exec-local-window-aggregate_1", "stream-exec-lookup-join_1",
        "stream-exec-mini-batch-assigner_1",
        "stream-exec-over-aggregate_1",
        "stream-exec-rank_1", "stream-exec-sink_1", "stream-exec-sort-limit_1",
        "stream-exec-table-source-scan_1", "stream-exec-temporal-join_1",
        "stream-exec-temporal-sort_1", "stream-exec-union_1", "stream-exec-values_1",
        "stream-exec-watermark-assigner_1", "stream-exec-window-aggregate_1",
        "stream-exec-window-deduplicate_1", "stream-exec-window-join_1",
        "stream-exec-window-rank_1", "stream-exec-window-table-function_1"]
    # ... and each type resolves to the class whose own annotation declares it.
    declared = {meta.type_id: cls for cls in NODE_CLASSES
                for meta in cls.__dict__["_exec_node_metadata"]}
    assert sorted(declared) == [m.type_id for m in REGISTRY.all_metadata()]
    for type_id, cls in declared.items():
        assert REGISTRY.resolve(type_id)[0] is cls
