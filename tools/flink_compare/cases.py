"""Differential test cases: the same tables, rows and query for Flink and streamplan.

A case is plain data:
  name     unique id
  group    calc | agg | window | join | format | late (late = informational, timing
           differences expected; calc, format and agg changelogs compare in order)
  tables   {name: {"columns": [(col, type), ...], "rows": [[v, ...], ...]}}
           every table has a rowtime column `t` (TIMESTAMP(3)) with
           WATERMARK FOR t AS t - INTERVAL '1' SECOND
           values: None = NULL, timestamps "YYYY-MM-DD HH:MM:SS[.fff]", decimals as strings
  sink     [(col, type), ...] of the sink table `Snk`
  query    the SELECT (written in syntax both Flink SQL and Spark SQL accept)
  note     what the case probes

Both runners build the DDL from this data (`source_ddl`, `sink_ddl`), each with its own
connector options.
"""
from __future__ import annotations

T0 = "2024-01-01 10:00:"


def ts(seconds: float) -> str:
    """'2024-01-01 10:00:SS[.fff]' for 0 <= seconds < 60."""
    whole = int(seconds)
    millis = round((seconds - whole) * 1000)
    return f"{T0}{whole:02d}" + (f".{millis:03d}" if millis else "")


def source_ddl(name: str, table: dict, with_clause: str) -> str:
    cols = ",\n  ".join(f"`{c}` {t}" for c, t in table["columns"])
    return (f"CREATE TABLE {name} (\n  {cols},\n"
            f"  WATERMARK FOR t AS t - INTERVAL '1' SECOND\n) WITH ({with_clause})")


def sink_ddl(columns: list, with_clause: str) -> str:
    cols = ",\n  ".join(f"`{c}` {t}" for c, t in columns)
    return f"CREATE TABLE Snk (\n  {cols}\n) WITH ({with_clause})"


CASES: list[dict] = []


def case(name, group, tables, sink, query, note=""):
    CASES.append(dict(name=name, group=group, tables=tables, sink=sink, query=query, note=note))


# ------------------------------------------------------------------------------------ calc

INTS = {"A": {"columns": [("k", "INT"), ("a", "INT"), ("b", "INT"), ("n", "BIGINT"),
                          ("t", "TIMESTAMP(3)")],
              "rows": [[1, 7, 2, 10000000000, ts(0)],
                       [2, -7, 2, -5, ts(1)],
                       [3, 7, -2, None, ts(2)],
                       [4, None, 3, 0, ts(3)],
                       [5, 1, 3, 7, ts(4)],
                       [6, -1, 3, -7, ts(5)],
                       [7, 5, 0, 9, ts(6)]]}}

case("calc_int_arith", "calc", INTS,
     [("k", "INT"), ("add", "INT"), ("sub", "INT"), ("mul", "INT"), ("md", "INT"),
      ("modf", "INT"), ("neg", "INT"), ("ab", "INT"), ("n2", "BIGINT"), ("na", "BIGINT")],
     "SELECT k, a + b, a - b, a * b, a % b, MOD(a, b), -a, ABS(a), n * 2, n + a "
     "FROM A WHERE b <> 0",
     "integer arithmetic, remainder sign, NULL propagation")

case("calc_int_division", "calc", INTS,
     [("k", "INT"), ("q_int", "DOUBLE"), ("q_big", "DOUBLE"), ("q_dbl", "DOUBLE")],
     "SELECT k, a / b, n / b, CAST(a AS DOUBLE) / b FROM A WHERE b <> 0",
     "INT / INT: Flink keeps INT (truncating), Spark returns DOUBLE; sink column DOUBLE")

case("calc_int_overflow", "calc",
     {"A": {"columns": [("k", "INT"), ("a", "INT"), ("n", "BIGINT"), ("t", "TIMESTAMP(3)")],
            "rows": [[1, 2147483647, 3000000000, ts(0)], [2, 1, 5, ts(1)]]}},
     [("k", "INT"), ("a1", "INT"), ("ni", "INT")],
     "SELECT k, a + 1, CAST(n AS INT) FROM A",
     "INT overflow and narrowing CAST: Flink wraps around silently, Spark ANSI raises")

case("calc_implicit_sink_cast", "calc", INTS,
     [("k", "INT"), ("x", "INT"), ("y", "BIGINT")],
     "SELECT k, CAST(a AS DOUBLE) * 1.5, CAST(n AS DECIMAL(20, 1)) FROM A",
     "narrowing DOUBLE -> INT / DECIMAL -> BIGINT into the sink: Flink rejects the INSERT")

DECIMALS = {"A": {"columns": [("k", "INT"), ("d", "DECIMAL(10, 2)"), ("e", "DECIMAL(10, 3)"),
                              ("t", "TIMESTAMP(3)")],
                  "rows": [[1, "2.35", "1.255", ts(0)],
                           [2, "-2.35", "-1.255", ts(1)],
                           [3, "10.00", "3.000", ts(2)],
                           [4, None, "0.500", ts(3)],
                           [5, "99999999.99", "0.001", ts(4)],
                           [6, "1.45", "7.000", ts(5)]]}}

case("calc_decimal_arith", "calc", DECIMALS,
     [("k", "INT"), ("s_add", "STRING"), ("s_mul", "STRING"), ("s_div", "STRING"),
      ("s_lit", "STRING"), ("d1", "DECIMAL(10, 1)"), ("e2", "DECIMAL(10, 2)"),
      ("r2", "DECIMAL(20, 2)"), ("di", "INT"), ("ed", "DOUBLE")],
     "SELECT k, CAST(d + e AS STRING), CAST(d * e AS STRING), CAST(d / e AS STRING), "
     "CAST(d * 1.5 AS STRING), CAST(d AS DECIMAL(10, 1)), CAST(e AS DECIMAL(10, 2)), "
     "ROUND(e, 2), CAST(d AS INT), CAST(e AS DOUBLE) FROM A",
     "DECIMAL result scales (shown via CAST AS STRING), HALF_UP rounding, DECIMAL -> INT/DOUBLE")

case("calc_cast_strings", "calc",
     {"A": {"columns": [("k", "INT"), ("s", "STRING"), ("x", "DOUBLE"), ("t", "TIMESTAMP(3)")],
            "rows": [[1, "12", 2.25, ts(0)],
                     [2, " 12 ", 2.35, ts(1)],
                     [3, "1.5", -2.35, ts(2)],
                     [4, "abc", -1.99, ts(3)],
                     [5, "", 0.05, ts(4)],
                     [6, "1.005", 1e-3, ts(5)],
                     [7, "-1.005", 123456.789, ts(6)],
                     [8, "true", 0.0, ts(7)],
                     [9, "yes", None, ts(8)],
                     [10, "1e2", 2.5, ts(9)]]}},
     [("k", "INT"), ("si", "INT"), ("sd", "DECIMAL(10, 2)"), ("sx", "DOUBLE"), ("sb", "BOOLEAN"),
      ("xd", "DECIMAL(10, 1)"), ("xi", "INT"), ("ks", "STRING"), ("xs", "STRING")],
     "SELECT k, TRY_CAST(s AS INT), TRY_CAST(s AS DECIMAL(10, 2)), TRY_CAST(s AS DOUBLE), "
     "TRY_CAST(s AS BOOLEAN), CAST(x AS DECIMAL(10, 1)), CAST(x AS INT), CAST(k AS STRING), "
     "CAST(x AS STRING) FROM A",
     "string -> number/boolean parsing (TRY_CAST), DOUBLE -> DECIMAL rounding, DOUBLE -> STRING")

