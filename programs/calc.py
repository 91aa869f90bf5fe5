"""Programs for stream-exec-calc: projections and filters evaluated by Spark; row kinds pass through."""
from harness import SinkTestStep, SourceTestStep, TableTestProgram

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
def calc_program(after_expected: str = "+I[2, B]", before_expected: str = "+I[1, A]",
                 before_value: str = "a") -> TableTestProgram:
    return (TableTestProgram.of("calc-tiny", "upper-cases one column")
            .setup_table_source(SourceTestStep.new_builder("T").add_schema("id INT", "v STRING")
                                .producing_before_restore([1, before_value])
                                .producing_after_restore([2, "b"]).build())
            .setup_table_sink(SinkTestStep.new_builder("Out").add_schema("id INT", "v STRING")
                              .consuming_before_restore(before_expected)
                              .consuming_after_restore(after_expected).build())
            .run_sql("INSERT INTO Out SELECT id, UPPER(v) FROM T")
            .build())


CALC_PROGRAM = calc_program()

TINY = CALC_PROGRAM

CALC_PROJECTION_FILTER = (
    TableTestProgram.of("calc-projection-filter",
                        "projection with CAST, CASE and Spark built-ins, and a filter")
    .setup_table_source(
        SourceTestStep.new_builder("Orders")
        .add_schema("id BIGINT", "customer STRING", "amount DECIMAL(10, 2)", "qty INT")
        .producing_before_restore([1, "alice", "10.50", 2], [2, None, "5.00", 1],
                                  [3, "bob", "0.50", 20])
        .producing_after_restore([4, "carol", "3.25", 10], [5, "dave", "1.00", 1])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("Totals")
        .add_schema("id BIGINT", "customer STRING", "total DECIMAL(12, 2)", "size STRING",
                    "tag STRING")
        .consuming_before_restore("+I[1, ALICE, 21.00, single, alice-1]")
        .consuming_after_restore("+I[4, CAROL, 32.50, bulk, carol-4]")
        .build())
    .run_sql("INSERT INTO Totals SELECT id, UPPER(customer), CAST(amount * qty AS DECIMAL(12, 2)), "
             "CASE WHEN qty >= 10 THEN 'bulk' ELSE 'single' END, "
             "CONCAT_WS('-', customer, CAST(id AS STRING)) "
             "FROM Orders WHERE amount > 1 AND customer IS NOT NULL")
    .build())

CALC_CHANGELOG = (
    TableTestProgram.of("calc-changelog",
                        "a calc over a changelog source keeps each row's kind")
    .setup_table_source(
        SourceTestStep.new_builder("Prices")
        .add_schema("sku STRING", "price INT")
        .add_option("changelog-mode", "I,UB,UA,D")
        .producing_before_restore(["a", 1], ["b", 5],
                                  {"kind": "-U", "values": ["a", 1]},
                                  {"kind": "+U", "values": ["a", 3]})
        .producing_after_restore({"kind": "-D", "values": ["b", 5]}, ["c", -1], ["d", 2])
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("Doubled")
        .add_schema("sku STRING", "price INT")
        .add_option("sink-insert-only", "false")
        .consuming_before_restore("+I[a, 2]", "+I[b, 10]", "-U[a, 2]", "+U[a, 6]")
        .consuming_after_restore("-D[b, 10]", "+I[d, 4]")
        .build())
    .run_sql("INSERT INTO Doubled SELECT sku, price * 2 FROM Prices WHERE price > 0")
    .build())

PROGRAMS = [CALC_PROJECTION_FILTER, CALC_CHANGELOG]
