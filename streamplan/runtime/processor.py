"""The shape every transformWithState processor here has, and the template of the keyed ones.

Every processor is built the same way, `Processor(params, layout, input_names,
output_names)`: the node's runtime parameters (a frozen dataclass), the state layout its
fixtures record (`{state name: {"kind", "value", ...}}`), and the columns it reads and
writes. Processors are module-level classes, so Spark pickles them by reference.

`KeyedValueProcessor` is the template of the one-input nodes whose state is one value per
key (changelog normalize, deduplicate, group aggregate, rank, sink upsert materializer):
read the key's value once per batch, run the node's core row by row in arrival order, write
the value once when Flink's operator would have written it (which refreshes its TTL), emit.
A node supplies the core and four hooks: `decode`, `step`, `written`, `encode`;
`KeyedStateObjectProcessor` is the variant whose core changes a state object in place.
"""
from __future__ import annotations

from typing import Any, ClassVar, Iterator, Optional

from pyspark.sql.streaming.stateful_processor import StatefulProcessor

from ..changelog import OP_COLUMN, RowKind
from .batch_rows import Output, emitted, rows_of
from .positions import SEQ_COLUMN
from .state_ttl import spark_ttl_ms


class Processor(StatefulProcessor):
    """One constructor shape for every processor."""

    def __init__(self, params: Any, layout: dict[str, dict[str, str]],
                 input_names: tuple[str, ...], output_names: tuple[str, ...]):
        self.params = params
        self.layout = layout
        self.input_names = input_names
        self.output_names = output_names

    def close(self) -> None:
        pass


class KeyedValueProcessor(Processor):
    """Read once, run the core per row, write once if written, emit.

    Between keyed nodes (nodes/arrival_order.py) it takes a key's rows in the order of their
    positions (`takes_positions`) and emits each row with the position of the input row it
    emitted it for (`passes_positions`); the node sets both before the query runs."""

    CORE: ClassVar[type]                  # the node's core, built from the parameters
    takes_positions = False
    passes_positions = False

    def init(self, handle) -> None:
        (name,) = self.layout             # the one value state
        self.state = handle.getValueState(name, self.layout[name]["value"],
                                          spark_ttl_ms(self.params.ttl_ms))
        self.core = self.make_core()

    # --- hooks -----------------------------------------------------------------------------
    def make_core(self) -> Any:
        return self.CORE(self.params)

    def decode(self, stored: Optional[tuple]) -> Any:
        """The stored value (None: none) as the core keeps it."""
        raise NotImplementedError

    def step(self, key: tuple, value: Any, kind: RowKind, row: tuple, out: list[Output]) -> Any:
        """One input row through the core; returns the key's value afterwards."""
        raise NotImplementedError

    def written(self, loaded: Any, value: Any) -> bool:
        """Whether Flink would have written the state: by default when the core returned
        another value than the one it was given."""
        return value is not loaded

    def encode(self, value: Any) -> Optional[tuple]:
        """The value to store; None clears the key's state."""
        raise NotImplementedError

    # --- the template ----------------------------------------------------------------------
    def arrivals(self, rows) -> list[tuple[RowKind, tuple]]:
        """The (row kind, values) the core takes from a key's input rows: all of them, in
        arrival order (a mini-batch variant takes fewer)."""
        return rows_of(rows, self.input_names)

    def run(self, key: tuple, value: Any, rows, out: list[Output]) -> Any:
        """A key's input rows of one micro-batch through the core, from its stored value;
        returns the value afterwards (by default `step` per arrival)."""
        if self.passes_positions:                 # the position of each row emitted
            return self._run_positioned(key, value, rows, out)
        for kind, row in self.arrivals(rows):
            value = self.step(key, value, kind, row, out)
        return value

    def _run_positioned(self, key: tuple, value: Any, rows: list, out: list[Output]) -> Any:
        self.positions: list[int] = []
        for source, (kind, row) in zip(rows, rows_of(rows, self.input_names)):
            value = self.step(key, value, kind, row, out)
            self.positions.extend([source[SEQ_COLUMN]] * (len(out) - len(self.positions)))
        return value

    def handleInputRows(self, key, rows, timerValues) -> Iterator:
        if self.takes_positions or self.passes_positions:
            rows = list(rows)
            if self.takes_positions:
                rows.sort(key=lambda row: row[SEQ_COLUMN])
        loaded = self.decode(self.state.get())
        out: list[Output] = []
        value = self.run(key, loaded, rows, out)
        if self.written(loaded, value):
            encoded = self.encode(value)
            if encoded is None:
                self.state.clear()
            else:
                self.state.update(encoded)
        return self.emit(out)

    def emit(self, out: list[Output]) -> Iterator:
        """The Spark rows of what the core emitted."""
        if not self.passes_positions:
            return emitted(out, self.output_names)
        from pyspark.sql import Row

        return iter([Row(**dict(zip(self.output_names, values)),
                         **{OP_COLUMN: code, SEQ_COLUMN: position})
                     for (code, values), position in zip(out, self.positions)])


class KeyedStateObjectProcessor(KeyedValueProcessor):
    """The variant whose core changes one state object in place and marks it `written`
    when Flink would have written its state (rank, sink upsert materializer)."""

    def step(self, key: tuple, state: Any, kind: RowKind, row: tuple, out: list[Output]) -> Any:
        self.core.process(state, kind, row, out)
        return state

    def written(self, loaded: Any, state: Any) -> bool:
        return state.written
