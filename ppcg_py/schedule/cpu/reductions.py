"""Reductions in the schedule: their dependences relaxed, the loops they make parallel.

The instances of a reduction statement (extract/reductions.py) that update one element
may run in any order. So may those of several reduction statements with the same
operator on the same array (`s += a[i]; s += b[i];`): such statements form a *group*,
and the dependences between two instances of one group through its location (the
chain of partial values, and the anti and output dependences that come with it) are
dropped from the validity and coincidence constraints (`relaxed`).

Value-based dependences keep only the first and last link of each chain with the
other statements (`s = 0` before the first instance, `out = s` after the last), so
the chain's other instances would be free to move past them. Each other statement's
access to the location is therefore joined to every instance of the chain it is
ordered with, as memory-based dependences do, but cut at the other statements' own
must-writes (a chain between `s = 0` and `x[i] = s` in iteration i is not tied to
iteration i + 1's). For a scalar with live-range reordering, the joins that carry a
value (a write of another statement to the group's reads, the group's writes to
another statement's reads) are live ranges, the others order dependences, as for
any scalar: `s` stays private to a parallel loop around its chain.

A band member that is coincident under the relaxed dependences and not under the
full ones is a *reduction loop* for the groups whose chains it carries: it may run in
parallel with a copy of each such location per thread, combined at its end (OpenMP's
`reduction` clause, codegen/c_target.py). Where the location is an array too large
for a copy per thread, or another statement of the loop touches it, the loop stays
serial (schedule/cpu/__init__.py).

Only groups that are *enabled* are relaxed: exact ones always (integers, min, max),
floating-point `+` and `*` with `--reductions` (reassociation changes their rounding).
GPU targets relax nothing yet: `-v` says where a reduction would run in parallel.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import islpy as isl

from ...extract.model import Scop
from ...extract.reductions import Reduction
from ...isl_context import maps_of
from ...isl_budget import LIMITS, within_operations
from ..dependences import Dependences, _tagger, kill_accesses, untagged
from ..parallel import schedule_map, zero_distance

NT = isl.schedule_node_type

# the largest array of which a parallel loop keeps a copy per thread
MAX_COPY_BYTES = 64 * 1024


@dataclass(frozen=True)
class ReductionGroup:
    """The reduction statements with one operator on one array."""

    op: str
    array: str
    reductions: tuple[Reduction, ...]

    @property
    def statements(self) -> frozenset[str]:
        return frozenset(r.statement for r in self.reductions)

    @property
    def exact(self) -> bool:
        return all(r.exact for r in self.reductions)

    @property
    def location_tags(self) -> frozenset[str]:
        return frozenset(tag for r in self.reductions for tag in (*r.reads, r.write))


def reduction_groups(reductions: Iterable[Reduction]) -> tuple[ReductionGroup, ...]:
    """The groups of `reductions`, in the order of their first statements."""
    found: dict[tuple[str, str], list[Reduction]] = {}
    for r in reductions:
        found.setdefault((r.op, r.array), []).append(r)
    return tuple(ReductionGroup(op, array, tuple(rs)) for (op, array), rs in found.items())


def enabled_groups(scop: Scop, reassociate: bool) -> tuple[ReductionGroup, ...]:
    """The groups whose order may change: exact ones, inexact ones with `--reductions`."""
    return tuple(g for g in reduction_groups(scop.reductions) if g.exact or reassociate)


@dataclass(frozen=True)
class Relaxation:
    """The dependences with the enabled groups' chains dropped, and what finding the
    reduction loops needs."""

    full: Dependences
    relaxed: Dependences
    groups: tuple[ReductionGroup, ...]
    chains: tuple[isl.UnionMap, ...]     # per group: its value chain, instance -> instance (full flow)

    @cached_property
    def linked(self) -> tuple[isl.UnionMap, ...]:
        """Per group, the chain's transitive closure (`_linked`), for the loop finder."""
        return tuple(_linked(chain) for chain in self.chains)

    def coincidence(self, fixed: Iterable[str]) -> isl.UnionMap:
        return self.relaxed.coincidence(fixed)