DOUBLES = {"A": {"columns": [("k", "INT"), ("x", "DOUBLE"), ("y", "DOUBLE"), ("f", "FLOAT"),
                             ("t", "TIMESTAMP(3)")],
                 "rows": [[1, 0.1, 0.2, 1.1, ts(0)],
                          [2, 1e8, 3.0, 0.5, ts(1)],
                          [3, 0.0001, 2.0, -2.5, ts(2)],
                          [4, -2.5, 2.0, 3.4028e38, ts(3)],
                          [5, 12345678.9, 1.0, None, ts(4)],
                          [6, None, 1.0, 0.1, ts(5)],
                          [7, 2.5, 4.0, 1e-3, ts(6)]]}}

case("calc_double", "calc", DOUBLES,
     [("k", "INT"), ("add", "DOUBLE"), ("mul", "DOUBLE"), ("dv", "DOUBLE"), ("r1", "DOUBLE"),
      ("fl", "DOUBLE"), ("ce", "DOUBLE"), ("pw", "DOUBLE"), ("xb", "BIGINT"), ("f", "FLOAT"),
      ("f2", "FLOAT"), ("fd", "DOUBLE")],
     "SELECT k, x + y, x * y, x / y, ROUND(x, 0), FLOOR(x), CEIL(x), POWER(x, 2), "
     "CAST(x AS BIGINT), f, f * 2, CAST(f AS DOUBLE) FROM A",
     "DOUBLE arithmetic, ROUND/FLOOR/CEIL, FLOAT values, Java Double/Float.toString formatting")

case("calc_double_div_zero", "calc",
     {"A": {"columns": [("k", "INT"), ("x", "DOUBLE"), ("y", "DOUBLE"), ("t", "TIMESTAMP(3)")],
            "rows": [[1, 1.0, 0.0, ts(0)], [2, 0.0, 0.0, ts(1)], [3, -1.0, 0.0, ts(2)],
                     [4, 1.0, 2.0, ts(3)]]}},
     [("k", "INT"), ("q", "DOUBLE")],
     "SELECT k, x / y FROM A",
     "DOUBLE division by zero: IEEE (Infinity/NaN) in Flink, DIVIDE_BY_ZERO error in Spark ANSI")

STRINGS = {"A": {"columns": [("k", "INT"), ("s", "STRING"), ("u", "STRING"), ("t", "TIMESTAMP(3)")],
                 "rows": [[1, "Hello World", "x", ts(0)],
                          [2, "  padded  ", None, ts(1)],
                          [3, "", "", ts(2)],
                          [4, None, "y", ts(3)],
                          [5, "Straße Öl", "ß", ts(4)],
                          [6, "abc", "ABC", ts(5)],
                          [7, "hello", "l", ts(6)]]}}

case("calc_strings", "calc", STRINGS,
     [("k", "INT"), ("up", "STRING"), ("lo", "STRING"), ("len", "INT"), ("tr", "STRING"),
      ("lt", "STRING"), ("rt", "STRING"), ("c1", "STRING"), ("c2", "STRING"), ("cw", "STRING"),
      ("rp", "STRING"), ("lp", "STRING"), ("ic", "STRING")],
     "SELECT k, UPPER(s), LOWER(s), CHAR_LENGTH(s), TRIM(s), LTRIM(s), RTRIM(s), CONCAT(s, u), "
     "s || '-' || u, CONCAT_WS('|', s, u, 'z'), REPLACE(s, 'l', 'L'), LPAD(s, 8, '*'), "
     "INITCAP(s) FROM A",
     "string functions and NULL propagation")

case("calc_substring", "calc", STRINGS,
     [("k", "INT"), ("s0", "STRING"), ("s1", "STRING"), ("sneg", "STRING"), ("s2", "STRING"),
      ("sfar", "STRING"), ("spast", "STRING"), ("szero", "STRING"), ("sneg2", "STRING"),
      ("sfor", "STRING")],
     "SELECT k, SUBSTRING(s, 0, 2), SUBSTRING(s, 1, 2), SUBSTRING(s, -3, 2), SUBSTRING(s, 2), "
     "SUBSTRING(s, -20, 3), SUBSTRING(s, 20, 2), SUBSTRING(s, 2, 0), SUBSTRING(s, -2), "
     "SUBSTRING(s FROM 2 FOR 3) FROM A",
     "SUBSTRING with 0, negative and out-of-range starts")

NULLS = {"A": {"columns": [("k", "INT"), ("a", "INT"), ("s", "STRING"), ("p", "BOOLEAN"),
                           ("q", "BOOLEAN"), ("t", "TIMESTAMP(3)")],
               "rows": [[1, 1, "abc", True, True, ts(0)],
                        [2, 2, "b", True, False, ts(1)],
                        [3, 7, None, True, None, ts(2)],
                        [4, None, "B", False, True, ts(3)],
                        [5, 0, "xyz", False, False, ts(4)],
                        [6, -3, "ab", False, None, ts(5)],
                        [7, 3, "", None, True, ts(6)],
                        [8, None, "x", None, False, ts(7)],
                        [9, 10, "a%", None, None, ts(8)]]}}

case("calc_case_coalesce", "calc", NULLS,
     [("k", "INT"), ("c1", "STRING"), ("c2", "STRING"), ("co", "INT"), ("cs", "STRING"),
      ("nif", "INT"), ("isn", "BOOLEAN"), ("iff", "STRING"), ("clen", "INT")],
     "SELECT k, CASE WHEN a > 5 THEN 'big' WHEN a > 0 THEN 'small' ELSE 'neg-or-null' END, "
     "CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' END, COALESCE(a, 0), COALESCE(s, 'dflt'), "
     "NULLIF(a, 2), a IS NULL, IF(a > 2, 'gt', 'le'), "
     "CHAR_LENGTH(CASE WHEN a > 5 THEN 'big' ELSE 'small-or-null' END) FROM A",
     "CASE (result type / CHAR padding), COALESCE, NULLIF, IF")

case("calc_boolean_logic", "calc", NULLS,
     [("k", "INT"), ("and_", "BOOLEAN"), ("or_", "BOOLEAN"), ("not_", "BOOLEAN"),
      ("is_true", "BOOLEAN"), ("is_not_false", "BOOLEAN"), ("eq", "BOOLEAN"),
      ("dist", "BOOLEAN"), ("ne", "BOOLEAN")],
     "SELECT k, p AND q, p OR q, NOT p, p IS TRUE, p IS NOT FALSE, p = q, "
     "p IS DISTINCT FROM q, p <> q FROM A",
     "three-valued boolean logic")

case("calc_comparisons", "calc", NULLS,
     [("k", "INT"), ("gt", "BOOLEAN"), ("lt", "BOOLEAN"), ("eq", "BOOLEAN"), ("btw", "BOOLEAN"),
      ("lk", "BOOLEAN"), ("lk2", "BOOLEAN"), ("inl", "BOOLEAN"), ("notin", "BOOLEAN"),
      ("ins", "BOOLEAN")],
     "SELECT k, s > 'b', s < 'B', s = 'abc', s BETWEEN 'a' AND 'c', s LIKE 'a%', "
     "s LIKE '_b%', a IN (1, 3), a NOT IN (1, 3), s IN ('abc', 'xyz') FROM A",
     "string comparison (case, empty), LIKE, IN with NULL")

