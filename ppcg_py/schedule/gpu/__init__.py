"""The GPU plan of a SCoP (CUDA, OpenCL): the split into host code and kernels, and each
kernel's tiling and mapping to blocks and threads, on isl's schedule (scheduler.py)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import islpy as isl

from ...diagnostics import Diagnostics
from ...extract.model import Scop
from ...gpu_targets import GPUS
from ...isl_context import sets_of, statement_names
from ...names import Names
from ...options import Options
from ..dependences import Dependences, untagged
from ..plan import ScheduledScop
from ..private import changed_values, privatize
from ..scheduler import compute_schedule, scheduling_start
from ..sizes import KernelSizes
from .absorb import absorb_loop_free
from ..loop_extents import in_bounds_instances
from .device_sizes import DeviceSizing
from ..expansion import Expansion, expand_temporaries, expansion_notes
from .host import HostEnds, host_ends, host_scalars, host_statements, written_scalars
from .hybrid import HybridPlan, HybridTiles, hybrid_schedule
from .kernels import Kernel, KernelMapper, long_reduction, threads_below
from .reduction_threads import ReducedLocation

__all__ = ["GpuSchedule", "Kernel", "schedule_scop"]


@dataclass(frozen=True, kw_only=True)
class GpuSchedule(ScheduledScop):
    """The GPU plan of a SCoP: its final tree has a `kernelN` mark on each kernel, with
    the kernel's tiles and mapping filters below, and host code around them."""

    kernels: tuple[Kernel, ...]
    host_statements: frozenset[str] = frozenset()   # run on the host, outside kernels (host.py)
    ends: HostEnds = HostEnds()     # of those, the serial head and tail (host code around the transfers)

    @property
    def host_scalars(self) -> frozenset[str]:
        """Scalars only host statements write: kernels get their values as arguments."""
        return host_scalars(self.scop, self.host_statements)

    @property
    def device_statements(self) -> frozenset[str]:
        """The statements that kernels run."""
        return frozenset(s.name for s in self.scop.statements) - self.host_statements

    def numbered_sizes(self) -> tuple[tuple[int, KernelSizes], ...]:
        """Each kernel's sizes, by its number (`kernel[i]` in --sizes)."""
        return tuple((k.index, k.sizes) for k in self.kernels)


