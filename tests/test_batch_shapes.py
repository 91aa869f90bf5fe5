"""Micro-batch shapes (harness.batches): a program's rows grouped one a batch, a phase at a
time, or in seeded groups; the groups never straddle a clock advance, are the same run after
run, and a program's own shape is part of what its fixtures were generated from."""
from __future__ import annotations

import pytest

from harness import SinkTestStep, SourceTestStep, TableTestProgram, advance_processing_time
from harness.batches import PHASE, RANDOM, ROW, chunk_sizes, other_shape
from harness.errors import ProgramError


def test_a_phase_is_one_batch_except_where_the_clock_advances():
    assert chunk_sizes(PHASE, [5, 3, 0], [{2}, set(), set()]) == {0: [2, 3], 1: [3]}
    assert chunk_sizes(ROW, [5], [set()]) is None


def test_random_groups_are_seeded_by_the_program_and_respect_cuts():
    first = chunk_sizes(RANDOM, [12, 7], [{5}, set()], seed="rank-top-n")
    assert first == chunk_sizes(RANDOM, [12, 7], [{5}, set()], seed="rank-top-n")
    assert first != chunk_sizes(RANDOM, [12, 7], [{5}, set()], seed="rank-between")
    for phase, sizes in first.items():
        assert sum(sizes) == [12, 7][phase] and all(1 <= size <= 4 for size in sizes)
    starts = [sum(first[0][:i]) for i in range(len(first[0]))]
    assert 5 in starts                                  # a batch starts at the advance


def test_the_gate_checks_another_shape_than_the_fixtures_and_both_others_occur():
    assert other_shape(PHASE, "x") == ROW and other_shape(RANDOM, "x") == ROW
    shapes = {other_shape(ROW, f"program-{n}") for n in range(20)}
    assert shapes == {PHASE, RANDOM}


def _program(shape=None):
    builder = TableTestProgram.of("calc-shaped", "shaped")
    if shape is not None:
        builder = builder.in_batches(shape)
    return (builder.setup_table_source(SourceTestStep.new_builder("T").add_schema("a INT")
                                       .producing_before_restore([1], [2]).build())
            .setup_table_sink(SinkTestStep.new_builder("S").add_schema("a INT")
                              .consuming_before_restore("+I[1]", "+I[2]").build())
            .run_sql("INSERT INTO S SELECT a FROM T").build())


def test_a_programs_shape_is_part_of_its_fixtures_data_and_only_when_not_rows():
    assert _program().batch_shape == ROW
    assert _program(ROW).before_data_fingerprint() == _program().before_data_fingerprint()
    assert _program(PHASE).before_data_fingerprint() != _program().before_data_fingerprint()
    with pytest.raises(ProgramError, match="batch shape 'rows' .* is none of row, phase, random"):
        _program("rows")
