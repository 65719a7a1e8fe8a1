"""Whether a loop has enough work for OpenMP's threads to pay for themselves.

Every execution of an OpenMP loop costs a barrier (a fork too, outside a parallel
region): microseconds, while a statement instance takes a nanosecond or less. durbin's
and trisolv's inner loops run at most 2,000 instances per execution, 2,000 times over:
run by OpenMP they took 1.6x gcc's time on one thread and more on two. A loop whose
every execution runs fewer than `--min-parallel-work` statement instances (32,768 by
default: ~10 µs of work, against a barrier of a few µs) stays serial, and so does
every loop inside it.

The work is bounded from above without the parameters' values: each loop below runs at
most as many values as it takes over the instances whose accesses stay inside the
arrays' declared extents (loop_extents.py); a sequence adds its children's work. A loop
that no array bounds has unknown work and may run in parallel.
"""
from __future__ import annotations

import math

import islpy as isl

from ...isl_context import statement_names
from ..loop_extents import band_extents

NT = isl.schedule_node_type


def work_bound(band: isl.ScheduleNode, member: int, in_bounds: isl.UnionSet) -> int | None:
    """At most how many statement instances one execution of member `member` of `band`
    runs (the member's loop and everything inside it); None where some loop is unbounded."""
    extents = band_extents(band, in_bounds)[member:]
    if None in extents:
        return None
    inner = _subtree_work(band.child(0), in_bounds)
    return None if inner is None else math.prod(extents) * inner


def too_little_work(band: isl.ScheduleNode, member: int, in_bounds: isl.UnionSet, least: int) -> str | None:
    """Why the loop of `band`'s member stays serial (it runs fewer than `least`
    instances per execution), or None where it may run in parallel."""
    return too_little(work_bound(band, member, in_bounds) if least > 0 else None, least)


def too_little(work: int | None, least: int) -> str | None:
    """Why a loop that runs at most `work` statement instances between two barriers
    (None: unbounded) stays serial, or None where it may run in parallel."""
    if work is None or least <= 0 or work >= least:
        return None
    return f"at most {work} statement instances per execution (--min-parallel-work={least})"


def _subtree_work(node: isl.ScheduleNode, in_bounds: isl.UnionSet) -> int | None:
    kind = node.get_type()
    if kind == NT.leaf:
        return len(statement_names(node.get_domain()))
    if kind == NT.band:
        return work_bound(node, 0, in_bounds)
    if kind in (NT.sequence, NT.set):
        parts = [_subtree_work(node.child(k), in_bounds) for k in range(node.n_children())]
        return None if None in parts else sum(parts)
    return _subtree_work(node.child(0), in_bounds) if node.n_children() else 0