def relax(scop: Scop, deps: Dependences, groups: Sequence[ReductionGroup]) -> Relaxation | None:
    """The dependences with `groups` relaxed, or None when there is nothing to relax
    (no group, or only memory-based dependences: no chain to tell apart) or when the
    joins' dataflow needs more isl operations than the dependences may
    (`LIMITS.dataflow`): a fuzzed SCoP's took minutes. The reductions then keep their
    order, which is always correct."""
    if not groups or not deps.value_based:
        return None
    return within_operations(scop.ctx, LIMITS.dataflow, lambda: _relaxed(scop, deps, groups))


def _relaxed(scop: Scop, deps: Dependences, groups: Sequence[ReductionGroup]) -> Relaxation:
    pairs = frozenset((a, b) for g in groups for a in g.statements for b in g.statements)
    scalars = {a.name for a in scop.arrays if a.is_scalar}
    space = deps.flow.get_space()
    scalar_flow, scalar_order = isl.UnionMap.empty(space), isl.UnionMap.empty(space)
    array_flow, array_order = isl.UnionMap.empty(space), isl.UnionMap.empty(space)
    for group in groups:
        flows, orders = _joins(scop, group)
        if group.array in scalars:
            scalar_flow, scalar_order = scalar_flow.union(flows), scalar_order.union(orders)
        else:
            array_flow, array_order = array_flow.union(untagged(flows)), array_order.union(untagged(orders))
    relaxed = replace(deps, flow=_without(deps.flow, pairs).union(untagged(scalar_flow)).union(array_flow).coalesce(),
                      false=_without(deps.false, pairs).union(untagged(scalar_order)).union(array_order).coalesce(),
                      forced=None if deps.forced is None else _without(deps.forced, pairs))
    if deps.reordering:
        relaxed = replace(relaxed, tagged_flow=_without(deps.tagged_flow, pairs).union(scalar_flow),
                          tagged_order=_without(deps.tagged_order, pairs).union(scalar_order),
                          tagged_false=_without(deps.tagged_false, pairs).union(scalar_order),
                          array_false=_without(deps.array_false, pairs).union(array_order).coalesce())
    chains = tuple(_between(deps.flow, g.statements) for g in groups)
    return Relaxation(deps, relaxed, tuple(groups), chains)


def _linked(chain: isl.UnionMap) -> isl.UnionMap:
    """The pairs of updates one chain links, through any number of its statements. A
    loop that runs some of a chain's updates, whose links pass through updates outside
    it (`s += a` in the loop, `s += b` between its iterations in the original order,
    fuzz 2619:753), carries no flow between its own instances, yet reorders the chain
    all the same. isl's closure may over-approximate: a loop then looks like a
    reduction loop where it is not, and gets a copy per thread or stays serial."""
    if chain.is_empty():
        return chain
    closure, _exact = chain.transitive_closure()
    return closure


def _joins(scop: Scop, group: ReductionGroup) -> tuple[isl.UnionMap, isl.UnionMap]:
    """(value-carrying joins, order joins) between the group's location accesses and
    the other statements' accesses to its array, tagged: each other access with every
    group instance it is ordered with, up to the other statements' must-writes."""
    name, tags, mine = group.array, group.location_tags, group.statements
    reads = _of_array(scop.access_union(reads=True, tagged=True), name)
    must = _of_array(scop.access_union(reads=False, tagged=True, must=True), name)
    may = _of_array(scop.access_union(reads=False, tagged=True, must=False), name)
    kills = _of_array(kill_accesses(scop, tagged=True), name)
    group_reads = _tagged_part(reads, lambda stmt, tag: tag in tags)
    group_writes = _tagged_part(must, lambda stmt, tag: tag in tags)
    other = lambda stmt, tag: stmt not in mine     # noqa: E731
    other_reads, other_must, other_may = (_tagged_part(m, other) for m in (reads, must, may))
    others = other_reads.union(other_must).union(other_may)
    everything = reads.union(must).union(may).union(kills)
    order = schedule_map(scop.dataflow_schedule.pullback_union_pw_multi_aff(_tagger(everything)))

    def dependences(sink: isl.UnionMap, must_source: isl.UnionMap, may_source: isl.UnionMap,
                    sources: isl.UnionMap) -> isl.UnionMap:
        if sink.is_empty():
            return isl.UnionMap.empty(sink.get_space())
        flow = (isl.UnionAccessInfo.from_sink(sink).set_must_source(must_source).set_may_source(may_source)
                .set_schedule_map(order).compute_flow())
        return flow.get_may_dependence().intersect_domain(sources.domain())

    into_flow = dependences(group_reads, other_must.union(kills), other_may, others)
    into_order = dependences(group_writes, other_must.union(kills), other_may.union(other_reads), others)
    out_flow = dependences(other_reads, other_must.union(kills), other_may.union(group_writes), group_writes)
    mine_all = group_reads.union(group_writes)
    out_order = dependences(other_must.union(other_may), other_must.union(kills),
                            other_may.union(other_reads).union(mine_all), mine_all)
    return into_flow.union(out_flow), into_order.union(out_order)


