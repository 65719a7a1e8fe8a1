"""Tile, block and grid sizes chosen for the target GPU, when the user gives none.

PPCG's defaults (tile 32 in every band member; blocks of 32 or 32x16 or 32x4x4
threads; two grid dimensions) fill an H100 only when the mapped loops are long: a
launch needs a full wave of resident threads (132 SMs x 2,048) to keep enough loads
in flight. A kernel keeps PPCG's sizes where they reach that wave, since their tiles
give the shared-memory copies their reuse; elsewhere the sizes come from a small
set of shapes, the one that runs the most useful threads (up to a wave) and spreads
them over the most SMs:

- thread x is the innermost mapped member (the one the scheduler made innermost,
  usually the unit-stride subscript) with 32 to 256 threads, so a warp reads whole
  lines;
- each thread runs one point per tile of the mapped members (or two along the
  outer ones), so the block covers its tile;
- up to three members are mapped to blocks, so a 3-D stencil's planes spread too.

The loop lengths are estimated at compile time from the arrays' declared sizes:
the band member's values over the instances whose accesses stay inside their
arrays (which the program must respect), whatever the parameters; unbounded when
no access bounds the loop, and then PPCG's sizes are kept.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import islpy as isl

from ...gpu_targets import GpuTarget
from ...isl_context import sets_of
from ..loop_extents import member_values
from ..sizes import DEFAULT_BLOCK, DEFAULT_GRID, KernelSizes, launchable

_UNKNOWN = 1 << 20                     # an unbounded loop: long enough to fill any device
_X_THREADS = (32, 64, 128, 256)        # thread x: whole warps
_OUTER_THREADS = (1, 2, 4, 8, 16, 32)
_PPCG_TILE = 32
# PPCG's 3-D blocks (4x4x32 threads on a 32x32x32 tile) give each thread 64 points: as
# registers (doitgen's expanded `sum`), 64 doubles per thread spill, and the AST of
# their copies takes isl seconds. Its 2-D blocks give each thread at most 4.
_MAX_POINTS = 4
# Blocks per dimension at most: a power of two that prints as an int, since the tile
# loops' bounds divide by grid x tile (a shift, and no 64-bit division, for powers of
# two: a cap of 65535 made lu and cholesky 15-23% slower on an H200)
_GRID_CAP = 16384


@dataclass(frozen=True)
class DeviceSizing:
    """What the mapper needs to size a kernel for the device."""

    gpu: GpuTarget
    in_bounds: isl.UnionSet            # instances whose accesses stay inside their arrays
    choose: bool = True                # False: the user gave sizes; only default grids are fitted


@dataclass(frozen=True)
class Choice:
    sizes: KernelSizes
    reason: str                        # for -v


def may_start_below_zero(band: isl.ScheduleNode, members: int) -> bool:
    """Whether one of the band's first `members` may take a negative value: its tiles
    then go to blocks by congruence (codegen/ast.py `_grid`), over the whole grid."""
    for k in range(min(members, band.band_n_member())):
        for rng in sets_of(member_values(band, k, band.get_domain()).range()):
            lowest = rng.dim_min(0)
            if not lowest.nonneg_set().is_equal(lowest.domain()):
                return True
    return False


def choose_sizes(gpu: GpuTarget, extents: tuple[int | None, ...], lead: int, reduction: bool = False) -> Choice:
    """Sizes for a band of len(extents) members whose first `lead` are parallel; with
    `reduction`, member `lead` too, on thread x only (schedule/gpu/reduction_threads.py),
    and each thread runs one point of the other mapped members per tile, so that its
    partial belongs to one location."""
    n_members = len(extents)
    lengths = tuple(_UNKNOWN if e is None else max(1, e) for e in extents)
    n_threads = min(3, lead + reduction)
    ppcg = ppcg_sizes(n_members, n_threads, min(2, lead))
    ppcg_useful = _useful(ppcg, lengths)
    one_point = all(ppcg.tile[k] == ppcg.block[k] for k in range(min(lead, n_threads))) or not reduction
    if ppcg_useful >= gpu.resident_threads and one_point and _points_per_thread(ppcg) <= _MAX_POINTS:
        return Choice(ppcg, f"PPCG's sizes fill {gpu.name} ({_share(ppcg_useful, gpu)})")
    candidates = _candidates(gpu, lengths, n_threads, min(3, lead), two_points=not reduction)
    best = max(candidates, key=lambda s: _score(s, lengths, gpu))
    best = KernelSizes(best.tile, best.block, fitted_grid(best, extents))
    useful = _useful(best, lengths)
    return Choice(best, f"chosen for {gpu.name}: {_share(useful, gpu)} (PPCG's sizes: {_share(ppcg_useful, gpu)})")


def spread_over_blocks(gpu: GpuTarget, choice: Choice, extent: int | None) -> Choice:
    """`choice` for a reduction with no parallel member (a dot product's `s += x[i] *
    y[i]`) with the reduction's tiles spread over blocks: as many as there are tiles, up
    to one wave of the card's resident threads (each thread then sums several of the
    loop's values); the blocks' partials are combined after the blocks' own
    combinations (codegen/reductions.py). Unchanged where one block runs every tile."""
    block = choice.sizes.block[-1]
    tiles = math.ceil(extent / choice.sizes.tile[0]) if extent is not None else _GRID_CAP
    blocks = min(tiles, max(1, gpu.resident_threads // block), _GRID_CAP)
    if blocks <= 1:
        return choice
    useful = blocks * block if extent is None else min(extent, blocks * block)
    return Choice(KernelSizes(choice.sizes.tile, choice.sizes.block, (blocks,)),
                  f"chosen for {gpu.name}: {_share(useful, gpu)}, the sum spread over {blocks} blocks of {block} "
                  "threads")


def _points_per_thread(sizes: KernelSizes) -> int:
    """The points of one tile that each thread runs (their registers, when the memory
    stage keeps a thread's elements there)."""
    return math.prod(math.ceil(sizes.tile[k] / threads) for k, threads in enumerate(sizes.block))


def ppcg_sizes(n_members: int, n_threads: int, n_blocks: int) -> KernelSizes:
    """PPCG's defaults: what `--sizes ppcg` gives."""
    tile = (_PPCG_TILE,) * n_members
    block = DEFAULT_BLOCK.get(n_threads, ())
    block = launchable(tuple(min(b, t) for b, t in zip(block, tile)))
    return KernelSizes(tile, block, DEFAULT_GRID.get(n_blocks, ()))


def _max_grid(gpu: GpuTarget, n_blocks: int) -> tuple[int, ...]:
    """The most blocks per dimension: the card's, but at most _GRID_CAP (in x too, so that
    a wrapping tile loop, `c += grid` on an int, never overflows); a launch that needs
    more blocks runs the extra tiles in the same blocks' next round."""
    limits = gpu.max_grid[len(gpu.max_grid) - n_blocks:] if n_blocks else ()
    return tuple(min(limit, _GRID_CAP) for limit in limits)


def fitted_grid(sizes: KernelSizes, extents: tuple[int | None, ...]) -> tuple[int, ...]:
    """Per block dimension, a power of two above the number of tiles (one block each),
    at most _GRID_CAP; PPCG's 256 where the loop is unbounded. A launch whose tile range
    may start below 0 gets the whole grid (codegen/ast.py `_grid`: block b runs the
    tiles congruent to b), so the grid must not be far larger than the tiles: a cap of
    16384 x 16384 blocks made such a launch take minutes (fuzz 2615:206)."""
    grid = []
    for k, limit in enumerate(sizes.grid):
        if extents[k] is None:
            grid.append(min(limit, 256))
            continue
        tiles = math.ceil(max(1, extents[k]) / sizes.tile[k]) + 1
        grid.append(min(limit, 1 << (tiles - 1).bit_length()))
    return tuple(grid)


def _candidates(gpu: GpuTarget, lengths: tuple[int, ...], n_threads: int, n_blocks: int, two_points: bool = True):
    rest = (_PPCG_TILE,) * (len(lengths) - n_threads)
    for x in _X_THREADS:
        for outer in itertools.product(_OUTER_THREADS, repeat=n_threads - 1):
            block = (*outer, x)
            if math.prod(block) > gpu.max_threads_per_block:
                continue
            for per_thread in (1, 2) if two_points else (1,):
                tile = tuple(b * per_thread for b in outer) + (x,)
                yield KernelSizes(tile + rest, block, _max_grid(gpu, n_blocks))


def _useful(sizes: KernelSizes, lengths: tuple[int, ...]) -> int:
    """Threads that have a point to run in the first tile round: along a block-mapped
    member min(length, blocks x threads), along a thread-only one min(length, threads)."""
    n_blocks = len(sizes.grid)
    useful = 1
    for k, threads in enumerate(sizes.block):
        per_thread = sizes.tile[k] // threads if threads else 1
        if k < n_blocks:
            tiles = min(math.ceil(lengths[k] / sizes.tile[k]), sizes.grid[k])
            useful *= min(math.ceil(lengths[k] / per_thread), tiles * threads)
        else:
            useful *= min(lengths[k], threads)
    return useful


def _blocks(sizes: KernelSizes, lengths: tuple[int, ...]) -> int:
    return math.prod(min(math.ceil(lengths[k] / sizes.tile[k]), g) for k, g in enumerate(sizes.grid))


def _score(sizes: KernelSizes, lengths: tuple[int, ...], gpu: GpuTarget) -> tuple:
    useful = _useful(sizes, lengths)
    launched = _blocks(sizes, lengths) * math.prod(sizes.block)
    return (min(useful, gpu.resident_threads),
            min(_blocks(sizes, lengths), 2 * gpu.sms),
            round(useful / launched, 1),
            -abs(math.log2(math.prod(sizes.block)) - 8),
            math.prod(sizes.tile))


def _share(threads: int, gpu: GpuTarget) -> str:
    return f"{threads} useful threads, {100 * threads / gpu.resident_threads:.0f}% of its resident threads"
