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


class LargerThanCount(AggregateFunction):
    """Flink's LargerThanCount (LTCNT in OverAggregateTestPrograms): how often the first
    argument was larger than the second; retract takes a row's one back (a row leaving a
    bounded OVER frame). No merge. A NULL argument fails, as Java's unboxing of the Long
    does (a NullPointerException there)."""

    ARGUMENT_TYPES = ("BIGINT", "BIGINT")
    RESULT_TYPE = "BIGINT"
    ACCUMULATOR_TYPE = "ROW<f0 BIGINT>"

    def create_accumulator(self):
        return SimpleNamespace(f0=0)

    @staticmethod
    def _larger(a, b) -> bool:
        if a is None or b is None:
            raise TypeError(f"LargerThanCount: a NULL argument (a={a!r}, b={b!r}); Flink's "
                            f"Java function fails with a NullPointerException")
        return a > b

    def accumulate(self, acc, a, b):
        if self._larger(a, b):
            acc.f0 += 1

    def retract(self, acc, a, b):
        if self._larger(a, b):
            acc.f0 -= 1

    def get_value(self, acc):
        return acc.f0


# Flink's JavaUserDefinedScalarFunctions (flink-table-planner's runtime test utils, read at
# apache/flink 0806ad5a154e37d09b53ce56d59cec8dc11209da), for CalcTestPrograms' UDF programs.

def _java(value) -> str:
    """Java's string concatenation of a value (null as 'null')."""
    return "null" if value is None else str(value)


class JavaFunc0(ScalarFunction):
    """Increment input: eval(Long l) = l + 1."""

    ARGUMENT_TYPES = ("BIGINT",)
    RESULT_TYPE = "BIGINT"

    def eval(self, value):
        return value + 1


class JavaFunc1(ScalarFunction):
    """Concatenate inputs as strings: a + " and " + b + " and " + c's epoch milliseconds
    (TimestampData.getMillisecond of a TIMESTAMP(3), the wall-clock time read as UTC)."""

    ARGUMENT_TYPES = ("INT", "INT", "TIMESTAMP(3)")
    RESULT_TYPE = "STRING"

    def eval(self, a, b, c):
        import calendar

        millis = None if c is None else (calendar.timegm(c.timetuple()) * 1000
                                         + c.microsecond // 1000)
        return f"{_java(a)} and {_java(b)} and {_java(millis)}"


class JavaFunc2(ScalarFunction):
    """Append product to string: s + (the product of the INT arguments)."""

    ARGUMENT_TYPES = ("STRING", "INT")
    VARARGS = True
    RESULT_TYPE = "STRING"

    def eval(self, s, *numbers):
        product = 1
        for n in numbers:
            product *= n
        return _java(s) + str(product)


class JavaFunc5(ScalarFunction):
    """A timestamp minus `offset` milliseconds (NULL if either is NULL); Flink's subtracts the
    JVM's default time zone offset too, which is UTC in its restore tests, as here."""

    ARGUMENT_TYPES = ("TIMESTAMP(3)", "INT")
    RESULT_TYPE = "TIMESTAMP(3)"

    def eval(self, timestamp, offset):
        from datetime import timedelta

        if timestamp is None or offset is None:
            return None
        return timestamp - timedelta(milliseconds=offset)


class UdfWithOpen(ScalarFunction):
    """'$' + c, and it fails unless open() ran first (Flink's check that open is called)."""

    ARGUMENT_TYPES = ("STRING",)
    RESULT_TYPE = "STRING"

    def __init__(self):
        self.is_opened = False

    def open(self):
        self.is_opened = True

    def eval(self, c):
        if not self.is_opened:
            raise RuntimeError("Open method is not called!")
        return "$" + _java(c)


# Flink's table functions for CorrelateTestPrograms: TableFunc1 (UserDefinedTableFunctions.scala
# in flink-table-planner's test utils, read at apache/flink
# 040d69e506e1014df05368a7bd2e7c48016290aa) and StringSplit (JavaUserDefinedTableFunctions.java,
# read at 2a192508cfc1415eaffaad28e946663e34bf76a3).

def _java_split(text: str, separator: str) -> list[str]:
    """Java's String.split of a one-character literal: trailing empty strings removed."""
    parts = text.split(separator)
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    return parts


class TableFunc1(TableFunction):
    """eval(str): the '#'-separated parts of a string that contains '#'; eval(str, prefix):
    each part with the prefix. (Flink's fails on a NULL string; this one yields nothing.)"""

    ARGUMENT_TYPES = ("STRING", "STRING")
    VARARGS = True                 # the two overloads: (str) and (str, prefix)
    RESULT_TYPE = "STRING"

    def eval(self, text, prefix=None):
        if text is not None and "#" in text:
            for part in _java_split(text, "#"):
                yield part if prefix is None else prefix + part


class StringSplit(TableFunction):
    """Flink's StringSplit, its eval(str, separatorChars) overload: commons-lang
    StringUtils.split (any of the separator characters separates; no empty tokens)."""

    ARGUMENT_TYPES = ("STRING", "STRING")
    RESULT_TYPE = "STRING"

    def eval(self, text, separators):
        if text is None:
            return
        token = ""
        for char in text:
            if char in (separators or " "):
                if token:
                    yield token
                token = ""
            else:
                token += char
        if token:
            yield token


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
