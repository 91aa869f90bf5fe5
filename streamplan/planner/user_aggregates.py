"""User-defined aggregate calls in a group aggregate: their plan record (the function by
identity, FunctionSpec), the argument types against the declared ones, and the refusals
(no `retract` over an updating input, mini-batch aggregation of UDAFs)."""
from __future__ import annotations

from ..changelog import RowKind
from ..errors import PlanningError, UnsupportedSqlError
from ..functions import has_method, instance_of
from ..nodes.function_spec import FunctionSpec
from ..types import INTEGRAL_TYPES, NUMERIC_TYPES, STRING_TYPES, SqlType, parse_type
from .aggregates import AggregateCall


def need_retraction_of(builder, node) -> bool:
    return builder.modes[node.id] != frozenset({RowKind.INSERT})


def _accepts(declared: str, got: SqlType) -> bool:
    """Flink's implicit casts for a call's argument: the same type, numeric widening, any
    string type for a string."""
    want = parse_type(declared)
    if want.name == got.name and (want.params == got.params or want.name in STRING_TYPES):
        return True
    if want.name in STRING_TYPES and got.name in STRING_TYPES:
        return True
    if got.name in INTEGRAL_TYPES and want.name in NUMERIC_TYPES:
        return NUMERIC_TYPES.index(got.name) <= NUMERIC_TYPES.index(want.name)
    return False


def check_call_arguments(name: str, spec: FunctionSpec, arg_types: list[SqlType],
                         where: str) -> None:
    """The call's argument types against the declared ones (varargs repeat the last)."""
    declared = list(spec.argument_types)
    if spec.varargs:
        fixed = declared[:-1]
        declared = fixed + [declared[-1]] * max(len(arg_types) - len(fixed), 0)
    shown = f"{name}({', '.join(t.text for t in arg_types)})"
    if len(declared) != len(arg_types) or not all(
            _accepts(want, got) for want, got in zip(declared, arg_types)):
        raise PlanningError(
            f"{where}: invalid call {shown}: {spec.described()} takes "
            f"({', '.join(spec.argument_types)}{', ...' if spec.varargs else ''}); cast the "
            f"arguments or declare another signature")


def user_aggregate_spec(call: AggregateCall, arg_types: list[SqlType], need_retraction: bool,
                        where: str, retracts: str = "its input is an updating changelog (the "
                                                    "group aggregate must retract rows from it)"
                        ) -> FunctionSpec:
    """The call's FunctionSpec, after checking its arguments and that the function can run
    here (Flink's UserDefinedFunctionHelper / AggFunctionFactory checks)."""
    spec = call.udf.spec
    check_call_arguments(call.udf.name, spec, arg_types, where)
    try:
        parse_type(spec.result_type)
    except ValueError:
        raise UnsupportedSqlError(f"{spec.described()} returns {spec.result_type}; an aggregate "
                                  f"function's result is a column type here") from None
    if need_retraction and not has_method(instance_of(spec.implementation), "retract"):
        raise PlanningError(
            f"{where}: {spec.described()} has no retract method, but {retracts}. Implement "
            f"retract(acc, *args), as Flink's AggregateFunction contract requires there.")
    return spec


def without_merge(specs) -> list[str]:
    """The user-defined aggregate functions of `specs` that have no `merge(acc, others)`."""
    return [spec.user_function.identity for spec in specs if spec.user_function is not None
            and not has_method(instance_of(spec.user_function.implementation), "merge")]


def check_user_functions_in_window(specs, kind: str, ctx) -> None:
    """A UDAF in a window aggregate: a TUMBLE window runs any (one slice a window; without
    merge in one phase), the others merge accumulators (HOP and CUMULATE windows share
    slices, sessions merge), so their UDAFs need merge, as Flink's slice-shared and merging
    window operators call it."""
    unmerged = without_merge(specs)
    if unmerged and kind != "TumblingWindow":
        raise UnsupportedSqlError(
            f"user-defined aggregate functions without merge ({', '.join(unmerged)}) in a "
            f"{kind} aggregate (its windows merge accumulators: give the function "
            f"merge(acc, others), or use a TUMBLE window)", ctx.position.line,
            ctx.position.column, ctx.position.source)
