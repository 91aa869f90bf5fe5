"""Table test programs for stream-exec-window-deduplicate (Flink's
WindowDeduplicateTestPrograms).

A window deduplicate keeps the first (ORDER BY rowtime ASC) or last (DESC) row per partition
key and window, emitted once as +I when the watermark passes the window's end; the row
number, a constant 1, is projected after it. Ours keeps a window open across the restore.
"""
from __future__ import annotations

from decimal import Decimal

from harness import SinkTestStep, SourceTestStep, TableTestProgram

# The smallest program that crosses a restore (the harness's own tests run it; no fixtures).
TINY = (
    TableTestProgram.of("window-deduplicate-tiny", "a tumbling window open at the restore keeps "
                        "its last row, from after it")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "v INT", "ts TIMESTAMP(3)",
                                    "WATERMARK FOR ts AS ts")
                        .producing_before_restore(["a", 1, "2020-10-10 00:00:01"])
                        .producing_after_restore(["a", 2, "2020-10-10 00:00:03"],
                                                 ["a", 4, "2020-10-10 00:00:06"])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "v INT", "window_end TIMESTAMP(3)")
                      .consuming_before_restore()
                      .consuming_after_restore("+I[a, 2, 2020-10-10T00:00:05]",
                                               "+I[a, 4, 2020-10-10T00:00:10]").build())
    .run_sql("INSERT INTO S SELECT k, v, window_end FROM (SELECT *, ROW_NUMBER() OVER "
             "(PARTITION BY window_start, window_end, k ORDER BY ts DESC) AS rn FROM TABLE("
             "TUMBLE(TABLE T, DESCRIPTOR(ts), INTERVAL '5' SECOND))) WHERE rn = 1")
    .build())

# Each phase's rows in one micro-batch: the tumbling window [0 s, 10 s) gets a's two rows and
# NULL's two before the restore (two rows of a key in one batch, a NULL partition key; a's
# earlier row comes second) and an earlier NULL row after it, and fires after it with the
# first row per k; b's window [10 s, 20 s) fires at the end of input.
WINDOW_DEDUPLICATE_ACROSS_RESTORE = (
    TableTestProgram.of("window-deduplicate-across-restore",
                        "a window open across the restore; two rows of a key in one batch; "
                        "NULL partition key")
    .in_batches("phase")
    .setup_table_source(SourceTestStep.new_builder("T")
                        .add_schema("k STRING", "v INT", "ts TIMESTAMP(3)",
                                    "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND")
                        .producing_before_restore(["a", 1, "2020-10-10 00:00:04"],
                                                  ["a", 2, "2020-10-10 00:00:02"],
                                                  [None, 3, "2020-10-10 00:00:05"],
                                                  [None, 4, "2020-10-10 00:00:06"])
                        .producing_after_restore([None, 5, "2020-10-10 00:00:03"],
                                                 ["a", 6, "2020-10-10 00:00:08"],
                                                 ["b", 7, "2020-10-10 00:00:12"])
                        .build())
    .setup_table_sink(SinkTestStep.new_builder("S")
                      .add_schema("k STRING", "v INT", "ts TIMESTAMP(3)",
                                  "window_end TIMESTAMP(3)", "rn BIGINT")
                      .consuming_before_restore()
                      .consuming_after_restore(
                          "+I[a, 2, 2020-10-10T00:00:02, 2020-10-10T00:00:10, 1]",
                          "+I[null, 5, 2020-10-10T00:00:03, 2020-10-10T00:00:10, 1]",
                          "+I[b, 7, 2020-10-10T00:00:12, 2020-10-10T00:00:20, 1]")
                      .build())
    .run_sql("INSERT INTO S SELECT k, v, ts, window_end, rn FROM (SELECT *, ROW_NUMBER() OVER "
             "(PARTITION BY window_start, window_end, k ORDER BY ts ASC) AS rn FROM TABLE("
             "TUMBLE(TABLE T, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= 1")
    .build())

# --- Flink's own programs (WindowDeduplicateTestPrograms.java), transcribed as they are: SQL,
# schemas, rows and expected strings. Flink's RestoreTestBase registers every sink with
# 'sink-insert-only' = 'false'; ported_from gives these sinks the same.
FLINK_COMMIT = "0658fb7cac0f0b8ba9cd247fff66dbf642583976"

