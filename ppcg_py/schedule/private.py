"""Scalars that live in each thread: the storage side of live-range reordering.

When the scheduler runs two live ranges of one scalar in different threads of a
kernel (it may, where each stays within one iteration: symm's `temp2`, one per
(i, j)), the threads need a copy each. A scalar written in a kernel gets a
private copy (a local variable of the kernel) when every value it carries is
made and used within one launch of the kernel: no read of a value written
before it (in another kernel or an earlier launch of this one), no write read
after it or live after the SCoP. Live ranges are coincidence
constraints, so such a value never leaves its thread.

A scalar that cannot be private stays in global memory; that is only right when
no two threads access it in live ranges the schedule reordered. Where they do,
the scalar is *unsafe*: scheduling starts again with its order dependences kept
(schedule/gpu/__init__.py, schedule/cpu/__init__.py), which is always possible.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

import islpy as isl

from ..extract.model import Scop
from ..isl_budget import is_operation_limit
from ..isl_context import maps_of
from .parallel import schedule_map
from .dependences import Dependences, kill_accesses, of_named


class Threads(Protocol):
    """What privatization needs of a kernel, or of an OpenMP loop (schedule/cpu/__init__.py)."""

    name: str
    domain: isl.UnionSet            # the instances it runs
    host_schedule: isl.UnionMap     # instances -> the loop values around it (one launch per value)
    point_schedule: isl.UnionMap    # instances -> band values, the thread-mapped ones first
    thread_ids: tuple[str, ...]     # as many as thread-mapped band members


@dataclass(frozen=True)
class Privatization:
    private: frozenset[str]     # scalars with a copy per thread in this kernel
    unsafe: frozenset[str]      # scalars whose reordered live ranges would be shared


def privatize(scop: Scop, deps: Dependences, kernel: Threads, reorderable: frozenset[str],
              skip: frozenset[str] = frozenset(), apart: isl.UnionSet | None = None) -> Privatization:
    """The scalars `kernel` keeps per thread, and those it would share unsafely; `skip`:
    scalars it handles otherwise (the reductions an OpenMP loop combines); `apart`:
    instances that run after the rest of the kernel, maybe in another thread than the
    instances they read from (a kernel's epilogue): no value passes to or from them
    in a thread's copy."""
    if not kernel.thread_ids or not deps.reordering:
        return Privatization(frozenset(), frozenset())
    private, unsafe = set(), set()
    writes = scop.access_union(reads=False).intersect_domain(kernel.domain)
    for array in scop.arrays:
        if not array.is_scalar or array.name in skip or of_named(writes, {array.name}).is_empty():
            continue
        if _values_stay_inside(scop, deps, kernel, array.name, apart):
            private.add(array.name)
        elif array.name in reorderable and not _within_threads(deps.of_arrays(deps.tagged_order, [array.name]),
                                                                  kernel):
            unsafe.add(array.name)
    return Privatization(frozenset(private), frozenset(unsafe))


def _values_stay_inside(scop: Scop, deps: Dependences, kernel: Threads, name: str,
                        apart: isl.UnionSet | None = None) -> bool:
    """Whether every value of `name` read in the kernel is written there, and every
    value written there is read there only and dies with the SCoP (and none passes
    between the instances `apart` and the others)."""
    inside = kernel.domain
    flow = deps.of_arrays(deps.tagged_flow, [name])
    if apart is not None:
        rest = inside.subtract(apart)
        if not flow.intersect_domain(apart).intersect_range(rest).union(
                flow.intersect_domain(rest).intersect_range(apart)).is_empty():
            return False
    reads = of_named(scop.access_union(reads=True), {name}).intersect_domain(inside)
    touching = flow.intersect_domain(inside).union(flow.intersect_range(inside))
    # a kernel under host loops is launched once per host iteration, and a private
    # copy lives for one launch: both ends of each live range in the same launch
    same_launch = kernel.host_schedule.apply_range(kernel.host_schedule.reverse())
    live_in = of_named(deps.live_in, {name}).intersect_domain(reads.domain())
    live_out = of_named(deps.live_out, {name}).intersect_domain(inside)
    return touching.is_subset(same_launch) and live_in.is_empty() and live_out.is_empty()


def _within_threads(dependences: isl.UnionMap, kernel: Threads) -> bool:
    """Whether every dependence between two instances of the kernel joins instances
    of one thread (same host values, same values of the thread-mapped members)."""
    inside = dependences.intersect_domain(kernel.domain).intersect_range(kernel.domain)
    if inside.is_empty():
        return True
    key = _thread_key(kernel)
    return inside.is_subset(key.apply_range(key.reverse()))


def _thread_key(kernel: Threads) -> isl.UnionMap:
    """Instances -> (host values, thread-mapped band values): equal for the instances
    one thread runs in one launch."""
    return kernel.host_schedule.range_product(_first_members(kernel.point_schedule, len(kernel.thread_ids)))


def _first_members(schedule: isl.UnionMap, n: int) -> isl.UnionMap:
    result = None
    for m in maps_of(schedule):
        part = isl.UnionMap.from_map(m.project_out(isl.dim_type.out, n, m.dim(isl.dim_type.out) - n))
        result = part if result is None else result.union(part)
    return result




def changed_values(scop: Scop, deps: Dependences, schedule: isl.Schedule, kernels: list[Threads],
                   privates: list[frozenset[str]], reorderable: frozenset[str],
                   folded: Mapping[str, frozenset[str]] | None = None) -> frozenset[str]:
    """The reorderable scalars some read of which would see another write than in
    the original program: the dataflow again, in the new order, with one variable
    per thread (and launch) where the scalar is private.

    isl's conditional validity can let a write nobody reads land inside another
    live range when a sequence splits the two apart (fuzz 13:42: a local's
    initialiser moved after the loop that overwrites it, before the read).

    `folded`: scalars that reductions update, with the reduction statements, whose
    chains may run in any order (schedule/cpu/reductions.py); for those, each read must
    see the same writes of the other statements, the reductions' between them."""
    def changed(name: str) -> bool:
        if folded and name in folded:
            return _segments_changed(scop, name, folded[name], schedule, kernels, privates)
        old = deps.of_arrays(deps.tagged_flow, [name])
        writes = _storage(scop, name, kernels, privates, reads=False)
        if writes.is_empty():
            return False
        may_writes = _storage(scop, name, kernels, privates, reads=False, must=False)
        reads = _storage(scop, name, kernels, privates, reads=True)
        kills = of_named(kill_accesses(scop, tagged=False), {name})
        must_writes = _storage(scop, name, kernels, privates, reads=False, must=True).union(kills)
        new = (isl.UnionAccessInfo.from_sink(reads).set_must_source(must_writes)
               .set_may_source(may_writes).set_schedule_map(schedule_map(schedule))
               .compute_flow()).get_may_dependence()
        return not new.intersect_domain(writes.domain()).is_equal(old)

    return frozenset(name for name in sorted(reorderable) if _changed_or_unknown(changed, name))


def _changed_or_unknown(changed: Callable[[str], bool], name: str) -> bool:
    """`changed(name)`, or True where isl's dataflow analysis itself fails ("affine
    expression involves some of the domain dimensions", fuzz 2811:481): the scalar
    then keeps its original order, which is always correct."""
    try:
        return changed(name)
    except isl.Error as exc:
        if is_operation_limit(exc):
            raise
        return True


def _storage(scop: Scop, name: str, kernels: list[Threads], privates: list[frozenset[str]], *,
             reads: bool, must: bool | None = None) -> isl.UnionMap:
    """Accesses of `name` as instances -> the variable they touch: `name[]`, or in a
    kernel that keeps it private, its copy for the launch and thread."""
    accesses = of_named(scop.access_union(reads=reads, must=must), {name})
    result = accesses
    for kernel, private in zip(kernels, privates):
        if name not in private:
            continue
        inside = accesses.intersect_domain(kernel.domain)
        key = _thread_key(kernel)
        copies = None
        for m in maps_of(key.intersect_domain(kernel.domain)):
            part = isl.UnionMap.from_map(m.flatten_range().set_tuple_name(isl.dim_type.out, f"{name}__{kernel.name}"))
            copies = part if copies is None else copies.union(part)
        result = result.subtract(inside)
        if copies is not None:
            result = result.union(copies.intersect_domain(inside.domain()))
    return result


def _segments_changed(scop: Scop, name: str, folding: frozenset[str], schedule: isl.Schedule,
                      kernels: list[Threads], privates: list[frozenset[str]]) -> bool:
    """Whether, in the new order, a read of `name` sees other writes of the statements
    that are not `folding` than in the original order: the last such write before it,
    and, for a read of another statement, the `folding` writes since that one."""
    def parts(accesses: isl.UnionMap) -> tuple[isl.UnionMap, isl.UnionMap]:
        mine = isl.UnionMap.empty(accesses.get_space())
        others = isl.UnionMap.empty(accesses.get_space())
        for m in maps_of(accesses):
            if m.get_tuple_name(isl.dim_type.in_) in folding:
                mine = mine.union(isl.UnionMap.from_map(m))
            else:
                others = others.union(isl.UnionMap.from_map(m))
        return mine, others

    kills = of_named(kill_accesses(scop, tagged=False), {name})

    def flows(reads: isl.UnionMap, must: isl.UnionMap, may: isl.UnionMap, order: isl.UnionMap) -> isl.UnionMap:
        group_reads, other_reads = parts(reads)
        group_writes, other_must = parts(must)
        _, other_may = parts(may)
        sources = other_must.union(other_may).union(group_writes).domain()
        result = isl.UnionMap.empty(reads.get_space())
        for sink, may_sources in ((other_reads, other_may.union(group_writes)), (group_reads, other_may)):
            if sink.is_empty():
                continue
            result = result.union((isl.UnionAccessInfo.from_sink(sink).set_must_source(other_must.union(kills))
                                   .set_may_source(may_sources).set_schedule_map(order).compute_flow())
                                  .get_may_dependence().intersect_domain(sources))
        return result

    def storage(**kwargs) -> isl.UnionMap:
        return _storage(scop, name, kernels, privates, **kwargs)

    new = flows(storage(reads=True), storage(reads=False, must=True), storage(reads=False, must=False),
                schedule_map(schedule))
    old = flows(of_named(scop.access_union(reads=True), {name}),
                of_named(scop.access_union(reads=False, must=True), {name}),
                of_named(scop.access_union(reads=False, must=False), {name}), schedule_map(scop.dataflow_schedule))
    return not new.is_equal(old)
