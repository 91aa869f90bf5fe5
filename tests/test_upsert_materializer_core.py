"""The sink upsert materializer without Spark: Flink's SinkUpsertMaterializer record by record.
Rows are (id, v); all of them share one sink primary key."""
from __future__ import annotations

from streamplan.changelog import RowKind
from streamplan.runtime.upsert_materializer import (SinkValues, UpsertMaterializerCore,
                                                    UpsertMaterializerParams, state_layout)

I, UB, UA, D = (RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE)


class Materializer:
    """Drives the core like the processor: one sink key, rows in arrival order."""

    def __init__(self, upsert_key=None):
        self.core = UpsertMaterializerCore(UpsertMaterializerParams(0, upsert_key))
        self.values = SinkValues()

    def __call__(self, kind, row):
        out = []
        self.values.written = False
        self.core.process(self.values, kind, row, out)
        return [f"{RowKind.from_code(code).short}{list(values)}" for code, values in out]


def test_first_add_inserts_later_adds_update_and_the_last_retraction_deletes():
    m = Materializer()
    assert m(I, (1, "a")) == ["+I[1, 'a']"]
    assert m(UA, (1, "b")) == ["+U[1, 'b']"]
    assert m.values.rows == [(1, "a"), (1, "b")]
    # in order: a's retraction removes a row that is not the last one: the sink keeps b
    assert m(UB, (1, "a")) == []
    assert m(D, (1, "b")) == ["-D[1, 'b']"]
    assert m.values.rows == []


def test_an_out_of_order_retraction_of_the_last_row_goes_back_to_the_previous_one():
    # two upstream rows for one sink key (e.g. a join keyed differently): when the newest
    # is retracted first, the sink goes back to the older one
    m = Materializer()
    m(I, (1, "a"))
    m(I, (1, "b"))
    assert m(D, (1, "b")) == ["+U[1, 'a']"]
    assert m(D, (1, "a")) == ["-D[1, 'a']"]


def test_duplicates_are_kept_each_and_retracted_one_by_one():
    m = Materializer()
    assert m(I, (1, "a")) == ["+I[1, 'a']"]
    assert m(I, (1, "a")) == ["+U[1, 'a']"]
    # the first match goes (index 0, not the last): nothing for the sink
    assert m(D, (1, "a")) == []
    assert m.values.rows == [(1, "a")]
    assert m(D, (1, "a")) == ["-D[1, 'a']"]


def test_a_retraction_without_a_matching_row_is_ignored_and_not_written():
    m = Materializer()
    m(I, (1, "a"))
    assert m(D, (1, "x")) == []                 # full-row equality: 'x' is not 'a'
    assert m.values.rows == [(1, "a")] and not m.values.written
    assert Materializer()(UB, (1, "a")) == []


def test_with_an_upsert_key_rows_match_on_it_and_an_add_replaces_in_place():
    m = Materializer(upsert_key=(1,))           # v is the input's upsert key
    assert m(I, (1, "a")) == ["+I[1, 'a']"]
    assert m(I, (1, "b")) == ["+U[1, 'b']"]
    # an add with a kept upsert key replaces that row where it is, and is emitted as +U
    # even though it is not the last row (Flink's behaviour)
    assert m(UA, (2, "a")) == ["+U[2, 'a']"]
    assert m.values.rows == [(2, "a"), (1, "b")]
    # a retraction matches on the upsert key only: removing the last row re-emits the new
    # last one
    assert m(UB, (9, "b")) == ["+U[2, 'a']"]
    # the list empties: -D carries the retraction's own values
    assert m(D, (7, "a")) == ["-D[7, 'a']"]


def test_state_layout_keeps_the_rows_in_one_value():
    assert state_layout(UpsertMaterializerParams(), "`id`: INT, `v`: STRING") == {
        "values": {"kind": "value", "value": "rows ARRAY<STRUCT<`id`: INT, `v`: STRING>>",
                   "ttl": "processing-time"}}
