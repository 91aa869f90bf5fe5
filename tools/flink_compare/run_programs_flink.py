"""Run the exported table test programs on Apache Flink (PyFlink 2.3, streaming, parallelism 1).

    /tmp/flinkvenv/bin/python tools/flink_compare/run_programs_flink.py [program-id ...]
        [--programs /tmp/flink_compare/programs.json] [--out /tmp/flink_compare/programs-flink.json]
        [--all-only] [--repeat N] [--serial-delay SECONDS]

Input is what `export_programs.py` wrote. Per program:

  config   each config step is set with `t_env.get_config().set(key, value)` when Flink has an
           option of that key (found by reflection over Flink's option classes); other keys
           are our own and are skipped with a note.
  sources  each source table is a DataStream of Row (`from_collection`, ROW_NAMED type info,
           every Row carrying its RowKind) turned into a table with `from_changelog_stream`
           (Schema: the raw columns and the primary key; ChangelogMode: exactly the table's
           'changelog-mode' option, 'I' by default), and a temporary view of the table's name
           that casts every column to its declared type (DECIMAL, TIMESTAMP, DATE, VARCHAR
           travel as strings and are CAST, so values are exact): the program's SQL runs
           unchanged. Rows are fed in the harness's order (`feed` of the export).
  sinks    for each INSERT of the run SQL, the query after `INSERT INTO <sink>` (as written,
           hints included) becomes `CREATE TEMPORARY VIEW __q AS <query>`, and
           `SELECT CAST(<q col i> AS <sink col i type>) AS <sink col i> FROM __q` (positional,
           as INSERT maps columns) is converted with `to_changelog_stream` into a Schema of the
           sink's columns (NOT NULL kept, so table.exec.sink.not-null-enforcer applies) and
             - ChangelogMode.insert_only() unless the sink has 'sink-insert-only' = 'false'
               (Flink's values sink: an updating query is then rejected),
             - ChangelogMode.upsert() with the primary key when the sink has one (Flink plans
               as for an upsert sink: no -U rows),
             - ChangelogMode.all() otherwise (retract);
           collected with executeAndCollect (on the Java side: kinds and values in arrival
           order; values JSON: decimals as plain strings, timestamps ISO).
           Each INSERT is also checked as written: EXPLAIN of the INSERT against a `blackhole`
           table of the sink's schema (so type rules of INSERT itself are seen).
  phases   each program runs twice: with every row (`all`, compared with before + after) and
           with the before-restore rows only (`before`, compared with expected_before);
           --all-only skips the second run.

Event time: a watermark declared on a physical TIMESTAMP(p) column is declared on the
`from_changelog_stream` schema (the column travels as a java.sql.Timestamp and the view
selects it as is, so it stays the rowtime attribute). Such a program is fed through the
serial feed even with one source, with `pipeline.auto-watermark-interval` at
WATERMARK_INTERVAL_MS, far below the feed's delay between rows: each row's watermark reaches
the operators before the next row, as streamplan moves its watermark after every one-row
micro-batch, so late rows are late on both. Programs whose sources declare other computed
columns, or a watermark on a computed column, a TIMESTAMP_LTZ or SOURCE_WATERMARK(), are
skipped ("skipped: watermark" / "computed column"). A `PROCTIME()` column is no reason to
skip: the source's view computes it (after the physical columns, where programs declare it).

Order: with one source table the arrival order at every operator is deterministic. With two
or more, Flink's interleaving of separate sources is not (a join sees whichever input is
ready), so such programs are marked `order_dependent`, and by default fed through the
*serial feed*: all tables' rows in feed order from one collection source, throttled by a
Python map to one row per --serial-delay seconds (0.3) with python bundle size 1 and
`execution.buffer-timeout` 0 ms, then split per table by a Python flat_map keeping each
RowKind. Every row has reached the join before the next is emitted, so the changelog follows
the feed order. --repeat N runs those programs N times and records whether the changelogs
were identical (compare_programs.py falls back to the view when they were not);
--serial-delay 0 feeds every table from its own source (the changelog is then only
comparable as a materialized view).

Errors are recorded per program and sink (Flink's root cause), never raised.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from decimal import Decimal
from pathlib import Path

DEFAULT_DIR = Path("/tmp/flink_compare")

# Declared type -> (Python DataStream type info name, raw SQL type) for the types passed as-is.
NATIVE = {"BOOLEAN": ("BOOLEAN", "BOOLEAN"), "TINYINT": ("BYTE", "TINYINT"),
          "SMALLINT": ("SHORT", "SMALLINT"), "INT": ("INT", "INT"), "INTEGER": ("INT", "INT"),
          "BIGINT": ("LONG", "BIGINT"), "FLOAT": ("FLOAT", "FLOAT"),
          "DOUBLE": ("DOUBLE", "DOUBLE"), "STRING": ("STRING", "STRING"),
          "BYTES": ("BYTES", "BYTES")}
FLINK_OPTION_CLASSES = [
    "org.apache.flink.table.api.config.ExecutionConfigOptions",
    "org.apache.flink.table.api.config.OptimizerConfigOptions",
    "org.apache.flink.table.api.config.TableConfigOptions",
    "org.apache.flink.table.api.config.LookupJoinHintOptions",
    "org.apache.flink.configuration.PipelineOptions",
    "org.apache.flink.configuration.ExecutionOptions",
    "org.apache.flink.configuration.CoreOptions",
    "org.apache.flink.configuration.StateBackendOptions",
    "org.apache.flink.configuration.CheckpointingOptions",
    "org.apache.flink.configuration.RestartStrategyOptions",
]
WATERMARK_INTERVAL_MS = 50      # for programs with a watermark (see new_environment)
KIND_NAMES = {"+I": "INSERT", "-U": "UPDATE_BEFORE", "+U": "UPDATE_AFTER", "-D": "DELETE"}
MODE_KINDS = {"I": "INSERT", "UB": "UPDATE_BEFORE", "UA": "UPDATE_AFTER", "D": "DELETE"}


# ------------------------------------------------------------------------------ small helpers

def base_type(type_text: str) -> tuple[str, str, bool]:
    """'DECIMAL(10,2) NOT NULL' -> ('DECIMAL', 'DECIMAL(10,2)', False)."""
    text = type_text.strip()
    nullable = True
    if re.search(r"\s+NOT\s+NULL$", text, re.I):
        text, nullable = re.sub(r"\s+NOT\s+NULL$", "", text, flags=re.I), False
    name = re.match(r"[A-Za-z_]+", text).group(0).upper()
    return name, text, nullable


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def root_cause(err: BaseException, limit: int = 600) -> str:
    """Flink's root cause: the innermost Java exception, else the first line."""
    java = getattr(err, "java_exception", None)
    if java is not None:
        try:
            while java.getCause() is not None and java.getCause() != java:
                java = java.getCause()
            return f"{java.getClass().getName()}: {java.getMessage()}"[:limit]
        except Exception:  # noqa: BLE001 - fall back to the text
            pass
    text = str(err)
    causes = [line.strip()[len("Caused by:"):].strip() for line in text.splitlines()
              if line.strip().startswith("Caused by:")]
    if causes:
        return causes[-1][:limit]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else text
    # pyflink's converted exceptions start with the Java exception's toString()
    if re.match(r"[\w.$]+(Exception|Error): ", first):
        return first[:limit]
    return f"{type(err).__name__}: {first}"[:limit]