def _statement(part: isl.Set) -> tuple[str, str | None]:
    """(statement, tag) of one space of instances, tagged (`[S[i] -> ref[]]`) or not."""
    if part.is_wrapping():
        pair = part.unwrap()
        return pair.get_tuple_name(isl.dim_type.in_), pair.get_tuple_name(isl.dim_type.out)
    return part.get_tuple_name(), None


def _tagged_part(accesses: isl.UnionMap, keep: Callable[[str, str | None], bool]) -> isl.UnionMap:
    result = isl.UnionMap.empty(accesses.get_space())
    for m in maps_of(accesses):
        if keep(*_statement(m.domain())):
            result = result.union(isl.UnionMap.from_map(m))
    return result


def _of_array(accesses: isl.UnionMap, name: str) -> isl.UnionMap:
    result = isl.UnionMap.empty(accesses.get_space())
    for m in maps_of(accesses):
        if m.get_tuple_name(isl.dim_type.out) == name:
            result = result.union(isl.UnionMap.from_map(m))
    return result


def _without(deps: isl.UnionMap, pairs: frozenset[tuple[str, str]]) -> isl.UnionMap:
    """`deps` without those between the statements of one of `pairs`."""
    result = isl.UnionMap.empty(deps.get_space())
    for m in maps_of(deps):
        if (_statement(m.domain())[0], _statement(m.range())[0]) not in pairs:
            result = result.union(isl.UnionMap.from_map(m))
    return result


def _between(deps: isl.UnionMap, statements: frozenset[str]) -> isl.UnionMap:
    """The dependences of `deps` from one of `statements` to one of them."""
    result = isl.UnionMap.empty(deps.get_space())
    for m in maps_of(deps):
        if _statement(m.domain())[0] in statements and _statement(m.range())[0] in statements:
            result = result.union(isl.UnionMap.from_map(m))
    return result


def _union(maps: list[isl.UnionMap], space: isl.Space) -> isl.UnionMap:
    result = isl.UnionMap.empty(space)
    for m in maps:
        result = result.union(m)
    return result


# -- reduction loops ----------------------------------------------------------
@dataclass(frozen=True)
class LoopFinder:
    """Which band members are reduction loops, under a relaxation (for one `fixed`)."""

    relaxation: Relaxation
    coincidence: isl.UnionMap       # the relaxed coincidence constraints

    @staticmethod
    def of(relaxation: Relaxation, fixed: Iterable[str], serial: isl.UnionMap | None = None) -> LoopFinder:
        """`serial`: dependences no parallel loop may cross besides the relaxed ones."""
        coincidence = relaxation.coincidence(fixed)
        return LoopFinder(relaxation, coincidence if serial is None else coincidence.union(serial))

    def carried(self, band: isl.ScheduleNode, k: int) -> tuple[ReductionGroup, ...]:
        """The groups whose chains member `k` of `band` carries, where no relaxed
        coincidence constraint crosses its iterations (at equal values of the loops
        around it); () where one does, or no chain crosses them."""
        domain = band.get_domain()
        partial = band.band_get_partial_schedule()
        same = _same_values(band.get_prefix_schedule_union_map())
        for j in range(k):
            same = same.intersect(_same_values(isl.UnionMap.from_union_pw_aff(partial.get_at(j))))
        member = isl.UnionMap.from_union_pw_aff(partial.get_at(k)).intersect_domain(domain)

        def inside(deps: isl.UnionMap) -> isl.UnionMap:
            return deps.intersect_domain(domain).intersect_range(domain).intersect(same)

        relaxation = self.relaxation
        carried = tuple(g for g, linked in zip(relaxation.groups, relaxation.linked)
                        if not zero_distance(inside(linked), member))
        if not carried or not zero_distance(inside(self.coincidence), member):
            return ()
        return carried