def schedule_scop(scop: Scop, options: Options, first_kernel: int = 0,
                  diagnostics: Diagnostics | None = None) -> GpuSchedule:
    """Dependences, isl's schedule, kernels, and the scalars each kernel keeps per thread.

    Scalars may have their live ranges reordered, arrays only along loops that run
    in one thread (an array has no copy per thread). Should a kernel then share a
    scalar between threads that need copies of their own, that scalar is fixed too
    and the SCoP scheduled again: rare, and at most once per scalar."""
    diagnostics = Diagnostics() if diagnostics is None else diagnostics
    deps, sizes, names, fixed, reorderable = scheduling_start(scop, options, diagnostics)
    expansions: tuple[Expansion, ...] = ()
    if options.expand_arrays:
        scop, expansions = expand_temporaries(scop, deps)
        if expansions:      # the dependences of the program as it now is
            deps, sizes, names, fixed, reorderable = scheduling_start(scop, options, diagnostics)
    copies_back = frozenset(e.copy_back for e in expansions if e.copy_back)
    warned = False
    every = _every_dependence(deps)
    host_only = scop.host_only_statements
    _warn_before_first(scop, diagnostics)
    may_stay = host_statements(scop) | host_only     # on the host: absorb_loop_free leaves them
    device = device_sizing(scop, options)
    reductions = reduced_locations(scop, options)
    serial_sums = True
    while True:
        usual = compute_schedule(scop, deps, options, diagnostics, fixed, last=copies_back)
        hybrid = _hybrid(scop, options, every, device, usual)
        schedule, tiles = (hybrid.schedule, hybrid.tiles) if isinstance(hybrid, HybridPlan) else (usual, ())
        schedule = absorb_loop_free(schedule, every, may_stay)
        schedule, ends = host_ends(schedule, lambda node: threads_below(
            node, lambda band: serial_sums and long_reduction(band, reductions, every, device)))
        host, final, kernels = _mapped(scop, schedule, options, sizes, names, first_kernel, ends.statements,
                                       host_only, every, device, reductions, serial_sums, tiles)
        if kernels is None:     # a host-only statement the mapper could not keep out of a kernel
            ends = HostEnds(head=frozenset(s.name for s in scop.statements))
            if not warned:
                warned = True
                first = min((s for s in scop.statements if s.name in host_only), key=lambda s: (s.line, s.col))
                what = f"the call to '{first.calls[0]}' runs on the host (the function has no device version)" \
                    if first.calls else "the statement runs on the host (it reaches before an array's first element)"
                diagnostics.warn(f"{what} and the schedule puts it in the same loop body as code "
                                 "that would run on the GPU: the whole SCoP runs on the host",
                                 scop.file, first.line, first.col or 1)
            if tiles:   # split tiles are for launches (their marks would stay in the host's tree)
                hybrid = "a call to a function without a device version keeps the whole SCoP on the host"
                schedule, tiles = absorb_loop_free(usual, every, may_stay), ()
            host, final, kernels = _mapped(scop, schedule, options, sizes, names, first_kernel, ends.statements,
                                           device=device)
        found = [privatize(scop, deps, k, reorderable - fixed, apart=k.epilogue) for k in kernels]
        unsafe = frozenset().union(*(p.unsafe for p in found))
        if not unsafe and deps.reordering:
            unsafe = changed_values(scop, deps, schedule, kernels, [p.private for p in found], reorderable - fixed)
        if not unsafe:
            break
        if serial_sums and any(unsafe & p.private for k, p in zip(kernels, found) if k.block_ids):
            # a sum between serial statements, given threads of its own, split the live
            # range of a scalar that a parallel kernel keeps private (ludcmp's `w`): map
            # the sum in one thread again rather than lose the parallel kernel
            serial_sums = False
            continue
        fixed |= unsafe
    kernels = [replace(k, private=p.private) for k, p in zip(kernels, found)]
    notes = expansion_notes(scop, expansions) if options.verbose else ()
    if options.verbose and options.hybrid:
        notes += (f"--hybrid: {hybrid.note}" if isinstance(hybrid, HybridPlan) else
                  f"--hybrid does not apply to the SCoP of '{scop.function}': {hybrid}",)
    if options.verbose and scop.reductions:
        every_reduction = reduced_locations(scop, replace(options, reductions=True))
        would = None if options.reductions or every_reduction == reductions else \
            _mapped(scop, schedule, options, sizes, names, first_kernel, ends.statements, host_only, every, device,
                    every_reduction, serial_sums, tiles)[2]
        notes += gpu_reduction_notes(scop, kernels, would)
    return GpuSchedule(scop=scop, dependences=deps, schedule=schedule, final_schedule=final, names=names,
                       notes=notes, kernels=tuple(kernels), host_statements=host, ends=ends)


def _warn_before_first(scop: Scop, diagnostics: Diagnostics) -> None:
    """A warning per array reached before its first element (`Array.before_first`):
    the statements that access it run on the host (`Scop.host_only_statements`)."""
    for array in (a for a in scop.arrays if a.before_first):
        first = min((s for s in scop.statements if any(acc.array == array.name for acc in s.accesses)),
                    key=lambda s: (s.line, s.col))
        diagnostics.warn(f"'{array.name}' is accessed before its first element (a negative index); the device's "
                         "copies start at the first element, so the statements that access it run on the host "
                         "(pass a pointer to the first element accessed to run them on the GPU)",
                         scop.file, first.line, first.col or 1)


def gpu_reduction_notes(scop: Scop, kernels: Sequence[Kernel], would: Sequence[Kernel] | None) -> tuple[str, ...]:
    """-v for the GPU targets: the reductions whose partials a kernel's threads combine
    (schedule/gpu/reduction_threads.py) and, from `would` (the mapping with every reduction
    enabled, when --reductions is not given), those that --reductions would add."""
    found = {r.statement: r for r in scop.reductions}
    lines = []
    combined = {r.statement for k in kernels for r in k.reductions}
    for k in kernels:
        lines += [_reduction_line(found[r.statement], f"the threads of {k.name} combine it over thread x"
                                  + (", then its blocks" if k.reduction_over_blocks else ""))
                  for r in k.reductions]
        if k.epilogue is not None:
            readers = sorted(statement_names(k.epilogue), key=lambda name: int(name.split("_")[-1]))
            lines.append(f"{k.name}: {', '.join(readers)} {'reads' if len(readers) == 1 else 'read'} the result "
                         "after the combination, in the same kernel")
    for k in would or ():
        lines += [_reduction_line(found[r.statement], f"serial; with --reductions the threads of {k.name} "
                                  "would combine it") for r in k.reductions if r.statement not in combined]
    named = combined | {r.statement for k in would or () for r in k.reductions}
    lines += [_reduction_line(r, "serial on the GPU: no kernel's threads combine it (it is not the first "
                                 "sequential member of a parallel kernel's band, or a thread would hold several "
                                 "of its locations, or the band's parallel loops fill the GPU without it)")
              for r in scop.reductions if r.statement not in named]
    return tuple(dict.fromkeys(lines))