def flink_option_keys() -> set[str]:
    """Every key (and fallback key) of Flink's config option classes, by reflection."""
    from pyflink.java_gateway import get_gateway

    gateway = get_gateway()
    option_class = gateway.jvm.java.lang.Class.forName("org.apache.flink.configuration.ConfigOption")
    keys: set[str] = set()
    for class_name in FLINK_OPTION_CLASSES:
        try:
            cls = gateway.jvm.java.lang.Class.forName(class_name)
        except Exception:  # noqa: BLE001 - a class this Flink version lacks
            continue
        for field in cls.getFields():
            if option_class.isAssignableFrom(field.getType()):
                option = field.get(None)
                keys.add(option.key())
                for fallback in option.fallbackKeys():
                    keys.add(fallback.getKey())
    return keys


def changelog_mode(kinds: list[str]):
    """A pyflink ChangelogMode of exactly these Java RowKind names."""
    from pyflink.java_gateway import get_gateway
    from pyflink.table import ChangelogMode

    jvm = get_gateway().jvm
    builder = jvm.org.apache.flink.table.connector.ChangelogMode.newBuilder()
    for kind in kinds:
        builder.addContainedKind(getattr(jvm.org.apache.flink.types.RowKind, kind))
    return ChangelogMode(builder.build())


def json_value(value):
    """A value of a collected Java Row as JSON."""
    from py4j.java_gateway import JavaObject

    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, JavaObject):
        class_name = value.getClass().getName()
        if class_name == "java.math.BigDecimal":
            return value.toPlainString()
        return value.toString()        # LocalDateTime/LocalDate: ISO (2024-01-01T10:00:01.500)
    return str(value)


