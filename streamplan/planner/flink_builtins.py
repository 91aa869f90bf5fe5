"""Flink built-in functions that Spark spells differently, rewritten into Spark's equivalent
before an expression goes into a plan (the plan holds Spark SQL; the loader's allow-list
holds what these rewrites produce). Each rewrite keeps Flink's result for every input,
NULLs and out-of-range arguments included; each is checked against Flink 2.3 by a program
(programs/calc.py, `calc-flink-builtins`)."""
from __future__ import annotations

from typing import Optional

from sqlglot import exp
from sqlglot.dialects.spark import Spark

from ..errors import UnsupportedSqlError
from ..types import RowType

# FLOOR / CEIL (ts TO unit): the units where Spark's date_trunc truncates as Flink does.
# WEEK is left out: Flink's week starts on Sunday (Calcite), Spark's on Monday.
_TRUNCATED_UNITS = ("YEAR", "QUARTER", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND")


def spark_builtins(expression: exp.Expression, where: str,
                   input_row: Optional[RowType] = None) -> exp.Expression:
    """`expression` (over `input_row`'s columns) with every Flink-only built-in replaced by
    Spark's equivalent; a call these rewrites cannot keep Flink's result for is refused,
    naming `where`."""
    def rewrite(node: exp.Expression) -> exp.Expression:
        if input_row is not None and isinstance(node, (exp.Cast, exp.TryCast)):
            new = _boolean_string(_timestamp_string(node, input_row), input_row)
            if new is not node:
                return new
        if isinstance(node, exp.Anonymous) and node.name.upper() == "TO_TIMESTAMP_LTZ":
            return _to_timestamp_ltz(node, input_row)
        if isinstance(node, exp.Bracket) and _map_subscript(node, input_row):
            return node     # a key lookup: Spark's, as Flink's, is NULL for a missing key
        return _rewrite(node)

    root = expression.copy()
    try:
        # children before their parents, so a call nested in another's argument is rewritten
        # too (a rewrite copies its arguments into the call it builds)
        for node in reversed(list(root.walk())):
            parent, key, index = node.parent, node.arg_key, node.index   # before a rewrite
            new = rewrite(node)                                         # re-parents node
            if new is node:
                continue
            if node is root:
                root = new
            else:
                parent.set(key, new, index)
    except _Refused as refused:
        raise UnsupportedSqlError(f"{refused} at {where}") from None
    return root


def _boolean_string(node: exp.Expression, input_row: RowType) -> exp.Expression:
    """CAST(b AS STRING) of a BOOLEAN: Flink prints TRUE / FALSE, Spark true / false. A
    BOOLEAN is a predicate or a BOOLEAN column (other expressions' types are not known
    here: left to Spark)."""
    if not isinstance(node, (exp.Cast, exp.TryCast)) or not _is_text(node.to):
        return node
    value = node.this
    if isinstance(value, exp.Paren):
        value = value.this
    is_boolean = isinstance(value, (exp.Predicate, exp.And, exp.Or, exp.Not, exp.Boolean,
                                    exp.Escape)) or _is_cast_to(value, exp.DataType.Type.BOOLEAN) or (
        isinstance(value, exp.Anonymous)
        and value.name.upper() in ("REGEXP", *_CHARACTER_TESTS)) or (
        isinstance(value, exp.Coalesce) and value.expressions     # IS_DIGIT(s) ... rewritten
        and isinstance(value.expressions[-1], exp.Boolean)) or (
        isinstance(value, exp.Column) and value.name in input_row.names
        and input_row.fields[input_row.names.index(value.name)].type.name == "BOOLEAN")
    if not is_boolean:
        return node
    return exp.Case(ifs=[exp.If(this=value.copy(), true=exp.Literal.string("TRUE")),
                         exp.If(this=exp.Not(this=exp.Paren(this=value.copy())),
                                true=exp.Literal.string("FALSE"))])


def _is_text(to: exp.DataType) -> bool:
    return to.this in (exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR) and not to.expressions


def _timestamp_string(node: exp.Cast, input_row: RowType) -> exp.Expression:
    """CAST(ts AS STRING) of a TIMESTAMP(p) or TIMESTAMP_LTZ(p) column: Flink prints p
    fractional digits ('10:00:02.000'), Spark drops trailing zeros ('10:00:02'); the column's
    declared precision (a computed value's is not known here: left to Spark) picks the
    pattern."""
    if node.to.this not in (exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR) \
            or node.to.expressions:
        return node
    precision = _timestamp_precision(node.this, input_row)
    if precision is None or precision > 6:          # Spark keeps microseconds
        return node
    pattern = "yyyy-MM-dd HH:mm:ss" + ("." + "S" * precision if precision else "")
    return exp.Anonymous(this="DATE_FORMAT",
                         expressions=[node.this.copy(), exp.Literal.string(pattern)])


def _timestamp_precision(node: exp.Expression, input_row: RowType) -> Optional[int]:
    """The precision of a timestamp value when it is known here: a TIMESTAMP(p) or
    TIMESTAMP_LTZ(p) column's declared one; a cast's (TIMESTAMP is TIMESTAMP(6)); a literal's
    digits; 3 for TO_TIMESTAMP(s[, format]) and TO_TIMESTAMP_LTZ(numeric, precision)
    (rewritten to Spark's TIMESTAMP_MILLIS); that of the timestamp under `± INTERVAL`,
    FLOOR / CEIL (... TO unit) and TIMESTAMPADD; None otherwise."""
    if isinstance(node, exp.Anonymous) and node.name.upper() == _EPOCH_MILLIS:
        return 3
    if isinstance(node, (exp.Add, exp.Sub)) and isinstance(node.expression, exp.Interval):
        return _timestamp_precision(node.this, input_row)        # ts +/- INTERVAL ...
    if isinstance(node, (exp.TimestampTrunc, exp.TimestampAdd)):   # FLOOR(ts TO unit),
        return _timestamp_precision(node.this, input_row)         # TIMESTAMPADD(unit, n, ts)
    if isinstance(node, exp.Cast) and node.to.this == exp.DataType.Type.TIMESTAMP \
            and not node.to.expressions:                           # TO_TIMESTAMP(s)
        return 3
    if isinstance(node, exp.Cast) and node.to.this in (exp.DataType.Type.TIMESTAMPTZ,
                                                       exp.DataType.Type.TIMESTAMPLTZ):
        params = node.to.expressions
        if params:
            return int(params[0].this.this)
        if isinstance(node, exp.TryCast):
            return 6              # CAST(x AS TIMESTAMP) as the parser reads it: TIMESTAMP(6)
        if isinstance(node.this, exp.Literal) and node.this.is_string:
            # a literal TIMESTAMP '...' has as many fractional digits as it is written with
            _, dot, fraction = node.this.this.partition(".")
            return len(fraction.strip()) if dot else 0
        return None
    if isinstance(node, exp.Coalesce) and isinstance(node.this, exp.Anonymous) \
            and node.this.name.upper() == "TRY_TO_TIMESTAMP":      # TO_TIMESTAMP(s, format)
        return 3
    if not isinstance(node, exp.Column) or node.name not in input_row.names:
        return None
    sql_type = input_row.field(node.name).type
    if sql_type.name not in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return None
    return sql_type.params[0] if sql_type.params else 6


class _Refused(Exception):
    """A call no rewrite can express (message: the construct as written)."""


def _rewrite(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Cast) and node.to.this in (exp.DataType.Type.TIME,
                                                       exp.DataType.Type.TIMETZ):
        # Spark has no TIME type: its SQL would cast to a TIMESTAMP, keeping the date
        raise _Refused("CAST(... AS TIME) (Spark has no TIME type; DATE_FORMAT(ts, "
                       "'HH:mm:ss') gives the time of day as text)")
    if isinstance(node, exp.Cast) and node.to.this in _SIZED_TEXT and node.to.expressions:
        return _sized_text(node)
    if isinstance(node, (exp.Floor, exp.Ceil)) and node.args.get("to") is not None:
        return _floor_or_ceil_to(node)
    if isinstance(node, exp.Extract) and not _is_cast_to(node.parent, exp.DataType.Type.BIGINT):
        # Flink's EXTRACT gives a BIGINT, SECOND the whole seconds; Spark's an INT, SECOND
        # a DECIMAL(8, 6) with the fraction: the cast truncates it
        return exp.Cast(this=node, to=exp.DataType.build("BIGINT"))
    if isinstance(node, (exp.Greatest, exp.Least)) and not _null_guarded(node):
        # Flink's GREATEST / LEAST are NULL when any argument is; Spark's skip NULLs
        arguments = [node.this, *node.expressions]
        any_null = exp.or_(*(exp.Is(this=argument.copy(), expression=exp.Null())
                             for argument in arguments))
        return exp.Case(ifs=[exp.If(this=any_null, true=exp.Null())], default=node.copy())
    if isinstance(node, exp.TimestampDiff) and not _is_cast_to(node.parent, exp.DataType.Type.INT):
        # Flink's TIMESTAMPDIFF gives an INT, Spark's a BIGINT
        return exp.Cast(this=node, to=exp.DataType.build("INT"))
    if isinstance(node, exp.Week):
        # WEEK(d): the ISO-8601 week of the year, Spark's weekofyear
        return exp.WeekOfYear(this=node.this)
    if isinstance(node, exp.Anonymous) and node.name.upper() == "SPLIT_INDEX":
        return _split_index(node)
    if isinstance(node, exp.StrToTime):
        return _to_timestamp_with_format(node)
    if isinstance(node, exp.TsOrDsToDate) and node.args.get("format") is None:
        # TO_DATE(s): Flink's parseDate gives NULL for text it cannot read; Spark's TO_DATE
        # fails the query (ANSI)
        return exp.TryCast(this=node.this.copy(), to=exp.DataType.build("DATE"), safe=True)
    if isinstance(node, exp.RegexpExtract) and not _guarded_extract(node):
        # Flink's REGEXP_EXTRACT is NULL when the regex does not match (Spark's gives '')
        return exp.Case(ifs=[exp.If(this=exp.RegexpLike(this=node.this.copy(),
                                                        expression=node.expression.copy()),
                                    true=node.copy())])
    if isinstance(node, (exp.Ln, exp.Log)) and not _is_case_default(node):
        return _logarithm(node)
    if isinstance(node, exp.Trunc) and node.args.get("decimals") is not None:
        raise _Refused("TRUNCATE(x, n) with a number of decimals (Spark has no numeric "
                       "truncation to a number of decimals)")
    if isinstance(node, exp.Div) and _is_integer_literal(node.expression):
        # Flink types an integer literal as INT (DECIMAL(10, 0) in decimal division, whose
        # scale is max(6, s1 + p2 + 1)); Spark as DECIMAL(1, 0) for 3: m / 3 would keep
        # fewer digits than Flink's
        divisor = node.expression
        new = node.copy()
        new.set("expression", exp.Cast(this=divisor.copy(), to=exp.DataType.build(
            "INT" if abs(int(divisor.this)) <= 2**31 - 1 else "BIGINT")))
        return new
    if isinstance(node, exp.RegexpReplace) and not _quoted_replacement(node):
        return _literal_replacement(node)
    if isinstance(node, (exp.TimeToStr, exp.StrToTime, exp.StrToUnix, exp.UnixToStr)):
        _check_pattern(node)
    if isinstance(node, exp.RegexpSplit) and node.args.get("limit") is None:
        return _split(node)
    if isinstance(node, exp.Bracket) and node.args.get("offset") != 1 and \
            not isinstance(node.this, _MAPS):
        return _array_element(node)
    if isinstance(node, (exp.Like, exp.ILike)) and not isinstance(node.parent, exp.Escape) \
            and not _backslash_free(node.expression):
        return _like_without_escape(node)
    if isinstance(node, exp.SimilarTo) and not isinstance(node.parent, exp.Escape):
        return _similar_to(node, None)
    if isinstance(node, exp.Escape) and isinstance(node.this, exp.SimilarTo):
        return _similar_to(node.this, node.expression)
    if isinstance(node, exp.Anonymous) and node.name.upper() in _CHARACTER_TESTS:
        return _character_test(node)
    if isinstance(node, exp.Initcap):
        return _initcap(node)
    if isinstance(node, exp.Anonymous) and node.name.upper() in _JSON_FUNCTIONS:
        _check_json_call(node)
    if isinstance(node, exp.Anonymous) and node.name.upper() in _SHA_BITS:
        # Flink's SHA224 / SHA256 / SHA384 / SHA512: Spark's SHA2 of that many bits (hex)
        if len(node.expressions) != 1:
            raise _Refused(f"{node.name.upper()} with {len(node.expressions)} arguments (it "
                           f"takes one)")
        (argument,) = node.expressions
        return exp.SHA2(this=argument.copy(),
                        length=exp.Literal.number(_SHA_BITS[node.name.upper()]))
    return node


_JSON_FUNCTIONS = ("JSON_VALUE", "JSON_QUERY", "JSON_EXISTS")
_CHARACTER_TESTS = ("IS_DIGIT", "IS_ALPHA", "IS_DECIMAL")
# Java's char-wise tests (Character.isDigit / isLetter) see a supplementary character as two
# surrogates, neither a digit nor a letter: the classes keep to the Basic Multilingual Plane.
_BMP_DIGITS = "[\\p{Nd}&&[\\x{0}-\\x{FFFF}]]"
_BMP_LETTERS = "[\\p{L}&&[\\x{0}-\\x{FFFF}]]"
# Java's Double.valueOf grammar (its Javadoc's regular expression): what Double.parseDouble
# reads, ASCII digits only, surrounding characters up to a space trimmed.
_JAVA_DOUBLE = ("\\A[\\x00-\\x20]*[+-]?(NaN|Infinity|((([0-9]+)(\\.)?([0-9]*)([eE][+-]?[0-9]+)?)"
                "|(\\.([0-9]+)([eE][+-]?[0-9]+)?)|((0[xX][0-9a-fA-F]+(\\.)?|0[xX][0-9a-fA-F]*"
                "\\.[0-9a-fA-F]+)[pP][+-]?[0-9]+))[fFdD]?)[\\x00-\\x20]*\\z")
# The zero of each run of ten decimal digits (Unicode category Nd) in the Basic Multilingual
# Plane, as Java 17 has them (Unicode 13); ASCII's first.
_DIGIT_ZEROS = (0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66,
                0xCE6, 0xD66, 0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810,
                0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0,
                0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10)


def _character_test(node: exp.Anonymous) -> exp.Expression:
    """Flink's IS_DIGIT / IS_ALPHA / IS_DECIMAL of a string (SqlFunctionUtils): FALSE for NULL
    and for ''; IS_DIGIT: every char a decimal digit (Character.isDigit: Unicode's, '١٢٣'
    too); IS_ALPHA: every char a letter (Character.isLetter: 'éLan', 'ＡＢＣ'); IS_DECIMAL:
    Integer.parseInt, Long.parseLong or Double.parseDouble reads it: Unicode digits with an
    optional sign within the range of a BIGINT, or Java's floating-point text ('1e5', ' 12',
    '.5', 'NaN', '0x1p3', '1d'; ASCII digits only)."""
    name = node.name.upper()
    if len(node.expressions) != 1:
        raise _Refused(f"{name} with {len(node.expressions)} arguments (it takes one)")
    (text,) = node.expressions

    def matches(pattern: str, value: exp.Expression = text) -> exp.Expression:
        return exp.RegexpLike(this=value.copy(), expression=exp.Literal.string(pattern))

    if name == "IS_DIGIT":
        test = matches(f"\\A{_BMP_DIGITS}+\\z")
    elif name == "IS_ALPHA":
        test = matches(f"\\A{_BMP_LETTERS}+\\z")
    else:
        # a sign and decimal digits of any script, as Long.parseLong reads them (ASCII ones
        # are floating-point text too): Spark's BIGINT cast of them made ASCII takes the range
        other = "".join(chr(zero + digit) for zero in _DIGIT_ZEROS[1:] for digit in range(10))
        ascii_digits = exp.Translate(this=text.copy(), from_=exp.Literal.string(other),
                                     to=exp.Literal.string("0123456789" * (len(other) // 10)))
        in_range = exp.Not(this=exp.Is(this=exp.TryCast(
            this=ascii_digits, to=exp.DataType.build("BIGINT"), safe=True), expression=exp.Null()))
        integral = exp.And(this=matches(f"\\A[+-]?{_BMP_DIGITS}+\\z"), expression=in_range)
        test = exp.Or(this=matches(_JAVA_DOUBLE), expression=exp.Paren(this=integral))
    return exp.Coalesce(this=test, expressions=[exp.false()])


_ASCII_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _initcap(node: exp.Initcap) -> exp.Expression:
    """Flink's INITCAP (Calcite's SqlFunctions.initcap): the ASCII letters of each run of ASCII
    letters and digits lower case, its first upper case when it is a letter; every other
    character (a space, '-', '_', 'é', a digit of another script) ends a run and is kept as it
    is ('hello-world_foo' is 'Hello-World_Foo', 'éLAN' 'éLan'). Spark's capitalizes after spaces
    only and changes letters of every script. The text lower-cased in ASCII (TRANSLATE), then
    each letter upper-cased where no ASCII letter or digit precedes it."""
    delimiters = node.args.get("expression")
    if delimiters is not None and not (isinstance(delimiters, exp.Literal)
                                       and delimiters.this == " "):
        raise _Refused("INITCAP with delimiters (Flink's INITCAP takes one argument)")
    text: exp.Expression = exp.Translate(this=node.this.copy(),
                                         from_=exp.Literal.string(_ASCII_UPPER),
                                         to=exp.Literal.string(_ASCII_UPPER.lower()))
    for letter in _ASCII_UPPER.lower():
        text = exp.RegexpReplace(this=text, expression=exp.Literal.string(
            f"(?<![A-Za-z0-9]){letter}"), replacement=exp.Literal.string(letter.upper()))
    return text
_SIZED_TEXT = (exp.DataType.Type.CHAR, exp.DataType.Type.VARCHAR)


def _sized_text(node: exp.Cast) -> exp.Expression:
    """CAST(x AS VARCHAR(n)) truncates the text to n characters and CAST(x AS CHAR(n)) also pads
    it with spaces to n, as Flink's casts do; Spark's cast ignores the length."""
    length = exp.Literal.number(int(node.to.expressions[0].this.this))
    text = exp.Cast(this=node.this.copy(), to=exp.DataType.build("STRING"))
    if node.to.this == exp.DataType.Type.VARCHAR:
        return exp.Substring(this=text, start=exp.Literal.number(1), length=length)
    return exp.Pad(this=text, expression=length, fill_pattern=exp.Literal.string(" "),
                   is_left=False)


def _backslash_free(pattern: exp.Expression) -> bool:
    return isinstance(pattern, exp.Literal) and pattern.is_string and "\\" not in pattern.this


def _like_without_escape(node: exp.Like | exp.ILike) -> exp.Expression:
    """A LIKE without ESCAPE: Flink's has no escape character, Spark's is a backslash. Each
    backslash of the pattern is doubled, so Spark matches it as itself (a literal pattern is
    doubled here, another through REPLACE)."""
    pattern = node.expression
    new = node.copy()
    if isinstance(pattern, exp.Literal) and pattern.is_string:
        new.set("expression", exp.Literal.string(pattern.this.replace("\\", "\\\\")))
    else:
        new.set("expression", exp.Anonymous(this="REPLACE", expressions=[
            pattern.copy(), exp.Literal.string("\\"), exp.Literal.string("\\\\")]))
    return new


def _check_json_call(node: exp.Anonymous) -> None:
    """JSON_VALUE / JSON_QUERY / JSON_EXISTS run as Python functions
    (streamplan/functions/builtins.py) with Flink's defaults: two arguments, the path a string
    literal of the steps they read."""
    from ..functions.builtins import json_path_steps

    name = node.name.upper()
    if len(node.expressions) != 2:
        raise _Refused(f"{name} with {len(node.expressions)} arguments (the JSON text and a "
                       f"path; RETURNING and ON EMPTY / ON ERROR clauses are not supported)")
    path = node.expressions[1]
    if not (isinstance(path, exp.Literal) and path.is_string
            and json_path_steps(path.this) is not None):
        raise _Refused(f"{name} with the path {path.sql(dialect='spark')[:60]} (a string "
                       f"literal of '$', '.key', \"['key']\" and '[n]' steps is supported)")


def _to_timestamp_with_format(node: exp.StrToTime) -> exp.Expression:
    """Flink's TO_TIMESTAMP(string, format) (DateTimeUtils.parseTimestampData): the string
    parsed with the pattern, else, as Flink falls back, read as a JDBC timestamp or date
    ('1999-9-10 05:20:10', '1999-9-10'), else NULL; never an error. Spark's TRY_TO_TIMESTAMP
    with the same pattern, then TRY_CAST of the trimmed text."""
    text = _SPARK.generator().format_time(node) if isinstance(node.args.get("format"),
                                                             exp.Literal) else None
    if text is None or len(text) < 2 or "'" in text[1:-1]:
        raise _Refused("TO_TIMESTAMP(string, format) with a format that is not a string "
                       "literal or that quotes literal text such as 'T' (TO_TIMESTAMP(string) "
                       "reads ISO text without a format)")
    pattern = exp.Literal.string(text[1:-1])
    parsed = exp.Anonymous(this="TRY_TO_TIMESTAMP", expressions=[node.this.copy(), pattern])
    fallback = exp.TryCast(this=exp.Trim(this=node.this.copy()),
                           to=exp.DataType.build("TIMESTAMP"), safe=True)
    return exp.Coalesce(this=parsed, expressions=[fallback])


_SPARK = Spark()
_SHA_BITS = {"SHA224": 224, "SHA256": 256, "SHA384": 384, "SHA512": 512}
_EPOCH_MILLIS = "TIMESTAMP_MILLIS"
_NUMERIC = ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL")


def _to_timestamp_ltz(node: exp.Anonymous, input_row: Optional[RowType]) -> exp.Expression:
    """Flink's TO_TIMESTAMP_LTZ(numeric[, precision]): epoch seconds (precision 0) or epoch
    milliseconds (3, also without a precision) as a TIMESTAMP_LTZ(3), floored to the
    millisecond as Flink floors (-2.0015 s is 23:59:57.998); Spark's TIMESTAMP_MILLIS of the
    floored milliseconds (NULL in, NULL out). TO_TIMESTAMP_LTZ(string[, format]) parses text,
    as Spark's to_timestamp_ltz does: left as it is."""
    arguments = node.expressions
    if not arguments or len(arguments) > 2:
        return node
    if len(arguments) == 2:
        if not (isinstance(arguments[1], exp.Literal) and not arguments[1].is_string):
            return node                                   # (string, format)
        precision = arguments[1].this
    elif _string_typed(arguments[0], input_row):
        return node                                       # (string)
    else:
        precision = "3"
    if precision not in ("0", "3"):
        raise _Refused(f"TO_TIMESTAMP_LTZ with precision {precision}: the precision value "
                       f"'{precision}' for function TO_TIMESTAMP_LTZ(numeric, precision) is "
                       f"unsupported, the supported value is '0' for second or '3' for "
                       f"millisecond (Flink's message)")
    value = arguments[0].copy()
    millis = value if precision == "3" else exp.Mul(this=value, expression=exp.Literal.number(1000))
    return exp.Anonymous(this=_EPOCH_MILLIS, expressions=[
        exp.Cast(this=exp.Floor(this=millis), to=exp.DataType.build("BIGINT"))])


def _string_typed(node: exp.Expression, input_row: Optional[RowType]) -> bool:
    """Whether TO_TIMESTAMP_LTZ's one argument is text (parsed) rather than a number (epoch
    milliseconds); an argument whose type is not known here is refused, as the two read it
    differently."""
    if isinstance(node, exp.Literal):
        return node.is_string
    if isinstance(node, exp.Column) and input_row is not None and node.name in input_row.names:
        type_name = input_row.field(node.name).type.name
        if type_name in _NUMERIC:
            return False
        if type_name in ("STRING", "VARCHAR", "CHAR"):
            return True
    raise _Refused("TO_TIMESTAMP_LTZ of one argument whose type is not known here (a number "
                   "is epoch milliseconds, a string is parsed): give the precision, "
                   "TO_TIMESTAMP_LTZ(x, 3), or CAST the argument to STRING")


def _null_guarded(node: exp.Expression) -> bool:
    """Whether `node` already is the ELSE of the guard the GREATEST / LEAST rewrite builds."""
    guard = node.parent
    return (isinstance(guard, exp.Case) and node.arg_key == "default"
            and len(guard.args.get("ifs") or []) == 1
            and isinstance(guard.args["ifs"][0].args.get("true"), exp.Null))


def _is_cast_to(node: Optional[exp.Expression], type_: exp.DataType.Type) -> bool:
    return isinstance(node, exp.Cast) and node.to.this == type_


def _floor_or_ceil_to(node: exp.Floor | exp.Ceil) -> exp.Expression:
    """FLOOR(ts TO unit) is date_trunc(unit, ts); CEIL(ts TO unit) is the truncation, one unit
    later unless ts already sits on it."""
    unit = node.args["to"].name.upper()
    name = "FLOOR" if isinstance(node, exp.Floor) else "CEIL"
    if unit not in _TRUNCATED_UNITS:
        raise _Refused(f"{name}(... TO {unit}) (supported units: {', '.join(_TRUNCATED_UNITS)})")
    value = node.this
    floor = exp.TimestampTrunc(this=value.copy(), unit=exp.Literal.string(unit))
    if isinstance(node, exp.Floor):
        return floor
    later = exp.TimestampAdd(this=floor.copy(), expression=exp.Literal.number(1),
                             unit=exp.var(unit))
    return exp.Case(ifs=[exp.If(this=exp.EQ(this=floor, expression=value.copy()),
                                true=floor.copy())], default=later)


_MAPS = (exp.StrToMap, exp.VarMap, exp.Map)


def _is_integer_literal(node: exp.Expression) -> bool:
    return isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit() \
        and len(node.this) <= 18


_WEEK_LETTERS = frozenset("wWuec")


def _check_pattern(node: exp.Expression) -> None:
    """A datetime pattern with a week-based letter (w, W, u, e, c) outside quotes: Flink
    formats with it, Spark 3+ fails the running query (DATETIME_PATTERN_RECOGNITION), so it is
    refused while planning."""
    if not isinstance(node.args.get("format"), exp.Literal):
        return
    text, quoted = _SPARK.generator().format_time(node) or "", False
    for char in text.strip("'"):
        if char == "'":
            quoted = not quoted
        elif not quoted and char in _WEEK_LETTERS:
            raise _Refused(f"the datetime pattern letter '{char}' (week-based: Spark does not "
                           f"format or parse it)")


def _quoted_replacement(node: exp.RegexpReplace) -> bool:
    """Whether the replacement is already literal for Java's replaceAll (rewritten before)."""
    replacement = node.args.get("replacement")
    if isinstance(replacement, exp.Literal):
        text = replacement.this
        return "$" not in text.replace("\\$", "") and "\\" not in text.replace("\\$", "").replace(
            "\\\\", "")
    return isinstance(replacement, exp.Replace) and isinstance(replacement.this, exp.Replace)


def _literal_replacement(node: exp.RegexpReplace) -> exp.Expression:
    """Flink's REGEXP_REPLACE takes the replacement literally ('$1' is the text $1); Spark's
    (Java's replaceAll) reads $n and backslashes: they are escaped."""
    replacement = node.args.get("replacement")
    if replacement is None:
        return node
    if isinstance(replacement, exp.Literal) and replacement.is_string:
        escaped = exp.Literal.string(replacement.this.replace("\\", "\\\\").replace("$", "\\$"))
    else:
        escaped = exp.Replace(this=exp.Replace(this=replacement.copy(),
                                               expression=exp.Literal.string("\\"),
                                               replacement=exp.Literal.string("\\\\")),
                              expression=exp.Literal.string("$"),
                              replacement=exp.Literal.string("\\$"))
    new = node.copy()
    new.set("replacement", escaped)
    return new


def _is_case_default(node: exp.Expression) -> bool:
    return isinstance(node.parent, exp.Case) and node.arg_key == "default"


def _logarithm(node: exp.Expression) -> exp.Expression:
    """LN / LOG / LOG10 / LOG2 of a value at or below 0: Flink's (Java's Math.log) -Infinity
    for 0 and NaN below; Spark's are NULL. LOG(base, x) with a base that is not a literal above
    1 is left to Spark."""
    if isinstance(node, exp.Log):
        base, value = node.this, node.expression
        if value is None or not (isinstance(base, exp.Literal) and not base.is_string
                                 and float(base.this) > 1):
            return node
    else:
        value = node.this

    def double(text: str) -> exp.Expression:
        return exp.Cast(this=exp.Literal.string(text), to=exp.DataType.build("DOUBLE"))

    return exp.Case(ifs=[exp.If(this=exp.LT(this=value.copy(), expression=exp.Literal.number(0)),
                                true=double("NaN")),
                         exp.If(this=exp.EQ(this=value.copy(), expression=exp.Literal.number(0)),
                                true=double("-Infinity"))],
                    default=node.copy())


def _guarded_extract(node: exp.RegexpExtract) -> bool:
    """Whether the call is already the value of `CASE WHEN str RLIKE regex THEN ... END`."""
    branch = node.parent
    return (isinstance(branch, exp.If) and node.arg_key == "true"
            and isinstance(branch.this, exp.RegexpLike)
            and branch.this.this == node.this and branch.this.expression == node.expression)


def _quoted(separator: str) -> exp.Literal:
    """A literal separator as the Java regular expression Spark splits at: \\Q...\\E."""
    return exp.Literal.string("\\Q" + separator.replace("\\E", "\\E\\\\E\\Q") + "\\E")


def _split(node: exp.RegexpSplit) -> exp.Expression:
    """Flink's SPLIT(str, delimiter): the pieces of str at every occurrence of the delimiter
    taken literally, empty pieces kept (trailing ones too), an empty array for an empty str;
    Spark's SPLIT takes a regular expression and gives [''] for ''."""
    text, separator = node.this, node.expression
    if not (isinstance(separator, exp.Literal) and separator.is_string and separator.this):
        raise _Refused("SPLIT with a delimiter that is not a non-empty string literal")
    pieces = exp.RegexpSplit(this=text.copy(), expression=_quoted(separator.this),
                             limit=exp.Literal.number(-1))
    return exp.Case(ifs=[exp.If(this=exp.EQ(this=text.copy(), expression=exp.Literal.string("")),
                                true=exp.ArrayRemove(this=pieces.copy(),
                                                     expression=exp.Literal.string("")))],
                    default=pieces)


def _map_subscript(node: exp.Bracket, input_row: Optional[RowType]) -> bool:
    """Whether `node` looks a key up in a MAP: a MAP column (or a MAP field of a ROW column)
    of `input_row`, or a text key (an ARRAY's index is a number)."""
    (key,) = node.expressions if len(node.expressions) == 1 else (None,)
    if isinstance(key, exp.Literal) and key.is_string:
        return True
    path: list[str] = []
    target = node.this
    while isinstance(target, exp.Dot) and isinstance(target.expression, exp.Identifier):
        path.insert(0, target.expression.name)
        target = target.this
    if input_row is None or not isinstance(target, exp.Column) or target.name not in input_row.names:
        return False
    sql_type = input_row.field(target.name).type
    for name in path:
        fields = dict(sql_type.children) if sql_type.name == "ROW" else {}
        if name not in fields:
            return False
        sql_type = fields[name]
    return sql_type.name == "MAP"


def _array_element(node: exp.Bracket) -> exp.Expression:
    """An array subscript arr[i]: Flink's arrays start at 1 (Spark's [] at 0), and an index
    past the end is NULL: Spark's TRY_ELEMENT_AT, and NULL for an index below 1 (Flink refuses
    a literal one)."""
    if len(node.expressions) != 1:
        return node
    (index,) = node.expressions
    element = exp.Bracket(this=node.this.copy(), expressions=[index.copy()], offset=1, safe=True)
    if isinstance(index, exp.Literal) and not index.is_string:
        if int(index.this) < 1:
            raise _Refused(f"an array index of {index.this} (Flink's arrays start at 1)")
        return element
    return exp.Case(ifs=[exp.If(this=exp.GTE(this=index.copy(), expression=exp.Literal.number(1)),
                                true=element)])


def _split_index(node: exp.Anonymous) -> exp.Expression:
    """Flink's SPLIT_INDEX(str, separator, index): the index-th (from 0) piece of str split at
    every occurrence of the separator taken literally (StringUtils
    .splitByWholeSeparatorPreserveAllTokens, so empty pieces count); NULL when the index is
    negative or past the last piece, for an empty str (no pieces) and for any NULL argument."""
    if len(node.expressions) != 3:
        raise _Refused(f"SPLIT_INDEX with {len(node.expressions)} arguments (it takes str, "
                       f"separator, index)")
    text, separator, index = (arg.copy() for arg in node.expressions)
    if not (isinstance(separator, exp.Literal) and separator.is_string and separator.this):
        raise _Refused("SPLIT_INDEX with a separator that is not a non-empty string literal")
    pieces = exp.RegexpSplit(this=text.copy(), expression=_quoted(separator.this),
                             limit=exp.Literal.number(-1))
    piece = exp.Anonymous(this="TRY_ELEMENT_AT",
                          expressions=[pieces, exp.Add(this=index.copy(),
                                                       expression=exp.Literal.number(1))])
    return exp.Case(ifs=[exp.If(this=exp.Or(this=exp.LT(this=index, expression=exp.Literal.number(0)),
                                            expression=exp.EQ(this=text,
                                                              expression=exp.Literal.string(""))),
                                true=exp.Null())], default=piece)


# Flink's SqlLikeUtils (copied from Calcite): SIMILAR TO's pattern as a Java regex.
_JAVA_REGEX_SPECIALS = "[]()|^-+*?{}$\\."
_SQL_SIMILAR_SPECIALS = "[]()|^-+*_%?{}"
_SIMILAR_CHARACTER_CLASSES = (
    ("[:ALPHA:]", "\\p{Alpha}"), ("[:alpha:]", "\\p{Alpha}"), ("[:UPPER:]", "\\p{Upper}"),
    ("[:upper:]", "\\p{Upper}"), ("[:LOWER:]", "\\p{Lower}"), ("[:lower:]", "\\p{Lower}"),
    ("[:DIGIT:]", "\\d"), ("[:digit:]", "\\d"), ("[:SPACE:]", " "), ("[:space:]", " "),
    ("[:WHITESPACE:]", "\\s"), ("[:whitespace:]", "\\s"), ("[:ALNUM:]", "\\p{Alnum}"),
    ("[:alnum:]", "\\p{Alnum}"))


class _InvalidPattern(Exception):
    pass


def _similar_regex(pattern: str, escape: str) -> str:
    """SqlLikeUtils.sqlToRegexSimilar: `_` any char, `%` any text (newlines too), `[...]`
    an enumeration with [:DIGIT:]-style classes, `$` and backslash literal, every other
    character as Java's regex reads it (`.` any char, `|`, `(`, `*`, `+`, `?`, `{n,m}`); the
    escape character (none when '') makes the next special character literal."""
    if escape and escape in _SQL_SIMILAR_SPECIALS:
        for i, char in enumerate(pattern):
            if char == escape and (i == len(pattern) - 1 or (
                    pattern[i + 1] not in _SQL_SIMILAR_SPECIALS and pattern[i + 1] != escape)):
                raise _InvalidPattern(i)
    if escape == ":" and (pattern.find("[:") < 0 or pattern.find(":]") < 0):
        raise _InvalidPattern(0)

    def escaped(char: str) -> str:
        if char in _SQL_SIMILAR_SPECIALS:
            return ("\\" if char in _JAVA_REGEX_SPECIALS else "") + char
        if char == escape:
            return char
        raise _InvalidPattern(char)

    out, inside, i = [], False, 0
    while i < len(pattern):
        char = pattern[i]
        if escape and char == escape:
            if i == len(pattern) - 1:
                raise _InvalidPattern(i)
            out.append(escaped(pattern[i + 1]))
            i += 2
            continue
        if char == "_":
            out.append(".")
        elif char == "%":
            out.append("(?s:.*)")
        elif char == "[":
            out.append("[")
            inside = True
            i += 1                    # sqlSimilarRewriteCharEnumeration, up to the ']'
            while i < len(pattern) and pattern[i] != "]":
                char = pattern[i]
                if escape and char == escape:
                    i += 1
                    if i == len(pattern):
                        raise _InvalidPattern(i)     # Java's charAt fails past the end
                    out.append(escaped(pattern[i]))
                elif char in "-^":
                    out.append(char)
                elif pattern.startswith("[:", i):
                    name = next((name for name, _ in _SIMILAR_CHARACTER_CLASSES
                                 if pattern.startswith(name, i)), None)
                    if name is None:
                        raise _InvalidPattern(i)
                    out.append(dict(_SIMILAR_CHARACTER_CLASSES)[name])
                    i += len(name) - 1
                elif char in _SQL_SIMILAR_SPECIALS:
                    raise _InvalidPattern(i)
                else:
                    out.append(char)
                i += 1
            continue                  # the ']' closes it below
        elif char == "]":
            if not inside:
                raise _InvalidPattern(i)
            inside = False
            out.append("]")
        elif char == "\\":
            out.append("\\\\")
        elif char == "$":
            out.append("\\$")
        else:
            out.append(char)
        i += 1
    if inside:
        raise _InvalidPattern(len(pattern))
    return "".join(out)


def _similar_to(node: exp.SimilarTo, escape: Optional[exp.Expression]) -> exp.Expression:
    """Flink's `s SIMILAR TO pattern [ESCAPE e]`: the whole text matches the pattern made a
    Java regex as Flink makes it (SqlLikeUtils.sqlToRegexSimilar, planning time: the pattern
    and escape are string literals); Spark's RLIKE finds the regex anchored at both ends."""
    pattern = node.expression
    if not (isinstance(pattern, exp.Literal) and pattern.is_string) or (
            escape is not None and not (isinstance(escape, exp.Literal) and escape.is_string
                                        and len(escape.this) == 1)):
        raise _Refused("SIMILAR TO with a pattern that is not a string literal or an ESCAPE "
                       "that is not one character")
    try:
        regex = _similar_regex(pattern.this, escape.this if escape is not None else "")
    except _InvalidPattern:
        raise _Refused(f"SIMILAR TO '{pattern.this}' (Flink fails on it: an invalid regular "
                       f"expression or escape sequence)") from None
    return exp.RegexpLike(this=node.this.copy(),
                          expression=exp.Literal.string(f"\\A(?:{regex})\\z"))
