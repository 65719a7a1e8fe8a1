"""The innermost point loop of a tiled band distributed over the statements under it (C target).

After the point loops are reordered (`point_order`), syrk's and gemm's point band is
`i, k, j`: `C[i][j] *= beta` (S_0, at k = 0) and the update (S_1) sit in a sequence
under the innermost loop over j, so S_0[i, j] and S_1[i, 0, j] run interleaved in
j, and isl can only print S_0 inside the loops over k and j, under
`if (c2 == 0 && c4 == 0)`. With one loop over j per statement of the sequence, S_0's
loop runs once before the loop over k, as PPCG prints it in its own order (`i, j, k`).

The distribution is done only where it lets a statement leave a loop (a child of
the sequence takes one value of an outer point loop that another child runs over)
and where it keeps every dependence: none may go from a later child of the sequence
to an earlier one at equal values of the loops around the innermost one (at equal
values the original order interleaves the children by j; the new one runs the
earlier child first). Only sequences of plain statements (each filter over a leaf)
are distributed: sinking the loop below deeper subtrees would also reorder loops.
"""
from __future__ import annotations

import islpy as isl

from ..isl_context import filter_instances

NT = isl.schedule_node_type


def distributed(innermost: isl.ScheduleNode, dependences: isl.UnionMap) -> isl.ScheduleNode:
    """The one-member band `innermost` (under the rest of its point band) sunk into the
    children of the sequence below it, where that helps and is valid; returns the
    node at the band's position (the sequence when distributed)."""
    children = statement_children(innermost) if innermost.get_type() == NT.band else []
    if not children or not _lets_a_statement_out(innermost.parent(), children):
        return innermost
    if not keeps_dependences(innermost, children, dependences):
        return innermost
    return sunk(innermost)


def statements_apart(points: isl.ScheduleNode, first: int, dependences: isl.UnionMap | None,
                     loop_type: isl.ast_loop_type) -> isl.ScheduleNode:
    """A kernel's point band with its members from `first` on (the loops each thread
    runs in turn, after the thread-mapped ones) sunk into the children of the
    sequence below, where along them one statement takes a single value and another
    runs over several, and the dependences allow: gemm's `C[i][j] *= beta` (at k = 0)
    is then printed before the loop over k, not inside it under `if (c2 == 0 && c5 ==
    0)`, and that loop needs no guard of its own (`nk >= 32 * c2 + c5 + 1`). The sunk
    members get `loop_type`. Returns the point band (its first `first` members)."""
    if dependences is None or not 0 < first < points.band_n_member():
        return points
    children = statement_children(points)
    inner = points.band_split(first).child(0)
    if not children or not _lets_a_statement_out(inner, children) or \
            not keeps_dependences(inner, children, dependences):
        return points
    return sunk(inner, loop_type).parent()


def statement_children(node: isl.ScheduleNode) -> list[isl.UnionSet]:
    """The instances of each child of the sequence at or under `node` (a band), when
    every child is a filter over a leaf; otherwise none."""
    sequence = node if node.get_type() == NT.sequence else node.child(0) if node.n_children() == 1 else None
    if sequence is None or sequence.get_type() != NT.sequence:
        return []
    children = []
    for k in range(sequence.n_children()):
        child = sequence.child(k)
        if child.n_children() != 1 or child.child(0).get_type() != NT.leaf:
            return []
        children.append(filter_instances(child))
    return children


def _lets_a_statement_out(points: isl.ScheduleNode, children: list[isl.UnionSet]) -> bool:
    """Whether, along some member of the point band above, one child takes a single value
    and another runs over several (S_0 at k = 0, S_1 over k)."""
    if points.get_type() != NT.band:
        return False
    partial = points.band_get_partial_schedule()
    for m in range(points.band_n_member()):
        member = partial.get_at(m)
        single = [is_single_value(member, instances) for instances in children]
        if any(single) and not all(single):
            return True
    return False


def is_single_value(member: isl.UnionPwAff, instances: isl.UnionSet) -> bool:
    values = isl.UnionMap.from_union_pw_aff(member.intersect_domain(instances)).range()
    return isl.Set.from_union_set(values).is_singleton()


def keeps_dependences(band: isl.ScheduleNode, children: list[isl.UnionSet], dependences: isl.UnionMap) -> bool:
    """No dependence from a later child to an earlier one at equal values of the loops
    around `band` (its prefix schedule; `band` may be any node)."""
    prefix = band.get_prefix_schedule_union_map()
    same_prefix = prefix.apply_range(prefix.reverse())
    for later in range(1, len(children)):
        backward = dependences.intersect_domain(children[later])
        for earlier in range(later):
            if not backward.intersect_range(children[earlier]).intersect(same_prefix).is_empty():
                return False
    return True


def sunk(band: isl.ScheduleNode, loop_type: isl.ast_loop_type | None = None) -> isl.ScheduleNode:
    """The band moved under each filter of the sequence below it (isl's band_sink is
    not in its public API), its members' coincidence kept and, if given, their loop
    type set; returns the sequence."""
    partial = band.band_get_partial_schedule()
    coincident = [band.band_member_get_coincident(m) for m in range(band.band_n_member())]
    node = band.delete()
    for k in range(node.n_children()):
        leaf = node.child(k).child(0)
        own = leaf.insert_partial_schedule(partial.intersect_domain(filter_instances(node.child(k))))
        for m, flag in enumerate(coincident):
            own = own.band_member_set_coincident(m, flag)
            if loop_type is not None:
                own = own.band_member_set_ast_loop_type(m, loop_type)
        node = own.parent().parent()
    return node