BEFORE_DATA = [
    ["2020-04-15 08:00:05", Decimal("4.00"), "A", "supplier1"],
    ["2020-04-15 08:00:06", Decimal("4.00"), "A", "supplier2"],
    ["2020-04-15 08:00:07", Decimal("2.00"), "G", "supplier1"],
    ["2020-04-15 08:00:08", Decimal("2.00"), "A", "supplier3"],
    ["2020-04-15 08:00:09", Decimal("5.00"), "D", "supplier4"],
    ["2020-04-15 08:00:11", Decimal("2.00"), "B", "supplier3"],
    ["2020-04-15 08:00:13", Decimal("1.00"), "E", "supplier1"],
    ["2020-04-15 08:00:15", Decimal("3.00"), "B", "supplier2"],
    ["2020-04-15 08:00:17", Decimal("6.00"), "D", "supplier5"],
]

AFTER_DATA = [
    ["2020-04-15 08:00:21", Decimal("2.00"), "B", "supplier7"],
    ["2020-04-15 08:00:23", Decimal("1.00"), "A", "supplier4"],
    ["2020-04-15 08:00:25", Decimal("3.00"), "C", "supplier3"],
    ["2020-04-15 08:00:28", Decimal("6.00"), "A", "supplier8"],
]

SOURCE = (SourceTestStep.new_builder("bid_t")
          .add_schema("ts STRING", "price DECIMAL(10,2)", "item STRING", "supplier_id STRING",
                      "`bid_time` AS TO_TIMESTAMP(`ts`)", "`proc_time` AS PROCTIME()",
                      "WATERMARK for `bid_time` AS `bid_time` - INTERVAL '1' SECOND")
          .producing_before_restore(*BEFORE_DATA)
          .producing_after_restore(*AFTER_DATA)
          .build())

SINK_SCHEMA = ("bid_time TIMESTAMP(3)", "price DECIMAL(10,2)", "item STRING",
               "supplier_id STRING", "window_start TIMESTAMP(3)", "window_end TIMESTAMP(3)",
               "row_num BIGINT")

TUMBLE_TVF = "TABLE(TUMBLE(TABLE bid_t, DESCRIPTOR(bid_time), INTERVAL '10' SECOND))"
HOP_TVF = ("TABLE(HOP(TABLE bid_t, DESCRIPTOR(bid_time), INTERVAL '5' SECOND, "
           "INTERVAL '10' SECOND))")
CUMULATIVE_TVF = ("TABLE(CUMULATE(TABLE bid_t, DESCRIPTOR(bid_time), INTERVAL '5' SECOND, "
                  "INTERVAL '10' SECOND))")

CONDITION_ONE = "row_num = 1"
CONDITION_TWO = "row_num <= 1"
CONDITION_THREE = "row_num < 2"

QUERY = (
    "INSERT INTO sink_t SELECT *\n"
    "  FROM (\n"
    "    SELECT\n"
    "         bid_time,\n"
    "         price,\n"
    "         item,\n"
    "         supplier_id,\n"
    "         window_start,\n"
    "         window_end, \n"
    "         ROW_NUMBER() OVER (PARTITION BY %s ORDER BY bid_time %s) AS row_num\n"
    "    FROM %s\n"
    "  ) WHERE %s")


def flink_program(constant: str, id: str, description: str, before: list[str],
                  after: list[str], partition: str, order: str, tvf: str,
                  condition: str) -> TableTestProgram:
    return (TableTestProgram.of(id, description)
            .ported_from(f"WindowDeduplicateTestPrograms.java#{constant}", FLINK_COMMIT)
            .setup_table_source(SOURCE)
            .setup_table_sink(SinkTestStep.new_builder("sink_t").add_schema(*SINK_SCHEMA)
                              .consuming_before_restore(*before)
                              .consuming_after_restore(*after).build())
            .run_sql(QUERY % (partition, order, tvf, condition))
            .build())


_TUMBLE_FIRST_BEFORE = [
    "+I[2020-04-15T08:00:05, 4.00, A, supplier1, 2020-04-15T08:00, 2020-04-15T08:00:10, 1]"]
_TUMBLE_FIRST_AFTER = [
    "+I[2020-04-15T08:00:11, 2.00, B, supplier3, 2020-04-15T08:00:10, 2020-04-15T08:00:20, 1]",
    "+I[2020-04-15T08:00:21, 2.00, B, supplier7, 2020-04-15T08:00:20, 2020-04-15T08:00:30, 1]"]
_ONE_ROW_PER_TUMBLE = ("validates window deduplicate in ascending order with at most one row "
                       "for each tumbling window")

WINDOW_DEDUPLICATE_ASC_TUMBLE_FIRST_ROW = flink_program(
    "WINDOW_DEDUPLICATE_ASC_TUMBLE_FIRST_ROW", "window-deduplicate-asc-tumble-first-row",
    _ONE_ROW_PER_TUMBLE, _TUMBLE_FIRST_BEFORE, _TUMBLE_FIRST_AFTER, "window_start, window_end",
    "ASC", TUMBLE_TVF, CONDITION_TWO)

