"""The program's own loop order where isl's schedule buys nothing (C target).

isl's scheduler looks for parallel loops, and to find one it may turn a loop nest
around: trisolv's `x[i] -= L[i][j] * x[j]`, a reduction along `j`, becomes a sweep
down the columns (`x[j] -= L[j][i] * x[i]` for every `j > i`), whose inner loop is
parallel. Where that loop then stays serial (`--min-parallel-work`: 2,000 instances
per execution) and no band is tiled, the new order keeps nothing of the parallelism
it was chosen for, and its inner loop walks a 32 MB matrix down its columns, a cache
line per element: 6.5 ms at LARGE against 3.5 ms for the program's own order (gcc's
speed; same run, one thread and two).

So where the plan of isl's schedule runs no loop in parallel and tiles no band of
more than one member, and isl's schedule of the whole SCoP gives no band to tile along
its outer loop either (trisolv's does, which beats both orders: schedule/cpu/__init__.py),
the plan of the original schedule is made too, and kept where
fewer of its innermost loops' accesses jump (`jumps`) through arrays larger than the
L2 cache (a jump through a smaller one finds its lines again).
"""
from __future__ import annotations

import islpy as isl

from ...extract.model import Scop
from .cache_sizes import Caches, host_caches
from .point_order import FAR, access_steps
from .reductions import copy_bytes

NT = isl.schedule_node_type


def gains_nothing(parallel_loops: int, tiles: tuple[tuple[int, ...], ...]) -> bool:
    """Whether a plan with `parallel_loops` OpenMP loops and bands tiled with `tiles`
    (one tuple of sizes per band, empty where left whole) keeps nothing of what isl's
    scheduler reordered the loops for."""
    return parallel_loops == 0 and not any(len(tile) > 1 for tile in tiles)


def jumps(schedule: isl.Schedule, scop: Scop, caches: Caches | None = None) -> int:
    """The accesses of each innermost loop of `schedule` that jump along it (a step of
    more than one element) through an array larger than the L2 cache (or of unknown size)."""
    large = large_arrays(scop, host_caches() if caches is None else caches)
    count = 0
    for band in _innermost_bands(schedule.get_root()):
        steps = access_steps(band, scop)
        last = band.band_n_member() - 1
        count += sum(1 for array, row in zip(steps.arrays, steps.steps) if array in large and row[last] == FAR)
    return count


def large_arrays(scop: Scop, caches: Caches) -> frozenset[str]:
    """The arrays larger than the L2 cache (or of unknown size): a jump through one of
    them finds a new cache line at every step."""
    return frozenset(a.name for a in scop.arrays
                     if not a.is_scalar and ((size := copy_bytes(scop, a.name)) is None or size > caches.l2_bytes))


def _innermost_bands(node: isl.ScheduleNode) -> list[isl.ScheduleNode]:
    """The bands of the tree below `node` with no band below them."""
    found: list[isl.ScheduleNode] = []
    for k in range(node.n_children()):
        found += _innermost_bands(node.child(k))
    if node.get_type() == NT.band and not found:
        return [node]
    return found
