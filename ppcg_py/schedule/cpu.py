"""The schedule for the C target (`--target=c`): isl's schedule, tiled with `--tile`,
with the OpenMP loops marked with `--openmp`, as PPCG's cpu.c.

The schedule is computed as for CUDA (`compute_schedule`: the same dependences,
live-range reordering included); there is no host/kernel split. With `--tile`,
every permutable band of more than one member is tiled (sizes as for CUDA:
`-S`, `--tile-sizes`, `--sizes` with `kernel[i]` the i-th tiled band in tree
order). With `--openmp`, the outermost coincident member of each band that is
not already inside a parallel loop becomes a band of its own under a mark
`omp_parallelN`: the loop that gets `#pragma omp parallel for`.

A scalar whose live ranges the schedule reordered may be written in several
iterations of such a loop (symm's `temp2`); each thread then needs its copy.
Privatization is CUDA's (`private.py`), with one thread per iteration of the
marked loop: a scalar all of whose values stay within one execution of the
loop becomes `private(...)` there; one that cannot and whose reordered live
ranges the loop spreads over iterations is fixed and the SCoP scheduled again.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import islpy as isl

from ..diagnostics import Diagnostics
from ..extract.model import Scop
from ..isl_context import band_tiled
from ..options import Options
from . import ScheduledScop, compute_schedule, scheduling_start
from .private import changed_values, privatize
from .sizes import kernel_sizes

NT = isl.schedule_node_type
MARK = "omp_parallel"


@dataclass(frozen=True)
class ParallelLoop:
    """A loop of the C output that runs in parallel (an OpenMP `parallel for`)."""

    index: int
    depth: int                      # its schedule dimension (isl names its loops by it)
    domain: isl.UnionSet            # the instances under the loop
    host_schedule: isl.UnionMap     # instances -> the values of the loops around it
    point_schedule: isl.UnionMap    # instances -> the loop's own value
    private: frozenset[str] = frozenset()   # scalars with a copy per thread
    thread_ids: tuple[str, ...] = ("omp",)  # one thread per iteration (private.Threads)

    @property
    def name(self) -> str:
        return f"{MARK}{self.index}"


@dataclass
class _Walk:
    options: Options
    sizes: isl.UnionMap | None
    tiled: int = 0
    loops: list[ParallelLoop] = field(default_factory=list)


def schedule_for_cpu(scop: Scop, options: Options, diagnostics: Diagnostics | None = None) -> ScheduledScop:
    """Dependences, isl's schedule, tiling, the parallel loops and their private scalars."""
    diagnostics = Diagnostics() if diagnostics is None else diagnostics
    deps, sizes, names, fixed, reorderable = scheduling_start(scop, options, diagnostics)
    while True:
        schedule = compute_schedule(scop, deps, options, diagnostics, fixed)
        walk = _Walk(options, sizes)
        final = _visit(schedule.get_root(), walk, inside=False).get_schedule()
        found = [privatize(scop, deps, loop, reorderable - fixed) for loop in walk.loops]
        unsafe = frozenset().union(*(p.unsafe for p in found))
        if not unsafe and deps.reordering:
            unsafe = changed_values(scop, deps, final, walk.loops, [p.private for p in found], reorderable - fixed)
        if not unsafe:
            break
        fixed |= unsafe
    loops = tuple(replace(loop, private=p.private) for loop, p in zip(walk.loops, found))
    return ScheduledScop(scop, deps, schedule, final, (), names, parallel=loops)


def _visit(node: isl.ScheduleNode, walk: _Walk, inside: bool, point: bool = False) -> isl.ScheduleNode:
    """Tile and mark the bands at and below `node`; returns the node at its position.
    `inside`: under a parallel loop already (OpenMP loops do not nest here); `point`:
    the point band of a band just tiled (not tiled again)."""
    down, tiled = 0, False
    if node.get_type() == NT.band:
        if walk.options.tile and not point and node.band_n_member() > 1 and node.band_get_permutable():
            node, tiled = _tiled(node, walk), True
        first = _first_coincident(node) if walk.options.openmp and not inside else None
        if first is not None:
            if first > 0:
                node, down = node.band_split(first).child(0), down + 1
            if node.band_n_member() > 1:
                node = node.band_split(1)
            node, down = _marked(node, walk), down + 1
            inside = True
    for k in range(node.n_children()):
        node = _visit(node.child(k), walk, inside, tiled).parent()
    for _ in range(down):
        node = node.parent()
    return node


def _tiled(band: isl.ScheduleNode, walk: _Walk) -> isl.ScheduleNode:
    """The band tiled (tile band, point band below), sizes as for a CUDA kernel."""
    n = band.band_n_member()
    tile = kernel_sizes(walk.options, walk.sizes, walk.tiled, n, 0, 0).tile
    walk.tiled += 1
    return band_tiled(band, tile)


def _first_coincident(band: isl.ScheduleNode) -> int | None:
    return next((k for k in range(band.band_n_member()) if band.band_member_get_coincident(k)), None)


def _marked(band: isl.ScheduleNode, walk: _Walk) -> isl.ScheduleNode:
    """A one-member band under a new `omp_parallelN` mark; returns the band."""
    domain = band.get_domain()
    own = isl.UnionMap.from_multi_union_pw_aff(band.band_get_partial_schedule()).intersect_domain(domain)
    loop = ParallelLoop(len(walk.loops), band.get_schedule_depth(), domain, band.get_prefix_schedule_union_map(), own)
    walk.loops.append(loop)
    return band.insert_mark(isl.Id(loop.name, context=band.get_ctx())).child(0)
