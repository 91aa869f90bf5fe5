"""Table test programs for stream-exec-drop-update-before: in front of a changelog
normalize keyed by the source's primary key (table.exec.source.cdc-events-duplicate), the
source's -U rows are dropped and the normalize rebuilds them from the row it keeps, as
Flink plans it (DropUpdateBefore -> ChangelogNormalize)."""
from __future__ import annotations

from harness import SinkTestStep, SourceTestStep, TableTestProgram

# The harness's own tests run each node's TINY program (tests/gate_programs): the smallest
# program that still crosses a restore. It is not in PROGRAMS: no fixtures of its own.
# With cdc-events-duplicate on, the source's -U is dropped and rebuilt from the kept row.
TINY = (
    TableTestProgram.of("drop-update-before-tiny", "a source's -U after the restore is rebuilt "
                        "from the row kept before it")
    .setup_config("table.exec.source.cdc-events-duplicate", "true")
    .setup_table_source(SourceTestStep.new_builder("A")
                        .add_schema("id INT", "v INT", "PRIMARY KEY (id) NOT ENFORCED")
                        .add_option("changelog-mode", "I,UB,UA,D")
                        .producing_before_restore([1, 10])
                        .producing_after_restore({"kind": "-U", "values": [1, 99]},
                                                 {"kind": "+U", "values": [1, 20]}).build())
    .setup_table_sink(SinkTestStep.new_builder("S").add_schema("id INT", "v INT")
                      .add_option("sink-insert-only", "false")
                      .consuming_before_restore("+I[1, 10]")
                      .consuming_after_restore("-U[1, 10]", "+U[1, 20]").build())
    .run_sql("INSERT INTO S SELECT * FROM A")
    .build())

# The source's -U rows never reach the normalize; each +U retracts the kept row instead.
DROP_UPDATE_BEFORE_NORMALIZED_SOURCE = (
    TableTestProgram.of("drop-update-before-normalized-source", "a changelog source's -U rows "
                        "are dropped and rebuilt from the kept row")
    .setup_config("table.exec.source.cdc-events-duplicate", "true")
    .setup_table_source(
        SourceTestStep.new_builder("A")
        .add_schema("id INT", "balance INT", "PRIMARY KEY (id) NOT ENFORCED")
        .add_option("changelog-mode", "I,UB,UA,D")
        .producing_before_restore([1, 10], {"kind": "-U", "values": [1, 10]},
                                  {"kind": "+U", "values": [1, 20]})
        .producing_after_restore({"kind": "-U", "values": [1, 20]},
                                 {"kind": "+U", "values": [1, 30]},
                                 {"kind": "-D", "values": [1, 30]})
        .build())
    .setup_table_sink(
        SinkTestStep.new_builder("S").add_schema("id INT", "balance INT")
        .add_option("sink-insert-only", "false")
        .consuming_before_restore("+I[1, 10]", "-U[1, 10]", "+U[1, 20]")
        .consuming_after_restore("-U[1, 20]", "+U[1, 30]", "-D[1, 30]")
        .build())
    .run_sql("INSERT INTO S SELECT * FROM A")
    .build())

PROGRAMS = [DROP_UPDATE_BEFORE_NORMALIZED_SOURCE]
