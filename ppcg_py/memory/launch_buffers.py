"""Shared buffers that live through a launch of split tiles (`--hybrid`).

A launch of split tiles (schedule/gpu/hybrid.py) runs a band of time steps: each
block runs one tile at every step, a barrier between the steps. The kernel of one
step reads what the block's own threads wrote at the steps before, so the tile's
data can stay in shared memory for the whole launch: loaded once, before the steps'
loop, and stored once, after it (memory/tree.py `launch_copies`). The per-step
placement (groups.py) cannot see that reuse: a buffer there lives for one step.

Why it is correct: the tiles of one launch are independent (hybrid.py checks every
dependence between in-bounds instances: none joins two tiles of one launch). So an
element that a tile reads was last written by the same tile at an earlier step (in
its buffer) or before the launch (in global memory when the buffer is loaded); no
other tile of the launch writes an element this tile reads or writes. The load
takes the tile's whole box (elements it never reads are never used); the store
writes back exactly the elements the tile wrote, so it never overwrites another
tile's results.

A buffer's elements are a function of the launch's outer loops and the block ids.
That needs one tile per block: every in-bounds instance's tile index is its block
id (the grid covers the tiles, as it does where the arrays' declared extents bound
the positions); else the data stays in global memory. An instance outside the
declared extents is undefined behaviour in the source already.
"""
from __future__ import annotations

import math
from dataclasses import replace

import islpy as isl

from ..extract.model import Array, Scop, extent_set
from ..gpu_targets import GPUS
from ..isl_budget import LIMITS, refinement
from ..isl_context import locals_preserved
from ..options import Options
from ..schedule.gpu import Kernel
from ..schedule.gpu.device_loops import HYBRID_LAUNCH
from ..schedule.loop_extents import in_bounds_instances
from .box import box_size, fixed_box
from .groups import (ELEMENT_BYTES, ArrayGroup, KernelMemory, box_elements, elements_per_level, free_name,
                     kernel_references, union_relation)


def launch_level(kernel: Kernel) -> int | None:
    """The outer-schedule depth of the kernel's launch of split tiles (the steps' loop
    is the kernel's last host loop), or None for any other kernel."""
    if not (kernel.launched_in or "").startswith(HYBRID_LAUNCH) or not kernel.thread_ids:
        return None
    return kernel.host_depth - 1


def with_launch_buffers(scop: Scop, kernel: Kernel, memory: KernelMemory, options: Options,
                        prefix: str, *, alone: bool = True) -> KernelMemory:
    """`memory` with the arrays of a launch of split tiles in shared buffers that last
    the launch, where their boxes fit in the block's shared memory. Not where the launch
    runs other kernels too (`alone` false): each would keep a copy of its own."""
    level = launch_level(kernel)
    if level is None or not options.use_shared_memory or not alone:
        return memory
    ctx = kernel.domain.get_ctx()
    owned = "strided" if _strided_outside(kernel, level) else \
        refinement(ctx, LIMITS.launch_buffer, lambda: _one_tile_per_block(scop, kernel))
    if not isinstance(owned, isl.UnionSet):
        why = "a loop around the launch takes every k-th value only" if owned == "strided" else \
            "a block may run several tiles" if isinstance(owned, str) else \
            f"isl failed, or needed more than {LIMITS.launch_buffer} operations, on the launch's tiles"
        return replace(memory, groups=tuple(_noted(g, f"no buffer across the launch's steps: {why}")
                                            for g in memory.groups))
    tile = replace(kernel, domain=kernel.domain.intersect(owned))
    budget = min(options.max_shared_memory, GPUS[options.gpu].shared_per_block)
    placed, notes = _buffers(scop, tile, memory, level, prefix, budget)
    if any(g.placement == "shared" and g.array not in placed and
           any(o.array == g.array and o.placement not in ("global", "shared") for o in memory.groups)
           for g in memory.groups):
        return memory       # a step's buffer would go to global memory beside a register copy of its array
    return replace(memory, groups=_regrouped(scop, memory, placed, notes))


