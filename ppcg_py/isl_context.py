"""One isl context per compilation, with the options PPCG sets for GPU targets.

Callbacks into isl must never raise (an exception raised inside a callback that
receives an object isl keeps corrupts the heap: a double free or a segfault, with
islpy 2026.2): `guarded` wraps them, remembers the first exception and
`reraise` raises it after the isl call returns.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import islpy as isl


def new_context(*, serialize_sccs: bool = False, max_coefficient: int = -1,
                feautrier: bool = False, whole_component: bool = False,
                outer_coincidence: bool = True) -> isl.Context:
    ctx = isl.Context()
    ctx.set_ast_build_detect_min_max(1)
    # ast_build_group_coscheduled stays off, as in PPCG: codegen.ast.ast_from_tree turns
    # it on for the host code around kernel launches only
    ctx.set_schedule_whole_component(int(whole_component))
    ctx.set_schedule_maximize_band_depth(1)
    ctx.set_schedule_maximize_coincidence(1)
    ctx.set_schedule_outer_coincidence(int(outer_coincidence))
    ctx.set_schedule_serialize_sccs(int(serialize_sccs))
    ctx.set_schedule_max_coefficient(max_coefficient)
    ctx.set_tile_scale_tile_loops(0)
    ctx.set_tile_shift_point_loops(1)
    if feautrier:
        ctx.set_schedule_algorithm(isl.schedule_algorithm.FEAUTRIER)
    return ctx


@contextmanager
def without_outer_coincidence(ctx: isl.Context, whole_component: bool = False) -> Iterator[None]:
    """isl's scheduler free to start with a loop that carries dependences, for the
    calls inside, and with `whole_component` scheduling each connected component of
    the dependence graph at once rather than its strongly connected parts one by one
    (the options are the context's: set, then put back)."""
    before = ctx.get_schedule_outer_coincidence(), ctx.get_schedule_whole_component()
    ctx.set_schedule_outer_coincidence(0)
    if whole_component:
        ctx.set_schedule_whole_component(1)
    try:
        yield
    finally:
        ctx.set_schedule_outer_coincidence(before[0])
        ctx.set_schedule_whole_component(before[1])


@contextmanager
def locals_preserved(ctx: isl.Context) -> Iterator[None]:
    """isl's coalescing kept from removing the existentials of the sets it joins, for
    the calls inside (the context's option: set, then put back). Removing them takes a
    path that crashed the process (SIGSEGV in `isl_set_wrap_facet`) on the elements of
    split tiles across a launch's steps where the sizes are constants (docs/isl-notes.md).
    Not for the whole compilation: the AST generator's guards then keep more pieces
    (fdtd-2d --hybrid: 2,479 lines of kernels instead of 2,193, 1.2x the time)."""
    before = ctx.get_coalesce_preserve_locals()
    ctx.set_coalesce_preserve_locals(1)
    try:
        yield
    finally:
        ctx.set_coalesce_preserve_locals(before)


class CallbackGuard:
    """Wraps Python callbacks handed to isl so that they never raise into isl."""

    def __init__(self) -> None:
        self.error: BaseException | None = None

    def wrap(self, fn: Callable[..., Any], fallback: Callable[..., Any]) -> Callable[..., Any]:
        def guarded(*args: Any) -> Any:
            if self.error is not None:
                return fallback(*args)
            try:
                return fn(*args)
            except BaseException as exc:  # noqa: BLE001 - must not propagate into isl
                self.error = exc
                return fallback(*args)
        return guarded

    def reraise(self) -> None:
        if self.error is not None:
            err, self.error = self.error, None
            raise err


def sets_of(uset: isl.UnionSet) -> list[isl.Set]:
    """The sets of a union set (islpy's lists are not iterable)."""
    result: list[isl.Set] = []
    uset.foreach_set(result.append)
    return result


def maps_of(umap: isl.UnionMap) -> list[isl.Map]:
    """The maps of a union map (islpy's lists are not iterable)."""
    result: list[isl.Map] = []
    umap.foreach_map(result.append)
    return result


def without_params(obj, names):
    """`obj` (a set or map, union or not) for any values of the parameters `names`:
    those it has projected out."""
    for name in names:
        k = obj.get_space().find_dim_by_name(isl.dim_type.param, name)
        if k >= 0:
            obj = obj.project_out(isl.dim_type.param, k, 1)
    return obj


def instances_of(instances: isl.UnionSet, statement: str) -> isl.UnionSet:
    """The instances of `statement` among `instances` (empty where it has none)."""
    found = [s for s in sets_of(instances) if s.get_tuple_name() == statement]
    return isl.UnionSet.from_set(found[0]) if found else isl.UnionSet.empty(instances.get_space())


def statement_names(instances: isl.UnionSet) -> frozenset[str]:
    """The names of the statements with instances in `instances`."""
    return frozenset(s.get_tuple_name() for s in sets_of(instances))


def statements_below(node: isl.ScheduleNode) -> frozenset[str]:
    """The statements whose instances run below `node` (through a filter node: those
    it lets through)."""
    domain = node.get_domain()
    if node.get_type() == isl.schedule_node_type.filter:
        domain = domain.intersect(node.filter_get_filter())
    return statement_names(domain)


def filter_instances(child: isl.ScheduleNode) -> isl.UnionSet:
    """The instances a filter node lets through (its own domain is what reaches it)."""
    return child.get_domain().intersect(child.filter_get_filter())


def union_of(sets: list[isl.UnionSet]) -> isl.UnionSet:
    """The union of a non-empty list of union sets."""
    result = sets[0]
    for other in sets[1:]:
        result = result.union(other)
    return result


def tree_position(node: isl.ScheduleNode) -> list[int]:
    """The child indices from the root of `node`'s tree down to `node`."""
    path = []
    while node.has_parent():
        path.append(node.get_child_position())
        node = node.parent()
    return path[::-1]


def node_at(schedule: isl.Schedule, path: list[int]) -> isl.ScheduleNode:
    """The node of `schedule` at `path` (from `tree_position`): a position survives
    changes below or beside it that leave the nodes above it as they were."""
    node = schedule.get_root()
    for k in path:
        node = node.child(k)
    return node


def band_tiled(band: isl.ScheduleNode, sizes: tuple[int, ...]) -> isl.ScheduleNode:
    """The band tiled by `sizes` (one per member): the tile band, with the point band below."""
    values = isl.MultiVal.zero(band.band_get_space())
    for k, size in enumerate(sizes):
        values = values.set_val(k, isl.Val(size, band.get_ctx()))
    return band.band_tile(values)


def band_values(band: isl.ScheduleNode, instances: isl.UnionSet | None = None) -> isl.UnionMap:
    """Instance -> the values of the band's members (its partial schedule as a map),
    for `instances` where given."""
    values = isl.UnionMap.from_multi_union_pw_aff(band.band_get_partial_schedule())
    return values if instances is None else values.intersect_domain(instances)


def union_set_list(sets: list[isl.UnionSet]) -> isl.UnionSetList:
    """An isl list of union sets (islpy builds isl lists element by element)."""
    result = isl.UnionSetList.alloc(sets[0].get_ctx(), len(sets))
    for s in sets:
        result = result.add(s)
    return result


def schedule_values(schedule: isl.UnionMap, dims: int) -> isl.Set:
    """The values a schedule (into one unnamed space of `dims` dimensions) gives its
    instances, as one set: empty when it has none (isl cannot make a set of an empty
    union, which has no space)."""
    values = isl.Set.empty(isl.Space.set_alloc(schedule.get_ctx(), 0, dims).align_params(schedule.get_space()))
    for part in sets_of(schedule.range()):
        values = values.union(part.align_params(values.get_space()))
    return values.coalesce()


def constant_on(space: isl.Space, value: int) -> isl.PwAff:
    """The constant `value` on the universe of a (parameter or set) space."""
    return isl.PwAff.val_on_domain(isl.Set.universe(space), isl.Val(value, space.get_ctx()))
