"""Reference groups of a kernel and where each lives: registers, shared or global memory.

The seed paper's Algorithm 1: references to one array whose elements overlap are
grouped (one local copy must serve them all). A group goes to registers when each
thread's elements are a function of its tile and thread coordinates (they do not
move with the loops a thread runs through) and there is reuse; otherwise to shared
memory when its tile (a constant-size box per tile iteration) fits in what is left
of `--max-shared-memory` and there is reuse or the global access is not coalesced;
otherwise it stays in global memory.

Sets handed to code generation name the outer schedule dimensions as parameters
c0, c1, ... (the generated loop iterators), so that they read as C at any level.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..extract.model import Array, Scop
from ..isl_context import constant_on, maps_of, sets_of
from ..isl_workarounds import dims_as_params
from ..names import Names
from ..options import Options
from ..schedule import Kernel
from .box import BoxDim, box_size, fixed_box
from .transfers import extent_set

ELEMENT_BYTES = {"double": 8, "float": 4, "int": 4, "long": 8, "char": 1, "short": 2,
                 "unsigned int": 4, "long long": 8, "unsigned char": 1, "long int": 8}
MAX_PRIVATE_ELEMENTS = 64


@dataclass(frozen=True)
class ArrayGroup:
    """References of one kernel that share one copy of their elements."""

    array: str
    refs: frozenset[str]          # the tags of its references (ref_0, ...)
    placement: str                # "global", "shared", "private" or "argument" (a host scalar's value)
    name: str = ""                # buffer name in the kernel (shared_A, private_C)
    level: int = 0                # outer-schedule depth at which the copies run
    box: tuple[BoxDim, ...] = ()
    copy_in: isl.Set | None = None    # elements to load (params: c0.., ids)
    copy_out: isl.Set | None = None   # elements to store back
    element_type: str = "double"
    reason: str = ""              # why this placement (for --report)

    @property
    def rank(self) -> int:
        return len(self.box)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(d.extent for d in self.box)

    @property
    def bytes(self) -> int:
        return box_size(self.box) * ELEMENT_BYTES.get(self.element_type, 8)


@dataclass(frozen=True)
class KernelMemory:
    kernel: str
    groups: tuple[ArrayGroup, ...]

    @property
    def shared_bytes(self) -> int:
        return sum(g.bytes for g in self.groups if g.placement == "shared")


@dataclass(frozen=True)
class _Reference:
    array: str
    relation: isl.UnionMap       # instances -> elements
    reads: bool
    writes: bool
    tag: str


def plan_kernel(scop: Scop, kernel: Kernel, options: Options, names: Names,
                host_scalars: frozenset[str] = frozenset()) -> KernelMemory:
    """Where each reference group of the kernel lives. Host scalars (written by host
    statements only, schedule/host.py) are read from the kernel's arguments."""
    references = _references(scop, kernel)
    by_value = tuple(ArrayGroup(r.array, frozenset({r.tag}), "argument", name=r.array,
                                element_type=scop.array(r.array).element_type, reason="written on the host")
                     for r in references if r.array in host_scalars)
    groups = _group([r for r in references if r.array not in host_scalars])
    if not kernel.thread_ids:
        return KernelMemory(kernel.name, by_value + tuple(_global(g, "single-thread kernel") for g in groups))
    budget = options.max_shared_memory if options.use_shared_memory else 0
    placed = []
    for group in groups:
        decision = _place(scop, kernel, group, options, budget, names.iterator)
        if decision.placement == "shared":
            budget -= decision.bytes
        placed.append(decision)
    return KernelMemory(kernel.name, by_value + tuple(_named(placed, names, scop.used_names)))


def _references(scop: Scop, kernel: Kernel) -> list[_Reference]:
    statements = {s.get_tuple_name() for s in sets_of(kernel.domain)}
    refs = []
    for stmt in scop.statements:
        if stmt.name not in statements:
            continue
        for acc in stmt.accesses:
            rel = isl.UnionMap.from_map(acc.index).intersect_domain(kernel.domain)
            refs.append(_Reference(acc.array, rel, acc.is_read, acc.is_write, acc.tag))
    return refs


def _group(refs: list[_Reference]) -> list[list[_Reference]]:
    """Union of references to one array whose elements overlap."""
    groups: list[list[_Reference]] = []
    for ref in refs:
        touching = [g for g in groups if g[0].array == ref.array and any(
            not _elements(r).intersect(_elements(ref)).is_empty() for r in g)]
        merged = [ref] + [r for g in touching for r in g]
        groups = [g for g in groups if all(g is not t for t in touching)] + [merged]
    return groups


