"""What crosses between host and device, one array at a time: `DeviceArray`, the
declared elements of an array (`extent_set`), the box of them that a copy moves
(`copy_box`, `whole_box`), and the elements an access relation touches.

Shared by the plans of transfers (transfers.py, structs.py), host syncs and copies."""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..extract.model import Array, extent_set
from ..isl_budget import LIMITS, refinement
from ..isl_context import constant_on, sets_of


@dataclass(frozen=True)
class DeviceArray:
    """An array on the device and the part of it that crosses each way.

    A part is a bounding box over the outermost (up to two) dimensions, as (low,
    high) pairs of parameter expressions; inner dimensions cross whole.
    """

    array: Array
    copy_in: bool
    copy_out: bool
    read: bool
    written: bool
    in_box: tuple[tuple[isl.PwAff, isl.PwAff], ...] = ()
    out_box: tuple[tuple[isl.PwAff, isl.PwAff], ...] = ()


@dataclass(frozen=True)
class CopyBox:
    """The declared elements of an array within bounds on its outer (up to two) dimensions."""

    elements: isl.Set
    bounds: tuple[tuple[isl.PwAff, isl.PwAff], ...]


def copy_box(elements: isl.Set, extent: isl.Set, array: Array) -> CopyBox:
    """The tightest box around `elements` that isl finds within a bounded effort.

    Exact bounds can take isl minutes (parametric minima over sets with many
    existentials, seen in fuzzed programs); then the box around the div-free
    hull, then the whole array. A wider box is still correct: more crosses.
    """
    elements = elements.align_params(extent.get_space())
    extent = extent.align_params(elements.get_space())
    ctx = extent.get_ctx()
    box = refinement(ctx, LIMITS.copy_box, lambda: _box_of(elements, extent))
    if box is None:
        box = refinement(ctx, LIMITS.copy_box, lambda: _box_of(_hull(elements, extent), extent))
    return box if box is not None else _whole(extent, array)


def _box_of(elements: isl.Set, extent: isl.Set) -> CopyBox:
    box = extent
    n = extent.dim(isl.dim_type.set)
    var_space = isl.LocalSpace.from_space(extent.get_space())
    for k in range(min(2, n)):
        var = isl.PwAff.var_on_domain(var_space, isl.dim_type.set, k)
        low, high = (bound.add_dims(isl.dim_type.in_, n).set_tuple_id(isl.dim_type.in_, extent.get_tuple_id())
                     for bound in (elements.dim_min(k), elements.dim_max(k)))
        box = box.intersect(var.ge_set(low)).intersect(var.le_set(high))
    box = box.coalesce()
    bounds = tuple((box.dim_min(k).coalesce(), box.dim_max(k).coalesce()) for k in range(min(2, n)))
    return CopyBox(box, bounds)


def whole_box(extent: isl.Set, array: Array) -> tuple[tuple[isl.PwAff, isl.PwAff], ...]:
    """The bounds of every declared element of `array` (`extent`: extent_set's)."""
    return _whole(extent, array).bounds


def _whole(extent: isl.Set, array: Array) -> CopyBox:
    """The box of all declared elements, built from the sizes without a parametric
    minimum (an inferred size of `A[]` can be a piecewise expression that makes
    even the minimum of the declared elements slow). It exists where the outer sizes
    are positive."""
    params = extent.params()
    outer = [size.align_params(extent.get_space()).intersect_params(params) for size in array.extents[:2]]
    where = params
    for size in outer:
        where = where.intersect(size.ge_set(constant_on(size.get_domain_space(), 1)))
    bounds = tuple((constant_on(size.get_domain_space(), 0).intersect_domain(where),
                    size.sub(constant_on(size.get_domain_space(), 1)).intersect_domain(where)) for size in outer)
    return CopyBox(extent, bounds)


def _hull(elements: isl.Set, extent: isl.Set) -> isl.Set:
    """A convex, div-free superset of `elements` within the declared ones."""
    return isl.Set.from_basic_set(elements.remove_divs().simple_hull()).intersect(extent)


def touches(accesses: isl.UnionMap, name: str) -> bool:
    found = elements_of(accesses, name)
    return found is not None and not found.is_empty()


def elements_of(accesses: isl.UnionMap, name: str) -> isl.Set | None:
    """The elements of array `name` in the range of `accesses`."""
    result = None
    for s in sets_of(accesses.range()):
        if s.get_tuple_name() == name:
            result = s if result is None else result.union(s)
    return result
