"""Processing time in programs: `advance_processing_time` markers among a source's rows move
the harness's manual clock step by step (the values source sets it when it plans a step, so
Spark stamps the batch with it), the same in generate, restore and semantic runs."""
from __future__ import annotations

import pytest

from harness import SinkTestStep, SourceTestStep, TableTestProgram, advance_processing_time
from harness.errors import ProgramError
from harness.runner import run_semantic
from harness.steps import ClockAdvance
from streamplan.changelog import END_OF_INPUT
from streamplan.executor import Step, phased_steps, step_layout, step_times

HOUR = 3_600_000


def test_the_layout_is_the_steps_phased_steps_makes():
    phases = [{"A": [1, 2], "B": [9]}, {"A": [3]}]
    layout = step_layout(phases, ["A", "B"], end_of_input=True)
    # two rows and a tick, one row carrying the end-of-input marker, then a tick
    assert layout == [Step(0, 0, 1), Step(0, 1, 1), Step(0, 2, 0), Step(1, 0, 1, end=True),
                      Step(2, 1, 0)]
    steps = phased_steps(phases, ["A", "B"], True)
    assert steps["A"] == [[1], [2], [], [3, END_OF_INPUT], []]
    assert steps["B"] == [[9], [], [], [END_OF_INPUT], []]
    # a last phase without rows: the marker alone, then the tick
    assert step_layout([{"A": [1]}, {}], ["A"], True) == [Step(0, 0, 1), Step(0, 1, 0),
                                                          Step(2, 0, 0), Step(2, 1, 0)]
    # without event time the last phase ends with its last row
    assert step_layout(phases, ["A", "B"], True, event_time=False) == [
        Step(0, 0, 1), Step(0, 1, 1), Step(0, 2, 0), Step(1, 0, 1)]


def test_an_advance_moves_its_step_and_every_later_one():
    layout = step_layout([{"A": [1, 2]}, {"A": [3]}], ["A"], True)
    times = step_times(layout, 0, [(0, 1, 5), (1, 0, 10), (1, 0, 1)])
    assert times == [0, 5, 5, 16, 16]
    assert step_times(layout, 7, []) == [7] * len(layout)


def test_chunks_make_multi_row_micro_batches_that_an_advance_must_not_straddle():
    phases = [{"A": [1, 2, 3], "B": [9]}, {"A": [4]}]
    steps = phased_steps(phases, ["A", "B"], True, chunks={0: [2, 1]})
    assert steps["A"][:3] == [[1, 2], [3], []] and steps["B"][:3] == [[9], [], []]
    layout = step_layout(phases, ["A", "B"], True, chunks={0: [3]})
    assert layout[:2] == [Step(0, 0, 3), Step(0, 3, 0)]
    with pytest.raises(ValueError, match="falls inside a micro-batch of positions 0 to 2"):
        step_times(layout, 0, [(0, 1, 5)])
    with pytest.raises(ValueError, match="chunks \\[2\\] must be positive and add up to it"):
        step_layout(phases, ["A", "B"], True, chunks={0: [2]})


def test_a_marker_is_not_a_row_and_says_where_the_clock_moves():
    step = (SourceTestStep.new_builder("T").add_schema("k STRING")
            .producing_before_restore(["a"], advance_processing_time("12 h"), ["b"])
            .producing_after_restore(advance_processing_time("1 d"), ["c"],
                                     advance_processing_time("30 min")).build())
    assert [values for _, values in step.feed_rows("before")] == [("a",), ("b",)]
    assert step.clock_advances("before") == [(1, 12 * HOUR)]
    assert step.clock_advances("after") == [(0, 24 * HOUR), (1, 30 * 60_000)]


@pytest.mark.parametrize("duration, message", [
    ("0 s", "only moves forward"), ("-1 h", "only moves forward"), ("soon", "soon"),
    (12, "12"),
])
def test_a_bad_advance_is_refused_with_the_value(duration, message):
    with pytest.raises(ProgramError, match=message):
        advance_processing_time(duration)


def _program(advance: bool, ttl: str = "1 d") -> TableTestProgram:
    before = [["a", 1], advance_processing_time("12 h"), ["b", 2]] if advance else [["a", 1], ["b", 2]]
    after = [advance_processing_time("18 h"), ["a", 3], ["b", 4]] if advance else [["a", 3], ["b", 4]]
    expected_after = (["+I[a, 1, 3]", "-U[b, 1, 2]", "+U[b, 2, 6]"] if advance and ttl == "1 d"
                      else ["-U[a, 1, 1]", "+U[a, 2, 4]", "-U[b, 1, 2]", "+U[b, 2, 6]"])
    return (TableTestProgram.of("group-aggregate-clock", "the clock decides what expires")
            .setup_config("table.exec.state.ttl", ttl)
            .setup_table_source(SourceTestStep.new_builder("T").add_schema("k STRING", "v BIGINT")
                                .producing_before_restore(*before)
                                .producing_after_restore(*after).build())
            .setup_table_sink(SinkTestStep.new_builder("S")
                              .add_schema("k STRING", "n BIGINT", "total BIGINT")
                              .add_option("sink-insert-only", "false")
                              .consuming_before_restore("+I[a, 1, 1]", "+I[b, 1, 2]")
                              .consuming_after_restore(*expected_after).build())
            .run_sql("INSERT INTO S SELECT k, COUNT(*), SUM(v) FROM T GROUP BY k")
            .build())


def test_the_fingerprint_of_a_program_without_advances_is_unchanged_by_them():
    # fixtures generated before clock steps existed keep matching their programs
    with_marker = _program(advance=True)
    assert with_marker.before_data_fingerprint() != _program(advance=False).before_data_fingerprint()
    assert ClockAdvance not in {type(row) for row in _program(False).sources["T"].rows_before}


