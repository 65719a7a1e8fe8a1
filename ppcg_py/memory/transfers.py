"""What to copy between host and device around a SCoP.

An array is copied in when some element is read before any write in the SCoP
(a live-in read), or when it is written only in part: the whole array is copied
back, so the device copy must start from the host's values. Written arrays and
written scalars are copied back, unless nothing after the SCoP reads them;
arrays are allocated whole. Variables declared inside the SCoP never cross, and
a scalar that every kernel keeps per thread is not on the device at all.

Only the statements that kernels run count: the serial head and tail of the SCoP
run on the host (schedule/gpu/host.py), before the copies in and after the copies
back. What the head writes and the device part reads is copied in, what the
device part writes and the tail reads is copied back (a variable declared in the
SCoP too: the host then declares it), and what only the host touches stays there.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..extract.model import Scop
from ..isl_budget import LIMITS, refinement
from .device_arrays import DeviceArray, copy_box, elements_of, extent_set, touches
from .structs import struct_devices


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


def plan_transfers(scop: Scop, live_in: isl.UnionMap, host: frozenset[str] = frozenset(),
                   head: frozenset[str] = frozenset(), tail: frozenset[str] = frozenset()) -> MemoryPlan:
    """Copy back the box around what the device writes; copy in what it reads before
    any write, and the rest of that box when the writes leave holes in it.

    `host`: the statements that run on the host (schedule/gpu/host.py), of which `head`
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
        if not (touches(reads, array.name) or touches(writes, array.name)):
            continue    # on the host only
        if array.local and not (touches(head_writes, array.name) or touches(tail_reads, array.name)):
            # device-only: the host program has no such variable, and no host part uses it
            devices.append(DeviceArray(array, copy_in=False, copy_out=False, read=touches(reads, array.name),
                                       written=touches(writes, array.name)))
            continue
        extent = extent_set(array, scop.context)
        written_set = elements_of(writes, array.name)
        written = written_set is not None and not written_set.is_empty()
        needed = elements_of(live_in, array.name) if not array.local else None
        from_head = elements_of(head_writes, array.name)
        read_set = elements_of(reads, array.name)
        if from_head is not None and read_set is not None:
            from_head = from_head.intersect(read_set)
            needed = from_head if needed is None else needed.union(from_head)
        copy_out = written and (array.live_after or touches(tail_reads, array.name))
        out_box: tuple = ()
        if written:
            box = copy_box(written_set, extent, array)
            out_box = box.bounds
            # a may-write leaves its elements as they were, or not: they are holes too
            must_set = elements_of(must_writes, array.name)
            holes = _holes(box.elements, must_set if must_set is not None else isl.Set.empty(box.elements.get_space())) \
                if copy_out or not array.local else None
            if holes is not None:
                needed = holes if needed is None else needed.union(holes)
        copy_in = needed is not None and not needed.is_empty()
        in_box = copy_box(needed, extent, array).bounds if copy_in else ()
        devices.append(DeviceArray(array, copy_in=copy_in, copy_out=copy_out,
                                   read=touches(reads, array.name), written=written,
                                   in_box=in_box, out_box=out_box))
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
