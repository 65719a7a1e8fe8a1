"""Small isl helpers that exist because of how isl and islpy behave.

Each names the behaviour it works around; docs/isl-notes.md tells the longer
story of those that once produced wrong code. The context and its options, the
callback guard and the list helpers are in `isl_context`.
"""
from __future__ import annotations

from typing import TypeVar

import islpy as isl

from .isl_context import union_set_list


SetOrMap = TypeVar("SetOrMap", isl.Set, isl.Map)


def iterator_ids(ctx: isl.Context, names: list[str]) -> isl.IdList:
    """The ids of `names` for `AstBuild.set_iterators`: islpy builds an isl list only element by element."""
    ids = isl.IdList.alloc(ctx, len(names))
    for name in names:
        ids = ids.add(isl.Id(name, context=ctx))
    return ids


def dims_as_params(obj: SetOrMap, kind: isl.dim_type, count: int, prefix: str) -> SetOrMap:
    """The first `count` dimensions of `kind` moved to parameters named prefix0, prefix1, ...

    Named by string, not by `isl.Id`: islpy's ids carry a Python user object, so an id made
    here would be another identifier than the same name read or named elsewhere
    (`memory.tree._spread_over_threads`)."""
    n = obj.dim(isl.dim_type.param)
    moved = obj.move_dims(isl.dim_type.param, n, kind, 0, count)
    for k in range(count):
        moved = moved.set_dim_name(isl.dim_type.param, n + k, f"{prefix}{k}")
    return moved


def constant_like(pa: isl.PwAff, value: int) -> isl.PwAff:
    """`value` on exactly the domain of `pa`: isl adds or compares piecewise functions only
    where both are defined, so a constant on another domain would cut `pa`'s."""
    return isl.PwAff.val_on_domain(pa.domain(), isl.Val(value, pa.get_ctx()))


def params_as_dims(obj: SetOrMap, names: list[str], kind: isl.dim_type = isl.dim_type.set) -> SetOrMap:
    """The inverse of `dims_as_params`: parameters `names` become the first dimensions of
    `kind`, in that order (a parameter the object does not mention becomes a free dimension).

    The names are first added as parameters read by isl, for the reason given in
    `dims_as_params`."""
    if not names:
        return obj
    named = isl.Set.read_from_str(obj.get_ctx(), f"[{', '.join(names)}] -> {{ : }}").get_space()
    obj = obj.align_params(named)
    for k, name in enumerate(names):
        position = obj.find_dim_by_name(isl.dim_type.param, name)
        obj = obj.move_dims(kind, k, isl.dim_type.param, position, 1)
    return obj



def anchored_leaves(schedule: isl.Schedule) -> isl.Schedule:
    """The same tree with a context node that constrains nothing above each leaf.

    isl's AST generator has an optimisation for a schedule dimension along which
    the statements' values are strided with different offsets (`A -> 2i`,
    `B -> 2i + 1`): it shifts each statement's values by its offset. It computes
    the offsets against one statement, for the outer values where that statement
    runs, and applies them everywhere: where that statement does not run, the
    shift can swap two others (fuzz 13:343 and 14:617: `S_4[i] -> 1 - 2i` and
    `S_5[i] -> 0` under an outer `1 + i`, compared against an `S_2` that runs at
    one outer value only, put S_5[1] before S_4[1]). The generator skips the
    optimisation where the subtree below the band is anchored (refers to the outer
    schedule), and a context node anchors it. The code is the same, without strides
    exposed that way; the copies inside kernels (extension nodes) anchored their
    subtrees already.
    """
    def anchor(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() != isl.schedule_node_type.leaf:
            return node
        depth = node.get_schedule_depth()
        return node.insert_context(isl.Set.universe(isl.Space.set_alloc(node.get_ctx(), 0, depth)))
    return schedule.map_schedule_node_bottom_up(anchor)


def ordered_sets(schedule: isl.Schedule, dependences: isl.UnionMap) -> isl.Schedule:
    """The same tree with each set node whose children `dependences` relate made a
    sequence of its children, in their order.

    isl's scheduler puts statements it finds independent under a set node, whose
    children the AST generator may print in any order. Under live-range reordering
    that independence can rest on conditional constraints the scheduler let go (fuzz
    2812:638: `returned = 0` apart from the loop that may set it), and the checks of
    this compiler (schedule_map, respects, changed_values) read a set's children in
    their order, as isl's get_map gives them, while the generator printed the second
    first. A sequence makes the printed order the checked one. Children that no
    dependence relates within one iteration of the loops around stay a set (any order
    is right, and the GPU mapper may run them in one kernel).
    """
    def ordered(node: isl.ScheduleNode) -> isl.ScheduleNode:
        try:
            if node.get_type() != isl.schedule_node_type.set:
                return node
            filters = [node.child(k).filter_get_filter() for k in range(node.n_children())]
            # the dependences the loops around do not carry: between instances of one
            # iteration of them (a loop-carried one leaves a set's order free)
            prefix = node.get_prefix_schedule_union_map()
            within = dependences.intersect(prefix.apply_range(prefix.reverse()))
            if not _related(filters, within):
                return node
            return node.insert_sequence(union_set_list(filters))
        except Exception:   # nothing may raise through isl: keep what isl gave
            return node
    return schedule.map_schedule_node_bottom_up(ordered)


def _related(filters: list[isl.UnionSet], dependences: isl.UnionMap) -> bool:
    """Whether a dependence joins instances of two different filters."""
    for a, source in enumerate(filters):
        from_here = dependences.intersect_domain(source)
        for b, sink in enumerate(filters):
            if a != b and not from_here.intersect_range(sink).is_empty():
                return True
    return False