def _elements(ref: _Reference) -> isl.UnionSet:
    return ref.relation.range()


def _relation(group: list[_Reference], *, writes_only: bool = False) -> isl.UnionMap:
    result = None
    for ref in group:
        if writes_only and not ref.writes:
            continue
        result = ref.relation if result is None else result.union(ref.relation)
    return result if result is not None else isl.UnionMap.empty(group[0].relation.get_space())


def _global(group: list[_Reference], reason: str) -> ArrayGroup:
    return ArrayGroup(group[0].array, frozenset(r.tag for r in group), "global", reason=reason)


def _place(scop: Scop, kernel: Kernel, group: list[_Reference], options: Options, budget: int,
           prefix: str) -> ArrayGroup:
    array = scop.array(group[0].array)
    if array.name in kernel.private:
        return ArrayGroup(array.name, frozenset(r.tag for r in group), "private",
                          element_type=array.element_type, reason="a copy per thread: its values stay in one")
    if array.is_scalar:
        return _global(group, "scalar")
    relation = _relation(group)
    reuse = _reuse(kernel, relation)
    reads = any(r.reads for r in group)
    writes = any(r.writes for r in group)
    refs = frozenset(r.tag for r in group)
    if options.use_private_memory and reuse and _thread_invariant(kernel, relation):
        level, box = _level(kernel, relation, prefix, per_thread=True)
        if box is not None and box_size(box) <= MAX_PRIVATE_ELEMENTS:
            return ArrayGroup(array.name, refs, "private", level=level, box=box,
                              copy_in=_box_elements(box, array, scop) if reads else None,
                              copy_out=_per_level(kernel, _relation(group, writes_only=True), level, prefix, True)
                              if writes else None,
                              element_type=array.element_type, reason="reuse, one element set per thread")
    coalesced = _coalesced(kernel, group)
    if not (reuse or not coalesced):
        return _global(group, "no reuse and coalesced")
    level, box = _level(kernel, relation, prefix, per_thread=False)
    if box is None:
        return _global(group, "no tile of constant size")
    candidate = ArrayGroup(array.name, refs, "shared", level=level, box=box,
                           copy_in=_box_elements(box, array, scop) if reads else None,
                           copy_out=_per_level(kernel, _relation(group, writes_only=True), level, prefix, False)
                           if writes else None,
                           element_type=array.element_type,
                           reason="reuse" if reuse else "global access not coalesced")
    if candidate.bytes > budget:
        return _global(group, f"tile of {candidate.bytes} bytes does not fit in shared memory")
    return candidate


def _reuse(kernel: Kernel, relation: isl.UnionMap) -> bool:
    """Whether two instances of one launch touch the same element. Instances of other
    launches (other host loop values: heat-3d's time loop) are no reuse: a buffer does
    not outlive its launch."""
    if kernel.host_depth == 0:
        return not relation.is_injective()
    return not kernel.host_schedule.range_product(relation).is_injective()


def _outer(kernel: Kernel, depth: int) -> isl.UnionMap:
    """Instances -> the first `depth` outer schedule dimensions."""
    outer = kernel.outer_schedule
    total = kernel.depth
    result = None
    for m in maps_of(outer):
        part = isl.UnionMap.from_map(m.project_out(isl.dim_type.out, depth, total - depth))
        result = part if result is None else result.union(part)
    return result


def _per_level(kernel: Kernel, relation: isl.UnionMap, depth: int, prefix: str, per_thread: bool) -> isl.Set:
    """Elements touched in one iteration of the outer loops [0, depth), as a set in
    the loop iterators `prefix`0, `prefix`1, ... (parameters)."""
    domain = kernel.domain.intersect(kernel.thread_filter) if per_thread else kernel.domain
    touched = _outer(kernel, depth).intersect_domain(domain).reverse().apply_range(relation)
    result = None
    for m in maps_of(touched):
        part = _domain_as_params(m, depth, prefix)
        result = part if result is None else result.union(part)
    return result.coalesce()


def _domain_as_params(m: isl.Map, depth: int, prefix: str) -> isl.Set:
    """{ [x0..] -> e } as the set of e with parameters c0 = x0, c1 = x1, ..."""
    return dims_as_params(m, isl.dim_type.in_, depth, prefix).range()


def _level(kernel: Kernel, relation: isl.UnionMap, prefix: str, *, per_thread: bool):
    """The outermost depth whose per-iteration box is as small as at the tile depth."""
    full = fixed_box(_per_level(kernel, relation, kernel.depth, prefix, per_thread), strides=per_thread)
    if full is None:
        return kernel.depth, None
    level, box = kernel.depth, full
    for depth in range(kernel.depth - 1, kernel.host_depth - 1, -1):
        outer = fixed_box(_per_level(kernel, relation, depth, prefix, per_thread), strides=per_thread)
        if outer is None or box_size(outer) != box_size(full):
            break
        level, box = depth, outer
    return level, box


