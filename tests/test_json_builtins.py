"""JSON_VALUE, JSON_QUERY and JSON_EXISTS (streamplan/functions/builtins.py) against the rows
PyFlink 2.3 printed for the same documents and paths (`SELECT JSON_VALUE(s, '<path>') ...
FROM (VALUES ...)`), and the paths the planner refuses."""
from __future__ import annotations

import pytest

from streamplan.errors import UnsupportedSqlError
from streamplan.functions.builtins import JsonExists, JsonQuery, JsonValue, json_path_steps

DOCUMENT = ('{"a":"x","b":1,"c":1.50,"d":true,"e":null,"f":{"g":2},"h":[1,2],"i":1e3,'
            '"j":-0.0,"k":12345678901234567890,"l":"1.50","m":0.1}')
PATHS = ["$.a", "$.b", "$.c", "$.d", "$.e", "$.f", "$.h", "$.i", "$.j", "$.k", "$.l", "$.m",
         "$.f.g", "$.h[1]", "$.zz", "$"]
# Flink 2.3's JSON_VALUE of DOCUMENT at each of PATHS
FLINK_VALUES = ["x", "1", "1.50", "true", None, None, None, "1E+3", "0.0",
                "12345678901234567890", "1.50", "0.1", "2", "2", None, None]


def test_json_value_prints_scalars_as_flink_and_nothing_else():
    assert [JsonValue().eval(DOCUMENT, path) for path in PATHS] == FLINK_VALUES


@pytest.mark.parametrize("document", ['{"a":', None, "[1,2]"])
def test_json_value_of_broken_null_or_unmatched_documents_is_null(document):
    assert [JsonValue().eval(document, path) for path in PATHS] == [None] * len(PATHS)


def test_json_query_and_json_exists_as_flink():
    # Flink: [True, False, False, '{"g":2}', '[1,2]', None] for the document; invalid text
    # gives FALSE, NULL gives NULL
    row = [JsonExists().eval(DOCUMENT, "$.a"), JsonExists().eval(DOCUMENT, "$.e"),
           JsonExists().eval(DOCUMENT, "$.zz"), JsonQuery().eval(DOCUMENT, "$.f"),
           JsonQuery().eval(DOCUMENT, "$.h"), JsonQuery().eval(DOCUMENT, "$.a")]
    assert row == [True, False, False, '{"g":2}', "[1,2]", None]
    assert JsonExists().eval('{"a":', "$.a") is False
    assert JsonExists().eval(None, "$.a") is None
    assert JsonValue().eval('{"a":"q\\"z"}', "$.a") == 'q"z'


@pytest.mark.parametrize("path, steps", [
    ("$", []), ("$.a.b", ["a", "b"]), ("$['odd key'][0]", ["odd key", 0]),
    ('lax $["x"].y', ["x", "y"]), ("$..a", None), ("$.a[*]", None), ("strict $.a", None),
    ("a.b", None), ("$.a[-1]", None),
])
def test_the_paths_it_reads(path, steps):
    assert json_path_steps(path) == steps


@pytest.mark.parametrize("call, message", [
    ("JSON_VALUE(s, '$..a')", "JSON_VALUE with the path '$..a'"),
    ("JSON_QUERY(s, p)", "JSON_QUERY with the path p"),
    ("JSON_EXISTS(s)", "JSON_EXISTS with 1 arguments"),
])
def test_calls_it_cannot_run_as_flink_are_refused_by_name(call, message):
    import sqlglot

    from streamplan.planner.flink_builtins import spark_builtins

    with pytest.raises(UnsupportedSqlError, match=message.replace("$", r"\$").replace(
            "(", r"\(").replace(".", r"\.")):
        spark_builtins(sqlglot.parse_one(call, read="spark"), "<test>")
