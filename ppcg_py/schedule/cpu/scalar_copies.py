"""A scalar given a copy per iteration of a loop, so that the loop may move inside (C target).

ludcmp computes each `A[i][j]` as `w = A[i][j]; for (k ...) w -= A[i][k] * A[k][j];
A[i][j] = w / A[j][j]`: its inner loop walks down a column of `A`, a cache line per
element. lu, the same factorisation written on `A[i][j]` itself, is turned around by
isl's scheduler so that rows are updated with the vector loop innermost: 5.7x gcc at
LARGE against ludcmp's 0.94x. The one scalar `w` keeps ludcmp's `j` and `k` in their
order: every `j` needs it from its first statement to its last.

Given `w_1[j]` in place of `w` (schedule/expansion.py: the webs of a scalar are the
statements its values flow between, ludcmp's four sums in `w` are four webs), the
scheduler is free to run the `k` loop outside the `j` loop, as lu's rows: 3.1 s ->
1.3 s at LARGE with one thread, 3.0 s -> 0.85 s with two (EPYC, side by side; a copy
of 16 KB). deriche's column sweeps carry seven scalars from row to row; with a copy of
each per column their tiles run along rows: 224 ms -> 66 ms with one thread.

A web is a candidate when its loop `L` may pay for it (`reorder_pays`): a statement of
the web has a loop inside `L` along which one of its accesses jumps through an array
larger than L2 while it stays still or steps by one element along `L` (so with `L`
innermost it would be read along rows). The plan made with the copies of all the
candidates is kept only where its innermost loops, tiled and in their point-loop order,
jump less (original_order.py's `jumps`) than the plan of the program as written, and
run no fewer loops in parallel (`keeps_copies`): isl's scheduler is free to use the
copies, not bound to (symm's `temp2` has a candidate whose plan gains nothing).
"""
from __future__ import annotations

import islpy as isl

from ...extract.model import Scop
from ...isl_context import maps_of
from .cache_sizes import Caches
from .original_order import large_arrays
from .point_order import FAR, STILL, UNIT, iterator_step


def reorder_pays(scop: Scop, statements: frozenset[str], loop: isl.UnionMap, caches: Caches) -> bool:
    """Whether some statement in `statements` has an inner loop (inside `loop`) along which
    an access jumps through a large array that `loop` walks along a row."""
    large = large_arrays(scop, caches)
    for stmt in scop.statements:
        if stmt.name not in statements:
            continue
        n = stmt.domain.dim(isl.dim_type.set)
        dimension = _iterator_of(stmt.domain, loop)
        if dimension is None or dimension == n - 1:
            continue
        for acc in stmt.accesses:
            if acc.exact and acc.array in large and iterator_step(stmt.domain, acc.index, n - 1) == FAR \
                    and iterator_step(stmt.domain, acc.index, dimension) in (STILL, UNIT):
                return True
    return False


def _iterator_of(domain: isl.Set, loop: isl.UnionMap) -> int | None:
    """The statement's iterator that `loop` takes the value of, if it is one of them."""
    name = domain.get_tuple_name()
    own = [m for m in maps_of(loop) if m.get_tuple_name(isl.dim_type.in_) == name]
    if len(own) != 1:
        return None
    values = own[0].intersect_domain(domain)
    names = ", ".join(f"x{d}" for d in range(domain.dim(isl.dim_type.set)))
    for k in range(domain.dim(isl.dim_type.set)):
        iterator = isl.Map(f"{{ {name}[{names}] -> [x{k}] }}", context=domain.get_ctx())
        iterator = iterator.align_params(values.get_space()).intersect_domain(domain)
        if values.is_equal(iterator.align_params(values.get_space())):
            return k
    return None


def keeps_copies(plain_jumps: int, plain_parallel: int, copied_jumps: int, copied_parallel: int) -> bool:
    """Whether the plan with the copies beats the plain one: fewer jumping accesses in its
    innermost loops, no fewer parallel loops."""
    return copied_jumps < plain_jumps and copied_parallel >= plain_parallel
