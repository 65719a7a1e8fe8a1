"""Serial loops and consecutive small kernels run on the GPU by one block.

durbin, trisolv and jacobi-1d have a serial outer loop (2,000 or 500 steps) around
kernels of a few thousand threads each. Launched from the host, every step costs a
launch or more (about 5 us on an H100, measured: more than the step's work), so the
GPU code ran 5 to 30 times slower than one CPU core. One block of up to 1,024 threads
can run such a loop whole: the loop moves into one kernel, each of its kernels runs
there in turn on that block's threads, and a `__syncthreads()` after each replaces the
launch boundary (it orders the block's global-memory accesses as a new launch would).

A loop qualifies when the sizes are ppcg-py's to choose (CUDA, no size option), the
host runs nothing inside it, and each of its statements runs at most
`MAX_INSTANCES_PER_STEP` instances per iteration (estimated from the arrays' declared
extents): above, one block (one SM) would be slower than a launch over the whole GPU.
Consecutive kernels that are each that small at every run of the sequence holding them
(gramschmidt's norm, square root and column scaling at each step) run the same way,
in one launch of one block per run (fused kernels), where that saves launches.

Every kernel inside gets one block of the same size, so that the code printed for it
as a kernel of its own is the code the one-block launch inlines (codegen/device_loop.py).
"""
from __future__ import annotations

import math

import islpy as isl

from ...gpu_targets import GpuTarget
from ...isl_context import band_values, sets_of
from ..loop_extents import band_extents, set_extent
from ..sizes import KernelSizes

# Instances of one statement in one iteration of the loop, at most: twice a block of
# 1,024 threads (jacobi-1d's and durbin's 2,000 points; adi's 1,000 x 1,000 sweep, no).
MAX_INSTANCES_PER_STEP = 4096
# the marks (and kernel functions) of one block's launches: a loop, consecutive kernels
DEVICE_LOOP, FUSED_KERNELS = "device_loop", "fused_kernels"
# a launch of split tiles along time: a grid of blocks, each running its tile's steps
# (schedule/gpu/hybrid.py); printed as a device loop whose kernels share their grid
HYBRID_LAUNCH = "hybrid_launch"
_MIN_THREADS = 32
_OTHER_TILE = 32


def device_loop_block(band: isl.ScheduleNode, in_bounds: isl.UnionSet, gpu: GpuTarget) -> int | None:
    """The threads of the one block that runs the loops of `band` (all its members
    sequential, the host loops they would be) with everything below them, or None
    when a statement does more per iteration than one block should."""
    loops = band_extents(band, in_bounds)      # None: a time loop, which no array bounds
    if all(e is not None for e in loops) and math.prod(loops) < 2:
        return None
    values = band_values(band)
    return _block_for(band.get_domain().intersect(in_bounds), values, gpu)


def fused_block(node: isl.ScheduleNode, in_bounds: isl.UnionSet, gpu: GpuTarget) -> int | None:
    """The threads of the one block that runs everything below `node` (consecutive
    children of a sequence: kernels that would be launched one after the other), or
    None when a statement does more per run than one block should."""
    values = node.get_prefix_schedule_union_map()
    return _block_for(node.get_domain().intersect(in_bounds), values, gpu)


def _block_for(domain: isl.UnionSet, values: isl.UnionMap, gpu: GpuTarget) -> int | None:
    """A block with a thread per instance that one statement runs at given `values` (the
    largest such number over the statements), or None when that is too many."""
    most = 1
    for statement in sets_of(domain):
        per_step = _instances_per_step(statement, values)
        if per_step is None or per_step > MAX_INSTANCES_PER_STEP:
            return None
        most = max(most, per_step)
    threads = 1 << max(0, most - 1).bit_length()
    return max(_MIN_THREADS, min(threads, gpu.max_threads_per_block))


def _instances_per_step(statement: isl.Set, values: isl.UnionMap) -> int | None:
    """A bound on the statement's instances at one point of `values`: the product over
    its loops of how far apart two instances there can be."""
    values = values.intersect_domain(isl.UnionSet.from_set(statement))
    apart = isl.Map.from_union_map(values.apply_range(values.reverse())).deltas()
    count = 1
    for k in range(apart.dim(isl.dim_type.set)):
        distance = apart.project_out(isl.dim_type.set, k + 1, apart.dim(isl.dim_type.set) - k - 1) \
            .project_out(isl.dim_type.set, 0, k)
        extent = set_extent(distance)
        if extent is None:
            return None
        count *= (extent + 1) // 2        # distances -d..d: d + 1 values
    return count


def device_loop_sizes(band_members: int, lead: int, reduction: bool, threads: int) -> KernelSizes:
    """A kernel inside a device loop: one block of `threads` threads along the innermost
    mapped member (thread x), one thread along the others, one block in the grid."""
    n_threads = min(3, lead + reduction)
    block = (1,) * (n_threads - 1) + (threads,)
    tile = block + (_OTHER_TILE,) * (band_members - n_threads)
    return KernelSizes(tile, block, (1,) * min(2, lead))
