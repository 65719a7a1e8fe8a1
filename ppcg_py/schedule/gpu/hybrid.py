"""Tiles along a stencil's time loop for the GPU (`--hybrid`, PPCG's option name).

isl's schedule for the GPU runs a stencil one time step at a time: the time loop on
the host, each sweep of a step a launch over the whole grid. `--hybrid` tiles the
time loop with the space loops so that one launch runs several steps, each block
one tile, a `__syncthreads()` between the steps (a device loop over a grid of
blocks, codegen/device_loop.py).

*Steps.* The SCoP's original outermost loop `t` must run around every statement and
carry its dependences. Its k-th child of K (a sweep) runs at step `u = K t + k`; each
statement's space coordinates are the subscripts of the one array element it writes
(jacobi-2d: `B[i][j]` for the first sweep, `A[i][j]` for the second, u = 2t and
2t + 1). Every dependence must go to a later step (the instances of one step are
independent), and its distance along space dimension s is bounded by a slope: at
most `slope_s` per step in either direction (1 for PolyBench's stencils).

*Split tiles* (trapezoids, a variant of Grosser et al.'s hexagons, CGO 2014): the
steps are cut into bands of `height` steps (the host's loop `T`). Inside a band,
relative step `r` (0 .. height - 1), along space dimension s with period P:
phase-0 tiles cover `[kP + slope r, kP + P - slope r)` (they shrink as r grows, so
each reads only itself and the band below), phase-1 tiles the gaps between them
(`[kP - slope r, kP + slope r)`, which grow: they read themselves and the phase-0
tiles beside them, already done). With several space dimensions each tile has a
phase per dimension; the phase combinations run one launch each, in lexicographic
order, so that a tile reads only tiles of its own launch's phase or of earlier ones.
Inside a launch the tiles are independent and map to blocks (tile index modulo the
grid, the same block at every step); the steps of a tile run in order in its block.

That argument is checked, not trusted: the tiles' order (band, phase, then step
within the same tile) must put the source of every dependence (flow, anti, output
and the scalars' order) before its sink, or the stencil keeps isl's schedule and -v
says why. PPCG's hybrid tiling applies only where isl's schedule has a permutable band
that includes time, which PolyBench's two-array stencils never get; the steps above
come from the original loops instead, so they do.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

import islpy as isl

from ...extract.model import Scop
from ...isl_context import band_values, filter_instances, maps_of, statement_names, union_of, union_set_list
from ..time_loops import place_apart, time_loops, where
from ..sizes import KernelSizes

NT = isl.schedule_node_type
HYBRID_STEPS = "hybrid_steps"     # the mark above each launch's band of steps
_MAX_SLOPE = 3
_MAX_THREADS = 256
_MOST_STEPS = 16                  # steps (sweeps) per launch, at most, in 2 and 3 dimensions
_DEFAULT_TILES = 64               # blocks along a dimension whose extent is not bounded


@dataclass(frozen=True)
class HybridTiles:
    """The shape of the split tiles: `height` steps per launch, the slope and period of
    each space dimension, and the kernels' sizes (tile: the periods)."""

    height: int
    slopes: tuple[int, ...]
    split: tuple[bool, ...]         # the dimensions cut into phases (the others: whole tiles)
    periods: tuple[int, ...]
    sizes: KernelSizes
    at: isl.UnionMap | None = None      # instances -> [u, x0, ...]: their step and position
    bands: isl.UnionMap | None = None   # instances -> [T], their band of steps (what counting takes)
    note: str = ""                      # -v

    @property
    def phases(self) -> int:
        return 2 ** sum(self.split)

    def describe(self, steps_per_iteration: int) -> str:
        steps = self.height // steps_per_iteration
        cut = [str(s) for s, split in enumerate(self.split) if split]
        return (f"split tiles of {' x '.join(map(str, self.periods))} along the space dimensions (cut into "
                f"phases along {', '.join(cut)}), {steps} time step{'s' if steps != 1 else ''} per launch, "
                f"{self.phases} launches per {steps} steps")


@dataclass(frozen=True)
class HybridPlan:
    schedule: isl.Schedule
    tiles: tuple[HybridTiles, ...]     # by the number in their marks' names
    note: str