case("calc_where_null", "calc", NULLS,
     [("k", "INT"), ("a", "INT"), ("s", "STRING")],
     "SELECT k, a, s FROM A WHERE NOT (a > 2) OR s = 'x' OR (p AND NOT q)",
     "WHERE drops NULL (unknown) predicates")

case("calc_timestamp", "calc",
     {"A": {"columns": [("k", "INT"), ("t", "TIMESTAMP(3)")],
            "rows": [[1, ts(0)], [2, ts(1.5)], [3, ts(2.123)], [4, ts(3.05)],
                     [5, "2024-01-01 10:00:59.999"]]}},
     [("k", "INT"), ("tstr", "STRING"), ("d", "DATE"), ("dstr", "STRING"),
      ("tplus", "TIMESTAMP(3)"), ("hr", "BIGINT"), ("sec", "BIGINT"), ("lit", "TIMESTAMP(3)"),
      ("df", "STRING")],
     "SELECT k, CAST(t AS STRING), CAST(t AS DATE), CAST(CAST(t AS DATE) AS STRING), "
     "t + INTERVAL '1' HOUR, EXTRACT(HOUR FROM t), EXTRACT(SECOND FROM t), "
     "CAST('2024-02-03 04:05:06' AS TIMESTAMP(3)), DATE_FORMAT(t, 'yyyy-MM-dd HH:mm:ss.SSS') FROM A",
     "timestamp -> string / date casts, interval arithmetic, EXTRACT, DATE_FORMAT")

# ------------------------------------------------------------------------------ formatting

case("format_values", "format",
     {"A": {"columns": [("k", "INT"), ("sm", "SMALLINT"), ("n", "BIGINT"), ("d", "DECIMAL(10, 4)"),
                        ("x", "DOUBLE"), ("f", "FLOAT"), ("b", "BOOLEAN"), ("s", "STRING"),
                        ("dt", "DATE"), ("ts6", "TIMESTAMP(6)"), ("t", "TIMESTAMP(3)")],
            "rows": [[1, 1, 10, "0.0000", 1e7, 1.1, True, "a, b", "2024-01-01",
                      "2024-01-01 10:00:00.123456", ts(0)],
                     [2, -2, -10, "-1.5000", 1e-5, 0.1, False, "", "1999-12-31",
                      "2024-01-01 10:00:00", ts(1)],
                     [3, None, None, "12345.6789", 123.0, 3.0, None, "[x]", None,
                      "2024-01-01 10:00:05.100", ts(2.1)],
                     [4, 0, 9223372036854775807, None, -0.0, None, True, None, "2024-02-29",
                      None, ts(3.01)],
                     [5, 7, 0, "1.0000", 1e21, 1e10, False, "null", "2024-03-01",
                      "2024-01-01 10:00:00.000001", "2024-01-01 10:00:59.999"],
                     [6, 8, 1, "-0.0001", 12345678.9, 16777217.0, True, "é", "2024-03-02",
                      "2024-01-01 10:00:00.5", ts(6)],
                     [7, 9, 2, "3.1400", 0.001, 1.0e-4, False, "x", "2024-03-03",
                      "2024-01-01 23:59:59.999999", ts(7)],
                     [8, 10, 3, "100.0000", float("nan"), float("inf"), True, "y", "2024-03-04",
                      "2024-01-01 10:00:00", ts(8)]]}},
     [("k", "INT"), ("sm", "SMALLINT"), ("n", "BIGINT"), ("d", "DECIMAL(10, 4)"), ("x", "DOUBLE"),
      ("f", "FLOAT"), ("b", "BOOLEAN"), ("s", "STRING"), ("dt", "DATE"), ("ts6", "TIMESTAMP(6)"),
      ("t", "TIMESTAMP(3)")],
     "SELECT * FROM A",
     "Row.toString of every type: doubles in E-notation, FLOAT, -0.0, NaN, micros, NULL")

# ---------------------------------------------------------------------------- interval joins
# Two tables L(k, v, t) and R(k, w, t); rows are in event-time order and both tables advance
# together, so no row is late for either engine.

def lr(left_rows, right_rows, extra_left=(), extra_right=()):
    return {"L": {"columns": [("k", "INT"), ("v", "STRING"), *extra_left, ("t", "TIMESTAMP(3)")],
                  "rows": left_rows},
            "R": {"columns": [("k", "INT"), ("w", "STRING"), *extra_right, ("t", "TIMESTAMP(3)")],
                  "rows": right_rows}}


JOIN_SINK = [("lk", "INT"), ("v", "STRING"), ("lt", "TIMESTAMP(3)"),
             ("rk", "INT"), ("w", "STRING"), ("rt", "TIMESTAMP(3)")]
# Flink refuses to write two rowtime attributes into one sink (see join_two_rowtimes_in_sink),
# so the join cases cast them to plain timestamps.
JOIN_SELECT = ("SELECT l.k, l.v, CAST(l.t AS TIMESTAMP(3)), r.k, r.w, CAST(r.t AS TIMESTAMP(3)) "
               "FROM L l ")

BASIC = lr([[1, "a", ts(0)], [2, "b", ts(1)], [1, "c", ts(3)], [3, "d", ts(5)], [1, "e", ts(9)]],
           [[1, "x", ts(1)], [2, "y", ts(4)], [1, "z", ts(4)], [4, "w", ts(6)], [1, "q", ts(8)]])
WINDOW_2S = "ON l.k = r.k AND l.t BETWEEN r.t - INTERVAL '2' SECOND AND r.t + INTERVAL '2' SECOND"

for kind in ("INNER", "LEFT", "RIGHT", "FULL"):
    case(f"join_{kind.lower()}_basic", "join", BASIC, JOIN_SINK,
         JOIN_SELECT + f"{kind} JOIN R r {WINDOW_2S}",
         f"{kind} interval join, symmetric 2 s window, unmatched rows on both sides")

case("join_two_rowtimes_in_sink", "join", BASIC, JOIN_SINK,
     f"SELECT l.k, l.v, l.t, r.k, r.w, r.t FROM L l JOIN R r {WINDOW_2S}",
     "both rowtime columns written to the sink without a CAST")

# rows exactly on the bounds: l.t - r.t in {-1 s, -1.001 s, 0, 3 s, 2.999 s, 3.001 s}
EDGES = lr([[1, "a", ts(10)], [2, "b", ts(10)], [3, "c", ts(10)], [4, "d", ts(13)],
            [5, "e", ts(13)], [6, "f", ts(13.001)]],
           [[1, "x", ts(11)], [2, "y", ts(11.001)], [3, "z", ts(10)], [4, "u", ts(10)],
            [5, "v", ts(10.001)], [6, "w", ts(10)]])

case("join_asymmetric_between", "join", EDGES, JOIN_SINK,
     JOIN_SELECT + "FULL JOIN R r ON l.k = r.k AND "
     "l.t BETWEEN r.t - INTERVAL '1' SECOND AND r.t + INTERVAL '3' SECOND",
     "asymmetric inclusive bounds, rows exactly on and just past each bound")

case("join_strict_bounds", "join", EDGES, JOIN_SINK,
     JOIN_SELECT + "FULL JOIN R r ON l.k = r.k AND "
     "l.t > r.t - INTERVAL '1' SECOND AND l.t < r.t + INTERVAL '3' SECOND",
     "exclusive bounds (> and <)")

