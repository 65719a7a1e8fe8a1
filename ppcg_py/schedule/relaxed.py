"""Schedule constraints without the loops' constant upper bounds.

isl's scheduler can take minutes where loops are bounded by constants rather than by
parameters: heat-3d written with `#define N 12` (or 120) did not finish in 200 s,
with `n` a parameter in 1.6 s, and with the constant upper bounds dropped from its
domain and dependences in 0.03 s, giving the schedule one expects of it (`t` then the
space loops; skewed `[t, 2t + i, 2t + j, 2t + k]` for the time tiles).

Dropping an upper bound `x <= c` lets the instances run on past it, so the relaxed
dependences contain the program's: a schedule that respects them respects the
program's, and is restricted to the real domain afterwards. Where a bound decides a
dependence's direction (`A[i] = A[9 - i]` for `i <= 4`: past 4 it would point back),
the larger problem may have no solution, or a worse one (trmm with constant sizes
loses its tiled `k` loop), and its loops may be serial only for the instances past the
bounds. So the scheduler (scheduler.py `_solved`) asks it first, marks its solution's
parallel loops again with the program's dependences, and then asks the exact problem,
for at most 10 s: isl's usual schedule takes the exact solution where there is one
(the outputs of programs that compiled before do not change), the time tiles take the
relaxed one where it has a time band (their model checks it).
"""
from __future__ import annotations

import islpy as isl

from ..isl_context import maps_of, sets_of

_VARIABLES = {isl.BasicSet: (isl.dim_type.set,), isl.BasicMap: (isl.dim_type.in_, isl.dim_type.out)}


def _upper_bound(piece: isl.BasicSet | isl.BasicMap, constraint: isl.Constraint) -> bool:
    """Whether `constraint` is `x <= c`: an inequality over one variable (no parameter,
    no existential) whose coefficient is negative."""
    if constraint.is_equality():
        return False
    kinds = (isl.dim_type.param, isl.dim_type.div, *_VARIABLES[type(piece)])
    terms = [(kind, k) for kind in kinds for k in range(piece.dim(kind))
             if not constraint.get_coefficient_val(kind, k).is_zero()]
    return len(terms) == 1 and terms[0][0] in _VARIABLES[type(piece)] and \
        constraint.get_coefficient_val(*terms[0]).is_neg()


def _without(piece):
    """`piece` (a basic set or map) without its constant upper bounds, and whether any."""
    kept = type(piece).universe(piece.get_space())
    dropped = False
    for constraint in piece.get_constraints():
        if _upper_bound(piece, constraint):
            dropped = True
        else:
            kept = kept.intersect(type(piece).from_constraint(constraint))
    return kept, dropped


def without_upper_bounds(obj: isl.UnionSet | isl.UnionMap) -> tuple[isl.UnionSet | isl.UnionMap, bool]:
    """`obj` with every constant upper bound of a variable dropped, and whether any was."""
    result = type(obj).empty(obj.get_space())
    dropped = False
    if isinstance(obj, isl.UnionSet):
        pieces = [b for s in sets_of(obj) for b in s.get_basic_sets()]
        to_union = isl.UnionSet.from_basic_set
    else:
        pieces = [b for m in maps_of(obj) for b in m.get_basic_maps()]
        to_union = isl.UnionMap.from_basic_map
    for piece in pieces:
        kept, gone = _without(piece)
        dropped |= gone
        result = result.union(to_union(kept))
    return result, dropped
