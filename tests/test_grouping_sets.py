"""GROUPING SETS, ROLLUP and CUBE: the sets a GROUP BY names, their order and expand ids
(Flink's: Calcite's group set order, ExpandUtil.genExpandId), and GROUPING / GROUPING_ID over
the expand id. Plans and runs are in programs/expand.py and the window aggregate programs."""
import pytest
import sqlglot
from sqlglot import exp

from streamplan.errors import PlanningError, UnsupportedSqlError
from streamplan.planner.common import QueryContext
from streamplan.planner.grouping_sets import GroupingSets, grouping_function, grouping_sets


class _Position:
    line, column, source = 1, 1, "<test>"


class _Context:
    position = _Position()


def sets_of(group_by: str):
    select = sqlglot.parse_one(f"SELECT 1 FROM t GROUP BY {group_by}", read="spark")
    grouping = grouping_sets(list(select.args["group"].expressions),
                             lambda key: key.sql(dialect="spark"), _Context())
    names = [key.sql(dialect="spark") for key in grouping.keys]
    if grouping.sets is None:
        return names, None
    return names, [(grouping.expand_id(s), sorted(names[i] for i in s)) for s in grouping.sets]


@pytest.mark.parametrize("group_by, expected", [
    # Flink 2.3's plans (EXPLAIN): Expand(projects=[{a, b, 0 AS $e}, {a, null AS b, 1 AS $e},
    # {null AS a, b, 2 AS $e}, {null AS a, null AS b, 3 AS $e}]) for CUBE(a, b)
    ("CUBE(a, b)", [(0, ["a", "b"]), (1, ["a"]), (2, ["b"]), (3, [])]),
    ("ROLLUP(a, b)", [(0, ["a", "b"]), (1, ["a"]), (3, [])]),
    ("GROUPING SETS ((a, b), (b), ())", [(0, ["a", "b"]), (2, ["b"]), (3, [])]),
    # written out of order: ordered as Calcite orders group sets (enclosing first); the keys
    # in the order written (b first) until in_input_order sorts them
    ("GROUPING SETS ((), (b), (a, b))", [(0, ["a", "b"]), (1, ["b"]), (3, [])]),
    # a plain item is in every set; items multiply
    ("a, ROLLUP(b, c)", [(0, ["a", "b", "c"]), (1, ["a", "b"]), (3, ["a"])]),
    ("CUBE(a), ROLLUP(b)", [(0, ["a", "b"]), (1, ["a"]), (2, ["b"]), (3, [])]),
    # a composite element of ROLLUP is one step
    ("ROLLUP((a, b), c)", [(0, ["a", "b", "c"]), (1, ["a", "b"]), (7, [])]),
    ("GROUPING SETS (a, ROLLUP(b))", [(1, ["a"]), (2, ["b"]), (3, [])]),
])
def test_sets_and_expand_ids_are_flinks(group_by, expected):
    assert sets_of(group_by)[1] == expected


def test_keys_of_input_columns_take_the_input_order():
    # Flink 2.3: GROUP BY b, ROLLUP(a) over (a, b, v) plans Expand(projects=[{a, b, v, 0 AS
    # $e}, {null AS a, b, v, 2 AS $e}])
    select = sqlglot.parse_one("SELECT 1 FROM t GROUP BY b, ROLLUP(a)", read="spark")
    grouping = grouping_sets(list(select.args["group"].expressions),
                             lambda key: key.sql(dialect="spark"), _Context())
    ordered = grouping.in_input_order(lambda key: ["a", "b", "v"].index(key.sql()))
    assert [k.sql() for k in ordered.keys] == ["a", "b"]
    assert [(ordered.expand_id(s), sorted(s)) for s in ordered.sets] == [(0, [0, 1]), (2, [1])]
    # an expression among the keys: the order written
    assert grouping.in_input_order(lambda key: None) is grouping


def test_plain_group_by_and_a_single_set_need_no_expand():
    assert sets_of("a, b") == (["a", "b"], None)
    assert sets_of("GROUPING SETS ((a, b))") == (["a", "b"], None)


def test_a_repeated_set_is_refused_by_name():
    with pytest.raises(UnsupportedSqlError, match=r"the grouping set \(a\) more than once"):
        sets_of("GROUPING SETS ((a), (a), ())")
    with pytest.raises(UnsupportedSqlError, match=r"the grouping set \(a\) more than once"):
        sets_of("a, ROLLUP(a)")


def test_removing_the_window_keys_keeps_the_other_sets():
    select = sqlglot.parse_one("SELECT 1 FROM t GROUP BY ws, we, ROLLUP(a, b)", read="spark")
    grouping = grouping_sets(list(select.args["group"].expressions),
                             lambda key: key.sql(dialect="spark"), _Context())
    plain = grouping.without({0, 1})
    assert [k.sql() for k in plain.keys] == ["a", "b"]
    assert [plain.expand_id(s) for s in plain.sets] == [0, 1, 3]
    # ROLLUP of the window keys only: one set left, no expand
    select = sqlglot.parse_one("SELECT 1 FROM t GROUP BY ws, we, GROUPING SETS ((a))", read="spark")
    grouping = grouping_sets(list(select.args["group"].expressions),
                             lambda key: key.sql(dialect="spark"), _Context())
    assert grouping.without({0, 1}).sets is None


def _grouping(call: str, group_by: str) -> str:
    select = sqlglot.parse_one(f"SELECT {call} FROM t GROUP BY {group_by}", read="spark")
    grouping = grouping_sets(list(select.args["group"].expressions),
                             lambda key: key.sql(dialect="spark"), _Context())
    texts = [key.sql(dialect="spark") for key in grouping.keys]

    def key_index(argument):
        text = argument.sql(dialect="spark")
        return texts.index(text) if text in texts else None

    return grouping_function(select.expressions[0], grouping, key_index, "$e",
                             "<test>").sql(dialect="spark")


def test_grouping_and_grouping_id_are_cases_over_the_expand_id():
    # ROLLUP(a, b): $e 0 (a, b), 1 (a), 3 (); GROUPING(b) is 0, 1, 1; GROUPING_ID(a, b) the bits
    assert _grouping("GROUPING(b)", "ROLLUP(a, b)") == \
        "CAST(CASE WHEN `$e` = 0 THEN 0 WHEN `$e` = 1 THEN 1 ELSE 1 END AS BIGINT)"
    assert _grouping("GROUPING_ID(a, b)", "ROLLUP(a, b)") == \
        "CAST(CASE WHEN `$e` = 0 THEN 0 WHEN `$e` = 1 THEN 1 ELSE 3 END AS BIGINT)"
    assert _grouping("GROUPING_ID(b, a)", "CUBE(a, b)") == \
        "CAST(CASE WHEN `$e` = 0 THEN 0 WHEN `$e` = 1 THEN 2 WHEN `$e` = 2 THEN 1 ELSE 3 END AS BIGINT)"
    # without grouping sets every key is grouped
    assert _grouping("GROUPING(a)", "a") == "CAST(0 AS BIGINT)"


def test_grouping_of_a_non_key_names_the_argument():
    with pytest.raises(PlanningError, match=r"the argument v of GROUPING\(v\) is not a GROUP BY key"):
        _grouping("GROUPING(v)", "ROLLUP(a)")
