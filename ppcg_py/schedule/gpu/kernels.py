"""Split a schedule tree into host code and kernels; tile and map each kernel.

Each outermost band with a coincident leading member becomes a kernel: the band
is tiled, up to two tile loops are mapped to blocks and up to three point loops
to threads (filters `T mod grid = b`, `P mod block = t`, so loops wrap when the
grid or block is smaller than the iteration space). Sequential loops above a
kernel stay on the host. A subtree without any parallelism becomes a kernel run
by a single thread, unless it is the serial head or tail of the SCoP (host.py),
which the host runs. Each kernel's root is marked `kernelN`.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import islpy as isl

from ...isl_context import (band_tiled, band_values, filter_instances, maps_of, node_at, sets_of, statement_names,
                           statements_below, tree_position, union_of)
from ...names import Names
from ...options import Options
from .device_loops import DEVICE_LOOP, FUSED_KERNELS, HYBRID_LAUNCH, device_loop_block, device_loop_sizes, fused_block
from .hybrid import HYBRID_STEPS, HybridTiles
from .device_sizes import DeviceSizing, choose_sizes, fitted_grid, may_start_below_zero, spread_over_blocks
from ..loop_extents import band_extents
from ..distribute import statements_apart
from .reduction_threads import ReducedLocation, distributed_tail, reduction_epilogue, reduction_member
from ..sizes import KernelSizes, given_sizes, kernel_sizes, user_sizes

NT = isl.schedule_node_type
# A reduction between serial statements gets a launch of its own only when it sums at
# least this many values: below, one thread's loop costs less than the extra launches.
_MIN_REDUCTION_THREADS = 128


@dataclass(frozen=True)
class Counted:
    """What counting a kernel's work (schedule/gpu/work.py, the path choice) takes where
    its own instances cost isl too much (the phases of split tiles: divisions in every
    constraint): a superset of them without those, the share of it the kernel runs, and
    the host loop values of its launches."""

    instances: isl.UnionSet
    share: float
    host_schedule: isl.UnionMap


@dataclass(frozen=True)
class Kernel:
    """One kernel: its sizes, its mapped ids and the schedule of what it executes.

    The kernel's schedule is split in two: `outer_schedule` gives each instance its
    host loop values and tile indices (depth `host_depth + n_tile`; the tile loops
    run inside the kernel, the block filter already applied), `inner_schedule` orders
    the instances of one tile (point loops, then the rest). Copies to shared memory
    and barriers go between tile loops, where no thread id can guard them.
    """

    index: int
    sizes: KernelSizes
    block_ids: tuple[str, ...]     # outermost first; the last is blockIdx.x
    thread_ids: tuple[str, ...]    # outermost first; the last is threadIdx.x
    block_schedule: isl.UnionMap | None   # instances -> tile indices of block-mapped loops
    domain: isl.UnionSet
    host_depth: int = 0
    outer_schedule: isl.UnionMap | None = None   # instances -> [host dims, tile dims]
    inner_schedule: isl.UnionMap | None = None   # instances -> [point dims, rest]
    thread_filter: isl.UnionSet | None = None    # instances run by thread (t0, t1, ...)
    point_schedule: isl.UnionMap | None = None   # instances -> untiled band (tile + point)
    host_schedule: isl.UnionMap | None = None    # instances -> host dims (all blocks)
    private: frozenset[str] = frozenset()        # scalars with a copy per thread (schedule/private.py)
    sizes_reason: str = ""                        # how the sizes were chosen for the device (-v)
    reductions: tuple[ReducedLocation, ...] = ()  # combined over thread x (schedule/gpu/reduction_threads.py)
    # instances that read the reductions' results: run after the combination (memory/tree.py)
    epilogue: isl.UnionSet | None = None
    # the reduction member's tiles spread over the blocks too: the blocks' partials are
    # combined after each block's own combination (codegen/reductions.py)
    reduction_over_blocks: bool = False
    # the one-block launch it runs in: a device loop's or fused kernels' (schedule/gpu/device_loops.py)
    launched_in: str | None = None
    counted: Counted | None = None

    @property
    def counted_instances(self) -> isl.UnionSet:
        """The instances counting takes for the kernel's (`Counted`)."""
        return self.domain if self.counted is None else self.counted.instances

    @property
    def counted_share(self) -> float:
        return 1.0 if self.counted is None else self.counted.share

    @property
    def n_tile(self) -> int:
        return len(self.sizes.tile)

    def instances_by_thread(self) -> isl.UnionSet:
        """The instances block `b` and thread `t` run (parameters: the block and thread
        ids, within their ranges): the tiles congruent to `b` modulo the grid, the points
        congruent to `t` modulo the block."""
        ctx = self.domain.get_ctx()
        owned = self.domain
        if self.block_schedule is not None and self.block_ids:
            names = [f"x{k}" for k in range(len(self.block_ids))]
            congruent = " and ".join(f"({x} - {b}) mod {g} = 0"
                                     for x, b, g in zip(names, self.block_ids, self.sizes.grid))
            residue = isl.Set.read_from_str(ctx, f"[{', '.join(self.block_ids)}] -> {{ [{', '.join(names)}] : "
                                                 f"{congruent} }}")
            owned = owned.intersect(self.block_schedule.intersect_range(isl.UnionSet.from_set(residue)).domain())
        if self.thread_filter is not None:
            owned = owned.intersect(self.thread_filter)
        if not self.block_ids + self.thread_ids:
            return owned
        ranges = self.id_ranges()
        owned = owned.align_params(ranges.get_space())
        return owned.intersect_params(ranges.align_params(owned.get_space()))

    def id_ranges(self, *, blocks: bool = True) -> isl.Set:
        """`0 <= b < grid and 0 <= t < block` for each block id (unless not `blocks`) and
        thread id, as a parameter set."""
        ids = (self.block_ids if blocks else ()) + self.thread_ids
        bounds = (self.sizes.grid if blocks else ()) + self.sizes.block
        return id_bounds(self.domain.get_ctx(), ids, bounds)

    def point_values(self, instances: isl.UnionSet) -> isl.Map | None:
        """`S[i..] -> [outer.., points..]` for `instances` of one statement: the values of
        the host and tile loops, then of the point loops (none of the loops below them);
        None where the instances are not of one statement of the kernel."""
        outer = maps_of(self.outer_schedule.intersect_domain(instances))
        inner = maps_of(self.inner_schedule.intersect_domain(instances))
        if len(outer) != 1 or len(inner) != 1 or inner[0].dim(isl.dim_type.out) < self.n_tile:
            return None
        below = inner[0].dim(isl.dim_type.out) - self.n_tile
        return outer[0].flat_range_product(inner[0].project_out(isl.dim_type.out, self.n_tile, below))

    @property
    def depth(self) -> int:
        """Depth of the outer schedule: host loops plus tile loops."""
        return self.host_depth + self.n_tile

    @property
    def name(self) -> str:
        return f"kernel{self.index}"


