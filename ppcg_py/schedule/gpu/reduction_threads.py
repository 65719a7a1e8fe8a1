"""Reduction loops run by the threads of a block.

A band member that isl could not mark coincident may still run in parallel when the
only dependences it carries are those of reductions: updates `s op= e` whose location
stays the same along it (atax's `tmp[i] += A[i][j] * x[j]` along `j`). The mapper then
maps it to thread x, the innermost thread dimension, never to blocks: each thread
accumulates a partial result in a register (memory/groups.py: a "reduction" group),
and after the member's tile loop the threads that share a location combine their
partials in shared memory, in a fixed tree, one thread updating the location. The
order of the combination does not depend on the thread order or the block order, so
the result is the same on every run.

The schedule is isl's, unchanged: only the mapping gains a dimension. The checks:
- without the reductions' own dependences (those between instances of a reduction
  statement, which reach each other only through its location, the one thing it
  writes), every dependence between instances with the same values of the outer
  dimensions and of the parallel members before this one has distance zero along it;
- no other statement of the band depends on a reduction statement (it would read or
  overwrite the location before the partials reach it);
- each location is one element for given outer values and parallel members, so that a
  thread's partial belongs to one element at a time.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import islpy as isl

from ...isl_context import filter_instances, maps_of, sets_of, statement_names, statements_below, union_of
from ..parallel import zero_distance


@dataclass(frozen=True)
class ReducedLocation:
    """What the mapper needs of an enabled reduction (extract/reductions.py finds them)."""

    statement: str
    op: str                         # how partials combine: + * & | ^ min max
    array: str
    tags: frozenset[str]            # the location's references in the statement
    location: isl.Map               # { S[i..] -> X[f(i)] }


def reduction_member(band: isl.ScheduleNode, lead: int, reductions: Sequence[ReducedLocation],
                     dependences: isl.UnionMap | None) -> tuple[ReducedLocation, ...]:
    """The reductions that let member `lead` of the band (the first that is not
    coincident) run in parallel threads, or () when it cannot."""
    if dependences is None or lead >= min(3, band.band_n_member()):
        return ()
    statements = statements_below(band)
    candidates = [r for r in reductions if r.statement in statements]
    if not candidates:
        return ()
    domain, prefix, local = _within_band(band, dependences)
    members = [_member(band, k, domain) for k in range(lead + 1)]
    for member in members[:lead]:
        local = local.intersect(_same(member))
    names = {r.statement for r in candidates}
    own = [isl.UnionMap.from_map(isl.Map.universe(m.get_space())) for m in maps_of(local)
           if m.get_tuple_name(isl.dim_type.in_) == m.get_tuple_name(isl.dim_type.out) in names]
    others = local.subtract(union_of(own)) if own else local
    if not zero_distance(others, members[lead]):
        return ()
    carried = _carried(candidates, local, members[lead])
    if any(_to_others(local, r.statement) for r in carried):
        return ()
    key = prefix
    for member in members[:lead]:
        key = key.flat_range_product(member)
    if not carried or not all(_one_element(key, r) for r in carried):
        return ()
    return tuple(carried)


def distributed_tail(band: isl.ScheduleNode, lead: int, reductions: Sequence[ReducedLocation],
                     dependences: isl.UnionMap | None) -> isl.ScheduleNode | None:
    """The band split into a sequence of two copies, the statements that read a
    reduction's result after it (gesummv's `y[i] = alpha * tmp[i] + beta * y[i]`, at
    j = n in the band of the sums) in the second, so that the first may combine its
    reductions over the threads; None when nothing is gained, or when one of those
    statements must run before another statement of the band."""
    parts = _readers_apart(band, lead, reductions, dependences)
    return None if parts is None else _split(band, *parts)


@dataclass(frozen=True)
class Epilogue:
    """A kernel's reductions and the instances that read their results after them
    (codegen runs those after the combination, in the same launch)."""

    reductions: tuple[ReducedLocation, ...]
    instances: isl.UnionSet


def reduction_epilogue(band: isl.ScheduleNode, lead: int, reductions: Sequence[ReducedLocation],
                       dependences: isl.UnionMap | None) -> Epilogue | None:
    """The band's reductions along member `lead`, combined over the threads, with the
    statements that read their results (correlation's `stddev[j] /= float_n`, its
    square root and its guard, at i = n in the band of the sum) run by the same
    block after the combination: one launch where `distributed_tail` makes two.

    The readers must come after every other instance of the band at the same values
    of the loops around it and of the parallel members (their block and row of
    threads): moved after all of those, they keep their place in the original order.
    A scalar they share with the rest gets no copy per thread (schedule/private.py):
    the thread that runs a reader need not be the one that wrote it."""
    parts = _readers_apart(band, lead, reductions, dependences)
    if parts is None:
        return None
    head, last = parts
    found = reduction_member(_split(band, head, last).child(0).child(0), lead, reductions, dependences)
    if not found or not _strictly_after(band, lead, head, last) or _carried_by_readers(band, lead, last, dependences):
        return None
    return Epilogue(found, union_of([isl.UnionSet.from_set(s) for s in last]))


def _carried_by_readers(band: isl.ScheduleNode, lead: int, last: list[isl.Set], dependences: isl.UnionMap) -> bool:
    """Whether the readers carry a dependence among themselves along member `lead` (at the
    same values of the loops around and of the members before it): the threads that run
    them along that member would race (fuzz 2989:65, `A[i] = C[i][i][j + 3]` at every j)."""
    domain, _prefix, local = _within_band(band, dependences)
    readers = union_of([isl.UnionSet.from_set(s) for s in last])
    local = local.intersect_domain(readers).intersect_range(readers)
    members = [_member(band, k, domain) for k in range(lead + 1)]
    for member in members[:lead]:
        local = local.intersect(_same(member))
    return not zero_distance(local, members[lead])


def _readers_apart(band: isl.ScheduleNode, lead: int, reductions: Sequence[ReducedLocation],
                   dependences: isl.UnionMap | None) -> tuple[list[isl.Set], list[isl.Set]] | None:
    """The band's instances in two parts: the readers of the results of the reductions
    along member `lead` (and their readers) last, the rest first; None where there
    are none, or where a reader must run before another statement of the band."""
    if dependences is None or lead == 0 or lead >= min(3, band.band_n_member()):
        return None
    statements = statements_below(band)
    domain, _prefix, local = _within_band(band, dependences)
    # the reductions along member `lead`; one whose location the member does not move
    # (gemver's `x[i] = x[i] + z[i]` after the sum into x[i]) reads the result like any tail
    names = {r.statement for r in _carried([r for r in reductions if r.statement in statements], local,
                                           _member(band, lead, domain))}
    if not names:
        return None
    edges = {(m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out))
             for m in maps_of(local) if not m.is_empty()}
    tail = _reached(names, edges) - names   # correlation's `stddev[j] /= n`, then sqrt, then the guard
    if not tail:
        return None
    if any(a in tail and b not in tail for a, b in edges):
        return None
    head = [s for s in sets_of(domain) if s.get_tuple_name() not in tail]
    last = [s for s in sets_of(domain) if s.get_tuple_name() in tail]
    return head, last


def _split(band: isl.ScheduleNode, head: list[isl.Set], last: list[isl.Set]) -> isl.ScheduleNode:
    filters = isl.UnionSetList.alloc(band.get_ctx(), 2)
    for part in (head, last):
        filters = filters.add(union_of([isl.UnionSet.from_set(s) for s in part]))
    return band.insert_sequence(filters)


def _strictly_after(band: isl.ScheduleNode, lead: int, head: list[isl.Set], last: list[isl.Set]) -> bool:
    """Whether each instance of `last` comes after every instance of `head` with the same
    values of the loops around and of the members before `lead`: moved after all of
    them, it keeps its place in the original order. It does where its value of member
    `lead` is larger, or, where equal (gesummv's `y[i] = ...` at j = n - 1), where the
    sequence below the band runs it in a later child."""
    domain = band.get_domain()
    key = band.get_prefix_schedule_union_map().intersect_domain(domain)
    for k in range(lead):
        key = key.flat_range_product(_member(band, k, domain))
    first = union_of([isl.UnionSet.from_set(s) for s in head])
    after = union_of([isl.UnionSet.from_set(s) for s in last])
    member = _member(band, lead, domain)
    pairs = _same(key).intersect_domain(first).intersect_range(after)
    if not pairs.intersect(member.lex_gt_union_map(member)).is_empty():
        return False
    equal = pairs.intersect(_same(member))
    if equal.is_empty():
        return True
    below = band.child(0)
    if below.get_type() != isl.schedule_node_type.sequence:
        return False
    children: dict[str, list[int]] = {}     # a statement's instances may lie in several children
    for k in range(below.n_children()):
        for name in statement_names(filter_instances(below.child(k))):
            children.setdefault(name, []).append(k)
    for m in maps_of(equal):
        first, later = m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)
        if not m.is_empty() and not (first in children and later in children
                                     and max(children[first]) < min(children[later])):
            return False
    return True


def _reached(sources: set[str], edges: set[tuple[str, str]]) -> set[str]:
    """The statements that depend on `sources`, directly or through others."""
    reached, frontier = set(sources), set(sources)
    while frontier:
        frontier = {b for a, b in edges if a in frontier} - reached
        reached |= frontier
    return reached


def _within_band(band: isl.ScheduleNode,
                 dependences: isl.UnionMap) -> tuple[isl.UnionSet, isl.UnionMap, isl.UnionMap]:
    """The band's instances, their values of the loops around it, and the dependences
    between two of them in one iteration of those loops."""
    domain = band.get_domain()
    prefix = band.get_prefix_schedule_union_map().intersect_domain(domain)
    local = dependences.intersect_domain(domain).intersect_range(domain).intersect(_same(prefix))
    return domain, prefix, local


def _member(band: isl.ScheduleNode, k: int, domain: isl.UnionSet) -> isl.UnionMap:
    """{ instance -> value of member k } over `domain`."""
    return isl.UnionMap.from_union_pw_aff(band.band_get_partial_schedule().get_at(k)).intersect_domain(domain)


def _carried(reductions: Sequence[ReducedLocation], local: isl.UnionMap,
             member: isl.UnionMap) -> list[ReducedLocation]:
    """The reductions whose own dependences (`local`: within the band) the member carries."""
    return [r for r in reductions if not zero_distance(_between(local, r.statement), member)]


def _same(values: isl.UnionMap) -> isl.UnionMap:
    """Pairs of instances with the same values."""
    return values.apply_range(values.reverse())


def _between(deps: isl.UnionMap, statement: str) -> isl.UnionMap:
    found = [isl.UnionMap.from_map(m) for m in maps_of(deps)
             if m.get_tuple_name(isl.dim_type.in_) == statement == m.get_tuple_name(isl.dim_type.out)]
    return union_of(found) if found else isl.UnionMap.empty(deps.get_space())


def _to_others(deps: isl.UnionMap, statement: str) -> bool:
    """Whether another statement of the band depends on the reduction: it would read or
    overwrite the location before the threads' partials reach it (a write before the
    reduction, an initialisation, is fine: the combination comes after it)."""
    return any(m.get_tuple_name(isl.dim_type.in_) == statement != m.get_tuple_name(isl.dim_type.out)
               and not m.is_empty() for m in maps_of(deps))


def _one_element(key: isl.UnionMap, reduction: ReducedLocation) -> bool:
    """Whether the outer values and the parallel members fix the location."""
    location = isl.UnionMap.from_map(reduction.location)
    return key.intersect_domain(location.domain()).reverse().apply_range(location).is_single_valued()
