"""Loop-free statements run inside a neighbouring parallel kernel.

A statement outside every loop next to a parallel loop nest (correlation's
`corr[m-1][m-1] = 1.0;` after the loop that sets the rest of the diagonal)
would otherwise be a kernel of its own, one thread in one block. When no
dependence joins it to the nest's instances (within one iteration of the host
loops around both), it can run in the nest's launch instead: it joins the
nest's band at a constant point (all members equal to the smallest value of
the band when that is a constant, else 0), so tiling and mapping give it to
one thread of one block, which runs it after (or before, as in the original
order) that thread's own instances there. With no dependence between them, no
other thread has to wait for it, nor it for them; the band's parallel and
permutable members stay so, and the statement keeps its place among the
other children of the sequence or set.

PPCG leaves such statements to the host when they are the last children of
the SCoP's outer set (`isolate_permutable_subtrees` in its gpu.c), after the
arrays are copied back; so does ppcg-py (schedule/host.py) with those that no
launch could take.
"""
from __future__ import annotations

import islpy as isl

from ..isl_context import filter_instances, node_at, statement_names, tree_position, union_set_list
from .kernels import _has_parallelism, _leading_coincident

NT = isl.schedule_node_type


def absorb_loop_free(schedule: isl.Schedule, dependences: isl.UnionMap,
                     host: frozenset[str] = frozenset()) -> isl.Schedule:
    """`schedule` with each loop-free statement that may join a neighbouring parallel
    band moved into it. `dependences`: every dependence the schedule must keep;
    `host`: statements that may run on the host (schedule/host.py), left alone."""
    root = schedule.get_root()
    if root.n_children() == 0:
        return schedule
    try:
        node = _visit(root.child(0), dependences, host)
    except _Unsupported:
        return schedule
    return node.get_schedule()


class _Unsupported(Exception):
    """A node the copy does not reproduce (only bands, sequences, sets, filters, leaves)."""


def _visit(node: isl.ScheduleNode, deps: isl.UnionMap, host: frozenset[str]) -> isl.ScheduleNode:
    """Absorb below `node` down to the kernels (bands with a leading parallel member)."""
    kind = node.get_type()
    if kind == NT.band and (_leading_coincident(node) > 0 or not _has_parallelism(node)):
        return node     # a kernel, or a subtree that is one single-thread kernel anyway
    if kind in (NT.sequence, NT.set):
        while True:
            merged = _absorb_one(node, deps, host)
            if merged is None:
                break
            node = merged
            if node.get_type() not in (NT.sequence, NT.set):
                return _visit(node, deps, host)
    for k in range(node.n_children()):
        node = _visit(node.child(k), deps, host).parent()
    return node


def _absorb_one(node: isl.ScheduleNode, deps: isl.UnionMap, host: frozenset[str]) -> isl.ScheduleNode | None:
    """The sequence or set with one loop-free child moved into a sibling's band, at
    the same position; None when no child can be."""
    n = node.n_children()
    for k in range(n):
        if not _loop_free(node.child(k), host):
            continue
        siblings = [j for j in (k - 1, k + 1) if 0 <= j < n] if node.get_type() == NT.sequence \
            else [j for j in range(n) if j != k]
        for j in siblings:
            band = node.child(j).child(0)
            if band.get_type() == NT.band and _leading_coincident(band) > 0 \
                    and not statement_names(filter_instances(node.child(j))) <= host \
                    and _independent(node.child(k), node.child(j), deps):
                return _merged(node, k, j)
    return None


def _loop_free(child: isl.ScheduleNode, host: frozenset[str]) -> bool:
    """A filter with nothing below it, whose instances each run alone in an iteration
    of the loops around (no loop of its own), and not only host statements (nor is
    the band it may join: host statements stay outside kernels)."""
    if child.n_children() == 0 or child.child(0).get_type() != NT.leaf:
        return False
    domain = filter_instances(child)
    if domain.is_empty():
        return False
    if statement_names(domain) <= host:
        return False
    return child.get_prefix_schedule_union_map().intersect_domain(domain).is_injective()