WINDOW_DEDUPLICATE_ASC_TUMBLE_FIRST_ROW_CONDITION_ONE = flink_program(
    "WINDOW_DEDUPLICATE_ASC_TUMBLE_FIRST_ROW_CONDITION_ONE",
    "window-deduplicate-asc-tumble-first-row-condition-1", _ONE_ROW_PER_TUMBLE,
    _TUMBLE_FIRST_BEFORE, _TUMBLE_FIRST_AFTER, "window_start, window_end", "ASC", TUMBLE_TVF,
    CONDITION_ONE)

WINDOW_DEDUPLICATE_ASC_TUMBLE_FIRST_ROW_CONDITION_THREE = flink_program(
    "WINDOW_DEDUPLICATE_ASC_TUMBLE_FIRST_ROW_CONDITION_THREE",
    "window-deduplicate-asc-tumble-first-row-condition-3", _ONE_ROW_PER_TUMBLE,
    _TUMBLE_FIRST_BEFORE, _TUMBLE_FIRST_AFTER, "window_start, window_end", "ASC", TUMBLE_TVF,
    CONDITION_THREE)

WINDOW_DEDUPLICATE_ASC_PARTITION_BY_ITEM_TUMBLE_FIRST_ROW = flink_program(
    "WINDOW_DEDUPLICATE_ASC_PARTITION_BY_ITEM_TUMBLE_FIRST_ROW",
    "window-deduplicate-asc-partition-by-item-tumble-first-row",
    "validates window deduplicate in ascending order with at most one row per item for each "
    "tumbling window",
    ["+I[2020-04-15T08:00:05, 4.00, A, supplier1, 2020-04-15T08:00, 2020-04-15T08:00:10, 1]",
     "+I[2020-04-15T08:00:07, 2.00, G, supplier1, 2020-04-15T08:00, 2020-04-15T08:00:10, 1]",
     "+I[2020-04-15T08:00:09, 5.00, D, supplier4, 2020-04-15T08:00, 2020-04-15T08:00:10, 1]"],
    ["+I[2020-04-15T08:00:11, 2.00, B, supplier3, 2020-04-15T08:00:10, 2020-04-15T08:00:20, 1]",
     "+I[2020-04-15T08:00:13, 1.00, E, supplier1, 2020-04-15T08:00:10, 2020-04-15T08:00:20, 1]",
     "+I[2020-04-15T08:00:17, 6.00, D, supplier5, 2020-04-15T08:00:10, 2020-04-15T08:00:20, 1]",
     "+I[2020-04-15T08:00:21, 2.00, B, supplier7, 2020-04-15T08:00:20, 2020-04-15T08:00:30, 1]",
     "+I[2020-04-15T08:00:23, 1.00, A, supplier4, 2020-04-15T08:00:20, 2020-04-15T08:00:30, 1]",
     "+I[2020-04-15T08:00:25, 3.00, C, supplier3, 2020-04-15T08:00:20, 2020-04-15T08:00:30, 1]"],
    "window_start, window_end, item", "ASC", TUMBLE_TVF, CONDITION_TWO)

WINDOW_DEDUPLICATE_DESC_TUMBLE_LAST_ROW = flink_program(
    "WINDOW_DEDUPLICATE_DESC_TUMBLE_LAST_ROW", "window-deduplicate-desc-tumble-last-row",
    "validates window deduplicate in descending order with at most one row for each tumbling "
    "window",
    ["+I[2020-04-15T08:00:09, 5.00, D, supplier4, 2020-04-15T08:00, 2020-04-15T08:00:10, 1]"],
    ["+I[2020-04-15T08:00:17, 6.00, D, supplier5, 2020-04-15T08:00:10, 2020-04-15T08:00:20, 1]",
     "+I[2020-04-15T08:00:28, 6.00, A, supplier8, 2020-04-15T08:00:20, 2020-04-15T08:00:30, 1]"],
    "window_start, window_end", "DESC", TUMBLE_TVF, CONDITION_TWO)

