"""The values source reads each feed file once per query (issue 9): the planning reader keeps
the parsed feed, and each micro-batch's partition carries the rows of its steps."""
from __future__ import annotations

import datetime as dt
import pickle

from pyspark.sql.datasource import InputPartition

from streamplan.changelog import END_OF_INPUT_CODE
from streamplan.runtime.values_source import ValuesDataSource, write_feed

COLUMNS = [("k", "INT"), ("t", "TIMESTAMP(3)")]
STEPS = [[[0, [1, "2024-01-01 10:00:01"]]], [], [[0, [2, "2024-01-01 10:00:02.500"]],
                                                 [END_OF_INPUT_CODE, []]]]


def reader_of(path):
    return ValuesDataSource({"feed": str(path)}).streamReader(None)


def test_the_feed_file_is_parsed_once_and_partitions_carry_their_rows(tmp_path):
    feed = tmp_path / "feed.json"
    write_feed(feed, COLUMNS, STEPS)
    reader = reader_of(feed)
    assert reader.latestOffset({"step": 0}, None) == {"step": 1}
    feed.unlink()          # everything after the first read comes from the parsed feed
    assert reader.latestOffset({"step": 2}, None) == {"step": 3}
    assert reader.latestOffset({"step": 3}, None) == {"step": 3}
    assert reader.partitions({"step": 1}, {"step": 1}) == []
    (first,) = reader.partitions({"step": 0}, {"step": 1})
    (last,) = reader.partitions({"step": 1}, {"step": 3})
    assert list(reader.read(first)) == [(1, dt.datetime(2024, 1, 1, 10, 0, 1), 0)]
    assert list(reader.read(last)) == [(2, dt.datetime(2024, 1, 1, 10, 0, 2, 500000), 0),
                                       (None, None, END_OF_INPUT_CODE)]


def test_a_pickled_reader_carries_no_parsed_feed(tmp_path):
    """Spark pickles the reader into every read task: the feed must not travel with it."""
    feed = tmp_path / "feed.json"
    write_feed(feed, COLUMNS, STEPS * 100)
    reader = reader_of(feed)
    reader.latestOffset({"step": 0}, None)
    shipped = pickle.loads(pickle.dumps(reader))
    assert len(pickle.dumps(reader)) < 500
    partition = InputPartition((COLUMNS, STEPS[:1]))
    assert list(shipped.read(partition)) == [(1, dt.datetime(2024, 1, 1, 10, 0, 1), 0)]
