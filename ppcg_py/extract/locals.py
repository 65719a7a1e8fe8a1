"""Scalars declared inside a SCoP, expanded over the loops around them.

`double t = A[i][j] * 2;` in the body of loops `i`, `j` is a new variable in
every iteration (i, j). Modelled as one scalar, it would carry false
dependences between iterations and serialise both loops. Instead it becomes a
device-only array indexed by those loops (scalar expansion): `t[i][j]`. Each
iteration then writes its own element, dependences are exact, and the loops
stay parallel. A local declared outside any loop stays a single element.

The array exists only on the device (`Array.local`): it is never copied to or
from the host, since the host program has no such variable. The price is
device memory: one element per iteration of the loops around the declaration.
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from .c_types import VarType
from .model import Array, Statement
from .normalize import Local


def unshifted_access(local: Local, domain: isl.Set) -> isl.Map:
    """{ S[i0, ..., in] -> t[i0, ..., i(depth-1)] } for a statement inside the local's scope."""
    ls = isl.LocalSpace.from_space(domain.get_space())
    relation = isl.Map.from_domain(domain)
    for k in range(local.depth):
        part = isl.Map.from_pw_aff(isl.PwAff.var_on_domain(ls, isl.dim_type.set, k))
        relation = relation.flat_range_product(part)
    relation = relation.set_tuple_name(isl.dim_type.out, local.name)
    return relation.intersect_domain(domain)


def expand(locals_: dict[str, Local], types: dict[str, VarType], statements: list[Statement],
           params_space: isl.Set) -> tuple[list[Statement], list[Array]]:
    """Statements with each local's accesses shifted to start at 0, and the local arrays."""
    arrays: list[Array] = []
    for name, local in locals_.items():
        accesses = [a for s in statements for a in s.accesses if a.array == name]
        if not accesses:
            continue
        touched = accesses[0].index.range()
        for acc in accesses[1:]:
            touched = touched.union(acc.index.range())
        shift, extents = _shift_and_extents(touched.coalesce(), params_space)
        if shift is not None:
            statements = [_shifted(s, name, shift) for s in statements]
        vt = types[name]
        arrays.append(Array(name, vt.base, extents, tuple(True for _ in extents), is_scalar=local.depth == 0,
                            declared_line=local.decl.coord.line if local.decl.coord else None, local=True))
    return statements, arrays


def _shift_and_extents(touched: isl.Set, params_space: isl.Set) -> tuple[isl.Map | None, tuple[isl.PwAff, ...]]:
    """The map moving the smallest index of each dimension to 0, and the extents after it."""
    d = touched.dim(isl.dim_type.set)
    if d == 0:
        return None, ()
    ls = isl.LocalSpace.from_space(touched.get_space())
    shift = None
    needed = False
    for k in range(d):
        lowest = touched.dim_min(k)
        var = isl.PwAff.var_on_domain(ls, isl.dim_type.set, k)
        if lowest.nonneg_set().is_equal(lowest.domain()):
            part = isl.Map.from_pw_aff(var)   # never negative: keep the iterator's own value
        else:
            lifted = lowest.add_dims(isl.dim_type.in_, d).set_tuple_id(isl.dim_type.in_, touched.get_tuple_id())
            part = isl.Map.from_pw_aff(var.sub(lifted))
            needed = True
        shift = part if shift is None else shift.flat_range_product(part)
    shift = shift.set_tuple_id(isl.dim_type.out, touched.get_tuple_id())
    moved = touched.apply(shift) if needed else touched
    zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(params_space.get_space()))
    one = isl.PwAff.val_on_domain(params_space, isl.Val(1, params_space.get_ctx()))
    used = moved.params()   # where some element is touched: elsewhere any size >= 0 will do
    extents = tuple(moved.dim_max(k).add(one).gist(used).union_max(zero).coalesce() for k in range(d))
    return (shift if needed else None), extents


def _shifted(stmt: Statement, name: str, shift: isl.Map) -> Statement:
    accesses = tuple(replace(a, index=a.index.apply_range(shift)) if a.array == name else a
                     for a in stmt.accesses)
    return replace(stmt, accesses=accesses)

