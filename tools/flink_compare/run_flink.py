"""Run the cases on Apache Flink (PyFlink, streaming mode, parallelism 1).

    /tmp/flinkvenv/bin/python tools/flink_compare/run_flink.py [case ...] [--out FILE]

Each table becomes a CSV file read by the bounded `filesystem` connector with the case's
watermark; Flink reads all rows before its first periodic watermark and emits a final
MAX watermark at the end (which flushes outer-join padding).

Per case it records:
  insert_error   whether Flink accepts `INSERT INTO Snk <query>` (validated with EXPLAIN
                 against a blackhole sink of the case's sink schema), e.g. a type mismatch
  types          Flink's own result types of the query
  changelog      rows of `SELECT CAST(col AS <sink type>) ... FROM (<query>)` as
                 Row.toString (Java side, so it is exactly Flink's text), in arrival order
  materialized   the changelog applied as a multiset, sorted
"""
from __future__ import annotations

import time
from pathlib import Path

from common import first_line, materialize, parse_args, save
from cases import sink_ddl, source_ddl

NULL = "__NULL__"


def csv_field(value) -> str:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    return '"' + str(value).replace('"', '""') + '"'


def write_csv(path: Path, rows: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(",".join(map(csv_field, row)) + "\n" for row in rows))


def run_case(case: dict, work: Path, watermark_interval: str | None = None) -> dict:
    from pyflink.table import EnvironmentSettings, TableEnvironment

    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    env.get_config().set("parallelism.default", "1")
    if watermark_interval:   # e.g. '0 ms' = a watermark after every row, '1 h' = none before the end
        env.get_config().set("pipeline.auto-watermark-interval", watermark_interval)
    result: dict = {"error": None, "insert_error": None}
    for name, table in case["tables"].items():
        path = work / case["name"] / f"{name}.csv"
        write_csv(path, table["rows"])
        env.execute_sql(source_ddl(name, table, f"'connector' = 'filesystem', 'path' = '{path}', "
                                                f"'format' = 'csv', 'csv.null-literal' = '{NULL}'"))
    env.execute_sql(sink_ddl(case["sink"], "'connector' = 'blackhole'"))
    try:
        plan = env.explain_sql(f"INSERT INTO Snk {case['query']}")
        result["operators"] = sorted({line.strip().split("(")[0] for line in plan.splitlines()
                                      if "Join" in line and "(" in line})
    except Exception as err:  # noqa: BLE001 - any validation error is a finding
        result["insert_error"] = first_line(err)
    try:
        query = env.sql_query(case["query"])
        schema = query._j_table.getResolvedSchema()   # Java side: types with parameters
        names = list(schema.getColumnNames())
        result["types"] = [str(t) for t in schema.getColumnDataTypes()]
        if len(names) != len(case["sink"]):
            raise ValueError(f"query has {len(names)} columns, sink {len(case['sink'])}")
        env.create_temporary_view("Q", query)
        casts = ", ".join(f"CAST(`{n}` AS {t}) AS `{c}`" for n, (c, t) in zip(names, case["sink"]))
        table_result = env.execute_sql(f"SELECT {casts} FROM Q")
        rows = table_result._j_table_result.collect()   # Java rows: exact Row.toString text
        changelog = []
        try:
            while rows.hasNext():
                changelog.append(rows.next().toString())
        finally:
            rows.close()
        result["changelog"] = changelog
        result["materialized"] = materialize(changelog)
    except Exception as err:  # noqa: BLE001
        result["error"] = first_line(err)
    return result


def main() -> None:
    args = parse_args("flink", watermark_option=True)
    results = {}
    for case in args.selected:
        start = time.time()
        results[case["name"]] = run_case(case, args.work, args.watermark_interval)
        results[case["name"]]["seconds"] = round(time.time() - start, 1)
        r = results[case["name"]]
        print(f"{case['name']}: {r['error'] or str(len(r['changelog'])) + ' rows'}"
              f"{' (INSERT rejected: ' + r['insert_error'] + ')' if r['insert_error'] else ''}",
              flush=True)
    save(args.out, results)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
