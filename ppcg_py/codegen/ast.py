"""The `ast` stage: one isl AST per SCoP, built from the memory step's schedule tree.

One `AstBuild` runs over the whole tree: host loops, kernel marks, the copies
and syncs inside kernels, the host transfers. isl calls back at each statement
instance set, where the statement (or copy, sync, transfer) is resolved into a
`Call` of isl AST expressions in the generated loop iterators, and before and
after each kernel mark, where the kernel's AST (the mark's child) is taken out
as a `Launch`, with its grid sized from the host loops around it.

The callbacks run under a guard: an exception inside an isl callback corrupts
the heap. If isl fails to build the AST (its generator has failed an internal
check on unrolled loops under contexts with existentials, fuzz 6:66), it is
built again with no loop unrolled: the same code, as loops. If isl's generator
then fails on pieces of a loop's range that it cannot order ("input involves
unknown divs", `with_atomic_fallback`), the loops are generated atomically.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypeVar

import islpy as isl
from pycparser import c_ast

from ..diagnostics import CompileError
from ..extract.model import Access, Scop
from ..isl_budget import LIMITS, OutOfOperations, bounded, is_operation_limit
from ..isl_context import CallbackGuard, sets_of, statement_names, without_params
from ..isl_workarounds import constant_like, anchored_leaves, iterator_ids, params_as_dims
from ..memory import (ArrayGroup, KernelMemory, MemoryPlan, NeighbourShuffle, copy_statement, orders_global_memory,
                      reduction_statement, reduction_steps, transfer_statement)
from ..memory.launch_buffers import launch_level
from ..schedule.gpu import GpuSchedule, Kernel
from ..schedule.plan import ScheduledScop
from ..schedule.gpu.device_loops import DEVICE_LOOP, FUSED_KERNELS, HYBRID_LAUNCH
from .statements import printed_tags

NT = isl.schedule_node_type
T = TypeVar("T")


@dataclass(frozen=True)
class Subscript:
    """An element: of a kernel buffer (`buffer`, indexed as is), of a device array
    (indexed by array subscripts, linearized when printed), or of the host's variable
    (`host`: the program's own array or scalar, in host code, or a host scalar as a
    kernel's argument)."""

    name: str
    indices: tuple[isl.AstExpr | c_ast.Node, ...]   # a C node: a source's subscript (Access.subscripts)
    buffer: bool = False
    host: bool = False


@dataclass(frozen=True)
class Ownership:
    """`(value - id) % size == 0`: a block-mapped tile value is one of this block's
    (id a block id, size the grid), a thread-mapped point value one of this thread's
    (id a thread id, size the block). Printed around a kernel's statements and copies
    where the loops do not make it evident (see `ownership`)."""

    value: isl.AstExpr
    id: str
    size: int


@dataclass(frozen=True)
class LaneShuffle:
    """A row of neighbours passed between lanes (memory/shuffles.py): each lane loads
    `base` into the register of offset 0; the register of offset d gets the element of
    the lane d places along its segment of `width` lanes (its position there is thread
    x, `lane`, modulo the width), or, where that lane is outside the segment, the lane
    loads `direct[d]` itself. `tags` names the register each reference reads."""

    element_type: str
    lane: str
    block_x: int
    width: int
    base: Subscript
    registers: tuple[tuple[int, str], ...]
    direct: tuple[tuple[int, Subscript], ...]
    tags: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class StatementCall:
    statement: str
    iterators: dict[str, isl.AstExpr]       # each original loop iterator in the generated ones
    references: dict[str, Subscript]        # each reference (by tag) as an element
    owned: tuple[Ownership, ...] = ()
    # where the leaf runs whole tiles: rows of neighbours passed between lanes (printed
    # where the loops make every ownership check evident: no lane skips the shuffles)
    shuffles: tuple[LaneShuffle, ...] = ()


@dataclass(frozen=True)
class CopyCall:
    target: Subscript
    source: Subscript
    owned: tuple[Ownership, ...] = ()


@dataclass(frozen=True)
class SyncCall:
    """A barrier of the block's threads; `global_memory`: it orders their global memory
    accesses too (OpenCL says so; CUDA's `__syncthreads()` always does)."""

    global_memory: bool = False


@dataclass(frozen=True)
class ReductionCall:
    """A step of a reduction's combination over thread x (memory/tree.py `_combination`):
    `init` the thread's partial, `store` it in the shared buffer, `step` one level of
    the tree (`stride`), `final` the fold of the row's sum into `target`; spread over
    blocks, `blocks` the combination of the blocks' sums into `target` instead."""

    step: str
    partial: str                      # the thread's register (a one-element buffer)
    partials: str                     # the shared buffer, one partial per thread
    rank: int
    op: str
    element_type: str
    threads: tuple[str, ...]          # thread ids, outermost first (the last is x)
    block: tuple[int, ...]
    stride: int = 0
    target: Subscript | None = None
    owned: tuple[Ownership, ...] = ()
    warp: int = 0                     # lanes whose partials shuffles add before `store` (CUDA)
    blocks: str = ""                  # spread over blocks: "ordered" or "atomic" (memory/groups.py)
    block_id: str = ""                # spread over blocks: the block id along the reduction
    block_partials: str = ""          # spread over blocks: the device buffer of the blocks' sums
    blocks_done: str = ""             # spread over blocks: the count of blocks that stored theirs


@dataclass(frozen=True)
class TransferCall:
    array: str
    to_device: bool
    sync: str | None = None     # a copy around a host statement between kernels (memory/host_syncs.py)


Call = StatementCall | CopyCall | SyncCall | TransferCall | ReductionCall


@dataclass(frozen=True)
class Launch:
    """A kernel launch at one mark of the host AST, with the kernel's AST there."""

    kernel: Kernel
    body: isl.AstNode
    grid: tuple[isl.AstExpr | int, ...]   # blocks per mapped dimension, outermost first
    at_least_one: tuple[bool, ...]        # whether a grid size must be printed as max(1, .)
    guard: isl.AstExpr                    # where the launch has instances, beyond the host guards
    # the host loop iterators around the launch, which the kernel's AST may use: passed
    # as they are (isl may scale a strided loop: its iterator is then not the schedule's value)
    host_iterators: tuple[str, ...] = ()


@dataclass
class ScopAst:
    """The AST of a SCoP: user nodes are annotated with the key of their call,
    kernel marks with the key of their launch."""

    scop: Scop
    root: isl.AstNode
    calls: dict[str, Call] = field(default_factory=dict)
    launches: dict[str, Launch] = field(default_factory=dict)
    blocks: dict = field(default_factory=dict)  # the C target's register blocks, by mark annotation
    warnings: tuple[str, ...] = ()              # what the AST stage had to give up (C target)
    # by kernel: the ASTs of the loads and of the stores of its launch's buffers (either
    # None), printed before and after the launch's steps (memory/tree.py `launch_copies`)
    launch_copies: dict[str, tuple[isl.AstNode | None, isl.AstNode | None]] = field(default_factory=dict)
    # by the annotation of such a launch's mark: the values of the loops around it that the
    # copies use, by name (`_outer_values`)
    launch_values: dict[str, tuple[tuple[str, isl.AstExpr], ...]] = field(default_factory=dict)


def build_ast(scheduled: GpuSchedule, memory: MemoryPlan) -> ScopAst:
    """The SCoP's AST; built again without unrolling if isl fails on it, or if the
    first leaves leave instances out (`lost_instances`), and InstancesLost if those do too.
    A tree that unrolls no loop is built once: a second build would be the same one
    (jacobi-2d's split tiles, --hybrid, ran 1.4 s into the first build's bound)."""
    schedule = memory.schedule
    builder = _AstBuilder(scheduled, memory)
    if _unrolls(schedule.get_root()):
        try:
            result = bounded(scheduled.scop.ctx, LIMITS.scop_ast, lambda: builder.run(schedule))
            if not lost_instances(scheduled.scop, builder.reached, scheduled.kernels):
                return result
        except OutOfOperations:
            pass
        except isl.Error as exc:
            if is_operation_limit(exc):     # the step's bound (--isl-max-operations), not this one
                raise
    result = with_atomic_fallback(builder.run, without_unrolling(schedule), scheduled.scop)
    if lost_instances(scheduled.scop, builder.reached, scheduled.kernels):
        raise InstancesLost(f"isl's AST generator left statement instances out of the code of the SCoP of "
                            f"'{scheduled.scop.function}' (an isl bug)")
    return result


class InstancesLost(Exception):
    """isl's AST generator made no leaf for some instances of the SCoP."""


def lost_instances(scop: Scop, reached: list[isl.UnionSet], kernels: tuple[Kernel, ...] = ()) -> bool:
    """Whether some instance of the SCoP (within its context) is in no leaf that isl's
    AST generator made (`reached`: each leaf's domain, what isl itself believes it
    generated there). isl 0.27 (islpy 2026.2) has been seen to drop instances from a
    tiled band's loop bounds: fuzz 2818:155, `B[j][k / 2] = ...` in tiles of 2 x 2 on
    the C target, four instances of 3,234 never ran.

    A kernel's leaves hold the instances of one block and thread (their ids are
    parameters): each of `kernels` is checked thread by thread, the instances each
    block and thread owns against the leaves at those ids; the rest against the host's
    leaves, and the leaves of kernels not given over all their threads (`_over_threads`,
    whose projections cost fdtd-2d's isolated tiles 33 s where the check by thread
    takes 0.04 s)."""
    params = {scop.domain.get_space().get_dim_name(isl.dim_type.param, k)
              for k in range(scop.domain.get_space().dim(isl.dim_type.param))}
    rest = scop.domain.intersect_params(scop.context)
    for kernel in kernels:
        names = statement_names(kernel.domain)
        leaves = [part for part in reached if statement_names(part) & names]
        if not _left_out(kernel.instances_by_thread().intersect_params(scop.context), leaves).is_empty():
            return True
        rest = rest.subtract(kernel.domain)
    for part in reached:
        if rest.is_empty():
            return False
        rest = rest.subtract(_over_threads(part, params))
    return not rest.is_empty()


def _left_out(instances: isl.UnionSet, leaves: list[isl.UnionSet]) -> isl.UnionSet:
    """What of `instances` no leaf holds: the leaves subtracted one at a time until
    nothing is left. isl's subset test against their union took minutes on the kernels
    of split tiles (fdtd-2d --hybrid: every leaf's constraints hold divisions), where
    this takes 0.03 s."""
    rest = instances
    for leaf in leaves:
        if rest.is_empty():
            break
        rest = rest.subtract(leaf)
    return rest


def _over_threads(instances: isl.UnionSet, params: set[str]) -> isl.UnionSet:
    """A kernel leaf's instances over all blocks and threads: its parameters that are not
    the SCoP's (the block and thread ids, `b0`, `t0`) projected out."""
    space = instances.get_space()
    return without_params(instances, [space.get_dim_name(isl.dim_type.param, k)
                                      for k in range(space.dim(isl.dim_type.param))
                                      if space.get_dim_name(isl.dim_type.param, k) not in params])


UNORDERED_PIECES = "input involves unknown divs"


def with_atomic_fallback(build: Callable[[isl.Schedule], T], schedule: isl.Schedule, scop: Scop) -> T:
    """`build(schedule)`; where isl's AST generator fails with "input involves unknown
    divs", or with no message at all (fuzz 2618:135, the same shape: a reversed loop
    under `2i <= n`, `2i <= m` and `i == m - 1` guards), `build` again with every loop
    of the default type generated atomically (`atomic_loops`); where that fails too, a
    located error. `build` starts afresh
    each time (its callbacks may have run on the failed attempt).

    The failure is an isl bug (docs/isl-notes.md). Generating a loop, isl splits its
    range into pieces, one per set of statements that run there, and orders them;
    pieces whose order depends on the parameters (A before B for some values, B
    before C and C before A for others: fuzz 2612:365, the original schedule of a
    reversed loop with `2i <= m`, `2i > m` and `2j < p` guards) form a cycle, which
    `add_split_on` (isl_ast_codegen.c) splits by projecting one piece onto another.
    The projection can leave an existential variable that has no expression (an
    "unknown div": `exists e0: -m <= 2e0 <= -6 - p`), and the loop's bounds then
    reach `isl_basic_set_get_constraint_list`, which refuses them. The existential
    is isl's own, made during generation: no exact simplification of the domains
    removes the cause (coalescing, equalities, redundancies, computed divs and a
    flattened schedule all fail alike). An atomic loop is generated from one domain
    per set of statements, the conditions that set them apart inside the loop
    rather than around separate copies of it: the same instances in the same
    order, with far fewer pieces for isl to order (enough for 2612:365).
    That is not a guarantee, hence the error after it."""
    try:
        return build(schedule)
    except isl.Error as exc:
        if not _unordered_pieces(exc):
            raise
    try:
        return build(atomic_loops(schedule))
    except isl.Error as exc:
        if not _unordered_pieces(exc):
            raise
    raise CompileError(f"isl's AST generator failed on the SCoP of '{scop.function}' ({UNORDERED_PIECES}: an isl "
                       "bug that atomic loops did not avoid either; docs/isl-notes.md)",
                       scop.file, scop.start_line, 1) from None


def _unordered_pieces(exc: isl.Error) -> bool:
    """Whether an isl failure of the AST generator is the one atomic loops may avoid
    (callbacks' own exceptions are raised before: `ast_from_tree`)."""
    return UNORDERED_PIECES in str(exc) or "no message" in str(exc)


def atomic_loops(schedule: isl.Schedule) -> isl.Schedule:
    """The same tree with every band member of the default loop type generated atomically
    (those unrolled or separated keep their type)."""
    def atomic(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == NT.band:
            for k in range(node.band_n_member()):
                if node.band_member_get_ast_loop_type(k) == isl.ast_loop_type.default:
                    node = node.band_member_set_ast_loop_type(k, isl.ast_loop_type.atomic)
        return node
    return schedule.map_schedule_node_bottom_up(atomic)


def _unrolls(node: isl.ScheduleNode) -> bool:
    """Whether a band member at or below `node` is generated unrolled."""
    if node.get_type() == NT.band and any(node.band_member_get_ast_loop_type(k) == isl.ast_loop_type.unroll
                                          for k in range(node.band_n_member())):
        return True
    return any(_unrolls(node.child(k)) for k in range(node.n_children()))


def without_unrolling(schedule: isl.Schedule) -> isl.Schedule:
    """The same tree with every band's loops generated as loops."""
    def plain(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == NT.band:
            for k in range(node.band_n_member()):
                if node.band_member_get_ast_loop_type(k) == isl.ast_loop_type.unroll:
                    node = node.band_member_set_ast_loop_type(k, isl.ast_loop_type.default)
        return node
    return schedule.map_schedule_node_bottom_up(plain)


def ast_from_tree(scheduled: ScheduledScop, schedule: isl.Schedule, at_domain, before_mark=None,
                  after_mark=None, *, launches: bool = False, context: isl.Set | None = None,
                  first_iterator: int = 0) -> isl.AstNode:
    """isl's AST of `schedule`, with its leaves anchored (`isl_workarounds.anchored_leaves`),
    the loops named from `scheduled.names`, and the callbacks run under a guard (an
    exception inside an isl callback corrupts the heap: it is raised again here).

    isl keeps the instances that share the outer loop values in one place
    (ast_build_group_coscheduled): a launch runs every instance of its kernel at its host
    values, so a kernel mark generated twice for the same values runs them twice
    (regression `coscheduled_statements_launched_twice`). PPCG leaves the option off
    below the marks, where grouping prints a statement that runs at one value of an
    inner loop (gemm's `C[i][j] *= beta`, at k = 0) inside that loop under a guard;
    turning it off inside kernels gave fuzz 2511:475 a loop bound that ran for ever
    (regression `kernel_bound_without_grouping`), so it stays on for the whole build of
    code with launches until that is understood; the kernels' statements at one value
    of an inner loop are put apart by the schedule instead
    (`schedule.distribute.statements_apart`). Code without launches (the C target)
    builds with it off, as PPCG.

    `context` replaces the SCoP's where more is known (a launch's copies: the ids'
    ranges); the loops are named from the iterator `first_iterator` on."""
    scop = scheduled.scop
    guard = CallbackGuard()
    build = isl.AstBuild.from_context(scop.context if context is None else context)
    build = build.set_iterators(iterator_ids(scop.ctx, scheduled.names.iterators(64 + first_iterator)[first_iterator:]))
    handles = []
    build, handle = build.set_at_each_domain(guard.wrap(at_domain, lambda node, _b: node))
    handles.append(handle)
    if before_mark is not None:
        build, handle = build.set_before_each_mark(guard.wrap(before_mark, lambda _id, _b: None))
        handles.append(handle)
    if after_mark is not None:
        build, handle = build.set_after_each_mark(guard.wrap(after_mark, lambda node, _b: node))
        handles.append(handle)
    previous = scop.ctx.get_ast_build_group_coscheduled()
    scop.ctx.set_ast_build_group_coscheduled(int(launches))
    try:
        root = build.node_from_schedule(anchored_leaves(schedule))
    except isl.Error:
        guard.reraise()     # a callback's own exception, not isl's
        raise
    finally:
        scop.ctx.set_ast_build_group_coscheduled(previous)
    guard.reraise()
    del handles
    return root


class _AstBuilder:
    def __init__(self, scheduled: GpuSchedule, memory: MemoryPlan) -> None:
        self.scheduled, self.memory = scheduled, memory
        self.scop = scheduled.scop
        self.kernels = {k.name: k for k in scheduled.kernels}
        self.statements = {s.name: s for s in self.scop.statements}
        self.copies: dict[str, tuple[ArrayGroup, bool]] = {}
        self.reductions: dict[str, tuple[ArrayGroup, str, str]] = {}
        for kmem in memory.kernels:
            for g in kmem.groups:
                if g.placement == "reduction":
                    block_x = self.kernels[kmem.kernel].sizes.block[-1]
                    last = "blocks" if g.blocks else "final"
                    for step in ("init", "store", last, *(f"step{s}" for s in reduction_steps(g, block_x))):
                        self.reductions[reduction_statement(kmem.kernel, g, step)] = (g, kmem.kernel, step)
                elif g.placement != "global":
                    self.copies[copy_statement(kmem.kernel, g, read=True)] = (g, True)
                    self.copies[copy_statement(kmem.kernel, g, read=False)] = (g, False)
        self.transfers = {transfer_statement(d.array.name, to_device=way): TransferCall(d.array.name, way)
                          for d in memory.arrays for way in (True, False)}
        self.transfers.update({s.name: TransferCall(s.device.array.name, s.to_device, s.name) for s in memory.syncs})
        self.kernel: KernelMemory | None = None
        self.result: ScopAst | None = None
        self.reached: list[isl.UnionSet] = []   # the instances of the SCoP's statements at each leaf

    def run(self, schedule: isl.Schedule) -> ScopAst:
        self.result = ScopAst(self.scop, None)  # type: ignore[arg-type]
        self.reached = []
        self.kernel = None      # a first build given up inside a kernel left its kernel here
        root = ast_from_tree(self.scheduled, schedule, self._at_domain, self._before_mark, self._after_mark,
                             launches=True)
        self.result.root = root
        for key, iterators in _iterators_around_marks(root).items():
            self.result.launches[key] = replace(self.result.launches[key], host_iterators=iterators)
        for memory in self.memory.kernels:
            if memory.launch_loads is not None or memory.launch_stores is not None:
                self.result.launch_copies[memory.kernel] = (self._launch_copies(memory, memory.launch_loads),
                                                            self._launch_copies(memory, memory.launch_stores))
        return self.result

    def _launch_copies(self, memory: KernelMemory, schedule: isl.Schedule | None) -> isl.AstNode | None:
        """The AST of a launch's loads or stores (memory/tree.py `launch_copies`): the
        values of the loops outside its steps (c0..) and the ids are parameters, the ids
        in their ranges; the loops over elements are named after those outer loops."""
        if schedule is None:
            return None
        kernel = self.kernels[memory.kernel]
        ids = kernel.id_ranges()
        context = self.scop.context.align_params(ids.get_space()).intersect(ids.align_params(
            self.scop.context.get_space()))
        self.kernel = memory
        try:
            return ast_from_tree(self.scheduled, schedule, self._at_domain, context=context,
                                 first_iterator=launch_level(kernel))
        finally:
            self.kernel = None

    # -- callbacks --------------------------------------------------------
    def _before_mark(self, mark: isl.Id, build: isl.AstBuild) -> None:
        if not in_one_block(mark.get_name()):   # a one-block launch's mark holds kernels' marks
            self.kernel = self.memory.kernel(mark.get_name())

    def _after_mark(self, node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        """Each mark gets its own launch: isl may generate one kernel's mark several
        times (once per branch of a host guard), with other host values each time."""
        self.kernel = None
        name = node.mark_get_id().get_name()
        if in_one_block(name):                  # printed by codegen/device_loop.py: its kernels are inside
            kernel = self._with_launch_copies(name)
            if kernel is None:
                return node.set_annotation(isl.Id(name, context=self.scop.ctx))
            key = f"{name}@{len(self.result.launch_values)}"    # each place isl prints it
            self.result.launch_values[key] = _outer_values(kernel, build, self.scheduled.names.iterator)
            return node.set_annotation(isl.Id(key, context=self.scop.ctx))
        kernel = self.kernels[name]
        key = f"{kernel.name}@{len(self.result.launches)}"
        outer = build.get_schedule().intersect_domain(kernel.domain)  # the instances launched here
        grid, at_least_one = _grid(kernel, outer, build)
        self.result.launches[key] = Launch(kernel, node.mark_get_node(), grid, at_least_one,
                                           _launch_guard(outer, build))
        return node.set_annotation(isl.Id(key, context=self.scop.ctx))

    def _at_domain(self, node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        schedule = isl.Map.from_union_map(build.get_schedule())
        name = schedule.get_tuple_name(isl.dim_type.in_)
        instance = isl.PwMultiAff.from_map(schedule.reverse())
        if name in self.statements:
            self.reached.append(build.get_schedule().domain())
            call = self._statement(name, instance, build)
        elif name in self.copies:
            call = self._copy(*self.copies[name], instance, build)
        elif name in self.reductions:
            call = self._reduction(*self.reductions[name], instance, build)
        elif name in self.transfers:
            call = self.transfers[name]
        else:
            call = SyncCall(orders_global_memory(name))
        key = f"call{len(self.result.calls)}"
        self.result.calls[key] = call
        return node.set_annotation(isl.Id(key, context=self.scop.ctx))

    def _with_launch_copies(self, launch: str) -> Kernel | None:
        """The kernel of a one-block launch whose buffers it copies around its steps."""
        return next((self.kernels[m.kernel] for m in self.memory.kernels
                     if (m.launch_loads is not None or m.launch_stores is not None)
                     and self.kernels[m.kernel].launched_in == launch), None)

    # -- calls ------------------------------------------------------------
    def _statement(self, name: str, instance: isl.PwMultiAff, build: isl.AstBuild) -> StatementCall:
        stmt = self.statements[name]
        kernel = self.kernels[self.kernel.kernel] if self.kernel is not None else None
        groups = {tag: g for g in self.kernel.groups if g.placement != "global" for tag in g.refs} \
            if self.kernel is not None else {}
        iterators = {it: build.expr_from_pw_aff(instance.get_pw_aff(k)) for k, it in enumerate(stmt.iterators)}
        # the outer loop values (host, then tile) of this instance, from its kernel
        outer = _values_at(instance, kernel.outer_schedule) if kernel is not None and kernel.thread_ids else None
        references = {}
        printed = printed_tags(stmt.body, stmt.accesses) if stmt.calls else None
        firsts: dict[int, isl.PwMultiAff] = {}     # the outer values at each buffer's level, asked once
        for acc in stmt.accesses:
            if printed is not None and acc.tag not in printed:
                continue
            if acc.array in self.scheduled.host_scalars:
                references[acc.tag] = Subscript(acc.array, (), host=True)
                continue
            if not acc.exact:   # its group stays in global memory
                references[acc.tag] = Subscript(acc.array, source_indices(acc, instance, build), host=kernel is None)
                continue
            index = isl.PwMultiAff.from_map(acc.index).pullback_pw_multi_aff(instance)
            elements = [index.get_pw_aff(k) for k in range(index.dim(isl.dim_type.out))]
            if kernel is None:      # host code (the SCoP's head or tail): the host's own variables
                references[acc.tag] = Subscript(acc.array, tuple(build.expr_from_pw_aff(e) for e in elements),
                                                host=True)
                continue
            group = groups.get(acc.tag)
            references[acc.tag] = Subscript(acc.array, tuple(build.expr_from_pw_aff(e) for e in elements)) \
                if group is None else _in_buffer(group, elements, _cached(firsts, group.level, outer), build,
                                                 self.scheduled.names.iterator)
        owned = _ownership(kernel, outer, kernel.depth, build, _values_at(instance, kernel.inner_schedule)) \
            if outer is not None else ()
        rows = [r for r in self.kernel.shuffles if r.statement == name] if self.kernel is not None else []
        shuffles = _lane_shuffles(rows, kernel, references, build) if rows and outer is not None else ()
        return StatementCall(name, iterators, references, owned, shuffles)

    def _copy(self, group: ArrayGroup, read: bool, instance: isl.PwMultiAff, build: isl.AstBuild) -> CopyCall:
        """K_read_G[c0, .., e..]: the outer loop values are the instance's first dimensions."""
        first = instance.dim(isl.dim_type.out) - group.rank    # none in a launch's copies: parameters
        elements = [instance.get_pw_aff(first + k) for k in range(group.rank)]
        outer = isl.Map.from_pw_multi_aff(instance)
        local = _in_buffer(group, elements, _first(outer, first), build, self.scheduled.names.iterator)
        array = Subscript(group.array, tuple(build.expr_from_pw_aff(e) for e in elements))
        owned = _ownership(self.kernels[self.kernel.kernel], outer, first, build)
        return CopyCall(local, array, owned) if read else CopyCall(array, local, owned)


    def _reduction(self, group: ArrayGroup, kernel_name: str, step: str, instance: isl.PwMultiAff,
                   build: isl.AstBuild) -> ReductionCall:
        kernel = self.kernels[kernel_name]
        call = ReductionCall(step.rstrip("0123456789"), group.name, group.partials, group.rank, group.reduction,
                             group.element_type, kernel.thread_ids, kernel.sizes.block,
                             int(step[4:]) if step.startswith("step") else 0, warp=group.warp,
                             blocks=group.blocks, block_id=kernel.block_ids[0] if group.blocks else "",
                             block_partials=group.block_partials(kernel_name),
                             blocks_done=group.blocks_done(kernel_name))
        if step not in ("final", "blocks"):
            return call
        copy = self._copy(group, False, instance, build)    # the location, as a copy back would write it
        return replace(call, target=copy.target, owned=copy.owned)


def _outer_values(kernel: Kernel, build: isl.AstBuild, prefix: str) -> tuple[tuple[str, isl.AstExpr], ...]:
    """At a launch of split tiles with buffers, the values of the loops outside its steps'
    loop (c0 .. ), which its copies use, each by its name and as an expression of the
    host code there. isl drops a loop of one value (the expression is then that value);
    a loop whose iterator is not its value (isl numbers a strided loop's iterations:
    memory/launch_buffers.py admits none) would give its name two meanings."""
    depth = launch_level(kernel)
    here = build.get_schedule().intersect_domain(kernel.domain)
    values = isl.Map.from_union_map(here.reverse().apply_range(kernel.host_schedule))
    values = isl.PwMultiAff.from_map(values.project_out(isl.dim_type.out, depth, 1))
    found = []
    for k in range(depth):
        name, value = f"{prefix}{k}", build.expr_from_pw_aff(values.get_pw_aff(k))
        if re.search(rf"\b{name}\b", value.to_C_str()) and value.to_C_str() != name:
            raise RuntimeError(f"the loop around a launch with buffers at depth {k} runs {name} for the value "
                               f"{value.to_C_str()}")
        found.append((name, value))
    return tuple(found)


def _lane_shuffles(rows: list[NeighbourShuffle], kernel: Kernel, references: dict[str, Subscript],
                   build: isl.AstBuild) -> tuple[LaneShuffle, ...]:
    """The rows' shuffles at this leaf, if it runs whole tiles (`whole_tiles`), else none."""
    rows = [row for row in rows if all(tag in references for tag, _ in row.offsets)]    # a call's arguments
    if not rows or not whole_tiles(kernel, build.get_schedule().domain()):
        return ()
    return tuple(LaneShuffle(row.element_type, kernel.thread_ids[-1], kernel.sizes.block[-1], row.width,
                             references[row.base], row.registers,
                             tuple((d, references[next(t for t, e in row.offsets if e == d)])
                                   for d, _ in row.registers if d),
                             tuple((tag, row.register(d)) for tag, d in row.offsets))
                 for row in rows)


def whole_tiles(kernel: Kernel, instances: isl.UnionSet) -> bool:
    """Whether every thread runs `instances` (of one statement, at one leaf of a kernel's
    AST) at the same outer loop values and at the same points relative to its own thread
    ids: then every lane of a warp runs the leaf as often as the others, each time at
    the point next to its neighbour's (memory/shuffles.py). True of whole tiles (the
    points `t, t + block, ..` of each), also where the point loops are unrolled (one
    leaf per point of the thread); false of partial tiles, whose last points some
    threads do not have."""
    if len(sets_of(instances)) != 1:
        return False
    points = kernel.point_values(instances)
    if points is None or points.is_empty():
        return False
    values = points.range()
    relative = values.apply(_relative_to_threads(kernel, values.dim(isl.dim_type.set) - kernel.n_tile)
                            .align_params(values.get_space()))
    ranges = kernel.id_ranges(blocks=False)
    relative = relative.align_params(ranges.get_space())
    ranges = ranges.align_params(relative.get_space())
    free = without_params(relative, kernel.thread_ids).align_params(relative.get_space())
    return free.intersect_params(ranges).is_equal(relative.intersect_params(ranges))


def _relative_to_threads(kernel: Kernel, depth: int) -> isl.Map:
    """`[t..] -> { [outer.., p..] -> [outer.., p - t..] }` (thread-mapped points less the thread ids)."""
    outer = [f"o{k}" for k in range(depth)]
    points = [f"p{k}" for k in range(kernel.n_tile)]
    moved = [f"{p} - {t}" for p, t in zip(points, kernel.thread_ids)] + points[len(kernel.thread_ids):]
    return isl.Map.read_from_str(kernel.domain.get_ctx(), f"[{', '.join(kernel.thread_ids)}] -> "
                                 f"{{ [{', '.join(outer + points)}] -> [{', '.join(outer + moved)}] }}")


def source_indices(acc: Access, instance: isl.PwMultiAff, build: isl.AstBuild) -> tuple:
    """The indices of an over-approximated reference: the source's subscript where
    the model has one, isl's expression of the dimensions the relation gives exactly."""
    indices: list[isl.AstExpr | c_ast.Node] = []
    n = acc.index.dim(isl.dim_type.out)
    for k, subscript in enumerate(acc.subscripts):
        if subscript is None:
            dim = acc.index.project_out(isl.dim_type.out, k + 1, n - k - 1).project_out(isl.dim_type.out, 0, k)
            subscript = build.expr_from_pw_aff(isl.PwMultiAff.from_map(dim).pullback_pw_multi_aff(instance)
                                               .get_pw_aff(0))
        indices.append(subscript)
    return tuple(indices)


def _values_at(instance: isl.PwMultiAff, schedule: isl.UnionMap) -> isl.Map:
    """Schedule -> the values `schedule` gives the instance executed there."""
    at = isl.Map.from_pw_multi_aff(instance)
    return at.apply_range(isl.Map.from_union_map(schedule.intersect_domain(isl.UnionSet.from_set(at.range()))))


def _ownership(kernel: Kernel, outer: isl.Map, known: int, build: isl.AstBuild,
               inner: isl.Map | None = None) -> tuple[Ownership, ...]:
    """The block ownership of the tiles among the first `known` outer values (host
    dimensions, then the tile dimensions whose first ones are block-mapped), and, given
    the `inner` values (point dimensions first), the thread ownership of the points."""
    values = isl.PwMultiAff.from_map(outer)
    blocks = tuple(Ownership(build.expr_from_pw_aff(values.get_pw_aff(kernel.host_depth + k)), block, grid)
                   for k, (block, grid) in enumerate(zip(kernel.block_ids, kernel.sizes.grid))
                   if kernel.host_depth + k < known)
    if inner is None:
        return blocks
    points = isl.PwMultiAff.from_map(inner)
    return blocks + tuple(Ownership(build.expr_from_pw_aff(points.get_pw_aff(k)), thread, size)
                          for k, (thread, size) in enumerate(zip(kernel.thread_ids, kernel.sizes.block)))


def _cached(firsts: dict[int, isl.PwMultiAff], count: int, values: isl.Map) -> isl.PwMultiAff:
    """`_first(values, count)`, kept in `firsts` (one statement's references share it)."""
    if count not in firsts:
        firsts[count] = _first(values, count)
    return firsts[count]


def _first(values: isl.Map, count: int) -> isl.PwMultiAff:
    """Schedule -> the first `count` values of `values` (an anonymous tuple)."""
    n = values.dim(isl.dim_type.out)
    return isl.PwMultiAff.from_map(values.project_out(isl.dim_type.out, count, n - count)
                                   .reset_tuple_id(isl.dim_type.out))


def _in_buffer(group: ArrayGroup, elements: list[isl.PwAff], outer: isl.PwMultiAff, build: isl.AstBuild,
               prefix: str) -> Subscript:
    return Subscript(group.name, tuple(build.expr_from_pw_aff(_local_index(e, dim, outer, prefix))
                                       for e, dim in zip(elements, group.box)), buffer=True)


def _local_index(element: isl.PwAff, dim, outer: isl.PwMultiAff, prefix: str) -> isl.PwAff:
    """The position of an element in a buffer: (e - offset) / stride - lower, as isl
    sees it (so that with unrolled loops it prints as a constant).

    The box's bounds are in the outer loop values c0.. as parameters; `outer` gives
    those values at this point of the AST. (Not the first dimensions of the schedule
    space: isl's AST build drops a dimension with a single value, a host loop
    `c1 = 0`, from the schedule it reports.)"""
    names = [f"{prefix}{k}" for k in range(outer.dim(isl.dim_type.out))]

    def lifted(pa: isl.PwAff) -> isl.PwAff:
        pa = params_as_dims(pa, names, isl.dim_type.in_)
        values = outer.align_params(pa.get_space())
        return pa.align_params(values.get_space()).pullback_pw_multi_aff(values)

    lower = lifted(dim.lower)
    element = element.align_params(lower.get_space())
    position = element
    if dim.stride > 1:
        position = element.sub(lifted(dim.offset).align_params(element.get_space())) \
            .scale_down_val(isl.Val(dim.stride, element.get_ctx())).floor()
    return position.sub(lower.align_params(position.get_space())).coalesce()


# -- launches -----------------------------------------------------------------
def in_one_block(mark: str) -> bool:
    """Whether a mark of the host AST is one launch of one block that runs the kernels
    below it: a device loop's, or consecutive kernels' (schedule/gpu/device_loops.py)."""
    return mark.startswith((DEVICE_LOOP, FUSED_KERNELS, HYBRID_LAUNCH))


def control_children(node: isl.AstNode) -> list[isl.AstNode]:
    """The nodes right below a block, a for loop (its body) or an if (its branches) of
    isl's AST; none below any other node."""
    kind = node.get_type()
    if kind == isl.ast_node_type.block:
        children = node.block_get_children()
        return [children.get_at(k) for k in range(children.n_ast_node())]
    if kind == isl.ast_node_type.for_:
        return [node.for_get_body()]
    if kind == isl.ast_node_type.if_:
        return [node.if_get_then_node()] + ([node.if_get_else_node()] if node.if_has_else_node() else [])
    return []


def loop_iterator(node: isl.AstNode) -> str | None:
    """The iterator of a for loop of isl's AST (None for another node)."""
    return node.for_get_iterator().get_id().get_name() if node.get_type() == isl.ast_node_type.for_ else None


def _iterators_around_marks(root: isl.AstNode) -> dict[str, tuple[str, ...]]:
    """For each kernel mark (by its annotation), the iterators of the loops around it."""
    found: dict[str, tuple[str, ...]] = {}

    def walk(node: isl.AstNode, around: tuple[str, ...]) -> None:
        if node.get_type() == isl.ast_node_type.mark:
            if in_one_block(node.mark_get_id().get_name()):
                walk(node.mark_get_node(), around)
            else:
                found[node.get_annotation().get_name()] = around
            return
        iterator = loop_iterator(node)
        for child in control_children(node):
            walk(child, around + ((iterator,) if iterator else ()))
    walk(root, ())
    return found


def _launch_guard(outer: isl.UnionMap, build: isl.AstBuild) -> isl.AstExpr:
    """The host values at which the kernel has instances, as far as the host code has
    not checked them: launched where it has none, the grid of an empty tile range
    is 0 blocks, which CUDA rejects."""
    where = isl.Set.from_union_set(outer.range()).coalesce()
    return build.expr_from_set(where)


def _grid(kernel: Kernel, outer: isl.UnionMap, build: isl.AstBuild):
    """Blocks per dimension: min(grid size, tiles), when the tile range starts at 0."""
    if kernel.block_schedule is None:
        return (), ()
    tiles = isl.Map.from_union_map(outer.reverse().apply_range(kernel.block_schedule))
    grid, at_least_one = [], []
    for k, limit in enumerate(kernel.sizes.grid):
        lowest = tiles.dim_min(k)
        if not lowest.nonneg_set().is_equal(lowest.domain()):
            grid.append(limit)
            at_least_one.append(False)
            continue
        count = tiles.dim_max(k).add(constant_like(lowest, 1))
        count = count.min(constant_like(lowest, limit)).coalesce()
        # At least one block, written outside isl: isl simplifies the count under what
        # it believes the host code checks, but it may leave that check inside the mark
        # (docs/isl-notes.md), and a launch there (no tiles, so nothing to lose) with
        # 0 blocks is invalid. Where the kernel has tiles, the count is exact.
        expr = build.expr_from_pw_aff(count)
        grid.append(expr)
        at_least_one.append(expr.get_type() != isl.ast_expr_type.int)
    return tuple(grid), tuple(at_least_one)


def dump(ast: ScopAst) -> str:
    """The AST as isl prints it, kernels in place (--dump-after=ast)."""
    text = ast.root.to_C_str()
    return re.sub(r"\n{3,}", "\n\n", text)
