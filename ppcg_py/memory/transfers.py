"""What to copy between host and device around a SCoP.

An array is copied in when some element is read before any write in the SCoP
(a live-in read), or when it is written only in part: the whole array is copied
back, so the device copy must start from the host's values. Written arrays and
written scalars are copied back; arrays are allocated whole. Arrays declared
inside the SCoP (expanded locals) live on the device only and never cross.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..isl_context import sets_of, within_operations
from ..extract.model import Array, Scop

_BOUND_OPERATIONS = 200_000


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
class MemoryPlan:
    arrays: tuple[DeviceArray, ...]
    kernels: tuple = ()      # KernelMemory of each kernel, in kernel order

    def device_array(self, name: str) -> DeviceArray:
        for dev in self.arrays:
            if dev.array.name == name:
                return dev
        raise KeyError(name)


def extent_set(array: Array, context: isl.Set) -> isl.Set:
    """{ A[i..] : 0 <= i_k < extent_k }, the declared elements of an array."""
    params = [context.get_dim_name(isl.dim_type.param, k) for k in range(context.dim(isl.dim_type.param))]
    space = isl.Space.create_from_names(context.get_ctx(), set=[f"i{k}" for k in range(array.rank)],
                                        params=params)
    result = isl.Set.universe(space).intersect_params(context)
    ls = isl.LocalSpace.from_space(space)
    for k, extent in enumerate(array.extents):
        var = isl.PwAff.var_on_domain(ls, isl.dim_type.set, k)
        bound = extent.add_dims(isl.dim_type.in_, array.rank)
        result = result.intersect(var.ge_set(isl.PwAff.zero_on_domain(ls))).intersect(var.lt_set(bound))
    return result.set_tuple_name(array.name)


def plan_transfers(scop: Scop, live_in: isl.UnionMap) -> MemoryPlan:
    """Copy back the box around what is written; copy in what is read before any
    write, and the rest of that box when the writes leave holes in it."""
    reads = scop.access_union(reads=True)
    writes = scop.access_union(reads=False)
    devices = []
    for array in scop.arrays:
        if array.local:       # device-only: the host program has no such variable
            devices.append(DeviceArray(array, copy_in=False, copy_out=False, read=_touches(reads, array.name),
                                       written=_touches(writes, array.name)))
            continue
        extent = extent_set(array, scop.context)
        written_set = _elements(writes, array.name)
        written = written_set is not None and not written_set.is_empty()
        needed = _elements(live_in, array.name)
        out_box: tuple = ()
        if written:
            box_set = _outer_box(written_set, extent)
            out_box = _bounds(box_set, array.rank)
            holes = box_set.subtract(written_set)
            if not holes.is_empty():
                needed = holes if needed is None else needed.union(holes)
        copy_in = needed is not None and not needed.is_empty()
        in_box = _bounds(_outer_box(needed, extent), array.rank) if copy_in else ()
        devices.append(DeviceArray(array, copy_in=copy_in, copy_out=written,
                                   read=_touches(reads, array.name), written=written,
                                   in_box=in_box, out_box=out_box))
    return MemoryPlan(tuple(devices))


def _outer_box(elements: isl.Set, extent: isl.Set) -> isl.Set:
    """The elements of `extent` within the bounds of `elements` on the outer two dims."""
    elements = elements.align_params(extent.get_space())
    extent = extent.align_params(elements.get_space())
    box = extent
    for k in range(min(2, extent.dim(isl.dim_type.set))):
        low, high = _range_of(elements, extent, k)
        var = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(extent.get_space()), isl.dim_type.set, k)
        n = extent.dim(isl.dim_type.set)
        low = low.add_dims(isl.dim_type.in_, n).set_tuple_id(isl.dim_type.in_, extent.get_tuple_id())
        high = high.add_dims(isl.dim_type.in_, n).set_tuple_id(isl.dim_type.in_, extent.get_tuple_id())
        box = box.intersect(var.ge_set(low)).intersect(var.le_set(high))
    return box.coalesce()


def _range_of(elements: isl.Set, extent: isl.Set, k: int) -> tuple[isl.PwAff, isl.PwAff]:
    """Bounds on dimension k of `elements`: exact when isl finds them quickly, else
    those of the div-free hull (wider, so the transfers cover more: still correct)."""
    exact = within_operations(elements.get_ctx(), _BOUND_OPERATIONS,
                              lambda: (elements.dim_min(k), elements.dim_max(k)))
    if exact is not None:
        return exact
    hull = isl.Set.from_basic_set(elements.remove_divs().simple_hull()).intersect(extent)
    return hull.dim_min(k), hull.dim_max(k)


def _bounds(box: isl.Set, rank: int) -> tuple[tuple[isl.PwAff, isl.PwAff], ...]:
    return tuple((box.dim_min(k).coalesce(), box.dim_max(k).coalesce()) for k in range(min(2, rank)))


def _touches(accesses: isl.UnionMap, name: str) -> bool:
    found = _elements(accesses, name)
    return found is not None and not found.is_empty()


def _elements(accesses: isl.UnionMap, name: str) -> isl.Set | None:
    """The elements of array `name` in the range of `accesses`."""
    result = None
    for s in sets_of(accesses.range()):
        if s.get_tuple_name() == name:
            result = s if result is None else result.union(s)
    return result
