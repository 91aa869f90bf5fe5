"""Group aggregation: `SELECT k, COUNT(*), SUM(v) ... GROUP BY k [HAVING ...]` (and global
aggregates without GROUP BY) over insert-only or updating input, with retraction."""
from __future__ import annotations

from typing import ClassVar, Literal, Optional

from ..changelog import INSERT_ONLY, RowKind
from ..errors import ChangelogModeError, PlanFormatError
from ..options import MINIBATCH_ENABLED, MINIBATCH_SIZE
from ..types import RowType, SqlType, parse_row_type, parse_type
from .base import PlanModel
from .keyed import GLOBAL_KEY, KeyedNode, struct_ddl
from .fields import FieldIndex, SqlTypeText
from .metadata import exec_node
from .mini_batch_bundles import MINI_BATCH_OPTIONS, MiniBatchBundles, mini_batch_off_migration
from .function_spec import FunctionSpec



class AggCallSpec(PlanModel):
    name: str                      # the output field
    function: Literal["COUNT", "SUM", "MIN", "MAX", "AVG", "UDAF", "WELFORD_M2"]
    arg_list: list[FieldIndex]     # input field indexes ([] for COUNT(*))
    distinct: bool = False
    filter_arg: Optional[FieldIndex] = None   # FILTER (WHERE ...): a BOOLEAN input field (Flink's
                                              # filterArg); absent from the JSON when none
    type: SqlTypeText              # SQL result type
    user_function: Optional[FunctionSpec] = None   # UDAF: the function, by identity and class
                                                   # (absent from the JSON for built-ins)


class GroupAggCallSpec(AggCallSpec):
    """An aggregate call of stream-exec-group-aggregate, the one node that also runs the
    aggregates over arrival order (the other aggregate nodes refuse them when a plan is
    loaded)."""
    function: Literal["COUNT", "SUM", "SUM0", "MIN", "MAX", "AVG", "UDAF", "FIRST_VALUE",
                      "LAST_VALUE", "LISTAGG", "WELFORD_M2"]


def sum_type(function: str, arg: SqlType, result: SqlType) -> Optional[SqlType]:
    """The type SUM and AVG keep their running sum in (Flink's accumulators)."""
    if function in ("SUM", "SUM0"):
        return result.with_nullable(True)
    if function != "AVG":
        return None
    if arg.name == "DECIMAL":
        return SqlType("DECIMAL", (38, arg.params[1] if len(arg.params) > 1 else 0))
    if arg.name in ("FLOAT", "DOUBLE"):
        return SqlType("DOUBLE")
    return SqlType("BIGINT")


def runtime_calls(agg_calls: list[AggCallSpec], retracting: bool = True):
    """The runtime's AggCall of each call of a plan (`retracting`: the input has retractions)."""
    from ..runtime.group_aggregate import AggCall

    return tuple(AggCall(call.function, call.arg_list[0] if call.arg_list else None,
                         call.distinct, call.type, call.filter_arg, args=tuple(call.arg_list),
                         retracting=retracting)
                 if call.user_function is None else
                 AggCall(call.function, None, False, call.type, call.filter_arg,
                         call.user_function.implementation, call.user_function.accumulator_type,
                         tuple(call.arg_list))
                 for call in agg_calls)


def resolve_user_functions(node, agg_calls: list[AggCallSpec]) -> None:
    """Before the node runs: every UDAF the plan names resolves to a class that declares the
    signature (and accumulator) the plan holds (functions.catalog.resolve)."""
    from ..functions import resolve

    for call in agg_calls:
        if call.user_function is not None:
            resolve(call.user_function, f"node {node.id} ('{node.type}'), aggregate call "
                                        f"'{call.name}'")