case("join_flipped_bounds", "join", EDGES, JOIN_SINK,
     JOIN_SELECT + "LEFT JOIN R r ON r.k = l.k AND "
     "r.t >= l.t - INTERVAL '3' SECOND AND r.t <= l.t + INTERVAL '1' SECOND",
     "bounds written with the right time first (same window as join_asymmetric_between)")

case("join_zero_width", "join",
     lr([[1, "a", ts(1)], [2, "b", ts(2)], [3, "c", ts(3)], [1, "d", ts(4)]],
        [[1, "x", ts(1)], [2, "y", ts(2.001)], [3, "z", ts(3)], [1, "u", ts(4)]]),
     JOIN_SINK,
     JOIN_SELECT + "LEFT JOIN R r ON l.k = r.k AND l.t = r.t",
     "zero-width window (l.t = r.t), 1 ms misses")

case("join_negative_window", "join", BASIC, JOIN_SINK,
     JOIN_SELECT + "FULL JOIN R r ON l.k = r.k AND "
     "l.t BETWEEN r.t + INTERVAL '2' SECOND AND r.t + INTERVAL '1' SECOND",
     "lower bound above upper bound: nothing matches, outer rows padded")

case("join_negative_window_inner", "join", BASIC, JOIN_SINK,
     JOIN_SELECT + "JOIN R r ON l.k = r.k AND "
     "l.t BETWEEN r.t + INTERVAL '2' SECOND AND r.t + INTERVAL '1' SECOND",
     "negative window, inner join: empty result")

case("join_many_matches", "join",
     lr([[1, "a", ts(0)], [1, "b", ts(1)], [1, "c", ts(2)], [2, "d", ts(3)], [1, "e", ts(4)]],
        [[1, "x", ts(0.5)], [1, "y", ts(1.5)], [2, "z", ts(2.5)], [1, "u", ts(3.5)],
         [2, "v", ts(4.5)]]),
     JOIN_SINK,
     JOIN_SELECT + "JOIN R r ON l.k = r.k AND "
     "l.t BETWEEN r.t - INTERVAL '5' SECOND AND r.t + INTERVAL '5' SECOND",
     "several matches per key (cross product within the window)")

case("join_null_keys", "join",
     lr([[None, "a", ts(0)], [1, "b", ts(1)], [None, "c", ts(2)], [2, "d", ts(3)]],
        [[None, "x", ts(0)], [1, "y", ts(1)], [None, "z", ts(2.5)], [3, "u", ts(3)]]),
     JOIN_SINK,
     JOIN_SELECT + f"FULL JOIN R r {WINDOW_2S}",
     "NULL join keys never match; padded on both sides")

NUM = lr([[1, "apple", "10.50", ts(0)], [1, "avocado", None, ts(1)], [2, "banana", "3.00", ts(2)],
          [2, "blue", "7.25", ts(3)], [3, "cherry", "1.00", ts(4)]],
         [[1, "APPLE", "20.00", 1, ts(0.5)], [1, "x", "5.00", None, ts(1.5)],
          [2, "banana", "6.00", 2, ts(2.5)], [2, "BLUE", "14.50", 3, ts(3.5)],
          [3, "c", None, 4, ts(4.5)]],
         extra_left=[("amt", "DECIMAL(10, 2)")],
         extra_right=[("amt", "DECIMAL(10, 2)"), ("n", "INT")])
NUM_SINK = [("lk", "INT"), ("v", "STRING"), ("lamt", "DECIMAL(10, 2)"),
            ("w", "STRING"), ("ramt", "DECIMAL(10, 2)"), ("n", "INT")]
NUM_SELECT = "SELECT l.k, l.v, l.amt, r.w, r.amt, r.n FROM L l "
WINDOW_3S = "l.t BETWEEN r.t - INTERVAL '3' SECOND AND r.t + INTERVAL '3' SECOND"

case("join_non_equi_predicate", "join", NUM, NUM_SINK,
     NUM_SELECT + f"LEFT JOIN R r ON l.k = r.k AND {WINDOW_3S} AND r.amt > l.amt * 2",
     "extra non-equi predicate over DECIMALs; NULL amt makes it unknown -> no match")

case("join_non_equi_strings", "join", NUM, NUM_SINK,
     NUM_SELECT + f"FULL JOIN R r ON l.k = r.k AND {WINDOW_3S} "
     "AND (UPPER(l.v) = r.w OR r.n IS NULL) AND l.v <> r.w",
     "extra predicate with functions, OR, IS NULL and <>")

case("join_non_equi_coalesce", "join", NUM, NUM_SINK,
     NUM_SELECT + f"RIGHT JOIN R r ON l.k = r.k AND {WINDOW_3S} "
     "AND COALESCE(l.amt, 0) + COALESCE(r.n, 0) >= 5 AND CHAR_LENGTH(l.v) > 4",
     "extra predicate with COALESCE, arithmetic, CHAR_LENGTH")

case("join_multi_key", "join",
     lr([[1, "a", ts(0)], [1, "b", ts(1)], [2, "a", ts(2)], [2, "b", ts(3)]],
        [[1, "a", ts(0.5)], [1, "a", ts(1.5)], [2, "b", ts(2.5)], [2, "c", ts(3.5)]]),
     JOIN_SINK,
     JOIN_SELECT + "LEFT JOIN R r ON l.k = r.k AND l.v = r.w AND "
     "l.t BETWEEN r.t - INTERVAL '2' SECOND AND r.t + INTERVAL '2' SECOND",
     "composite join key (k, v = w)")

case("join_projection_where", "join", NUM,
     [("lk", "INT"), ("lv", "STRING"), ("rw", "STRING"), ("total", "DECIMAL(11, 2)"),
      ("lts", "STRING")],
     "SELECT l.k, UPPER(l.v), COALESCE(r.w, 'none'), l.amt + r.amt, CAST(l.t AS STRING) "
     f"FROM L l FULL JOIN R r ON l.k = r.k AND {WINDOW_3S} WHERE r.w IS NULL OR l.k > 1",
     "expressions and a WHERE over an outer join's output")

case("join_fractional_interval", "join",
     lr([[1, "a", ts(1)], [2, "b", ts(2)], [3, "c", ts(3)], [4, "d", ts(4)]],
        [[1, "x", ts(1.5)], [2, "y", ts(2.501)], [3, "z", ts(2.5)], [4, "u", ts(5)]]),
     JOIN_SINK,
     JOIN_SELECT + "FULL JOIN R r ON l.k = r.k AND "
     "l.t BETWEEN r.t - INTERVAL '0.5' SECOND AND r.t + INTERVAL '1' MINUTE",
     "fractional-second and MINUTE bounds")

# ------------------------------------------------------------------ late / out-of-order data
# Informational: streamplan advances the watermark after every row; Flink's bounded file
# source emits periodic watermarks (every 200 ms of wall-clock time by default), so whether a
# row is late in Flink depends on timing. Run Flink with --watermark-interval '1 h' (no
# watermark before the end) and '0 ms' (a watermark after every row) to see both extremes.

case("late_left_outer", "late",
     lr([[1, "a", ts(0)], [2, "b", ts(20)], [3, "late", ts(5)], [4, "d", ts(25)]],
        [[1, "x", ts(1)], [2, "y", ts(21)], [3, "z", ts(6)], [4, "u", ts(26)]]),
     JOIN_SINK,
     JOIN_SELECT + "LEFT JOIN R r ON l.k = r.k AND "
     "l.t BETWEEN r.t - INTERVAL '2' SECOND AND r.t + INTERVAL '2' SECOND",
     "k=3 rows on both sides arrive ~15 s behind the watermark")

