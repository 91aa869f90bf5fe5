"""Regular (unbounded) stream-stream join, as a transformWithState processor.

`JoinCore` follows Flink's StreamingJoinOperator record by record, including its row kinds:
an inner join forwards the input's kind (+I/+U, -D/-U); an outer join emits +I/-D, pads
unmatched outer rows with NULLs and retracts the padding (-D) when a first match arrives
(and re-emits it, +I, when the last match goes). Each side's rows are kept the way Flink's
JoinRecordStateView keeps them, chosen by the uniqueness its input offers:

* the join key contains a unique key of the input: one row per join key;
* the input has a unique key: rows by that key (an update replaces the row);
* no unique key: rows with their multiplicity.

Outer sides also keep, per row, how many rows of the other side it is joined with, and so
does the left side of a semi or anti join, which follows Flink's StreamingSemiAntiJoinOperator:
it emits the left row alone (with its own kind) when it has a match (SEMI) or none (ANTI), and
a right row that gives a left row its first match or takes its last one emits or retracts it.
`JoinProcessor` reads a key's state once per batch and writes back what changed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

from ..changelog import KIND_COLUMN, LEFT_ROW, RIGHT_ROW, SIDE_COLUMN, RowKind
from ..join_type import JoinType
from .batch_rows import Output, emitted, plain
from .join_condition import join_condition
from .processor import Processor
from .state_ttl import spark_ttl_ms

CONTAINS_UNIQUE_KEY, HAS_UNIQUE_KEY, NO_UNIQUE_KEY = ("join-key-contains-unique-key",
                                                      "has-unique-key", "no-unique-key")
LEFT_RECORDS, RIGHT_RECORDS = "left-records", "right-records"


@dataclass(frozen=True)
class SideSpec:
    """How one input side keeps its rows (Flink's JoinInputSideSpec)."""

    kind: str                          # CONTAINS_UNIQUE_KEY | HAS_UNIQUE_KEY | NO_UNIQUE_KEY
    unique_key: tuple[int, ...] = ()   # input field indexes, for HAS_UNIQUE_KEY

    def state_key(self, row: tuple) -> tuple:
        if self.kind == CONTAINS_UNIQUE_KEY:
            return ()
        if self.kind == HAS_UNIQUE_KEY:
            return tuple(row[i] for i in self.unique_key)
        return row


@dataclass(frozen=True)
class JoinParams:
    join_type: str
    left_arity: int
    right_arity: int
    left_spec: SideSpec
    right_spec: SideSpec
    output_names: tuple[str, ...]
    condition: Optional[str] = None    # Spark SQL over output_names
    left_ttl_ms: int = 0
    right_ttl_ms: int = 0
    key_arity: int = 1                 # join key columns (a join without keys has one constant)
    condition_names: tuple[str, ...] = ()   # the condition's columns (left + right) when they
                                            # are not the output's (a semi or anti join)
    # per join key: whether a NULL matches nothing (Flink's filterNulls); False for a key
    # compared with IS NOT DISTINCT FROM (INTERSECT, EXCEPT). Empty: every key filters.
    filter_nulls: tuple[bool, ...] = ()


@dataclass
class Stored:
    """A kept row: its multiplicity (NO_UNIQUE_KEY) and, on an outer side, its number of
    associations with the other side."""

    row: tuple
    count: int = 1
    associations: int = 0


@dataclass
class SideState:
    """One side's rows of one join key, by state key, and what changed since loading."""

    rows: dict[tuple, Stored] = field(default_factory=dict)
    dirty: set[tuple] = field(default_factory=set)
    removed: set[tuple] = field(default_factory=set)

    def put(self, key: tuple, stored: Stored) -> None:
        self.rows[key] = stored
        self.dirty.add(key)
        self.removed.discard(key)

    def drop(self, key: tuple) -> None:
        if key in self.rows:
            del self.rows[key]
            self.dirty.discard(key)
            self.removed.add(key)




class JoinCore:
    """Flink's StreamingJoinOperator.processElement for one join key."""

    def __init__(self, params: JoinParams,
                 predicate: Optional[Callable[[dict[str, Any]], Optional[bool]]] = None):
        self.p = params
        join_type = JoinType(params.join_type)
        self.left_outer, self.right_outer = join_type.left_outer, join_type.right_outer
        self.semi_or_anti = join_type.semi_or_anti
        self.anti = join_type is JoinType.ANTI
        self.predicate = predicate
        self.condition_names = params.condition_names or params.output_names
        self.left_nulls = (None,) * params.left_arity
        self.right_nulls = (None,) * params.right_arity

    def _matches(self, left: tuple, right: tuple) -> bool:
        if self.predicate is None:
            return True
        return self.predicate(dict(zip(self.condition_names, left + right))) is True

    def _joined(self, row: tuple, other: tuple, row_is_left: bool) -> tuple:
        return row + other if row_is_left else other + row

    def _padded(self, row: tuple, row_is_left: bool) -> tuple:
        return row + self.right_nulls if row_is_left else self.left_nulls + row

    # --- the state views (Flink's JoinRecordStateView / OuterJoinRecordStateView) -------------
    @staticmethod
    def _add(state: SideState, spec: SideSpec, row: tuple, associations: int) -> None:
        key = spec.state_key(row)
        if spec.kind == NO_UNIQUE_KEY:
            current = state.rows.get(key)
            state.put(key, Stored(row, (current.count if current else 0) + 1, associations))
        else:
            state.put(key, Stored(row, 1, associations))

    @staticmethod
    def _retract(state: SideState, spec: SideSpec, row: tuple) -> None:
        key = spec.state_key(row)
        if spec.kind != NO_UNIQUE_KEY:
            state.drop(key)
            return
        current = state.rows.get(key)
        if current is None:
            return
        if current.count > 1:
            state.put(key, Stored(current.row, current.count - 1, current.associations))
        else:
            state.drop(key)

    @staticmethod
    def _set_associations(state: SideState, spec: SideSpec, row: tuple, associations: int) -> None:
        key = spec.state_key(row)
        current = state.rows.get(key)
        count = current.count if current is not None else 1
        state.put(key, Stored(row, count, associations))

    def _associated(self, row: tuple, row_is_left: bool, keys_match: bool,
                    other: SideState) -> list[tuple[tuple, int]]:
        """(other row, its associations) for every matching row of the other side, a row
        kept n times listed n times (Flink's AssociatedRecords)."""
        if not keys_match:
            return []
        found = []
        for stored in other.rows.values():
            pair = (row, stored.row) if row_is_left else (stored.row, row)
            if self._matches(*pair):
                found.extend([(stored.row, stored.associations)] * stored.count)
        return found

    # --- processElement --------------------------------------------------------------------
    def process(self, row_is_left: bool, kind: RowKind, row: tuple, keys_match: bool,
                left: SideState, right: SideState, out: list[Output]) -> None:
        if self.semi_or_anti:
            self._process_semi_anti(row_is_left, kind, row, keys_match, left, right, out)
            return
        own, other = (left, right) if row_is_left else (right, left)
        own_spec = self.p.left_spec if row_is_left else self.p.right_spec
        other_spec = self.p.right_spec if row_is_left else self.p.left_spec
        own_outer = self.left_outer if row_is_left else self.right_outer
        other_outer = self.right_outer if row_is_left else self.left_outer
        associated = self._associated(row, row_is_left, keys_match, other)
        if kind.is_accumulate:
            if own_outer:
                if not associated:
                    out.append((RowKind.INSERT.code, self._padded(row, row_is_left)))
                    self._add(own, own_spec, row, 0)
                    return
                if other_outer:
                    for other_row, associations in associated:
                        if associations == 0:
                            out.append((RowKind.DELETE.code, self._padded(other_row, not row_is_left)))
                        self._set_associations(other, other_spec, other_row, associations + 1)
                out.extend((RowKind.INSERT.code, self._joined(row, other_row, row_is_left))
                           for other_row, _ in associated)
                self._add(own, own_spec, row, len(associated))
                return
            self._add(own, own_spec, row, 0)
            if not associated:
                return
            code = kind.code
            if other_outer:
                for other_row, associations in associated:
                    if associations == 0:
                        out.append((RowKind.DELETE.code, self._padded(other_row, not row_is_left)))
                    self._set_associations(other, other_spec, other_row, associations + 1)
                code = RowKind.INSERT.code
            out.extend((code, self._joined(row, other_row, row_is_left))
                       for other_row, _ in associated)
            return
        self._retract(own, own_spec, row)
        if not associated:
            if own_outer:
                out.append((RowKind.DELETE.code, self._padded(row, row_is_left)))
            return
        code = RowKind.DELETE.code if own_outer else kind.code
        out.extend((code, self._joined(row, other_row, row_is_left)) for other_row, _ in associated)
        if other_outer:
            for other_row, associations in associated:
                if associations == 1:
                    out.append((RowKind.INSERT.code, self._padded(other_row, not row_is_left)))
                self._set_associations(other, other_spec, other_row, associations - 1)


    def _process_semi_anti(self, row_is_left: bool, kind: RowKind, row: tuple, keys_match: bool,
                           left: SideState, right: SideState, out: list[Output]) -> None:
        """StreamingSemiAntiJoinOperator.processElement1 / processElement2: the left side is
        kept with its rows' numbers of matches, the right side as an inner side."""
        if row_is_left:
            associated = self._associated(row, True, keys_match, right)
            if bool(associated) != self.anti:
                out.append((kind.code, row))             # the input's own kind
            if kind.is_accumulate:
                self._add(left, self.p.left_spec, row, len(associated))
            else:
                self._retract(left, self.p.left_spec, row)
            return
        associated = self._associated(row, False, keys_match, left)
        if kind.is_accumulate:
            self._add(right, self.p.right_spec, row, 0)
            for other_row, associations in associated:
                if associations == 0:          # its first match: ANTI retracts, SEMI emits
                    out.append((RowKind.DELETE.code if self.anti else kind.code, other_row))
                self._set_associations(left, self.p.left_spec, other_row, associations + 1)
            return
        self._retract(right, self.p.right_spec, row)
        for other_row, associations in associated:
            if associations == 1:              # its last match goes: ANTI emits, SEMI retracts
                out.append((RowKind.INSERT.code if self.anti else kind.code, other_row))
            self._set_associations(left, self.p.left_spec, other_row, associations - 1)


# --- the Spark side ---------------------------------------------------------------------------

def side_layout(name: str, spec: SideSpec, row_ddl: str, unique_ddl: str,
                outer: bool) -> dict[str, str]:
    """The state variable of one side: what Flink's state view for `spec` keeps."""
    associations = ", associations: BIGINT" if outer else ""
    if spec.kind == CONTAINS_UNIQUE_KEY:
        return {"kind": "value", "value": f"kept STRUCT<row: STRUCT<{row_ddl}>{associations}>",
                "ttl": "processing-time"}
    if spec.kind == HAS_UNIQUE_KEY:
        return {"kind": "map", "key": f"uk STRUCT<{unique_ddl}>",
                "value": f"kept STRUCT<row: STRUCT<{row_ddl}>{associations}>",
                "ttl": "processing-time"}
    return {"kind": "map", "key": f"row STRUCT<{row_ddl}>",
            "value": f"kept STRUCT<count: BIGINT{associations}>", "ttl": "processing-time"}



class SideStore:
    """Loads and stores one side's state variable in the layout of its SideSpec."""

    def __init__(self, handle, name: str, layout: dict[str, str], spec: SideSpec,
                 outer: bool, ttl_ms: int):
        self.spec, self.outer = spec, outer
        ttl = spark_ttl_ms(ttl_ms)
        if layout["kind"] == "value":
            self.state = handle.getValueState(name, layout["value"], ttl)
        else:
            self.state = handle.getMapState(name, layout["key"], layout["value"], ttl)

    def load(self) -> SideState:
        state = SideState()
        if self.spec.kind == CONTAINS_UNIQUE_KEY:
            stored = self.state.get()
            if stored is not None:
                kept = plain(stored[0])
                row = plain(kept[0])
                state.rows[()] = Stored(row, 1, kept[1] if self.outer else 0)
            return state
        for key, value in self.state.iterator():
            kept = plain(value[0])
            if self.spec.kind == HAS_UNIQUE_KEY:
                row = plain(kept[0])
                state.rows[plain(key[0])] = Stored(row, 1, kept[1] if self.outer else 0)
            else:
                row = plain(key[0])
                state.rows[row] = Stored(row, kept[0], kept[1] if self.outer else 0)
        return state

    def store(self, state: SideState) -> None:
        if self.spec.kind == CONTAINS_UNIQUE_KEY:
            if () in state.removed and () not in state.rows:
                self.state.clear()
            elif () in state.dirty:
                stored = state.rows[()]
                kept = (stored.row, stored.associations) if self.outer else (stored.row,)
                self.state.update((kept,))
            return
        for key in state.removed:
            self.state.removeKey((key,))
        for key in state.dirty:
            stored = state.rows[key]
            if self.spec.kind == HAS_UNIQUE_KEY:
                kept = (stored.row, stored.associations) if self.outer else (stored.row,)
            else:
                kept = (stored.count, stored.associations) if self.outer else (stored.count,)
            self.state.updateValue((key,), (kept,))

class JoinProcessor(Processor):
    def init(self, handle) -> None:
        p = self.params
        join_type = JoinType(p.join_type)
        self.left = SideStore(handle, LEFT_RECORDS, self.layout[LEFT_RECORDS], p.left_spec,
                              join_type.left_counts_matches, p.left_ttl_ms)
        self.right = SideStore(handle, RIGHT_RECORDS, self.layout[RIGHT_RECORDS],
                               p.right_spec, join_type.right_outer, p.right_ttl_ms)
        predicate = join_condition(p.condition, p.condition_names or p.output_names)
        self.core = JoinCore(p, predicate)

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        decoded = []
        for row in rows:
            is_left = row[SIDE_COLUMN] == 0
            kind = RowKind.from_code(row[KIND_COLUMN])
            decoded.append((is_left, kind, plain(row[LEFT_ROW] if is_left else row[RIGHT_ROW])))
        # Arrival order (see runtime.batch_rows) within each side, the left side first.
        decoded.sort(key=lambda item: not item[0])
        filters = self.params.filter_nulls or (True,) * self.params.key_arity
        keys_match = all(part is not None or not filtered
                         for part, filtered in zip(tuple(key)[:self.params.key_arity], filters))
        left, right = self.left.load(), self.right.load()
        out: list[Output] = []
        for is_left, kind, values in decoded:
            self.core.process(is_left, kind, values, keys_match, left, right, out)
        self.left.store(left)
        self.right.store(right)
        return emitted(out, self.params.output_names)