# ------------------------------------------------------------------------------ sources

def rowtime_column(source: dict) -> str | None:
    """The column a watermark is declared on: it travels as a timestamp, so the schema
    of `from_changelog_stream` can declare the watermark on it (see register_source)."""
    rowtime = source.get("rowtime")
    return rowtime["column"] if rowtime else None


def raw_values(source: dict, values: list) -> list:
    """A row's JSON values as the DataStream carries them (see NATIVE)."""
    import datetime

    types = [base_type(t)[0] for _, t in source["columns"]]
    rowtime = rowtime_column(source)
    out = []
    for value, name, (column, _) in zip(values, types, source["columns"]):
        if value is None:
            out.append(None)
        elif column == rowtime:
            out.append(datetime.datetime.fromisoformat(str(value)))
        elif name == "BYTES":
            out.append(bytes.fromhex(value) if isinstance(value, str) else bytes(value))
        elif name in ("FLOAT", "DOUBLE"):
            out.append(float(value))
        elif name in NATIVE:
            out.append(value)
        else:                                # travels as text, CAST in the view
            out.append(str(value))
    return out


def row_kind(short: str):
    from pyflink.common import RowKind

    return {"+I": RowKind.INSERT, "-U": RowKind.UPDATE_BEFORE, "+U": RowKind.UPDATE_AFTER,
            "-D": RowKind.DELETE}[short]


def raw_type_infos(source: dict) -> list:
    from pyflink.common import Types

    infos = []
    for column, type_text in source["columns"]:
        if column == rowtime_column(source):
            infos.append(Types.SQL_TIMESTAMP())
            continue
        info_name, _ = NATIVE.get(base_type(type_text)[0], ("STRING", "STRING"))
        infos.append(Types.PRIMITIVE_ARRAY(Types.BYTE()) if info_name == "BYTES"
                     else getattr(Types, info_name)())
    return infos


def separate_streams(env, sources: list[dict], feed: list[dict]) -> dict:
    """One collection source per table, each with its rows in feed order."""
    from pyflink.common import Row, Types

    streams = {}
    for source in sources:
        rows = []
        for entry in feed:
            if entry["table"] == source["name"]:
                row = Row(*raw_values(source, entry["values"]))
                row.set_row_kind(row_kind(entry["kind"]))
                rows.append(row)
        names = [name for name, _ in source["columns"]]
        streams[source["name"]] = env.from_collection(
            rows, type_info=Types.ROW_NAMED(names, raw_type_infos(source)))
    return streams


def serial_streams(env, sources: list[dict], feed: list[dict], delay: float) -> dict:
    """All tables' rows in feed order through ONE source, throttled to one row per `delay`
    seconds by a Python map (bundle size 1, buffer timeout 0), then split per table by a
    Python flat_map that keeps the RowKind: every row reaches the downstream operators
    before the next one is emitted, so the tables interleave as in the feed."""
    from pyflink.common import Row, Types

    names, infos, slots = ["__table"], [Types.STRING()], {}
    for t_index, source in enumerate(sources):
        slots[source["name"]] = []
        for c_index, info in enumerate(raw_type_infos(source)):
            slots[source["name"]].append(len(names))
            names.append(f"__t{t_index}_c{c_index}")
            infos.append(info)
    rows = []
    for entry in feed:
        values = [entry["table"]] + [None] * (len(names) - 1)
        source = next(s for s in sources if s["name"] == entry["table"])
        for slot, value in zip(slots[entry["table"]], raw_values(source, entry["values"])):
            values[slot] = value
        row = Row(*values)
        row.set_row_kind(row_kind(entry["kind"]))
        rows.append(row)
    union_type = Types.ROW_NAMED(names, infos)

    def throttle(row, delay=delay):
        import time as _time

        _time.sleep(delay)
        return row

    serial = env.from_collection(rows, type_info=union_type).map(throttle, output_type=union_type)
    streams = {}
    for source in sources:
        def project(row, table=source["name"], slots=tuple(slots[source["name"]])):
            from pyflink.common import Row as _Row

            if row[0] != table:
                return []
            out = _Row(*[row[i] for i in slots])
            out.set_row_kind(row.get_row_kind())
            return [out]

        columns = [name for name, _ in source["columns"]]
        streams[source["name"]] = serial.flat_map(
            project, output_type=Types.ROW_NAMED(columns, raw_type_infos(source)))
    return streams


