from harness import SinkTestStep, SourceTestStep, TableTestProgram


def _timed(name: str, side: str, before: list, after: list) -> SourceTestStep:
    return (SourceTestStep.new_builder(name)
            .add_schema("k INT", f"{side}t TIMESTAMP(3)",
                        f"WATERMARK FOR {side}t AS {side}t - INTERVAL '1' SECOND")
            .producing_before_restore(*before).producing_after_restore(*after).build())


# L1 is cached before the restore; R1 arriving after it must find it in the restored state.
# The min cleanup interval only delays cleanup (L1 is matched, so it changes no output).
JOIN_PROGRAM = (
    TableTestProgram.of("interval-join-tiny", "a left row cached before the restore joins after it")
    .setup_config("table.exec.interval-join.min-cleanup-interval", "1 s")
    .setup_table_source(_timed("L", "l", [[1, "2024-01-01 10:00:00"]], []))
    .setup_table_source(_timed("R", "r", [[2, "2024-01-01 10:00:00"]], [[1, "2024-01-01 10:00:01"]]))
    .setup_table_sink(SinkTestStep.new_builder("J").add_schema("lk INT", "rk INT")
                      .consuming_after_restore("+I[1, 1]").build())
    .run_sql("INSERT INTO J SELECT L.k, R.k FROM L LEFT JOIN R ON L.k = R.k "
             "AND L.lt BETWEEN R.rt - INTERVAL '2' SECOND AND R.rt + INTERVAL '2' SECOND")
    .build())

PROGRAMS = [JOIN_PROGRAM]