case("late_right_after_cleanup", "late",
     lr([[1, "a", ts(0)], [2, "b", ts(5)], [3, "c", ts(20)], [4, "d", ts(22)], [5, "e", ts(24)]],
        [[1, "x", ts(0.5)], [3, "z", ts(20.5)], [4, "u", ts(22.5)], [2, "late", ts(5.5)],
         [5, "v", ts(24.5)]]),
     JOIN_SINK,
     JOIN_SELECT + "FULL JOIN R r ON l.k = r.k AND "
     "l.t BETWEEN r.t - INTERVAL '2' SECOND AND r.t + INTERVAL '2' SECOND",
     "right row for k=2 arrives ~13 s late, after its left partner's state expired")

case("late_out_of_order_within_window", "late",
     lr([[1, "a", ts(3)], [1, "b", ts(1)], [1, "c", ts(4)], [1, "d", ts(2)]],
        [[1, "x", ts(2)], [1, "y", ts(4)], [1, "z", ts(1)], [1, "u", ts(3)]]),
     JOIN_SINK,
     JOIN_SELECT + "FULL JOIN R r ON l.k = r.k AND "
     "l.t BETWEEN r.t - INTERVAL '5' SECOND AND r.t + INTERVAL '5' SECOND",
     "out of order but within the window: not late for either engine")

case("late_left_calc_unaffected", "late",
     {"A": {"columns": [("k", "INT"), ("t", "TIMESTAMP(3)")],
            "rows": [[1, ts(30)], [2, ts(0)], [3, ts(10)]]}},
     [("k", "INT"), ("t", "TIMESTAMP(3)")],
     "SELECT k, t FROM A WHERE k > 0",
     "late rows are kept by a Calc (no watermark-based dropping)")


def by_name(names=None) -> list[dict]:
    if not names:
        return CASES
    wanted = set(names)
    unknown = wanted - {c["name"] for c in CASES}
    if unknown:
        raise SystemExit(f"unknown case(s): {', '.join(sorted(unknown))}")
    return [c for c in CASES if c["name"] in wanted]

# ----------------------------------------------------------------------------- window joins
# The rows of programs/window_join.py's own program (WINDOW_JOIN_ACROSS_RESTORE): each table
# in event-time order, so no row is late for either engine.
WINDOWED = {"L": {"columns": [("k", "INT"), ("v", "INT"), ("t", "TIMESTAMP(3)")],
                  "rows": [[1, 1, ts(1)], [1, 15, ts(2)], [None, 3, ts(3)], [None, 5, ts(4)],
                           [2, 4, ts(12)]]},
            "R": {"columns": [("k", "INT"), ("w", "INT"), ("t", "TIMESTAMP(3)")],
                  "rows": [[None, 30, ts(2)], [2, 40, ts(3)], [1, 10, ts(4)], [1, 20, ts(11)]]}}

case("window_join_full_tumble", "join", WINDOWED,
     [("lk", "INT"), ("lv", "INT"), ("rk", "INT"), ("rw", "INT"), ("ws", "TIMESTAMP(3)"),
      ("we", "TIMESTAMP(3)")],
     "SELECT l.k, l.v, r.k, r.w, l.window_start, r.window_end "
     "FROM TABLE(TUMBLE(TABLE L, DESCRIPTOR(t), INTERVAL '5' SECOND)) l "
     "FULL JOIN TABLE(TUMBLE(TABLE R, DESCRIPTOR(t), INTERVAL '5' SECOND)) r "
     "ON l.k = r.k AND l.window_start = r.window_start AND l.window_end = r.window_end "
     "AND l.v < r.w",
     "a window join: NULL keys, a non-equi condition, both sides padded")

# ----------------------------------------------------------------------- stateful SQL (agg)
# Typical streaming SQL over one table: group aggregates, Top-N, deduplication, windows and
# over aggregates. Group `agg` compares the changelog in order (one table, one row a
# micro-batch, so both engines see the same sequence); group `window` as a multiset (Flink's
# periodic watermarks decide when a window fires between rows).
SALES = {"S": {"columns": [("k", "INT"), ("cat", "STRING"), ("item", "STRING"), ("qty", "INT"),
                           ("price", "DECIMAL(10, 2)"), ("t", "TIMESTAMP(3)")],
               "rows": [[1, "fruit", "apple", 3, "1.50", ts(0)],
                        [2, "veg", "leek", 1, "2.25", ts(1)],
                        [3, "fruit", "pear", 5, "0.99", ts(2)],
                        [4, None, "mystery", 2, None, ts(3)],
                        [5, "fruit", "apple", None, "1.75", ts(4)],
                        [6, "veg", "kale", 4, "3.10", ts(6)],
                        [7, "fruit", "plum", 2, "0.50", ts(7)],
                        [8, "veg", "leek", 6, "2.00", ts(9)],
                        [9, None, "mystery", 1, "4.00", ts(11)],
                        [10, "fruit", "pear", 7, "1.05", ts(12)]]}}

case("agg_basic", "agg", SALES,
     [("cat", "STRING"), ("c", "BIGINT"), ("ci", "BIGINT"), ("sq", "INT"), ("mi", "STRING"),
      ("mp", "DECIMAL(10, 2)"), ("aq", "INT")],
     "SELECT cat, COUNT(*), COUNT(qty), SUM(qty), MIN(item), MAX(price), AVG(qty) "
     "FROM S GROUP BY cat",
     "COUNT(*) vs COUNT(col), SUM/AVG of INT (AVG stays INT), MIN of strings, a NULL group")

case("agg_avg_types", "agg", SALES,
     [("cat", "STRING"), ("ap", "DECIMAL(38, 6)"), ("sp", "DECIMAL(38, 2)"), ("ad", "DOUBLE")],
     "SELECT cat, AVG(price), SUM(price), AVG(CAST(qty AS DOUBLE)) FROM S GROUP BY cat",
     "AVG/SUM result types of DECIMAL, AVG of DOUBLE")

case("agg_having", "agg", SALES,
     [("cat", "STRING"), ("sq", "INT"), ("c", "BIGINT")],
     "SELECT cat, SUM(qty), COUNT(*) FROM S GROUP BY cat HAVING COUNT(*) > 1 AND SUM(qty) > 3",
     "HAVING: a group appears once it qualifies")

case("agg_distinct_filter", "agg", SALES,
     [("cat", "STRING"), ("di", "BIGINT"), ("dq", "INT"), ("cf", "BIGINT"),
      ("sf", "DECIMAL(38, 2)")],
     "SELECT cat, COUNT(DISTINCT item), SUM(DISTINCT qty), COUNT(*) FILTER (WHERE qty > 2), "
     "SUM(price) FILTER (WHERE item <> 'apple') FROM S GROUP BY cat",
     "DISTINCT aggregates and FILTER clauses")

case("agg_global", "agg", SALES,
     [("c", "BIGINT"), ("sq", "INT"), ("mx", "INT"), ("mn", "STRING")],
     "SELECT COUNT(*), SUM(qty), MAX(qty), MIN(cat) FROM S",
     "an aggregate without GROUP BY (one row, updated)")

