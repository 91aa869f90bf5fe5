"""The rank's process strategy as Flink's planner picks it (RankProcessStrategy): AppendFast
over insert-only input, UpdateFast when the sort key only moves towards the top (Flink's
modified monotonicity) and the input's updates can come without -U, Retract otherwise."""
from __future__ import annotations

import json

import pytest

from streamplan.changelog import RowKind
from streamplan.errors import ChangelogModeError, PlanFormatError
from streamplan.plan import parse_plan
from streamplan.planner.planner import check_changelog

pytestmark = pytest.mark.spark

DDL = """
CREATE TABLE T (k STRING, cat STRING, v INT) WITH ('connector' = 'values');
CREATE TABLE U (k STRING, v INT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'values', 'changelog-mode' = 'I,UA,D');
CREATE TABLE S (k STRING, n BIGINT) WITH ('connector' = 'values', 'sink-insert-only' = 'false');
"""
TOP = ("INSERT INTO S SELECT k, n FROM (SELECT k, n, ROW_NUMBER() OVER (ORDER BY n {order}) "
       "AS rn FROM ({inner})) WHERE rn <= 2")
COUNTS = "SELECT k, COUNT(*) AS n FROM T GROUP BY k"


def rank_and_producer(plan):
    """The rank (or sort-limit) and the last aggregate before it."""
    (rank,) = [n for n in plan.nodes if n.type.startswith(("stream-exec-rank", "stream-exec-sort"))]
    aggregate = [n for n in plan.nodes if n.type.startswith("stream-exec-group-aggregate")][-1]
    return rank, aggregate


@pytest.mark.parametrize("order, inner", [
    ("DESC", COUNTS),                                           # COUNT only grows
    ("DESC", "SELECT k, CAST(MAX(v) AS BIGINT) AS n FROM T GROUP BY k"),
    ("ASC", "SELECT k, CAST(MIN(v) AS BIGINT) AS n FROM T GROUP BY k"),
    ("DESC", "SELECT k, COUNT(*) AS n FROM U GROUP BY k"),      # Flink: COUNT over updates too
    ("DESC", "SELECT cat AS k, COUNT(*) AS n FROM (SELECT k AS cat, COUNT(*) AS c FROM T "
             "GROUP BY k) GROUP BY cat"),         # grouped by the key an aggregate keeps
    # a SUM of values a filter bounds below by zero (Flink's getFilteredColumnInterval)
    ("DESC", "SELECT k, CAST(SUM(v) AS BIGINT) AS n FROM T WHERE v > 0 GROUP BY k"),
    ("DESC", "SELECT k, CAST(SUM(v) AS BIGINT) AS n FROM T WHERE v BETWEEN 0 AND 9 GROUP BY k"),
    ("DESC", "SELECT k, CAST(SUM(v) FILTER (WHERE v >= 1) AS BIGINT) AS n FROM T GROUP BY k"),
    ("ASC", "SELECT k, CAST(SUM(v) AS BIGINT) AS n FROM T WHERE 0 > v GROUP BY k"),
    # a filter on the aggregate's key needs no -U (Flink's isNonUpsertKeyCondition)
    ("DESC", "SELECT k, n FROM (SELECT k, COUNT(*) AS n FROM T GROUP BY k) WHERE k <> 'x'"),
])
def test_a_sort_key_moving_to_the_top_takes_the_update_fast_strategy(env, order, inner):
    plan = env.compile_sql(TOP.format(order=order, inner=inner))
    rank, aggregate = rank_and_producer(plan)
    assert rank.rank_strategy.type == "UpdateFast"
    assert rank.rank_strategy.primary_keys == [0]               # the aggregate's group key
    assert "strategy=[UpdateFast[0]]" in rank.description
    # the aggregate sends no -U (Flink's ONLY_UPDATE_AFTER); the rank's consumer gets them
    assert not aggregate.generate_update_before
    modes = check_changelog(plan)
    assert RowKind.UPDATE_BEFORE not in modes[aggregate.id]
    assert RowKind.UPDATE_BEFORE in modes[rank.id]


@pytest.mark.parametrize("order, inner", [
    ("ASC", COUNTS),                                            # against the direction
    ("DESC", "SELECT k, CAST(SUM(v) AS BIGINT) AS n FROM T GROUP BY k"),  # SUM: not bounded
    ("DESC", "SELECT k, CAST(SUM(v) AS BIGINT) AS n FROM T WHERE v > -1 GROUP BY k"),
    ("DESC", "SELECT k, CAST(SUM(v + 1) AS BIGINT) AS n FROM T WHERE v > 0 GROUP BY k"),
    ("DESC", "SELECT k, COUNT(*) AS n FROM T GROUP BY k HAVING COUNT(*) > 1"),  # a filter
    ("DESC", "SELECT CAST(c AS STRING) AS k, COUNT(*) AS n FROM (SELECT k, COUNT(*) AS c "
             "FROM T GROUP BY k) GROUP BY c"),    # grouped by a column that is updated
])
def test_other_updating_inputs_keep_the_retract_strategy(env, order, inner):
    plan = env.compile_sql(TOP.format(order=order, inner=inner))
    rank, aggregate = rank_and_producer(plan)
    assert rank.rank_strategy.type == "Retract"
    assert rank.rank_strategy.primary_keys is None
    assert aggregate.generate_update_before


def test_a_sort_limit_over_a_count_is_update_fast(env):
    plan = env.compile_sql(f"INSERT INTO S SELECT k, n FROM ({COUNTS}) ORDER BY n DESC LIMIT 2")
    rank, aggregate = rank_and_producer(plan)
    assert rank.rank_strategy.type == "UpdateFast"
    assert rank.description.endswith("strategy=[UpdateFastStrategy[0]])")
    assert not aggregate.generate_update_before


