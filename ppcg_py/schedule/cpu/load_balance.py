"""Whether the iterations of a parallel loop do uneven work, so that OpenMP's default
split (each thread a block of consecutive iterations) would leave threads idle.

A triangular nest is the usual case: covariance's and syrk's tile loops run
`for (c0 ...) for (c1 = c0; ...)`, so the first thread's half of `c0` holds three
quarters of the work, and two threads ran covariance 1.15x faster than one where
an even split gives 1.6x. Such a loop gets `schedule(dynamic, 1)`; a rectangular one
keeps the static split, under which a thread sweeps the same data in every
execution of the loop (a time step's sweep stays in that core's cache).

The test is exact and symbolic: under each value `c` of the loop (the loops around it
fixed), the schedule points below it form a set `S(c)`; the work is even where
`S(a) = S(b)` for all iterations `a < b` except the first and the last (a partial
first or last tile does not count: one iteration's shortfall is one chunk's). The
points are schedule values, so a tile's point loops (offsets within the tile) give
equal sets for equal tiles. The answers are kept by the points' text, for a second
plan of the same SCoP.
"""
from __future__ import annotations

import islpy as isl

from ...isl_context import band_values, maps_of
from ..memo import Memo

_IN = isl.dim_type.in_


def uneven_work(loop: isl.ScheduleNode) -> bool:
    """Whether the iterations of the one-member band `loop` do different work
    (beyond its first and last iterations)."""
    domain = loop.get_domain()
    outer = loop.get_prefix_schedule_union_map().intersect_domain(domain)
    own = band_values(loop, domain)
    below = loop.child(0).get_subtree_schedule_union_map().intersect_domain(domain)
    positions = outer.flat_range_product(own)
    for at in maps_of(positions):
        statement = at.domain()
        inner = maps_of(below.intersect_domain(isl.UnionSet.from_set(statement)))
        points = at.reverse().apply_range(inner[0]) if inner else _zero_dims(at.reverse())
        if _DIFFERS.get((), (points.to_str(),), lambda: _differs_inside(points)):
            return True
    return False


# by the points' text: a SCoP planned twice (with and without scalar copies, which symm
# drops) asks again of its unchanged loops, and a register-blocked one costs a third
# of a second (symm's `k` tiles: seven existentials and as many pieces)
_DIFFERS = Memo(size=64)


def _zero_dims(points: isl.Map) -> isl.Map:
    """`{[p, c] -> []}`: the positions with nothing scheduled below them."""
    return isl.Map.from_domain(points.domain())


def _differs_inside(points: isl.Map) -> bool:
    """Whether `points: [p, c] -> x` has iterations `a < b`, neither the first nor the
    last of its `p`, with different sets of points."""
    n_in = points.dim(_IN)
    c = n_in - 1
    at_a = points.insert_dims(_IN, n_in, 1)         # [p, a, b] -> S(a)
    at_b = points.insert_dims(_IN, c, 1)            # [p, a, b] -> S(b)
    valid = points.domain()
    pairs = (valid.insert_dims(isl.dim_type.set, n_in, 1)
             .intersect(valid.insert_dims(isl.dim_type.set, c, 1)))
    pairs = pairs.add_constraint(_before(pairs.get_space(), c))
    different = at_a.subtract(at_b).union(at_b.subtract(at_a)).intersect_domain(pairs).domain()
    if different.is_empty():
        return False
    by_outer = isl.Map.from_range(valid).move_dims(_IN, 0, isl.dim_type.out, 0, c)     # p -> c
    first = _flat(by_outer.lexmin()).insert_dims(isl.dim_type.set, n_in, 1)    # [p, a=first, b]
    last = _flat(by_outer.lexmax()).insert_dims(isl.dim_type.set, c, 1)       # [p, a, b=last]
    return not different.subtract(first).subtract(last).is_empty()


def _before(space: isl.Space, a: int) -> isl.Constraint:
    """`x[a] < x[a + 1]` in a set space."""
    constraint = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(space))
    constraint = constraint.set_coefficient_val(isl.dim_type.set, a + 1, 1)
    constraint = constraint.set_coefficient_val(isl.dim_type.set, a, -1)
    return constraint.set_constant_val(-1)


def _flat(m: isl.Map) -> isl.Set:
    """`[p] -> [c]` as the set `[p, c]`."""
    return m.wrap().flatten()