case("agg_case_when", "agg", SALES,
     [("cat", "STRING"), ("big", "INT"), ("small", "INT"), ("label", "STRING")],
     "SELECT cat, SUM(CASE WHEN qty >= 3 THEN 1 ELSE 0 END), "
     "SUM(CASE WHEN qty < 3 THEN qty END), MAX(CASE WHEN price > 1 THEN 'dear' ELSE 'cheap' END) "
     "FROM S GROUP BY cat",
     "CASE inside aggregates")

case("agg_of_agg", "agg", SALES,
     [("cnt", "BIGINT"), ("cats", "BIGINT")],
     "SELECT cnt, COUNT(*) FROM (SELECT cat, COUNT(*) AS cnt FROM S GROUP BY cat) GROUP BY cnt",
     "an aggregate over an updating aggregate: retractions")

case("agg_max_retract", "agg", SALES,
     [("one", "INT"), ("mx", "BIGINT"), ("mn", "BIGINT")],
     "SELECT 1, MAX(c), MIN(c) FROM (SELECT item, COUNT(*) AS c FROM S GROUP BY item)",
     "MAX/MIN over a retracting input")

case("agg_group_by_expression", "agg", SALES,
     [("u", "STRING"), ("bucket", "INT"), ("c", "BIGINT")],
     "SELECT UPPER(COALESCE(cat, 'none')), qty / 3, COUNT(*) FROM S "
     "GROUP BY UPPER(COALESCE(cat, 'none')), qty / 3",
     "grouping by expressions (INT division)")

case("agg_union_all", "agg", SALES,
     [("cat", "STRING"), ("c", "BIGINT")],
     "SELECT cat, COUNT(*) FROM (SELECT cat FROM S UNION ALL SELECT cat FROM S WHERE qty > 3) "
     "GROUP BY cat",
     "UNION ALL under an aggregate")

case("topn_row_number", "agg", SALES,
     [("cat", "STRING"), ("item", "STRING"), ("price", "DECIMAL(10, 2)"), ("rn", "BIGINT")],
     "SELECT * FROM (SELECT cat, item, price, ROW_NUMBER() OVER (PARTITION BY cat "
     "ORDER BY price DESC) AS rn FROM S) WHERE rn <= 2",
     "Top-2 per group with the rank number")

case("topn_no_rank_number", "agg", SALES,
     [("cat", "STRING"), ("item", "STRING"), ("qty", "INT")],
     "SELECT cat, item, qty FROM (SELECT cat, item, qty, ROW_NUMBER() OVER (PARTITION BY cat "
     "ORDER BY qty ASC) AS rn FROM S) WHERE rn <= 1",
     "Top-1 without the rank number: NULL qty sorts first in Flink")

case("topn_of_aggregate", "agg", SALES,
     [("item", "STRING"), ("total", "INT")],
     "SELECT item, total FROM (SELECT item, total, ROW_NUMBER() OVER (ORDER BY total DESC) AS rn "
     "FROM (SELECT item, SUM(qty) AS total FROM S GROUP BY item)) WHERE rn <= 2",
     "global Top-2 over an updating aggregate")

case("dedup_keep_last_rowtime", "agg", SALES,
     [("item", "STRING"), ("qty", "INT"), ("t", "TIMESTAMP(3)")],
     "SELECT item, qty, CAST(t AS TIMESTAMP(3)) FROM (SELECT item, qty, t, ROW_NUMBER() OVER "
     "(PARTITION BY item ORDER BY t DESC) AS rn FROM S) WHERE rn = 1",
     "deduplicate, keep the last row by event time")

case("dedup_keep_first_rowtime", "agg", SALES,
     [("item", "STRING"), ("qty", "INT")],
     "SELECT item, qty FROM (SELECT item, qty, ROW_NUMBER() OVER "
     "(PARTITION BY item ORDER BY t ASC) AS rn FROM S) WHERE rn = 1",
     "deduplicate, keep the first row by event time")

case("window_tumble_agg", "window", SALES,
     [("ws", "TIMESTAMP(3)"), ("we", "TIMESTAMP(3)"), ("cat", "STRING"), ("sq", "INT"),
      ("c", "BIGINT"), ("md", "BIGINT")],
     "SELECT window_start, window_end, cat, SUM(qty), COUNT(*), COUNT(DISTINCT item) "
     "FROM TABLE(TUMBLE(TABLE S, DESCRIPTOR(t), INTERVAL '5' SECOND)) "
     "GROUP BY window_start, window_end, cat",
     "TUMBLE window aggregate with a NULL group and COUNT DISTINCT")

case("window_hop_having", "window", SALES,
     [("ws", "TIMESTAMP(3)"), ("we", "TIMESTAMP(3)"), ("sq", "INT")],
     "SELECT window_start, window_end, SUM(qty) "
     "FROM TABLE(HOP(TABLE S, DESCRIPTOR(t), INTERVAL '2' SECOND, INTERVAL '6' SECOND)) "
     "GROUP BY window_start, window_end HAVING SUM(qty) > 5",
     "HOP window aggregate with HAVING")

case("window_cumulate", "window", SALES,
     [("ws", "TIMESTAMP(3)"), ("we", "TIMESTAMP(3)"), ("cat", "STRING"), ("mx", "DECIMAL(10, 2)")],
     "SELECT window_start, window_end, cat, MAX(price) "
     "FROM TABLE(CUMULATE(TABLE S, DESCRIPTOR(t), INTERVAL '3' SECOND, INTERVAL '9' SECOND)) "
     "GROUP BY window_start, window_end, cat",
     "CUMULATE window aggregate")

case("window_topn", "window", SALES,
     [("ws", "TIMESTAMP(3)"), ("cat", "STRING"), ("sq", "INT"), ("rn", "BIGINT")],
     "SELECT window_start, cat, sq, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
     "window_start, window_end ORDER BY sq DESC) AS rn FROM (SELECT window_start, window_end, "
     "cat, SUM(qty) AS sq FROM TABLE(TUMBLE(TABLE S, DESCRIPTOR(t), INTERVAL '5' SECOND)) "
     "GROUP BY window_start, window_end, cat)) WHERE rn <= 1",
     "window Top-1 over a window aggregate")

case("window_session", "window", SALES,
     [("cat", "STRING"), ("ws", "TIMESTAMP(3)"), ("we", "TIMESTAMP(3)"), ("c", "BIGINT")],
     "SELECT cat, window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE S "
     "PARTITION BY cat, DESCRIPTOR(t), INTERVAL '2' SECOND)) GROUP BY cat, window_start, window_end",
     "SESSION windows per category")

case("over_rows_running", "window", SALES,
     [("k", "INT"), ("cat", "STRING"), ("s2", "INT"), ("cnt", "BIGINT")],
     "SELECT k, cat, SUM(qty) OVER w, COUNT(*) OVER w FROM S "
     "WINDOW w AS (PARTITION BY cat ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)",
     "ROWS over window (named WINDOW clause)")

case("over_range_interval", "window", SALES,
     [("k", "INT"), ("cat", "STRING"), ("mx", "DECIMAL(10, 2)"), ("av", "INT")],
     "SELECT k, cat, MAX(price) OVER (PARTITION BY cat ORDER BY t RANGE BETWEEN "
     "INTERVAL '3' SECOND PRECEDING AND CURRENT ROW), AVG(qty) OVER (PARTITION BY cat "
     "ORDER BY t RANGE BETWEEN INTERVAL '3' SECOND PRECEDING AND CURRENT ROW) FROM S",
     "RANGE over window with an interval, AVG of INT")

