"""The correlate rule: `FROM t, LATERAL TABLE(f(x)) AS T(a, b)` (and `CROSS JOIN LATERAL
TABLE(...)`, `LEFT JOIN LATERAL TABLE(...) AS T(a) ON TRUE`) over a registered table function
becomes a stream-exec-correlate (Flink's StreamPhysicalCorrelateRule), and so does
`CROSS JOIN UNNEST(arr) [WITH ORDINALITY] AS T(x)` (and `LEFT JOIN UNNEST(...) ON TRUE`) over
an ARRAY or a MAP, Flink's built-in `$UNNEST_ROWS$1`. LATERAL over anything but a registered
table function is refused by name."""
from __future__ import annotations

from sqlglot import exp

from ..errors import PlanningError, UnsupportedSqlError
from ..functions import TABLE
from ..functions.data_types import RowOf, parse_data_type
from ..nodes.correlate import UNNEST, UNNEST_WITH_ORDINALITY, StreamExecCorrelate
from ..types import Field, RowType, SqlType, unique_names
from .common import QueryContext, Relation
from .scope import Scope, ScopeField
from .temporal_functions import table_function_call
from .user_aggregates import check_call_arguments


class CorrelateRules:
    """LATERAL TABLE joins; a mixin of PlanBuilder (builder.py)."""

    def _correlate(self, relation: Relation, join: exp.Join, ctx: QueryContext) -> Relation:
        where, position = ctx.where, ctx.position

        def refuse(construct: str) -> UnsupportedSqlError:
            return UnsupportedSqlError(construct, position.line, position.column, position.source)

        if isinstance(join.this, exp.Unnest):
            return self._unnest(relation, join, _join_type(join, "UNNEST(...)", refuse), ctx)
        lateral = join.this
        inner = table_function_call(lateral)
        if inner is None:
            raise refuse(f"LATERAL {lateral.this.sql(dialect='spark')} (a LATERAL join of a "
                         f"table function call, LATERAL TABLE(f(...)), is supported)")
        definition = self.functions.get(inner.name.lower())
        if definition is None or definition.kind != TABLE:
            what = "is not registered" if definition is None else f"is a {definition.kind} function"
            raise PlanningError(f"{where}: LATERAL TABLE({inner.name}(...)): {inner.name} {what}; "
                                f"register a table function (streamplan.functions.TableFunction)")
        join_type = _join_type(join, "LATERAL TABLE(...)", refuse)
        input_row = relation.node.row_type
        scope = Scope(relation.scope_fields, where)
        arguments = [self._sql(scope.rewrite(arg), input_row, where) for arg in inner.expressions]
        arg_types = self.types.resolve(input_row, arguments, None, where) if arguments else []
        spec = definition.spec
        check_call_arguments(definition.name, spec, list(arg_types), where)
        result = parse_data_type(spec.result_type)
        fields = list(result.fields) if isinstance(result, RowOf) else [("f0", result)]
        for name, data_type in fields:
            if isinstance(data_type, RowOf) or not hasattr(data_type, "nullable"):
                raise refuse(f"table function {definition.name} returning {spec.result_type} "
                             f"(its fields must be column types)")
        alias = lateral.args.get("alias")
        return self._correlated(relation, alias, _alias_columns(alias),
                                [(name, t.with_nullable(True)) for name, t in fields],
                                f"LATERAL TABLE({definition.name}(...))",
                                f"the function returns {len(fields)} ({spec.result_type})",
                                definition.name, where, join_type=join_type, function=spec,
                                arguments=arguments, invocation=definition.name)

    def _correlated(self, relation: Relation, alias, columns: list[str],
                    fields: list[tuple[str, SqlType]], call: str, gives: str, qualifier: str,
                    where: str, invocation: str, **spec) -> Relation:
        """The correlate node over `relation`, adding `fields` (named by the alias's column
        list when it has one, which must name each) and the relation they are visible in."""
        if columns and len(columns) != len(fields):
            raise PlanningError(f"{where}: {call} AS {alias.name}({', '.join(columns)}) names "
                                f"{len(columns)} column(s); {gives}")
        names = columns or [name for name, _ in fields]
        input_row = relation.node.row_type
        out_names = unique_names(list(input_row.names) + names)[len(input_row.names):]
        out_fields = [Field(out, data_type) for out, (_, data_type) in zip(out_names, fields)]
        output = RowType(tuple(input_row.fields) + tuple(out_fields))
        shown_args = ", ".join(spec["arguments"]).replace("`", "")
        node = self.add(StreamExecCorrelate, [relation.node], output_type=output.text,
                        description=(f"Correlate(invocation=[{invocation}({shown_args})], "
                                     f"select=[{', '.join(output.names)}], "
                                     f"joinType=[{spec['join_type']}])"), **spec)
        qualifier = alias.name if alias is not None and alias.name else qualifier
        scope_fields = list(relation.scope_fields) + [
            ScopeField(qualifier, name, field) for name, field in zip(names, out_fields)]
        return Relation(node, scope_fields, relation.names + ((qualifier,) if qualifier else ()))

    def _unnest(self, relation: Relation, join: exp.Join, join_type: str,
                ctx: QueryContext) -> Relation:
        """UNNEST(x) of an ARRAY (one column, or the fields of its ROW elements) or a MAP (KEY
        and VALUE), WITH ORDINALITY an INT column more (from 1), named as Calcite names them
        unless the alias names them."""
        where, position = ctx.where, ctx.position
        unnest = join.this
        if len(unnest.expressions) != 1:
            raise UnsupportedSqlError(f"UNNEST of {len(unnest.expressions)} collections (one "
                                      f"ARRAY or MAP)", position.line, position.column,
                                      position.source)
        input_row = relation.node.row_type
        scope = Scope(relation.scope_fields, where)
        (argument,) = [self._sql(scope.rewrite(unnest.expressions[0]), input_row, where)]
        (collection,) = self.types.resolve(input_row, [argument], None, where)
        if collection.name == "ARRAY":
            (element,) = collection.children
            fields = (list(element.children) if element.name == "ROW"
                      else [("EXPR$0", element)])
        elif collection.name == "MAP":
            fields = list(zip(("KEY", "VALUE"), collection.children))
        else:
            raise PlanningError(f"{where}: UNNEST({unnest.expressions[0].sql(dialect='spark')}): "
                                f"the argument is a {collection.text}, not an ARRAY or a MAP")
        ordinality = unnest.args.get("offset") not in (None, False)
        if ordinality:
            fields.append(("ORDINALITY", SqlType("INT", (), False)))
        alias = unnest.args.get("alias")
        columns = _alias_columns(alias)
        if ordinality and isinstance(unnest.args.get("offset"), exp.Identifier):
            columns.append(unnest.args["offset"].name)        # sqlglot keeps it apart
        # the collection's values may be NULL (an element, a LEFT join's padding); the
        # ordinality of an INNER join never is
        fields = [(name, data_type.with_nullable(
                      not (ordinality and index == len(fields) - 1 and join_type == "INNER")))
                  for index, (name, data_type) in enumerate(fields)]
        builtin = UNNEST_WITH_ORDINALITY if ordinality else UNNEST
        return self._correlated(relation, alias, columns, fields, "UNNEST(...)",
                                f"UNNEST of a {collection.text}"
                                f"{' WITH ORDINALITY' if ordinality else ''} gives {len(fields)}",
                                "", where, join_type=join_type, builtin=builtin,
                                arguments=[argument], invocation=builtin)


def _alias_columns(alias) -> list[str]:
    """The column list of `AS T(a, b)`, or [] without one."""
    return [c.name for c in alias.columns] if alias is not None and alias.columns else []


def _join_type(join: exp.Join, what: str, refuse) -> str:
    """INNER for a comma, CROSS JOIN or INNER JOIN ... ON TRUE; LEFT for LEFT JOIN ... ON TRUE."""
    side = (join.side or "").upper()
    on = join.args.get("on")
    on_true = isinstance(on, exp.Boolean) and on.this is True
    if side == "LEFT":
        if not on_true:
            raise refuse(f"LEFT JOIN {what} with a condition other than ON TRUE")
        return "LEFT"
    if side or (on is not None and not on_true):
        raise refuse(f"{side or 'INNER'} JOIN {what} "
                     f"{'ON ' + on.sql(dialect='spark') if on is not None else ''}".rstrip()
                     + " (a comma, CROSS JOIN or INNER JOIN ... ON TRUE, or LEFT JOIN ... "
                       "ON TRUE)")
    return "INNER"
