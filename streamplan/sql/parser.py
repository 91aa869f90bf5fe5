"""Parser of streamplan SQL scripts: Flink-flavoured statements, Spark SQL expressions.

Supported statements (producing the model of :mod:`streamplan.sql.ast`):

* ``SET 'key' = 'value'`` and ``SET some.key = value`` (unquoted key and value)
* ``CREATE [TEMPORARY] TABLE [IF NOT EXISTS] t (<columns>) [DISTRIBUTED ...] [PARTITIONED BY (...)]
  [WITH ('k' = 'v', ...)]`` with physical, computed and metadata columns
  (``c TYPE METADATA [FROM 'key']``), one ``WATERMARK FOR c AS c [- INTERVAL 'n' UNIT]`` or
  ``AS SOURCE_WATERMARK()`` and a ``PRIMARY KEY (...) NOT ENFORCED`` (table or column level).
  ``IF NOT EXISTS`` is accepted and has no effect: a script declares every table exactly once.
* ``CREATE [TEMPORARY] VIEW [IF NOT EXISTS] v AS SELECT ...``: a named query, expanded
  where a later query names it
* ``INSERT { INTO | OVERWRITE } t [PARTITION (k = v, ...)] [(c, ...)] SELECT ...`` with
  ``/*+ NAME('k' = 'v', ...) */`` hints on the top-level SELECT
* statement sets: ``EXECUTE STATEMENT SET BEGIN ...; END`` and ``BEGIN STATEMENT SET; ...; END;``
* ``COMPILE PLAN 'p' [IF NOT EXISTS] FOR <INSERT | [EXECUTE] STATEMENT SET BEGIN ... END>``
* ``COMPILE PLAN 'new' [IF NOT EXISTS] FROM 'old'``: plan migration (FLIP-190)
* ``EXECUTE PLAN 'p'`` and ``EXPLAIN PLAN 'p'``

``COMPILE AND EXECUTE PLAN`` is rejected as unsupported: run COMPILE PLAN, then EXECUTE PLAN.
Other valid SQL raises UnsupportedSqlError naming the construct; malformed text raises
SqlSyntaxError. Both carry the line and column in the whole script.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Callable, Iterator, Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from streamplan.durations import INTERVAL_UNITS_MS, bounded_decimal
from streamplan.sql.dialect import FlinkSql
from streamplan.errors import SqlSyntaxError
from streamplan.sql.ast import (
    CreateFunction, ColumnDef, CompilePlan, CreateTable, CreateView, Distribution, ExecutePlan, ExplainPlan, Hint, Insert, MigratePlan,
    SetOption, Statement, StatementSet, WatermarkDef,
)
from streamplan.sql.expressions import numeric_literal_problem
from streamplan.sql.splitter import (
    HINT, IDENT, NUMBER, PUNCT, WORD, SourceText, Token, split_statements, statement_set_end,
    tokenize,
)
from streamplan.types import (COMPOSITE_TYPES, TYPE_ALIASES, TYPE_ARITIES, TYPE_PARAM_RANGES,
                              parse_type, quote_identifier)

_SUPPORTED = ("streamplan scripts contain SET, CREATE TABLE, CREATE VIEW, CREATE FUNCTION, "
              "INSERT INTO ... SELECT, "
              "statement sets and COMPILE / EXECUTE / EXPLAIN PLAN.")
_HINT_PLACEMENT = "Put hints right after the SELECT of INSERT INTO <sink> SELECT."
_HINT_NOTE = " (hints take key-value options: 'key' = 'value')"

# Words that cannot stand for a table or column name without backquotes.
_RESERVED = {"SELECT", "FROM", "WHERE", "WITH", "VALUES", "AS", "INTO", "TABLE", "FOR", "NOT",
             "NULL", "BEGIN", "END"}
# Statement verbs that are valid SQL elsewhere but not in a streamplan script.
_OTHER_STATEMENTS = {"DROP", "ALTER", "SHOW", "USE", "DESCRIBE", "DESC", "RESET", "LOAD", "UNLOAD",
                     "ADD", "REMOVE", "DELETE", "UPDATE", "TRUNCATE", "ANALYZE", "CALL", "MERGE",
                     "REPLACE", "UPSERT"}
_QUERY_STARTS = {"SELECT", "WITH", "VALUES"}
_OBJECT_VERBS = {"CREATE", "DROP", "ALTER", "SHOW"}
_OBJECT_KINDS = {"TABLE", "VIEW", "FUNCTION", "CATALOG", "DATABASE", "MODEL", "TABLES", "VIEWS",
                 "FUNCTIONS", "CATALOGS", "DATABASES", "MODELS", "JARS", "JOBS", "MODULES"}

_ELEMENT_CLAUSES = {"UNIQUE": "UNIQUE constraint", "CHECK": "CHECK constraint",
                    "FOREIGN": "FOREIGN KEY constraint", "PERIOD": "PERIOD FOR SYSTEM_TIME"}
_COLUMN_CLAUSES = {"VIRTUAL": "VIRTUAL column",
                   "COMMENT": "column COMMENT"}
_TABLE_CLAUSES = {"COMMENT": "table COMMENT", "LIKE": "CREATE TABLE ... LIKE",
                  "AS": "CREATE TABLE ... AS SELECT"}
_QUERY_KINDS = {exp.Union: "UNION", exp.Intersect: "INTERSECT", exp.Except: "EXCEPT",
                exp.Values: "VALUES"}


def parse_script(text: str, source: str = "<script>") -> list[Statement]:
    """Parse every statement of a script, in order."""
    src = SourceText.of(text, source)
    return [_parse_tokens(src, tokens) for tokens in split_statements(src, tokenize(src))]


# Type parameters and the like are small; a huge literal is refused before int() sees it.
_MAX_PARAMETER_DIGITS = 9


def parse_statement(text: str, source: str = "<script>") -> Statement:
    """Parse a text holding exactly one statement (a trailing ';' is fine)."""
    src = SourceText.of(text, source)
    statements = split_statements(src, tokenize(src))
    if not statements:
        raise src.syntax_error("expected a statement, found end of input", len(text))
    if len(statements) > 1:
        raise src.syntax_error("expected exactly one statement, found a second one",
                               statements[1][0].start)
    return _parse_tokens(src, statements[0])


class _Cursor:
    """Walks the tokens of one statement; every failure says what was expected and found."""

    def __init__(self, src: SourceText, tokens: Sequence[Token], end: int,
                 end_name: str = "end of statement"):
        self.src = src
        self.tokens = tokens
        self.index = 0
        self.end = end              # where "end of statement" errors point
        self.end_name = end_name

    def peek(self, ahead: int = 0) -> Token | None:
        index = self.index + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def at_end(self) -> bool:
        return self.index >= len(self.tokens)

    def advance(self) -> Token:
        self.index += 1
        return self.tokens[self.index - 1]

    def peek_word(self, *words: str, ahead: int = 0) -> bool:
        token = self.peek(ahead)
        return token is not None and token.is_word(*words)

    def accept_word(self, *words: str) -> Token | None:
        return self.advance() if self.peek_word(*words) else None

    def expect_word(self, word: str, context: str) -> Token:
        token = self.accept_word(word)
        if token is None:
            raise self.fail(f"{word} {context}")
        return token

    def accept_punct(self, char: str) -> Token | None:
        token = self.peek()
        return self.advance() if token is not None and token.is_punct(char) else None

    def expect_punct(self, char: str, context: str) -> Token:
        token = self.accept_punct(char)
        if token is None:
            raise self.fail(f"'{char}' {context}")
        return token

    def expect_string(self, what: str) -> tuple[str, Token]:
        """A single-quoted string literal (Flink uses them for keys, values and paths)."""
        token = self.peek()
        if token is None or not token.is_single_quoted:
            raise self.fail(f"a single-quoted {what}")
        return _unquote(self.advance()), token

    def expect_identifier(self, what: str) -> tuple[str, Token]:
        token = self.peek()
        if token is None or token.kind not in (WORD, IDENT) or token.upper in _RESERVED:
            raise self.fail(what)
        return _identifier(self.advance()), token

    def rest(self) -> list[Token]:
        tokens = list(self.tokens[self.index:])
        self.index = len(self.tokens)
        return tokens

    def expect_end(self, context: str) -> None:
        if not self.at_end():
            raise self.fail(f"end of statement {context}")

    def fail(self, expected: str) -> SqlSyntaxError:
        token = self.peek()
        found = self.end_name if token is None else _show(token)
        offset = self.end if token is None else token.start
        return self.src.syntax_error(f"expected {expected}, found {found}", offset)


def _show(token: Token) -> str:
    """A token quoted for a message; string literals already carry their quotes."""
    text = token.text if len(token.text) <= 40 else token.text[:37] + "..."
    return text if token.is_single_quoted else f"'{text}'"


def _unquote(token: Token) -> str:
    """Value of a single-quoted literal; '' stands for one quote (backslashes are kept)."""
    return token.text[1:-1].replace("''", "'")


def _identifier(token: Token) -> str:
    return token.text[1:-1].replace("``", "`") if token.kind == IDENT else token.text


def _parse_tokens(src: SourceText, tokens: list[Token]) -> Statement:
    """Dispatch one statement on its first word."""
    first = tokens[0]
    parser = _STATEMENT_PARSERS.get(first.upper) if first.kind == WORD else None
    if parser is None:
        raise _unknown_statement(src, tokens)
    try:
        return parser(_Cursor(src, tokens, tokens[-1].end))
    except RecursionError:
        raise src.unsupported("expressions nested this deeply", first.start,
                              "Split the expression, e.g. into a subquery or a CTE.") from None


def _unknown_statement(src: SourceText, tokens: list[Token]) -> Exception:
    first = tokens[0]
    if first.is_word(*_QUERY_STARTS):
        return src.unsupported(f"bare {first.upper} (use INSERT INTO <sink> SELECT ...)",
                               first.start, "A streaming query needs a sink table to write to.")
    if first.is_word(*_OTHER_STATEMENTS):
        return src.unsupported(f"{_statement_kind(tokens)} statement", first.start, _SUPPORTED)
    return src.syntax_error("expected a statement such as SET, CREATE TABLE or INSERT INTO, "
                            f"found {_show(first)}", first.start)


def _statement_kind(tokens: Sequence[Token]) -> str:
    """The words naming a statement: 'USE', 'DROP TABLE', 'CREATE TEMPORARY VIEW'."""
    words = [tokens[0].upper]
    if words[0] not in _OBJECT_VERBS:
        return words[0]
    for token in tokens[1:5]:
        if token.kind != WORD:
            break
        words.append(token.upper)
        if token.upper in _OBJECT_KINDS:
            return " ".join(words)
    return " ".join(words[:2])


def _reject_hints(cur: _Cursor) -> None:
    """Hints only mean something on the SELECT of an INSERT."""
    for token in cur.tokens:
        if token.kind == HINT:
            raise cur.src.unsupported("query hint outside the top-level SELECT of an INSERT",
                                      token.start, _HINT_PLACEMENT)


def _accept_if_not_exists(cur: _Cursor) -> bool:
    if not cur.accept_word("IF"):
        return False
    cur.expect_word("NOT", "after IF")
    cur.expect_word("EXISTS", "after IF NOT")
    return True


def _table_name(cur: _Cursor, what: str) -> str:
    """A plain table name: streamplan has one catalog, so qualified names are not supported."""
    name, token = cur.expect_identifier(what)
    if cur.peek() is not None and cur.peek().is_punct("."):
        raise cur.src.unsupported(f"qualified table name starting with '{name}.'", token.start,
                                  "Use a plain table name.")
    return name


def _parse_key_values(cur: _Cursor, what: str, note: str = "") -> dict[str, str]:
    """`'k' = 'v' {, 'k' = 'v'} )` - the opening '(' is already consumed. Duplicate keys fail."""
    entries: dict[str, str] = {}
    while True:
        key, key_token = cur.expect_string(f"{what} key{note}")
        cur.expect_punct("=", f"after {what} key '{key}'")
        value, _ = cur.expect_string(f"value for {what} '{key}'{note}")
        if key in entries:
            raise cur.src.syntax_error(f"duplicate {what} '{key}'", key_token.start)
        entries[key] = value
        if not cur.accept_punct(","):
            break
    cur.expect_punct(")", f"or ',' after {what} '{key}'")
    return entries


# ---------------------------------------------------------------------------------------- SET

def _parse_set(cur: _Cursor) -> SetOption:
    keyword = cur.advance()
    _reject_hints(cur)
    token = cur.peek()
    key = cur.expect_string("option key")[0] if token and token.is_single_quoted else _bare_key(cur)
    cur.expect_punct("=", f"after option key '{key}'")
    return SetOption(key, _set_value(cur, key), cur.src.position(keyword.start))


def _bare_key(cur: _Cursor) -> str:
    """`SET a.b-c = ...`: the key is the text before '=' (Flink keys contain '.' and '-')."""
    tokens = []
    while (token := cur.peek()) is not None and token.kind in (WORD, NUMBER, PUNCT) \
            and not token.is_punct("="):
        tokens.append(cur.advance())
    if not tokens:
        raise cur.fail("an option key after SET")
    return cur.src.text[tokens[0].start:tokens[-1].end]


def _set_value(cur: _Cursor, key: str) -> str:
    """A single-quoted string, or the rest of the statement as written (`SET a = 10 s`)."""
    token = cur.peek()
    if token is None:
        raise cur.fail(f"a value for option '{key}'")
    if not token.is_single_quoted:
        rest = cur.rest()
        return cur.src.text[rest[0].start:rest[-1].end]
    value, _ = cur.expect_string(f"value for option '{key}'")
    cur.expect_end(f"after the value of option '{key}'")
    return value


# ------------------------------------------------------------------------------- CREATE TABLE

@dataclass
class _TableDraft:
    """What CREATE TABLE declared so far; cross-checked once the column list is closed."""

    src: SourceText
    name: str
    columns: list[ColumnDef] = field(default_factory=list)
    watermark: WatermarkDef | None = None
    watermark_column: Token | None = None
    key_columns: list[Token] | None = None
    partition_keys: list[Token] | None = None
    distribution: Distribution | None = None
    distribution_keys: list[Token] = field(default_factory=list)

    def add_column(self, column: ColumnDef, token: Token) -> None:
        # Case-insensitive: Spark resolves column names case-insensitively.
        if any(c.name.lower() == column.name.lower() for c in self.columns):
            raise self.src.syntax_error(f"duplicate column '{column.name}' in table '{self.name}'",
                                        token.start)
        self.columns.append(column)

    def set_watermark(self, watermark: WatermarkDef, keyword: Token, column: Token) -> None:
        if self.watermark is not None:
            raise self.src.syntax_error(
                f"table '{self.name}' declares a second WATERMARK; at most one is allowed",
                keyword.start)
        self.watermark, self.watermark_column = watermark, column

    def set_primary_key(self, columns: list[Token], keyword: Token) -> None:
        if self.key_columns is not None:
            raise self.src.syntax_error(f"table '{self.name}' declares a second PRIMARY KEY",
                                        keyword.start)
        self.key_columns = columns

    def build(self, options: dict[str, str], keyword: Token) -> CreateTable:
        by_name = {column.name: column for column in self.columns}
        if self.watermark is not None and self.watermark.column not in by_name:
            raise self.src.syntax_error(f"watermark column '{self.watermark.column}' is not a "
                                        f"column of table '{self.name}'",
                                        self.watermark_column.start)
        key = self._primary_key(by_name)
        columns = tuple(replace(c, nullable=False) if key and c.name in key else c
                        for c in self.columns)
        for token in (self.partition_keys or []) + self.distribution_keys:
            if _identifier(token) not in by_name:
                raise self.src.syntax_error(f"column '{_identifier(token)}' is not a column of "
                                            f"table '{self.name}'", token.start)
        partition_keys = (None if self.partition_keys is None
                          else tuple(_identifier(token) for token in self.partition_keys))
        return CreateTable(self.name, columns, self.watermark, key, options,
                           self.src.position(keyword.start), partition_keys, self.distribution)

    def _primary_key(self, by_name: dict[str, ColumnDef]) -> tuple[str, ...] | None:
        """Key column names. As in Flink they must be physical columns and become NOT NULL."""
        if self.key_columns is None:
            return None
        names: list[str] = []
        for token in self.key_columns:
            name = _identifier(token)
            if name not in by_name:
                problem = "is not a column of"
            elif by_name[name].computed is not None or by_name[name].metadata is not None:
                kind = "computed" if by_name[name].computed is not None else "metadata"
                problem = f"is a {kind} column; a primary key needs physical columns of"
            elif name in names:
                problem = "is listed twice in the primary key of"
            else:
                names.append(name)
                continue
            raise self.src.syntax_error(
                f"primary key column '{name}' {problem} table '{self.name}'", token.start)
        return tuple(names)


def _parse_create(cur: _Cursor) -> CreateTable | CreateView | CreateFunction:
    words = [token.upper if token.kind == WORD else "" for token in cur.tokens[1:4]]
    if "FUNCTION" in words[:1] or words[:2] == ["TEMPORARY", "FUNCTION"] \
            or words[:3] == ["TEMPORARY", "SYSTEM", "FUNCTION"]:
        return _parse_create_function(cur)
    # TEMPORARY changes nothing here: a script's tables and views live as long as the script.
    kind = words[1] if words[:1] == ["TEMPORARY"] else words[0]
    if kind == "VIEW":
        return _parse_create_view(cur)
    if kind != "TABLE":
        raise cur.src.unsupported(f"{_statement_kind(cur.tokens)} statement", cur.tokens[0].start,
                                  _SUPPORTED)
    keyword = cur.advance()
    cur.accept_word("TEMPORARY")
    cur.advance()
    _reject_hints(cur)
    _accept_if_not_exists(cur)
    draft = _TableDraft(cur.src, _table_name(cur, "a table name after CREATE TABLE"))
    _reject_clause(cur, _TABLE_CLAUSES)
    cur.expect_punct("(", f"to start the column list of table '{draft.name}'")
    while True:
        _parse_element(cur, draft)
        if not cur.accept_punct(","):
            break
    cur.expect_punct(")", f"or ',' in the column list of table '{draft.name}'")
    return draft.build(_parse_table_options(cur, draft), keyword)


def _parse_create_view(cur: _Cursor) -> CreateView:
    """Flink's `CREATE [TEMPORARY] VIEW [IF NOT EXISTS] name AS <query>`; the query is a SELECT
    or a set operation, as in INSERT INTO."""
    keyword = cur.advance()
    cur.accept_word("TEMPORARY")
    cur.advance()
    _reject_hints(cur)
    if_not_exists = _accept_if_not_exists(cur)
    name = _table_name(cur, "a view name after CREATE VIEW")
    if _is_punct(cur.peek(), "("):
        raise cur.src.unsupported(f"a column list on view '{name}'", cur.peek().start,
                                  "Name the view's columns with AS in its SELECT.")
    cur.expect_word("AS", f"after the view name '{name}'")
    if not (cur.peek_word(*_QUERY_STARTS) or _is_punct(cur.peek(), "(")):
        raise cur.fail(f"a query (SELECT ...) after CREATE VIEW {name} AS")
    query = _parse_query(cur.src, cur.rest())
    return CreateView(name, query, if_not_exists, cur.src.position(keyword.start))


def _parse_create_function(cur: _Cursor) -> CreateFunction:
    """Flink's CREATE [TEMPORARY [SYSTEM]] FUNCTION [IF NOT EXISTS] name AS 'identifier'
    [LANGUAGE ...]; the identifier is the Python class, 'module:qualname'."""
    keyword = cur.advance()
    temporary = cur.accept_word("TEMPORARY") is not None
    system = temporary and cur.accept_word("SYSTEM") is not None
    cur.expect_word("FUNCTION", "after CREATE [TEMPORARY [SYSTEM]]")
    if_not_exists = _accept_if_not_exists(cur)
    name, token = cur.expect_identifier("a function name after CREATE FUNCTION")
    if cur.accept_punct("."):
        raise cur.src.unsupported(f"a qualified function name '{name}.…'", token.start,
                                  "Functions live in default_catalog.default_database; "
                                  "give the plain name.")
    cur.expect_word("AS", f"after the function name '{name}'")
    implementation, _ = cur.expect_string("class of the function, 'module:qualname'")
    if cur.accept_word("LANGUAGE"):
        language, where = cur.expect_identifier("a language after LANGUAGE (PYTHON)")
        if language.upper() != "PYTHON":
            raise cur.src.unsupported(f"LANGUAGE {language.upper()} function", where.start,
                                      "Functions here are Python classes: LANGUAGE PYTHON.")
    cur.expect_end(f"after CREATE FUNCTION {name} AS '...' [LANGUAGE PYTHON]")
    return CreateFunction(name, implementation, system, if_not_exists,
                          cur.src.position(keyword.start))


def _column_list(cur: _Cursor, clause: str) -> list[Token]:
    """`(col {, col})` after `clause`."""
    cur.expect_punct("(", f"after {clause}")
    columns = [cur.expect_identifier(f"a column name in {clause}")[1]]
    while cur.accept_punct(","):
        columns.append(cur.expect_identifier(f"a column name in {clause}")[1])
    cur.expect_punct(")", f"or ',' in the {clause} column list")
    return columns


def _parse_distribution(cur: _Cursor, draft: "_TableDraft") -> None:
    """Flink's `DISTRIBUTED BY [HASH | RANGE] (keys) [INTO n BUCKETS]` or `DISTRIBUTED INTO n
    BUCKETS`."""
    cur.advance()
    kind, keys = "UNKNOWN", []
    if cur.accept_word("BY"):
        algorithm = cur.accept_word("HASH", "RANGE")
        kind = algorithm.upper if algorithm is not None else "UNKNOWN"
        keys = _column_list(cur, "DISTRIBUTED BY")
    elif not cur.peek_word("INTO"):
        raise cur.fail("BY or INTO after DISTRIBUTED")
    count = None
    if cur.accept_word("INTO"):
        token = cur.peek()
        if token is None or token.kind != NUMBER or not token.text.isdigit() \
                or len(token.text) > _MAX_PARAMETER_DIGITS or int(token.text) < 1:
            raise cur.fail("a positive bucket count after INTO")
        count = int(cur.advance().text)
        cur.expect_word("BUCKETS", f"after INTO {count}")
    draft.distribution = Distribution(kind, tuple(_identifier(t) for t in keys), count)
    draft.distribution_keys = keys


def _reject_clause(cur: _Cursor, clauses: dict[str, str]) -> None:
    """Fail on the next word if it opens a clause that streamplan does not support."""
    token = cur.peek()
    if token is not None and token.kind == WORD and token.upper in clauses:
        raise cur.src.unsupported(clauses[token.upper], token.start)


def _parse_table_options(cur: _Cursor, draft: "_TableDraft") -> dict[str, str]:
    """What may follow the column list: `[DISTRIBUTED ...] [PARTITIONED BY (...)]` and
    nothing or `WITH ('k' = 'v', ...)`, in Flink's order."""
    table = draft.name
    _reject_clause(cur, _TABLE_CLAUSES)
    if cur.peek_word("DISTRIBUTED"):
        _parse_distribution(cur, draft)
    if cur.accept_word("PARTITIONED"):
        cur.expect_word("BY", "after PARTITIONED")
        draft.partition_keys = _column_list(cur, "PARTITIONED BY")
    _reject_clause(cur, _TABLE_CLAUSES)
    if cur.at_end():
        return {}
    cur.expect_word("WITH", f"or end of statement after the column list of table '{table}'")
    cur.expect_punct("(", "after WITH")
    options = _parse_key_values(cur, "option")
    _reject_clause(cur, _TABLE_CLAUSES)
    cur.expect_end(f"after the WITH options of table '{table}'")
    return options


def _parse_element(cur: _Cursor, draft: _TableDraft) -> None:
    """One entry of the column list: a column, the WATERMARK or the PRIMARY KEY."""
    _reject_clause(cur, _ELEMENT_CLAUSES)
    if cur.peek_word("WATERMARK"):
        _parse_watermark(cur, draft)
    elif cur.peek_word("PRIMARY", "CONSTRAINT"):
        _parse_primary_key(cur, draft)
    else:
        _parse_column(cur, draft)


def _parse_column(cur: _Cursor, draft: _TableDraft) -> None:
    name, token = cur.expect_identifier(
        f"a column name, WATERMARK or PRIMARY KEY in the column list of table '{draft.name}'")
    position = cur.src.position(token.start)
    if cur.accept_word("AS"):
        draft.add_column(ColumnDef(name, None, computed=_parse_computed(cur, name),
                                   position=position), token)
    else:
        type_text = _parse_type(cur, name)
        nullable = _parse_nullability(cur)
        metadata = None
        if cur.accept_word("METADATA"):
            metadata = cur.expect_string("metadata key after METADATA FROM")[0] \
                if cur.accept_word("FROM") else name
        draft.add_column(ColumnDef(name, type_text, nullable, position=position,
                                   metadata=metadata), token)
        if metadata is None and cur.peek_word("PRIMARY", "CONSTRAINT"):
            _parse_primary_key(cur, draft, token)
    _reject_clause(cur, _COLUMN_CLAUSES)


def _parse_nullability(cur: _Cursor) -> bool:
    if cur.accept_word("NOT"):
        cur.expect_word("NULL", "after NOT")
        return False
    cur.accept_word("NULL")
    return True


def _parse_type(cur: _Cursor, column: str) -> str:
    """One of the supported types, normalised: upper case, no spaces, INTEGER as INT; a
    composite type (ARRAY<T>, MAP<K, V>, ROW<name T, ...> or ROW(name T, ...)) in its
    canonical text (streamplan.types)."""
    token = cur.peek()
    if token is None or token.kind != WORD:
        raise cur.fail(f"a type for column '{column}'")
    name = TYPE_ALIASES.get(token.upper, token.upper)
    if name in COMPOSITE_TYPES:
        return _parse_composite_type(cur, column)
    if name not in TYPE_ARITIES:
        raise cur.src.unsupported(f"column type {token.upper}", token.start,
                                  f"Supported types: {', '.join(TYPE_ARITIES)}.")
    cur.advance()
    params = _parse_type_params(cur, name)
    _check_type_params(cur.src, name, params, token)
    if name == "TIMESTAMP" and cur.peek_word("WITH", "WITHOUT"):
        name = _parse_time_zone(cur)
    return name + (f"({','.join(map(str, params))})" if params else "")


def _parse_composite_type(cur: _Cursor, column: str) -> str:
    """ARRAY<T>, MAP<K, V>, ROW<name T [NOT NULL], ...> or ROW(...), parts nested freely."""
    name = cur.advance().upper
    close = ">"
    if name == "ROW" and cur.accept_punct("("):
        close = ")"
    else:
        cur.expect_punct("<", f"after {name} (column '{column}')")
    parts: list[str] = []
    while True:
        if name == "ROW":
            field, _ = cur.expect_identifier(f"a field name of the ROW of column '{column}'")
            part = f"{quote_identifier(field)} {_parse_type(cur, column)}"
        else:
            part = _parse_type(cur, column)
        if not _parse_nullability(cur):
            part += " NOT NULL"
        parts.append(part)
        if not cur.accept_punct(","):
            break
    cur.expect_punct(close, f"to close the {name} of column '{column}'")
    text = f"{name}<{', '.join(parts)}>"
    try:
        return parse_type(text).text
    except ValueError as err:
        raise cur.fail(f"a valid type for column '{column}' ({err})") from None


def _parse_type_params(cur: _Cursor, name: str) -> list[int]:
    if not cur.accept_punct("("):
        return []
    params = [_type_param(cur, name)]
    while cur.accept_punct(","):
        params.append(_type_param(cur, name))
    cur.expect_punct(")", f"to close the parameters of {name}")
    return params


def _type_param(cur: _Cursor, name: str) -> int:
    token = cur.peek()
    if token is None or token.kind != NUMBER or not token.text.isdigit():
        raise cur.fail(f"an integer parameter of {name}")
    if len(token.text.lstrip("0")) > _MAX_PARAMETER_DIGITS:
        raise cur.src.syntax_error(f"parameter {token.text[:20]}... of {name} is far too large",
                                   token.start)
    return int(cur.advance().text)


def _check_type_params(src: SourceText, name: str, params: list[int], token: Token) -> None:
    """Reject the parameters Flink rejects, so the planner can trust type_text."""
    if len(params) not in TYPE_ARITIES[name]:
        counts = " or ".join(map(str, TYPE_ARITIES[name]))
        raise src.syntax_error(f"{name} takes {counts} parameter(s), found {len(params)}",
                               token.start)
    if not params:
        return
    low, high = TYPE_PARAM_RANGES[name]
    if not low <= params[0] <= high:
        raise src.syntax_error(f"the first parameter of {name} must be between {low} and {high}, "
                               f"found {params[0]}", token.start)
    if len(params) == 2 and params[1] > params[0]:
        raise src.syntax_error(f"DECIMAL scale {params[1]} exceeds its precision {params[0]}",
                               token.start)


def _parse_time_zone(cur: _Cursor) -> str:
    """`TIMESTAMP(p) WITH LOCAL TIME ZONE` is TIMESTAMP_LTZ(p); `WITHOUT TIME ZONE` is a no-op."""
    local = cur.advance().upper == "WITH"
    if local:
        cur.expect_word("LOCAL", "after TIMESTAMP ... WITH")
    cur.expect_word("TIME", "in TIMESTAMP ... TIME ZONE")
    cur.expect_word("ZONE", "after TIME")
    return "TIMESTAMP_LTZ" if local else "TIMESTAMP"


def _collect_expression(cur: _Cursor) -> list[Token]:
    """Tokens of an expression in the column list: up to a top-level ',', ')' or COMMENT."""
    tokens: list[Token] = []
    depth = 0
    while (token := cur.peek()) is not None:
        if depth == 0 and (token.is_punct(",") or token.is_punct(")") or token.is_word("COMMENT")):
            break
        depth += token.is_punct("(") - token.is_punct(")")
        tokens.append(cur.advance())
    return tokens


def _parse_computed(cur: _Cursor, column: str) -> exp.Expression:
    tokens = _collect_expression(cur)
    if not tokens:
        raise cur.fail(f"an expression after '{column} AS'")
    tree = _parse_fragment(cur.src, tokens, into=exp.Expr)
    if isinstance(tree, exp.Alias):
        raise cur.src.syntax_error(
            f"expected ',' or ')' after the expression of computed column '{column}', "
            f"found {_show(tokens[-1])}", tokens[-1].start)
    return tree


def _parse_watermark(cur: _Cursor, draft: _TableDraft) -> None:
    keyword = cur.advance()
    cur.expect_word("FOR", "after WATERMARK")
    column, column_token = cur.expect_identifier("the rowtime column after WATERMARK FOR")
    cur.expect_word("AS", f"after WATERMARK FOR {column}")
    tokens = _collect_expression(cur)
    if not tokens:
        raise cur.fail(f"a watermark expression after WATERMARK FOR {column} AS")
    text = cur.src.text[tokens[0].start:tokens[-1].end]
    if (len(tokens) == 3 and tokens[0].is_word("SOURCE_WATERMARK") and tokens[1].is_punct("(")
            and tokens[2].is_punct(")")):
        watermark = WatermarkDef(column, 0, text, cur.src.position(keyword.start),
                                 from_source=True)
        draft.set_watermark(watermark, keyword, column_token)
        return
    watermark = WatermarkDef(column, _watermark_delay(cur.src, column, tokens), text,
                             cur.src.position(keyword.start))
    draft.set_watermark(watermark, keyword, column_token)


def _watermark_delay(src: SourceText, column: str, tokens: list[Token]) -> int:
    """Delay of `col` (0) or `col - INTERVAL 'n' UNIT`; other strategies are not supported."""
    same_column = tokens[0].kind in (WORD, IDENT) and _identifier(tokens[0]) == column
    minus_interval = (len(tokens) == 5 and tokens[1].is_punct("-") and tokens[2].is_word("INTERVAL")
                      and tokens[3].is_single_quoted and tokens[4].kind == WORD)
    if not same_column or (len(tokens) != 1 and not minus_interval):
        raise src.unsupported("watermark expression other than `col - INTERVAL ...`",
                              tokens[0].start,
                              f"Write WATERMARK FOR {column} AS {column} - INTERVAL 'n' SECOND.")
    return 0 if len(tokens) == 1 else _interval_ms(src, tokens[3], tokens[4])


def _interval_ms(src: SourceText, amount: Token, unit: Token) -> int:
    unit_name = unit.upper.removesuffix("S")
    if unit_name not in INTERVAL_UNITS_MS:
        raise src.unsupported(f"INTERVAL unit {unit.upper} in a watermark", unit.start,
                              "Use MILLISECOND, SECOND, MINUTE, HOUR or DAY.")
    delay = bounded_decimal(_unquote(amount).strip())
    if delay is None:
        delay = Decimal("NaN")
    else:
        delay *= INTERVAL_UNITS_MS[unit_name]
    if not delay.is_finite() or delay < 0 or delay != delay.to_integral_value():
        raise src.syntax_error(f"expected a non-negative interval of whole milliseconds, "
                               f"found {amount.text} {unit.upper}", amount.start)
    return int(delay)


def _parse_primary_key(cur: _Cursor, draft: _TableDraft, column: Token | None = None) -> None:
    """`[CONSTRAINT name] PRIMARY KEY [(cols)] NOT ENFORCED`; the list only at table level."""
    if cur.accept_word("CONSTRAINT"):
        cur.expect_identifier("a constraint name after CONSTRAINT")
    keyword = cur.expect_word("PRIMARY", "after CONSTRAINT <name>")
    cur.expect_word("KEY", "after PRIMARY")
    columns = [column] if column is not None else _key_column_list(cur)
    if not (cur.accept_word("NOT") and cur.accept_word("ENFORCED")):
        raise cur.src.unsupported(
            "PRIMARY KEY without NOT ENFORCED", keyword.start,
            "Flink does not enforce primary keys and requires them to be declared NOT ENFORCED.")
    draft.set_primary_key(columns, keyword)


def _key_column_list(cur: _Cursor) -> list[Token]:
    cur.expect_punct("(", "after PRIMARY KEY")
    columns = [cur.expect_identifier("a column name in PRIMARY KEY")[1]]
    while cur.accept_punct(","):
        columns.append(cur.expect_identifier("a column name in PRIMARY KEY")[1])
    cur.expect_punct(")", "or ',' in the PRIMARY KEY column list")
    return columns


# ------------------------------------------------------------------------------------- INSERT

def _parse_insert(cur: _Cursor) -> Insert:
    """`INSERT { INTO | OVERWRITE } target [PARTITION (k = v, ...)] [(c1, ...)] SELECT ...`:
    the rest of the cursor is the query."""
    keyword = cur.advance()
    overwrite = cur.accept_word("OVERWRITE") is not None
    if not overwrite:
        cur.expect_word("INTO", "or OVERWRITE after INSERT")
    target = _table_name(cur, f"a target table after INSERT {'OVERWRITE' if overwrite else 'INTO'}")
    static_partition = _static_partition(cur) if cur.peek_word("PARTITION") else ()
    columns = None
    token = cur.peek()
    # `(` starts a column list, or a parenthesised query as Flink takes it: (SELECT ...) UNION ALL ...
    if token is not None and token.is_punct("(") and not (
            cur.peek_word(*_QUERY_STARTS, ahead=1) or _is_punct(cur.peek(1), "(")):
        columns = _column_list(cur, f"INSERT INTO {target}")
        names = [_identifier(t) for t in columns]
        twice = next((t for i, t in enumerate(columns) if _identifier(t) in names[:i]), None)
        if twice is not None:
            raise cur.src.syntax_error(f"column '{_identifier(twice)}' is listed twice in the "
                                       f"target columns of INSERT INTO {target}", twice.start)
        columns = tuple(names)
    if not (cur.peek_word(*_QUERY_STARTS) or _is_punct(cur.peek(), "(")):
        raise cur.fail(f"SELECT after INSERT INTO {target}")
    tokens = cur.rest()
    tokens, on_conflict = _on_conflict(cur, tokens)
    hint = _top_level_hint(cur, tokens)
    hints = () if hint is None else _parse_hints(cur.src, hint)  # before sqlglot: better errors
    query = _parse_query(cur.src, tokens)
    query.set("hint", None)
    return Insert(target, query, hints, cur.src.position(keyword.start),
                  cur.src.text[keyword.start:tokens[-1].end], on_conflict, overwrite,
                  static_partition, columns)


def _static_partition(cur: _Cursor) -> tuple[tuple[str, exp.Expression], ...]:
    """`PARTITION (k = literal, ...)`: Flink's static partition of an INSERT."""
    cur.advance()
    cur.expect_punct("(", "after PARTITION")
    entries: list[tuple[str, exp.Expression]] = []
    while True:
        name, token = cur.expect_identifier("a partition column in PARTITION (...)")
        if any(name == seen for seen, _ in entries):
            raise cur.src.syntax_error(f"partition column '{name}' is given twice", token.start)
        cur.expect_punct("=", f"after partition column '{name}'")
        value = cur.peek()
        if value is None or not (value.kind == NUMBER or value.is_single_quoted
                                 or value.is_word("TRUE", "FALSE", "NULL")):
            raise cur.fail(f"a literal value for partition column '{name}'")
        literal = _parse_fragment(cur.src, [cur.advance()], into=exp.Expr)
        entries.append((name, literal))
        if not cur.accept_punct(","):
            break
    cur.expect_punct(")", "or ',' in PARTITION (...)")
    return tuple(entries)


_CONFLICT_ACTIONS = ("DEDUPLICATE", "NOTHING", "ERROR")


def _on_conflict(cur: _Cursor, tokens: list[Token]) -> tuple[list[Token], str | None]:
    """Flink 2.3's `... ON CONFLICT DO <DEDUPLICATE|NOTHING|ERROR>` at the end of an INSERT:
    the query's tokens without it, and the action."""
    top = list(_top_level(tokens))
    for index in range(len(top) - 1):
        if top[index].is_word("ON") and top[index + 1].is_word("CONFLICT"):
            rest = top[index + 2:]
            if len(rest) != 2 or not rest[0].is_word("DO") or not rest[1].is_word(*_CONFLICT_ACTIONS):
                raise cur.src.syntax_error(
                    f"expected DO {' | '.join(_CONFLICT_ACTIONS)} after ON CONFLICT", top[index + 1].end)
            return tokens[:tokens.index(top[index])], rest[1].upper
    return tokens, None


def _parse_query(src: SourceText, tokens: list[Token]) -> exp.Select | exp.SetOperation:
    """The query is a SELECT (optionally with WITH), or a set operation (UNION [ALL],
    INTERSECT, EXCEPT) of queries, each maybe in parentheses; anything else is rejected."""
    tree = _parse_fragment(src, tokens)
    while isinstance(tree, exp.Subquery) and not tree.alias and isinstance(
            tree.this, (exp.Select, exp.SetOperation, exp.Subquery)):
        tree = tree.this
    if isinstance(tree, (exp.Select, exp.SetOperation)):
        return tree
    kind = _QUERY_KINDS.get(type(tree), f"{tree.key.upper()} query")
    at = next((t.start for t in _top_level(tokens) if t.is_word(kind)), tokens[0].start)
    raise src.unsupported(f"{kind} in INSERT INTO", at,
                          "The query of an INSERT is a SELECT or a set operation (UNION [ALL], "
                          "INTERSECT, EXCEPT) of SELECTs.")


def _is_punct(token: Token | None, punct: str) -> bool:
    return token is not None and token.is_punct(punct)


def _top_level(tokens: Sequence[Token]) -> Iterator[Token]:
    """Tokens outside any parentheses."""
    depth = 0
    for token in tokens:
        if depth == 0:
            yield token
        depth += token.is_punct("(") - token.is_punct(")")


def _top_level_hint(cur: _Cursor, tokens: list[Token]) -> Token | None:
    """The hint right after the top-level SELECT; a hint anywhere else is unsupported."""
    top = list(_top_level(tokens))
    hint = next((b for a, b in zip(top, top[1:]) if a.is_word("SELECT") and b.kind == HINT), None)
    for token in tokens:
        if token.kind == HINT and token is not hint:
            raise cur.src.unsupported("query hint outside the top-level SELECT of an INSERT",
                                      token.start, _HINT_PLACEMENT)
    return hint


def _parse_hints(src: SourceText, comment: Token) -> tuple[Hint, ...]:
    """`/*+ NAME[('k' = 'v', ...)] [, ...] */`; every hint gets the position of its `/*+`."""
    body_end = comment.end - 2
    cur = _Cursor(src, tokenize(src, comment.start + 3, body_end), body_end, "end of hint")
    position = src.position(comment.start)
    hints: list[Hint] = []
    while True:
        name, _ = cur.expect_identifier("a hint name")
        options = _parse_key_values(cur, "hint option", _HINT_NOTE) if cur.accept_punct("(") else {}
        hints.append(Hint(name.upper(), options, position))
        if cur.at_end():
            return tuple(hints)
        cur.expect_punct(",", "between hints")


def _parse_fragment(src: SourceText, tokens: list[Token],
                    into: type[exp.Expr] | None = None) -> exp.Expression:
    """sqlglot (Spark dialect) over the script text the tokens span; errors point into the
    whole script."""
    _check_parentheses(src, tokens)
    for token in tokens:
        problem = numeric_literal_problem(token.text) if token.kind == NUMBER else None
        if problem is not None:
            raise src.syntax_error(problem, token.start)
    start = tokens[0].start
    fragment = _window_tvf_tables(src, src.text[start:tokens[-1].end], tokens, start)
    try:
        return sqlglot.parse_one(fragment, read=FlinkSql, into=into)
    except ParseError as error:
        raise _translate(src, start, fragment, error) from error
    except TokenError as error:
        raise src.syntax_error(f"cannot tokenize this SQL: {error}", start) from error


# Flink's window table-valued functions: `TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL ...)`, and
# `SESSION(TABLE t [PARTITION BY k | PARTITION BY (k1, k2)], DESCRIPTOR(ts), INTERVAL ...)`.
WINDOW_TVFS = ("TUMBLE", "HOP", "CUMULATE", "SESSION")
# sqlglot reads SESSION as a keyword: the call is renamed to this (same length) and the
# planner reads it back as SESSION; PARTITION BY becomes an argument PARTITION_KEYS(k, ...).
SESSION_STANDIN = "SESSWIN"
PARTITION_KEYS = "PBY"


def _window_tvf_tables(src: SourceText, fragment: str, tokens: Sequence[Token], start: int) -> str:
    """The fragment with the `TABLE` keyword of a window TVF's table argument blanked out
    (spaces, so every offset stays where it was): sqlglot then reads `TUMBLE(t, DESCRIPTOR(ts),
    ...)` as a function of the table's name, which the planner takes as the window TVF. A
    session's `PARTITION BY` becomes the argument `PBY(keys)` after the table (the offsets of
    what follows the keys stay where they were)."""

    def put(text: str, begin: int, end: int, new: str) -> str:
        at, to = begin - start, end - start
        return text[:at] + new.rjust(to - at) + text[to:]

    for index in range(1, len(tokens)):   # a legacy GROUP BY SESSION(ts, gap) call too
        if tokens[index].is_punct("(") and tokens[index - 1].is_word("SESSION") and not (
                index + 1 < len(tokens) and tokens[index + 1].is_word("TABLE")):
            fragment = put(fragment, tokens[index - 1].start, tokens[index - 1].end,
                           SESSION_STANDIN)
    for index in range(2, len(tokens)):
        token = tokens[index]
        if not (token.is_word("TABLE") and tokens[index - 1].is_punct("(")
                and tokens[index - 2].is_word(*WINDOW_TVFS)):
            continue
        fragment = put(fragment, token.start, token.end, "")
        if tokens[index - 2].is_word("SESSION"):
            fragment = put(fragment, tokens[index - 2].start, tokens[index - 2].end,
                               SESSION_STANDIN)
        rest = tokens[index + 2:index + 5]
        if len(rest) == 3 and rest[0].is_word("PARTITION") and rest[1].is_word("BY"):
            if rest[2].is_punct("("):       # PARTITION BY (k1, k2): the parentheses stay
                fragment = put(fragment, rest[0].start, rest[1].end, f",{PARTITION_KEYS}")
            else:
                keys = rest[2].text
                fragment = put(fragment, rest[0].start, rest[2].end,
                                   f",{PARTITION_KEYS}({keys})")
    return fragment


def _check_parentheses(src: SourceText, tokens: list[Token]) -> None:
    """Point unbalanced parentheses at the parenthesis itself (sqlglot reports them late)."""
    opened: list[Token] = []
    for token in tokens:
        if token.is_punct("("):
            opened.append(token)
        elif token.is_punct(")") and not opened:
            raise src.syntax_error("found ')' without a matching '('", token.start)
        elif token.is_punct(")"):
            opened.pop()
    if opened:
        raise src.syntax_error("expected ')' to close this '(', found end of statement",
                               opened[-1].start)


def _translate(src: SourceText, start: int, fragment: str, error: ParseError) -> SqlSyntaxError:
    """sqlglot reports the line and column of the LAST character of the offending token,
    relative to the fragment; point at the token's first character in the whole script."""
    details = error.errors[0] if error.errors else {}
    highlight = details.get("highlight") or ""
    last = SourceText.of(fragment).offset_of(details.get("line") or 1, details.get("col") or 1)
    offset = start + max(last - max(len(highlight), 1) + 1, 0)
    return src.syntax_error(_describe(details.get("description") or str(error), highlight), offset)


def _describe(description: str, highlight: str) -> str:
    """sqlglot's error description, reworded around the token it highlights."""
    missing = re.match(r"Required keyword: '\w+' missing for <class '[\w.]*?(\w+)'>", description)
    if missing:
        return f"expected more after '{highlight}' (incomplete {missing.group(1)})"
    if description.startswith("Invalid expression / Unexpected token"):
        return f"unexpected '{highlight}'"
    expected = re.match(r"Expect(?:ing|ed) (.+?)(?: but got .*)?$", description, re.S)
    if expected:
        return f"expected {expected.group(1)} near '{highlight}'"
    return f"{description} near '{highlight}'"


# ------------------------------------------------------------------ statement sets and plans

def _parse_execute(cur: _Cursor) -> ExecutePlan | StatementSet:
    keyword = cur.advance()
    if cur.accept_word("PLAN"):
        path = _plan_path(cur, "after EXECUTE PLAN")
        cur.expect_end("after the plan path")
        return ExecutePlan(path, cur.src.position(keyword.start))
    if cur.peek_word("STATEMENT"):
        return _parse_statement_set(cur, keyword)
    token = cur.peek()
    if token is not None and token.kind == WORD:
        raise cur.src.unsupported(f"EXECUTE {token.upper} statement", keyword.start,
                                  "Only EXECUTE PLAN and EXECUTE STATEMENT SET are supported.")
    raise cur.fail("PLAN or STATEMENT SET after EXECUTE")


def _parse_begin(cur: _Cursor) -> StatementSet:
    """SQL-client syntax: `BEGIN STATEMENT SET; INSERT ...; END`."""
    keyword = cur.advance()
    cur.expect_word("STATEMENT", "after BEGIN")
    cur.expect_word("SET", "after BEGIN STATEMENT")
    return _parse_statement_set_body(cur, keyword)


def _parse_statement_set(cur: _Cursor, opener: Token) -> StatementSet:
    """`STATEMENT SET BEGIN ... END` after EXECUTE or COMPILE PLAN ... FOR."""
    cur.expect_word("STATEMENT", "after EXECUTE")
    cur.expect_word("SET", "after STATEMENT")
    cur.expect_word("BEGIN", "after STATEMENT SET")
    return _parse_statement_set_body(cur, opener)


def _parse_statement_set_body(cur: _Cursor, opener: Token) -> StatementSet:
    """The INSERTs between the BEGIN just consumed and the END that closes the set."""
    end = statement_set_end(cur.src, cur.tokens, cur.index, opener)
    inserts = tuple(_parse_set_member(cur.src, member)
                    for member in _split_members(cur.tokens[cur.index:end]))
    if not inserts:
        raise cur.src.syntax_error(
            "empty statement set: expected at least one INSERT INTO before END",
            cur.tokens[end].start)
    cur.index = end + 1
    cur.expect_end("after the END of the statement set")
    return StatementSet(inserts, cur.src.position(opener.start))


def _split_members(tokens: Sequence[Token]) -> list[list[Token]]:
    """The statements of a set body, split at ';' (the last ';' before END is optional)."""
    members: list[list[Token]] = [[]]
    for token in tokens:
        if token.is_punct(";"):
            members.append([])
        else:
            members[-1].append(token)
    return [member for member in members if member]


def _parse_set_member(src: SourceText, tokens: list[Token]) -> Insert:
    first = tokens[0]
    if not first.is_word("INSERT"):
        kind = _statement_kind(tokens) if first.kind == WORD else _show(first)
        raise src.unsupported(f"{kind} statement inside a statement set", first.start,
                              "Only INSERT INTO statements may appear between BEGIN and END.")
    return _parse_insert(_Cursor(src, tokens, tokens[-1].end))


def _parse_compile(cur: _Cursor) -> CompilePlan:
    keyword = cur.advance()
    if cur.peek_word("AND"):
        raise cur.src.unsupported("COMPILE AND EXECUTE PLAN", keyword.start,
                                  "Run COMPILE PLAN '<path>' FOR ..., then EXECUTE PLAN '<path>'.")
    cur.expect_word("PLAN", "after COMPILE")
    path = _plan_path(cur, "after COMPILE PLAN")
    if_not_exists = _accept_if_not_exists(cur)
    if cur.accept_word("FROM"):
        source = _plan_path(cur, "after FROM")
        cur.expect_end("after the old plan's path")
        return MigratePlan(path, source, cur.src.position(keyword.start), if_not_exists)
    if not cur.peek_word("FOR"):
        raise cur.fail("FOR <INSERT or STATEMENT SET> or FROM '<old plan>' after the plan path")
    cur.advance()
    target: Insert | StatementSet
    if cur.peek_word("INSERT"):
        target = _parse_insert(cur)
    elif cur.peek_word("EXECUTE", "STATEMENT"):
        opener = cur.peek()
        cur.accept_word("EXECUTE")
        target = _parse_statement_set(cur, opener)
    else:
        raise cur.fail("INSERT INTO or STATEMENT SET after FOR")
    return CompilePlan(path, target, cur.src.position(keyword.start), if_not_exists)


def _parse_explain(cur: _Cursor) -> ExplainPlan:
    keyword = cur.advance()
    if cur.accept_word("PLAN") and not cur.peek_word("FOR"):
        path = _plan_path(cur, "after EXPLAIN PLAN")
        cur.expect_end("after the plan path")
        return ExplainPlan(path, cur.src.position(keyword.start))
    raise cur.src.unsupported("EXPLAIN of a statement", keyword.start,
                              "streamplan explains compiled plans: EXPLAIN PLAN '<path>'.")


def _plan_path(cur: _Cursor, context: str) -> str:
    path, token = cur.expect_string(f"plan path {context}")
    if not path.strip():
        raise cur.src.syntax_error("the plan path must not be empty", token.start)
    return path


_STATEMENT_PARSERS: dict[str, Callable[[_Cursor], Statement]] = {
    "SET": _parse_set,
    "CREATE": _parse_create,
    "INSERT": _parse_insert,
    "EXECUTE": _parse_execute,
    "BEGIN": _parse_begin,
    "COMPILE": _parse_compile,
    "EXPLAIN": _parse_explain,
}
