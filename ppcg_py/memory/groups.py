"""Reference groups of a kernel and where each lives: registers, shared or global memory.

References to one array are grouped as PPCG groups them (`_group`): two that touch
one element within one iteration of the loops outside their copies are grouped when
either writes (one local copy must serve them both), and two whose shared-memory
tiles together are smaller than apart. A group goes to registers when each
thread's elements are a function of its tile and thread coordinates (they do not
move with the loops a thread runs through) and there is reuse, also where several
threads read one element (PPCG then uses shared memory: `_read_by_several_threads`);
otherwise to shared memory when its tile (a constant-size box per tile iteration)
fits in what is left of `--max-shared-memory` and there is reuse or the global
access is not coalesced; otherwise it stays in global memory.

Sets handed to code generation name the outer schedule dimensions as parameters
c0, c1, ... (the generated loop iterators), so that they read as C at any level.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

import islpy as isl

from ..extract.model import Array, Scop
from ..isl_context import constant_on, maps_of, sets_of, statement_names, without_params
from ..isl_workarounds import dims_as_params
from ..names import Names
from ..options import Options
from ..schedule.gpu import Kernel
from .box import BoxDim, box_size, fixed_box, single_element_box
from .device_arrays import extent_set
from .shuffles import SHUFFLED_TYPES, WARP, NeighbourShuffle, neighbour_shuffles

ELEMENT_BYTES = {"double": 8, "float": 4, "int": 4, "long": 8, "char": 1, "short": 2,
                 "unsigned int": 4, "long long": 8, "unsigned char": 1, "long int": 8}
MAX_PRIVATE_ELEMENTS = 64


def partials_per_row(block_x: int, warp: int) -> int:
    """A reduction's shared slots per row of thread x: one per warp after the shuffle
    tree (`warp` lanes), else one per thread."""
    return block_x // warp if warp else block_x


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
    reduction: str = ""           # "reduction": how the threads' partials combine (+ * & | ^ min max)
    warp: int = 0                 # "reduction": lanes whose partials a shuffle tree adds first (CUDA), or 0
    slots: int = 0                # "reduction": the shared buffer's partials (partials_per_row per row)
    # "reduction" spread over the blocks of the launch: how their partials combine, "ordered"
    # (the last block to finish adds them in block order) or "atomic" (each block adds its own)
    blocks: str = ""
    grid: int = 0                 # "reduction" spread over blocks: the most blocks a launch has
    # "shared" for a whole launch of split tiles (launch_buffers.py): declared once by the
    # launch's function, loaded before its steps' loop and stored after it (`level`: the
    # depth of the loops outside the steps')
    whole_launch: bool = False

    def partials_per_row(self, block_x: int) -> int:
        return partials_per_row(block_x, self.warp)

    @property
    def partials(self) -> str:
        """A reduction group's shared buffer: one partial per thread of the block."""
        return f"shared_{self.name}"

    def block_partials(self, kernel: str) -> str:
        """A reduction spread over blocks: the file-scope device buffer of the blocks' partials."""
        return f"{kernel}_{self.name}_blocks"

    def blocks_done(self, kernel: str) -> str:
        """A reduction spread over blocks: the count of the blocks that have stored theirs."""
        return f"{kernel}_{self.name}_done"

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
    shuffles: tuple[NeighbourShuffle, ...] = ()   # neighbours passed by warp shuffles (shuffles.py)
    # the loads and the stores of the buffers that last its launch of split tiles, before
    # and after the launch's steps (tree.py `launch_copies`)
    launch_loads: isl.Schedule | None = None
    launch_stores: isl.Schedule | None = None

    @property
    def shared_bytes(self) -> int:
        """Shared buffers and the reductions' buffers of partials."""
        return self.step_shared_bytes + self.launch_shared_bytes

    @property
    def step_shared_bytes(self) -> int:
        """What the kernel's own body declares (each time it is inlined in a launch)."""
        return sum(g.bytes for g in self.groups if g.placement == "shared" and not g.whole_launch) + \
            sum(g.slots * ELEMENT_BYTES.get(g.element_type, 8) for g in self.groups if g.placement == "reduction")

    @property
    def launch_shared_bytes(self) -> int:
        """What its launch of split tiles declares once (launch_buffers.py)."""
        return sum(g.bytes for g in self.groups if g.whole_launch)


