"""Small isl helpers that exist because of how isl and islpy behave.

Each names the behaviour it works around; docs/isl-notes.md tells the longer
story of those that once produced wrong code. The context and its options, the
callback guard and the list helpers are in `isl_context`.
"""
from __future__ import annotations

from typing import TypeVar

import islpy as isl

from .isl_context import maps_of

SetOrMap = TypeVar("SetOrMap", isl.Set, isl.Map)


def same_parameter_order(schedule: isl.UnionMap, context: isl.Set) -> tuple[isl.UnionMap, isl.Set]:
    """A schedule map and its AST build context with one parameter order: with two orders,
    `node_from_schedule_map` prints guards that name the wrong parameter (isl-notes.md, first entry)."""
    schedule = schedule.align_params(context.get_space())
    return schedule, context.align_params(schedule.get_space())


def iterator_ids(ctx: isl.Context, names: list[str]) -> isl.IdList:
    """The ids of `names` for `AstBuild.set_iterators`: islpy builds an isl list only element by element."""
    ids = isl.IdList.alloc(ctx, len(names))
    for name in names:
        ids = ids.add(isl.Id(name, context=ctx))
    return ids


def dims_as_params(obj: SetOrMap, kind: isl.dim_type, count: int, prefix: str) -> SetOrMap:
    """The first `count` dimensions of `kind` moved to parameters named prefix0, prefix1, ...

    Named by string, not by `isl.Id`: islpy's ids carry a Python user object, so an id made
    here would be another identifier than the same name read or named elsewhere
    (`KernelBody._spread_over_threads`)."""
    n = obj.dim(isl.dim_type.param)
    moved = obj.move_dims(isl.dim_type.param, n, kind, 0, count)
    for k in range(count):
        moved = moved.set_dim_name(isl.dim_type.param, n + k, f"{prefix}{k}")
    return moved


def domain_at_params(outer: isl.UnionMap, depth: int, prefix: str) -> isl.UnionSet:
    """The instances whose first `depth` schedule values equal new parameters prefix0, prefix1, ...
    (named by string, as in `dims_as_params`)."""
    result = None
    for m in maps_of(outer):
        n = m.dim(isl.dim_type.param)
        fixed = m.add_dims(isl.dim_type.param, depth)
        for k in range(depth):
            fixed = fixed.set_dim_name(isl.dim_type.param, n + k, f"{prefix}{k}")
            fixed = fixed.equate(isl.dim_type.param, n + k, isl.dim_type.out, k)
        part = isl.UnionSet.from_set(fixed.domain())
        result = part if result is None else result.union(part)
    return result


def constant_like(pa: isl.PwAff, value: int) -> isl.PwAff:
    """`value` on exactly the domain of `pa`: isl adds or compares piecewise functions only
    where both are defined, so a constant on another domain would cut `pa`'s."""
    return isl.PwAff.val_on_domain(pa.domain(), isl.Val(value, pa.get_ctx()))


def params_as_dims(obj: SetOrMap, names: list[str], kind: isl.dim_type = isl.dim_type.set) -> SetOrMap:
    """The inverse of `dims_as_params`: parameters `names` become the first dimensions of
    `kind`, in that order (a parameter the object does not mention becomes a free dimension).

    The names are first added as parameters read by isl, for the reason given in
    `dims_as_params`."""
    if not names:
        return obj
    named = isl.Set.read_from_str(obj.get_ctx(), f"[{', '.join(names)}] -> {{ : }}").get_space()
    obj = obj.align_params(named)
    for k, name in enumerate(names):
        position = obj.find_dim_by_name(isl.dim_type.param, name)
        obj = obj.move_dims(kind, k, isl.dim_type.param, position, 1)
    return obj
