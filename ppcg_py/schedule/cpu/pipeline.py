"""Wavefronts of time tiles without a barrier between them: each tile waits only for the
tiles it depends on (C target, OpenMP).

Time tiles run as wavefronts (time_tiles.py): a serial loop `w` over the wavefronts
around a parallel loop over the tiles of one, `omp for` with a barrier at its end.
Where a wavefront holds few tiles, the barrier idles threads: heat-3d's narrow grid
(LARGE, N = 120) gives 3 or 4 tiles per wavefront, and with two threads the third
tile of a wavefront runs alone; two threads ran 1.65x faster than one where the
tiles' work allows 2x.

A tile depends only on tiles of earlier wavefronts, at a few fixed distances in
`(w, tile)` (heat-3d: one wavefront back, at the same tile or the one before). Each
tile then waits for those tiles alone, through a flag per tile set before the region
and cleared by the thread that ran it (codegen/omp_pipeline.py), and the loop runs
`nowait`: a thread that finds no tile left in a wavefront takes one of the next, and
the tile that would have run alone runs beside it. It cannot wait forever: a thread
leaves a wavefront's loop only when each of its tiles has been handed to a thread, and
the tiles it waits for are in earlier wavefronts, handed out, each waiting only for
tiles earlier still. heat-3d at LARGE on a 2-core Zen 5 EPYC, two threads: 0.41 s
against 0.49 s with the barriers (one thread: the same, 0.81 s).

The distances are those of the live ranges and of the anti and output dependences
to the next write. Waiting is transitive (a tile starts after the tiles it waited for
ended, and they after theirs), so a dependence that follows from a chain of those
needs no wait of its own: fdtd-2d's forced ones, from each write of `ey[0][j]` to the
last (whose value leaves the SCoP), span any number of tiles. Where the distances
are not a few fixed vectors (they depend on the parameters, or are many), the
wavefronts keep their barriers: lu's tiles depend on every tile before them in their
row of tiles, through the pivot row.
"""
from __future__ import annotations

import islpy as isl

from ...isl_context import sets_of

MAX_WAITS = 8       # distances a tile may wait along; more, and the wavefronts keep their barriers


def tile_waits(loop: isl.ScheduleNode, dependences: isl.UnionMap) -> tuple[tuple[int, int], ...]:
    """The distances `(wavefronts, tiles)` from each iteration of the one-member parallel
    band `loop` back to the iterations it depends on, where the band directly above it is
    the one serial loop of its wavefronts and they are a few fixed vectors, each at least
    one wavefront back; else (). `dependences`: those whose chains order the rest."""
    serial = loop.parent()
    if serial.get_type() != isl.schedule_node_type.band or serial.band_n_member() != 1:
        return ()
    domain = loop.get_domain()
    outer = serial.get_prefix_schedule_union_map().intersect_domain(domain)
    at = _member(serial, domain).flat_range_product(_member(loop, domain))   # instance -> (w, tile)
    same_outer = outer.apply_range(outer.reverse())
    joined = dependences.intersect_domain(domain).intersect_range(domain).intersect(same_outer)
    distances = at.reverse().apply_range(joined).apply_range(at).deltas()
    return _fixed_vectors(sets_of(distances))


def _member(band: isl.ScheduleNode, domain: isl.UnionSet) -> isl.UnionMap:
    return isl.UnionMap.from_multi_union_pw_aff(band.band_get_partial_schedule()).intersect_domain(domain)


def _fixed_vectors(sets: list[isl.Set]) -> tuple[tuple[int, int], ...]:
    """The nonzero vectors of `sets` (distances over every value of the parameters),
    where they are at most MAX_WAITS and each is at least one wavefront back; else ()."""
    vectors: set[tuple[int, int]] = set()
    for distances in sets:
        distances = distances.project_out(isl.dim_type.param, 0, distances.dim(isl.dim_type.param))
        if distances.is_empty():
            continue
        if distances.dim(isl.dim_type.set) != 2 or not distances.is_bounded():
            return ()
        box = 1
        for d in range(2):
            box *= distances.dim_max_val(d).to_python() - distances.dim_min_val(d).to_python() + 1
        if box > 4 * MAX_WAITS:     # enumerated below: a few points, not a big set
            return ()
        points: list[isl.Point] = []
        distances.foreach_point(points.append)
        if len(points) > MAX_WAITS + 1:
            return ()
        vectors.update(tuple(p.get_coordinate_val(isl.dim_type.set, d).to_python() for d in range(2))
                       for p in points)
    vectors.discard((0, 0))
    if not vectors or len(vectors) > MAX_WAITS or any(w < 1 for w, _ in vectors):
        return ()
    return tuple(sorted(vectors))
