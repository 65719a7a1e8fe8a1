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
last (whose value leaves the SCoP), span any number of tiles. The distances are a
few fixed vectors (a bounded piece's points) and families of them (an unbounded
piece, covered by a superset: waiting for more tiles of earlier wavefronts is safe):
lu's and cholesky's tiles depend on every tile before them in their row of tiles,
through the pivot row, and each waits for those tiles in every earlier wavefront
(cholesky at LARGE, two threads: 0.180 s against 0.192 s with the barriers; lu level,
0.143 s against 0.141 s). Where neither covers the distances (a piece with no bounds
of one slope, too many vectors, a distance inside a wavefront), the wavefronts keep
their barriers.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ...isl_context import band_values, sets_of

MAX_WAITS = 8       # distances a tile may wait along; more, and the wavefronts keep their barriers


@dataclass(frozen=True)
class Waits:
    """What each tile `(w, c)` waits for: the tiles `(w - back, c - across)` of `vectors`,
    and for each family `(first, slope, low, high)` of `families`, every tile of each
    wavefront `back >= first` back (to the first wavefront) with `slope * back + low <=
    across <= slope * back + high`: lu's tiles depend on every tile before them in their
    row of tiles, `(back, back - 1)` and `(back, back)` for any `back`."""

    vectors: tuple[tuple[int, int], ...] = ()
    families: tuple[tuple[int, int, int, int], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.vectors or self.families)


def tile_waits(loop: isl.ScheduleNode, dependences: isl.UnionMap) -> Waits:
    """What each iteration of the one-member parallel band `loop` waits for, where the
    band directly above it is the one serial loop of its wavefronts and the distances
    `(wavefronts, tiles)` back to the iterations it depends on are a few fixed vectors
    and families of them, each at least one wavefront back; else none. `dependences`:
    those whose chains order the rest."""
    serial = loop.parent()
    if serial.get_type() != isl.schedule_node_type.band or serial.band_n_member() != 1:
        return Waits()
    domain = loop.get_domain()
    outer = serial.get_prefix_schedule_union_map().intersect_domain(domain)
    at = band_values(serial, domain).flat_range_product(band_values(loop, domain))   # instance -> (w, tile)
    same_outer = outer.apply_range(outer.reverse())
    joined = dependences.intersect_domain(domain).intersect_range(domain).intersect(same_outer)
    distances = at.reverse().apply_range(joined).apply_range(at).deltas()
    return _waits(sets_of(distances))


def _waits(sets: list[isl.Set]) -> Waits:
    """The waits that cover the nonzero vectors of `sets` (distances over every value of
    the parameters): the points of bounded pieces, a family per unbounded one (a
    superset: waiting for more tiles is safe, as long as they are in earlier
    wavefronts); none where there are too many or one is not a wavefront back."""
    vectors: set[tuple[int, int]] = set()
    families: set[tuple[int, int, int, int]] = set()
    for distances in sets:
        distances = distances.project_out(isl.dim_type.param, 0, distances.dim(isl.dim_type.param))
        if distances.dim(isl.dim_type.set) != 2:
            return Waits()
        for piece in distances.remove_divs().get_basic_sets():
            if piece.is_empty():
                continue
            if piece.is_bounded():
                found = _points(isl.Set.from_basic_set(piece))
                if found is None:
                    return Waits()
                vectors.update(found)
            elif (family := _family(piece)) is not None:
                families.add(family)
            else:
                return Waits()
    vectors.discard((0, 0))
    if len(vectors) + len(families) > MAX_WAITS or any(w < 1 for w, _ in vectors):
        return Waits()
    return Waits(tuple(sorted(vectors)), tuple(sorted(families)))


def _points(distances: isl.Set) -> list[tuple[int, int]] | None:
    """The points of a bounded set, where it has a few."""
    box = 1
    for d in range(2):
        box *= distances.dim_max_val(d).to_python() - distances.dim_min_val(d).to_python() + 1
    if box > 4 * MAX_WAITS:     # a few points, not a big set
        return None
    points: list[isl.Point] = []
    distances.foreach_point(points.append)
    return [tuple(p.get_coordinate_val(isl.dim_type.set, d).to_python() for d in range(2)) for p in points]


def _family(piece: isl.BasicSet) -> tuple[int, int, int, int] | None:
    """`(first, slope, low, high)` of a family that holds the points of the unbounded
    `piece` a wavefront back or more: a lower and an upper bound of the tile distance
    with one slope along the wavefront distance; None where there are none, or where the
    piece's points at zero wavefronts back are other than `(0, 0)` (a dependence inside
    a wavefront)."""
    at_zero = piece.intersect(isl.BasicSet.universe(piece.get_space()).fix_val(isl.dim_type.set, 0,
                                                                                 isl.Val.zero(piece.get_ctx())))
    if not isl.Set.from_basic_set(at_zero).is_subset(isl.Set("{ [0, 0] }", context=piece.get_ctx())):
        return None
    least = isl.Set.from_basic_set(piece).dim_min_val(0)
    if not least.is_int() or least.to_python() < 0:     # a dependence on a later wavefront
        return None
    lower: dict[int, int] = {}      # slope -> the greatest offset of a bound `across >= slope * back + offset`
    upper: dict[int, int] = {}
    for constraint in piece.get_constraints():
        back = constraint.get_coefficient_val(isl.dim_type.set, 0).to_python()
        across = constraint.get_coefficient_val(isl.dim_type.set, 1).to_python()
        constant = constraint.get_constant_val().to_python()
        signs = (1, -1) if constraint.is_equality() else (1,)
        for sign in signs:          # sign * (back * b + across * a + constant) >= 0
            b, a, k = sign * back, sign * across, sign * constant
            if a == 1:
                lower[-b] = max(lower.get(-b, -k), -k)
            elif a == -1:
                upper[b] = min(upper.get(b, k), k)
    slopes = sorted(set(lower) & set(upper))
    if not slopes:
        return None
    slope = slopes[0]
    if upper[slope] < lower[slope]:
        return None
    return max(1, least.to_python()), slope, lower[slope], upper[slope]
