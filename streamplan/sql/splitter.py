"""Tokenising and statement splitting for streamplan SQL scripts.

Every token keeps its offset in the whole script, so any later error - including the
ones sqlglot reports relative to a fragment - can point at an absolute line and column.
Comments are dropped; `/*+ ... */` hints are kept as tokens because INSERT needs them.
String literals follow Spark (backslash escapes the next character) so that the splitter
and sqlglot always agree on where a string ends.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Sequence

from streamplan.errors import SqlSyntaxError, UnsupportedSqlError
from streamplan.sql.ast import Position

WORD = "word"
IDENT = "ident"      # `backquoted identifier`
STRING = "string"    # 'single' or "double" quoted literal
NUMBER = "number"
PUNCT = "punct"
HINT = "hint"        # /*+ ... */

_WORD_RE = re.compile(r"[^\W\d]\w*")
_NUMBER_RE = re.compile(r"(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
# A lone surrogate ('\ud800' from a Python string) is no text: no file, plan or Spark can
# encode it, so the script is refused where it holds one.
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class SourceText:
    """The whole script plus its line index: maps any offset to a script-absolute position."""

    text: str
    name: str
    line_starts: tuple[int, ...]

    @classmethod
    def of(cls, text: str, name: str = "<script>") -> SourceText:
        starts = (0, *(m.end() for m in re.finditer("\n", text)))
        return cls(text, name, starts)

    def line_col(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def offset_of(self, line: int, column: int) -> int:
        """Inverse of line_col, clamped to the text (sqlglot reports 1-based line/col)."""
        line = min(max(line, 1), len(self.line_starts))
        return min(self.line_starts[line - 1] + max(column, 1) - 1, len(self.text))

    def position(self, offset: int) -> Position:
        return Position(*self.line_col(offset), self.name)

    def syntax_error(self, message: str, offset: int) -> SqlSyntaxError:
        return SqlSyntaxError(message, *self.line_col(offset), self.name)

    def unsupported(self, construct: str, offset: int, hint: str = "") -> UnsupportedSqlError:
        return UnsupportedSqlError(construct, *self.line_col(offset), self.name, hint)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str            # raw text as written, quotes included
    start: int           # offset in the script
    end: int             # exclusive

    @property
    def upper(self) -> str:
        return self.text.upper()

    def is_word(self, *words: str) -> bool:
        return self.kind == WORD and self.upper in words

    def is_punct(self, char: str) -> bool:
        return self.kind == PUNCT and self.text == char

    @property
    def is_single_quoted(self) -> bool:
        return self.kind == STRING and self.text.startswith("'")


def tokenize(src: SourceText, start: int = 0, end: int | None = None) -> list[Token]:
    """Tokens of src.text[start:end]; unterminated strings or comments fail where they start."""
    text, end = src.text, len(src.text) if end is None else end
    lone = _SURROGATE_RE.search(text, start, end)
    if lone is not None:
        raise src.syntax_error(f"a lone surrogate (\\u{ord(lone.group()):04x}) is not text",
                               lone.start())
    tokens: list[Token] = []
    i = start
    while i < end:
        char = text[i]
        if char.isspace():
            i += 1
        elif text.startswith("--", i):
            newline = text.find("\n", i, end)
            i = end if newline < 0 else newline + 1
        elif text.startswith("/*", i):
            is_hint = text.startswith("/*+", i)
            close = text.find("*/", i + 2, end)
            if close < 0:
                kind = "hint" if is_hint else "comment"
                raise src.syntax_error(f"unterminated {kind}: expected '*/' before end of input", i)
            if is_hint:
                tokens.append(Token(HINT, text[i:close + 2], i, close + 2))
            i = close + 2
        elif char in "'\"`":
            stop = _quoted_end(src, i, end)
            tokens.append(Token(IDENT if char == "`" else STRING, text[i:stop], i, stop))
            i = stop
        else:
            tokens.append(_simple_token(text, i, end))
            i = tokens[-1].end
    return tokens


def _quoted_end(src: SourceText, start: int, end: int) -> int:
    """End offset of the quoted token at start: a doubled quote continues it. A backslash is a
    plain character, as in Flink SQL (Spark's escapes are not Flink's)."""
    text, quote = src.text, src.text[start]
    i = start + 1
    while i < end:
        if text[i] == quote:
            if i + 1 < end and text[i + 1] == quote:
                i += 2
            else:
                return i + 1
        else:
            i += 1
    what = "quoted identifier" if quote == "`" else "string literal"
    raise src.syntax_error(
        f"unterminated {what}: expected a closing {quote} before end of input", start)


def _simple_token(text: str, i: int, end: int) -> Token:
    """A word, a number or a single punctuation character."""
    for kind, pattern in ((NUMBER, _NUMBER_RE), (WORD, _WORD_RE)):
        match = pattern.match(text, i, end)
        if match:
            return Token(kind, match.group(), i, match.end())
    return Token(PUNCT, text[i], i, i + 1)


def opens_statement_set(tokens: Sequence[Token]) -> bool:
    """True when tokens (a statement so far) just opened a statement-set block:
    `BEGIN STATEMENT SET` or `EXECUTE|COMPILE ... STATEMENT SET BEGIN`."""
    tail = [t.upper if t.kind == WORD else None for t in tokens[-3:]]
    if len(tokens) == 3 and tail == ["BEGIN", "STATEMENT", "SET"]:
        return True
    return tokens[0].is_word("EXECUTE", "COMPILE") and tail == ["STATEMENT", "SET", "BEGIN"]


def statement_set_end(src: SourceText, tokens: Sequence[Token], index: int, opener: Token) -> int:
    """Index of the END closing the statement set whose body starts at index.
    CASE ... END pairs inside the body are skipped."""
    open_cases = 0
    for i in range(index, len(tokens)):
        if tokens[i].is_word("CASE"):
            open_cases += 1
        elif tokens[i].is_word("END"):
            if open_cases == 0:
                return i
            open_cases -= 1
    line, column = src.line_col(opener.start)
    raise src.syntax_error(
        f"expected END to close the statement set started at line {line}, column {column}, "
        "found end of input", tokens[-1].end)


def split_statements(src: SourceText, tokens: Sequence[Token]) -> list[list[Token]]:
    """Group tokens into statements at top-level ';'. A statement set's BEGIN ... END is one
    unit, so the ';' between its INSERTs do not end the outer statement. Empty statements
    are skipped; the ';' tokens themselves are not part of any statement."""
    statements: list[list[Token]] = []
    current: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token.is_punct(";"):
            if current:
                statements.append(current)
            current = []
            continue
        current.append(token)
        if opens_statement_set(current):
            end = statement_set_end(src, tokens, i, current[0])
            current.extend(tokens[i:end + 1])
            i = end + 1
    if current:
        statements.append(current)
    return statements