def _independent(one: isl.ScheduleNode, other: isl.ScheduleNode, deps: isl.UnionMap) -> bool:
    """No dependence joins the instances of the two children within one iteration of
    the loops around them."""
    a, b = filter_instances(one), filter_instances(other)
    prefix = one.get_prefix_schedule_union_map().union(other.get_prefix_schedule_union_map())
    same = prefix.apply_range(prefix.reverse())
    between = deps.intersect_domain(a).intersect_range(b).union(deps.intersect_domain(b).intersect_range(a))
    return between.intersect(same).is_empty()


def _merged(node: isl.ScheduleNode, k: int, j: int) -> isl.ScheduleNode:
    """The sequence or set with child k (loop-free) joined to child j's band."""
    path = tree_position(node)
    children = [node.child(i) for i in range(node.n_children())]
    loop_free, target = children[k], children[j]
    band = target.child(0)
    filters = [c.filter_get_filter() for i, c in enumerate(children) if i != k]
    joined = target.filter_get_filter().union(loop_free.filter_get_filter())
    position = j if j < k else j - 1
    filters[position] = joined
    kind = node.get_type()
    new = node.cut()
    new = new.insert_sequence(union_set_list(filters)) if kind == NT.sequence else new.insert_set(union_set_list(filters))
    rest = [c for i, c in enumerate(children) if i != k]
    for i, source in enumerate(rest):
        leaf = new.child(i).child(0)
        if i == position:
            leaf = _joined_band(leaf, band, filter_instances(loop_free), before=k < j)
        else:
            leaf = _copy(leaf, source.child(0))
        new = leaf.parent().parent()
    return node_at(new.get_schedule(), path)


def _joined_band(leaf: isl.ScheduleNode, band: isl.ScheduleNode, extra: isl.UnionSet,
                 before: bool) -> isl.ScheduleNode:
    """At `leaf`: `band` with the instances `extra` at one constant point, then a sequence
    of the band's subtree and `extra` (in that order unless `before`)."""
    partial = band.band_get_partial_schedule()
    ctx = band.get_ctx()
    for m, value in enumerate(_point(partial, band.get_domain())):
        constant = isl.UnionPwAff.val_on_domain(extra, isl.Val(value, ctx))
        partial = partial.set_at(m, partial.get_at(m).union_add(constant))
    node = leaf.insert_partial_schedule(partial)
    node = _band_properties(node, band)
    inner = [band.get_domain(), extra]
    node = node.child(0).insert_sequence(union_set_list(inner[::-1] if before else inner))
    own = 1 if before else 0
    node = _copy(node.child(own).child(0), band.child(0)).parent().parent()
    return node.parent()


def _point(partial: isl.MultiUnionPwAff, domain: isl.UnionSet) -> list[int]:
    """Per band member, its smallest value over the band's instances when that is a
    constant, else 0: the loop-free statement then adds no tile to the kernel."""
    values = []
    for m in range(partial.dim(isl.dim_type.out)):
        member = isl.UnionMap.from_union_pw_aff(partial.get_at(m)).intersect_domain(domain).range()
        value = isl.Set.from_union_set(member).lexmin().plain_get_val_if_fixed(isl.dim_type.set, 0) \
            if not member.is_empty() else None
        values.append(value.to_python() if value is not None and value.is_int() else 0)
    return values


def _band_properties(node: isl.ScheduleNode, source: isl.ScheduleNode) -> isl.ScheduleNode:
    node = node.band_set_permutable(source.band_get_permutable())
    for m in range(source.band_n_member()):
        node = node.band_member_set_coincident(m, source.band_member_get_coincident(m))
        node = node.band_member_set_ast_loop_type(m, source.band_member_get_ast_loop_type(m))
    return node


def _copy(leaf: isl.ScheduleNode, source: isl.ScheduleNode) -> isl.ScheduleNode:
    """`leaf` replaced by a copy of the subtree at `source`; returns the copy's root."""
    kind = source.get_type()
    if kind == NT.leaf:
        return leaf
    if kind == NT.band:
        node = _band_properties(leaf.insert_partial_schedule(source.band_get_partial_schedule()), source)
        return _copy(node.child(0), source.child(0)).parent()
    if kind in (NT.sequence, NT.set):
        filters = [source.child(i).filter_get_filter() for i in range(source.n_children())]
        children = union_set_list(filters)
        node = leaf.insert_sequence(children) if kind == NT.sequence else leaf.insert_set(children)
        for i in range(source.n_children()):
            node = _copy(node.child(i).child(0), source.child(i).child(0)).parent().parent()
        return node
    raise _Unsupported(str(kind))