REGULAR = lr([[1, "a", ts(0)], [2, "b", ts(1)], [1, "c", ts(3)], [3, "d", ts(5)]],
             [[1, "x", ts(1)], [4, "y", ts(2)], [3, "z", ts(4)], [1, "q", ts(6)]])

case("regular_left_join_agg", "join", REGULAR,
     [("k", "INT"), ("c", "BIGINT"), ("cw", "BIGINT")],
     "SELECT l.k, COUNT(*), COUNT(r.w) FROM L l LEFT JOIN R r ON l.k = r.k GROUP BY l.k",
     "a regular left join (NULL padding retracted) under an aggregate")

case("regular_full_join", "join", REGULAR,
     [("lk", "INT"), ("v", "STRING"), ("rk", "INT"), ("w", "STRING")],
     "SELECT l.k, l.v, r.k, r.w FROM L l FULL JOIN R r ON l.k = r.k",
     "a regular full outer join")

case("regular_semi_anti", "join", REGULAR,
     [("k", "INT"), ("v", "STRING"), ("has", "BOOLEAN")],
     "SELECT k, v, TRUE FROM L WHERE k IN (SELECT k FROM R) UNION ALL "
     "SELECT k, v, FALSE FROM L WHERE NOT EXISTS (SELECT 1 FROM R WHERE R.k = L.k)",
     "semi (IN) and anti (NOT EXISTS) joins")

# ------------------------------------------------------------- functions typical jobs call
case("calc_string_functions", "calc", SALES,
     [("k", "INT"), ("cw", "STRING"), ("lp", "STRING"), ("rx", "STRING"), ("rp", "STRING"),
      ("ps", "INT"), ("tr", "STRING"), ("sub", "STRING"), ("ln", "INT")],
     "SELECT k, CONCAT_WS('-', cat, item), LPAD(item, 8, '*'), REGEXP_EXTRACT(item, '([aeiou]+)', 1), "
     "REPLACE(item, 'e', 'E'), POSITION('e' IN item), TRIM(BOTH 'm' FROM item), "
     "SUBSTRING(item FROM 2 FOR 3), CHAR_LENGTH(CONCAT(item, cat)) FROM S",
     "string functions: CONCAT_WS skips NULLs, CONCAT propagates them")

case("calc_conditionals", "calc", SALES,
     [("k", "INT"), ("i", "STRING"), ("nz", "INT"), ("g", "INT"), ("l", "INT"), ("d", "BOOLEAN"),
      ("b", "BOOLEAN"), ("inl", "BOOLEAN"), ("lk", "BOOLEAN")],
     "SELECT k, IF(qty > 2, 'many', 'few'), NULLIF(qty, 2), GREATEST(qty, k), LEAST(qty, 3), "
     "cat IS DISTINCT FROM 'fruit', qty BETWEEN 2 AND 4, item IN ('leek', 'kale'), "
     "item LIKE '%e%' FROM S",
     "IF, NULLIF, GREATEST/LEAST with NULLs, IS DISTINCT FROM, BETWEEN, IN, LIKE")

case("calc_time_functions", "calc", SALES,
     [("k", "INT"), ("d", "STRING"), ("h", "BIGINT"), ("diff", "INT"), ("ts", "TIMESTAMP(3)"),
      ("dt", "DATE")],
     "SELECT k, DATE_FORMAT(t, 'yyyy-MM-dd HH:mm:ss'), EXTRACT(SECOND FROM t), "
     "TIMESTAMPDIFF(SECOND, TIMESTAMP '2024-01-01 10:00:00', t), "
     "CAST(t AS TIMESTAMP(3)) + INTERVAL '90' MINUTE, CAST(t AS DATE) FROM S",
     "DATE_FORMAT, EXTRACT, TIMESTAMPDIFF, interval arithmetic, CAST to DATE")

case("agg_count_distinct_having", "agg", SALES,
     [("cat", "STRING"), ("items", "BIGINT")],
     "SELECT cat, COUNT(DISTINCT item) AS items FROM S GROUP BY cat HAVING COUNT(DISTINCT item) >= 2",
     "COUNT DISTINCT in HAVING")

case("agg_in_subquery", "agg", SALES,
     [("item", "STRING"), ("qty", "INT")],
     "SELECT item, qty FROM S WHERE cat IN (SELECT cat FROM S GROUP BY cat HAVING SUM(qty) > 10)",
     "IN over an aggregating subquery of the same table (semi join on updates)")

case("over_lag_lead", "window", SALES,
     [("k", "INT"), ("cat", "STRING"), ("prev", "INT"), ("rn", "BIGINT")],
     "SELECT k, cat, LAG(qty) OVER (PARTITION BY cat ORDER BY t), "
     "COUNT(qty) OVER (PARTITION BY cat ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
     "FROM S",
     "LAG over a rowtime-ordered window")

case("window_tumble_offset_min_max", "window", SALES,
     [("ws", "TIMESTAMP(3)"), ("we", "TIMESTAMP(3)"), ("mn", "STRING"), ("mx", "INT"),
      ("av", "DECIMAL(38, 6)")],
     "SELECT window_start, window_end, MIN(item), MAX(qty), AVG(price) "
     "FROM TABLE(TUMBLE(TABLE S, DESCRIPTOR(t), INTERVAL '4' SECOND, INTERVAL '1' SECOND)) "
     "GROUP BY window_start, window_end",
     "TUMBLE with an offset, MIN of strings, AVG of DECIMAL")

case("window_dedup", "window", SALES,
     [("ws", "TIMESTAMP(3)"), ("cat", "STRING"), ("item", "STRING")],
     "SELECT window_start, cat, item FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
     "window_start, window_end, cat ORDER BY t DESC) AS rn FROM TABLE(TUMBLE(TABLE S, "
     "DESCRIPTOR(t), INTERVAL '5' SECOND))) WHERE rn = 1",
     "window deduplicate, keep the last row")

case("interval_join_agg", "join", REGULAR,
     [("k", "INT"), ("c", "BIGINT")],
     "SELECT l.k, COUNT(*) FROM L l JOIN R r ON l.k = r.k AND "
     "l.t BETWEEN r.t - INTERVAL '3' SECOND AND r.t + INTERVAL '3' SECOND GROUP BY l.k",
     "an aggregate over an interval join")

case("regular_join_of_aggregates", "join", REGULAR,
     [("k", "INT"), ("lc", "BIGINT"), ("rc", "BIGINT")],
     "SELECT a.k, a.c, b.c FROM (SELECT k, COUNT(*) AS c FROM L GROUP BY k) a "
     "JOIN (SELECT k, COUNT(*) AS c FROM R GROUP BY k) b ON a.k = b.k",
     "a join of two updating aggregates (unique keys on both sides)")

case("over_lag", "window", SALES,
     [("k", "INT"), ("cat", "STRING"), ("prev", "INT"), ("prev2", "STRING")],
     "SELECT k, cat, LAG(qty) OVER w, LAG(item, 2, 'none') OVER w FROM S "
     "WINDOW w AS (PARTITION BY cat ORDER BY t)",
     "LAG with an offset and a default over a rowtime-ordered window")

case("over_range_unbounded", "window", SALES,
     [("k", "INT"), ("c", "BIGINT"), ("s", "INT"), ("mn", "STRING")],
     "SELECT k, COUNT(*) OVER w, SUM(qty) OVER w, MIN(item) OVER w FROM S "
     "WINDOW w AS (ORDER BY t RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
     "an unpartitioned running aggregate")