@dataclass(frozen=True)
class _Reference:
    array: str
    relation: isl.UnionMap       # instances -> elements
    reads: bool
    writes: bool
    tag: str


@dataclass(frozen=True)
class _Group:
    """References that are to share one copy, and what grouping knows of that copy.

    `outer` maps the values of the kernel's outer loops (host and tile loops, its
    full depth) to the elements the references touch in that iteration. `depth` is
    the outermost depth at which the group may be copied (its tiles' levels, the full
    depth when it has none): a copy made there serves every iteration below it, so
    it would miss another group's writes to its elements within one iteration at
    that depth. `shared` is its shared-memory tile (level, box), when it may get one.
    """

    refs: tuple[_Reference, ...]
    outer: isl.UnionMap
    depth: int
    shared: tuple[int, tuple[BoxDim, ...]] | None = None

    @property
    def array(self) -> str:
        return self.refs[0].array

    @property
    def writes(self) -> bool:
        return any(r.writes for r in self.refs)


def plan_kernel(scop: Scop, kernel: Kernel, options: Options, names: Names,
                host_scalars: frozenset[str] = frozenset()) -> KernelMemory:
    """Where each reference group of the kernel lives. The schedule stage has decided
    for two kinds of scalar already: host scalars (written by host statements only,
    schedule/gpu/host.py) are read from the kernel's arguments, and a private scalar
    (schedule/private.py) is one variable per thread, whatever its references'
    footprints."""
    references = kernel_references(scop, kernel)
    reductions = tuple(_reduction_group(scop, kernel, r, references, names.iterator, options)
                       for r in kernel.reductions)
    reduced = frozenset(r.array for r in kernel.reductions)
    # the location's other references in the kernel (an initialisation) stay in global
    # memory, where the combination, after a barrier, finds what they wrote
    others = tuple(_global([r], "the threads combine a reduction into it") for r in references
                   if r.array in reduced and not any(r.tag in g.refs for g in reductions))
    references = [r for r in references if r.array not in reduced]
    # the epilogue (tree.py) runs apart from the copies below the reductions' level: the
    # arrays it touches stay in global memory, where a barrier orders its accesses
    apart = _epilogue_arrays(scop, kernel, references)
    others += tuple(_global([r], "read or written after the combination (the kernel's epilogue)")
                    for r in references if r.array in apart)
    references = [r for r in references if r.array not in apart]
    # PPCG computes such a scalar on the device and, read by several threads, copies
    # it to shared memory in each kernel (deriche's 18 `__shared__` arrays are its
    # filter coefficients a1..a8, b1, b2, c1, c2; 10 of adi's 12 are a..f)
    by_value = tuple(ArrayGroup(r.array, frozenset({r.tag}), "argument", name=r.array,
                                element_type=scop.array(r.array).element_type,
                                reason="written on the host, passed by value (PPCG: shared memory)")
                     for r in references if r.array in host_scalars)
    private = tuple(ArrayGroup(name, frozenset(r.tag for r in references if r.array == name), "private",
                               element_type=scop.array(name).element_type,
                               reason="its values stay in one thread: a copy per thread, no device memory")
                    for name in sorted(kernel.private - reduced) if any(r.array == name for r in references))
    decided = by_value + others + tuple(_named([*reductions, *private], names, scop.used_names))
    references = [r for r in references if r.array not in host_scalars and r.array not in kernel.private]
    with _remembering_levels():
        groups = _group(scop, kernel, references, options, names.iterator)
        if not kernel.thread_ids:
            return KernelMemory(kernel.name, decided + tuple(_global(list(g.refs), "single-thread kernel")
                                                             for g in groups))
        # the reductions' buffers of partials share the block's shared memory
        reserved = KernelMemory(kernel.name, decided).shared_bytes
        placed = _place_all(scop, kernel, groups, options, names.iterator, reserved)
    placed_groups = decided + tuple(_named(placed, names, scop.used_names))
    shuffles = ()
    if options.warp_shuffles and options.target == "cuda":
        in_global = frozenset(tag for g in placed_groups if g.placement == "global" for tag in g.refs)
        shuffles = neighbour_shuffles(scop, kernel, in_global, set(scop.used_names))
    return KernelMemory(kernel.name, placed_groups, shuffles)


