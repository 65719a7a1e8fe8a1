"""Loops of a band sunk into the statement groups below it and joined to their own bands
(C target), so that a group's band gains the rows of a register block.

doitgen, its `sum` expanded over `q` (schedule/expansion.py), is scheduled by isl as a
band over `q, r` around a sequence: the products `sum_1[q][p] += A[r][q][s] *
C4[s][p]` (a band over `p, s`) and the copies `A[r][q][p] = sum_1[q][p]`. Each
`(r, q)` then runs a vector-matrix product: `C4` streams through the cache once per
row, and no block of `sum_1` can stay in registers, since the band over `p, s` has a
single parallel member. With `q` moved into each group of the sequence, ahead of the
group's own members, the products' band is `q, p, s`: gemm's shape, whose blocks of
`q x p` stay in registers while `s` runs (register_tiles.py). `r` stays above.

Moving members `M` of a band into its children, the others (`K`) kept above, is valid
where no dependence goes from a later child to an earlier one at equal values of the
loops around the band and of `K`: the new order runs a child for every value of `M`
before the next child starts. Within one child the order is unchanged (`M` then the
child's members, as before). The joined band must stay permutable (every dependence
within the child at equal values of the loops above has a non-negative distance along
each of its members), and its coincident flags are computed again at that level:
dependences that `M`'s values set apart before may now meet the child's members.
"""
from __future__ import annotations

from itertools import combinations

import islpy as isl

from ...isl_context import filter_instances, maps_of
from ..distribute import sunk
from ..parallel import zero_distance
from .point_order import permuted

NT = isl.schedule_node_type


def members_sunk(band: isl.ScheduleNode, dependences: isl.UnionMap) -> isl.ScheduleNode | None:
    """The permutable `band`, whose child is a sequence, with as many of its members as the
    dependences allow (the outer ones kept above first) moved into the sequence's children
    and joined to their bands; returns the node at the band's position (the band of the
    members kept above, or the sequence), or None where no member may move."""
    sequence = band.child(0)
    if sequence.get_type() != NT.sequence or not band.band_get_permutable():
        return None
    children = [filter_instances(sequence.child(k)) for k in range(sequence.n_children())]
    n = band.band_n_member()
    for size in range(n):       # the fewest members kept above first
        for kept in combinations(range(n), size):
            same = _equal_values(band, kept)
            if _nothing_backward(children, dependences, same) and all(
                    _stays_permutable(band, sequence.child(k), kept, dependences, same) for k in range(len(children))):
                return _moved(band, kept, dependences, same)
    return None


def _equal_values(band: isl.ScheduleNode, kept: tuple[int, ...]) -> isl.UnionMap:
    """Pairs of instances with equal values of the loops around `band` and of its `kept` members."""
    outer = band.get_prefix_schedule_union_map()
    partial = band.band_get_partial_schedule()
    for m in kept:
        outer = outer.flat_range_product(isl.UnionMap.from_union_pw_aff(partial.get_at(m)))
    return outer.apply_range(outer.reverse())


def _nothing_backward(children: list[isl.UnionSet], dependences: isl.UnionMap, same: isl.UnionMap) -> bool:
    """No dependence from a later child to an earlier one among the pairs `same`."""
    for later in range(1, len(children)):
        backward = dependences.intersect_domain(children[later]).intersect(same)
        for earlier in range(later):
            if not backward.intersect_range(children[earlier]).is_empty():
                return False
    return True


def _stays_permutable(band: isl.ScheduleNode, child: isl.ScheduleNode, kept: tuple[int, ...],
                      dependences: isl.UnionMap, same: isl.UnionMap) -> bool:
    """Whether the child's band joined with the moved members is permutable."""
    within = _within(child, dependences, same)
    return all(_non_negative(within, member) for member in _joined_members(band, child, kept))


def _within(child: isl.ScheduleNode, dependences: isl.UnionMap, same: isl.UnionMap) -> isl.UnionMap:
    instances = filter_instances(child)
    return dependences.intersect_domain(instances).intersect_range(instances).intersect(same)


def _joined_members(band: isl.ScheduleNode, child: isl.ScheduleNode, kept: tuple[int, ...]) -> list[isl.UnionMap]:
    """The members of the joined band, each as { S[i] -> [value] }: the moved members of
    `band`, then those of the child's own band (if it has one)."""
    partial = band.band_get_partial_schedule()
    members = [partial.get_at(m) for m in range(band.band_n_member()) if m not in kept]
    below = child.child(0)
    if below.get_type() == NT.band:
        own = below.band_get_partial_schedule()
        members += [own.get_at(m) for m in range(below.band_n_member())]
    return [isl.UnionMap.from_union_pw_aff(m) for m in members]


def _non_negative(dependences: isl.UnionMap, member: isl.UnionMap) -> bool:
    for dep in maps_of(dependences):
        distances = isl.UnionMap.from_map(dep).apply_domain(member).apply_range(member).deltas()
        if not distances.is_empty() and not distances.is_subset(
                isl.UnionSet.from_set(isl.Set.read_from_str(dep.get_ctx(), "{ [d] : d >= 0 }")).align_params(
                    distances.get_space())):
            return False
    return True


def _moved(band: isl.ScheduleNode, kept: tuple[int, ...], dependences: isl.UnionMap,
           same: isl.UnionMap) -> isl.ScheduleNode:
    """The band's members other than `kept` moved into each child of the sequence below
    and joined to the child's band; returns the node at the band's position."""
    n = band.band_n_member()
    order = kept + tuple(m for m in range(n) if m not in kept)
    node = permuted(band, order)
    if kept:
        node = node.band_split(len(kept)).child(0)
    sequence = sunk(node)
    for k in range(sequence.n_children()):
        sequence = _joined(sequence.child(k).child(0), _within(sequence.child(k), dependences, same)).parent().parent()
    return sequence.parent() if kept else sequence


def _joined(moved: isl.ScheduleNode, within: isl.UnionMap) -> isl.ScheduleNode:
    """The band of moved members and the child's band below it (if any) as one permutable
    band, each member coincident where `within` (the child's dependences at equal values
    of the loops above) has zero distance along it; returns the band."""
    partial = moved.band_get_partial_schedule()
    below = moved.child(0)
    if below.get_type() == NT.band:
        partial = partial.flat_range_product(below.band_get_partial_schedule())
        moved = below.delete().parent()
    node = moved.delete().insert_partial_schedule(partial).band_set_permutable(1)
    for m in range(node.band_n_member()):
        member = isl.UnionMap.from_union_pw_aff(partial.get_at(m))
        node = node.band_member_set_coincident(m, zero_distance(within, member))
    return node