def test_a_partition_outside_the_unique_key_keeps_retract(env):
    plan = env.compile_sql(
        "INSERT INTO S SELECT k, n FROM (SELECT k, n, ROW_NUMBER() OVER (PARTITION BY n ORDER "
        f"BY n DESC) AS rn FROM ({COUNTS})) WHERE rn <= 2")
    (rank,) = [n for n in plan.nodes if n.type.startswith("stream-exec-rank")]
    assert rank.rank_strategy.type == "Retract"


def test_an_edited_update_fast_plan_with_update_before_input_is_refused(env):
    """UpdatableTopNFunction would read a -U as an update: a plan whose UpdateFast rank gets
    them (edited by hand) is refused, naming the node that produces them."""
    plan = env.compile_sql(TOP.format(order="DESC", inner=COUNTS))
    rank, aggregate = rank_and_producer(plan)
    edited = plan.__class__([n.model_copy(update={"generate_update_before": True})
                             if n.id == aggregate.id else n for n in plan.nodes], plan.edges)
    with pytest.raises(ChangelogModeError, match=r"Rank node \d+ \(strategy UpdateFast\).*"
                                                 r"UPDATE_BEFORE.*needs the Retract strategy"):
        check_changelog(edited)


@pytest.mark.parametrize("keys, message", [
    (None, r"field 'rankStrategy': primaryKeys is given with the UpdateFast strategy"),
    ([7], r"field 'rankStrategy.primaryKeys': index 7 is out of range; its input node \d+ has "
          r"2 field\(s\)"),
])
def test_an_update_fast_strategy_without_valid_keys_is_refused_naming_the_field(env, keys,
                                                                                message):
    data = env.compile_sql(TOP.format(order="DESC", inner=COUNTS)).to_json()
    (rank,) = [n for n in data["nodes"] if "rankStrategy" in n]
    rank["rankStrategy"].pop("primaryKeys")
    if keys is not None:
        rank["rankStrategy"]["primaryKeys"] = keys
    with pytest.raises(PlanFormatError, match=message):
        parse_plan(json.dumps(data))


TOP_1 = ("INSERT INTO {sink} SELECT k, n FROM (SELECT k, CAST(v AS BIGINT) AS n, ROW_NUMBER() "
         "OVER (PARTITION BY cat ORDER BY {order}) AS rn FROM T) WHERE rn = 1")


@pytest.mark.parametrize("order, insert_only", [
    ("v ASC", True), ("v DESC, k", True), ("v ASC, k DESC", True),
    ("v DESC", False),                      # keeps the last row: Flink's changelog as before
])
def test_a_top_1_flink_takes_for_keep_first_is_insert_only_without_update_before(
        env, order, insert_only):
    """Flink 2.1+ (RankUtil.isDeduplication, keepLastDeduplicateRow), checked on PyFlink 2.3:
    a top 1 without its row number, sorted by one field ascending or by several, is planned
    insert-only; its consumer needing -U (a retracting sink) gets none."""
    plan = env.compile_sql(TOP_1.format(sink="S", order=order))
    (rank,) = [n for n in plan.nodes if n.type.startswith("stream-exec-rank")]
    modes = check_changelog(plan)
    assert rank.generate_update_before is not insert_only
    assert (modes[rank.id] == frozenset({RowKind.INSERT})) is insert_only


def test_an_insert_only_sink_takes_that_top_1_as_flink_2_3_does(env):
    env.execute_sql("CREATE TABLE Appended (k STRING, n BIGINT) WITH ('connector' = 'values')")
    plan = env.compile_sql(TOP_1.format(sink="Appended", order="v ASC"))
    assert plan.nodes[-1].input_changelog_mode == ["INSERT"]
    with pytest.raises(ChangelogModeError, match="doesn't support consuming update"):
        env.compile_sql(TOP_1.format(sink="Appended", order="v DESC"))


def test_with_mini_batch_on_the_top_1_keeps_its_updates(env):
    """Flink's outputInsertOnlyInDeduplicate: not with table.exec.mini-batch.enabled."""
    env.execute_sql("SET 'table.exec.mini-batch.enabled' = 'true'")
    env.execute_sql("SET 'table.exec.mini-batch.allow-latency' = '1 s'")
    env.execute_sql("SET 'table.exec.mini-batch.size' = '10'")
    plan = env.compile_sql(TOP_1.format(sink="S", order="v ASC"))
    (rank,) = [n for n in plan.nodes if n.type.startswith("stream-exec-rank")]
    assert rank.generate_update_before
    assert RowKind.UPDATE_BEFORE in check_changelog(plan)[rank.id]


@pytest.mark.parametrize("condition, update_before", [("k <> 'x'", False), ("n > 1", True)])
def test_a_filter_on_the_upsert_key_needs_no_update_before(env, condition, update_before):
    """Into a sink keyed by the aggregate's key: a filter on that key lets every row of a key
    pass or none (Flink's isNonUpsertKeyCondition), a filter on another column needs -U."""
    env.execute_sql("CREATE TABLE Keyed (k STRING, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) "
                    "WITH ('connector' = 'values', 'sink-insert-only' = 'false')")
    plan = env.compile_sql(f"INSERT INTO Keyed SELECT k, n FROM ({COUNTS}) WHERE {condition}")
    (aggregate,) = [n for n in plan.nodes if n.type.startswith("stream-exec-group-aggregate")]
    assert aggregate.generate_update_before is update_before