def check_ordered_calls(node, agg_calls: list[GroupAggCallSpec], input_row: RowType) -> None:
    """FIRST_VALUE and LAST_VALUE take one argument, LISTAGG a STRING and maybe its delimiter
    (a STRING), none of them DISTINCT (the planner refuses it; Flink feeds a distinct
    aggregate its values in another order)."""
    arity = {"FIRST_VALUE": (1,), "LAST_VALUE": (1,), "LISTAGG": (1, 2)}
    for n, call in enumerate(agg_calls):
        if call.function not in arity:
            continue
        where = f"node {node.id} ('{node.type}'): field 'aggCalls[{n}]'"
        if len(call.arg_list) not in arity[call.function]:
            raise PlanFormatError(f"{where}: {call.function} takes "
                                  f"{' or '.join(map(str, arity[call.function]))} argument(s), "
                                  f"the plan gives {len(call.arg_list)}")
        if call.distinct:
            raise PlanFormatError(f"{where}: {call.function} with distinct true (not supported)")
        if call.function == "LISTAGG":
            for index in call.arg_list:
                field = input_row.fields[index]
                if field.type.name not in ("STRING", "VARCHAR", "CHAR"):
                    raise PlanFormatError(f"{where}: LISTAGG over input field {index} "
                                          f"({field.name} {field.type.text}), not a STRING")


def check_calls_index(calls: list[AggCallSpec], row_type: str, calls_field: str,
                      row_field: str) -> None:
    """Every argument and FILTER of `calls` indexes a field of `row_type` (the row the calls
    read when the node's input is another aggregate's accumulators); a ValueError names the
    plan fields."""
    width = len(parse_row_type(row_type).fields)
    for n, call in enumerate(calls):
        for index in [*call.arg_list, *([call.filter_arg] if call.filter_arg is not None else [])]:
            if index >= width:
                raise ValueError(f"{calls_field}[{n}] indexes field {index} of {row_field}, "
                                 f"which has {width} field(s)")


def mini_batch_options(config) -> dict:
    """What the mini-batch aggregate nodes read: whether mini-batch is on, and the bundle
    size (Flink's count trigger)."""
    return {"enabled": config.get(MINIBATCH_ENABLED), "size": config.get(MINIBATCH_SIZE)}


def check_filter_args(node, agg_calls: list[AggCallSpec], input_row: RowType) -> None:
    """A FILTER column must be BOOLEAN."""
    for n, call in enumerate(agg_calls):
        if call.filter_arg is not None and input_row.fields[call.filter_arg].type.name != "BOOLEAN":
            field = input_row.fields[call.filter_arg]
            raise PlanFormatError(
                f"node {node.id} ('{node.type}'): field 'aggCalls[{n}].filterArg': input "
                f"field {call.filter_arg} ({field.name} {field.type.text}) is not BOOLEAN")


@exec_node(name="stream-exec-group-aggregate", version=1, min_plan_version="0.1",
           min_state_version="0.1")
@exec_node(name="stream-exec-group-aggregate", version=2, min_plan_version="0.3",
           min_state_version="0.1", consumed_options=MINI_BATCH_OPTIONS)