def sql_timestamp_type(declared: str, nullable: bool):
    """Flink's TIMESTAMP(p) bridged to java.sql.Timestamp, what the stream carries."""
    from pyflink.java_gateway import get_gateway

    jvm = get_gateway().jvm
    precision = int(re.search(r"\((\d+)\)", declared).group(1)) if "(" in declared else 6
    data_type = jvm.org.apache.flink.table.api.DataTypes.TIMESTAMP(precision)
    if not nullable:
        data_type = data_type.notNull()
    return data_type.bridgedTo(jvm.java.lang.Class.forName("java.sql.Timestamp"))


def register_source(t_env, source: dict, stream) -> None:
    """`from_changelog_stream` with the raw columns, primary key and the table's changelog
    mode, and a view of the table's name casting each column to its declared type."""
    from pyflink.table import Schema

    key = source["primary_key"] or []
    schema = Schema.new_builder()
    selects = []
    for name, type_text in source["columns"]:
        type_name, declared, nullable = base_type(type_text)
        _, raw_type = NATIVE.get(type_name, ("STRING", "STRING"))
        if name == rowtime_column(source):      # a java.sql.Timestamp in the stream
            schema._j_builder.column(name, sql_timestamp_type(declared, nullable and name not in key))
        else:
            schema.column(name, raw_type + (" NOT NULL" if name in key or not nullable else ""))
        if type_name in NATIVE or name == rowtime_column(source):   # a rowtime stays one
            selects.append(quote(name))
        else:
            selects.append(f"CAST({quote(name)} AS {declared}) AS {quote(name)}")
    # a `name AS PROCTIME()` column: computed in the view, a processing-time attribute there
    selects.extend(f"PROCTIME() AS {quote(name)}" for name in source.get("proctime_columns", []))
    if key:
        schema.primary_key(*key)
    if rowtime_column(source):
        schema.watermark(rowtime_column(source), source["rowtime"]["expression"])
    mode_text = source["options"].get("changelog-mode", "I")
    mode = changelog_mode([MODE_KINDS[part.strip().upper()] for part in mode_text.split(",")])
    raw_name = f"__raw_{source['name']}"
    t_env.create_temporary_view(quote(raw_name),
                                t_env.from_changelog_stream(stream, schema.build(), mode))
    t_env.execute_sql(f"CREATE TEMPORARY VIEW {quote(source['name'])} AS SELECT "
                      f"{', '.join(selects)} FROM {quote(raw_name)}")


# ------------------------------------------------------------------------------ one run

INSERT_HEAD = r"^\s*INSERT\s+INTO\s+(`?){name}\1(?=[\s(])\s*"


def insert_query(insert: dict) -> str:
    head = re.compile(INSERT_HEAD.format(name=re.escape(insert["sink"])), re.I | re.S)
    match = head.match(insert["text"])
    if not match:
        raise ValueError(f"cannot find the query after INSERT INTO {insert['sink']}")
    query = insert["text"][match.end():]
    if query.startswith("("):
        raise ValueError("an INSERT with a column list is not supported by this tool")
    return query


def watermarked(program: dict) -> bool:
    return any(source.get("rowtime") for source in program["sources"])


def new_environment(program: dict, flink_keys: set[str], notes: list[str] | None,
                    serial: bool = False):
    from pyflink.common import Configuration
    from pyflink.datastream import StreamExecutionEnvironment
    from pyflink.table import EnvironmentSettings, StreamTableEnvironment

    config = Configuration()
    config.set_string("parallelism.default", "1")
    if serial:        # the serial feed: every record flushed at once, one per Python bundle
        config.set_string("execution.buffer-timeout", "0 ms")
        config.set_string("python.fn-execution.bundle.size", "1")
        config.set_string("python.executable", sys.executable)
    if watermarked(program):
        # A periodic watermark well within the serial feed's delay between rows: each row's
        # watermark reaches the operators before the next row, as streamplan moves its
        # watermark after every one-row micro-batch.
        config.set_string("pipeline.auto-watermark-interval", f"{WATERMARK_INTERVAL_MS} ms")
    env = StreamExecutionEnvironment.get_execution_environment(config)
    env.set_parallelism(1)
    t_env = StreamTableEnvironment.create(env, EnvironmentSettings.in_streaming_mode())
    t_env.get_config().set("table.local-time-zone", "UTC")   # streamplan pins UTC too
    for key, value in program["config"]:
        if key in flink_keys:
            t_env.get_config().set(key, value)
            if notes is not None:
                notes.append(f"config {key} = {value}")
        elif notes is not None:
            notes.append(f"config {key} = {value}: not a Flink option, skipped")
    return env, t_env


