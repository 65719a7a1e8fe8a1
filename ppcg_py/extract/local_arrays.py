"""Arrays declared inside a SCoP, expanded over the loops around them.

`double tmp[4];` in the body of a loop `i` is a new array in every iteration.
Modelled as one array, it would carry false dependences between iterations and
serialise the loop; a copy per thread is what a scalar gets (schedule/private.py),
but an array's copies would need memory of their own in every kernel. Instead it
becomes a device-only array with the loops around the declaration as leading
dimensions (array expansion): `tmp[i][k]`. Each iteration then has its own
elements, dependences are exact, and the loops stay parallel. The price is
memory: one array per iteration of the loops around the declaration.

The expanded array exists where the SCoP runs only (`Array.local`): it is never
copied to or from the host program, which has no such variable. A leading
dimension whose iterator may be negative is shifted to start at 0.
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from .model import Array, Kill, Statement


def expansion(depth: int, domain: isl.Set) -> isl.Map:
    """{ S[i0, ..., in] -> [i0, ..., i(depth-1)] }: the leading indices of an expanded
    array, for a statement (or kill) inside the declaration's `depth` loops."""
    ls = isl.LocalSpace.from_space(domain.get_space())
    relation = isl.Map.from_domain(domain)
    for k in range(depth):
        relation = relation.flat_range_product(isl.Map.from_pw_aff(isl.PwAff.var_on_domain(ls, isl.dim_type.set, k)))
    return relation.intersect_domain(domain)


def expanded(name: str, element_type: str, statements: list[Statement], kills: list[Kill],
             params: isl.Set, declared_line: int | None) -> tuple[list[Statement], list[Kill], Array | None]:
    """The statements and kills with the array's accesses shifted to start at 0, and
    the array with the extents its accesses need (None when nothing accesses it)."""
    touched = None
    for stmt in statements:
        for acc in stmt.accesses:
            if acc.array == name:
                touched = acc.index.range() if touched is None else touched.union(acc.index.range())
    if touched is None:
        return statements, kills, None
    shift, extents = _shift_and_extents(touched.coalesce(), params)
    if shift is not None:
        statements = [_shifted(s, name, shift) for s in statements]
        kills = [replace(k, index=k.index.apply_range(shift)) if k.array == name else k for k in kills]
    array = Array(name, element_type, extents, tuple(True for _ in extents), declared_line=declared_line,
                  local=True, live_after=False)
    return statements, kills, array


def _shift_and_extents(touched: isl.Set, params: isl.Set) -> tuple[isl.Map | None, tuple[isl.PwAff, ...]]:
    """The map moving the smallest index of each dimension that may be negative to 0,
    and the extents after it."""
    d = touched.dim(isl.dim_type.set)
    ls = isl.LocalSpace.from_space(touched.get_space())
    shift, needed = None, False
    for k in range(d):
        lowest = touched.dim_min(k)
        var = isl.PwAff.var_on_domain(ls, isl.dim_type.set, k)
        if lowest.nonneg_set().is_equal(lowest.domain()):
            part = isl.Map.from_pw_aff(var)   # never negative: the index as it is
        else:
            lifted = lowest.add_dims(isl.dim_type.in_, d).set_tuple_id(isl.dim_type.in_, touched.get_tuple_id())
            part, needed = isl.Map.from_pw_aff(var.sub(lifted)), True
        shift = part if shift is None else shift.flat_range_product(part)
    shift = shift.set_tuple_id(isl.dim_type.out, touched.get_tuple_id())
    moved = touched.apply(shift) if needed else touched
    zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(params.get_space()))
    one = isl.PwAff.val_on_domain(params, isl.Val(1, params.get_ctx()))
    used = moved.params()   # where some element is touched: elsewhere any size >= 0 will do
    extents = tuple(moved.dim_max(k).add(one).gist(used).union_max(zero).coalesce() for k in range(d))
    return (shift if needed else None), extents


def _shifted(stmt: Statement, name: str, shift: isl.Map) -> Statement:
    accesses = tuple(replace(a, index=a.index.apply_range(shift)) if a.array == name else a
                     for a in stmt.accesses)
    return replace(stmt, accesses=accesses)
