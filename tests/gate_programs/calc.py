from harness import SinkTestStep, SourceTestStep, TableTestProgram


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
PROGRAMS = [CALC_PROGRAM]
