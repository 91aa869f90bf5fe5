"""The event-time keep-first processor (RowTimeDeduplicateKeepFirstRowFunction) on a
stand-in for Spark's transformWithState: its timers and its emitted flag's TTL, which it
keeps itself because Spark allows no state TTL in event-time mode."""
from __future__ import annotations

from streamplan.changelog import OP_COLUMN, RowKind
from streamplan.runtime.deduplicate import DeduplicateParams, processor_class, state_layout
from tws_standin import ExpiredTimerInfo, Handle, Store, TimerValues

NAMES = ("k", "t", "v")


class KeyedRun:
    """One key's calls, as Spark makes them: the batch's input rows, then due timers."""

    def __init__(self, ttl_ms: int = 0):
        params = DeduplicateParams(False, 1, True, ttl_ms=ttl_ms, emit_on_timer=True)
        self.store = Store()
        self.store.key = ("k",)
        self.processor = processor_class(params)(
            params, state_layout(params, "`k`: STRING, `t`: BIGINT, `v`: STRING"), NAMES, NAMES)
        self.processor.init(Handle(self.store))

    def batch(self, watermark: int, *rows: tuple, now_ms: int = 0) -> list[str]:
        values = TimerValues(watermark, now_ms)
        out = list(self.processor.handleInputRows(
            ("k",), iter([{**dict(zip(NAMES, row)), OP_COLUMN: RowKind.INSERT.code}
                          for row in rows]), values)) if rows else []
        for time, key in sorted(t for t in self.store.timers if t[0] <= watermark):
            out += self.processor.handleExpiredTimer(key, values, ExpiredTimerInfo(time))
            self.store.timers.discard((time, key))
        return [f"{RowKind.from_code(row[OP_COLUMN]).short}[{row['v']}]" for row in out]


def test_the_earliest_row_waits_on_one_timer_and_is_emitted_once():
    run = KeyedRun()
    assert run.batch(0, ("k", 5000, "a"), ("k", 3000, "b")) == []
    assert run.store.timers == {(3000, ("k",))}          # the replaced row's timer is gone
    assert run.batch(1000, ("k", 2000, "c")) == []        # earlier still: its timer replaces
    assert run.store.timers == {(2000, ("k",))}
    assert run.batch(2500) == ["+I[c]"]
    assert run.batch(2500, ("k", 2600, "d")) == [] and run.store.timers == set()
    assert run.batch(10_000) == []


def test_the_emitted_flag_expires_after_the_state_ttl():
    run = KeyedRun(ttl_ms=1000)
    run.batch(0, ("k", 100, "a"))
    assert run.batch(200, now_ms=5000) == ["+I[a]"]        # emitted at processing time 5000
    assert run.batch(200, ("k", 300, "b"), now_ms=5999) == []   # within the TTL: ignored
    assert run.batch(200, ("k", 300, "c"), now_ms=6000) == []   # expired: c waits
    assert run.batch(400, now_ms=6001) == ["+I[c]"]


def test_without_ttl_the_key_stays_emitted():
    run = KeyedRun()
    run.batch(0, ("k", 100, "a"))
    assert run.batch(200, now_ms=0) == ["+I[a]"]
    assert run.batch(200, ("k", 300, "b"), now_ms=10**12) == [] and run.batch(10**6) == []