def run_insert(program: dict, insert: dict, feed: list[dict], flink_keys: set[str],
               check_insert: bool, serial_delay: float) -> dict:
    """One INSERT's query on a fresh environment; its sink's changelog in arrival order.
    serial_delay > 0: the tables are fed through one throttled source (serial_streams)."""
    from pyflink.table import ChangelogMode, Schema

    sink = next(s for s in program["sinks"] if s["name"] == insert["sink"])
    result: dict = {"rows": None, "error": None}
    try:
        env, t_env = new_environment(program, flink_keys, None, serial=serial_delay > 0)
        sources = program["sources"]
        streams = (serial_streams(env, sources, feed, serial_delay) if serial_delay > 0
                   else separate_streams(env, sources, feed))
        for source in sources:
            register_source(t_env, source, streams[source["name"]])
        query = insert_query(insert)
        if check_insert:
            result["insert_check"] = explain_insert(t_env, sink, insert)
        # a view of the Table, not CREATE VIEW ... AS: Flink 2.3 re-parses a SQL view's
        # expanded text, which it cannot for a USING or NATURAL join (it writes
        # `COALESCE(a.k, b.k AS k0)`: "Encountered AS")
        t_env.create_temporary_view("__q", t_env.sql_query(query))
        resolved = t_env.from_path("`__q`")._j_table.getResolvedSchema()
        names = list(resolved.getColumnNames())
        result["query_types"] = [str(t) for t in resolved.getColumnDataTypes()]
        if len(names) != len(sink["columns"]):
            raise ValueError(f"the query has {len(names)} columns ({', '.join(names)}), sink "
                             f"{sink['name']} has {len(sink['columns'])}")
        casts = []
        schema = Schema.new_builder()
        key = sink["primary_key"] or []
        for source_name, (name, type_text) in zip(names, sink["columns"]):
            _, declared, nullable = base_type(type_text)
            casts.append(f"CAST({quote(source_name)} AS {declared}) AS {quote(name)}")
            schema.column(name, declared + ("" if nullable and name not in key else " NOT NULL"))
        if key:
            schema.primary_key(*key)
        table = t_env.sql_query(f"SELECT {', '.join(casts)} FROM `__q`")
        insert_only = sink["options"].get("sink-insert-only", "true").lower() == "true"
        mode = (ChangelogMode.insert_only() if insert_only
                else ChangelogMode.upsert() if key else ChangelogMode.all())
        result["sink_mode"] = ("insert-only" if insert_only else "upsert" if key else "retract")
        stream = t_env.to_changelog_stream(table, schema.build(), mode)
        iterator = stream._j_data_stream.executeAndCollect()
        rows = []
        try:
            while iterator.hasNext():
                row = iterator.next()
                rows.append([row.getKind().shortString(),
                             [json_value(row.getField(i)) for i in range(row.getArity())]])
        finally:
            iterator.close()
        result["rows"] = rows
    except Exception as err:  # noqa: BLE001 - every failure is recorded, not raised
        result["error"] = root_cause(err)
    return result


def explain_insert(t_env, sink: dict, insert: dict) -> str | None:
    """None when Flink accepts the INSERT as written into a table of the sink's schema."""
    columns = [f"{quote(n)} {t}" for n, t in sink["columns"]]
    if sink["primary_key"]:
        columns.append(f"PRIMARY KEY ({', '.join(map(quote, sink['primary_key']))}) NOT ENFORCED")
    try:
        t_env.execute_sql(f"CREATE TEMPORARY TABLE {quote(sink['name'])} ({', '.join(columns)}) "
                          f"WITH ('connector' = 'blackhole')")
        t_env.explain_sql(insert["text"])
        return None
    except Exception as err:  # noqa: BLE001
        return root_cause(err)
    finally:
        try:
            t_env.execute_sql(f"DROP TEMPORARY TABLE IF EXISTS {quote(sink['name'])}")
        except Exception:  # noqa: BLE001
            pass


