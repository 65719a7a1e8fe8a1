"""Bounds on isl's operations: they nest, and running out is not another isl error."""
from __future__ import annotations

import islpy as isl
import pytest

from ppcg_py.isl_budget import OutOfOperations, bounded, operations_bound, within_operations


def _spend(ctx: isl.Context, n: int) -> int:
    """n isl operations (a new isl value costs one)."""
    for _ in range(n):
        isl.Val.zero(ctx)
    return n


def test_a_bound_runs_out_where_it_should():
    ctx = isl.Context()
    assert bounded(ctx, 100, lambda: _spend(ctx, 100)) == 100
    with pytest.raises(OutOfOperations):
        bounded(ctx, 100, lambda: _spend(ctx, 101))
    assert ctx.get_max_operations() == 0


def test_an_inner_bound_does_not_reset_the_outer_count():
    """400 before, 300 inside an inner bound and 400 after: 1100 in all, past an outer 1000."""
    ctx = isl.Context()
    with pytest.raises(OutOfOperations) as caught:
        with operations_bound(ctx, 1000):
            _spend(ctx, 400)
            assert within_operations(ctx, 500, lambda: _spend(ctx, 300)) == 300
            assert ctx.get_max_operations() == 1000
            _spend(ctx, 400)
    assert caught.value.limit == 1000
    assert ctx.get_max_operations() == 0


def test_the_same_work_without_the_inner_bound_fits():
    ctx = isl.Context()
    with operations_bound(ctx, 1000):
        _spend(ctx, 400)
        assert within_operations(ctx, 500, lambda: _spend(ctx, 300)) == 300
        _spend(ctx, 200)


def test_an_inner_bound_that_runs_out_counts_against_the_outer_one():
    ctx = isl.Context()
    with pytest.raises(OutOfOperations) as caught:
        with operations_bound(ctx, 1000):
            assert within_operations(ctx, 600, lambda: _spend(ctx, 10_000)) is None
            _spend(ctx, 500)
    assert caught.value.limit == 1000


def test_an_inner_bound_never_raises_the_outer_limit():
    """An inner limit larger than what the outer bound has left runs out as the outer one."""
    ctx = isl.Context()
    inner_results = []
    with pytest.raises(OutOfOperations) as caught:
        with operations_bound(ctx, 1000):
            _spend(ctx, 800)
            inner_results.append(within_operations(ctx, 5000, lambda: _spend(ctx, 400)))
    assert inner_results == []          # not the inner bound's "too costly": the outer ran out
    assert caught.value.limit == 1000
    assert ctx.get_max_operations() == 0


def test_nested_bounds_three_deep_restore_each_limit():
    ctx = isl.Context()
    with operations_bound(ctx, 10_000):
        with operations_bound(ctx, 5000):
            middle = ctx.get_max_operations()
            assert within_operations(ctx, 100, lambda: _spend(ctx, 200)) is None
            assert ctx.get_max_operations() == middle
        assert ctx.get_max_operations() == 10_000
    assert ctx.get_max_operations() == 0


def test_no_limit_adds_no_bound():
    ctx = isl.Context()
    with operations_bound(ctx, 0):
        assert ctx.get_max_operations() == 0
        _spend(ctx, 1000)


def test_another_isl_error_is_not_running_out():
    ctx = isl.Context()
    with pytest.raises(isl.Error):
        within_operations(ctx, 100_000, lambda: isl.Set.read_from_str(ctx, "{ [i] : i >= "))
    with pytest.raises(isl.Error):
        bounded(ctx, 100_000, lambda: isl.Set.read_from_str(ctx, "{ [i] : i >= "))
    assert ctx.get_max_operations() == 0


def test_another_isl_error_inside_an_outer_bound_is_still_an_isl_error():
    ctx = isl.Context()
    with operations_bound(ctx, 1_000_000):
        with pytest.raises(isl.Error):
            within_operations(ctx, 100_000, lambda: isl.Set.read_from_str(ctx, "{ [i] : i >= "))
        assert ctx.get_max_operations() == 1_000_000



def test_a_scop_ast_past_its_bound_is_built_again_without_unrolling(monkeypatch, tmp_path):
    """The bounded try runs out of operations; the second try has no unrolled loop
    (isl's AST generator is slowest, or fails its internal checks, on unrolling)."""
    from dataclasses import replace

    from ppcg_py import driver
    from ppcg_py.cli import build_parser, options_from
    from ppcg_py.codegen import ast
    monkeypatch.setattr(ast, "LIMITS", replace(ast.LIMITS, scop_ast=1))
    trees: list[str] = []
    real = ast.without_unrolling

    def recorded(schedule):
        plain = real(schedule)
        trees.append(str(plain))
        return plain
    monkeypatch.setattr(ast, "without_unrolling", recorded)
    source = tmp_path / "add.c"
    source.write_text("void f(float A[64][64], float B[64][64]) {\n#pragma scop\n"
                      "  for (int i = 0; i < 64; i++)\n    for (int j = 0; j < 64; j++)\n"
                      "      A[i][j] = B[i][j] + 1;\n#pragma endscop\n}\n")
    args = [str(source), "--unroll-gpu-tile"]
    files = driver.compile_source(str(source), options_from(build_parser().parse_args(args)))
    assert len(trees) == 1 and "unroll" not in trees[0]
    assert "__global__" in files.kernel and "kernel0(" in files.kernel


def test_without_unrolling_keeps_other_loop_types():
    from ppcg_py.codegen.ast import without_unrolling
    tree = isl.Schedule.read_from_str(isl.DEFAULT_CONTEXT, (
        '{ domain: "{ S[i, j] : 0 <= i, j < 4 }", child: { schedule: "[{ S[i, j] -> [(i)] }, { S[i, j] -> [(j)] }]", '
        'options: "{ unroll[0]; atomic[1] }" } }'))
    plain = str(without_unrolling(tree))
    assert "unroll" not in plain and "atomic" in plain


def test_a_refinement_gives_up_on_isl_failures_but_not_on_the_steps_bound():
    """Boxes, candidate bounds and inferred sizes have correct fallbacks: an isl failure
    there costs quality, never the compilation; the step's own bound still ends it."""
    from ppcg_py.isl_budget import refinement
    ctx = isl.Context()
    assert refinement(ctx, 100_000, lambda: isl.Set.read_from_str(ctx, "{ [i] : i >= ")) is None
    assert refinement(ctx, 100, lambda: _spend(ctx, 10_000)) is None
    with pytest.raises(OutOfOperations):
        with operations_bound(ctx, 1000):
            refinement(ctx, 100_000, lambda: _spend(ctx, 10_000))
