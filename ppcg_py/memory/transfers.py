"""What to copy between host and device around a SCoP.

An array is copied in when some element is read before any write in the SCoP
(a live-in read), or when it is written only in part: the whole array is copied
back, so the device copy must start from the host's values. Written arrays and
written scalars are copied back, unless nothing after the SCoP reads them;
arrays are allocated whole. Variables declared inside the SCoP never cross, and
a scalar that every kernel keeps per thread is not on the device at all.

Only the statements that kernels run count: the serial head and tail of the SCoP
run on the host (schedule/host.py), before the copies in and after the copies
back. What the head writes and the device part reads is copied in, what the
device part writes and the tail reads is copied back (a variable declared in the
SCoP too: the host then declares it), and what only the host touches stays there.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..isl_budget import LIMITS, refinement
from ..isl_context import constant_on, sets_of
from ..extract.model import Array, Scop


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
    """What crosses between host and device, where each kernel's groups live, and the
    schedule tree with all of it written in (copies, syncs, transfers: memory/tree.py)."""

    arrays: tuple[DeviceArray, ...]
    kernels: tuple = ()      # KernelMemory of each kernel
    schedule: isl.Schedule | None = None
    syncs: tuple = ()        # HostSync: copies around host statements between kernels (host_syncs.py)

    def device_array(self, name: str) -> DeviceArray:
        for dev in self.arrays:
            if dev.array.name == name:
                return dev
        raise KeyError(name)

    def kernel(self, name: str):
        """The KernelMemory of kernel `name` (kernel0, ...)."""
        for kernel in self.kernels:
            if kernel.kernel == name:
                return kernel
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


def plan_transfers(scop: Scop, live_in: isl.UnionMap, host: frozenset[str] = frozenset(),
                   head: frozenset[str] = frozenset(), tail: frozenset[str] = frozenset()) -> MemoryPlan:
    """Copy back the box around what the device writes; copy in what it reads before
    any write, and the rest of that box when the writes leave holes in it.

    `host`: the statements that run on the host (schedule/host.py), of which `head`
    run before the copies to the device and `tail` after the copies back. The device
    part also reads what the head wrote, and the tail reads what the device part
    wrote; an array only host statements touch stays on the host."""
    device = frozenset(s.name for s in scop.statements) - host
    reads = _of_statements(scop, device, reads=True)
    writes = _of_statements(scop, device, reads=False)
    must_writes = _of_statements(scop, device, reads=False, must=True)
    head_writes = _of_statements(scop, head, reads=False)
    tail_reads = _of_statements(scop, tail, reads=True)
    live_in = live_in.intersect_domain(_domain_of(scop, device))
    devices = []
    for array in scop.arrays:
        if array.member is not None:
            continue    # a member of a struct variable: the variable crosses (memory/structs.py)
        if not (_touches(reads, array.name) or _touches(writes, array.name)):
            continue    # on the host only
        if array.local and not (_touches(head_writes, array.name) or _touches(tail_reads, array.name)):
            # device-only: the host program has no such variable, and no host part uses it
            devices.append(DeviceArray(array, copy_in=False, copy_out=False, read=_touches(reads, array.name),
                                       written=_touches(writes, array.name)))
            continue
        extent = extent_set(array, scop.context)
        written_set = _elements(writes, array.name)
        written = written_set is not None and not written_set.is_empty()
        needed = _elements(live_in, array.name) if not array.local else None
        from_head = _elements(head_writes, array.name)
        read_set = _elements(reads, array.name)
        if from_head is not None and read_set is not None:
            from_head = from_head.intersect(read_set)
            needed = from_head if needed is None else needed.union(from_head)
        copy_out = written and (array.live_after or _touches(tail_reads, array.name))
        out_box: tuple = ()
        if written:
            box = _box_around(written_set, extent, array)
            out_box = box.bounds
            # a may-write leaves its elements as they were, or not: they are holes too
            must_set = _elements(must_writes, array.name)
            holes = _holes(box.elements, must_set if must_set is not None else isl.Set.empty(box.elements.get_space())) \
                if copy_out or not array.local else None
            if holes is not None:
                needed = holes if needed is None else needed.union(holes)
        copy_in = needed is not None and not needed.is_empty()
        in_box = _box_around(needed, extent, array).bounds if copy_in else ()
        devices.append(DeviceArray(array, copy_in=copy_in, copy_out=copy_out,
                                   read=_touches(reads, array.name), written=written,
                                   in_box=in_box, out_box=out_box))
    from .structs import struct_devices
    devices += struct_devices(scop, reads, writes, must_writes, live_in, head_writes, tail_reads)
    return MemoryPlan(tuple(devices))


def _of_statements(scop: Scop, statements: frozenset[str], *, reads: bool, must: bool = False) -> isl.UnionMap:
    """The reads (or writes; with `must`, the must-writes) of the statements named
    `statements`: instance -> element."""
    result = isl.UnionMap.empty(scop.context.get_space())
    for stmt in scop.statements:
        if stmt.name in statements:
            for acc in stmt.accesses:
                if acc.is_read if reads else acc.is_write and (acc.must or not must):
                    result = result.union(isl.UnionMap.from_map(acc.index))
    return result


def _domain_of(scop: Scop, statements: frozenset[str]) -> isl.UnionSet:
    result = isl.UnionSet.empty(scop.context.get_space())
    for stmt in scop.statements:
        if stmt.name in statements:
            result = result.union(isl.UnionSet.from_set(stmt.domain))
    return result


@dataclass(frozen=True)
class _Box:
    """The declared elements of an array within bounds on its outer (up to two) dimensions."""

    elements: isl.Set
    bounds: tuple[tuple[isl.PwAff, isl.PwAff], ...]


def _box_around(elements: isl.Set, extent: isl.Set, array: Array) -> _Box:
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


def _box_of(elements: isl.Set, extent: isl.Set) -> _Box:
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
    return _Box(box, bounds)


def whole_box(extent: isl.Set, array: Array) -> tuple[tuple[isl.PwAff, isl.PwAff], ...]:
    """The bounds of every declared element of `array` (`extent`: extent_set's)."""
    return _whole(extent, array).bounds


def _whole(extent: isl.Set, array: Array) -> _Box:
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
    return _Box(extent, bounds)


def _hull(elements: isl.Set, extent: isl.Set) -> isl.Set:
    """A convex, div-free superset of `elements` within the declared ones."""
    return isl.Set.from_basic_set(elements.remove_divs().simple_hull()).intersect(extent)


def _holes(box: isl.Set, written: isl.Set) -> isl.Set | None:
    """The elements of `box` that are not written (None: there are none), or the
    whole box when isl cannot tell within a bounded effort."""
    found = refinement(box.get_ctx(), LIMITS.copy_box, lambda: _with_emptiness(box.subtract(written)))
    if found is None:
        return box
    holes, empty = found
    return None if empty else holes


def _with_emptiness(elements: isl.Set) -> tuple[isl.Set, bool]:
    return elements, elements.is_empty()


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
