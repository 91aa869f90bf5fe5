"""User-defined functions the programs register: Flink's test aggregate functions
(JavaUserDefinedAggFunctions.java in flink-table-planner's test utils, read at apache/flink
4412219dde9f4d2fbcc158c91c15c3c947ed8c3e) rewritten in Python with the same behaviour, and a
scalar and a table function of our own.

Java details kept on purpose: `VarSum2AggFunction`'s accumulator is a `Long`, which its
`accumulate` cannot change (`acc += x` rebinds a local), so it always returns 0 — a Python
int behaves the same; WeightedAvg divides longs (truncating toward zero).
"""
from __future__ import annotations

from types import SimpleNamespace

from streamplan.functions import AggregateFunction, ScalarFunction, TableFunction


def _java_long_division(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


class VarSum1AggFunction(AggregateFunction):
    """Flink's VarSum1AggFunction: the sum of all its (INT) arguments, NULLs skipped."""

    ARGUMENT_TYPES = ("INT",)
    VARARGS = True
    RESULT_TYPE = "BIGINT"
    ACCUMULATOR_TYPE = "ROW<sum BIGINT>"

    def create_accumulator(self):
        return SimpleNamespace(sum=0)

    def accumulate(self, acc, *args):
        for x in args:
            if x is not None:
                acc.sum += x

    def get_value(self, acc):
        return acc.sum


class VarSum2AggFunction(AggregateFunction):
    """Flink's VarSum2AggFunction: like VarSum1 but its accumulator is an immutable Long, so
    accumulate never changes it and the result stays 0."""

    ARGUMENT_TYPES = ("INT",)
    VARARGS = True
    RESULT_TYPE = "BIGINT"
    ACCUMULATOR_TYPE = "BIGINT"

    def create_accumulator(self):
        return 0

    def accumulate(self, acc, *args):
        for x in args:
            if x is not None:
                acc += x          # rebinds the local, as Java's `acc += x` on a Long does

    def get_value(self, acc):
        return acc


class WeightedAvg(AggregateFunction):
    """Flink's WeightedAvg: sum(value * weight) / sum(weight), NULL for no weight. Flink
    resolves `my_avg(e, a)` (BIGINT, INT) to its `accumulate(acc, Long, Long)` overload."""

    ARGUMENT_TYPES = ("BIGINT", "BIGINT")
    RESULT_TYPE = "BIGINT"
    ACCUMULATOR_TYPE = "ROW<sum BIGINT, count INT>"

    def create_accumulator(self):
        return SimpleNamespace(sum=0, count=0)

    def accumulate(self, acc, value, weight):
        acc.sum += value * weight
        acc.count += weight

    def get_value(self, acc):
        return None if acc.count == 0 else _java_long_division(acc.sum, acc.count)


class WeightedAvgWithMerge(WeightedAvg):
    """Flink's WeightedAvgWithMerge: WeightedAvg with merge."""

    def merge(self, acc, others):
        for other in others:
            acc.count += other.count
            acc.sum += other.sum


class ConcatDistinctAggFunction(AggregateFunction):
    """Flink's ConcatDistinctAggFunction: the distinct non-NULL values in arrival order,
    joined by '|' (its MapView is `map`, its ListView `list`); NULL when there are none."""

    ARGUMENT_TYPES = ("STRING",)
    RESULT_TYPE = "STRING"
    ACCUMULATOR_TYPE = "ROW<map MAP<STRING, BOOLEAN>, list ARRAY<STRING>>"

    def create_accumulator(self):
        return SimpleNamespace(map={}, list=[])

    def accumulate(self, acc, value):
        if value is not None and value not in acc.map:
            acc.map[value] = True
            acc.list.append(value)

    def merge(self, acc, others):
        for other in others:
            for value in other.list or []:
                if value not in acc.map:
                    acc.map[value] = True
                    acc.list.append(value)

    def get_value(self, acc):
        return "|".join(acc.list) if acc.list else None


class CountWithRetract(AggregateFunction):
    """Ours: a COUNT of non-NULL values with retract (so it runs over an updating input)."""

    ARGUMENT_TYPES = ("STRING",)
    RESULT_TYPE = "BIGINT"
    ACCUMULATOR_TYPE = "ROW<n BIGINT>"

    def create_accumulator(self):
        return SimpleNamespace(n=0)

    def accumulate(self, acc, value):
        if value is not None:
            acc.n += 1

    def retract(self, acc, value):
        if value is not None:
            acc.n -= 1

    def get_value(self, acc):
        return acc.n


class Shout(ScalarFunction):
    """Ours: a string upper-cased with a '!' (NULL stays NULL)."""

    ARGUMENT_TYPES = ("STRING",)
    RESULT_TYPE = "STRING"

    def eval(self, s):
        return None if s is None else s.upper() + "!"


class SplitWords(TableFunction):
    """Ours: one row (word, length) per space-separated word."""

    ARGUMENT_TYPES = ("STRING",)
    RESULT_TYPE = "ROW<word STRING, length INT>"

    def eval(self, s):
        for word in (s or "").split():
            yield word, len(word)
