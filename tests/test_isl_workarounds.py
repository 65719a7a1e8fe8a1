"""The isl behaviours that ppcg_py.isl_workarounds guards against, shown on the
smallest inputs that show them, so that an isl upgrade that fixes or changes one
is noticed."""
from __future__ import annotations

import islpy as isl
import pytest

from ppcg_py.isl_workarounds import anchored_leaves

# Outer band: S_4[i] and S_5[i] at 1 + i, S_2 at 1 only. Inner band: S_4[i] at 1 - 2i,
# S_5 at 0, S_2[i] at 3i. At outer value 2, S_4[1] (inner -1) runs before S_5[1] (inner 0).
SHIFTED_STRIDES = (
    '{ domain: "{ S_4[i] : 0 <= i <= 3; S_2[i] : 0 <= i <= 1; S_5[i] : 0 <= i <= 3 }", '
    'child: { schedule: "[{ S_4[i] -> [(1 + i)]; S_2[i] -> [(1)]; S_5[i] -> [(1 + i)] }]", '
    'child: { schedule: "[{ S_4[i] -> [(1 - 2i)]; S_5[i] -> [(0)]; S_2[i] -> [(3i)] }]" } } }'
)


def _value(expr: isl.AstExpr, env: dict[str, int]) -> int:
    """An isl AST expression's value, for the operators a parameter-free AST uses."""
    kind = expr.get_type()
    if kind == isl.ast_expr_type.int:
        return expr.get_val().to_python()
    if kind == isl.ast_expr_type.id:
        return env[expr.get_id().get_name()]
    op = expr.get_op_type()
    args = [_value(expr.get_op_arg(k), env) for k in range(expr.get_op_n_arg())]
    ops = {
        isl.ast_expr_op_type.add: lambda a, b: a + b, isl.ast_expr_op_type.sub: lambda a, b: a - b,
        isl.ast_expr_op_type.mul: lambda a, b: a * b, isl.ast_expr_op_type.minus: lambda a: -a,
        isl.ast_expr_op_type.min: min, isl.ast_expr_op_type.max: max,
        isl.ast_expr_op_type.eq: lambda a, b: int(a == b), isl.ast_expr_op_type.le: lambda a, b: int(a <= b),
        isl.ast_expr_op_type.lt: lambda a, b: int(a < b), isl.ast_expr_op_type.ge: lambda a, b: int(a >= b),
        isl.ast_expr_op_type.gt: lambda a, b: int(a > b),
        isl.ast_expr_op_type.and_: lambda a, b: int(a and b), isl.ast_expr_op_type.or_: lambda a, b: int(a or b),
        isl.ast_expr_op_type.select: lambda c, a, b: a if c else b,
        isl.ast_expr_op_type.pdiv_q: lambda a, b: a // b, isl.ast_expr_op_type.fdiv_q: lambda a, b: a // b,
        isl.ast_expr_op_type.pdiv_r: lambda a, b: a % b, isl.ast_expr_op_type.zdiv_r: lambda a, b: a % b,
    }
    if op not in ops:
        pytest.fail(f"operator {op} not interpreted")
    return ops[op](*args)


def _run(node: isl.AstNode, env: dict[str, int], trace: list[tuple]) -> None:
    """Append, in execution order, each statement instance the AST runs."""
    kind = node.get_type()
    if kind == isl.ast_node_type.block:
        children = node.block_get_children()
        for k in range(children.n_ast_node()):
            _run(children.get_at(k), env, trace)
    elif kind == isl.ast_node_type.if_:
        if _value(node.if_get_cond(), env):
            _run(node.if_get_then_node(), env, trace)
        elif node.if_has_else_node():
            _run(node.if_get_else_node(), env, trace)
    elif kind == isl.ast_node_type.for_:
        name = node.for_get_iterator().get_id().get_name()
        env = dict(env, **{name: _value(node.for_get_init(), env)})
        while _value(node.for_get_cond(), env):
            _run(node.for_get_body(), env, trace)
            env[name] += _value(node.for_get_inc(), env)
    elif kind == isl.ast_node_type.mark:
        _run(node.mark_get_node(), env, trace)
    elif kind == isl.ast_node_type.user:
        call = node.user_get_expr()
        args = tuple(_value(call.get_op_arg(k), env) for k in range(1, call.get_op_n_arg()))
        trace.append((call.get_op_arg(0).get_id().get_name(), *args))
    else:
        pytest.fail(f"AST node {kind} not interpreted")


