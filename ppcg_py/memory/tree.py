"""Write the memory plan into the schedule tree, as PPCG does (gpu.c: add_copies,
add_sync): after this step the tree says everything code generation prints.

Under each kernel mark the tree is: context (block and thread id ranges) →
block filter → tile band → thread filter → point band → the rest. A reference
group copied at outer-schedule depth L gets its copies grafted into the tree at
depth L (the tile band is split there; at the kernel's full depth they go
before and after the thread filter), as extension nodes that add statement
instances:

- `K_read_G[c0, .., cL-1, e..]` loads element e of group G's buffer in the
  iteration (c0, .., cL-1) of the outer loops, `K_write_G[..]` stores it; a
  band over e orders them, unrolled for registers;
- `K_sync_N[]` is a `__syncthreads()`: before the loads (the buffer may still be
  read by the previous iteration), after them, and before the stores;
  `K_global_sync_N[]` orders global memory too (OpenCL's barriers order local
  memory only, unless told): the one before a kernel's epilogue, which reads what
  another thread of the block wrote there.

A shared buffer's loads and stores are spread over the threads of a block
(innermost array dimension to x, coalesced); a private buffer's are already a
thread's own. The host transfers are statements `to_device_A[]` and
`from_device_A[]` grafted before and after the whole SCoP.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import islpy as isl

from ..isl_context import (filter_instances, instances_of, node_at, statement_names, tree_position, union_set_list,
                           without_params)
from ..isl_workarounds import params_as_dims
from ..schedule.cpu.full_tiles import filled_tiles, with_full_tiles_isolated
from ..schedule.gpu import Kernel
from .groups import ArrayGroup, KernelMemory
from .device_arrays import DeviceArray

NT = isl.schedule_node_type


@dataclass(frozen=True)
class _Piece:
    """One statement of a graft: what it adds (extension) and, for a copy, its band."""

    extension: isl.UnionMap
    domain: isl.UnionSet
    band: isl.MultiUnionPwAff | None = None
    unroll: bool = False


def copy_statement(kernel: str, group: ArrayGroup, *, read: bool) -> str:
    return f"{kernel}_{'read' if read else 'write'}_{group.name}"


def transfer_statement(array: str, *, to_device: bool) -> str:
    return f"{'to_device' if to_device else 'from_device'}_{array}"


def with_copies(schedule: isl.Schedule, kernels: tuple[Kernel, ...], memories: dict[str, KernelMemory],
                arrays: tuple[DeviceArray, ...], iterator_prefix: str, host_ends: frozenset[str] = frozenset(),
                *, unroll_copy_shared: bool = False, unroll_gpu_tile: bool = False) -> isl.Schedule:
    """`schedule` with every kernel's copies and syncs and the host transfers (around
    the device part: the statements `host_ends`, the SCoP's serial head and tail, run
    on the host before and after them)."""
    for kernel in kernels:
        schedule = _kernel_copies(schedule, kernel, memories[kernel.name], iterator_prefix,
                                  unroll_copy_shared=unroll_copy_shared, unroll_gpu_tile=unroll_gpu_tile)
    return _host_transfers(schedule, arrays, host_ends)


def _kernel_copies(schedule: isl.Schedule, kernel: Kernel, memory: KernelMemory, prefix: str, *,
                   unroll_copy_shared: bool, unroll_gpu_tile: bool) -> isl.Schedule:
    local = [g for g in memory.groups if g.placement != "global" and not g.whole_launch]
    private = any(g.placement == "private" and g.rank > 0 for g in local)
    if kernel.thread_ids:
        # private buffers are indexed by the thread-mapped point loops: unrolled, the
        # indices are constants and the buffer can live in registers. The other point
        # loops are atomic, as the tile loops: one loop over the points of all statements
        # (gemm's `C *= beta` would otherwise get a copy of its own under `if (nk <= 0)`)
        point = _point_band(kernel_mark(schedule.get_root(), kernel.name))
        unrolled = kernel.n_tile if unroll_gpu_tile else len(kernel.thread_ids) if private else 0
        for k in range(point.band_n_member()):
            kind = isl.ast_loop_type.unroll if k < unrolled else isl.ast_loop_type.atomic
            point = point.band_member_set_ast_loop_type(k, kind)
        schedule = point.get_schedule()
    syncs = itertools.count()
    copied = [g for g in local if g.copy_in is not None or g.copy_out is not None]
    if kernel.epilogue is not None:
        schedule = _epilogue_apart(schedule, kernel, min(g.level for g in copied if g.placement == "reduction"))
    for level in sorted({g.level for g in copied}, reverse=True):
        reduced = [g for g in copied if g.level == level and g.placement == "reduction"]
        here = [g for g in copied if g.level == level and g.placement != "reduction"]
        shared = [g for g in here if g.placement == "shared"]
        before, after = [], []
        if shared:
            before.append(_sync(kernel, next(syncs), level))
        before += [_copy(kernel, g, level, prefix, read=True, unroll=unroll_copy_shared)
                   for g in here if g.copy_in is not None]
        if any(g.copy_in is not None for g in shared):
            before.append(_sync(kernel, next(syncs), level))
        if any(g.copy_out is not None for g in shared):
            after.append(_sync(kernel, next(syncs), level))
        after += [_copy(kernel, g, level, prefix, read=False, unroll=unroll_copy_shared)
                  for g in here if g.copy_out is not None]
        inits = [_reduction_piece(kernel, g, "init", level) for g in reversed(reduced)]
        combinations = [p for g in reduced for p in _combination(kernel, g, level, prefix, syncs)]
        target = _at_depth(kernel_mark(schedule.get_root(), kernel.name), kernel, level)
        if target.get_type() == NT.sequence:
            # the epilogue apart: the combinations end the first part, the epilogue follows
            # (grafted last: isl computes no prefix across an extension node just above)
            target = _grafted(target, before, after).child(0).child(0)
            before, after = [], []
        schedule = _grafted(target, inits + before, after + combinations).get_schedule()
    if memory.shuffles:
        schedule = _full_tiles_apart(schedule, kernel, frozenset(s.statement for s in memory.shuffles))
    return schedule


def launch_copies(kernel: Kernel, memory: KernelMemory, *,
                  unroll: bool = False) -> tuple[isl.Schedule | None, isl.Schedule | None]:
    """The loads and the stores of the buffers that last a launch of split tiles
    (memory/launch_buffers.py), each a schedule of its own over the copied elements, whose
    parameters are the values of the loops outside the steps' loop (c0..) and the block
    and thread ids: codegen prints the loads before the launch's steps' loop, a barrier
    after them, and the stores after the loop, which the last step's barrier precedes
    (codegen/device_loop.py). Inside the main tree they would run in the kernels of the
    first and the last step, whose values are piecewise (the band's end, the time loop's
    or the grid's): isl's AST of that took most of fdtd-2d's compile time. Nor can they
    be trees of the kernel's grafted beside the steps: an extension node must not bring
    the ids in above the context node that introduces them (isl then tests them around
    the steps, whose barriers must not diverge), and isl grafts nothing below one."""
    groups = [g for g in memory.groups if g.whole_launch]
    return (_copies(kernel, [g for g in groups if g.copy_in is not None], read=True, unroll=unroll),
            _copies(kernel, [g for g in groups if g.copy_out is not None], read=False, unroll=unroll))


def _copies(kernel: Kernel, groups: list[ArrayGroup], *, read: bool, unroll: bool) -> isl.Schedule | None:
    """A schedule of the groups' copies, one after the other, each over its elements."""
    pieces = [p for p in (_copy(kernel, g, 0, "", read=read, unroll=unroll) for g in groups) if p is not None]
    if not pieces:
        return None
    domain = pieces[0].domain
    for piece in pieces[1:]:
        domain = domain.union(piece.domain)
    return _in_order(isl.Schedule.from_domain(domain).get_root().child(0), pieces).get_schedule()


def _full_tiles_apart(schedule: isl.Schedule, kernel: Kernel, statements: frozenset[str]) -> isl.Schedule:
    """The kernel's tiles that `statements` (those whose neighbours come by warp
    shuffles: shuffles.py) fill, generated apart from the others, so that those
    statements run whole tiles there (a tile band that the copies have split is left
    as it is)."""
    node = _tile_band(kernel_mark(schedule.get_root(), kernel.name), kernel, statements)
    if node is None:
        return schedule
    # the tiles of all blocks (the block filter's modulo constraints would not survive
    # isl's hull of the isolated set), filled by each of the statements
    values = kernel.host_schedule.flat_range_product(kernel.point_schedule)
    full = None
    for name in sorted(statements):
        own = values.intersect_domain(instances_of(kernel.domain, name))
        filled = filled_tiles(own, kernel.host_depth, kernel.sizes.tile)
        full = filled if full is None else full.intersect(filled)
    return with_full_tiles_isolated(node, None, kernel.sizes.tile, full).get_schedule()


def _tile_band(node: isl.ScheduleNode, kernel: Kernel, statements: frozenset[str]) -> isl.ScheduleNode | None:
    """The kernel's tile band whole (not split by copies) above `statements`, or None."""
    if node.get_type() == NT.band and node.get_schedule_depth() == kernel.host_depth:
        whole = node.band_n_member() == kernel.n_tile and statements <= statement_names(node.get_universe_domain())
        return node if whole else None
    for k in range(node.n_children()):
        found = _tile_band(node.child(k), kernel, statements)
        if found is not None:
            return found
    return None


def _grafted(target: isl.ScheduleNode, before: list[_Piece | None], after: list[_Piece | None]) -> isl.ScheduleNode:
    """`target` with the pieces run before and after it."""
    before = [p for p in before if p is not None]
    after = [p for p in after if p is not None]
    if before:
        target = target.graft_before(graft_pieces(before))
    if after:
        target = target.graft_after(graft_pieces(after))
    return target


def _epilogue_apart(schedule: isl.Schedule, kernel: Kernel, level: int) -> isl.Schedule:
    """The kernel's tree with its epilogue (the readers of its reductions' results)
    after the rest from the reductions' level down: a sequence of two copies of the
    subtree there, the first ending with the combinations (`_kernel_copies`). A copy
    below that level holds the first part's references only (groups.py keeps the
    epilogue's arrays in global memory)."""
    node = _at_depth(kernel_mark(schedule.get_root(), kernel.name), kernel, level)
    path = tree_position(node)
    instances = node.get_domain().intersect(kernel.epilogue)
    if instances.is_empty():
        return schedule
    split = node_at(node.order_after(instances).get_schedule(), path)
    if split.get_type() != NT.sequence:
        raise RuntimeError(f"{kernel.name}: the epilogue did not come apart at depth {level}")
    return split.get_schedule()


def _host_transfers(schedule: isl.Schedule, arrays: tuple[DeviceArray, ...],
                    host_ends: frozenset[str] = frozenset()) -> isl.Schedule:
    """The copies to the device before the device part, the copies back after it. With
    no host ends that is the whole SCoP; else the children of the outermost sequence
    from the first to the last that holds a statement of the device part (grafted
    below their filters: isl grafts nothing between a sequence and its filters)."""
    ctx = schedule.get_ctx()

    def piece(name: str) -> _Piece:
        target = isl.Set.read_from_str(ctx, f"{{ {name}[] }}")
        return _Piece(isl.UnionMap.from_map(isl.Map.from_range(target)), isl.UnionSet.from_set(target))

    before = [piece(transfer_statement(d.array.name, to_device=True)) for d in arrays if d.copy_in]
    after = [piece(transfer_statement(d.array.name, to_device=False)) for d in arrays if d.copy_out]
    if not before and not after:
        return schedule
    top = schedule.get_root().child(0)
    first = last = top
    if host_ends:
        first, last = _device_end(top, host_ends, last=False), _device_end(top, host_ends, last=True)
    path_first, path_last = tree_position(first), tree_position(last)
    node = last
    if after:
        node = node.graft_after(graft_pieces(after))
    if path_first != path_last:
        # the graft below the last child's filter leaves the path to the first one as it was
        node = node_at(node.get_schedule(), path_first)
    if before:
        node = node.graft_before(graft_pieces(before))
    return node.get_schedule()


def _device_end(node: isl.ScheduleNode, host_ends: frozenset[str], *, last: bool) -> isl.ScheduleNode:
    """Where the device part starts (or ends) below `node`: the child below the filter of
    its first (last) child with a statement of the device part, in the sequence that
    leaves the serial head and tail out (the mapper may have nested the outermost
    sequence's children in sequences of their own)."""
    while node.get_type() == NT.sequence:
        names = [statement_names(filter_instances(node.child(k))) for k in range(node.n_children())]
        children = [k for k in range(node.n_children()) if not names[k] <= host_ends]
        if not children:
            return node
        end = children[-1] if last else children[0]
        child = node.child(end).child(0)
        if child.get_type() != NT.sequence or not names[end] & host_ends:
            return child
        node = child
    return node


def _copy(kernel: Kernel, group: ArrayGroup, level: int, prefix: str, *, read: bool,
          unroll: bool, name: str | None = None) -> _Piece | None:
    elements = group.copy_in if read else group.copy_out
    if group.placement == "shared":
        elements = _spread_over_threads(kernel, group, elements)
    outer = [f"{prefix}{k}" for k in range(level)]
    instances = params_as_dims(elements, outer).set_tuple_name(name or copy_statement(kernel.name, group, read=read))
    instances = instances.coalesce()
    if instances.is_empty():
        return None
    extension = isl.Map.identity(instances.get_space().map_from_set()).intersect_domain(instances)
    extension = extension.project_out(isl.dim_type.in_, level, group.rank).reset_tuple_id(isl.dim_type.in_)
    dims = [f"x{k}" for k in range(level + group.rank)]
    band = isl.MultiUnionPwAff.from_union_map(isl.UnionMap.read_from_str(   # parameter-free, as isl asks
        instances.get_ctx(), f"{{ {instances.get_tuple_name()}[{', '.join(dims)}] -> [{', '.join(dims[level:])}] }}"))
    return _Piece(isl.UnionMap.from_map(extension), isl.UnionSet.from_set(instances), band,
                  unroll=group.placement == "private" or unroll)


def reduction_statement(kernel: str, group: ArrayGroup, step: str) -> str:
    """`kernel0_reduce_init_partial_tmp`: a step of a reduction's combination."""
    return f"{kernel}_reduce_{step}_{group.name}"


def reduction_steps(group: ArrayGroup, block_x: int) -> tuple[int, ...]:
    """The strides of the tree that adds up the partials of a row of `block_x` threads
    in shared memory (after the warps' shuffles, one partial per warp)."""
    width = group.partials_per_row(block_x)
    strides, stride = [], 1
    while stride < width:
        stride *= 2
    while stride > 1:
        stride //= 2
        strides.append(stride)
    return tuple(strides)


def _reduction_piece(kernel: Kernel, group: ArrayGroup, step: str, level: int) -> _Piece:
    """A step that every thread of the block runs: none is guarded by a thread's own
    position (a barrier follows)."""
    return _every_thread(kernel, reduction_statement(kernel.name, group, step), level)


def _combination(kernel: Kernel, group: ArrayGroup, level: int, prefix: str, syncs) -> list[_Piece]:
    """After the reduction member's tile loop: each thread stores its partial in the
    shared buffer; a tree over thread x adds the row's partials (a barrier after each
    step); the row's first thread folds the sum into the location, for each location
    a thread of the row touched (spread over blocks: the block's sum joins the others'); a
    last barrier before the buffer is used again."""
    pieces = [_reduction_piece(kernel, group, "store", level), _sync(kernel, next(syncs), level)]
    for stride in reduction_steps(group, kernel.sizes.block[-1]):
        pieces += [_reduction_piece(kernel, group, f"step{stride}", level), _sync(kernel, next(syncs), level)]
    row = group.copy_out     # the locations the thread's row touches; the row's thread x = 0 folds
    # spread over blocks, every block takes part in the blocks' combination, whether or not
    # its tiles hold an instance (it then adds the identity): those the launch touches
    row = without_params(row, (kernel.thread_ids[-1], *(kernel.block_ids[:1] if group.blocks else ())))
    first = isl.Set.read_from_str(row.get_ctx(), f"[{kernel.thread_ids[-1]}] -> {{ : {kernel.thread_ids[-1]} = 0 }}")
    final = replace(group, copy_out=row.intersect_params(first.align_params(row.get_space())))
    # spread over blocks, the row's sum goes to the blocks' combination (codegen/reductions.py)
    pieces.append(_copy(kernel, final, level, prefix, read=False, unroll=False,
                        name=reduction_statement(kernel.name, group, "blocks" if group.blocks else "final")))
    pieces.append(_sync(kernel, next(syncs), level, global_memory=kernel.epilogue is not None))
    return pieces


def _sync(kernel: Kernel, number: int, level: int, global_memory: bool = False) -> _Piece:
    return _every_thread(kernel, f"{kernel.name}_{'global_' if global_memory else ''}sync_{number}", level)


def orders_global_memory(sync: str) -> bool:
    """Whether the barrier statement `sync` must order global memory as well."""
    return "_global_sync_" in sync


def _every_thread(kernel: Kernel, name: str, level: int) -> _Piece:
    """A statement `name[]` that every thread runs once per iteration of the loops around `level`."""
    dims = ", ".join(f"x{k}" for k in range(level))
    extension = isl.Map.read_from_str(kernel.domain.get_ctx(), f"{{ [{dims}] -> {name}[] }}")
    return _Piece(isl.UnionMap.from_map(extension), isl.UnionSet.from_set(extension.range()))


def piece_at(points: isl.Set, name: str) -> _Piece:
    """A statement `name[]` that runs once at each of `points` (prefix schedule values)."""
    target = isl.Set.read_from_str(points.get_ctx(), f"{{ {name}[] }}")
    extension = isl.Map.from_domain_and_range(points, target.align_params(points.get_space()))
    return _Piece(isl.UnionMap.from_map(extension), isl.UnionSet.from_set(target))


def graft_pieces(pieces: list[_Piece]) -> isl.ScheduleNode:
    """An extension node adding `pieces`, run in this order, each copy over its band."""
    extension = pieces[0].extension
    for p in pieces[1:]:
        extension = extension.union(p.extension)
    node = _in_order(isl.ScheduleNode.from_extension(extension).child(0), pieces)
    while node.has_parent():
        node = node.parent()
    return node


def _in_order(leaf: isl.ScheduleNode, pieces: list[_Piece]) -> isl.ScheduleNode:
    """`leaf`, whose instances are the pieces', with them run in this order, each copy
    over its band."""
    if len(pieces) == 1:
        return _copy_band(leaf, pieces[0])
    node = leaf.insert_sequence(union_set_list([p.domain for p in pieces]))
    for k, p in enumerate(pieces):
        node = _copy_band(node.child(k).child(0), p).parent().parent()
    return node


def _copy_band(node: isl.ScheduleNode, piece: _Piece) -> isl.ScheduleNode:
    if piece.band is None:
        return node
    node = node.insert_partial_schedule(piece.band)
    if piece.unroll:
        for k in range(node.band_n_member()):
            node = node.band_member_set_ast_loop_type(k, isl.ast_loop_type.unroll)
    return node


def kernel_mark(node: isl.ScheduleNode, name: str) -> isl.ScheduleNode | None:
    """The mark of kernel `name` in the tree below `node`."""
    if node.get_type() == NT.mark and node.mark_get_id().get_name() == name:
        return node
    for k in range(node.n_children()):
        found = kernel_mark(node.child(k), name)
        if found is not None:
            return found
    return None


def _point_band(mark: isl.ScheduleNode) -> isl.ScheduleNode:
    """mark → context → block filter → tile band → thread filter → point band."""
    node = mark
    while node.get_type() != NT.band:
        node = node.child(0)
    node = node.child(0)
    while node.get_type() != NT.band:
        node = node.child(0)
    return node


def _at_depth(mark: isl.ScheduleNode, kernel: Kernel, level: int) -> isl.ScheduleNode:
    """The node before and after which copies at outer depth `level` go: the tile
    band (split at `level`) or, at the kernel's full depth, the thread filter."""
    node = mark
    while True:
        kind = node.get_type()
        depth = node.get_schedule_depth()
        if kind == NT.sequence and depth == level:
            return node     # the epilogue apart (`_epilogue_apart`); deeper copies go in the first part
        if kind == NT.band and depth <= level < depth + node.band_n_member():
            return node if depth == level else node.band_split(level - depth).child(0)
        if kind == NT.filter and level == kernel.depth and depth == level:
            return node
        node = node.child(0)


def _spread_over_threads(kernel: Kernel, group: ArrayGroup, elements: isl.Set) -> isl.Set:
    """Give each thread its share: innermost array dimension to x, and so on (coalesced).
    Dimensions the box holds one element of get no thread: a column tile `[256][1]` is
    spread over thread x, not copied by the threads with x = 0."""
    ctx = elements.get_ctx()
    threads = list(zip(kernel.thread_ids, kernel.sizes.block))
    rank = elements.dim(isl.dim_type.set)
    spread = [k for k in range(rank) if group.box[k].extent > 1] or [rank - 1]
    for k, (tid, size) in zip(reversed(spread), reversed(threads)):
        # the thread id as a parameter parsed by isl: an isl.Id made here would be
        # a different identifier from the "t0" of every other set (islpy's ids carry a user object)
        named = isl.Set.read_from_str(ctx, f"[{tid}] -> {{ : }}").get_space()
        low = group.box[k].lower.align_params(named).add_dims(isl.dim_type.in_, 1)
        ls = isl.LocalSpace.from_space(low.get_domain_space())
        var = isl.PwAff.var_on_domain(ls, isl.dim_type.set, 0)
        thread = isl.PwAff.var_on_domain(ls, isl.dim_type.param,
                                         low.get_domain_space().find_dim_by_name(isl.dim_type.param, tid))
        local = var.sub(low).sub(thread)
        residue = local.mod_val(isl.Val(size, ctx)).eq_set(
            isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(local.get_domain_space())))
        residue = residue.insert_dims(isl.dim_type.set, 0, k).add_dims(isl.dim_type.set, rank - k - 1)
        residue = residue.set_tuple_name(elements.get_tuple_name())
        elements = elements.align_params(residue.get_space()).intersect(
            residue.align_params(elements.get_space()))
    return elements
