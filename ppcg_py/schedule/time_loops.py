"""A SCoP's time loops, and where isl's schedule runs each apart from the rest.

A time loop is a loop of the SCoP's top level (the whole SCoP, or a child of its
outer sequence: a grid filled before it, a sum taken after it) with loops inside
that carries a dependence among its own statements: a stencil's time steps, a
factorisation's `k`. Both targets replace isl's schedule of such a loop by one of
their own: the C target runs the SCoP's top-level loops in their own order, each
time loop tiled along time and the others in isl's usual schedule of them alone
(cpu/__init__.py); CUDA's split tiles (gpu/hybrid.py) replace the subtree where isl's
usual schedule runs the loop's statements under a filter of their own.
"""
from __future__ import annotations

import islpy as isl

from ..extract.model import Scop
from ..isl_context import band_values, filter_instances, statement_names
from .parallel import zero_distance

NT = isl.schedule_node_type


def top_level(scop: Scop) -> list[tuple[isl.ScheduleNode, isl.UnionSet]]:
    """The SCoP's original schedule at its top level, in order: the whole tree, or each
    child of its outer sequence (node, its instances)."""
    node = scop.schedule.get_root()
    while node.get_type() in (NT.domain, NT.context, NT.mark) and node.n_children() == 1:
        node = node.child(0)
    if node.get_type() == NT.sequence:
        return [(node.child(k).child(0), node.child(k).child(0).get_domain()) for k in range(node.n_children())]
    return [(node, node.get_domain())]


def is_time_loop(node: isl.ScheduleNode, dependences: isl.UnionMap) -> bool:
    """Whether `node` (of `top_level`) is a loop with loops inside (the sweeps) that
    carries some of `dependences`."""
    if node.get_type() != NT.band or node.child(0).get_type() not in (NT.band, NT.sequence):
        return False
    instances = node.get_domain()
    time = band_values(node)
    inside = dependences.intersect_domain(instances).intersect_range(instances)
    return not zero_distance(inside, time)


def time_loops(scop: Scop, dependences: isl.UnionMap) -> list[tuple[isl.ScheduleNode, isl.UnionSet]]:
    """The time loops of the SCoP's original schedule (those that carry some of
    `dependences`): (band, its instances)."""
    return [(node, instances) for node, instances in top_level(scop) if is_time_loop(node, dependences)]


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