def _executed(schedule: isl.Schedule) -> list[tuple]:
    build = isl.AstBuild.from_context(schedule.get_domain().params())
    trace: list[tuple] = []
    _run(build.node_from_schedule(schedule), {}, trace)
    return trace


def _schedule_values(schedule: isl.Schedule) -> dict[tuple, tuple[int, ...]]:
    """Each statement instance's schedule values (the domain is finite)."""
    values = {}
    for piece in _maps(schedule.get_map().intersect_domain(schedule.get_domain())):
        name, n_in = piece.get_tuple_name(isl.dim_type.in_), piece.dim(isl.dim_type.in_)
        for point in _points(piece.wrap()):
            coords = [point.get_coordinate_val(isl.dim_type.set, k).to_python()
                      for k in range(piece.wrap().dim(isl.dim_type.set))]
            values[(name, *coords[:n_in])] = tuple(coords[n_in:])
    return values


def _follows_schedule(schedule: isl.Schedule, executed: list[tuple]) -> bool:
    values = _schedule_values(schedule)
    assert sorted(executed) == sorted(values), "the AST runs other instances than the schedule"
    order = [values[instance] for instance in executed]
    return order == sorted(order)


def _points(s: isl.Set) -> list[isl.Point]:
    points: list[isl.Point] = []
    s.foreach_point(points.append)
    return points


def test_isl_shifted_strides_misorder_nested_bands():
    """Without the workaround isl runs S_5[1] before S_4[1]; if this starts to pass,
    isl has fixed its stride shifting and `anchored_leaves` may go."""
    schedule = isl.Schedule.read_from_str(isl.Context(), SHIFTED_STRIDES)
    executed = _executed(schedule)
    assert not _follows_schedule(schedule, executed), "isl now orders these right"
    assert executed.index(("S_5", 1)) < executed.index(("S_4", 1))


def test_anchored_leaves_keep_the_schedule_order():
    schedule = isl.Schedule.read_from_str(isl.Context(), SHIFTED_STRIDES)
    assert _follows_schedule(schedule, _executed(anchored_leaves(schedule)))


def _maps(umap: isl.UnionMap) -> list[isl.Map]:
    maps: list[isl.Map] = []
    umap.foreach_map(maps.append)
    return maps


# fuzz 2612:365, reduced: the original schedule of a reversed loop (c0 = -i) around four
# statements with guards 2i <= m, 2i > m and 2j < p. At the outer loop, isl splits c0's
# range into pieces whose order depends on the parameters, finds a cycle among them, and
# the split that breaks it leaves an existential without an expression ("unknown div").
UNORDERED_PIECES = (
    '{ domain: "[p, m, n] -> { S_2[i, j] : 0 <= i < j < n and j <= p - i; '
    'S_4[i, j] : 0 <= i < n and 0 <= j and i - 3 <= j and 2j < p; '
    'S_5[i, j] : 0 <= i < n and 2i <= m and 0 <= j <= 8 and (i >= 2 or j <= 2); '
    'S_8[i, j] : 3 <= i < n and 2i > m and i <= j < p }", '
    'child: { schedule: "[p, m, n] -> [{ S_2[i, j] -> [(-i)]; S_4[i, j] -> [(-i)]; S_5[i, j] -> [(-i)]; '
    'S_8[i, j] -> [(-i)] }]", child: { sequence: [ '
    '{ filter: "[p, m, n] -> { S_2[i, j] }", child: { schedule: "[p, m, n] -> [{ S_2[i, j] -> [(-j)] }]" } }, '
    '{ filter: "[p, m, n] -> { S_4[i, j] }", child: { schedule: "[p, m, n] -> [{ S_4[i, j] -> [(-j)] }]" } }, '
    '{ filter: "[p, m, n] -> { S_5[i, j] }", child: { schedule: "[p, m, n] -> [{ S_5[i, j] -> [(j)] }]" } }, '
    '{ filter: "[p, m, n] -> { S_8[i, j] }", child: { schedule: "[p, m, n] -> [{ S_8[i, j] -> [(j)] }]" } } ] } } }'
)