def _epilogue_arrays(scop: Scop, kernel: Kernel, references: list[_Reference]) -> frozenset[str]:
    """The arrays (not scalars: those are never copied) that the kernel's epilogue touches."""
    if kernel.epilogue is None:
        return frozenset()
    return frozenset(r.array for r in references if not scop.array(r.array).is_scalar
                     and not r.relation.intersect_domain(kernel.epilogue).is_empty())


def _reduction_group(scop: Scop, kernel: Kernel, reduction, references: list[_Reference],
                     prefix: str, options: Options) -> ArrayGroup:
    """The location of a reduction whose member runs on thread x: a register per thread
    from above that member's tile loop (level: the host loops and the parallel members'
    tile loops) to after it, holding the thread's partial; then combined (tree.py).
    On CUDA, rows of whole warps first add their partials with warp shuffles (no
    barrier, no shared memory), and only the warps' sums go through shared memory.
    Spread over the blocks of the launch (a reduction with no parallel member), the
    blocks' sums combine in block order, or atomically with --atomic-reductions where
    CUDA has the atomic operation."""
    shuffles = options.target == "cuda"
    refs = [r for r in references if r.tag in reduction.tags]
    level = kernel.host_depth + len(kernel.thread_ids) - 1
    elements = elements_per_level(kernel, union_relation(refs), level, prefix, True)
    box = fixed_box(elements, strides=True)
    if box is None or box_size(box) != 1:
        # whether a thread has instances at all may be a condition on its ids that no box
        # carries (fuzz 2841:228: a sum over blocks of 256 threads, `B[i][i]` at `c0 = 2i + 2`):
        # the box of the location without it, one element only if the same for every thread
        box = single_element_box(without_params(elements, kernel.block_ids + kernel.thread_ids))
    if box is None or box_size(box) != 1:     # the mapper checked that the location is one element
        raise RuntimeError(f"{kernel.name}: a thread's partial of {reduction.statement} is not one element")
    array = scop.array(reduction.array)
    block = kernel.sizes.block
    warp = WARP if shuffles and block[-1] % WARP == 0 and array.element_type in SHUFFLED_TYPES else 0
    blocks = "" if not kernel.reduction_over_blocks else \
        "atomic" if options.atomic_reductions and _has_atomic(reduction.op, array.element_type) else "ordered"
    across = {"": "", "ordered": ", then over the blocks: the last to finish adds their sums in block order",
              "atomic": ", then over the blocks: each adds its sum atomically"}[blocks]
    return ArrayGroup(array.name, frozenset(r.tag for r in refs), "reduction", level=level, box=box,
                      copy_in=elements, copy_out=elements, element_type=array.element_type,
                      reason=f"reduction '{reduction.op}' over thread x: a partial per thread, combined "
                             + ("by warp shuffles, then in shared memory" if warp else "in shared memory") + across,
                      reduction=reduction.op, warp=warp, slots=math.prod(block[:-1]) * partials_per_row(block[-1], warp),
                      blocks=blocks, grid=kernel.sizes.grid[0] if blocks else 0)


# CUDA's atomic read-modify-write operations (sm_60 and later) and the types they take
ATOMIC_OPERATIONS = {"+": "atomicAdd", "&": "atomicAnd", "|": "atomicOr", "^": "atomicXor",
                     "min": "atomicMin", "max": "atomicMax"}
_ATOMIC_TYPES = {
    "+": {"int", "unsigned int", "unsigned", "unsigned long long", "float", "double"},
    "&": {"int", "unsigned int", "unsigned", "unsigned long long"},
    "min": {"int", "unsigned int", "unsigned", "long long", "unsigned long long"},
}
_ATOMIC_TYPES["|"] = _ATOMIC_TYPES["^"] = _ATOMIC_TYPES["&"]
_ATOMIC_TYPES["max"] = _ATOMIC_TYPES["min"]


def _has_atomic(op: str, element_type: str) -> bool:
    return element_type in _ATOMIC_TYPES.get(op, set())


