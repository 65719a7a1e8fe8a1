"""Loop-free statements and small parallel loops run inside a neighbouring kernel.

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

A parallel loop of its own (a band whose members are all parallel) joins the same
way, its members on the neighbour's parallel members (`_embedding`): where no
dependence joins them, on the innermost ones, the other members at the first
point (correlation's `stddev[j] = 0.0`, 1,200 threads of a launch of their own,
beside the nest that sets corr); where it reads, for each value of its members,
what the neighbour computes at the same values (`mean[j] /= float_n` after the
sum into mean[j]), on the first ones, after the neighbour's last sequential
value: the mapper then runs it after the sum's combination over the threads.
A child of a set may also join the last nest of a sequence beside it: the
children of a set are independent of each other. Each join is one launch less.

PPCG leaves such statements to the host when they are the last children of
the SCoP's outer set (`isolate_permutable_subtrees` in its gpu.c), after the
arrays are copied back; so does ppcg-py (schedule/gpu/host.py) with those that no
launch could take.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ...isl_context import filter_instances, node_at, sets_of, statement_names, tree_position, union_set_list
from .kernels import _leading_coincident, threads_below

NT = isl.schedule_node_type


def absorb_loop_free(schedule: isl.Schedule, dependences: isl.UnionMap,
                     host: frozenset[str] = frozenset()) -> isl.Schedule:
    """`schedule` with each loop-free statement that may join a neighbouring parallel
    band moved into it. `dependences`: every dependence the schedule must keep;
    `host`: statements that may run on the host (schedule/gpu/host.py), left alone."""
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
    if kind == NT.band and (_leading_coincident(node) > 0 or not threads_below(node)):
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
    """The sequence or set with one loop-free or parallel child moved into a sibling's
    band, at the same position; None when no child can be."""
    n = node.n_children()
    for k in range(n):
        loop_free = _loop_free(node.child(k), host)
        if not loop_free and not _parallel_child(node.child(k), host):
            continue
        siblings = [j for j in (k - 1, k + 1) if 0 <= j < n] if node.get_type() == NT.sequence \
            else [j for j in range(n) if j != k]
        for j in siblings:
            band = node.child(j).child(0)
            if band.get_type() != NT.band or _leading_coincident(band) == 0 \
                    or statement_names(filter_instances(node.child(j))) <= host:
                continue
            if loop_free and _independent(node.child(k), node.child(j), deps):
                return _merged(node, k, j, _Joining(filter_instances(node.child(k)), None, None))
            if not loop_free:
                joining = _embedding(node.child(k), node.child(j), deps, after=node.get_type() == NT.sequence
                                     and k == j + 1)
                if joining is not None:
                    return _merged(node, k, j, joining)
        if node.get_type() == NT.set:
            for j in range(n):
                if j != k and _joins_last(node.child(k), node.child(j), deps, loop_free):
                    return _appended(node, k, j)
    return None


def _joins_last(child: isl.ScheduleNode, sibling: isl.ScheduleNode, deps: isl.UnionMap, loop_free: bool) -> bool:
    """Whether `child`, a child of a set, could join the band of the last child of the
    sequence below its sibling (correlation's `corr[i][i] = 1.0` and the loops that
    compute the rest of corr): the children of a set are independent, so it may run
    anywhere among the sibling's."""
    sequence = sibling.child(0) if sibling.n_children() == 1 else None
    if sequence is None or sequence.get_type() != NT.sequence:
        return False
    last = sequence.child(sequence.n_children() - 1)
    band = last.child(0) if last.n_children() == 1 else None
    if band is None or band.get_type() != NT.band or _leading_coincident(band) == 0:
        return False
    if loop_free:
        return _independent(child, last, deps)
    return _embedding(child, last, deps, after=False) is not None


