"""What to copy between host and device around a SCoP.

An array is copied in when some element is read before any write in the SCoP
(a live-in read), or when it is written only in part: the whole array is copied
back, so the device copy must start from the host's values. Written arrays and
written scalars are copied back; arrays are allocated whole.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..isl_context import sets_of
from ..extract.model import Array, Scop


@dataclass(frozen=True)
class DeviceArray:
    array: Array
    copy_in: bool
    copy_out: bool
    read: bool
    written: bool


@dataclass(frozen=True)
class MemoryPlan:
    arrays: tuple[DeviceArray, ...]

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
    reads = scop.access_union(reads=True)
    writes = scop.access_union(reads=False)
    devices = []
    for array in scop.arrays:
        written_set = _elements(writes, array.name)
        written = written_set is not None and not written_set.is_empty()
        covered = written and extent_set(array, scop.context).is_subset(written_set)
        devices.append(DeviceArray(array, copy_in=_touches(live_in, array.name) or (written and not covered),
                                   copy_out=written, read=_touches(reads, array.name), written=written))
    return MemoryPlan(tuple(devices))


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
