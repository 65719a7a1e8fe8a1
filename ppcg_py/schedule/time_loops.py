"""A SCoP's time loops, and where isl's schedule runs each apart from the rest.

A time loop is a loop of the SCoP's top level (the whole SCoP, or a child of its
outer sequence: a grid filled before it, a sum taken after it) with loops inside
that carries a dependence among its own statements: a stencil's time steps, a
factorisation's `k`. Both targets replace isl's schedule of such a loop by one of
their own (the C target's tiles along time, cpu/time_tiles.py; CUDA's split tiles,
gpu/hybrid.py), where isl's schedule runs its statements under a filter of their
own: the order around them stays isl's.
"""
from __future__ import annotations

import islpy as isl

from ..extract.model import Scop
from ..isl_context import filter_instances, statement_names
from .parallel import zero_distance

NT = isl.schedule_node_type


def time_loops(scop: Scop, dependences: isl.UnionMap) -> list[tuple[isl.ScheduleNode, isl.UnionSet]]:
    """The time loops of the SCoP's original schedule (those that carry some of
    `dependences`): (band, its instances)."""
    node = scop.schedule.get_root()
    while node.get_type() in (NT.domain, NT.context, NT.mark) and node.n_children() == 1:
        node = node.child(0)
    if node.get_type() == NT.band:
        candidates = [node]
    elif node.get_type() == NT.sequence:
        candidates = [node.child(k).child(0) for k in range(node.n_children())]
    else:
        candidates = []
    found = []
    for band in candidates:
        if band.get_type() != NT.band or band.child(0).get_type() not in (NT.band, NT.sequence):
            continue    # no loop (a sweep) inside it
        instances = band.get_domain()
        time = isl.UnionMap.from_multi_union_pw_aff(band.band_get_partial_schedule())
        inside = dependences.intersect_domain(instances).intersect_range(instances)
        if not zero_distance(inside, time):
            found.append((band, instances))
    return found


def place_apart(schedule: isl.Schedule, instances: isl.UnionSet) -> isl.ScheduleNode | None:
    """Where `schedule` runs exactly `instances` apart from the other statements, with
    no loop around: the whole tree, or the child of a filter (of a sequence or set) that
    selects just them. Replacing that subtree reorders only the loop's own instances."""
    root = schedule.get_root().child(0)
    if root.get_domain().is_equal(instances):
        return root

    def search(node: isl.ScheduleNode) -> isl.ScheduleNode | None:
        if node.get_type() == NT.band:
            return None     # below a loop of isl's, which may become a kernel's
        if node.get_type() == NT.filter and filter_instances(node).is_equal(instances):
            return node.child(0)
        for k in range(node.n_children()):
            found = search(node.child(k))
            if found is not None:
                return found
        return None
    return search(root)


def grafted(place: isl.ScheduleNode, subtree: isl.ScheduleNode) -> isl.ScheduleNode:
    """The tree of `place` with its subtree replaced by a copy of `subtree` (a tree over
    the same instances: bands with their flags, sequences, sets, filters and marks);
    returns the node at `place`. isl offers no grafting of a tree inside another."""
    return _copied(place.cut(), subtree)


def _copied(leaf: isl.ScheduleNode, node: isl.ScheduleNode) -> isl.ScheduleNode:
    """`node`'s subtree rebuilt at `leaf`; returns the node at `leaf`'s position."""
    kind = node.get_type()
    if kind == NT.leaf:
        return leaf
    if kind == NT.band:
        band = leaf.insert_partial_schedule(node.band_get_partial_schedule())
        band = band.band_set_permutable(int(node.band_get_permutable()))
        for m in range(node.band_n_member()):
            band = band.band_member_set_coincident(m, int(node.band_member_get_coincident(m)))
        return _copied(band.child(0), node.child(0)).parent()
    if kind == NT.mark:
        return _copied(leaf.insert_mark(node.mark_get_id()).child(0), node.child(0)).parent()
    if kind == NT.filter:
        return _copied(leaf.insert_filter(filter_instances(node)).child(0), node.child(0)).parent()
    if kind in (NT.sequence, NT.set):
        filters = isl.UnionSetList.alloc(leaf.get_ctx(), node.n_children())
        for k in range(node.n_children()):
            filters = filters.add(filter_instances(node.child(k)))
        out = leaf.insert_sequence(filters) if kind == NT.sequence else leaf.insert_set(filters)
        for k in range(node.n_children()):
            out = _copied(out.child(k).child(0), node.child(k).child(0)).parent().parent()
        return out
    raise ValueError(f"a schedule node of type {kind} cannot be copied")


def scalar_writer(scop: Scop, statements: frozenset[str]) -> str | None:
    """`S (line L)`: the first of `statements` that writes a scalar, or None. Its writes
    are ordered along every loop around it, so no band of more than one member is
    permutable around it: not a loop to tile along time, nor worth asking isl."""
    scalars = {a.name for a in scop.arrays if a.is_scalar}
    for stmt in scop.statements:
        if stmt.name in statements and any(a.is_write and a.array in scalars for a in stmt.accesses):
            return f"{stmt.name} (line {stmt.line})"
    return None


def where(scop: Scop, instances: isl.UnionSet) -> str:
    """`line L`: the first line of the statements of `instances` (those of a time loop:
    the model keeps no loop's own line)."""
    names = statement_names(instances)
    first = min((s for s in scop.statements if s.name in names), key=lambda s: (s.line, s.col))
    return f"line {first.line}"
