"""A stand-in for Spark's transformWithState, to run processors without Spark: per-key value
and map state (values pickled, so a read is a copy, as Spark's), event-time timers, and a
count of every state call."""
from __future__ import annotations

import pickle
from collections import Counter


class Store:
    """One operator's state and timers; `key` is the implicit grouping key of the call."""

    def __init__(self):
        self.values: dict = {}
        self.maps: dict = {}
        self.timers: set = set()
        self.calls: Counter = Counter()
        self.key = None


class ValueState:
    def __init__(self, store: Store, name: str):
        self.store, self.name = store, name

    def get(self):
        self.store.calls["value.get"] += 1
        value = self.store.values.get((self.name, self.store.key))
        return None if value is None else pickle.loads(value)   # a copy, as Spark's would be

    def update(self, value):
        self.store.calls["value.update"] += 1
        self.store.values[(self.name, self.store.key)] = pickle.dumps(tuple(value))

    def clear(self):
        self.store.calls["value.clear"] += 1
        self.store.values.pop((self.name, self.store.key), None)


class MapState:
    """Version 1's map states; cache values come back as named structs, as Spark's do."""

    def __init__(self, store: Store, name: str, value_schema: str):
        self.store, self.name = store, name
        self.rows = "emitted" in value_schema

    def _map(self) -> dict:
        return self.store.maps.setdefault((self.name, self.store.key), {})

    def iterator(self):
        self.store.calls["map.iterator"] += 1
        try:
            items = sorted(self._map().items())
        except TypeError:                  # NULLs in the keys: some order, the same each time
            items = sorted(self._map().items(), key=lambda item: repr(item[0]))
        for key, value in items:
            value = pickle.loads(value)
            if self.rows:
                value = ([{"row": row, "emitted": emitted} for row, emitted in value[0]],)
            yield key, value

    def updateValue(self, key, value):
        self.store.calls["map.updateValue"] += 1
        self._map()[key] = pickle.dumps(value)

    def removeKey(self, key):
        self.store.calls["map.removeKey"] += 1
        self._map().pop(key, None)


class Handle:
    def __init__(self, store: Store):
        self.store = store

    def getValueState(self, name, schema, ttlDurationMs=None):
        return ValueState(self.store, name)

    def getMapState(self, name, key_schema, value_schema, ttlDurationMs=None):
        return MapState(self.store, name, value_schema)

    def registerTimer(self, time):
        self.store.calls["timer.register"] += 1
        self.store.timers.add((time, self.store.key))

    def deleteTimer(self, time):
        self.store.calls["timer.delete"] += 1
        self.store.timers.discard((time, self.store.key))

    def listTimers(self):
        self.store.calls["timer.list"] += 1
        return iter(sorted(time for time, key in self.store.timers if key == self.store.key))


class TimerValues:
    def __init__(self, watermark: int, now_ms: int = 0):
        self.watermark, self.now_ms = watermark, now_ms

    def getCurrentWatermarkInMs(self) -> int:
        return self.watermark

    def getCurrentProcessingTimeInMs(self) -> int:
        return self.now_ms


class ExpiredTimerInfo:
    def __init__(self, time: int):
        self.time = time

    def getExpiryTimeInMs(self) -> int:
        return self.time


def fire_timers(processor, store: Store, values: TimerValues, watermark: int) -> list:
    """A batch's expired timers as Spark 4.3 calls them (tests/test_spark_timer_boundary.py):
    every timer at or before the watermark, in time order, with its key set and deleted after
    its call; a timer an earlier call deleted is skipped."""
    out = []
    for time, key in sorted(t for t in store.timers if t[0] <= watermark):
        if (time, key) in store.timers:
            store.key = key
            out += processor.handleExpiredTimer(key, values, ExpiredTimerInfo(time))
            store.timers.discard((time, key))
    return out
