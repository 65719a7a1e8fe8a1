"""What of a struct variable crosses between host and device (extract/structs.py).

The model has one field array per member the SCoP accesses; memory has the struct
variable, whole elements at a time. What a member's transfer would need, along the
variable's own dimensions (its field array's first ones), is what the variable's
needs, the union over its members: the elements some member reads before any
write, and the box around the elements some member writes, which is copied back
whole. An element in that box that the SCoP does not write whole (every member,
each of them a scalar) is copied in too: the copy back must carry its host values.
"""
from __future__ import annotations

import islpy as isl

from ..extract.model import Scop, StructVariable
from .device_arrays import DeviceArray, copy_box, elements_of, extent_set, touches


def struct_devices(scop: Scop, reads: isl.UnionMap, writes: isl.UnionMap, must_writes: isl.UnionMap,
                   live_in: isl.UnionMap, head_writes: isl.UnionMap, tail_reads: isl.UnionMap) -> list[DeviceArray]:
    """One DeviceArray per struct variable the device part accesses (arguments as
    plan_transfers computes them; an element only a may-write touches is not written
    whole: it is copied in)."""
    devices = []
    for var in scop.struct_variables:
        if not any(touches(reads, f) or touches(writes, f) for f in var.fields):
            continue    # on the host only
        devices.append(_device(scop, var, reads, writes, must_writes, live_in, head_writes, tail_reads))
    return devices


def _device(scop: Scop, var: StructVariable, reads, writes, must_writes, live_in, head_writes,
            tail_reads) -> DeviceArray:
    array = var.array
    needed = written_set = whole = None
    for name in var.fields:
        read_here = elements_of(reads, name)
        from_head = elements_of(head_writes, name)
        parts = [elements_of(live_in, name)]
        if from_head is not None and read_here is not None:
            parts.append(from_head.intersect(read_here))
        for part in parts:
            needed = _union(needed, _outer(part, array.rank, array.name))
        written = elements_of(writes, name)
        written_set = _union(written_set, _outer(written, array.rank, array.name))
        if var.complete:   # every member a scalar field array: written[i] of each
            must = elements_of(must_writes, name)
            mine = _outer(must, array.rank, array.name) if must is not None else None
            whole = mine if whole is None else (whole.intersect(mine) if mine is not None else None)
            if mine is None:
                var = StructVariable(var.array, var.fields, False)
                whole = None
    read = any(touches(reads, f) for f in var.fields)
    written = written_set is not None and not written_set.is_empty()
    copy_out = written and (array.live_after or any(touches(tail_reads, f) for f in var.fields))
    if array.is_scalar:
        holes = written and not (var.complete and whole is not None and not whole.is_empty())
        copy_in = (needed is not None and not needed.is_empty()) or holes
        return DeviceArray(array, copy_in=copy_in, copy_out=copy_out, read=read, written=written)
    extent = extent_set(array, scop.context)
    out_box: tuple = ()
    if written:
        box = copy_box(written_set, extent, array)
        out_box = box.bounds
        holes = box.elements if whole is None else box.elements.subtract(whole.align_params(box.elements.get_space()))
        if not holes.is_empty():
            needed = holes if needed is None else needed.union(holes.align_params(needed.get_space()))
    copy_in = needed is not None and not needed.is_empty()
    in_box = copy_box(needed, extent, array).bounds if copy_in else ()
    return DeviceArray(array, copy_in=copy_in, copy_out=copy_out, read=read, written=written,
                       in_box=in_box, out_box=out_box)


def _outer(elements: isl.Set | None, rank: int, name: str) -> isl.Set | None:
    """The elements of the struct variable that hold `elements` of a field array."""
    if elements is None:
        return None
    n = elements.dim(isl.dim_type.set)
    return elements.project_out(isl.dim_type.set, rank, n - rank).set_tuple_name(name)


def _union(a: isl.Set | None, b: isl.Set | None) -> isl.Set | None:
    if a is None or b is None:
        return a if b is None else b
    return a.union(b.align_params(a.get_space()))
