"""Counts of the model printed as C (codegen/counts.py): the run-time path choice and
`--timing` evaluate them, and `-v` shows them, so like terms are one term."""
from __future__ import annotations

import islpy as isl
import pytest

from ppcg_py.codegen.counts import CountPrinter, added
from ppcg_py.schedule.gpu.work import box


@pytest.fixture
def ctx():
    return isl.Context()


def _box(ctx, text: str, context: isl.Set, weight: float):
    return box(isl.Set.read_from_str(ctx, text), context, weight)


def test_statements_over_the_same_loops_are_one_product(ctx):
    """jacobi-2d's two sweeps: one product with their weights added, not two."""
    context = isl.Set.read_from_str(ctx, "[n] -> { : n >= 0 }")
    printer = CountPrinter(context)
    first = _box(ctx, "[n] -> { S0[i, j] : 0 <= i < n and 0 <= j < n }", context, 3)
    second = _box(ctx, "[n] -> { S1[i, j] : 0 <= i < n and 0 <= j < n }", context, 5)
    assert printer.count(first, second) == "8 * ((n >= 1) ? (double) (n) * (double) (n) : 0.0)"
    other = _box(ctx, "[n] -> { S2[i] : 0 <= i < n }", context, 1)
    assert printer.count(first, other) == \
        "3 * ((n >= 1) ? (double) (n) * (double) (n) : 0.0) + ((n >= 1) ? (double) (n) : 0.0)"


def test_constant_boxes_within_the_context_are_one_number(ctx):
    """A loop of constant extent whose only condition is the SCoP's context is a number;
    one under a condition of its own keeps it."""
    context = isl.Set.read_from_str(ctx, "[n] -> { : n >= 0 }")
    printer = CountPrinter(context)
    constant = _box(ctx, "[n] -> { S0[i] : 0 <= i < 7 }", context, 2)
    guarded = _box(ctx, "[n] -> { S1[i] : 0 <= i < 7 and n >= 3 }", context, 1)
    assert printer.count(constant, constant) == "28.0"
    assert printer.count(guarded, constant) == "((n >= 3) ? (double) (7) : 0.0) + 14.0"
    assert printer.count() == "0.0"


def test_repeated_terms_are_counted_once_with_their_multiplicity():
    """Kernels with the same launch costs (jacobi-2d's two sweeps) are one call, twice."""
    assert added(["f(n)", "g(n)", "f(n)", "1.5", "2.0"]) == "2 * f(n) + g(n) + 3.5"
    assert added([]) == "0.0"
