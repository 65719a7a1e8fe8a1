"""Mark the parallel loops of a schedule that isl's scheduler did not compute.

A band member is coincident (its iterations may run in parallel) when no
dependence between instances with the same outer schedule values has a non-zero
distance along it. Used for the original loop order (`--no-reschedule`, or the
fallback when scheduling takes too long), and for isl's schedules of problems with
more dependences than the program's (reductions relaxed, constant bounds dropped).
"""
from __future__ import annotations

from collections.abc import Callable

import islpy as isl

from ..isl_context import maps_of

NT = isl.schedule_node_type
_BandMarker = Callable[[isl.ScheduleNode, isl.UnionMap], tuple[isl.ScheduleNode, isl.UnionMap]]


def mark_coincident(schedule: isl.Schedule, dependences: isl.UnionMap) -> isl.Schedule:
    return _visit(schedule.get_root(), dependences).get_schedule()


def strict_coincidence(schedule: isl.Schedule, dependences: isl.UnionMap) -> isl.Schedule:
    """`schedule` with each member's coincident flag kept only where `dependences` have
    zero distance along it: a schedule computed under fewer constraints (reductions
    relaxed, schedule/cpu/reductions.py) with its flags for the full ones."""
    return _visit(schedule.get_root(), dependences, strict=True).get_schedule()


def coincidence_of_program(schedule: isl.Schedule, dependences: isl.UnionMap) -> isl.Schedule:
    """`schedule` with each member coincident where `dependences` not carried outside
    its band have zero distance along it (isl's meaning of the flag, every member of a
    band tested against the same dependences). For a schedule isl computed under more
    dependences than the program has (constraints without their constant upper bounds,
    relaxed.py): isl's flags hold for those, and a loop that only the instances past
    the bounds kept serial becomes parallel again."""
    return _visit(schedule.get_root(), dependences, mark=_raise_band).get_schedule()


def _visit(node: isl.ScheduleNode, deps: isl.UnionMap, strict: bool = False,
           mark: _BandMarker | None = None) -> isl.ScheduleNode:
    """Mark the bands below `node`; `deps` holds the dependences not carried above it.

    Each level narrows them (a filter to its statements, a band to equal values of
    its carrying members), so deep bands see only what concerns them instead of
    intersecting every dependence of the SCoP with their prefix schedule."""
    if node.get_type() == NT.filter:
        # the statements of the filter; whole statements rather than the filter's
        # instances: cheaper, and extra dependences only make the marking conservative
        statements = node.filter_get_filter().universe()
        deps = deps.intersect_domain(statements).intersect_range(statements)
    elif node.get_type() == NT.band:
        node, deps = _mark_band(node, deps, strict) if mark is None else mark(node, deps)
    for k in range(node.n_children()):
        node = _visit(node.child(k), deps, strict, mark).parent()
    return node


def _mark_band(node: isl.ScheduleNode, local: isl.UnionMap,
               strict: bool = False) -> tuple[isl.ScheduleNode, isl.UnionMap]:
    """The band with its members marked; `strict`: a member keeps its flag only where it
    has one already (and zero distance), else none is tested."""
    partial = node.band_get_partial_schedule()
    for k in range(node.band_n_member()):
        member = isl.UnionMap.from_union_pw_aff(partial.get_at(k))
        zero = (not strict or node.band_member_get_coincident(k)) and zero_distance(local, member)
        node = node.band_member_set_coincident(k, int(zero))
        if not zero:
            local = local.intersect(member.apply_range(member.reverse()))  # carried from here on: others see equal values
    return node, local


def _raise_band(node: isl.ScheduleNode, local: isl.UnionMap) -> tuple[isl.ScheduleNode, isl.UnionMap]:
    """The band with a member coincident where `local` has zero distance along it (a
    flag already set stays); the dependences it does not carry, for its children."""
    partial = node.band_get_partial_schedule()
    for k in range(node.band_n_member()):
        if not node.band_member_get_coincident(k) and \
                zero_distance(local, isl.UnionMap.from_union_pw_aff(partial.get_at(k))):
            node = node.band_member_set_coincident(k, 1)
    whole = isl.UnionMap.from_multi_union_pw_aff(partial)
    return node, local.intersect(whole.apply_range(whole.reverse()))


def zero_distance(deps: isl.UnionMap, member: isl.UnionMap) -> bool:
    """Whether no dependence joins instances at different values of `member`.

    One statement pair at a time, stopping at the first that does: a loop that is
    not parallel is usually found so after a few pairs, not the whole SCoP."""
    zero = isl.Set.read_from_str(deps.get_ctx(), "{ [0] }")
    for dep in maps_of(deps):
        distances = isl.UnionMap.from_map(dep).apply_domain(member).apply_range(member).deltas()
        if not (distances.is_empty() or distances.is_subset(
                isl.UnionSet.from_set(zero.align_params(distances.get_space())))):
            return False
    return True



def respects(schedule: isl.Schedule, dependences: isl.UnionMap) -> bool:
    """Whether the schedule runs the source of every dependence before its sink.

    One statement pair at a time: comparing schedule values of two statements
    only, never the lexicographic order of the whole SCoP at once."""
    times = {m.get_tuple_name(isl.dim_type.in_): m for m in maps_of(schedule_map(schedule))}
    for dep in maps_of(dependences):
        source = times[dep.get_tuple_name(isl.dim_type.in_)]
        sink = times[dep.get_tuple_name(isl.dim_type.out)]
        n = max(source.dim(isl.dim_type.out), sink.dim(isl.dim_type.out))
        source, sink = padded(source, n), padded(sink, n)
        pairs = dep.apply_domain(source).apply_range(sink)
        if not pairs.is_subset(isl.Map.lex_lt(pairs.get_space().domain()).align_params(pairs.get_space())):
            return False
    return True


def padded(times: isl.Map, n: int) -> isl.Map:
    """Schedule values with zeros appended up to `n` dimensions, on an anonymous tuple."""
    extra = n - times.dim(isl.dim_type.out)
    times = times.reset_tuple_id(isl.dim_type.out)
    if extra:
        times = times.add_dims(isl.dim_type.out, extra)
        for k in range(n - extra, n):
            times = times.fix_val(isl.dim_type.out, k, isl.Val(0, times.get_ctx()))
    return times


def schedule_map(schedule: isl.Schedule) -> isl.UnionMap:
    """The schedule as a map of the instances it schedules. isl's get_map relies on the
    tree's filters, and a tree cut down by intersect_domain (a SCoP's schedule without
    its kills) keeps filters that no longer say which instances exist: its map then
    spans every integer point (fuzz 14:617)."""
    return schedule.get_map().intersect_domain(schedule.get_domain())