class StreamExecGroupAggregate(MiniBatchBundles, KeyedNode):
    STATE_DOC = ("one accumulator per group key (row count; SUM/AVG sum and count; MIN/MAX and "
                 "DISTINCT calls every value with its count; FIRST_VALUE/LAST_VALUE their "
                 "value, over retractions every value in arrival order; LISTAGG its values in "
                 "arrival order and its delimiter; WELFORD_M2 its count, mean and m2; a UDAF "
                 "its declared accumulator type); TTL from `state`; with mini-batch (version "
                 "2) one change per key and bundle, the state is the same")
    RUNTIME = "group_aggregate"
    STATE_NAMES = ("groupAggregateState",)
    POSITIONED: ClassVar[bool] = True
    # version 1 ran row by row; version 2 persists the mini-batch options and with them runs
    # Flink's one-phase MiniBatchGroupAggFunction. The state is the same.
    BUNDLES_FROM_VERSION: ClassVar[int] = 2
    grouping: list[FieldIndex]
    agg_calls: list[GroupAggCallSpec]
    generate_update_before: bool
    need_retraction: bool

    _mini_batch_options_into_the_plan = mini_batch_off_migration()

    def input_field_indexes(self):
        return [("grouping", 0, self.grouping),
                *((f"aggCalls[{n}].argList", 0, call.arg_list) for n, call in enumerate(self.agg_calls)),
                *((f"aggCalls[{n}].filterArg", 0, [call.filter_arg])
                  for n, call in enumerate(self.agg_calls) if call.filter_arg is not None)]

    # --- changelog -----------------------------------------------------------------------
    def output_changelog(self, inputs):
        kinds = {RowKind.INSERT, RowKind.UPDATE_AFTER}
        if self.generate_update_before:
            kinds.add(RowKind.UPDATE_BEFORE)
        if inputs[0] != INSERT_ONLY:
            kinds.add(RowKind.DELETE)      # a key whose rows are all retracted
        return frozenset(kinds)

    def check_input_changelog(self, inputs, origins) -> None:
        check_retractable_input(f"Group aggregate node {self.id}", self.need_retraction,
                                inputs, origins)

    def output_unique_keys(self, inputs, input_keys):
        return [list(range(len(self.grouping)))]

    # --- state and runtime ---------------------------------------------------------------
    def key_indexes(self):
        return self.grouping

    def translate(self, ctx, inputs):
        resolve_user_functions(self, self.agg_calls)
        return super().translate(ctx, inputs)

    def runtime_params(self, input_row):
        from ..runtime.group_aggregate import GroupAggParams

        check_filter_args(self, self.agg_calls, input_row)
        check_ordered_calls(self, self.agg_calls, input_row)
        return GroupAggParams(len(self.grouping),
                              runtime_calls(self.agg_calls, retracting=self.need_retraction),
                              self.generate_update_before, self.state_ttl_ms())

    def state_layout(self, inputs: list[RowType]) -> dict[str, dict[str, str]]:
        """The row count and one accumulator per call, typed by its argument (and, for SUM
        and AVG, by the type Flink keeps the running sum in)."""
        (row,) = inputs
        grouping = struct_ddl(row, self.grouping) or f"`{GLOBAL_KEY}`: INT"
        return self.runtime().state_layout(grouping, self.runtime_params(row).calls,
                                           *accumulator_ddls(self.agg_calls, row))


def accumulator_ddls(agg_calls: list[AggCallSpec], row: RowType):
    """The argument types and running-sum types of the calls, as state layouts record them."""
    args = [row.fields[call.arg_list[0]].type if call.arg_list else None for call in agg_calls]
    sums = [sum_type(call.function, arg, parse_type(call.type)) if arg else None
            for call, arg in zip(agg_calls, args)]
    return ([_ddl(arg) if arg else None for arg in args],
            [_ddl(total) if total else None for total in sums])


def _ddl(sql_type: SqlType) -> str:
    return sql_type.to_spark().simpleString().upper()


def check_retractable_input(node: str, need_retraction: bool, inputs, origins) -> None:
    """An aggregate that accumulates its input (the group aggregate, the local one of
    mini-batch) retracts exactly only with -U rows, and only when its plan says so."""
    kinds = inputs[0]
    if RowKind.UPDATE_AFTER in kinds and RowKind.UPDATE_BEFORE not in kinds:
        producer = origins[0][RowKind.UPDATE_AFTER]
        raise ChangelogModeError(
            f"{node} needs the update-before rows (-U) of its input to retract exactly, but node "
            f"{producer.id} '{producer.type}' ({producer.description}) emits updates without "
            f"them.")
    if kinds != INSERT_ONLY and not need_retraction:
        raise ChangelogModeError(
            f"{node} has needRetraction=false but its input emits retractions; the plan was "
            f"edited inconsistently.")
