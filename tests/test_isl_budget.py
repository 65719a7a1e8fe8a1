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