def _strided_outside(kernel: Kernel, level: int) -> bool:
    """Whether a loop outside the launch's steps' loop takes every k-th value only
    (k > 1): isl may then number its iterations, where the launch's copies use the
    loops' values by the loops' names (codegen/ast.py checks that they may)."""
    values = isl.Set.from_union_set(kernel.host_schedule.intersect_domain(kernel.domain).range())
    values = values.project_out(isl.dim_type.set, level, values.dim(isl.dim_type.set) - level)
    return any(values.get_stride(k).to_python() != 1 for k in range(level))


def _buffers(scop: Scop, tile: Kernel, memory: KernelMemory, level: int, prefix: str,
             budget: int) -> tuple[dict[str, ArrayGroup], dict[str, str]]:
    """The launch's buffer of each array that gets one, in the order of `memory`'s groups
    while the `budget` (bytes of shared memory) lasts, and why each other candidate has
    none."""
    ctx = tile.domain.get_ctx()
    placed: dict[str, ArrayGroup] = {}
    notes: dict[str, str] = {}
    for array in dict.fromkeys(g.array for g in memory.groups):
        mine = [g for g in memory.groups if g.array == array]
        if not _candidate(scop, array, mine):
            continue
        if any(row.array == array for row in memory.shuffles):
            notes[array] = "its neighbours come by warp shuffles (--warp-shuffles), from global memory"
            continue
        declared = scop.array(array)
        least = min(math.prod(tile.sizes.tile), _declared_elements(declared)) * \
            ELEMENT_BYTES.get(declared.element_type, 8)
        if least > budget:      # the tile's first step alone (heat-3d at LARGE: 16 x 16 x 128)
            notes[array] = f"its tile alone ({least} bytes) does not fit in shared memory"
            continue
        # isl's coalescing can fail its own assertion on these sets (fdtd-2d at small sizes),
        # and crash where the sizes are constants unless it keeps their existentials
        with locals_preserved(ctx):
            found = refinement(ctx, LIMITS.launch_buffer, lambda: _launch_group(
                scop, tile, array, frozenset().union(*(g.refs for g in mine)), level, prefix)) or \
                f"isl failed, or needed more than {LIMITS.launch_buffer} operations, on its elements across " \
                "the launch's steps"
        if isinstance(found, str) or found.bytes > budget:
            notes[array] = found if isinstance(found, str) else \
                f"its box across the launch's steps ({found.bytes} bytes) does not fit in shared memory"
            continue
        budget -= found.bytes
        placed[array] = found
    return placed, notes


def _regrouped(scop: Scop, memory: KernelMemory, placed: dict[str, ArrayGroup],
               notes: dict[str, str]) -> tuple[ArrayGroup, ...]:
    """`memory`'s groups with each `placed` array's groups replaced by its one buffer
    (named where the program and the other buffers leave a name free), the steps' own
    shared buffers moved to global memory where any array has a launch's buffer, and the
    other candidates' `notes` added to their reasons."""
    groups: list[ArrayGroup] = []
    for g in memory.groups:
        if g.array in placed:
            if not any(other.whole_launch and other.array == g.array for other in groups):
                taken = set(scop.used_names) | {o.name for o in groups} | {f"shared_{o.name}" for o in groups}
                groups.append(replace(placed[g.array], name=free_name(f"shared_{g.array}", taken)))
        elif g.placement == "shared" and placed:
            # the launch inlines the step's kernel once per place isl prints it: its own
            # buffers would be declared as often, the launch's once
            groups.append(replace(g, placement="global", box=(), copy_in=None, copy_out=None,
                                  reason="the launch's buffers take the shared memory"))
        else:
            groups.append(_noted(g, notes[g.array]) if g.array in notes else g)
    return tuple(groups)


def _declared_elements(array: Array) -> int:
    """The array's declared elements, or a number larger than any buffer where an extent
    is not a constant."""
    if not all(e.is_cst() for e in array.extents):
        return 1 << 40
    return math.prod(int(e.max_val().to_python()) for e in array.extents)