WINDOW_DEDUPLICATE_DESC_PARTITION_BY_ITEM_TUMBLE_FIRST_ROW = flink_program(
    "WINDOW_DEDUPLICATE_DESC_PARTITION_BY_ITEM_TUMBLE_FIRST_ROW",
    "window-deduplicate-desc-partition-by-item-tumble-first-row",
    "validates window deduplicate in descending order with at most one row per item for each "
    "tumbling window",
    ["+I[2020-04-15T08:00:08, 2.00, A, supplier3, 2020-04-15T08:00, 2020-04-15T08:00:10, 1]",
     "+I[2020-04-15T08:00:07, 2.00, G, supplier1, 2020-04-15T08:00, 2020-04-15T08:00:10, 1]",
     "+I[2020-04-15T08:00:09, 5.00, D, supplier4, 2020-04-15T08:00, 2020-04-15T08:00:10, 1]"],
    ["+I[2020-04-15T08:00:17, 6.00, D, supplier5, 2020-04-15T08:00:10, 2020-04-15T08:00:20, 1]",
     "+I[2020-04-15T08:00:13, 1.00, E, supplier1, 2020-04-15T08:00:10, 2020-04-15T08:00:20, 1]",
     "+I[2020-04-15T08:00:15, 3.00, B, supplier2, 2020-04-15T08:00:10, 2020-04-15T08:00:20, 1]",
     "+I[2020-04-15T08:00:21, 2.00, B, supplier7, 2020-04-15T08:00:20, 2020-04-15T08:00:30, 1]",
     "+I[2020-04-15T08:00:28, 6.00, A, supplier8, 2020-04-15T08:00:20, 2020-04-15T08:00:30, 1]",
     "+I[2020-04-15T08:00:25, 3.00, C, supplier3, 2020-04-15T08:00:20, 2020-04-15T08:00:30, 1]"],
    "window_start, window_end, item", "DESC", TUMBLE_TVF, CONDITION_TWO)

WINDOW_DEDUPLICATE_ASC_HOP_FIRST_ROW = flink_program(
    "WINDOW_DEDUPLICATE_ASC_HOP_FIRST_ROW", "window-deduplicate-asc-hop-first-row",
    "validates window deduplicate in ascending order with one row for each hopping window",
    ["+I[2020-04-15T08:00:05, 4.00, A, supplier1, 2020-04-15T08:00, 2020-04-15T08:00:10, 1]",
     "+I[2020-04-15T08:00:05, 4.00, A, supplier1, 2020-04-15T08:00:05, 2020-04-15T08:00:15, 1]"],
    ["+I[2020-04-15T08:00:11, 2.00, B, supplier3, 2020-04-15T08:00:10, 2020-04-15T08:00:20, 1]",
     "+I[2020-04-15T08:00:15, 3.00, B, supplier2, 2020-04-15T08:00:15, 2020-04-15T08:00:25, 1]",
     "+I[2020-04-15T08:00:21, 2.00, B, supplier7, 2020-04-15T08:00:20, 2020-04-15T08:00:30, 1]",
     "+I[2020-04-15T08:00:25, 3.00, C, supplier3, 2020-04-15T08:00:25, 2020-04-15T08:00:35, 1]"],
    "window_start, window_end", "ASC", HOP_TVF, CONDITION_TWO)

WINDOW_DEDUPLICATE_ASC_CUMULATE_FIRST_ROW = flink_program(
    "WINDOW_DEDUPLICATE_ASC_CUMULATE_FIRST_ROW", "window-deduplicate-asc-cumulate-first-row",
    "validates window deduplicate in ascending order with one row for each cumulate window",
    ["+I[2020-04-15T08:00:05, 4.00, A, supplier1, 2020-04-15T08:00, 2020-04-15T08:00:10, 1]",
     "+I[2020-04-15T08:00:11, 2.00, B, supplier3, 2020-04-15T08:00:10, 2020-04-15T08:00:15, 1]"],
    ["+I[2020-04-15T08:00:11, 2.00, B, supplier3, 2020-04-15T08:00:10, 2020-04-15T08:00:20, 1]",
     "+I[2020-04-15T08:00:21, 2.00, B, supplier7, 2020-04-15T08:00:20, 2020-04-15T08:00:25, 1]",
     "+I[2020-04-15T08:00:21, 2.00, B, supplier7, 2020-04-15T08:00:20, 2020-04-15T08:00:30, 1]"],
    "window_start, window_end", "ASC", CUMULATIVE_TVF, CONDITION_TWO)

PROGRAMS = [WINDOW_DEDUPLICATE_ASC_TUMBLE_FIRST_ROW,
            WINDOW_DEDUPLICATE_ASC_TUMBLE_FIRST_ROW_CONDITION_ONE,
            WINDOW_DEDUPLICATE_ASC_TUMBLE_FIRST_ROW_CONDITION_THREE,
            WINDOW_DEDUPLICATE_ASC_PARTITION_BY_ITEM_TUMBLE_FIRST_ROW,
            WINDOW_DEDUPLICATE_DESC_TUMBLE_LAST_ROW,
            WINDOW_DEDUPLICATE_DESC_PARTITION_BY_ITEM_TUMBLE_FIRST_ROW,
            WINDOW_DEDUPLICATE_ASC_HOP_FIRST_ROW, WINDOW_DEDUPLICATE_ASC_CUMULATE_FIRST_ROW,
            WINDOW_DEDUPLICATE_ACROSS_RESTORE]
