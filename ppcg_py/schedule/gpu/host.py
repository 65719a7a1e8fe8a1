"""Statements that run on the host: scalar arithmetic no kernel needs to do, and
the serial beginning and end of a SCoP.

PolyBench's adi and deriche start by computing a dozen scalars from the
parameters (`DX = 1.0 / n; mul1 = B1 * DT / (DX * DX); a = -mul1 / 2;`). As
kernels, each is a launch of one thread, and its value then sits in device
memory. On the host each is one instruction, and kernels get the values as
arguments, as they get read-only scalars.

A statement can run on the host when it touches scalars only (no array element:
the host's arrays are stale while the SCoP runs), and each of those scalars is a
*host scalar*: written by such statements alone, so its current value is always
the host's. The kernel mapper leaves a subtree of host statements outside every
kernel; if the schedule puts one inside a kernel after all, its scalars are
taken out of the set and the mapping is made again.

**Host ends** (PPCG's `isolate_permutable_subtrees` in gpu.c): the children of
the SCoP's outermost sequence that have no parallelism and come before every
child with parallelism (the *head*) run on the host before the arrays are
copied to the device; those after every such child (the *tail*) run on the
host after the arrays are copied back (ludcmp's forward and back
substitutions). The serial children of an outermost set run after the others,
as the tail. One CPU thread is faster than one GPU thread, and a launch is
saved. A SCoP with no parallelism at all runs on the host entirely. Head and
tail statements touch the host's own arrays and scalars: the memory stage
copies in what the device part reads that the head wrote, and copies back
what the device part wrote that the tail reads.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import islpy as isl

from ...extract.model import Scop, Statement
from ...isl_context import filter_instances, statement_names, union_of
from .kernels import threads_below

NT = isl.schedule_node_type


@dataclass(frozen=True)
class HostEnds:
    """The statements of the serial head and tail of a SCoP (host code before the
    copies to the device and after the copies back)."""

    head: frozenset[str] = frozenset()
    tail: frozenset[str] = frozenset()

    @property
    def statements(self) -> frozenset[str]:
        return self.head | self.tail


def host_ends(schedule: isl.Schedule,
              parallel: Callable[[isl.ScheduleNode], bool] = threads_below) -> tuple[isl.Schedule, HostEnds]:
    """The serial head and tail of the SCoP's outermost sequence or set, and the
    schedule with an outermost set's serial children ordered after the others.

    A statement that must run on the host (it calls a function only the host has,
    extract/summaries.py and external.py) joins the head or tail in a serial child;
    one left between kernels, or in a child with parallelism, runs there on the
    host, between copies of what it touches back and forth (memory/host_syncs.py).
    `parallel`: whether a subtree has work for the threads of a kernel."""
    root = schedule.get_root()
    if root.n_children() == 0:
        return schedule, HostEnds()
    top = root.child(0)
    kind = top.get_type()
    if kind not in (NT.sequence, NT.set):
        if top.get_type() == NT.leaf or not parallel(top):
            return schedule, HostEnds(head=statement_names(top.get_domain()))   # nothing parallel: all host
        return schedule, HostEnds()
    filters = [filter_instances(top.child(k)) for k in range(top.n_children())]
    # a child with parallelism is part of the device part even where it holds a
    # host-only statement too: that one runs on the host between kernels
    parallel_children = [parallel(top.child(k)) for k in range(top.n_children())]
    if not any(parallel_children):
        return schedule, HostEnds(head=statement_names(top.get_domain()))
    if kind == NT.set:
        serial = [f for f, p in zip(filters, parallel_children) if not p]
        if not serial:
            return schedule, HostEnds()
        tail = union_of(serial)
        try:
            schedule = top.order_after(tail).get_schedule()
        except isl.Error:
            return schedule, HostEnds()
        return schedule, HostEnds(tail=statement_names(tail))
    first = parallel_children.index(True)
    last = len(parallel_children) - 1 - parallel_children[::-1].index(True)
    head = statement_names(union_of(filters[:first])) if first > 0 else frozenset()
    tail = statement_names(union_of(filters[last + 1:])) if last + 1 < len(filters) else frozenset()
    return schedule, HostEnds(head, tail)


def host_statements(scop: Scop, excluded: frozenset[str] = frozenset(),
                    ends: frozenset[str] = frozenset()) -> frozenset[str]:
    """The statements that may run on the host, when the scalars in `excluded` may not
    be host scalars; the statements `ends` (the head and tail) run there anyway."""
    scalars = {a.name for a in scop.arrays if a.is_scalar and not a.local} - excluded
    while True:
        host = ends | frozenset(s.name for s in scop.statements if _touches_only(s, scalars))
        keep = (scalars & written_scalars(scop, host)) - written_scalars(scop, _names(scop) - host)
        if keep == scalars:
            return host
        scalars = keep


def host_scalars(scop: Scop, host: frozenset[str]) -> frozenset[str]:
    """The scalars that only the statements `host` write (kernels get them by value)."""
    scalars = frozenset(a.name for a in scop.arrays if a.is_scalar)
    return (written_scalars(scop, host) - written_scalars(scop, _names(scop) - host)) & scalars


def written_scalars(scop: Scop, statements: frozenset[str]) -> frozenset[str]:
    return frozenset(a.array for s in scop.statements if s.name in statements for a in s.accesses if a.is_write)


def _names(scop: Scop) -> frozenset[str]:
    return frozenset(s.name for s in scop.statements)


def _touches_only(statement: Statement, scalars: set[str]) -> bool:
    return bool(statement.accesses) and all(a.array in scalars for a in statement.accesses)