def _appended(node: isl.ScheduleNode, k: int, j: int) -> isl.ScheduleNode:
    """The set with child k moved to the end of the sequence below child j."""
    path = tree_position(node)
    children = [node.child(i) for i in range(node.n_children())]
    moved, target = children[k], children[j]
    filters = [c.filter_get_filter().union(moved.filter_get_filter()) if i == j else c.filter_get_filter()
               for i, c in enumerate(children) if i != k]
    new = node.cut().insert_set(union_set_list(filters))
    for i, source in enumerate(c for i, c in enumerate(children) if i != k):
        leaf = new.child(i).child(0)
        if source is target:
            sequence = source.child(0)
            inner = [sequence.child(m).filter_get_filter() for m in range(sequence.n_children())]
            leaf = leaf.insert_sequence(union_set_list(inner + [moved.filter_get_filter()]))
            for m in range(sequence.n_children()):
                leaf = _copy(leaf.child(m).child(0), sequence.child(m).child(0)).parent().parent()
            leaf = _copy(leaf.child(len(inner)).child(0), moved.child(0)).parent().parent()
        else:
            leaf = _copy(leaf, source.child(0))
        new = leaf.parent().parent()
    return node_at(new.get_schedule(), path)


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


def _parallel_child(child: isl.ScheduleNode, host: frozenset[str]) -> bool:
    """A filter over a band of at most three members, all parallel (a kernel of its own
    otherwise), of statements that may run on the device."""
    band = child.child(0) if child.n_children() == 1 else None
    if band is None or band.get_type() != NT.band or band.band_n_member() > 3:
        return False
    if statement_names(filter_instances(child)) & host:
        return False
    return _leading_coincident(band) == band.band_n_member()


def _independent(one: isl.ScheduleNode, other: isl.ScheduleNode, deps: isl.UnionMap) -> bool:
    """No dependence joins the instances of the two children within one iteration of
    the loops around them."""
    return _between(one, other, deps).is_empty()


def _between(one: isl.ScheduleNode, other: isl.ScheduleNode, deps: isl.UnionMap) -> isl.UnionMap:
    """The dependences between the instances of the two children (either way) within one
    iteration of the loops around them."""
    a, b = filter_instances(one), filter_instances(other)
    prefix = one.get_prefix_schedule_union_map().union(other.get_prefix_schedule_union_map())
    same = prefix.apply_range(prefix.reverse())
    between = deps.intersect_domain(a).intersect_range(b).union(deps.intersect_domain(b).intersect_range(a))
    return between.intersect(same)


@dataclass(frozen=True)
class _Joining:
    """How a child joins a sibling's band: its instances, their values of each of the
    band's members (None: at the band's first point), and the subtree below its own band."""

    instances: isl.UnionSet
    values: list[isl.UnionPwAff | None] | None
    below: isl.ScheduleNode | None


def _embedding(child: isl.ScheduleNode, target: isl.ScheduleNode, deps: isl.UnionMap,
               after: bool) -> _Joining | None:
    """How the parallel band of `child` joins the band of `target`, or None.

    With no dependence between them (correlation's `stddev[j] = 0.0` beside the loops that
    set corr), its members become the innermost of the target's parallel members, the
    others at the target's first point: the parallel members stay parallel. Where it
    reads what the target computes (`mean[j] /= float_n` after the sum into mean[j],
    the next child of a sequence), each instance only what the target's instances with
    the same values of its members write, and the target's band is those parallel
    members and one sequential member: its members become the target's first ones, and
    it runs after the target's instances, at the sequential member's largest value plus
    one (the mapper then runs it after the sum's combination: reduction_threads.py)."""
    own, band = child.child(0), target.child(0)
    n, lead = own.band_n_member(), _leading_coincident(band)
    instances = filter_instances(child)
    between = _between(child, target, deps)
    own_values = own.band_get_partial_schedule().intersect_domain(instances)
    partial = band.band_get_partial_schedule()
    if between.is_empty():
        if n > lead:
            return None
        values: list[isl.UnionPwAff | None] = [None] * band.band_n_member()
        for m in range(n):
            values[lead - n + m] = own_values.get_at(m)
        return _Joining(instances, values, own.child(0))
    if not after or n != lead or band.band_n_member() != n + 1:
        return None
    theirs = filter_instances(target)
    if not between.intersect_domain(instances).is_empty() \
            or not between.is_subset(_same_values(partial, n, theirs, own_values)):
        return None
    last = _after_last(partial.get_at(n), theirs, instances)
    if last is None:
        return None
    return _Joining(instances, [own_values.get_at(m) for m in range(n)] + [last], own.child(0))


