"""Flink SQL as the planner reads it: sqlglot's Spark dialect (the plan holds Spark SQL), with
Flink's defaults where a function's omitted arguments mean something else in Spark:

* REGEXP_EXTRACT(str, regex) extracts the whole match (Flink's group 0; Spark's default is 1);
* STR_TO_MAP(str[, pairs]) splits keys from values at '=' (Spark's default is ':');
* CAST(x AS CHAR(n) / VARCHAR(n)) keeps its length (planner/flink_builtins.py pads and
  truncates as Flink does; Spark's dialect reads the type as STRING);
* a string literal's only escape is a doubled quote ('it''s'): a backslash is a plain
  character (Spark reads `\n` as a newline and would join 'it''s' into "its"). The Spark SQL
  rendered for a plan escapes it again (`'a\\b'`).

The rendered Spark SQL names the argument, so a plan holds Flink's meaning explicitly. Only
user SQL is read with this dialect; plan expressions are Spark SQL (streamplan.sql.expressions).
"""
from __future__ import annotations

from sqlglot import exp, parser
from sqlglot.dialects.spark import Spark
from sqlglot.helper import seq_get


class FlinkSql(Spark):
    REGEXP_EXTRACT_DEFAULT_GROUP = 0

    class Tokenizer(Spark.Tokenizer):
        STRING_ESCAPES = ["'"]

    class Parser(Spark.Parser):
        def _parse_types(self, check_func: bool = False, schema: bool = False,
                         allow_identifiers: bool = True, with_collation: bool = False):
            # Flink keeps CHAR(n) / VARCHAR(n) in a cast (it pads and truncates to n); Spark's
            # dialect (Hive's parser) reads them as STRING, as Spark's own cast does
            return parser.Parser._parse_types(self, check_func=check_func, schema=schema,
                                              allow_identifiers=allow_identifiers,
                                              with_collation=with_collation)

        FUNCTIONS = {
            **Spark.Parser.FUNCTIONS,
            "STR_TO_MAP": lambda args: exp.StrToMap(
                this=seq_get(args, 0),
                pair_delim=seq_get(args, 1) or exp.Literal.string(","),
                key_value_delim=seq_get(args, 2) or exp.Literal.string("=")),
        }