def _reduction_line(r, status: str) -> str:
    return f"{r.statement} (line {r.line}): reduction '{r.written}' on {r.array}: {status}"


def reduced_locations(scop: Scop, options: Options) -> tuple[ReducedLocation, ...]:
    """The reductions whose partials a kernel's threads may combine (GPU targets): the
    exact ones (integers, min, max), and with --reductions the floating-point ones."""
    if options.target == "c":
        return ()
    found = []
    for r in scop.reductions:
        if not (r.exact or options.reductions):
            continue
        stmt = next(s for s in scop.statements if s.name == r.statement)
        write = next(a for a in stmt.accesses if a.tag == r.write)
        found.append(ReducedLocation(r.statement, r.op, r.array, frozenset((*r.reads, r.write)), write.index))
    return tuple(found)


def device_sizing(scop: Scop, options: Options) -> DeviceSizing | None:
    """What sizing kernels for the GPU needs: the sizes themselves when no size option
    is given, else only the grids the user's sizes leave to ppcg-py (GPU targets)."""
    if options.target == "c":
        return None
    return DeviceSizing(GPUS[options.gpu], in_bounds_instances(scop), choose=options.device_sizes)


def _hybrid(scop: Scop, options: Options, every: isl.UnionMap, device: DeviceSizing | None,
            schedule: isl.Schedule) -> HybridPlan | str:
    """isl's schedule with the split tiles `--hybrid` asks for (schedule/gpu/hybrid.py), or
    why there are none."""
    if not options.hybrid:
        return "not asked for"
    if options.target != "cuda":
        return "it applies to the CUDA target (its launches run several steps in a device loop)"
    if device is None or not device.choose:
        return "sizes are given (--sizes or --ppcg-defaults): the hybrid tiles choose their own"
    return hybrid_schedule(scop, every, device.in_bounds, schedule)


def _every_dependence(deps: Dependences) -> isl.UnionMap:
    """Every dependence between statement instances, the order dependences of the
    scalars included (what a statement moved into another launch must not cross)."""
    result = deps.all
    return result if deps.tagged_order is None else result.union(untagged(deps.tagged_order))


def _mapped(scop: Scop, schedule: isl.Schedule, options: Options, sizes: isl.UnionMap | None, names: Names,
            first_kernel: int, ends: frozenset[str] = frozenset(), pinned: frozenset[str] = frozenset(),
            dependences: isl.UnionMap | None = None, device: DeviceSizing | None = None,
            reductions: tuple[ReducedLocation, ...] = (),
            serial_sums: bool = True,
            hybrid: tuple[HybridTiles, ...] = ()) -> tuple[frozenset[str], isl.Schedule, list[Kernel] | None]:
    """The statements left on the host, the tree with kernels marked, and the kernels.
    `ends`: the SCoP's serial head and tail (host.py), which stay on the host;
    `pinned`: statements that must run on the host wherever they are (they call a
    function the device does not have). None for the kernels: the mapper could not
    keep a pinned statement out of every kernel.

    A host statement that the schedule puts inside a kernel runs there; its
    scalars are then no host scalars, and the mapping is made again."""
    excluded: frozenset[str] = frozenset()
    while True:
        host = host_statements(scop, excluded, ends) | pinned
        mapper = KernelMapper(options, sizes, names, first_kernel, host, pinned - ends, dependences, device,
                              reductions, serial_sums, hybrid)
        final = mapper.run(schedule)
        launched = frozenset(s.get_tuple_name() for k in mapper.kernels for s in sets_of(k.domain))
        if mapper.mixed or launched & pinned:
            return host, final, None
        stranded = frozenset(s.name for s in scop.statements
                             if not s.domain.intersect_params(scop.context).is_empty()) - launched - host
        if stranded:    # never silently: such a statement would run on the host with device data
            raise RuntimeError(f"statements {sorted(stranded)} are in no kernel")
        if not host & launched:
            return host, final, mapper.kernels
        if ends & launched:     # never: the mapper leaves the head and tail alone
            raise RuntimeError(f"statements {sorted(ends & launched)} of the host ends are in a kernel")
        excluded |= written_scalars(scop, host & launched)