class KernelMapper:
    def __init__(self, options: Options, sizes: isl.UnionMap | None, names: Names,
                 first_kernel: int = 0, host: frozenset[str] = frozenset(),
                 pinned: frozenset[str] = frozenset(), dependences: isl.UnionMap | None = None,
                 device: DeviceSizing | None = None, reductions: Sequence[ReducedLocation] = (),
                 serial_sums: bool = True, hybrid: tuple[HybridTiles, ...] = ()) -> None:
        self.options, self.sizes, self.names = options, sizes, names
        self.serial_sums = serial_sums    # sums between serial statements get threads (_reduction_band)
        self.device = device              # sizes chosen for the GPU, where the user gave none
        self.reductions = tuple(reductions)   # statements whose partials threads may combine
        self.first = first_kernel
        self.host = host | pinned         # statements that may stay on the host (schedule/gpu/host.py)
        # of those, the ones that must: they call a function only the host has. A subtree
        # that holds one is never a kernel: its loops run on the host, kernels inside
        self.pinned = pinned
        self.dependences = dependences    # between instances: whether a band can be split (_separated)
        self.kernels: list[Kernel] = []
        self.mixed = False                # a leaf held a pinned statement and a device one
        self._reduction_bands: dict[tuple[str, str], bool] = {}
        self._loop_threads: int | None = None   # inside a one-block launch: its threads
        self.hybrid = hybrid              # the split tiles, by their marks' number (schedule/gpu/hybrid.py)
        self._tiled_in_time = frozenset().union(*(statement_names(t.at.domain()) for t in hybrid))
        self._in_hybrid: HybridTiles | None = None    # inside a launch of split tiles: they

    def run(self, schedule: isl.Schedule) -> isl.Schedule:
        return self.visit(schedule.get_root()).get_schedule()

    def visit(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        kind = node.get_type()
        if kind != NT.domain and self._on_host(node):
            return node     # what reaches the node: host statements only (or nothing)
        if kind in (NT.sequence, NT.set):
            if not self._parallel(node) and not self._holds_pinned(node) \
                    and not any(self._on_host(node.child(k)) for k in range(node.n_children())):
                return self.single_thread_kernel(node)      # one launch for the whole serial part
            if kind == NT.sequence:
                return self._fused_runs(self._serial_runs_grouped(node))
            return self._children_visited(node)
        if kind == NT.leaf:
            if self._holds_pinned(node):
                self.mixed = True           # no order between them to split the leaf by
                return node
            return self.single_thread_kernel(node)
        if kind == NT.band:
            if self._holds_pinned(node):
                split = self._separated(node)
                if split is not None:       # the pinned statements' loops apart from the others'
                    return self.visit(split)
                return self.visit(node.child(0)).parent()   # a host loop (all its members), kernels inside
            return self.band(node)
        if kind == NT.mark and node.mark_get_id().get_name().startswith(HYBRID_STEPS):
            return self._hybrid_steps(node)
        if node.n_children() == 0:
            return node
        return self.visit(node.child(0)).parent()

    def _hybrid_steps(self, mark: isl.ScheduleNode) -> isl.ScheduleNode:
        """A band of steps of split tiles (schedule/gpu/hybrid.py): its kernels sized as the
        tiles are, all in one launch whose blocks each run one tile's steps in order; where
        that launch cannot be made, the host loops over the steps (one launch each)."""
        self._in_hybrid = self.hybrid[int(mark.mark_get_id().get_name()[len(HYBRID_STEPS):])]
        steps = mark.delete()
        try:
            threads = math.prod(self._in_hybrid.sizes.block)
            mapped = self._in_one_block(steps, threads, HYBRID_LAUNCH, lambda n: self.visit(n.child(0)).parent(), 1)
            return mapped if mapped is not None else self.visit(steps.child(0)).parent()
        finally:
            self._in_hybrid = None

    def _hybrid_counted(self, domain: isl.UnionSet) -> Counted | None:
        """Inside a launch of split tiles: the whole of the kernel's statements, of which
        each phase runs its share, launched once per band of steps."""
        if self._in_hybrid is None:
            return None
        names = statement_names(domain)
        bands = union_of([isl.UnionMap.from_map(m) for m in maps_of(self._in_hybrid.bands)
                          if m.get_tuple_name(isl.dim_type.in_) in names])
        return Counted(bands.domain(), 1.0 / self._in_hybrid.phases, bands)

    def _on_host(self, node: isl.ScheduleNode) -> bool:
        """Whether what the node runs is host statements only (a filter's own domain is what
        reaches it, before the filter)."""
        return statements_below(node) <= self.host

    def _separated(self, band: isl.ScheduleNode) -> isl.ScheduleNode | None:
        """The band split in two, its pinned statements' instances in one copy and the
        others' in another, in the order no dependence contradicts (the sequence at
        the band's place); None where dependences go both ways (a call that reads what
        the previous iteration wrote) or isl merges the split into the tree above."""
        if self.dependences is None:
            return None
        domain = band.get_domain()
        pinned = union_of([isl.UnionSet.from_set(s) for s in sets_of(domain) if s.get_tuple_name() in self.pinned])
        rest = domain.subtract(pinned)
        if rest.is_empty():
            return None
        deps = self.dependences.intersect_domain(domain).intersect_range(domain)
        if deps.intersect_domain(rest).intersect_range(pinned).is_empty():
            return _ordered(band, pinned, False, band)
        if deps.intersect_domain(pinned).intersect_range(rest).is_empty():
            return _ordered(band, pinned, True, band)
        return None

    def _parallel(self, node: isl.ScheduleNode) -> bool:
        """Whether some band below has a coincident member, or a leading member whose
        reductions the threads of a block may combine (gramschmidt's `nrm += A[i][k] *
        A[i][k]` over i, between serial statements: one block of threads instead of one
        thread, at the cost of launches of their own for the statements around it)."""
        return threads_below(node, self._reduction_band)

    def _reduction_band(self, band: isl.ScheduleNode) -> bool:
        """Whether the band's first member is sequential only through reductions the
        threads can combine, over enough values to outweigh a launch of its own."""
        if not self.serial_sums or not self.reductions or band.band_member_get_coincident(0):
            return False
        # the mapper asks again as it walks down; the band's statements and schedule
        # decide the answer (whatever the order of the sequences above it)
        key = (band.get_domain().to_str(), band.band_get_partial_schedule().to_str())
        if key not in self._reduction_bands:
            self._reduction_bands[key] = long_reduction(band, self.reductions, self.dependences, self.device)
        return self._reduction_bands[key]

    def _holds_pinned(self, node: isl.ScheduleNode) -> bool:
        return bool(self.pinned) and bool(statements_below(node) & self.pinned)

    def _serial_runs_grouped(self, sequence: isl.ScheduleNode) -> isl.ScheduleNode:
        """The sequence with each run of consecutive children that have no parallelism
        (durbin's `sum = 0`, `sum += ...`, `beta = ...`, `alpha = ...`) moved under a
        sequence of its own, which becomes one single-thread kernel: one launch instead
        of one per statement. The order of the children does not change."""
        sequence = self._sets_leaned(sequence)
        serial = [self._serial(sequence.child(k)) for k in range(sequence.n_children())]
        runs = _runs(serial)
        if not runs:
            return sequence
        # one run at a time: the split nests the children around it in sequences of their
        # own, whose runs are grouped when the mapper visits them
        return _grouped(sequence, *runs[-1])

    def _serial(self, node: isl.ScheduleNode) -> bool:
        """Whether the node would be a single-thread kernel of its own."""
        return not self._parallel(node) and not self._on_host(node) and not self._holds_pinned(node)

    def _sets_leaned(self, sequence: isl.ScheduleNode) -> isl.ScheduleNode:
        """The sequence with the serial children of each set below it ordered next to the
        sequence's serial neighbour of that set, so that they join its run: durbin's
        `beta = ...`, unordered with respect to the sum, runs with `alpha = ...` after it.
        The children of a set are independent, so any order of them is valid."""
        k = 0
        while k < sequence.n_children():
            inner = sequence.child(k).child(0)
            if inner.get_type() == NT.set:
                serial = [filter_instances(inner.child(j)) for j in range(inner.n_children())
                          if self._serial(inner.child(j))]
                after = k + 1 < sequence.n_children() and self._serial(sequence.child(k + 1))
                before = k > 0 and self._serial(sequence.child(k - 1))
                if serial and len(serial) < inner.n_children() and (after or before):
                    ordered = _ordered(inner, union_of(serial), after, sequence)
                    sequence = sequence if ordered is None else ordered
            k += 1
        return sequence

    def band(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        lead = _leading_coincident(node)
        combine = bool(self.reductions) and self._short_of_threads(node, lead)
        reductions = reduction_member(node, lead, self.reductions, self.dependences) if combine else ()
        if combine and not reductions and lead > 0:
            epilogue = reduction_epilogue(node, lead, self.reductions, self.dependences)
            if epilogue is not None:    # the readers of the results after the combination, in one launch
                return self.parallel_kernel(node, epilogue.reductions, epilogue.instances)
            split = distributed_tail(node, lead, self.reductions, self.dependences)
            if split is not None:   # the readers of the results in a band (and kernel) of their own
                return self.visit(split)
        if lead > 0 or reductions:
            return self.parallel_kernel(node, reductions)
        return self._serial_band(node)

    def _short_of_threads(self, band: isl.ScheduleNode, lead: int) -> bool:
        """Whether the band's parallel members alone give the device less than a wave of
        threads, so that a reduction member is worth threads of its own. Where they fill it
        (gemm's i and j), the reduction stays in each thread: its tile is then reused
        from shared memory and registers, which a sum over thread x gives up."""
        if lead == 0 or self.device is None:
            return True
        extents = band_extents(band, self.device.in_bounds)[:lead]
        return all(e is not None for e in extents) and math.prod(extents) < self.device.gpu.resident_threads

    def _serial_band(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        """A band whose outer member is sequential: one thread runs it, or the host loops
        over its sequential members with kernels inside."""
        if not self._parallel(node):
            return self.single_thread_kernel(node)
        n_seq = _leading_sequential(node)
        if n_seq < node.band_n_member():
            node = node.band_split(n_seq)
        threads = device_loop_block(node, self.device.in_bounds, self.device.gpu) \
            if self._may_run_in_one_block(node) else None
        mapped = self._in_one_block(node, threads, DEVICE_LOOP, lambda n: self.visit(n.child(0)).parent(), 1)
        return mapped if mapped is not None else self.visit(node.child(0)).parent()

    def _may_run_in_one_block(self, node: isl.ScheduleNode) -> bool:
        """Whether one block may run the host code of `node` whole (schedule/gpu/device_loops.py):
        CUDA with sizes ppcg-py chooses, not inside another such block, nothing pinned to the host."""
        return self.device is not None and self.device.choose and self.options.device_loops \
            and self.options.target == "cuda" and self._loop_threads is None \
            and not statements_below(node) & (self.pinned | self._tiled_in_time)

    def _in_one_block(self, node: isl.ScheduleNode, threads: int | None, prefix: str,
                      visit_below: Callable[[isl.ScheduleNode], isl.ScheduleNode],
                      fewest: int) -> isl.ScheduleNode | None:
        """`node` mapped by `visit_below` with every kernel below sized for one block of
        `threads` threads and marked to run there, in one launch; None (the mapper's
        state as before) where the host would run something below, or fewer than `fewest`
        kernels come out."""
        if threads is None:
            return None
        first, mixed = len(self.kernels), self.mixed
        self._loop_threads = threads
        try:
            mapped = visit_below(node)
        finally:
            self._loop_threads = None
        inside = self.kernels[first:]
        launched = frozenset(s.get_tuple_name() for k in inside for s in sets_of(k.domain))
        if len(inside) < fewest or launched != statements_below(node):
            del self.kernels[first:]
            self.mixed = mixed
            return None
        name = f"{prefix}{self.first + first}"
        self.kernels[first:] = [replace(k, launched_in=name) for k in inside]
        return mapped.insert_mark(isl.Id(name, context=mapped.get_ctx()))

    def _fused_runs(self, sequence: isl.ScheduleNode) -> isl.ScheduleNode:
        """The sequence mapped, its small children (few instances at each run of the
        sequence) run by one launch of one block wherever that replaces several launches:
        the whole sequence when all are small; else the last run of consecutive small
        children, moved under a sequence of its own, which the mapper fuses when it gets
        there; else each small child that holds several kernels (gramschmidt's norm, its
        square root and the scaling of a column at each step: one launch instead of three)."""
        if not self._may_run_in_one_block(sequence):
            return self._children_visited(sequence)
        small = [not self._on_host(sequence.child(k)) and not self._holds_pinned(sequence.child(k))
                 and self._one_block(sequence.child(k).child(0)) is not None
                 for k in range(sequence.n_children())]
        if all(small):
            fused = self._in_one_block(sequence, self._one_block(sequence), FUSED_KERNELS,
                                       self._children_visited, 2)
            return fused if fused is not None else self._children_visited(sequence)
        runs = _runs(small)
        if runs:
            grouped = _grouped(sequence, *runs[-1])
            if grouped is not sequence:
                return self._children_visited(grouped)
        return self._children_visited(sequence, frozenset(k for k, flag in enumerate(small) if flag))

    def _one_block(self, node: isl.ScheduleNode) -> int | None:
        return fused_block(node, self.device.in_bounds, self.device.gpu)

    def _children_visited(self, node: isl.ScheduleNode, alone: frozenset[int] = frozenset()) -> isl.ScheduleNode:
        """The node with each child mapped; the children `alone` in one launch of one
        block each where they hold several kernels."""
        for k in range(node.n_children()):
            below = node.child(k).child(0) if k in alone else None
            fused = None if below is None else \
                self._in_one_block(below, self._one_block(below), FUSED_KERNELS, self.visit, 2)
            node = fused.parent().parent() if fused is not None else self.visit(node.child(k)).parent()
        return node

    def single_thread_kernel(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        domain = node.get_domain()
        prefix = node.get_prefix_schedule_union_map().intersect_domain(domain)
        kernel = Kernel(self.first + len(self.kernels), KernelSizes((), (), ()), (), (), None, domain,
                        host_depth=node.get_schedule_depth(), host_schedule=prefix, outer_schedule=prefix,
                        inner_schedule=node.get_subtree_schedule_union_map().intersect_domain(domain))
        self.kernels.append(kernel)
        return node.insert_mark(isl.Id(kernel.name, context=node.get_ctx()))

    def _sizes(self, band: isl.ScheduleNode, index: int, lead: int,
               reduction: bool = False) -> tuple[KernelSizes, str]:
        """The user's sizes for the kernel, else those chosen for the device, else PPCG's.
        With `reduction`, member `lead` is mapped to threads too (not to blocks)."""
        if self._in_hybrid is not None:
            return self._in_hybrid.sizes, "split tiles along time (--hybrid)"
        if self._loop_threads is not None:
            return (device_loop_sizes(band.band_n_member(), lead, reduction, self._loop_threads),
                    f"one block of {self._loop_threads} threads")
        spread = reduction and lead == 0 and self.options.target == "cuda"
        if self.device is not None and self.device.choose and not given_sizes(self.sizes, index):
            extents = band_extents(band, self.device.in_bounds)
            choice = choose_sizes(self.device.gpu, extents, lead, reduction)
            if spread:
                choice = spread_over_blocks(self.device.gpu, choice, extents[0])
            return choice.sizes, choice.reason
        # three block dimensions where the user's grid lists three (what --dump-sizes printed);
        # a grid for a reduction with no parallel member spreads it over blocks
        grid = user_sizes(self.sizes, index, "grid")
        n_blocks, n_threads = min(3 if grid is not None and len(grid) >= 3 else 2, lead), min(3, lead + reduction)
        if spread and grid is not None:
            n_blocks = 1
        sizes = kernel_sizes(self.options, self.sizes, index, band.band_n_member(), n_threads, n_blocks)
        if grid is None and self.device is not None and may_start_below_zero(band, n_blocks):
            # PPCG's grid (32768 blocks in one dimension) is launched whole where the tiles
            # may start below 0: a grid just above the number of tiles does the same work
            # (fuzz 2617:600, thousands of idle blocks per launch)
            sizes = replace(sizes, grid=fitted_grid(sizes, band_extents(band, self.device.in_bounds)))
        return sizes, ""

    def parallel_kernel(self, node: isl.ScheduleNode, reductions: tuple[ReducedLocation, ...] = (),
                        epilogue: isl.UnionSet | None = None) -> isl.ScheduleNode:
        ctx = node.get_ctx()
        lead = _leading_coincident(node)
        if not node.band_get_permutable() and node.band_n_member() > 1:
            # the parallel members and a reduction member after them are permutable: no
            # dependence they do not carry has a negative distance along either
            node = node.band_split(lead + 1 if reductions else 1)
        lead = _leading_coincident(node)
        index = self.first + len(self.kernels)
        sizes, reason = self._sizes(node, index, lead, bool(reductions))
        if reductions and any(sizes.tile[k] != sizes.block[k] for k in range(lead)):
            # the user's tiles give a thread several locations: their partials would need
            # a register each; the reduction member stays in each thread
            if lead == 0:
                return self._serial_band(node)
            reductions, epilogue = (), None     # the readers stay in place, after the member's loop
            sizes, reason = self._sizes(node, index, lead)
        n_blocks, n_threads = len(sizes.grid), len(sizes.block)
        block_ids = tuple(f"{self.names.block}{k}" for k in range(n_blocks))
        thread_ids = tuple(f"{self.names.thread}{k}" for k in range(n_threads))
        domain = node.get_domain()
        host_depth = node.get_schedule_depth()
        host_schedule = node.get_prefix_schedule_union_map().intersect_domain(domain)
        untiled = band_values(node, domain)

        node = band_tiled(node, sizes.tile)                # tile band, child: point band
        tile_schedule = node.band_get_partial_schedule()
        block_schedule = _prefix_map(tile_schedule, n_blocks)
        node = node.insert_filter(_modulo_filter(tile_schedule, sizes.grid, block_ids, domain))
        node = _atomic(node.child(0))                      # tile band
        blocked = node.get_domain()
        node = node.child(0)                               # point band
        point_schedule = node.band_get_partial_schedule()
        thread_filter = _modulo_filter(point_schedule, sizes.block, thread_ids, domain)
        kernel = Kernel(index, sizes, block_ids, thread_ids, block_schedule, domain,
                        host_depth=host_depth,
                        outer_schedule=node.get_prefix_schedule_union_map().intersect_domain(blocked),
                        inner_schedule=node.get_subtree_schedule_union_map().intersect_domain(domain),
                        thread_filter=thread_filter, point_schedule=untiled,
                        host_schedule=host_schedule, sizes_reason=reason, reductions=reductions,
                        epilogue=epilogue, reduction_over_blocks=bool(reductions) and n_blocks > lead,
                        counted=self._hybrid_counted(domain))
        self.kernels.append(kernel)
        node = node.insert_filter(thread_filter)           # each thread runs its points
        if not reductions:
            # the sunk loops as memory/tree.py makes the point band's serial members
            loop_type = isl.ast_loop_type.unroll if self.options.unroll_gpu_tile else isl.ast_loop_type.atomic
            node = statements_apart(node.child(0), n_threads, self.dependences, loop_type).parent()
        node = node.parent().parent()                      # back at the block filter
        node = node.insert_context(_id_ranges(ctx, block_ids + thread_ids, sizes.grid + sizes.block, host_depth))
        return node.insert_mark(isl.Id(kernel.name, context=ctx))


def long_reduction(band: isl.ScheduleNode, reductions: Sequence[ReducedLocation], dependences: isl.UnionMap | None,
                   device: DeviceSizing | None) -> bool:
    """Whether the threads of a kernel may combine the reductions along the band's first
    member, over enough values to be worth a launch of their own."""
    if not reductions or band.band_member_get_coincident(0) \
            or not reduction_member(band, 0, reductions, dependences):
        return False
    if device is None:
        return True
    extent = band_extents(band, device.in_bounds)[0]
    return extent is None or extent >= _MIN_REDUCTION_THREADS


def threads_below(node: isl.ScheduleNode,
                  reduction_band: Callable[[isl.ScheduleNode], bool] | None = None) -> bool:
    """Whether some band at or below `node` has a parallel member, or is a
    `reduction_band`: one whose first member the threads of a kernel may combine (a dot
    product: work for a kernel, not the host)."""
    if node.get_type() == NT.band and (any(_coincident(node)) or (reduction_band is not None
                                                                  and reduction_band(node))):
        return True
    return any(threads_below(node.child(k), reduction_band) for k in range(node.n_children()))


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    """(first, last) of each run of two or more consecutive true flags."""
    runs, start = [], None
    for k, flag in enumerate(flags + [False]):
        if flag and start is None:
            start = k
        elif not flag and start is not None:
            if k - 1 > start:
                runs.append((start, k - 1))
            start = None
    return runs


def _grouped(sequence: isl.ScheduleNode, first: int, last: int) -> isl.ScheduleNode:
    """The sequence with its children first..last under one filter and sequence of their
    own (isl's order_before/order_after split the sequence around them); returns the
    node at the sequence's position, which the splits do not move."""
    n = sequence.n_children()
    filters = [sequence.child(k).filter_get_filter() for k in range(n)]
    path = tree_position(sequence)
    node = sequence
    try:
        if first > 0:
            node = node.order_before(union_of(filters[:first]))     # at the rest's copy of the sequence
        if last < n - 1:
            node = node.order_after(union_of(filters[last + 1:]))   # at the run's copy
        node = node_at(node.get_schedule(), path)
    except isl.Error:
        return sequence
    # isl splices a new sequence into an enclosing one where it can: then the nodes
    # around this one (which the mapper is walking) have moved; keep one kernel per child
    return node if _sequence_in_place(node, sequence) else sequence


def _ordered(node: isl.ScheduleNode, instances: isl.UnionSet, after: bool,
             at: isl.ScheduleNode) -> isl.ScheduleNode | None:
    """The node at `at`'s position once `node` (`at` or below it) runs `instances` after
    (or before) its other instances: a sequence there. None where isl fails, or splices
    the new sequence into one above (the nodes the mapper is walking have moved)."""
    path = tree_position(at)
    try:
        ordered = node.order_after(instances) if after else node.order_before(instances)
        ordered = node_at(ordered.get_schedule(), path)
    except isl.Error:
        return None
    return ordered if _sequence_in_place(ordered, at) else None


def _sequence_in_place(node: isl.ScheduleNode, before: isl.ScheduleNode) -> bool:
    """Whether `node` is a sequence with the ancestry `before` had (isl did not splice it
    into a sequence above)."""
    return node.get_type() == NT.sequence and _ancestry(node) == _ancestry(before)


def _ancestry(node: isl.ScheduleNode) -> list[tuple]:
    """The type and number of children of each node above `node`."""
    shape = []
    while node.has_parent():
        node = node.parent()
        shape.append((node.get_type(), node.n_children()))
    return shape


def _atomic(band: isl.ScheduleNode) -> isl.ScheduleNode:
    """Tile loops as PPCG generates them: one loop over the tiles of all statements,
    where isl would otherwise repeat the whole kernel body for the tiles of some
    (gemm's `if (nk <= 0)` copy for the tile of C *= beta alone)."""
    for k in range(band.band_n_member()):
        band = band.band_member_set_ast_loop_type(k, isl.ast_loop_type.atomic)
    return band


def _coincident(node: isl.ScheduleNode) -> list[bool]:
    return [bool(node.band_member_get_coincident(k)) for k in range(node.band_n_member())]


def _leading_coincident(node: isl.ScheduleNode) -> int:
    count = 0
    for flag in _coincident(node):
        if not flag:
            break
        count += 1
    return count


def _leading_sequential(node: isl.ScheduleNode) -> int:
    count = 0
    for flag in _coincident(node):
        if flag:
            break
        count += 1
    return count


def _prefix_map(mupa: isl.MultiUnionPwAff, n: int) -> isl.UnionMap | None:
    """Instances -> the first n members of a partial schedule."""
    result = None
    for k in range(n):
        part = isl.UnionMap.from_union_pw_aff(mupa.get_at(k))
        result = part if result is None else result.flat_range_product(part)
    return result


def _modulo_filter(mupa: isl.MultiUnionPwAff, sizes: tuple[int, ...],
                   ids: tuple[str, ...], domain: isl.UnionSet) -> isl.UnionSet:
    """Instances whose k-th schedule value is congruent to id k modulo size k."""
    ctx = domain.get_ctx()
    result = domain
    for k, (size, name) in enumerate(zip(sizes, ids)):
        part = isl.UnionMap.from_union_pw_aff(mupa.get_at(k))
        residue = isl.Set.read_from_str(ctx, f"[{name}] -> {{ [x] : (x - {name}) mod {size} = 0 }}")
        result = result.intersect(part.intersect_range(isl.UnionSet.from_set(residue)).domain())
    return result


def id_bounds(ctx: isl.Context, ids: tuple[str, ...], bounds: tuple[int, ...]) -> isl.Set:
    """`0 <= id < bound` for every block and thread id, as a parameter set."""
    constraints = " and ".join(f"0 <= {n} < {b}" for n, b in zip(ids, bounds))
    return isl.Set.read_from_str(ctx, f"[{', '.join(ids)}] -> {{ : {constraints} }}")


def _id_ranges(ctx: isl.Context, ids: tuple[str, ...], bounds: tuple[int, ...], depth: int) -> isl.Set:
    """0 <= id < bound for every block and thread id, on the outer schedule dims."""
    if not ids:
        return isl.Set.universe(isl.Space.set_alloc(ctx, 0, depth))
    return isl.Set.from_params(id_bounds(ctx, ids, bounds)).add_dims(isl.dim_type.set, depth)