def _convex(elements: isl.Set) -> isl.Set:
    """`elements` as one polyhedron without existentials where it is one (a tile's
    elements across its steps, whose conditions modulo the tiles' periods isl keeps):
    the copies' loops and the box are then cheap for isl."""
    hull = isl.Set.from_basic_set(elements.simple_hull())
    return hull if hull.is_subset(elements) else elements


def _noted(group: ArrayGroup, reason: str) -> ArrayGroup:
    return replace(group, reason=f"{group.reason}; {reason}") if group.placement == "global" else group


def _candidate(scop: Scop, array: str, groups: list[ArrayGroup]) -> bool:
    """An array (not a scalar or a struct's member) whose every access is exact and
    every write a must-write, kept in global memory or per-step buffers."""
    declared = scop.array(array)
    if declared.is_scalar or declared.member is not None:
        return False
    if any(g.placement not in ("global", "shared") for g in groups):
        return False
    return all(acc.exact and (acc.must or not acc.is_write)
               for stmt in scop.statements if not stmt.calls for acc in stmt.accesses if acc.array == array)


def _one_tile_per_block(scop: Scop, kernel: Kernel) -> isl.UnionSet | str:
    """The kernel's instances whose tile indices are their block ids (parameters), where
    every in-bounds instance is such; else "several"."""
    if kernel.block_schedule is None or not kernel.block_ids:
        return "several"
    ctx = kernel.domain.get_ctx()
    names = [f"x{k}" for k in range(len(kernel.block_ids))]
    inside = " and ".join(f"0 <= {x} < {g}" for x, g in zip(names, kernel.sizes.grid))
    grid = isl.UnionSet.from_set(isl.Set.read_from_str(ctx, f"{{ [{', '.join(names)}] : {inside} }}"))
    tiles = kernel.block_schedule.intersect_domain(in_bounds_instances(scop))
    if not tiles.range().is_subset(grid.align_params(tiles.get_space())):
        return "several"
    same = " and ".join(f"{x} = {b}" for x, b in zip(names, kernel.block_ids))
    own = isl.Set.read_from_str(ctx, f"[{', '.join(kernel.block_ids)}] -> {{ [{', '.join(names)}] : {same} }}")
    own = own.intersect_params(kernel.id_ranges().align_params(own.get_space()))
    return kernel.block_schedule.intersect_range(isl.UnionSet.from_set(own)).domain()


def _launch_group(scop: Scop, tile: Kernel, array: str, tags: frozenset[str], level: int,
                  prefix: str) -> ArrayGroup | str:
    """The buffer of `array` for one block's tile across the launch, or why there is none:
    loaded before the steps' loop and stored after it, at the depth of the loops outside
    it (`level`: the copies' elements are functions of those loops and the block ids)."""
    refs = [r for r in kernel_references(scop, tile) if r.tag in tags]
    if not refs:        # fuzz 2881:150: no instance of its statements runs in a block's own tile
        return "no reference in a block's own tile"
    # no test of reuse: each step reads what its neighbours wrote at the steps before
    relation = union_relation(refs)
    declared = scop.array(array)
    # within the declared extents (the in-bounds instances' elements): a tile whole along a
    # dimension of parametric extent has a box of the array's size there
    elements = elements_per_level(tile, relation, level, prefix, False)
    extent = extent_set(declared, scop.context).set_tuple_name(elements.get_tuple_name())
    elements = elements.intersect(extent.align_params(elements.get_space())).coalesce()
    box = fixed_box(_convex(elements))
    if box is None:
        return "no box of constant size across the launch's steps"
    reads, writes = any(r.reads for r in refs), any(r.writes for r in refs)
    loaded = box_elements(box, declared, scop) if reads else None
    written = union_relation(refs, writes_only=True)
    stored = _convex(elements_per_level(tile, written, level, prefix, False)) if writes else None
    return ArrayGroup(array, tags, "shared", level=level, box=box, copy_in=loaded, copy_out=stored,
                      element_type=declared.element_type, whole_launch=True,
                      reason=f"reuse across the launch's steps: loaded before the first, "
                             f"stored after the last ({box_size(box)} elements per tile)")