def hybrid_schedule(scop: Scop, dependences: isl.UnionMap, in_bounds: isl.UnionSet,
                    schedule: isl.Schedule) -> HybridPlan | str:
    """isl's `schedule` with each stencil's time loop split-tiled (a loop of the SCoP's
    top level around sweeps, which isl's schedule keeps apart from the rest), or why
    none is."""
    loops = time_loops(scop, dependences)
    if not loops:
        return "the SCoP has no loop around sweeps at its top level (no time loop)"
    found: list[HybridTiles] = []
    notes: list[str] = []
    for band, instances in loops:
        place = place_apart(schedule, instances)
        if place is None:
            notes.append(f"the time loop around {where(scop, instances)}: isl's schedule runs its statements with "
                         "others, or inside a loop")
            continue
        inside = dependences.intersect_domain(instances).intersect_range(instances)
        tiles = _split_tiles(scop, band, instances, inside, in_bounds.intersect(instances))
        if isinstance(tiles, str):
            notes.append(f"the time loop around {where(scop, instances)}: {tiles}" if len(loops) > 1 else tiles)
            continue
        schedule = _tree(place.cut(), tiles, len(found))
        found.append(tiles)
        notes.append(f"the time loop around {where(scop, instances)}: {tiles.note}" if len(loops) > 1 else tiles.note)
    if not found:
        return "; ".join(notes)
    return HybridPlan(schedule, tuple(found), "; ".join(notes))


def _split_tiles(scop: Scop, band: isl.ScheduleNode, instances: isl.UnionSet, dependences: isl.UnionMap,
                 in_bounds: isl.UnionSet) -> HybridTiles | str:
    """The split tiles of one time loop, their order checked, or why there are none."""
    step_map, per_iteration = _steps(band)
    space = _space(scop, statement_names(instances), step_map)
    if isinstance(space, str):
        return space
    at = _positions(step_map, space)
    dims = next(iter(space.values())).dim(isl.dim_type.out)
    if dims > 3:
        return f"its arrays have {dims} dimensions (at most 3 map to threads)"
    slopes = _slopes(at, dependences, dims)
    if isinstance(slopes, str):
        return slopes
    tiles = _tiles(per_iteration, slopes, at, in_bounds)
    if isinstance(tiles, str):
        return tiles
    tiles = replace(tiles, at=at, bands=at.apply_range(_on_positions(scop.ctx, dims, f"floor(u / {tiles.height})")),
                    note=tiles.describe(per_iteration))
    # instances outside the arrays' declared extents are undefined behaviour: the
    # dependences between the others are what the tiles must respect
    broken = _violated(tiles, dependences.intersect_domain(in_bounds).intersect_range(in_bounds))
    return broken if broken else tiles


def _steps(band: isl.ScheduleNode) -> tuple[isl.UnionMap, int]:
    """Instances -> [u], the step of each (K t + k), and K (the time loop `band` carries a
    dependence: `time_loops` asked)."""
    time = band_values(band)
    if band.band_n_member() != 1:
        time = time.apply_range(isl.UnionMap.from_map(_first_of(time)))
    child = band.child(0)
    sweeps = [filter_instances(child.child(k)) for k in range(child.n_children())] \
        if child.get_type() == NT.sequence else [child.get_domain()]
    ctx = band.get_ctx()
    parts = []
    for k, sweep in enumerate(sweeps):
        step = isl.Map.read_from_str(ctx, f"{{ [t] -> [{len(sweeps)} * t + {k}] }}")
        parts.append(time.intersect_domain(sweep).apply_range(isl.UnionMap.from_map(step)))
    return union_of(parts), len(sweeps)


def _first_of(time: isl.UnionMap) -> isl.Map:
    n = maps_of(time)[0].dim(isl.dim_type.out)
    return isl.Map.read_from_str(time.get_ctx(), f"{{ [{', '.join(f'a{k}' for k in range(n))}] -> [a0] }}")