def _place_all(scop: Scop, kernel: Kernel, groups: list[_Group], options: Options,
               prefix: str, reserved: int = 0) -> list[ArrayGroup]:
    """Each group's placement, in order, out of one shared-memory budget (less the
    `reserved` bytes other buffers of the kernel take).

    Then a guard: of two groups of one array placed apart, neither may work on a
    stale copy of the other's writes. `_group` merged every such pair at the depths
    it expects `_place` to choose; should `_place` choose a shallower one (a change
    to `_place` alone), the pair is merged here and all is placed again, rather than
    generating wrong code."""
    while True:
        budget = max(0, options.max_shared_memory - reserved) if options.use_shared_memory else 0
        placed = []
        for group in groups:
            decision = _place(scop, kernel, list(group.refs), options, budget, prefix)
            if decision.placement == "shared":
                budget -= decision.bytes
            placed.append(decision)
        pair = _stale_pair(kernel, groups, placed)
        if pair is None:
            return placed
        i, j = pair
        groups = groups[:i] + [_joined(kernel, groups[i], groups[j])] + groups[i + 1:j] + groups[j + 1:]


def _stale_pair(kernel: Kernel, groups: list[_Group], placed: list[ArrayGroup]) -> tuple[int, int] | None:
    """Two groups of one array, one writing, not both global, that touch one element
    in one iteration of the outer loops at the shallower of their copies' depths."""
    def depth(decision: ArrayGroup) -> int:
        return kernel.depth if decision.placement == "global" else decision.level
    for i, j in itertools.combinations(range(len(groups)), 2):
        a, b = groups[i], groups[j]
        if a.array != b.array or not (a.writes or b.writes):
            continue
        if placed[i].placement == "global" and placed[j].placement == "global":
            continue
        if _overlap(a, b, min(depth(placed[i]), depth(placed[j]))):
            return i, j
    return None


def kernel_references(scop: Scop, kernel: Kernel) -> list[_Reference]:
    statements = statement_names(kernel.domain)
    refs = []
    for stmt in scop.statements:
        if stmt.name not in statements:
            continue
        for acc in stmt.accesses:
            rel = isl.UnionMap.from_map(acc.index).intersect_domain(kernel.domain)
            refs.append(_Reference(acc.array, rel, acc.is_read, acc.is_write, acc.tag))
    return refs


def _group(scop: Scop, kernel: Kernel, refs: list[_Reference], options: Options,
           prefix: str) -> list[_Group]:
    """The kernel's reference groups, formed array by array as PPCG forms them
    (gpu_group.c: group_array_references):

    1. one group per reference;
    2. two groups that touch one element in one iteration of the kernel's outer
       loops (host and tile loops) are merged when either writes: a copy of one
       would hide the other's writes. Read-only groups need no merging: copies
       of elements that no group writes meanwhile agree (syrk's A[i][k] and
       A[j][k]: together they have no tile of constant size, apart A[i][k] has one);
    3. each group's tiles are found, and with them the depth of its copies; two
       groups, either writing, that touch one element in one iteration at the
       shallower of their depths are merged (their tiles found again), until no
       such pair is left;
    4. with `group_chains`, two groups with shared-memory tiles that touch one
       element at that depth are merged when the tile of the union is smaller
       than their two tiles together (A[i][k] and A[i][k + 1]: one 32 x 33 tile for
       two of 32 x 32); then step 3 again.

    The groups come in the order of their last reference, the order in which they
    are offered the shared-memory budget."""
    order = {r.tag: k for k, r in enumerate(refs)}
    groups: list[_Group] = []
    for array in dict.fromkeys(r.array for r in refs):
        groups += _array_groups(scop, kernel, [r for r in refs if r.array == array], options, prefix)
    return sorted(groups, key=lambda g: max(order[r.tag] for r in g.refs))


def _array_groups(scop: Scop, kernel: Kernel, refs: list[_Reference], options: Options,
                  prefix: str) -> list[_Group]:
    """Steps 1 to 4 of `_group` for the references to one array."""
    def bounded(group: _Group) -> _Group:
        return _bounded(scop, kernel, group, options, prefix)

    def writes_overlap(a: _Group, b: _Group) -> _Group | None:
        if (a.writes or b.writes) and _overlap(a, b, min(a.depth, b.depth)):
            return _joined(kernel, a, b)
        return None

    def bounded_writes_overlap(a: _Group, b: _Group) -> _Group | None:
        joined = writes_overlap(a, b)
        return None if joined is None else bounded(joined)

    def chain(a: _Group, b: _Group) -> _Group | None:
        if a.shared is None or b.shared is None or not _overlap(a, b, min(a.depth, b.depth)):
            return None
        union = bounded(_joined(kernel, a, b))
        if union.shared is None or box_size(union.shared[1]) >= box_size(a.shared[1]) + box_size(b.shared[1]):
            return None
        return union

    singles = [_Group((r,), _at_outer_loops(kernel, r.relation), kernel.depth) for r in refs]
    groups = [bounded(g) for g in _merge(singles, writes_overlap)]
    groups = _merge(groups, bounded_writes_overlap)
    if options.group_chains:
        chained = _merge(groups, chain)
        if len(chained) < len(groups):
            groups = _merge(chained, bounded_writes_overlap)
    return groups


