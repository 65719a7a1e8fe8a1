"""The C target's plan (`--target=c`), also each GPU target's host path: isl's schedule,
tiled with `--tile`, with the OpenMP loops marked with `--openmp`, as PPCG's cpu.c.

The schedule is computed as for CUDA (`compute_schedule`, scheduler.py: the same dependences,
live-range reordering included); there is no host/kernel split. With `--tile`,
every permutable band of more than one member is tiled (sizes as for CUDA:
`-S`, `--tile-sizes`, `--sizes` with `kernel[i]` the i-th tiled band in tree
order, counted over the SCoPs of the file as CUDA counts its kernels, so that one
sizes file names every band of a file: `--dump-sizes`, `--sizes-file`,
`--autotune`; without any of them, from the caches: cache_sizes.py). Its point
loops are reordered so that the innermost is parallel and unit-stride
(point_order.py), marked `omp_simdN` where that is safe, and distributed over the
statements under it where that takes one out of a loop (schedule/distribute.py). Where a
block of an array accumulates along a point loop between its rows and columns (gemm's
`C` along `k`), the band's full blocks keep it in registers (register_tiles.py). With
`--openmp`, the outermost coincident member of each band that is
not already inside a parallel loop becomes a band of its own under a mark
`omp_parallelN`: the loop that gets `#pragma omp parallel for` (or `omp for`
inside the parallel region the printer makes of a serial loop around it:
codegen/omp_region.py), with `schedule(dynamic, 1)` where its iterations do uneven work
(a triangular nest: load_balance.py).

Reductions whose order may change (exact ones, floating-point ones with
`--reductions`: reductions.py) are relaxed: isl schedules without the dependences
between their updates, the bands' coincident flags are then those of the full
dependences, and a member before a band's first coincident one that only
reductions keep serial may be the parallel loop, with OpenMP's `reduction` clause
(`ParallelLoop.reductions`), where each thread can hold a copy of the location.

A scalar whose live ranges the schedule reordered may be written in several
iterations of such a loop (symm's `temp2`); each thread then needs its copy.
Privatization is CUDA's (`schedule/private.py`), with one thread per iteration of the
marked loop: a scalar all of whose values stay within one execution of the
loop becomes `private(...)` there; one that cannot and whose reordered live
ranges the loop spreads over iterations is fixed and the SCoP scheduled again.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import islpy as isl

from ...diagnostics import CompileError, Diagnostics
from ...extract.model import Scop
from ...isl_context import band_tiled, band_values, statement_names, union_of
from ...options import Options
from ..distribute import distributed
from ..expansion import expand_temporaries, expand_webs, expansion_notes, web_candidates
from ..parallel import strict_coincidence
from ..plan import ScheduledScop
from ..private import changed_values, privatize
from ..scheduler import compute_schedule, schedule_of_part, scheduling_start
from ..sizes import KernelSizes, kernel_sizes, user_sizes
from ..time_loops import is_time_loop, scalar_writer, top_level, where
from .cache_sizes import (blocked_tile_sizes, cache_tile_sizes, edge_free_columns, element_bytes, shared_tile_size,
                          host_caches, shares_fit, splits_wide_vectors, vector_bytes, worth_tiling)
from .epilogues import epilogues_apart
from .full_tiles import with_full_tiles_isolated
from .load_balance import uneven_work
from .nowait import MARK as NOWAIT_MARK, barrier_free
from .original_order import gains_nothing, jumps
from .scalar_copies import keeps_copies, reorder_pays
from .parallel_work import too_little, too_little_work, work_bound
from .pipeline import Waits, tile_waits
from ..loop_extents import band_extents, in_bounds_instances
from .point_order import FAR, AccessSteps, PointOrder, access_steps, given_order, permuted, point_order
from .reductions import (LoopFinder, ReductionGroup, Relaxation, copy_refusal, enabled_groups, note, reduction_groups,
                         reduction_loops, relax, serial_chains)
from .register_tiles import BlockPlan, RegisterTile, block_plan, blocked, narrow_block
from .row_pairs import RowPairs, pairable
from .sinking import members_sunk
from .time_tiles import (carried_outermost, fits_in_l2, in_source_order, recurrent_rows, row_lanes, rows_apart,
                         separated, time_band, time_tile_sizes, unbounded_distances, wavefront, whole_rows,
                         with_members_whole, with_row_segments)

__all__ = ["CpuSchedule", "ParallelLoop", "schedule_for_cpu"]

NT = isl.schedule_node_type
MARK = "omp_parallel"
SIMD_MARK = "omp_simd"     # above the innermost point loop: `#pragma omp simd` (GCC ivdep without OpenMP)


@dataclass(frozen=True)
class ParallelLoop:
    """A loop of the C output that runs in parallel (an OpenMP `parallel for`)."""

    index: int
    depth: int                      # its schedule dimension (isl names its loops by it)
    domain: isl.UnionSet            # the instances under the loop
    host_schedule: isl.UnionMap     # instances -> the values of the loops around it
    point_schedule: isl.UnionMap    # instances -> the loop's own value
    private: frozenset[str] = frozenset()   # scalars with a copy per thread
    thread_ids: tuple[str, ...] = ("omp",)  # one thread per iteration (private.Threads)
    mark: str = MARK                # or SIMD_MARK: an innermost point loop for the vectoriser
    # the reductions it runs in parallel, (operator, array): a copy of each array per
    # thread, combined at the loop's end (OpenMP's `reduction` clause; reductions.py)
    reductions: tuple[tuple[str, str], ...] = ()
    # its iterations do uneven work (a triangular nest): handed out one at a time,
    # `schedule(dynamic, 1)`, not split in blocks (load_balance.py)
    uneven: bool = False
    # no barrier after each execution: the serial loops around it (under the mark
    # `omp_nowaitN` above them) give each thread the same iterations every time (nowait.py)
    nowait: bool = False
    # a vector loop's width in elements (OpenMP's `simdlen`), 0: the compiler's choice
    lanes: int = 0
    # a wavefront of time tiles without barriers: the iterations each iteration waits
    # for (pipeline.py)
    waits: Waits = Waits()

    @property
    def name(self) -> str:
        return f"{self.mark}{self.index}"


@dataclass(frozen=True, kw_only=True)
class CpuSchedule(ScheduledScop):
    """The C target's plan of a SCoP, also a GPU target's host path: its final tree has
    the OpenMP loops under `omp_parallelN` marks, the tiles, the vectoriser's loops under
    `omp_simdN` marks and the register blocks under `register_tileN` marks."""

    parallel: tuple[ParallelLoop, ...] = ()        # the OpenMP loops, in tree order
    vector_loops: tuple[ParallelLoop, ...] = ()    # the innermost loops for the vectoriser (mark SIMD_MARK)
    band_sizes: tuple[KernelSizes, ...] = ()       # per band tiled or left whole (`kernel[i]` in --sizes)
    register_tiles: tuple[RegisterTile, ...] = ()  # the blocks of arrays kept in registers (register_tiles.py)
    row_pairs: tuple[RowPairs, ...] = ()           # time tiles' loops run two values at a time (row_pairs.py)
    first_band: int = 0     # the number of its first band in --sizes (the bands of the SCoPs before)
    time_tiled: bool = False    # its first band is tiled along time, its tiles run as wavefronts (time_tiles.py)

    def numbered_sizes(self) -> tuple[tuple[int, KernelSizes], ...]:
        """Each band's sizes, by its number (`kernel[i]` in --sizes)."""
        return tuple(enumerate(self.band_sizes, start=self.first_band))