def _same_values(schedule: isl.UnionMap) -> isl.UnionMap:
    return schedule.apply_range(schedule.reverse())


@dataclass(frozen=True)
class FoundLoop:
    """A reduction loop of a schedule: a band member and the groups it carries."""

    groups: tuple[ReductionGroup, ...]
    names: tuple[tuple[str, str], ...]      # statement -> the loop as the source names it


def reduction_loops(schedule: isl.Schedule, finder: LoopFinder, scop: Scop) -> list[FoundLoop]:
    """The members of `schedule`'s bands that are not coincident and are reduction loops."""
    found: list[FoundLoop] = []
    statements = {s.name: s for s in scop.statements}

    def visit(node: isl.ScheduleNode) -> None:
        if node.get_type() == NT.band:
            for k in range(node.band_n_member()):
                if node.band_member_get_coincident(k):
                    continue
                carried = finder.carried(node, k)
                if carried:
                    found.append(FoundLoop(carried, tuple(
                        (r.statement, loop_name(node, k, statements[r.statement]))
                        for g in carried for r in g.reductions)))
        for c in range(node.n_children()):
            visit(node.child(c))

    visit(schedule.get_root())
    return found


def loop_name(band: isl.ScheduleNode, k: int, statement) -> str:
    """Member `k` of `band` for `statement`, as its source names the loop: the iterator
    it follows (`j`, also for the tile loop over j), else its schedule dimension."""
    member = band.band_get_partial_schedule().get_at(k).get_pw_aff_list()
    for index in range(member.n_pw_aff()):
        value = member.get_at(index)
        if value.get_domain_space().get_tuple_name(isl.dim_type.set) != statement.name:
            continue
        used = {it for _, aff in value.get_pieces() for d, it in enumerate(statement.iterators)
                if aff.involves_dims(isl.dim_type.in_, d, 1)}
        if len(used) == 1:
            return used.pop()
    return f"c{band.get_schedule_depth() + k}"


def serial_chains(relaxation: Relaxation, groups: Iterable[ReductionGroup]) -> isl.UnionMap:
    """The chains of `groups` (of `relaxation`), which no parallel loop may split."""
    keep = {(g.op, g.array) for g in groups}
    result = isl.UnionMap.empty(relaxation.full.flow.get_space())
    for group, chain in zip(relaxation.groups, relaxation.chains):
        if (group.op, group.array) in keep:
            result = result.union(chain)
    return result


def copy_refusal(scop: Scop, group: ReductionGroup) -> str | None:
    """Why no loop can keep a copy of `group`'s location per thread (None: one can): an
    array OpenMP cannot name whole, or larger than MAX_COPY_BYTES."""
    arr = scop.array(group.array)
    if arr.is_scalar:
        return None
    if arr.local or arr.member is not None or not all(arr.extent_known):
        return f"OpenMP cannot name the elements of {arr.name} (no declared size)"
    size = copy_bytes(scop, arr.name)
    if size is None or size > MAX_COPY_BYTES:
        amount = "an unbounded size" if size is None else f"{size} bytes"
        return f"a copy of {arr.name} per thread would take {amount} (at most {MAX_COPY_BYTES})"
    return None


def note(reduction: Reduction, loop: str, status: str) -> str:
    """The `-v` line of a reduction loop."""
    return (f"{reduction.statement} (line {reduction.line}): reduction '{reduction.written}' on "
            f"{reduction.array} along loop {loop}: {status}")


def copy_bytes(scop: Scop, name: str) -> int | None:
    """The bytes of a copy of array `name` (from its declared extents, at their largest
    under the context), or None where that is not bounded."""
    arr = scop.array(name)
    total = _element_bytes(arr.element_type)
    for extent in arr.extents:
        # floor: an inferred extent may be rational where its piece holds only at integers
        largest = extent.floor().intersect_params(scop.context).max_val()
        if not largest.is_int():
            return None
        total *= max(int(largest.to_python()), 0)
    return total


def _element_bytes(c_type: str) -> int:
    words = set(c_type.split())
    if {"double", "long"} <= words:
        return 16
    if {"double", "long"} & words:
        return 8
    if {"char"} & words:
        return 1
    if {"short"} & words:
        return 2
    return 4