def _merge(groups: list[_Group], join: Callable[[_Group, _Group], _Group | None]) -> list[_Group]:
    """Merge two groups while `join` makes one group of some pair; the merged group
    takes the first one's place. A pair `join` refused is not offered again (its
    verdict cannot change while neither group does: join may be costly, it can find
    the tiles of the union)."""
    groups = list(groups)
    refused: set[tuple[frozenset[str], frozenset[str]]] = set()
    while True:
        for i, j in itertools.combinations(range(len(groups)), 2):
            key = (_tags(groups[i]), _tags(groups[j]))
            if key in refused:
                continue
            joined = join(groups[i], groups[j])
            if joined is None:
                refused.add(key)
                continue
            groups = groups[:i] + [joined] + groups[i + 1:j] + groups[j + 1:]
            break
        else:
            return groups


def _tags(group: _Group) -> frozenset[str]:
    return frozenset(r.tag for r in group.refs)


def _joined(kernel: Kernel, a: _Group, b: _Group) -> _Group:
    """One group of the references of `a` and `b`, its tiles not yet found."""
    return _Group(a.refs + b.refs, a.outer.union(b.outer), kernel.depth)


def _bounded(scop: Scop, kernel: Kernel, group: _Group, options: Options, prefix: str) -> _Group:
    """`group` with its tiles: the depth of the shallowest copy `_place` may make of
    it (in registers or shared memory), and its shared-memory tile if `_place` may
    use one. The conditions are `_place`'s, the budget aside: a group that does not
    fit stays global, which is deeper, not shallower. As in PPCG, both tiles count,
    though `_place` prefers registers.

    A tile larger than all of shared memory is no shared-memory tile here, where
    PPCG finds that out only after grouping. So no chain forms whose tile cannot
    fit: adi's two 32 x 32 tiles of v stay apart and one gets shared memory, where
    their 32 x 34 union would get none; and seidel-2d's nine 32 x 187 tiles of A
    (none fits) spare a second of boxes of their unions."""
    if not kernel.thread_ids or scop.array(group.array).is_scalar or scop.array(group.array).member is not None:
        return replace(group, depth=kernel.depth, shared=None)
    refs = list(group.refs)
    relation = union_relation(refs)
    reuse = _reuse(kernel, relation)
    depth, shared = kernel.depth, None
    if options.use_private_memory and reuse and _thread_invariant(kernel, relation):
        level, box = _level(kernel, relation, prefix, per_thread=True)
        if box is not None and box_size(box) <= MAX_PRIVATE_ELEMENTS:
            depth = level
    if options.use_shared_memory and (reuse or not _coalesced(kernel, refs)):
        level, box = _level(kernel, relation, prefix, per_thread=False)
        if box is not None:
            depth = min(depth, level)
            if box_size(box) * _element_bytes(scop, group.array) <= options.max_shared_memory:
                shared = (level, box)
    return replace(group, depth=depth, shared=shared)


def _element_bytes(scop: Scop, array: str) -> int:
    return ELEMENT_BYTES.get(scop.array(array).element_type, 8)


def _at_outer_loops(kernel: Kernel, relation: isl.UnionMap) -> isl.UnionMap:
    """Values of the kernel's outer loops (its full depth) -> the elements of
    `relation` touched in that iteration."""
    return _outer(kernel, kernel.depth).intersect_domain(kernel.domain).reverse().apply_range(relation)


def _overlap(a: _Group, b: _Group, depth: int) -> bool:
    """Whether `a` and `b` touch one element in one iteration of the outer loops
    [0, depth) (PPCG's depth_accesses_overlap)."""
    return not _outer_prefix(a.outer, depth).intersect(_outer_prefix(b.outer, depth)).is_empty()