def _same_values(partial: isl.MultiUnionPwAff, n: int, theirs: isl.UnionSet,
                 own_values: isl.MultiUnionPwAff) -> isl.UnionMap:
    """Pairs of a target instance and a joining one with the same values of the first n members."""
    mine = isl.UnionMap.from_multi_union_pw_aff(own_values)
    key = None
    for m in range(n):
        part = isl.UnionMap.from_union_pw_aff(partial.get_at(m)).intersect_domain(theirs)
        key = part if key is None else key.flat_range_product(part)
    return key.apply_range(mine.reverse())


def _after_last(member: isl.UnionPwAff, theirs: isl.UnionSet, instances: isl.UnionSet) -> isl.UnionPwAff | None:
    """On `instances`: one more than the member's largest value over `theirs` (a
    function of the parameters; 0 for the parameters where `theirs` is empty, so that
    every instance keeps a value), or None where isl finds no such bound."""
    values = isl.Set.from_union_set(isl.UnionMap.from_union_pw_aff(member).intersect_domain(theirs).range())
    largest = values.lexmax()
    if largest.is_empty() or not largest.is_bounded():
        return None
    ctx = member.get_ctx()
    shifted = largest.apply(isl.Map.read_from_str(ctx, "{ [v] -> [v + 1] }").align_params(largest.get_space()))
    elsewhere = isl.Set.universe(shifted.params().get_space()).subtract(shifted.params())
    zero = isl.Set.read_from_str(ctx, "{ [0] }").align_params(elsewhere.get_space())
    shifted = shifted.union(zero.intersect_params(elsewhere.align_params(zero.get_space())))
    result = None
    for s in sets_of(instances):
        pieces = isl.Map.from_domain_and_range(s, shifted.align_params(s.get_space()).coalesce())
        value = isl.UnionPwAff.from_pw_aff(isl.PwMultiAff.from_map(pieces).get_pw_aff(0))
        result = value if result is None else result.union_add(value)
    return result


def _merged(node: isl.ScheduleNode, k: int, j: int, joining: _Joining) -> isl.ScheduleNode:
    """The sequence or set with child k joined to child j's band."""
    path = tree_position(node)
    children = [node.child(i) for i in range(node.n_children())]
    moved, target = children[k], children[j]
    band = target.child(0)
    filters = [c.filter_get_filter() for i, c in enumerate(children) if i != k]
    joined = target.filter_get_filter().union(moved.filter_get_filter())
    position = j if j < k else j - 1
    filters[position] = joined
    kind = node.get_type()
    new = node.cut()
    new = new.insert_sequence(union_set_list(filters)) if kind == NT.sequence else new.insert_set(union_set_list(filters))
    rest = [c for i, c in enumerate(children) if i != k]
    for i, source in enumerate(rest):
        leaf = new.child(i).child(0)
        if i == position:
            leaf = _joined_band(leaf, band, joining, before=k < j)
        else:
            leaf = _copy(leaf, source.child(0))
        new = leaf.parent().parent()
    return node_at(new.get_schedule(), path)


def _joined_band(leaf: isl.ScheduleNode, band: isl.ScheduleNode, joining: _Joining,
                 before: bool) -> isl.ScheduleNode:
    """At `leaf`: `band` with the joining instances at their values (or at one constant
    point), then a sequence of the band's subtree and theirs (in that order unless
    `before`)."""
    partial = band.band_get_partial_schedule()
    ctx = band.get_ctx()
    extra = joining.instances
    for m, value in enumerate(_point(partial, band.get_domain())):
        given = joining.values[m] if joining.values is not None else None
        added = given if given is not None else isl.UnionPwAff.val_on_domain(extra, isl.Val(value, ctx))
        partial = partial.set_at(m, partial.get_at(m).union_add(added))
    node = leaf.insert_partial_schedule(partial)
    node = _band_properties(node, band)
    inner = [band.get_domain(), extra]
    node = node.child(0).insert_sequence(union_set_list(inner[::-1] if before else inner))
    own = 1 if before else 0
    node = _copy(node.child(own).child(0), band.child(0)).parent().parent()
    if joining.below is not None:
        node = _copy(node.child(1 - own).child(0), joining.below).parent().parent()
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