def _space(scop: Scop, names: frozenset[str], steps: isl.UnionMap) -> dict[str, isl.Map] | str:
    """Each statement's space coordinates: the subscripts of the one element it writes,
    but those that follow from the step alone and vary with it (Pluto's buffers
    `A[(t + 1) % 2][i]`: the buffer is the step's, the position `i`; fdtd-2d's `ey[0][j]`
    keeps its row)."""
    found: dict[str, isl.Map] = {}
    for stmt in scop.statements:
        if stmt.name not in names:
            continue
        if stmt.calls:
            return f"{stmt.name} (line {stmt.line}) calls '{stmt.calls[0]}', which runs on the host"
        writes = [a for a in stmt.accesses if a.is_write]
        if len(writes) != 1 or not writes[0].exact or not writes[0].must:
            return f"{stmt.name} (line {stmt.line}) does not write exactly one array element"
        index = writes[0].index.intersect_domain(stmt.domain)
        if index.dim(isl.dim_type.out) == 0:
            return f"{stmt.name} (line {stmt.line}) writes a scalar"
        stepped = maps_of(steps.intersect_domain(isl.UnionSet.from_set(stmt.domain)))
        if not stepped:     # under no sweep's filter of the loop's tree (fuzz 2863:74)
            return f"{stmt.name} (line {stmt.line}) runs at no step of the loop's sweeps"
        step = stepped[0]
        for k in reversed(range(index.dim(isl.dim_type.out))):
            alone = index.project_out(isl.dim_type.out, k + 1, index.dim(isl.dim_type.out) - k - 1) \
                .project_out(isl.dim_type.out, 0, k)
            if index.dim(isl.dim_type.out) > 1 and not alone.range().is_singleton() \
                    and step.reverse().apply_range(alone).is_single_valued():
                index = index.project_out(isl.dim_type.out, k, 1)
        found[stmt.name] = index.reset_tuple_id(isl.dim_type.out)
    ranks = {m.dim(isl.dim_type.out) for m in found.values()}
    if len(ranks) != 1:
        return "its statements write arrays of different ranks"
    return found


def _positions(steps: isl.UnionMap, space: dict[str, isl.Map]) -> isl.UnionMap:
    """Instances -> [u, x0, x1, ...]: the step and the space coordinates of each."""
    result = None
    for m in maps_of(steps):
        name = m.get_tuple_name(isl.dim_type.in_)
        at = m.flat_range_product(space[name]).reset_tuple_id(isl.dim_type.out)
        result = isl.UnionMap.from_map(at) if result is None else result.union(isl.UnionMap.from_map(at))
    return result


def _between(at: isl.UnionMap, dependences: isl.UnionMap) -> isl.Set | None:
    """The distances (du, dx0, ...) of the dependences between positions."""
    between = dependences.apply_domain(at).apply_range(at)
    if between.is_empty():
        return None
    return isl.Map.from_union_map(between).deltas()


def _slopes(at: isl.UnionMap, dependences: isl.UnionMap, dims: int) -> tuple[int, ...] | str:
    """The smallest slope bounding each space distance per step, or why there is none."""
    deltas = _between(at, dependences)
    if deltas is None:
        return "its statements have no dependence between them"
    ctx = deltas.get_ctx()
    names = ["du"] + [f"d{k}" for k in range(dims)]
    space = f"[{', '.join(names)}]"
    params = deltas.get_space().params()
    same_step = isl.Set.read_from_str(ctx, f"{{ {space} : du <= 0 }}").align_params(params)
    if not deltas.intersect(same_step).is_empty():
        return "a dependence stays within one step (the instances of one step are not independent)"
    slopes = []
    for s in range(dims):
        for slope in range(_MAX_SLOPE + 1):
            cone = isl.Set.read_from_str(ctx, f"{{ {space} : -{slope} * du <= d{s} <= {slope} * du }}")
            if deltas.is_subset(cone.align_params(params)):
                slopes.append(slope)
                break
        else:
            return f"the dependences move more than {_MAX_SLOPE} elements per step along dimension {s}"
    return tuple(slopes)


