"""How many values a loop takes, estimated at compile time from the arrays' declared
sizes: a program that respects its arrays' bounds runs only the instances whose
accesses stay inside them, so a loop's values over those instances bound its length
whatever the parameters (unbounded where no access bounds the loop). The GPU
targets size blocks and grids by it; the C target keeps loops with little work serial.
"""
from __future__ import annotations

import islpy as isl

from ..extract.model import Scop, extent_set
from ..isl_budget import is_operation_limit
from ..isl_context import maps_of


def in_bounds_instances(scop: Scop) -> isl.UnionSet:
    """Each statement's instances whose every access lies inside its array's declared
    extents (the ones the program can execute without undefined behaviour)."""
    boxes = {a.name: extent_set(a, scop.context) for a in scop.arrays if not a.is_scalar and a.extents}
    result = isl.UnionSet.empty(scop.context.get_space())
    for stmt in scop.statements:
        domain = stmt.domain
        for access in stmt.accesses:
            box = boxes.get(access.array)
            if box is None:
                continue
            try:
                box = box.set_tuple_id(access.index.get_tuple_id(isl.dim_type.out))   # the same id, not the same name
                inside = access.index.intersect_range(box.align_params(access.index.get_space())).domain()
                domain = domain.intersect(inside.align_params(domain.get_space()))
            except isl.Error:
                continue
        result = result.union(isl.UnionSet.from_set(domain))
    return result


def band_extents(band: isl.ScheduleNode, in_bounds: isl.UnionSet) -> tuple[int | None, ...]:
    """Per band member, how many values it takes over the instances in bounds, for any
    parameter values; None where no array bounds it. A statement whose accesses do not
    bound the member (doitgen's `sum_1[r][q][p] = 0`, whose array is sized by the loops)
    runs in the same loop as those that do: the longest of theirs is the estimate."""
    domain = band.get_domain().intersect(in_bounds)
    extents: list[int | None] = []
    for k in range(band.band_n_member()):
        known = [e for e in (_values_extent(m.range()) for m in maps_of(member_values(band, k, domain)))
                 if e is not None]
        extents.append(max(known) if known else None)
    return tuple(extents)


def _values_extent(values: isl.Set) -> int | None:
    """How many values a statement's member takes, for any parameter values: where the
    values move with a parameter that no array bounds (deriche's reversed sweep `w - i`,
    `i` bounded by the arrays, `w` not), the largest distance between two of them at the
    same parameter values. Without it, the sweep's statements at the constant 0 (its
    initialisations) gave the loop one value, and its OpenMP loop too little work."""
    extent = set_extent(values)
    if extent is not None:
        return extent
    try:
        distances = isl.Map.from_domain_and_range(values, values).deltas()
    except isl.Error as exc:
        if is_operation_limit(exc):     # the step's bound: not a fact about the values
            raise
        return None
    # 0 up to the largest distance: as many as the values
    return set_extent(distances.lower_bound_val(isl.dim_type.set, 0, isl.Val.zero(distances.get_ctx())))


def member_values(band: isl.ScheduleNode, k: int, domain: isl.UnionSet) -> isl.UnionMap:
    """{ S[i] -> [value of member k] } over `domain`."""
    return isl.UnionMap.from_union_pw_aff(band.band_get_partial_schedule().get_at(k)).intersect_domain(domain)


def set_extent(rng: isl.Set) -> int | None:
    """How many values a one-dimensional set takes, for any parameter values; None
    where it is unbounded."""
    try:
        rng = rng.project_out(isl.dim_type.param, 0, rng.dim(isl.dim_type.param))
        if rng.is_empty() or not rng.is_bounded():
            return None
        high, low = rng.dim_max_val(0), rng.dim_min_val(0)
        if not (high.is_int() and low.is_int()):
            return None
        return int(high.to_python()) - int(low.to_python()) + 1
    except isl.Error as exc:
        if is_operation_limit(exc):
            raise
        return None