case("agg_select_distinct", "agg", SALES,
     [("cat", "STRING"), ("big", "BOOLEAN")],
     "SELECT DISTINCT cat, qty > 3 FROM S",
     "SELECT DISTINCT (a group aggregate without aggregates)")

case("agg_union_distinct", "agg", SALES,
     [("item", "STRING")],
     "SELECT item FROM S WHERE qty > 3 UNION SELECT item FROM S WHERE cat = 'veg'",
     "UNION (distinct)")

case("agg_stddev", "agg", SALES,
     [("cat", "STRING"), ("sp", "DOUBLE"), ("vs", "DOUBLE"), ("si", "INT"), ("vp", "STRING")],
     "SELECT cat, STDDEV_POP(CAST(qty AS DOUBLE)), VAR_SAMP(CAST(qty AS DOUBLE)), STDDEV(qty), "
     "CAST(VAR_POP(price) AS STRING) FROM S GROUP BY cat HAVING VARIANCE(qty) IS NULL "
     "OR VARIANCE(qty) < 100",
     "STDDEV / VARIANCE of DOUBLE, INT and DECIMAL; in HAVING (Flink 2.3 computes them with its "
     "internal $WELFORD_M2 aggregate and COUNT, as streamplan does)")

case("window_stddev", "window", SALES,
     [("ws", "TIMESTAMP(3)"), ("sd", "DOUBLE")],
     "SELECT window_start, STDDEV_SAMP(CAST(qty AS DOUBLE)) "
     "FROM TABLE(TUMBLE(TABLE S, DESCRIPTOR(t), INTERVAL '5' SECOND)) GROUP BY window_start, window_end",
     "STDDEV_SAMP in a window aggregate (refused by streamplan: WELFORD_M2 has no merge here)")

case("temporal_sort_rowtime", "window", SALES,
     [("k", "INT"), ("item", "STRING")],
     "SELECT k, item FROM S ORDER BY t",
     "ORDER BY the rowtime: a temporal sort")

case("window_hop_count_distinct", "window", SALES,
     [("ws", "TIMESTAMP(3)"), ("we", "TIMESTAMP(3)"), ("d", "BIGINT"), ("c", "BIGINT")],
     "SELECT window_start, window_end, COUNT(DISTINCT cat), COUNT(item) "
     "FROM TABLE(HOP(TABLE S, DESCRIPTOR(t), INTERVAL '3' SECOND, INTERVAL '6' SECOND)) "
     "GROUP BY window_start, window_end",
     "HOP with COUNT DISTINCT (NULL categories not counted)")

case("agg_grouping_sets", "agg", SALES,
     [("cat", "STRING"), ("item", "STRING"), ("c", "BIGINT")],
     "SELECT cat, item, COUNT(*) FROM S GROUP BY GROUPING SETS ((cat, item), (cat), ())",
     "GROUPING SETS")

case("cte_chain", "agg", SALES,
     [("cat", "STRING"), ("total", "INT"), ("label", "STRING")],
     "WITH priced AS (SELECT cat, qty, CASE WHEN price >= 2 THEN 'dear' ELSE 'cheap' END AS band "
     "FROM S WHERE qty IS NOT NULL), summed AS (SELECT cat, band, SUM(qty) AS total FROM priced "
     "GROUP BY cat, band) SELECT cat, total, band FROM summed WHERE total > 2",
     "a chain of CTEs: filter, CASE, aggregate, filter on the aggregate")

case("agg_coalesce_sum", "agg", SALES,
     [("cat", "STRING"), ("s", "INT"), ("avg_price", "DECIMAL(38, 6)")],
     "SELECT COALESCE(cat, 'other'), COALESCE(SUM(qty), 0), AVG(COALESCE(price, 0)) FROM S "
     "GROUP BY COALESCE(cat, 'other')",
     "COALESCE around and inside aggregates, grouping by an expression")

case("regular_non_equi_join", "join", REGULAR,
     [("lk", "INT"), ("v", "STRING"), ("w", "STRING")],
     "SELECT l.k, l.v, r.w FROM L l JOIN R r ON l.k = r.k AND l.v < r.w",
     "a regular inner join with a non-equi condition")

case("regular_left_anti_pattern", "join", REGULAR,
     [("k", "INT"), ("v", "STRING")],
     "SELECT l.k, l.v FROM L l LEFT JOIN R r ON l.k = r.k WHERE r.k IS NULL",
     "LEFT JOIN ... WHERE right IS NULL: rows retracted when a match arrives")

case("regular_not_in_nulls", "join",
     lr([[1, "a", ts(0)], [2, "b", ts(1)], [None, "c", ts(2)], [4, "d", ts(3)]],
        [[1, "x", ts(0)], [3, "y", ts(1)], [None, "z", ts(2)], [5, "w", ts(3)]]),
     [("k", "INT"), ("v", "STRING")],
     "SELECT k, v FROM L WHERE k NOT IN (SELECT k FROM R)",
     "NOT IN with a NULL in the subquery: three-valued, nothing passes once the NULL arrives")

case("window_agg_filter_on_end", "window", SALES,
     [("we", "TIMESTAMP(3)"), ("cat", "STRING"), ("c", "BIGINT")],
     "SELECT window_end, UPPER(cat), COUNT(*) FROM TABLE(TUMBLE(TABLE S, DESCRIPTOR(t), "
     "INTERVAL '5' SECOND)) WHERE qty > 1 GROUP BY window_start, window_end, UPPER(cat) "
     "HAVING COUNT(*) >= 1",
     "a window aggregate with WHERE, an expression key and HAVING")

case("over_lag_rows_program", "window",
     {"T": {"columns": [("k", "STRING"), ("v", "INT"), ("t", "TIMESTAMP(3)")],
            "rows": [["a", 1, ts(1)], ["b", 2, ts(2)], ["a", None, ts(3)], ["a", 4, ts(4)],
                     ["a", 5, ts(6)], ["b", 6, ts(7)], ["a", 7, ts(8)]]}},
     [("k", "STRING"), ("v", "INT"), ("p1", "INT"), ("p2", "INT"), ("c", "BIGINT")],
     "SELECT k, v, LAG(v) OVER w, LAG(v, 2, -1) OVER w, COUNT(*) OVER w FROM T "
     "WINDOW w AS (PARTITION BY k ORDER BY t)",
     "the rows of program over-aggregate-lag: LAG with NULL values, an offset and a default")

case("over_lag_same_row_time", "window",
     {"T": {"columns": [("k", "STRING"), ("v", "INT"), ("t", "TIMESTAMP(3)")],
            "rows": [["a", 1, ts(1)], ["a", 2, ts(2)], ["a", 3, ts(2)], ["a", 4, ts(3)]]}},
     [("k", "STRING"), ("v", "INT"), ("p1", "INT"), ("c", "BIGINT")],
     "SELECT k, v, LAG(v) OVER w, COUNT(*) OVER w FROM T WINDOW w AS (PARTITION BY k ORDER BY t)",
     "LAG and COUNT of rows of one row time (RANGE: one value for both)")

case("over_lag_framed", "window", SALES,
     [("k", "INT"), ("p", "INT")],
     "SELECT k, LAG(qty) OVER (PARTITION BY cat ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING "
     "AND CURRENT ROW) FROM S",
     "LAG with a frame: Calcite refuses it (LAG allows no framing)")
