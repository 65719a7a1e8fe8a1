"""Host statements between kernels: the copies that keep host and device in step
around them.

A statement that calls a function only the host has (a declared-only function,
extract/external.py, or one with a PENCIL summary) runs on the host wherever
the schedule puts it, possibly inside host loops that launch kernels. Its
accesses may cover whole arrays, so around each such statement:

- before it, every device array it may read or write comes back to the host
  (whole: what it does not write must keep the device's values when it goes
  back);
- after it, every device array it may write goes to the device again, whole.

For the copy back to be right, the device copy must hold every element from the
start: such an array is copied in whole at the start of the SCoP. Between the
statements, the device copy is then always the current one, and the copies at
the end of the SCoP stay as transfers.py plans them.

The copies are statements `sync_K_from_A[]` / `sync_K_to_A[]` grafted into the
tree around the outermost subtree that runs such statements and launches no
kernel (site K): a host loop nest of calls copies once before and once after,
not at each call. A subtree with a kernel inside is entered: the copies go
around the host code within it (the call at the top of a host loop that
launches a kernel per iteration copies at each iteration).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from ..extract.model import Scop
from ..isl_context import statements_below
from .device_arrays import DeviceArray, extent_set, whole_box

NT = isl.schedule_node_type


@dataclass(frozen=True)
class HostSync:
    """One copy of a whole device array before (`to_device` False) or after the host
    code at one place of the tree (`site`: child positions from the root); the
    schedule tree's statement `name` prints it."""

    name: str
    site: tuple[int, ...]
    device: DeviceArray       # the array, its box the whole array, crossing the one way
    to_device: bool
    statements: frozenset[str] = frozenset()   # the host statements at the site that need it


def plan_host_syncs(scop: Scop, schedule: isl.Schedule, pinned: frozenset[str], arrays: tuple[DeviceArray, ...]
                    ) -> tuple[tuple[DeviceArray, ...], tuple[HostSync, ...]]:
    """The device arrays (those that host statements `pinned` touch copied in whole)
    and the copies around each outermost subtree of `schedule` that runs such a
    statement and launches no kernel (one copy per run of a host loop nest, not one
    per iteration)."""
    if not pinned:
        return arrays, ()
    by_name = {d.array.name: d for d in arrays}
    statements = {s.name: s for s in scop.statements}
    sites = []       # (number, site, statements there, arrays they may read or write, those they may write)
    for number, (site, here) in enumerate(_sites(schedule.get_root(), pinned, ())):
        reads: list[str] = []
        writes: list[str] = []
        for access in (a for name in sorted(here) for a in statements[name].accesses):
            name = _device_name(scop, access.array)
            if name not in by_name:
                continue
            if name not in reads:
                reads.append(name)
            if access.is_write and name not in writes:
                writes.append(name)
        sites.append((number, site, here, reads, writes))
    touched = {name for *_, reads, _ in sites for name in reads}
    whole = {name: whole_box(extent_set(by_name[name].array, scop.context), by_name[name].array) for name in touched}
    syncs: list[HostSync] = []
    for number, site, here, reads, writes in sites:
        syncs += [HostSync(f"sync_{number}_from_{name}", site,
                           replace(by_name[name], copy_out=True, out_box=whole[name]), False, here)
                  for name in reads]
        syncs += [HostSync(f"sync_{number}_to_{name}", site,
                           replace(by_name[name], copy_in=True, in_box=whole[name]), True, here)
                  for name in writes]
    devices = tuple(replace(d, copy_in=True, in_box=whole[d.array.name])
                    if d.array.name in touched and not d.array.local else d for d in arrays)
    return devices, tuple(syncs)


def _device_name(scop: Scop, array: str) -> str:
    """The variable the device holds for `array`: a field array's struct variable."""
    member = scop.member(array)
    return member.variable if member is not None else array


def _sites(node: isl.ScheduleNode, pinned: frozenset[str], path: tuple[int, ...]
           ) -> list[tuple[tuple[int, ...], frozenset[str]]]:
    """The outermost subtrees that run statements of `pinned` and hold no kernel, with
    those statements."""
    kind = node.get_type()
    if kind == NT.mark:
        return []
    if kind != NT.domain:
        here = statements_below(node) & pinned
        if not here:
            return []
        if kind != NT.filter and not _launches(node):
            return [(path, here)]
    found = []
    for k in range(node.n_children()):
        found += _sites(node.child(k), pinned, path + (k,))
    return found


def _launches(node: isl.ScheduleNode) -> bool:
    if node.get_type() == NT.mark:
        return True
    return any(_launches(node.child(k)) for k in range(node.n_children()))


def with_host_syncs(schedule: isl.Schedule, syncs: tuple[HostSync, ...]) -> isl.Schedule:
    """`schedule` with the copies grafted before and after their sites (computed on
    this very tree: a graft leaves the positions of the other sites as they were)."""
    from .tree import graft_pieces, piece_at
    for site in dict.fromkeys(s.site for s in syncs):
        node = schedule.get_root()
        for k in site:
            node = node.child(k)
        points = _points_of(node)
        before = [piece_at(points, s.name) for s in syncs if s.site == site and not s.to_device]
        after = [piece_at(points, s.name) for s in syncs if s.site == site and s.to_device]
        if after:
            node = node.graft_after(graft_pieces(after))
        if before:
            node = node.graft_before(graft_pieces(before))
        schedule = node.get_schedule()
    return schedule


def _points_of(node: isl.ScheduleNode) -> isl.Set:
    """The values of the loops around `node` at which it runs anything."""
    points = node.get_prefix_schedule_union_map().intersect_domain(node.get_domain()).range()
    if points.is_empty():
        return isl.Set.empty(isl.Space.set_alloc(node.get_ctx(), 0, node.get_schedule_depth()))
    return isl.Set.from_union_set(points).coalesce()
