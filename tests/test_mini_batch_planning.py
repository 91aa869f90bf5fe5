"""Planning with table.exec.mini-batch.*: Flink's two-phase plan, its checks, and what is
refused by name. Without mini-batch nothing changes (every plan snapshot shows it)."""
from __future__ import annotations

import pytest

from streamplan.api import TableEnvironment
from streamplan.errors import OptionError, PlanningError, UnsupportedSqlError

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE T (k STRING, v INT) WITH ('connector' = 'values');
CREATE TABLE U (k STRING, w INT) WITH ('connector' = 'values');
CREATE TABLE C (k STRING, v INT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'values', 'changelog-mode' = 'I,UB,UA,D');
CREATE TABLE S (k STRING, n BIGINT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
CREATE TABLE J (k STRING, v INT, w INT)
  WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""
AGGREGATE = "INSERT INTO S SELECT k, COUNT(DISTINCT v) FROM T GROUP BY k"
MINI_BATCH = {"table.exec.mini-batch.enabled": "true",
              "table.exec.mini-batch.allow-latency": "2 s", "table.exec.mini-batch.size": "3"}


def environment(spark, **options):
    env = TableEnvironment(spark=spark)
    for key, value in options.items():
        env.config.set(key, value)
    env.execute_sql(DDL)
    return env


def test_mini_batch_plans_an_assigner_a_local_and_a_global_aggregate(spark):
    plan = environment(spark, **MINI_BATCH).compile_sql(AGGREGATE)
    assert [node.type for node in plan.nodes] == [
        "stream-exec-table-source-scan_1", "stream-exec-mini-batch-assigner_1",
        "stream-exec-local-group-aggregate_1", "stream-exec-global-group-aggregate_1",
        "stream-exec-sink_1"]
    assigner, local, global_ = plan.nodes[1:4]
    assert assigner.description == "MiniBatchAssigner(interval=[2000ms], mode=[ProcTime])"
    assert list(local.row_type.names) == ["k", "distinct$0", "count1$1"]
    assert global_.configuration == {"table.exec.mini-batch.enabled": "true",
                                     "table.exec.mini-batch.size": "3"}
    assert global_.local_agg_input_row_type == "ROW<`k` STRING, `v` INT>"
    assert global_.state[0].name == "globalGroupAggregateState"



@pytest.mark.parametrize("query, mode", [
    ("INSERT INTO S SELECT k, COUNT(*) FROM W GROUP BY k", "ProcTime"),
    ("INSERT INTO S SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE W, DESCRIPTOR(t), "
     "INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end", "RowTime"),
    ("INSERT INTO S SELECT k, COUNT(*) OVER (PARTITION BY k ORDER BY t ROWS BETWEEN "
     "UNBOUNDED PRECEDING AND CURRENT ROW) FROM W", "RowTime"),
])
def test_a_table_with_a_watermark_gets_its_assigner_after_the_watermark_assigner(spark, query,
                                                                                mode):
    """As Flink's MiniBatchIntervalInferRule (checked with PyFlink 2.3's EXPLAIN): row-time
    mode when a node downstream requires the watermark, processing-time mode otherwise."""
    env = environment(spark, **MINI_BATCH)
    env.execute_sql("CREATE TABLE W (k STRING, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL "
                    "'1' SECOND) WITH ('connector' = 'values')")
    plan = env.compile_sql(query)
    types = [node.type for node in plan.nodes]
    watermark = types.index("stream-exec-watermark-assigner_1")
    assigner = plan.nodes[watermark + 1]
    assert assigner.type == "stream-exec-mini-batch-assigner_1"
    assert assigner.mini_batch_interval.mode == mode
    assert assigner.description == f"MiniBatchAssigner(interval=[2000ms], mode=[{mode}])"
    assert types.count("stream-exec-mini-batch-assigner_1") == 1

def test_a_changelog_normalize_persists_and_reads_the_mini_batch_options(spark):
    """Version 2 runs in mini-batches when its plan says so (version 1 never did)."""
    env = environment(spark, **MINI_BATCH, **{"table.exec.source.cdc-events-duplicate": "true"})
    plan = env.compile_sql("INSERT INTO S SELECT k, CAST(v AS BIGINT) FROM C")
    (normalize,) = [node for node in plan.nodes if "changelog-normalize" in node.type]
    assert normalize.type == "stream-exec-changelog-normalize_2"
    assert normalize.configuration == {"table.exec.mini-batch.enabled": "true",
                                       "table.exec.mini-batch.size": "3"}
    assert normalize.read_options(normalize.options_view(env.config)) == {"mini_batch_size": 3}
    off = environment(spark, **{"table.exec.source.cdc-events-duplicate": "true"}).compile_sql(
        "INSERT INTO S SELECT k, CAST(v AS BIGINT) FROM C")
    (normalize,) = [node for node in off.nodes if "changelog-normalize" in node.type]
    assert normalize.read_options(normalize.options_view(env.config)) == {"mini_batch_size": 0}


def test_without_mini_batch_the_aggregate_is_one_node(spark):
    plan = environment(spark, **{"table.optimizer.agg-phase-strategy": "TWO_PHASE"}).compile_sql(
        AGGREGATE)
    assert [node.type for node in plan.nodes] == [
        "stream-exec-table-source-scan_1", "stream-exec-group-aggregate_2", "stream-exec-sink_1"]
    assert plan.nodes[1].configuration == {"table.exec.mini-batch.enabled": "false",
                                           "table.exec.mini-batch.size": "-1"}


@pytest.mark.parametrize("options, sql", [
    ({"table.optimizer.agg-phase-strategy": "ONE_PHASE"}, AGGREGATE),
    # FIRST_VALUE has no merge (Flink's FirstValueAggFunction): one phase whatever the strategy
    ({}, "INSERT INTO S SELECT k, CAST(FIRST_VALUE(v) AS BIGINT) FROM T GROUP BY k"),
    ({"table.optimizer.agg-phase-strategy": "ONE_PHASE"},
     "INSERT INTO S SELECT k, CAST(LISTAGG(CAST(v AS STRING)) AS BIGINT) FROM T GROUP BY k"),
])
def test_one_phase_is_a_group_aggregate_that_persists_the_mini_batch_options(spark, options, sql):
    """Flink's MiniBatchGroupAggFunction: version 2 of the node, behind the assigner."""
    plan = environment(spark, **MINI_BATCH, **options).compile_sql(sql)
    types = [node.type for node in plan.nodes]
    assert types[:2] == ["stream-exec-table-source-scan_1", "stream-exec-mini-batch-assigner_1"]
    (aggregate,) = [node for node in plan.nodes if "aggregate" in node.type]
    assert aggregate.type == "stream-exec-group-aggregate_2"
    assert aggregate.configuration == {"table.exec.mini-batch.enabled": "true",
                                       "table.exec.mini-batch.size": "3"}
    assert aggregate.read_options(aggregate.options_view(MINI_BATCH_CONFIG(spark))) == {
        "mini_batch_size": 3}


def MINI_BATCH_CONFIG(spark):
    return environment(spark, **MINI_BATCH).config


def test_a_version_1_group_aggregate_runs_row_by_row_whatever_the_session_says(spark):
    """Version 1 persisted no mini-batch option: its plans keep running as they ran."""
    aggregate = environment(spark, **MINI_BATCH, **{
        "table.optimizer.agg-phase-strategy": "ONE_PHASE"}).compile_sql(AGGREGATE).nodes[2]
    old = type(aggregate).model_validate({**aggregate.to_json(), "configuration": {},
                                          "type": "stream-exec-group-aggregate_1"})
    assert old.read_options(old.options_view(MINI_BATCH_CONFIG(spark))) == {"mini_batch_size": 0}


@pytest.mark.parametrize("option, value, message", [
    ("table.exec.mini-batch.allow-latency", "0 ms", "MiniBatch Latency must be greater than 0 ms"),
    ("table.exec.mini-batch.size", "0", "'table.exec.mini-batch.size' must be > 0"),
])
def test_mini_batch_needs_a_latency_and_a_size(spark, option, value, message):
    env = environment(spark, **{**MINI_BATCH, option: value})
    with pytest.raises(PlanningError, match=message):
        env.compile_sql(AGGREGATE)


def test_a_bad_strategy_is_an_option_error(spark):
    with pytest.raises(OptionError, match="is not one of AUTO, ONE_PHASE, TWO_PHASE"):
        environment(spark, **{"table.optimizer.agg-phase-strategy": "THREE_PHASE"})


@pytest.mark.parametrize("options, sql, message", [
    ({**MINI_BATCH, "table.optimizer.distinct-agg.split.enabled": "true",
      "table.optimizer.agg-phase-strategy": "ONE_PHASE"}, AGGREGATE,
     "table.optimizer.agg-phase-strategy ONE_PHASE"),
    (MINI_BATCH, "INSERT INTO S SELECT k, CAST(LISTAGG(CAST(v AS STRING)) AS BIGINT) FROM T "
     "GROUP BY k", "LISTAGG in a two-phase group aggregate"),
    (MINI_BATCH, "INSERT INTO J SELECT T.k, v, w FROM T JOIN U ON T.k = U.k",
     "'stream-exec-join_2'"),
])
def test_what_flink_runs_otherwise_is_refused_by_name(spark, options, sql, message):
    env = environment(spark, **options)
    with pytest.raises(UnsupportedSqlError, match=message):
        env.compile_sql(sql)