def _thread_invariant(kernel: Kernel, relation: isl.UnionMap) -> bool:
    """Whether each element is fixed by the tile and the thread-mapped point values."""
    n = len(kernel.thread_ids)
    mapped = None
    for m in maps_of(kernel.point_schedule):
        part = isl.UnionMap.from_map(m.project_out(isl.dim_type.out, n, m.dim(isl.dim_type.out) - n))
        mapped = part if mapped is None else mapped.union(part)
    key = kernel.outer_schedule.flat_range_product(mapped)
    return key.reverse().apply_range(relation).is_single_valued()


def _coalesced(kernel: Kernel, group: list[_Reference]) -> bool:
    """Consecutive x threads touch the same or consecutive elements (innermost index)."""
    flat = kernel.outer_schedule.flat_range_product(kernel.inner_schedule)
    space = maps_of(flat)[0].get_space()
    n = space.dim(isl.dim_type.out)
    x = kernel.depth + len(kernel.thread_ids) - 1
    names = [f"y{k}" for k in range(n)]
    shifted = [f"y{k} + 1" if k == x else f"y{k}" for k in range(n)]
    shift = isl.UnionMap.read_from_str(kernel.domain.get_ctx(),
                                       f"{{ [{', '.join(names)}] -> [{', '.join(shifted)}] }}")
    neighbours = flat.apply_range(shift).apply_range(flat.reverse())
    for ref in group:
        pairs = neighbours.apply_domain(ref.relation).apply_range(ref.relation)
        for delta in sets_of(pairs.deltas()):
            rank = delta.dim(isl.dim_type.set)
            allowed = isl.Set.read_from_str(kernel.domain.get_ctx(),
                                            "{ [" + ", ".join(["0"] * rank) + "]; [" +
                                            ", ".join(["0"] * (rank - 1) + ["1"]) + "] }")
            if not delta.is_subset(allowed.align_params(delta.get_space()).set_tuple_name(delta.get_tuple_name())
                                   if delta.get_tuple_name() else allowed.align_params(delta.get_space())):
                return False
    return True


def _box_elements(box: tuple[BoxDim, ...], array: Array, scop: Scop) -> isl.Set:
    """The box, cut to the array's declared extent: what a copy loads.

    Loading the whole box rather than exactly the elements the tile (or thread)
    reads is safe (the extra elements are in the array and never used) and keeps
    the copy loops simple; the exact set can carry existentials that make isl's
    AST generator take minutes (private copies with a block size that does not
    divide the tile size)."""
    result = None
    for dim in box:
        low = dim.lower.add_dims(isl.dim_type.in_, 1)
        space = low.get_domain_space()
        var = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(space), isl.dim_type.set, 0)
        high = low.add(constant_on(space, dim.extent))
        column = None
        if dim.stride > 1:      # a thread's share: offset + stride * q for q in [lower, lower + extent)
            offset = dim.offset.align_params(low.get_space()).add_dims(isl.dim_type.in_, 1)
            shifted = var.align_params(offset.get_space()).sub(offset)
            stride = isl.Val(dim.stride, space.get_ctx())
            column = shifted.mod_val(stride).eq_set(isl.PwAff.zero_on_domain(
                isl.LocalSpace.from_space(shifted.get_domain_space())))
            var = shifted.scale_down_val(stride).floor()
            low, high = low.align_params(var.get_space()), high.align_params(var.get_space())
        inside = var.ge_set(low).intersect(var.lt_set(high))
        column = inside if column is None else column.intersect(inside)
        result = column if result is None else result.flat_product(column)
    result = result.set_tuple_name(array.name)
    extent = extent_set(array, scop.context)
    return result.align_params(extent.get_space()).intersect(
        extent.align_params(result.get_space())).coalesce()


def _named(groups: list[ArrayGroup], names: Names, used: frozenset[str]) -> list[ArrayGroup]:
    taken = set(used)
    out = []
    for g in groups:
        if g.placement == "global":
            out.append(g)
            continue
        base = f"{g.placement}_{g.array}"
        name, k = base, 0
        while name in taken:
            k += 1
            name = f"{base}_{k}"
        taken.add(name)
        out.append(ArrayGroup(g.array, g.refs, g.placement, name, g.level, g.box, g.copy_in,
                              g.copy_out, g.element_type, g.reason))
    return out