def test_isl_fails_on_parameter_dependent_piece_order():
    """isl_ast_codegen.c's add_split_on projects one piece onto another and keeps an
    existential that isl_basic_set_get_constraint_list refuses; if this starts to pass,
    isl has fixed it and `codegen.ast.with_atomic_fallback` may go."""
    schedule = isl.Schedule.read_from_str(isl.Context(), UNORDERED_PIECES)
    build = isl.AstBuild.from_context(schedule.get_domain().params())
    with pytest.raises(isl.Error, match="input involves unknown divs"):
        build.node_from_schedule(schedule)


@pytest.mark.parametrize("p, m, n", [(23, 7, 31), (9, 11, 8), (4, 3, 9), (12, 30, 12), (0, 5, 6), (7, -1, 5)])
def test_atomic_loops_run_the_schedule(p, m, n):
    """The atomic fallback runs every instance once, in the schedule's order."""
    from ppcg_py.codegen.ast import atomic_loops

    ctx = isl.Context()
    schedule = isl.Schedule.read_from_str(ctx, UNORDERED_PIECES)
    build = isl.AstBuild.from_context(schedule.get_domain().params())
    trace: list[tuple] = []
    _run(build.node_from_schedule(atomic_loops(schedule)), {"p": p, "m": m, "n": n}, trace)
    values = isl.Set.read_from_str(ctx, f"[p, m, n] -> {{ : p = {p} and m = {m} and n = {n} }}")
    expected = {}
    for piece in _maps(schedule.get_map().intersect_domain(schedule.get_domain()).intersect_params(values)):
        piece = piece.project_out(isl.dim_type.param, 0, piece.dim(isl.dim_type.param))
        name, n_in = piece.get_tuple_name(isl.dim_type.in_), piece.dim(isl.dim_type.in_)
        for point in _points(piece.wrap()):
            coords = [point.get_coordinate_val(isl.dim_type.set, k).to_python()
                      for k in range(piece.wrap().dim(isl.dim_type.set))]
            expected[(name, *coords[:n_in])] = tuple(coords[n_in:])
    assert trace and sorted(trace) == sorted(expected)
    order = [expected[instance] for instance in trace]
    assert order == sorted(order)


def test_with_atomic_fallback_retries_atomically_then_fails_located():
    from types import SimpleNamespace

    from ppcg_py.codegen.ast import with_atomic_fallback
    from ppcg_py.diagnostics import CompileError

    schedule = isl.Schedule.read_from_str(isl.Context(), UNORDERED_PIECES)
    scop = SimpleNamespace(function="compute", file="x.c", start_line=13)
    built = []

    def build(tree: isl.Schedule) -> isl.AstNode:
        built.append(tree)
        return isl.AstBuild.from_context(tree.get_domain().params()).node_from_schedule(tree)

    assert with_atomic_fallback(build, schedule, scop) is not None and len(built) == 2
    assert "atomic" in str(built[1]) and "atomic" not in str(built[0])

    def failing(tree: isl.Schedule):
        raise isl.Error("call to isl_ast_build_node_from_schedule failed: input involves unknown divs")

    with pytest.raises(CompileError) as error:
        with_atomic_fallback(failing, schedule, scop)
    assert error.value.render().startswith("x.c:13:1: error: isl's AST generator failed on the SCoP of 'compute'")

    def other(tree: isl.Schedule):
        raise isl.Error("something else")

    with pytest.raises(isl.Error, match="something else"):
        with_atomic_fallback(other, schedule, scop)