def _outer_prefix(outer: isl.UnionMap, depth: int) -> isl.UnionMap:
    """{ [x0, .., xn] -> e } as { [x0, .., x(depth-1)] -> e }."""
    result = isl.UnionMap.empty(outer.get_space())
    for m in maps_of(outer):
        n = m.dim(isl.dim_type.in_)
        result = result.union(isl.UnionMap.from_map(m.project_out(isl.dim_type.in_, depth, n - depth)))
    return result


def union_relation(group: list[_Reference], *, writes_only: bool = False) -> isl.UnionMap:
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
    if array.is_scalar:
        return _global(group, "scalar")
    if array.member is not None:   # its memory is the struct variable's
        return _global(group, "member of a struct")
    if any(not acc.exact or acc.is_write and not acc.must
           for stmt in scop.statements if not stmt.calls     # a call's statement runs on the host
           for acc in stmt.accesses if acc.array == array.name):
        # a copy would need the elements a may-write leaves alone, or an index isl cannot print
        return _global(group, "may-accesses (data-dependent control or subscripts)")
    relation = union_relation(group)
    reuse = _reuse(kernel, relation)
    reads = any(r.reads for r in group)
    writes = any(r.writes for r in group)
    refs = frozenset(r.tag for r in group)
    if options.use_private_memory and reuse and _thread_invariant(kernel, relation):
        level, box = _level(kernel, relation, prefix, per_thread=True)
        if box is not None and box_size(box) <= MAX_PRIVATE_ELEMENTS:
            return ArrayGroup(array.name, refs, "private", level=level, box=box,
                              copy_in=box_elements(box, array, scop) if reads else None,
                              copy_out=elements_per_level(kernel, union_relation(group, writes_only=True), level,
                                                          prefix, True) if writes else None,
                              element_type=array.element_type,
                              reason="reuse, a copy per thread of elements other threads read too (PPCG: shared memory)"
                              if _read_by_several_threads(kernel, relation) else "reuse, one element set per thread")
    coalesced = _coalesced(kernel, group)
    if not (reuse or not coalesced):
        return _global(group, "no reuse and coalesced")
    level, box = _level(kernel, relation, prefix, per_thread=False)
    if box is None:
        return _global(group, "no tile of constant size")
    if not reuse and box[-1].extent == 1:
        # a column of the array (gramschmidt's A[i][k] for one k): the copy would read it
        # with the same stride, one element per row, and add barriers for nothing
        return _global(group, "not coalesced, nor would a copy be (one element per row)")
    candidate = ArrayGroup(array.name, refs, "shared", level=level, box=box,
                           copy_in=box_elements(box, array, scop) if reads else None,
                           copy_out=elements_per_level(kernel, union_relation(group, writes_only=True), level,
                                                       prefix, False) if writes else None,
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


def elements_per_level(kernel: Kernel, relation: isl.UnionMap, depth: int, prefix: str, per_thread: bool) -> isl.Set:
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


_known_levels: ContextVar[dict[tuple[str, str, bool], list[tuple[isl.UnionMap, tuple]]] | None] = \
    ContextVar("_known_levels", default=None)


@contextmanager
def _remembering_levels() -> Iterator[None]:
    """Within: `_level` remembers what it found. Grouping finds the tiles of the
    groups that `_place` then places, and of unions it may reject; a box can
    take a parametric ILP per dimension and depth (seconds on lu's triangles)."""
    token = _known_levels.set({})
    try:
        yield
    finally:
        _known_levels.reset(token)


def _level(kernel: Kernel, relation: isl.UnionMap, prefix: str, *, per_thread: bool):
    """The outermost depth whose per-iteration box is as small as at the tile depth.

    Remembered by the relation's value: its text is no key, as isl may simplify a
    relation in place while it works on it."""
    known = _known_levels.get()
    if known is None:
        return _find_level(kernel, relation, prefix, per_thread=per_thread)
    found = known.setdefault((kernel.name, prefix, per_thread), [])
    for seen, result in found:
        if seen.is_equal(relation):
            return result
    result = _find_level(kernel, relation, prefix, per_thread=per_thread)
    found.append((relation, result))
    return result


def _find_level(kernel: Kernel, relation: isl.UnionMap, prefix: str, *, per_thread: bool):
    full = fixed_box(elements_per_level(kernel, relation, kernel.depth, prefix, per_thread), strides=per_thread)
    if full is None:
        return kernel.depth, None
    level, box = kernel.depth, full
    for depth in range(kernel.depth - 1, kernel.host_depth - 1, -1):
        outer = fixed_box(elements_per_level(kernel, relation, depth, prefix, per_thread), strides=per_thread)
        if outer is None or box_size(outer) != box_size(full):
            break
        level, box = depth, outer
    return level, box


def _thread_key(kernel: Kernel) -> isl.UnionMap:
    """Instances -> the outer loop values and the thread-mapped point values."""
    n = len(kernel.thread_ids)
    mapped = None
    for m in maps_of(kernel.point_schedule):
        part = isl.UnionMap.from_map(m.project_out(isl.dim_type.out, n, m.dim(isl.dim_type.out) - n))
        mapped = part if mapped is None else mapped.union(part)
    return kernel.outer_schedule.flat_range_product(mapped)


def _thread_invariant(kernel: Kernel, relation: isl.UnionMap) -> bool:
    """Whether each element is fixed by the tile and the thread-mapped point values."""
    return _thread_key(kernel).reverse().apply_range(relation).is_single_valued()


def _read_by_several_threads(kernel: Kernel, relation: isl.UnionMap) -> bool:
    """Whether two thread-mapped point values touch one element in one iteration of
    the outer loops (gemver's u1[i], read by every thread of a row of the block).

    PPCG gives such a group no registers (its private tiles hold the elements of
    one thread: gpu_group.c checks the access is bijective) and, with reuse, a tile
    in shared memory; here each thread keeps a copy of its elements in registers:
    loads as many as the block's threads would read from shared memory (one per
    thread and element, of elements that warps share, so cached), no barriers."""
    per_outer = kernel.outer_schedule.range_product(relation)       # S -> [[outer] -> e]
    return not _thread_key(kernel).reverse().apply_range(per_outer).is_injective()


def _coalesced(kernel: Kernel, group: list[_Reference]) -> bool:
    """Consecutive x threads touch the same or consecutive elements (innermost index)."""
    if kernel.counted is not None:
        return _along_thread_x(kernel, group)
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


def _along_thread_x(kernel: Kernel, group: list[_Reference]) -> bool:
    """`_coalesced` where the kernel's schedule is costly to compose (`Kernel.counted`:
    split tiles, divisions in every constraint): each reference's innermost index is the
    band member mapped to thread x plus a constant, over the superset counting takes
    (a sufficient condition: neighbouring x threads then touch neighbouring elements)."""
    if not kernel.thread_ids or kernel.point_schedule is None:
        return False
    x = len(kernel.thread_ids) - 1
    band = kernel.point_schedule.gist_domain(kernel.domain).intersect_domain(kernel.counted.instances)
    for ref in group:
        relation = ref.relation.gist_domain(kernel.domain).intersect_domain(kernel.counted.instances)
        for access in maps_of(relation):
            rank = access.dim(isl.dim_type.out)
            member = maps_of(band.intersect_domain(isl.UnionSet.from_set(access.domain())))
            if rank == 0 or len(member) != 1:
                return False
            inner = access.project_out(isl.dim_type.out, 0, rank - 1)
            along = member[0].project_out(isl.dim_type.out, x + 1, member[0].dim(isl.dim_type.out) - x - 1) \
                .project_out(isl.dim_type.out, 0, x)
            offset = inner.reset_tuple_id(isl.dim_type.out).reverse().apply_range(
                along.reset_tuple_id(isl.dim_type.out))
            if not offset.deltas().is_singleton():
                return False
    return True


def box_elements(box: tuple[BoxDim, ...], array: Array, scop: Scop) -> isl.Set:
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
        name = free_name(f"{g.placement}_{g.array}" if g.placement != "reduction" else f"partial_{g.array}", taken)
        taken.update((name, f"shared_{name}"))
        out.append(replace(g, name=name))
    return out


def free_name(base: str, taken: set[str]) -> str:
    """`base`, or `base_1`, ...: a name not `taken`, nor taken with `shared_` before it (a
    reduction's buffer of partials is `shared_` and its group's name)."""
    name, k = base, 0
    while name in taken or f"shared_{name}" in taken:
        k += 1
        name = f"{base}_{k}"
    return name