def run_program(program: dict, flink_keys: set[str], phases: list[str], repeat: int,
                serial_delay: float) -> dict:
    result: dict = {"skipped": None, "error": None, "notes": [], "runs": {}}
    unsupported = [s["name"] for s in program["sources"] if s.get("rowtime") and (
        s["rowtime"]["from_source"] or base_type(dict(s["columns"])[s["rowtime"]["column"]])[0]
        != "TIMESTAMP")]
    computed = [s["name"] for s in program["sources"] if s["computed_columns"]]
    if unsupported or computed:
        result["skipped"] = "watermark" if unsupported else "computed column"
        result["notes"].append(f"tables whose watermark is not on a physical TIMESTAMP column: "
                               f"{', '.join(unsupported) or '-'}; with computed columns: "
                               f"{', '.join(computed) or '-'}")
        return result
    result["order_dependent"] = len(program["sources"]) > 1
    # event time: the serial feed for one source too, a watermark after every row
    delay = serial_delay if result["order_dependent"] or watermarked(program) else 0.0
    result["serial_feed_delay"] = delay or None
    if delay:
        result["notes"].append(f"serial feed: one source row every {delay} s through one "
                               f"throttled source, in feed order")
    try:
        new_environment(program, flink_keys, result["notes"])    # records the config notes
    except Exception as err:  # noqa: BLE001
        result["error"] = root_cause(err)
        return result
    if watermarked(program) and "before" in phases:
        # a bounded run ends with the end of time and fires every window; a restore does not
        phases = [phase for phase in phases if phase != "before"]
        result["notes"].append("event time: run with all rows only (a before-only run would "
                               "fire every window at its end, which the restore does not)")
    for phase in phases:
        feed = [e for e in program["feed"] if phase == "all" or e["phase"] == phase]
        sinks: dict = {}
        for insert in program["inserts"]:
            attempts = [run_insert(program, insert, feed, flink_keys, phase == "all", delay)]
            if result["order_dependent"]:
                for _ in range(repeat - 1):
                    attempts.append(run_insert(program, insert, feed, flink_keys, False, delay))
            run = attempts[0]
            if len(attempts) > 1:
                run["repeats"] = len(attempts)
                run["identical_changelogs"] = all(a["rows"] == run["rows"] and
                                                  a["error"] == run["error"] for a in attempts)
                run["other_changelogs"] = [a["rows"] for a in attempts[1:]
                                           if a["rows"] != run["rows"]]
            sinks[insert["sink"]] = run
        result["runs"][phase] = sinks
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description="run exported table test programs on Flink")
    parser.add_argument("ids", nargs="*", help="program ids (default: every exported program)")
    parser.add_argument("--programs", type=Path, default=DEFAULT_DIR / "programs.json")
    parser.add_argument("--out", type=Path, default=DEFAULT_DIR / "programs-flink.json")
    parser.add_argument("--all-only", action="store_true",
                        help="skip the before-restore-only run of each program")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each multi-source program, to see whether its "
                             "changelog order is stable (default: %(default)s)")
    parser.add_argument("--serial-delay", type=float, default=0.3,
                        help="seconds between rows of the serial feed used for programs with "
                             "two or more sources; 0 feeds each table from its own source "
                             "(interleaving not deterministic) (default: %(default)s)")
    args = parser.parse_args()

    exported = json.loads(args.programs.read_text())["programs"]
    known = {p["id"] for p in exported}
    unknown = [i for i in args.ids if i not in known]
    if unknown:
        sys.exit(f"not in {args.programs}: {', '.join(unknown)} (re-run export_programs.py)")
    selected = [p for p in exported if not args.ids or p["id"] in args.ids]

    import pyflink

    flink_keys = flink_option_keys()
    phases = ["all"] if args.all_only else ["all", "before"]
    merged = json.loads(args.out.read_text()) if args.out.exists() else {}
    results = merged.setdefault("programs", {})
    merged["flink_version"] = getattr(pyflink, "__version__", None) or _pyflink_version()
    for program in selected:
        start = time.time()
        result = run_program(program, flink_keys, phases, args.repeat, args.serial_delay)
        result["seconds"] = round(time.time() - start, 1)
        results[program["id"]] = result
        print(f"{program['id']}: {summary(result)} ({result['seconds']} s)", flush=True)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(merged, indent=1, ensure_ascii=False))
    print(f"wrote {args.out}")


def _pyflink_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("apache-flink")
    except Exception:  # noqa: BLE001
        return None


def summary(result: dict) -> str:
    if result["skipped"]:
        return f"skipped: {result['skipped']}"
    if result["error"]:
        return f"error: {result['error']}"
    parts = []
    for sink, run in result["runs"].get("all", {}).items():
        parts.append(f"{sink}: " + (f"error: {run['error']}" if run["error"]
                                    else f"{len(run['rows'])} rows"))
    return "; ".join(parts)


if __name__ == "__main__":
    main()