@pytest.mark.spark
@pytest.mark.parametrize("advance, ttl", [(True, "1 d"), (False, "1 d"), (True, "2 d")])
def test_state_expires_exactly_when_the_program_clock_passes_its_ttl(spark, advance, ttl):
    # a's day passes (30 h after it was written) only when the clock moves and the TTL is a
    # day; with the clock standing still, or a TTL of two days, a is updated like b
    result = run_semantic(_program(advance, ttl), spark)       # checks the expected rows
    assert ("+I[a, 1, 3]" in result.sinks["S"].texts) == (advance and ttl == "1 d")


# --- a ported program's restore comes long after its savepoint, as in Flink's RestoreTestBase ---

def test_a_ported_program_restores_an_hour_of_processing_time_later_and_ours_do_not():
    from harness.program import FLINK_RESTORE_GAP_MS
    from programs.interval_join import INTERVAL_JOIN_EVENT_TIME, INTERVAL_JOIN_PROC_TIME

    assert FLINK_RESTORE_GAP_MS == HOUR
    assert INTERVAL_JOIN_PROC_TIME.clock_advances("after") == [(0, HOUR)]
    assert INTERVAL_JOIN_PROC_TIME.clock_advances("before") == []
    assert INTERVAL_JOIN_EVENT_TIME.clock_advances("after") == []
    # markers of its own come after the gap
    program = _program(advance=True)
    assert program.clock_advances("after") == [(0, 18 * HOUR)]


@pytest.mark.spark
def test_a_processing_time_join_forgets_rows_older_than_its_window_across_the_restore(spark):
    """Flink's INTERVAL_JOIN_PROC_TIME: order 3 (before the restore) and its shipment (after
    it) arrive an hour apart, more than the 5 s window: no join. With the clock standing
    still across the restore they would join."""
    from dataclasses import replace

    from harness.errors import ExpectationMismatch
    from programs.interval_join import INTERVAL_JOIN_PROC_TIME

    result = run_semantic(INTERVAL_JOIN_PROC_TIME, spark)     # checks Flink's expected rows
    assert "+I[7, 2020-04-15 08:00:09, 2020-04-15 08:00:16]" in result.sinks["sink_t"].texts
    with pytest.raises(ExpectationMismatch, match=r"\+I\[3, 2020-04-15 08:00:03, 2020-04-15 08:00:15\]"):
        run_semantic(replace(INTERVAL_JOIN_PROC_TIME, ported_from=None), spark)


def test_a_lookup_table_changes_rows_where_the_clock_moves_and_nowhere_else(spark):
    # the lookup join reads the table's rows of then: its before rows before the advance,
    # its after rows from the advance on; TINY shows both (its expectations are checked)
    from programs.lookup_join import TINY, one_key_program

    result = run_semantic(TINY, spark)
    assert result.sinks["S"].texts == ["+I[1, old]", "+I[1, new]"]
    # without the advance the two phases share one processing time: no lookup could tell the
    # table's rows apart, so the program is refused
    still = one_key_program("lookup-join-still-clock", "the clock stands still", [1])
    with pytest.raises(ProgramError, match="lookup table 'D' holds other rows in phase 'after', "
                                           "but processing time does not move"):
        run_semantic(still, spark)


# --- waiting for a phase's rows (harness.waiting) ---------------------------------------------
def _tumbling_on_processing_time(before: tuple[str, ...], after: tuple[str, ...]) -> TableTestProgram:
    return (TableTestProgram.of("waiting-for-windows", "a processing-time window fires only "
                                "while the harness waits for the sink's rows")
            .setup_table_source(SourceTestStep.new_builder("T")
                                .add_schema("k STRING", "v INT", "pt AS PROCTIME()")
                                .producing_before_restore(["a", 1], ["a", 2])
                                .producing_after_restore(advance_processing_time("1 min"),
                                                         ["a", 4]).build())
            .setup_table_sink(SinkTestStep.new_builder("S").add_schema("k STRING", "total INT")
                              .consuming_before_restore(*before)
                              .consuming_after_restore(*after).build())
            .run_sql("INSERT INTO S SELECT k, SUM(v) FROM TABLE(TUMBLE(TABLE T, DESCRIPTOR(pt), "
                     "INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end")
            .build())


def test_the_clock_moves_on_while_a_sink_waits_for_its_windows(spark):
    # Neither window can fire on the phases' own batches: the before rows' window fires at the
    # first after-restore batch (a minute later), the after rows' one only by waiting.
    run_semantic(_tumbling_on_processing_time(("+I[a, 3]",), ("+I[a, 4]",)), spark)
    # Waiting stops when the sink has its rows: the after rows' window never fires here.
    run_semantic(_tumbling_on_processing_time(("+I[a, 3]",), ()), spark)


def test_a_wait_tick_is_the_gcd_of_the_windows_slides_and_lasts_the_longest_window(spark):
    from harness.runner import compile_program
    from harness.waiting import WaitClock, wait_clock

    _, plan = compile_program(_tumbling_on_processing_time(("+I[a, 3]",), ()), spark)
    assert wait_clock(plan) == WaitClock(step_ms=10_000, ticks=2)
    _, plan = compile_program(_program(False), spark)      # no window: nothing to wait for
    assert wait_clock(plan) is None


def test_wait_ticks_are_empty_steps_after_the_step_they_follow():
    from harness.runner import add_ticks

    steps, times = {"A": [[1], [], [2]], "B": [[], [], []]}, [0, 0, 7]
    add_ticks(steps, times, 2, 2, 5)
    assert steps == {"A": [[1], [], [], [], [2]], "B": [[], [], [], [], []]}
    assert times == [0, 0, 5, 10, 7]