def _tiles(per_iteration: int, slopes: tuple[int, ...], at: isl.UnionMap,
           in_bounds: isl.UnionSet) -> HybridTiles | str:
    """The split tiles' shape: a few time steps per launch (more where there are fewer
    space dimensions), split along the first two space dimensions (2 or 4 launches per
    band of steps), the third in one tile across its whole extent; periods that keep a
    phase-0 tile at least one point wide at the top, thread x along the innermost."""
    dims = len(slopes)
    height = per_iteration * {1: 16, 2: 8}.get(dims, 4)
    if dims > 1:    # the AST's cost grows with the sweeps a launch interleaves (fdtd-2d's four)
        height = min(height, max(per_iteration, _MOST_STEPS))
    split = tuple(slope > 0 and s < 2 for s, slope in enumerate(slopes))
    positions = at.intersect_domain(in_bounds).range()
    periods = []
    for s, slope in enumerate(slopes):
        least = 2 * slope * (height - 1) + 1 if split[s] else 1
        if slope and not split[s]:
            low, high = _position_range(positions, s + 1)
            if low is None or low < 0:
                return f"the extent of dimension {s} is not bounded (its loop runs in one tile)"
            least = high + 1
        lowest = 128 if dims == 1 else (32 if s == dims - 1 else 4)
        periods.append(max(lowest, 1 << (least - 1).bit_length()))
    block = list(periods)
    k = 0
    while math.prod(block) > _MAX_THREADS:
        while block[k] == 1:
            k += 1
        block[k] //= 2
    grid = tuple(_tile_count(positions, s + 1, periods[s], slopes[s] * (height - 1) if split[s] else 0)
                 for s in range(min(2, dims)))
    return HybridTiles(height, slopes, split, tuple(periods), KernelSizes(tuple(periods), tuple(block), grid))


def _tile_count(positions: isl.UnionSet, dim: int, period: int, shift: int) -> int:
    """The number of tiles of `period` along position dimension `dim` (space dimension
    dim - 1), shifted by up to `shift`; a default where it is not bounded."""
    low, high = _position_range(positions, dim)
    if low is None:
        return _DEFAULT_TILES
    return (high + shift) // period - low // period + 1


def _position_range(positions: isl.UnionSet, dim: int) -> tuple[int, int] | tuple[None, None]:
    """The least and greatest value of position dimension `dim`, for any parameters."""
    try:
        values = isl.Set.from_union_set(positions)
        values = values.project_out(isl.dim_type.param, 0, values.dim(isl.dim_type.param))
        values = values.project_out(isl.dim_type.set, dim + 1, values.dim(isl.dim_type.set) - dim - 1) \
            .project_out(isl.dim_type.set, 0, dim)
        if values.is_empty() or not values.is_bounded():
            return None, None
        return int(values.dim_min_val(0).to_python()), int(values.dim_max_val(0).to_python())
    except isl.Error:
        return None, None


def _phases(tiles: HybridTiles) -> list[tuple[int, ...]]:
    """Each launch's phase along each space dimension (0 where the slope is 0), in order."""
    moving = [s for s, split in enumerate(tiles.split) if split]
    result = []
    for bits in itertools.product((0, 1), repeat=len(moving)):
        phase = [0] * len(tiles.slopes)
        for s, bit in zip(moving, bits):
            phase[s] = bit
        result.append(tuple(phase))
    return result


def _names(dims: int) -> str:
    return ", ".join(["u"] + [f"x{k}" for k in range(dims)])


def _on_positions(ctx: isl.Context, dims: int, body: str) -> isl.UnionMap:
    return isl.UnionMap.from_map(isl.Map.read_from_str(ctx, f"{{ [{_names(dims)}] -> [{body}] }}"))


def _phase_positions(ctx: isl.Context, tiles: HybridTiles, phase: tuple[int, ...]) -> isl.Set:
    """The positions [u, x0, ...] of `phase` tiles: phase 0 along s where the offset
    in the period is at least slope * r from both ends, phase 1 elsewhere."""
    dims = len(tiles.slopes)
    h = tiles.height
    result = isl.Set.read_from_str(ctx, f"{{ [{_names(dims)}] }}")
    for s, (slope, period, bit) in enumerate(zip(tiles.slopes, tiles.periods, phase)):
        if not tiles.split[s]:
            continue
        r = f"(u - {h} * floor(u / {h}))"
        offset = f"(x{s} - {period} * floor(x{s} / {period}))"
        inside = isl.Set.read_from_str(ctx, f"{{ [{_names(dims)}] : {offset} >= {slope} * {r} and "
                                            f"{offset} < {period} - {slope} * {r} }}")
        result = result.intersect(inside) if bit == 0 else result.subtract(inside)
    return result


