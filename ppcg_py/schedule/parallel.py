"""Mark the parallel loops of a schedule that isl's scheduler did not compute.

A band member is coincident (its iterations may run in parallel) when no
dependence between instances with the same outer schedule values has a non-zero
distance along it. Used for the original loop order (`--no-reschedule`, or the
fallback when scheduling takes too long).
"""
from __future__ import annotations

import islpy as isl

NT = isl.schedule_node_type


def mark_coincident(schedule: isl.Schedule, dependences: isl.UnionMap) -> isl.Schedule:
    return _visit(schedule.get_root(), dependences).get_schedule()


def _visit(node: isl.ScheduleNode, deps: isl.UnionMap) -> isl.ScheduleNode:
    if node.get_type() == NT.band:
        node = _mark_band(node, deps)
    for k in range(node.n_children()):
        node = _visit(node.child(k), deps).parent()
    return node


def _mark_band(node: isl.ScheduleNode, deps: isl.UnionMap) -> isl.ScheduleNode:
    domain = node.get_domain()
    prefix = node.get_prefix_schedule_union_map().intersect_domain(domain)
    local = deps.intersect_domain(domain).intersect_range(domain)
    # dependences not carried by the loops around this band
    local = local.intersect(prefix.apply_range(prefix.reverse()))
    partial = node.band_get_partial_schedule()
    for k in range(node.band_n_member()):
        member = isl.UnionMap.from_union_pw_aff(partial.get_at(k))
        distances = local.apply_domain(member).apply_range(member).deltas()
        zero = distances.is_empty() or distances.is_subset(
            isl.UnionSet.read_from_str(node.get_ctx(), "{ [0] }").align_params(distances.get_space()))
        node = node.band_member_set_coincident(k, int(zero))
        if not zero:
            local = local.intersect(member.apply_range(member.reverse()))  # carried from here on: others see equal values
    return node