@dataclass
class _Walk:
    options: Options
    sizes: isl.UnionMap | None
    scop: Scop
    dependences: isl.UnionMap
    ordering: isl.UnionMap          # every dependence, reductions' included (nowait.py)
    # the live ranges and the anti and output dependences to the next write: the others
    # (the forced ones) follow from chains of them (pipeline.py)
    chains: isl.UnionMap | None = None
    first: int = 0                  # the number of the SCoP's first tiled band (`kernel[i]` in --sizes)
    band_sizes: list[KernelSizes] = field(default_factory=list)    # of each band tiled (or left whole)
    vector_loops: list[ParallelLoop] = field(default_factory=list)
    register_tiles: list[RegisterTile] = field(default_factory=list)
    row_pairs: list[RowPairs] = field(default_factory=list)
    loops: list[ParallelLoop] = field(default_factory=list)
    reductions: LoopFinder | None = None    # the reduction loops, with reductions relaxed
    # why a reduction loop stayed serial, per (operator, array)
    refusals: dict[tuple[str, str], str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # the statements of the bands tiled along time (time_tiles.py): every statement where
    # the whole SCoP is a time loop, else those of its time loops that isl's schedule runs
    # apart (time_loops.py); and each time band's number (`kernel[i]`), by its statements
    time_statements: frozenset[str] = frozenset()
    time_bands: dict[frozenset[str], int] = field(default_factory=dict)
    # the parallel member of each time band's wavefronts (its values, per instance)
    wavefronts: list[isl.UnionMap] = field(default_factory=list)
    # the loops left serial for want of work (parallel_work.py), those without barriers
    # (nowait.py), for -v
    serial_notes: list[str] = field(default_factory=list)
    # the bands whose loops moved into the statement groups below them (sinking.py), for -v
    sinking_notes: list[str] = field(default_factory=list)
    _in_bounds: isl.UnionSet | None = None

    @property
    def time_tiled(self) -> bool:
        return bool(self.time_statements)

    def in_time_band(self, band: isl.ScheduleNode) -> bool:
        """Whether `band` runs statements of a band tiled along time (or is one)."""
        return bool(self.time_statements) and statement_names(band.get_domain()) <= self.time_statements

    @property
    def in_bounds(self) -> isl.UnionSet:
        """The instances whose accesses stay inside the arrays (loop_extents.py)."""
        if self._in_bounds is None:
            self._in_bounds = in_bounds_instances(self.scop)
        return self._in_bounds

    def parallel_member(self, band: isl.ScheduleNode) -> tuple[int, tuple[ReductionGroup, ...]] | None:
        """The outermost member of `band` that may run in parallel, and the reductions it
        then runs in parallel: a coincident member, or, before it, a reduction loop whose
        locations a copy per thread can hold (none where the band has neither)."""
        first = _first_coincident(band)
        if self.reductions is not None:
            for k in range(band.band_n_member() if first is None else first + 1):
                carried = self.reductions.carried(band, k)
                if carried and self._copies_allowed(band, carried):
                    return k, carried
                if carried and k == first:
                    # coincident only because the chain was relaxed: its updates need a
                    # copy per thread, combined at the end, which this loop cannot have
                    return None
        return None if first is None else (first, ())

    def _copies_allowed(self, band: isl.ScheduleNode, groups: tuple[ReductionGroup, ...]) -> bool:
        """Whether the loop may keep a copy of each group's location per thread; where
        not, the reason is kept for -v."""
        inside = statement_names(band.get_domain())
        for group in groups:
            why = _copy_refusal(self.scop, group, inside)
            if why is not None:
                self.refusals[(group.op, group.array)] = why
                return False
        return True


def schedule_for_cpu(scop: Scop, options: Options, diagnostics: Diagnostics | None = None,
                     first_tiled: int = 0) -> CpuSchedule:
    """Dependences, isl's schedule, tiling, the parallel loops and their private scalars;
    `first_tiled` is the number of the SCoP's first tiled band (the bands of the SCoPs before).

    A temporary array whose values live within one iteration of the loops around it
    (doitgen's `sum`) gets a copy per iteration of the innermost of them
    (schedule/expansion.py) where the copies let a band's loops move into the statement
    groups below it and a group then keeps register blocks (sinking.py); elsewhere the
    program keeps its arrays, and its schedule."""
    diagnostics = Diagnostics() if diagnostics is None else diagnostics
    if options.expand_arrays and options.tile and options.register_tiles and options.reschedule:
        full = scheduling_start(scop, options, diagnostics)[0]
        expanded, expansions = expand_temporaries(scop, full, innermost=True)
        if expansions:
            trial = Diagnostics(echo=False)
            try:
                planned, moved = _planned(expanded, options, trial, first_tiled,
                                          frozenset(e.copy_back for e in expansions if e.copy_back))
            except (CompileError, isl.Error):   # the program as written may still compile
                moved = False
            if moved:
                diagnostics.replay(trial)
                notes = expansion_notes(expanded, expansions, "the innermost loop around it",
                                        "lets that loop move into the statements below it and keep register blocks") \
                    if options.verbose else ()
                return replace(planned, notes=notes + planned.notes)
    if options.expand_arrays and options.reschedule:    # sizes given too: --autotune's variants and
        return _plan_with_scalar_copies(scop, options, diagnostics, first_tiled)    # its sizes file agree
    return _plain_plan(scop, options, diagnostics, first_tiled)


def _plain_plan(scop: Scop, options: Options, diagnostics: Diagnostics, first_tiled: int) -> CpuSchedule:
    if not (options.openmp and options.reschedule):
        return _planned(scop, options, diagnostics, first_tiled)[0]
    return _best_plan(scop, options, diagnostics, first_tiled)


def _plan_with_scalar_copies(scop: Scop, options: Options, diagnostics: Diagnostics, first_tiled: int) -> CpuSchedule:
    """The plan with scalars given a copy per iteration of a loop where that lets the loop
    move inside and the plan's innermost loops then jump less (scalar_copies.py), else
    the plain plan. All the webs that may pay are tried at once: one plan more, not one
    per loop (deriche's scheduling takes over a second)."""
    full = scheduling_start(scop, options, diagnostics)[0]
    caches = host_caches()
    candidates = web_candidates(scop, full, lambda s, web, loop: reorder_pays(s, web, loop, caches))
    if not candidates:
        return _plain_plan(scop, options, diagnostics, first_tiled)
    plain_trial, copied_trial = Diagnostics(echo=False), Diagnostics(echo=False)
    plain = _plain_plan(scop, options, plain_trial, first_tiled)
    copied, expansions = expand_webs(scop, full, tuple(web for group in candidates for web in group))
    try:
        with_copies = _plain_plan(copied, options, copied_trial, first_tiled)
    except (CompileError, isl.Error):   # the program as written may still compile
        with_copies = None
    if with_copies is None or not keeps_copies(
            jumps(plain.final_schedule, scop, caches), len(plain.parallel),
            jumps(with_copies.final_schedule, copied, caches), len(with_copies.parallel)):
        diagnostics.replay(plain_trial)
        return plain
    diagnostics.replay(copied_trial)
    notes = expansion_notes(copied, expansions, "a loop whose inner loop walks down columns",
                            "lets that loop move inside and walk rows") if options.verbose else ()
    return replace(with_copies, notes=notes + with_copies.notes)


def _best_plan(scop: Scop, options: Options, diagnostics: Diagnostics, first_tiled: int) -> CpuSchedule:
    """The plan of isl's schedule, or, where it gains nothing (original_order.py), the
    first of these that does better: tiles along time in isl's schedule of whole
    components, or the program's own order where its innermost loops jump less through
    large arrays.

    isl's scheduler, started on the strongly connected parts of the dependence graph
    one at a time, leaves trisolv's `x[i] = b[i]` and `x[i] /= L[i][i]` outside the
    band of its `j` loop, and no band then spans the SCoP to be tiled along its `i`;
    scheduled whole, the three statements share one permutable band `(j, i)`, whose
    tiles run as wavefronts (time_tiles.py). Not asked where isl's usual schedule has
    a parallel loop or a tiled band: gramschmidt's, time-tiled so, ran 6x slower."""
    trial = Diagnostics(echo=False)
    planned = _planned(scop, options, trial, first_tiled)[0]
    if not gains_nothing(len(planned.parallel), tuple(s.tile for s in planned.band_sizes)):
        diagnostics.replay(trial)
        return planned
    if options.tile and options.time_tiles != "never":
        whole_trial = Diagnostics(echo=False)
        whole = _planned(scop, options, whole_trial, first_tiled, whole_component=True)[0]
        if whole.time_tiled:
            diagnostics.replay(whole_trial)
            return whole
    theirs = jumps(planned.schedule, scop) if options.cache_tiles else 0
    if theirs == 0:     # nothing for the own order to beat (or no model to say so): no second plan
        diagnostics.replay(trial)
        return planned
    own_trial = Diagnostics(echo=False)
    own = _planned(scop, replace(options, reschedule=False), own_trial, first_tiled)[0]
    ours = jumps(own.schedule, scop)
    if ours >= theirs:
        diagnostics.replay(trial)
        return planned
    diagnostics.replay(own_trial)
    note = (f"the SCoP of '{scop.function}' keeps its own loop order: isl's schedule runs no loop in parallel and "
            f"tiles no band, and its innermost loops jump through arrays larger than the L2 cache at {theirs} "
            f"access(es), the program's own at {ours}")
    return replace(own, notes=own.notes + (note,) if options.verbose else own.notes)


def _planned(scop: Scop, options: Options, diagnostics: Diagnostics, first_tiled: int,
             last: frozenset[str] = frozenset(), whole_component: bool = False) -> tuple[CpuSchedule, bool]:
    """The plan of `scop` (`last`: statements isl schedules after all others, the copies
    back of expanded arrays), and whether some band's loops moved into the statement
    groups below it (sinking.py). `whole_component`: the schedule for time tiles is
    asked of isl's scheduler with its whole-component option."""
    full, sizes, names, fixed, reorderable = scheduling_start(scop, options, diagnostics)
    # the reductions whose order may change: their chains leave the constraints
    relaxation = relax(scop, full, enabled_groups(scop, options.reductions))
    deps = full if relaxation is None else relaxation.relaxed
    folded = {} if relaxation is None else _folded_scalars(scop, relaxation.groups)
    # a reduction whose array is too large for a copy per thread may be reordered, but
    # its loops stay serial: isl's scheduler then looks for parallelism elsewhere
    refused = {} if relaxation is None else {(g.op, g.array): why for g in relaxation.groups
                                               if (why := copy_refusal(scop, g)) is not None}
    serial = None if not refused else serial_chains(relaxation, [g for g in relaxation.groups
                                                                 if (g.op, g.array) in refused])
    while True:
        across_time, time_note = _time_schedule(scop, deps, options, fixed, whole_component) \
            if relaxation is None else (None, None)
        time_statements = statement_names(scop.domain) if across_time else frozenset()
        loop_notes, apart = (), None
        if across_time is None and relaxation is None and not last:
            apart, time_statements, loop_notes = _time_loops_apart(scop, deps, options, diagnostics, fixed)
        schedule = across_time or apart or compute_schedule(scop, deps, options, diagnostics, fixed, serial, last)
        finder = None
        if relaxation is not None:     # isl's flags say parallel under the relaxed constraints
            schedule = strict_coincidence(schedule, full.coincidence(fixed))
            finder = LoopFinder.of(relaxation, fixed, serial)
        walk = _Walk(options, sizes, scop, deps.all, full.all, full.flow.union(full.false), first=first_tiled,
                     reductions=finder, refusals=dict(refused), time_statements=frozenset(time_statements))
        root = schedule.get_root()
        root = _tile_all(root, walk) if options.tile else root
        final = (_mark_parallel(root, walk, inside=False) if options.openmp else root).get_schedule()
        found = [privatize(scop, deps, loop, reorderable - fixed, skip=frozenset(a for _, a in loop.reductions))
                 for loop in walk.loops]
        unsafe = frozenset().union(*(p.unsafe for p in found))
        if not unsafe and deps.reordering:
            unsafe = changed_values(scop, deps, final, walk.loops, [p.private for p in found], reorderable - fixed,
                                    folded)
        if not unsafe:
            break
        fixed |= unsafe
    # a thread's copies of private scalars are combined at each execution's end: not without barriers
    loops = tuple(replace(loop, private=p.private, nowait=loop.nowait and not p.private,
                          waits=Waits() if p.private else loop.waits)
                  for loop, p in zip(walk.loops, found))
    for warning in walk.warnings:
        diagnostics.warn(warning, scop.file, scop.start_line, 1)
    notes = _reduction_notes(scop, full, relaxation, schedule, fixed, loops, walk.refusals, options) \
        if options.verbose and scop.reductions else ()
    if options.verbose:
        notes += tuple(walk.serial_notes)
    if options.verbose and time_note is not None:
        notes += (_time_tiles_note(time_note, walk, walk.time_statements, loops) if across_time else time_note,)
    if options.verbose:
        notes += tuple(_time_tiles_note(note, walk, tiled, loops) if tiled else note for note, tiled in loop_notes)
    if options.verbose:
        notes += tuple(walk.sinking_notes)
    return CpuSchedule(scop=scop, dependences=full, schedule=schedule, final_schedule=final, names=names,
                       notes=notes, parallel=loops, vector_loops=tuple(walk.vector_loops),
                       band_sizes=tuple(walk.band_sizes), register_tiles=tuple(walk.register_tiles),
                       row_pairs=tuple(walk.row_pairs), first_band=first_tiled,
                       time_tiled=walk.time_tiled), bool(walk.sinking_notes)


def _time_schedule(scop: Scop, deps, options: Options, fixed: frozenset[str],
                   whole_component: bool = False) -> tuple[isl.Schedule | None, str | None]:
    """isl's schedule without an outer parallel loop, where the SCoP's outermost loop
    carries dependences, that schedule's top band may be tiled along time, and the
    model says it pays (time_tiles.py); else None. Asked before isl's usual schedule,
    which it then replaces: heat-3d's costs 2.8 s, this one 1.1 s. With it, the -v line
    that says why (None where the outermost loop carries nothing)."""
    if not (options.tile and options.time_tiles != "never" and options.reschedule and deps.value_based
            and carried_outermost(scop.schedule, deps.all)):
        return None, None
    modelled = options.time_tiles == "auto"
    refused = f"time tiles: none for the SCoP of '{scop.function}'"
    if modelled and (why := fits_in_l2(scop)) is not None:
        return None, f"{refused}: {why}"
    # silent: where isl finds nothing here in time, its usual schedule follows
    quiet = Diagnostics(echo=False)
    across = compute_schedule(scop, deps, options, quiet, fixed, outer_coincidence=False,
                              whole_component=whole_component, accept=lambda s: time_band(s) is not None)
    band = time_band(across)
    if band is None:
        return None, f"{refused}: isl finds no permutable band around every statement that includes its outermost loop"
    if modelled and (why := recurrent_rows(band, deps.all)) is not None:
        return None, f"{refused}: {why}"
    return across, f"time tiles: the SCoP of '{scop.function}'"


def _time_tiles_note(start: str, walk: _Walk, statements: frozenset[str], loops: tuple[ParallelLoop, ...]) -> str:
    """The -v line of a time loop tiled along time (the whole SCoP, or one of its loops
    running `statements`): its band's sizes and how its tiles run."""
    number = walk.time_bands.get(statements)
    sizes = walk.band_sizes[number - walk.first] if number is not None else None
    tile = sizes.tile if sizes is not None else ()
    shown = ["whole" if k in sizes.whole else str(size) for k, size in enumerate(tile)]
    how = "untiled" if not tile else (f"kernel[{number}] tiles of {' x '.join(shown)} "
                                      + ("in wavefronts, the tiles of each in parallel" if walk.options.openmp
                                         else "in order"))
    if any(loop.waits and statement_names(loop.domain) <= statements for loop in loops):
        how += (", each tile waiting only for the tiles it depends on where a wavefront runs nothing else "
                "(no barrier between wavefronts)")
    lanes = sorted({loop.lanes for loop in walk.vector_loops
                    if loop.lanes and statement_names(loop.domain) <= statements})
    if lanes and walk.options.openmp:
        how += f"; rows reading their neighbours in vectors of {' or '.join(map(str, lanes))} elements"
    if any(pairs.statements <= statements for pairs in walk.row_pairs):
        how += "; rows two at a time (two neighbouring rows in each row loop)"
    return f"{start}: {how}"


def _time_loops_apart(scop: Scop, deps, options: Options, diagnostics: Diagnostics, fixed: frozenset[str]
                      ) -> tuple[isl.Schedule | None, frozenset[str], tuple[tuple[str, frozenset[str]], ...]]:
    """Where the SCoP's top level is a sequence with time loops among its children (a
    grid filled before a stencil, a sum taken after it; time_loops.py): the children in
    their own order, each time loop that the model keeps (`_time_loop_schedule`) by isl's
    schedule of it alone without outer coincidence, the children between them by isl's
    usual schedule of them alone; None where no time loop is kept (isl's usual schedule
    of the whole SCoP then). isl's usual schedule of a stencil among other loops has
    taken over 30 s (heat-3d's with a fill and a sum), of the pieces under 2 s; no
    loop fuses across a time loop anyway. Also the statements of the time loops kept,
    and per time loop its -v line's start with its statements (none where refused)."""
    children = top_level(scop)
    if len(children) < 2 or not (options.tile and options.time_tiles != "never" and options.reschedule
                                 and deps.value_based):
        return None, frozenset(), ()
    pieces: list[isl.Schedule] = []
    between: frozenset[str] = frozenset()
    tiled: frozenset[str] = frozenset()
    notes: list[tuple[str, frozenset[str]]] = []
    for node, instances in children:
        names = frozenset(statement_names(instances))
        # a loop that carries only anti and output dependences (a temporary array used
        # again in each iteration: doitgen's `sum` after expansion) passes nothing along time
        across = None
        if is_time_loop(node, deps.flow):
            across, note = _time_loop_schedule(scop, deps, options, node, instances, names)
            notes.append((note, names if across is not None else frozenset()))
        if across is None:
            between |= names
            continue
        if between:
            pieces.append(compute_schedule(scop, deps, options, diagnostics, fixed, only=between))
            between = frozenset()
        pieces.append(across)
        tiled |= names
    if not tiled:
        return None, frozenset(), tuple(notes)
    if between:
        pieces.append(compute_schedule(scop, deps, options, diagnostics, fixed, only=between))
    schedule = pieces[0]
    for piece in pieces[1:]:
        schedule = schedule.sequence(piece)
    return schedule, tiled, tuple(notes)


def _time_loop_schedule(scop: Scop, deps, options: Options, node: isl.ScheduleNode, instances: isl.UnionSet,
                        names: frozenset[str]) -> tuple[isl.Schedule | None, str]:
    """isl's schedule of one time loop among the SCoP's top-level loops, alone and without
    outer coincidence, where its top band may be tiled along time and the model says it
    pays (the tests of `_time_schedule` on the loop's own arrays, and two more: no
    statement writes a scalar, the values travel a stencil's few elements per step);
    else None (`names`: its statements). With the start of its -v line."""
    loop = f"the time loop around {where(scop, instances)} of the SCoP of '{scop.function}'"
    refused = f"time tiles: none for {loop}"
    modelled = options.time_tiles == "auto"
    if modelled and (why := fits_in_l2(scop, statements=names)) is not None:
        return None, f"{refused}: {why}"
    if (writer := scalar_writer(scop, names)) is not None:
        return None, f"{refused}: {writer} writes a scalar"
    if modelled and (why := unbounded_distances(node, deps.flow)):     # along the loop itself: before isl
        return None, f"{refused}: {why}"
    across = schedule_of_part(scop, deps.all, instances, options, accept=lambda s: time_band(s) is not None)
    if across is None:
        return None, f"{refused}: isl's scheduler failed or took too long"
    band = time_band(across)
    if band is None:
        return None, f"{refused}: isl finds no permutable band around its statements that includes it"
    if modelled and (why := recurrent_rows(band, deps.all) or unbounded_distances(band, deps.flow)):
        return None, f"{refused}: {why}"
    return across, f"time tiles: {loop}"


def _folded_scalars(scop: Scop, groups: tuple[ReductionGroup, ...]) -> dict[str, frozenset[str]]:
    """The scalars of reductions whose order may change, with the statements that fold them."""
    result: dict[str, frozenset[str]] = {}
    for group in groups:
        if scop.array(group.array).is_scalar:
            result[group.array] = result.get(group.array, frozenset()) | group.statements
    return result


def _copy_refusal(scop: Scop, group: ReductionGroup, inside: frozenset[str]) -> str | None:
    """Why a loop over the statements `inside` cannot keep a copy of `group`'s location
    per thread (None: it can): the copy would hide another statement's accesses."""
    for stmt in scop.statements:
        if stmt.name in inside and stmt.name not in group.statements and any(
                acc.array == group.array for acc in stmt.accesses):
            return f"{stmt.name} (line {stmt.line}) also accesses {group.array} in the loop"
    return None


def _reduction_notes(scop: Scop, full, relaxation: Relaxation | None, schedule: isl.Schedule,
                     fixed: frozenset[str], loops: tuple[ParallelLoop, ...],
                     refusals: dict[tuple[str, str], str], options: Options) -> tuple[str, ...]:
    """-v: a line per reduction loop of isl's schedule, and what became of it."""
    every = reduction_groups(scop.reductions)
    everything = relax(scop, full, every)
    if everything is None:
        return ()
    enabled = {(g.op, g.array) for g in (relaxation.groups if relaxation is not None else ())}
    lines = []
    for found in reduction_loops(schedule, LoopFinder.of(everything, fixed), scop):
        names = dict(found.names)
        for group in found.groups:
            key = (group.op, group.array)
            if key not in enabled:
                status = "parallel with --reductions"
            elif any(key in loop.reductions for loop in loops):
                status = "parallel"
            elif key in refusals:
                status = f"serial: {refusals[key]}"
            elif not options.openmp:
                status = "serial (no --openmp)"
            else:
                status = "serial (it runs inside a parallel loop)" if any(
                    r.statement in statement_names(loop.domain) for loop in loops for r in group.reductions) \
                    else "serial"
            lines += [note(r, names[r.statement], status) for r in group.reductions]
    return tuple(dict.fromkeys(lines))


def _tile_all(node: isl.ScheduleNode, walk: _Walk, sink: bool = True) -> isl.ScheduleNode:
    """Tile every permutable band of several members at and below `node` (not the point
    bands this makes, nor the register blocks: nothing below them is a band), a band's
    loops first moved into the statement groups below it where a group then keeps
    register blocks (`sink`); returns the node at its position."""
    if sink and node.get_type() == NT.band and (moved := _sunk_for_blocks(node, walk)) is not None:
        return _tile_all(moved, walk, sink=False)
    if node.get_type() == NT.band and node.band_n_member() > 1 and node.band_get_permutable():
        split = _epilogues_split(node, walk)
        if split is not None:       # a band per group: tile each
            for k in range(split.n_children()):
                split = _tile_all(split.child(k).child(0), walk).parent().parent()
            return split
        tiled, blocked_points = _tiled(node, walk)
        if blocked_points:
            return tiled
        node, down = tiled.child(0), 1      # on to the point band's children
        while node.get_type() == NT.mark:   # a time tile's row pairs
            node, down = node.child(0), down + 1
        for k in range(node.n_children()):
            node = _tile_all(node.child(k), walk).parent()
        for _ in range(down):
            node = node.parent()
        return node
    for k in range(node.n_children()):
        node = _tile_all(node.child(k), walk).parent()
    return node


def _sunk_for_blocks(band: isl.ScheduleNode, walk: _Walk) -> isl.ScheduleNode | None:
    """The band with loops moved into the statement groups of the sequence below it
    (sinking.py), where more groups then keep a register block (under the model's sizes,
    whatever `--sizes` says, so that the bands `kernel[i]` numbers do not depend on them);
    else None. Not with reductions relaxed (their loops' flags are the finder's), nor in
    a band tiled along time."""
    if not walk.options.register_tiles or walk.in_time_band(band) or walk.reductions is not None:
        return None
    if band.child(0).get_type() != NT.sequence or not band.band_get_permutable():
        return None
    moved = members_sunk(band, walk.dependences)     # cheaper than the plans: first
    if moved is None:
        return None
    sequence = moved.child(0) if moved.get_type() == NT.band else moved
    after = sum(_has_block(sequence.child(k).child(0), walk) for k in range(sequence.n_children()))
    if not after or (band.band_n_member() > 1 and _model_block_plan(band, walk) is not None):
        return None
    before = sum(_has_block(band.child(0).child(k).child(0), walk) for k in range(band.child(0).n_children()))
    if after <= before:
        return None
    statements = statement_names(band.get_domain())
    lines = _source_lines(walk.scop, statements)
    kept = moved.band_n_member() if moved.get_type() == NT.band else 0
    walk.sinking_notes.append(f"the band around the statements of line(s) {lines}: {band.band_n_member() - kept} of "
                              f"its {band.band_n_member()} loop(s) move into each statement group below it, "
                              f"where {after} group(s) then keep register blocks")
    return moved


def _has_block(node: isl.ScheduleNode, walk: _Walk) -> bool:
    """Whether `node` is a band that would keep a register block."""
    return node.get_type() == NT.band and node.band_n_member() > 1 and node.band_get_permutable() and \
        _model_block_plan(node, walk) is not None


def _epilogues_split(band: isl.ScheduleNode, walk: _Walk) -> isl.ScheduleNode | None:
    """The band as a sequence of a band over the statements that run over every member
    and a band over those that take one value along some member (epilogues.py), where
    only then the first would keep a register block; else None. Only with the model's
    sizes (no `--sizes`, no tile sizes), so that a user's `kernel[i]` keeps its band."""
    if not (walk.options.register_tiles and walk.options.cache_tiles and walk.sizes is None) or \
            walk.in_time_band(band):
        return None
    split = epilogues_apart(band, walk.dependences)     # cheap, and rare: first
    if split is None or _model_block_plan(band, walk) is not None:
        return None
    sequence, running = split
    return sequence if _model_block_plan(sequence.child(running).child(0), walk) is not None else None


def _model_block_plan(band: isl.ScheduleNode, walk: _Walk) -> BlockPlan | None:
    """The register block `_tiled` would give the band under the model's sizes."""
    steps = access_steps(band, walk.scop)
    order = point_order(band, walk.scop, steps)
    if not worth_tiling(steps, order.order):
        return None
    tile = _model_tile(band, walk, steps, order)
    points = permuted(band_tiled(band, tile).child(0), order.order)
    return block_plan(points, walk.scop, tile, order.order, order.vector_safe, None, _contiguous(steps, order),
                      aligned=False, dependences=walk.dependences)


def _model_tile(band: isl.ScheduleNode, walk: _Walk, steps: AccessSteps, order: PointOrder) -> tuple[int, ...]:
    """The cache model's tile sizes for the band (cache_sizes.py), its parallel member
    the one `_mark_parallel` will pick."""
    chosen = walk.parallel_member(band) if walk.options.openmp else None
    return cache_tile_sizes(steps, order.order, walk.scop, parallel=None if chosen is None else chosen[0])


def _contiguous(steps: AccessSteps, order: PointOrder) -> bool:
    """No access jumps along the band's innermost point loop."""
    return all(row[order.order[-1]] != FAR for row in steps.steps)


def _mark_parallel(node: isl.ScheduleNode, walk: _Walk, inside: bool,
                   chain: _Chain | None = None) -> isl.ScheduleNode:
    """Mark the outermost coincident member of each band not inside a parallel loop
    (OpenMP loops do not nest here); under a serial band whose parallel loops need no
    barriers between their executions (nowait.py), a mark `omp_nowaitN` and those loops
    `nowait` (`chain`: that band's). Returns the node at its position."""
    down = 0
    if node.get_type() == NT.band and not inside:
        chosen = walk.parallel_member(node)
        if chain is None and (chosen is None or chosen[0] > 0) and (chain := _steady_chain(node, walk)) is not None:
            node, down = node.insert_mark(isl.Id(f"{NOWAIT_MARK}{len(walk.loops)}", context=node.get_ctx())).child(0), 1
        why = None if chosen is None else (too_little(chain.work, walk.options.min_parallel_work) if chain else
                                            too_little_work(node, chosen[0], walk.in_bounds,
                                                            walk.options.min_parallel_work))
        if why is not None:
            lines = _source_lines(walk.scop, statement_names(node.get_domain()))
            walk.serial_notes.append(f"the parallel loop around the statements of line(s) {lines} stays serial: {why}")
            chosen, inside = None, True
        if chosen is not None:
            first, groups = chosen
            if first > 0:
                node, down = node.band_split(first).child(0), down + 1
            if node.band_n_member() > 1:
                node = node.band_split(1)
            node, down = _marked(node, walk, tuple((g.op, g.array) for g in groups), chain is not None), down + 1
            inside = True
    for k in range(node.n_children()):
        node = _mark_parallel(node.child(k), walk, inside, chain).parent()
    for _ in range(down):
        node = node.parent()
    return node


@dataclass(frozen=True)
class _Chain:
    """A serial band whose parallel loops below need no barriers between executions."""

    work: int | None    # statement instances per execution of the band (None: unbounded)


def _steady_chain(band: isl.ScheduleNode, walk: _Walk) -> _Chain | None:
    """The chain of `band` (serial, or parallel in a member after its first: the caller
    checks) where the first parallel loops below it, reached through bands, sequences,
    filters and marks, hold every statement under it, none runs a reduction, and every
    dependence between their instances, at the same values of the loops around `band`,
    joins instances at the same value of the parallel loop (nowait.py); else None."""
    parallel: list[isl.UnionMap] = []

    def found(node: isl.ScheduleNode, top: bool) -> bool:
        kind = node.get_type()
        if kind == NT.band:
            chosen = walk.parallel_member(node)
            if chosen is not None and not (top and chosen[0] == 0):
                if chosen[1]:
                    return False
                member = node.band_get_partial_schedule().get_at(chosen[0])
                parallel.append(isl.UnionMap.from_union_pw_aff(member).intersect_domain(node.get_domain()))
                return True
        elif kind == NT.leaf:
            return False        # a statement outside every parallel loop
        elif kind not in (NT.sequence, NT.set, NT.filter, NT.mark):
            return False
        return all(found(node.child(k), False) for k in range(node.n_children()))
    if not found(band, True) or not barrier_free(walk.ordering, band, union_of(parallel)):
        return None
    return _Chain(work_bound(band, 0, walk.in_bounds))


def _tiled(band: isl.ScheduleNode, walk: _Walk) -> tuple[isl.ScheduleNode, bool]:
    """The band tiled (tile band, point band below), sizes as for a CUDA kernel; the
    point loops reordered so that the innermost is parallel and unit-stride, and, where
    that is safe, marked for the vectoriser (`omp_simdN`); the innermost distributed
    over the statements under it where that takes one out of an outer point loop
    (`distribute`). Where a block of an array can stay in registers, the point band's
    full blocks get register tiles (register_tiles.py) and the rest keeps this form.
    A band that the user's `tile[]` or the cache model (`worth_tiling`) leaves whole is
    not tiled; its loops are reordered and marked all the same. `--sizes` may give the
    point-loop order (`order[...]`) and isolate the full tiles (`isolate[1]`). Returns
    the tile band (the band itself, untiled) and whether register tiles were made."""
    n = band.band_n_member()
    number = walk.first + len(walk.band_sizes)      # `kernel[number]` in --sizes
    if walk.in_time_band(band) and band.get_schedule_depth() == 0 and user_sizes(walk.sizes, number, "tile") != []:
        return _time_tiled(band, walk, number), False
    steps = access_steps(band, walk.scop)
    order = _asked_order(band, walk, number) or point_order(band, walk.scop, steps)
    asked = user_sizes(walk.sizes, number, "tile")
    if asked == [] or (asked is None and walk.options.cache_tiles and (
            not worth_tiling(steps, order.order) or _rows_to_threads(band, walk, steps, order))):
        # `tile[]`: the band stays whole, its loops reordered as a tile's
        walk.band_sizes.append(KernelSizes((), (), (), order=order.order, untiled=True))
        # no `omp simd` on the loop that OpenMP's threads share (a band's innermost member
        # may be its only parallel one: gramschmidt's)
        shared = walk.options.openmp and not any(band.band_member_get_coincident(m) for m in order.order[:-1])
        return _vector_points(permuted(band, order.order), walk, order.vector_safe and not shared).parent(), False
    if walk.options.cache_tiles:
        tile = _model_tile(band, walk, steps, order)
    else:
        tile = kernel_sizes(walk.options, walk.sizes, number, n, 0, 0).tile
    shape = _asked_block(walk.sizes, number)
    contiguous = _contiguous(steps, order)

    def blocks(tile: tuple[int, ...], aligned: bool = True, block: tuple[int, int] | None = shape):
        points = permuted(band_tiled(band, tile).child(0), order.order)
        plan = block_plan(points, walk.scop, tile, order.order, order.vector_safe, block, contiguous, aligned,
                          walk.dependences) if walk.options.register_tiles else None
        return points, plan
    points, plan = blocks(tile, aligned=not walk.options.cache_tiles)
    if plan is not None and walk.options.cache_tiles:
        fitted, block = _fitted_to_blocks(band, walk, tile, order.order, plan, contiguous, narrow=shape is None)
        if (fitted, block) != (tile, plan.extents):
            refitted = blocks(fitted, block=shape if block == plan.extents else block)
            if refitted[1] is None:     # the narrow blocks do not fit where the wide ones did
                fitted, _ = _fitted_to_blocks(band, walk, tile, order.order, plan, contiguous, narrow=False)
                refitted = blocks(fitted, block=shape)
            tile, (points, plan) = fitted, refitted
    register = plan.extents if plan is not None else (1, 1) if shape == (1, 1) else ()
    if plan is None and shape not in (None, (1, 1)) and walk.options.register_tiles and \
            blocks(tile, aligned=False)[1] is not None:     # the band would take it, the tile sizes not
        walk.warnings.append(f"--sizes: kernel {number} gets no register[{shape[0]}, {shape[1]}] blocks: the tile "
                             f"sizes ({', '.join(map(str, tile))}) along its rows and columns are not multiples of "
                             "the block's")
    if plan is None:
        tiled = _vector_points(points, walk, order.vector_safe).parent().parent()
    else:
        sequence = _register_blocks(points, plan, walk)
        tiled = _vector_points(sequence.child(1).child(0), walk, order.vector_safe).parent().parent().parent().parent()
    isolate = _isolated(walk, number)
    walk.band_sizes.append(KernelSizes(tile, (), (), register, order.order, isolated=isolate))
    if isolate:
        tiled = with_full_tiles_isolated(tiled, band.band_get_partial_schedule(), tile)
    return tiled, plan is not None


def _rows_to_threads(band: isl.ScheduleNode, walk: _Walk, steps: AccessSteps, order: PointOrder) -> bool:
    """Whether the band runs faster untiled, its innermost point loop the parallel one,
    each thread a share of every row without barriers in between (nowait.py), than in
    tiles. atax's `y[j] += A[i][j] * tmp[i]` (`j` parallel, `i` serial): tiles of 128
    columns cut each row of `A` into pieces that the hardware prefetcher streams one by
    one, while whole rows stream as one; the tile kept only `y`'s piece, which a
    thread's share of a row keeps as well (cache_sizes.shares_fit). At LARGE, side by
    side: 4.4 ms against 6.6 ms with one thread, 3.7 ms against 4.5 ms with two."""
    if not walk.options.openmp or band.get_schedule_depth() > 0:
        return False
    chosen = walk.parallel_member(band)
    innermost = order.order[-1]
    if chosen is None or chosen[0] != innermost or chosen[1] or not _contiguous(steps, order) or \
            any(band.band_member_get_coincident(m) for m in order.order[:-1]):
        return False
    extents = band_extents(band, walk.in_bounds)
    if None in extents or not shares_fit(steps, order.order, extents, walk.scop) or \
            (walk.options.register_tiles and _model_block_plan(band, walk) is not None):   # trmm's
        return False
    member = isl.UnionMap.from_union_pw_aff(band.band_get_partial_schedule().get_at(innermost))
    return barrier_free(walk.ordering, band, member.intersect_domain(band.get_domain()))


def _fitted_to_blocks(band: isl.ScheduleNode, walk: _Walk, tile: tuple[int, ...], order: tuple[int, ...],
                      plan: BlockPlan, contiguous: bool, narrow: bool) -> tuple[tuple[int, ...], tuple[int, int]]:
    """The model's tile sizes and register block for a band with blocks: whole blocks
    along the rows and the columns (blocked_tile_sizes); with `narrow` (the user asked for
    no block), narrower blocks in column tiles that divide the columns' extent where the
    default's leave an edge tile of more than a sixteenth of it
    (cache_sizes.edge_free_columns); the rows cut into tiles enough for the threads where
    their tile loop is the parallel one (cache_sizes.shared_tile_size)."""
    rows, columns = order[plan.rows_member], order[plan.columns_member]
    element_type = walk.scop.array(plan.array).element_type
    element = element_bytes(element_type)
    block = plan.extents
    fitted = blocked_tile_sizes(tile, (rows, block[0]), (columns, block[1]), contiguous, element)
    extents = band_extents(band, walk.in_bounds)
    thinner = narrow_block(element_type)
    if narrow and block[1] > thinner[1] and \
            (dividing := edge_free_columns(fitted[columns], extents[columns], thinner[1])) is not None:
        block = thinner
        fitted = blocked_tile_sizes(fitted[:columns] + (dividing,) + fitted[columns + 1:], (rows, block[0]),
                                    (columns, block[1]), contiguous, element)
    chosen = walk.parallel_member(band) if walk.options.openmp else None
    if chosen is not None and chosen[0] == rows:
        fitted = fitted[:rows] + (shared_tile_size(fitted[rows], extents[rows], block[0]),) + fitted[rows + 1:]
    return fitted, block


def _time_tiled(band: isl.ScheduleNode, walk: _Walk, number: int) -> isl.ScheduleNode:
    """The top band tiled along time (time_tiles.py): the point loops in the band's order
    (or `--sizes`' `order[...]`) and separated, the members of `whole[...]` (or, by the
    model, a row that fits one tile) untiled; with OpenMP, the tiles run as wavefronts.
    Returns the tile band."""
    n = band.band_n_member()
    asked = _asked_order(band, walk, number)
    order = asked.order if asked is not None else tuple(range(n))
    if walk.options.cache_tiles and user_sizes(walk.sizes, number, "tile") is None:
        tile = with_row_segments(time_tile_sizes(n), access_steps(band, walk.scop), walk.scop)
        whole = whole_rows(band, walk.in_bounds, tile)
    else:
        tile = kernel_sizes(walk.options, walk.sizes, number, n, 0, 0).tile
        whole = _asked_whole(walk, number, n)
    tiles = with_members_whole(band_tiled(band, tile), band.band_get_partial_schedule(), whole)
    points = in_source_order(separated(permuted(tiles.child(0), order)), walk.scop)
    tiles = _vector_rows(_row_pairs(rows_apart(points, walk.dependences), walk), walk).parent()
    if walk.options.openmp:
        tiles = wavefront(tiles)
        walk.wavefronts.append(isl.UnionMap.from_union_pw_aff(tiles.band_get_partial_schedule().get_at(1))
                               .intersect_domain(tiles.get_domain()))
    walk.band_sizes.append(KernelSizes(tile, (), (), (), order, whole=whole))
    walk.time_bands[frozenset(statement_names(band.get_domain()))] = number
    return tiles


def _row_pairs(points: isl.ScheduleNode, walk: _Walk) -> isl.ScheduleNode:
    """The point band of a time tile under a `row_pairsN` mark where its rows may run two
    at a time (row_pairs.py; `--no-row-pairs`: never), with every dependence kept, the
    relaxed reductions' too: a pair computes both values before storing either, which
    would lose one of two updates of one element. Returns the node at the band's place."""
    if not walk.options.row_pairs or not pairable(points, walk.ordering):
        return points
    pairs = RowPairs(len(walk.row_pairs), statement_names(points.get_domain()))
    walk.row_pairs.append(pairs)
    return points.insert_mark(isl.Id(pairs.name, context=points.get_ctx()))


def _vector_rows(node: isl.ScheduleNode, walk: _Walk) -> isl.ScheduleNode:
    """`node`'s subtree with each one-statement row of a time tile that reads neighbours
    along itself (`row_lanes`) under an `omp_simdN` mark of that width. Its loop carries
    no dependence: the statement has none along the band's innermost member with the
    others held (`rows_vectorise`). Returns `node`."""
    if node.get_type() == NT.band and node.band_n_member() == 1 and node.child(0).get_type() == NT.leaf:
        lanes = row_lanes(node, walk.scop, vector_bytes(), splits_wide_vectors())
        if not lanes:
            return node
        loop = replace(_loop_at(node, len(walk.vector_loops)), mark=SIMD_MARK, lanes=lanes)
        walk.vector_loops.append(loop)
        return node.insert_mark(isl.Id(loop.name, context=node.get_ctx()))
    for k in range(node.n_children()):
        node = _vector_rows(node.child(k), walk).parent()
    return node


def _asked_whole(walk: _Walk, number: int, n: int) -> tuple[int, ...]:
    """The members `--sizes` leaves untiled in time band `number` (`whole[...]`)."""
    asked = user_sizes(walk.sizes, number, "whole") or []
    if any(k >= n for k in asked):
        raise CompileError(f"--sizes: whole members of kernel {number} must be below {n}, its band's members")
    return tuple(sorted(set(asked)))


def _isolated(walk: _Walk, number: int) -> bool:
    """Whether band `number` has its full tiles apart (full_tiles.py): as `--sizes` says
    (`isolate[1]`; `isolate[0]`: not) or, by default, as --isolate-full-tiles."""
    asked = user_sizes(walk.sizes, number, "isolate")
    return walk.options.isolate_full_tiles if asked is None else asked != [0]


def _asked_order(band: isl.ScheduleNode, walk: _Walk, number: int) -> PointOrder | None:
    """The point-loop order `--sizes` gives band `number` (`order[...]`), or None."""
    asked = user_sizes(walk.sizes, number, "order")
    if asked is None:
        return None
    try:
        return given_order(band, walk.scop, asked)
    except CompileError as exc:
        raise CompileError(f"--sizes: kernel {number}: {exc.message}") from None


def _asked_block(sizes: isl.UnionMap | None, number: int) -> tuple[int, int] | None:
    """The register block `--sizes` gives band `number` (`register[R, C]`), or None."""
    asked = user_sizes(sizes, number, "register")
    if asked is not None and len(asked) != 2:
        raise CompileError(f"--sizes: register sizes of kernel {number} are rows and columns (two values: "
                           f"register[4, 8]; register[1, 1] for none), not {len(asked)}")
    return None if asked is None else (asked[0], asked[1])


def _vector_points(points: isl.ScheduleNode, walk: _Walk, vector_safe: bool) -> isl.ScheduleNode:
    """The point band with its innermost member a band of its own, distributed and, where
    safe, under an `omp_simdN` mark; returns the innermost band (or its mark)."""
    n = points.band_n_member()
    innermost = points.band_split(n - 1).child(0)     # a band of its own (isl prints the same loops)
    loop = replace(_loop_at(innermost, len(walk.vector_loops)), mark=SIMD_MARK) if vector_safe else None
    innermost = distributed(innermost, walk.dependences)
    if loop is not None:        # under the mark (above the distributed loops, if any)
        walk.vector_loops.append(loop)
        innermost = innermost.insert_mark(isl.Id(loop.name, context=points.get_ctx()))
    return innermost


def _register_blocks(points: isl.ScheduleNode, plan: BlockPlan, walk: _Walk) -> isl.ScheduleNode:
    """The point band split into its full register blocks and the rest (register_tiles.py);
    returns the sequence node of the two."""
    marks: list[str] = []

    def vector_mark() -> str:
        marks.append(f"{SIMD_MARK}{len(walk.vector_loops) + len(marks)}")
        return marks[-1]
    sequence, tile = blocked(points, plan, len(walk.register_tiles), vector_mark, walk.dependences)
    walk.register_tiles.append(tile)
    found = {}

    def collect(node: isl.ScheduleNode) -> None:
        if node.get_type() == NT.mark and node.mark_get_id().get_name() in marks:
            found[node.mark_get_id().get_name()] = node.child(0)
        for k in range(node.n_children()):
            collect(node.child(k))
    collect(sequence.child(0))
    for name in marks:
        walk.vector_loops.append(replace(_loop_at(found[name], len(walk.vector_loops)), mark=SIMD_MARK))
    return sequence


def _source_lines(scop: Scop, statements) -> str:
    """The source lines of `statements` (names), for -v: "12, 14"."""
    return ", ".join(sorted({str(st.line) for st in scop.statements if st.name in statements}, key=int))


def _first_coincident(band: isl.ScheduleNode) -> int | None:
    return next((k for k in range(band.band_n_member()) if band.band_member_get_coincident(k)), None)


def _marked(band: isl.ScheduleNode, walk: _Walk, reductions: tuple[tuple[str, str], ...] = (),
            nowait: bool = False) -> isl.ScheduleNode:
    """A one-member band under a new `omp_parallelN` mark; returns the band."""
    uneven = uneven_work(band)
    loop = replace(_loop_at(band, len(walk.loops)), reductions=reductions, uneven=uneven, nowait=nowait and not uneven)
    if not reductions and any(loop.point_schedule.is_equal(w) for w in walk.wavefronts):
        loop = replace(loop, waits=tile_waits(band, walk.chains))
    if loop.nowait:
        lines = _source_lines(walk.scop, statement_names(band.get_domain()))
        walk.serial_notes.append(f"the parallel loop around the statements of line(s) {lines} needs no "
                                 "barrier after each execution: the loops around it give each thread the same "
                                 "iterations every time (omp for nowait, one barrier after them)")
    walk.loops.append(loop)
    return band.insert_mark(isl.Id(loop.name, context=band.get_ctx())).child(0)


def _loop_at(band: isl.ScheduleNode, index: int) -> ParallelLoop:
    """The loop of a one-member band."""
    domain = band.get_domain()
    own = band_values(band, domain)
    return ParallelLoop(index, band.get_schedule_depth(), domain, band.get_prefix_schedule_union_map(), own)