def _shifted(tiles: HybridTiles, phase: tuple[int, ...]) -> list[str]:
    """Each space coordinate as its phase's tiles start: phase-1 tiles straddle the
    phase-0 period's ends, shifted by the widest half gap."""
    return [f"x{s} + {slope * (tiles.height - 1) if bit else 0}"
            for s, (slope, bit) in enumerate(zip(tiles.slopes, phase))]


def _tree(leaf: isl.ScheduleNode, tiles: HybridTiles, index: int) -> isl.Schedule:
    """At `leaf` (where the loop's instances run): band T (host) / sequence of phases /
    mark `hybrid_steps<index>` / band of steps / band of space."""
    ctx = leaf.get_ctx()
    dims = len(tiles.slopes)
    h = tiles.height
    at = tiles.at

    def values(body: str) -> isl.MultiUnionPwAff:
        return isl.MultiUnionPwAff.from_union_map(at.apply_range(_on_positions(ctx, dims, body)))

    node = leaf.insert_partial_schedule(values(f"floor(u / {h})"))
    phases = _phases(tiles)
    filters = [at.intersect_range(isl.UnionSet.from_set(_phase_positions(ctx, tiles, p))).domain() for p in phases]
    node = node.child(0)
    if len(phases) > 1:
        node = node.insert_sequence(union_set_list(filters))
    for k, phase in enumerate(phases):
        leaf = node.child(k).child(0) if len(phases) > 1 else node
        band = leaf.insert_partial_schedule(values(", ".join(_shifted(tiles, phase))).intersect_domain(filters[k]))
        band = band.band_set_permutable(1)
        for m in range(dims):
            band = band.band_member_set_coincident(m, 1)
        steps = band.insert_partial_schedule(values(f"u - {h} * floor(u / {h})").intersect_domain(filters[k]))
        node = steps.insert_mark(isl.Id(f"{HYBRID_STEPS}{index}", context=ctx)).parent()
        if len(phases) > 1:
            node = node.parent()
    return node.get_schedule()


def _violated(tiles: HybridTiles, dependences: isl.UnionMap) -> str | None:
    """Why the tiles' order breaks a dependence, or None: the source must be in an
    earlier band or phase, or in the same tile of the same launch at an earlier step."""
    at = tiles.at
    ctx = at.get_ctx()
    dims = len(tiles.slopes)
    h = tiles.height
    order = None
    for k, phase in enumerate(_phases(tiles)):
        tile = [f"floor(({e}) / {p})" for e, p in zip(_shifted(tiles, phase), tiles.periods)]
        body = ", ".join([f"floor(u / {h})", str(k), f"u - {h} * floor(u / {h})", *tile])
        part = at.intersect_range(isl.UnionSet.from_set(_phase_positions(ctx, tiles, phase))) \
            .apply_range(_on_positions(ctx, dims, body))
        order = part if order is None else order.union(part)
    if not order.is_single_valued() or not order.domain().is_equal(at.domain()):
        return "the split tiles do not give each instance one place (an internal inconsistency)"
    between = dependences.apply_domain(order).apply_range(order)
    if between.is_empty():
        return None
    same = " and ".join(f"k{s} = l{s}" for s in range(dims))
    src = ", ".join(["T", "p", "r", *(f"k{s}" for s in range(dims))])
    dst = ", ".join(["T2", "p2", "r2", *(f"l{s}" for s in range(dims))])
    allowed = isl.Map.read_from_str(ctx, f"{{ [{src}] -> [{dst}] : T < T2 or (T = T2 and p < p2) or "
                                         f"(T = T2 and p = p2 and r < r2 and {same}) }}")
    wrong = isl.Map.from_union_map(between).subtract(allowed.align_params(between.get_space()))
    if wrong.is_empty():
        return None
    return "a dependence would cross between tiles of one launch (the split tiles do not respect it)"
