"""The stages of a compilation (listed in driver.STAGES): each takes what the
stages before it learnt (`Compilation`) and adds its part; each has a `dump` that
renders its result as text (--dump-after=STAGE)."""
from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

import islpy as isl

from .codegen.ast import InstancesLost, ScopAst, build_ast
from .codegen.ast import dump as dump_ast
from .codegen.c_target import CFile, build_c_ast, generate_c
from .codegen.common import GeneratedFiles
from .codegen.cuda import generate_cuda
from .codegen.expr import param_expr
from .codegen.opencl import generate_opencl
from .codegen.path_choice import describe as describe_path
from .codegen.source import read_source
from .diagnostics import Diagnostics
from .extract import Program, extract_program
from .extract.model import Scop
from .gpu_targets import GPUS, GpuTarget
from .isl_budget import OutOfOperations, operations_bound
from .memory import MemoryPlan, plan_memory
from .options import Options
from .schedule.cpu import CpuSchedule, schedule_for_cpu
from .schedule.gpu import GpuSchedule, schedule_scop
from .schedule.gpu.device_loops import DEVICE_LOOP, HYBRID_LAUNCH
from .schedule.gpu.work import describe as describe_work
from .schedule.plan import ScheduledScop, used_sizes
from .schedule.sizes import format_sizes
from .watchdog import Progress, Step, StepGaveUp, StepTooLong


@dataclass(frozen=True)
class OnHost:
    """SCoPs that keep their original C code and run on the host: the last resort
    when compiling them does not finish within the bounds."""

    lines: frozenset[int] = frozenset()     # the SCoPs that start on these lines
    every: bool = False

    def __contains__(self, scop: Scop) -> bool:
        return self.every or scop.start_line in self.lines


@dataclass(frozen=True)
class Compilation:
    """What the stages have learnt of one input so far."""

    path: str
    program: Program | None = None                                  # extract
    scheduled: tuple[ScheduledScop, ...] = ()                       # schedule (GpuSchedule, or CpuSchedule for C)
    host_scheduled: tuple[CpuSchedule, ...] = ()                    # schedule: the host paths (GPU targets)
    plans: tuple[tuple[GpuSchedule, MemoryPlan], ...] = ()         # memory
    asts: tuple[ScopAst, ...] = ()                                  # ast (one per plan)
    host_asts: tuple[ScopAst, ...] = ()                             # ast (one per host path)
    files: GeneratedFiles | CFile | None = None                     # print


@dataclass(frozen=True)
class StageRun:
    """What a stage runs with: the settings, the isl context, where warnings go, and
    its steps, named after the stage (`schedule`, or `schedule (matmul)` per SCoP):
    reported to the watchdog (which names the step that ran past a timeout), timed
    for -v, and bounded by --isl-max-operations each."""

    options: Options
    ctx: isl.Context
    diagnostics: Diagnostics
    on_host: OnHost = OnHost()
    progress: Progress | None = None
    stage: str = ""

    def of(self, stage: str) -> StageRun:
        return replace(self, stage=stage)

    def step_of(self, scop: Scop | None = None) -> Step:
        return Step(self.stage) if scop is None else Step(f"{self.stage} ({scop.function})", scop.start_line)

    @contextmanager
    def step(self, scop: Scop | None = None) -> Iterator[None]:
        step = self.step_of(scop)
        if self.progress is not None:
            self.progress(step)
        start = time.perf_counter()
        try:
            with operations_bound(self.ctx, self.options.isl_max_operations):
                yield
        except OutOfOperations:
            raise StepTooLong(step, f"exceeded isl's operation limit "
                                    f"({self.options.isl_max_operations})") from None
        if self.options.verbose:
            print(f"ppcg-py: {step.name}: {1000 * (time.perf_counter() - start):.1f} ms", file=sys.stderr)


@dataclass(frozen=True)
class Stage:
    """A named stage: `run` adds its part to the compilation, `dump` renders it."""

    name: str
    run: Callable[[Compilation, StageRun], Compilation]
    dump: Callable[[Compilation], str]


# -- extract ------------------------------------------------------------------
def extract(c: Compilation, run: StageRun) -> Compilation:
    options = run.options
    with run.step():
        program = extract_program(c.path, run.ctx, include_dirs=options.include_dirs, defines=options.defines,
                                  context=options.context, assume_nonneg=options.assume_nonneg,
                                  check_cxx=options.target == "cuda", kept=run.on_host.__contains__)
    for file, line in program.empty:   # left as written (extract_program)
        run.diagnostics.warn("empty SCoP", file, line)
    if not program.scops and not program.empty:
        run.diagnostics.warn("no #pragma scop region found; the host file is a copy of the input", c.path)
    _warn_external_calls(program.scops, run.diagnostics)
    if options.verbose:
        for scop in (s for s in program.scops if s.checked is not None):
            print(f"ppcg-py: SCoP of {scop.function} (lines {scop.start_line}-{scop.end_line}) assumes {scop.checked} "
                  "(its flat arrays' rows whole), checked when it starts: where that fails, its original code runs",
                  file=sys.stderr)
    return replace(c, program=program)


def _warn_external_calls(scops, diagnostics: Diagnostics) -> None:
    """One warning per function the file only declares (extract/external.py): what its
    calls are assumed to do."""
    warned: set[str] = set()
    for scop in scops:
        for name, line, col, pure in scop.external_calls:
            if name in warned:
                continue
            warned.add(name)
            what = ("declared pure: its calls are assumed to read their arguments (and what their pointers "
                    "reach) and nothing else" if pure else
                    "its calls are assumed to read (through a non-const pointer, also write) all that their "
                    "pointer arguments reach, the file's globals the SCoP uses, and state of their own, in the "
                    "order written")
            diagnostics.warn(f"'{name}' has no body in this file; {what}; on a GPU target they run on the host",
                             scop.file, line, col or 1)


def dump_extract(c: Compilation) -> str:
    return "\n".join(describe_scop(scop) for scop in c.program.scops) or f"# no SCoP in {c.path}"


def describe_scop(scop: Scop) -> str:
    """A SCoP's parameters, context, arrays, statements and accesses (--dump-scop)."""
    lines = [f"# SCoP of {scop.function} (lines {scop.start_line}-{scop.end_line})",
             f"parameters: {', '.join(scop.parameters) or '-'}", f"context: {scop.context}"]
    for arr in scop.arrays:
        lines.append(f"array {arr.element_type} {arr.name}" + "".join(f"[{e}]" for e in arr.extents))
    reductions = {r.statement: r for r in scop.reductions}
    for stmt in scop.statements:
        label = f", label {stmt.label}" if stmt.label else ""
        lines.append(f"{stmt.name} (line {stmt.line}{label}): {stmt.domain}")
        for acc in stmt.accesses:
            kind = "read+write" if acc.is_read and acc.is_write else ("write" if acc.is_write else "read")
            lines.append(f"  {kind}: {acc.tagged_index()}")
        if stmt.name in reductions:
            r = reductions[stmt.name]
            lines.append(f"  reduction '{r.written}' on {r.array} "
                         + ("(exact)" if r.exact else "(reassociation changes its rounding: --reductions)"))
    return "\n".join(lines)


# -- schedule -----------------------------------------------------------------
def schedule(c: Compilation, run: StageRun) -> Compilation:
    """Each SCoP not left on the host; PPCG's --dump-scop, --dump-schedule and
    --dump-final-schedule per SCoP as it is scheduled, then --dump-sizes."""
    scheduled: list[ScheduledScop] = []
    for scop in (s for s in c.program.scops if s not in run.on_host):
        _legacy_dump(run.options, "scop", lambda: describe_scop(scop))
        first = len(used_sizes(scheduled))     # the SCoP's first kernel or tiled band in --sizes
        with run.step(scop):
            result: ScheduledScop = schedule_for_cpu(scop, run.options, run.diagnostics, first_tiled=first) \
                if run.options.target == "c" else \
                schedule_scop(scop, run.options, first_kernel=first, diagnostics=run.diagnostics)
        if run.options.verbose:
            for line in result.notes:
                print(f"ppcg-py: {line}", file=sys.stderr)
        _legacy_dump(run.options, "schedule", lambda: str(result.schedule.get_root()))
        _legacy_dump(run.options, "final-schedule", lambda: str(result.final_schedule.get_root()))
        scheduled.append(result)
    _legacy_dump(run.options, "sizes", lambda: format_sizes(used_sizes(scheduled)))
    return replace(c, scheduled=tuple(scheduled),
                   host_scheduled=_host_paths(scheduled, run, c.program.host_stays_c))


def _host_paths(scheduled: list[ScheduledScop], run: StageRun, host_in_c: bool) -> tuple[CpuSchedule, ...]:
    """For a GPU target, each SCoP that launches kernels scheduled again as the C target
    schedules it (OpenMP, tiled, sizes from the cache model): the code the program runs
    where no device is usable or the device is not worth it (codegen/path_choice.py).
    None with --no-host-path; a SCoP without kernels is host code already, but where the
    host code stays C (`host_in_c`: a SCoP's device code is a C++ function that gets its
    arrays as flat pointers) every SCoP gets one, for the calls that function cannot make."""
    if run.options.target == "c" or not run.options.host_path:
        return ()
    options = host_path_options(run.options)
    paths: list[CpuSchedule] = []
    for s in scheduled:
        if isinstance(s, GpuSchedule) and (s.kernels or host_in_c):
            with run.of(HOST_PATH_STEP).step(s.scop):
                paths.append(schedule_for_cpu(s.scop, options, Diagnostics(), first_tiled=len(used_sizes(paths))))
    return tuple(paths)


# the steps that make the host paths, named apart: past a bound, the compilation is tried
# again without host paths first (driver.py)
HOST_PATH_STEP = "host path"


def host_path_options(options: Options) -> Options:
    """The C target's options for the host paths of a GPU target: OpenMP, tiles sized
    by the cache model (the size options size the kernels only), and no register
    blocks: their code is most of the C target's compile time (gemm's C AST 0.58 s with
    them, 0.04 s without), and a host path without them still runs gemm, 2mm and syr2k
    6 to 10 times faster than gcc (--target=c keeps them). No time tiles and no copies of
    scalars either: they ask isl's scheduler a second time (heat-3d's compilation would
    pass 3 s; deriche's host path would take 1.2 s more)."""
    return replace(options, target="c", openmp=True, tile=True, cache_tiles=True, sizes=None, tile_sizes=None,
                   register_tiles=False, time_tiles="never", expand_arrays=False, verbose=False, dumps=frozenset())


def dump_schedule(c: Compilation) -> str:
    return "\n".join(f"# final schedule of {s.scop.function} (lines {s.scop.start_line}-{s.scop.end_line})\n"
                     f"{s.final_schedule.get_root()}" for s in c.scheduled) or "# no SCoP scheduled"


# -- memory -------------------------------------------------------------------
def memory(c: Compilation, run: StageRun) -> Compilation:
    if run.options.target == "c":   # the program's own variables: nothing to place
        return c
    plans = []
    for s in c.scheduled:
        with run.step(s.scop):
            plans.append((s, plan_memory(s, run.options)))
    if run.options.verbose:
        _report(plans, GPUS[run.options.gpu])
    return replace(c, plans=tuple(plans))


def dump_memory(c: Compilation) -> str:
    """Per device array, what crosses each way; per kernel, where each reference group lives."""
    lines: list[str] = []
    for scheduled, plan in c.plans:
        lines.append(f"# memory of {scheduled.scop.function} (lines {scheduled.scop.start_line}-"
                     f"{scheduled.scop.end_line})")
        context = scheduled.scop.context
        for dev in plan.arrays:
            lines.append(f"array {dev.array.name}: copy in {_crossing(dev.copy_in, dev.in_box, context)}, "
                         f"copy out {_crossing(dev.copy_out, dev.out_box, context)}")
        for kernel in scheduled.kernels:
            kmem = plan.kernel(kernel.name)
            lines.append(f"{kernel.name}: shared memory {kmem.shared_bytes} bytes")
            lines += [f"  group {g.array}: {_placement(g)} ({g.reason})" for g in kmem.groups]
            lines += [f"  shuffle: {s.describe()}" for s in kmem.shuffles]
        lines += ["# schedule tree with copies, syncs and transfers", _tree_text(plan.schedule)]
    return "\n".join(lines) or "# no SCoP planned"


def _tree_text(schedule: isl.Schedule) -> str:
    """The tree in isl's block style: one node per line, nested by indentation."""
    printer = isl.Printer.to_str(schedule.get_ctx()).set_yaml_style(isl.yaml_style.BLOCK)
    return printer.print_schedule(schedule).get_str()


def _crossing(crosses: bool, box, context: isl.Set) -> str:
    """`no`, or `yes` and the box's outer dimensions as C ranges (inner ones cross whole)."""
    if not crosses:
        return "no"
    return "yes " + ("".join(f"[{param_expr(low, context)} .. {param_expr(high, context)}]" for low, high in box)
                     if box else "(whole)")


def _launched_in(launch: str) -> str:
    """-v: how the one launch that runs a kernel runs it (schedule/gpu/device_loops.py)."""
    if launch.startswith(HYBRID_LAUNCH):
        return "one launch runs a band of steps, each block one tile, a barrier after each step"
    if launch.startswith(DEVICE_LOOP):
        return "one launch of one block runs it and the loop around it"
    return "one launch of one block runs it and the kernels next to it"


def _placement(group) -> str:
    if group.placement == "global":
        return "global"
    if group.placement == "argument":
        return f"kernel argument {group.name} (by value)"
    if group.placement == "private" and not group.shape and group.copy_in is None and group.copy_out is None:
        return f"private variable {group.name}"
    return f"{group.placement} {group.name}{''.join(f'[{e}]' for e in group.shape)} at depth {group.level}"


def _report(plans, card: GpuTarget) -> None:
    """What was mapped where (-v): per kernel, its mapping and each reference group's memory;
    the statements that run on the host between kernels, and why."""
    for scheduled, plan in plans:
        for stmt in scheduled.scop.statements:
            if stmt.calls and stmt.name in scheduled.host_statements and stmt.name not in scheduled.ends.statements:
                copies = sorted({s.device.array.name for s in plan.syncs if stmt.name in s.statements})
                print(f"ppcg-py: {stmt.name} (line {stmt.line}) runs on the host between kernels: it calls "
                      f"{', '.join(repr(c) for c in stmt.calls)}, which the device does not have"
                      + (f"; copied back and forth around it: {', '.join(copies)}" if copies else ""),
                      file=sys.stderr)
        for kernel in scheduled.kernels:
            kmem, ks = plan.kernel(kernel.name), kernel.sizes
            mapping = (f"tile {list(ks.tile)}, blocks {list(kernel.block_ids)} grid {list(ks.grid)}, "
                       f"threads {list(kernel.thread_ids)} block {list(ks.block)}") if ks.tile else "single thread"
            print(f"ppcg-py: {kernel.name} ({scheduled.scop.function}): {mapping}; "
                  f"shared memory {kmem.shared_bytes} bytes"
                  + (f"; sizes {kernel.sizes_reason}" if kernel.sizes_reason else "")
                  + (f"; in {kernel.launched_in} ({_launched_in(kernel.launched_in)})" if kernel.launched_in else ""),
                  file=sys.stderr)
            for g in kmem.groups:
                print(f"ppcg-py:   {kernel.name} group {g.array}: {_placement(g)} ({g.reason})", file=sys.stderr)
            for shuffle in kmem.shuffles:
                print(f"ppcg-py:   {kernel.name} {shuffle.describe()}", file=sys.stderr)
            print(f"ppcg-py:   {describe_work(scheduled.scop, kernel, card)}", file=sys.stderr)
        for dev in plan.arrays:
            print(f"ppcg-py:   {dev.array.name}: copy in {'yes' if dev.copy_in else 'no'}, "
                  f"copy out {'yes' if dev.copy_out else 'no'}", file=sys.stderr)


# -- ast ----------------------------------------------------------------------
def ast(c: Compilation, run: StageRun) -> Compilation:
    """One isl AST per SCoP, from the tree the memory stage wrote its copies into (for
    the C target, which has no memory stage, from the schedule stage's tree)."""
    if run.options.target == "c":
        asts = []
        for scheduled in c.scheduled:
            asts.append(_built(run, scheduled.scop, lambda: build_c_ast(scheduled)))
            for warning in asts[-1].warnings:
                run.diagnostics.warn(warning, scheduled.scop.file, scheduled.scop.start_line, 1)
        return replace(c, asts=tuple(asts))
    asts = []
    for scheduled, plan in c.plans:
        asts.append(_built(run, scheduled.scop, lambda: build_ast(scheduled, plan)))
    host_asts = []
    for scheduled in c.host_scheduled:
        host_asts.append(_built(run.of(f"{HOST_PATH_STEP} ast"), scheduled.scop, lambda: build_c_ast(scheduled)))
        for warning in host_asts[-1].warnings:
            run.diagnostics.warn(warning, scheduled.scop.file, scheduled.scop.start_line, 1)
    return replace(c, asts=tuple(asts), host_asts=tuple(host_asts))


def _built(run: StageRun, scop: Scop, build: Callable[[], ScopAst]) -> ScopAst:
    """One SCoP's AST; where isl's generator loses instances (an isl bug), the step gives
    up, and the driver compiles again as it does for a step that runs too long: in the
    original loop order, then with the SCoP left on the host as its C code."""
    with run.step(scop):
        try:
            return build()
        except InstancesLost as exc:
            lost = str(exc)
    raise StepGaveUp(run.step_of(scop), lost)


def dump_asts(c: Compilation) -> str:
    return "\n".join(f"# AST of {a.scop.function} (lines {a.scop.start_line}-{a.scop.end_line})\n{dump_ast(a)}"
                     for a in c.asts) or "# no SCoP"


# -- print --------------------------------------------------------------------
def print_files(c: Compilation, run: StageRun) -> Compilation:
    """The host and kernel files (CUDA, OpenCL), or the one C file (`--target=c`)."""
    on_host = [scop.start_line for scop in c.program.scops if scop in run.on_host]
    with run.step():
        if run.options.target == "c":
            files = generate_c(c.path, _read(c.path), list(zip(c.scheduled, c.asts)), tiled=run.options.tile,
                               openmp=run.options.openmp, on_host=on_host, name=run.options.output_name,
                               row_functions=run.options.row_functions)
        else:
            scops = [(scheduled, plan, tree) for (scheduled, plan), tree in zip(c.plans, c.asts)]
            host_paths = {p.scop.start_line: (p, tree) for p, tree in zip(c.host_scheduled, c.host_asts)}
            if run.options.verbose:
                _report_paths(c, host_paths)
            if run.options.target == "opencl":
                files = generate_opencl(c.path, _read(c.path), scops, run.options, on_host=on_host,
                                        host_paths=host_paths)
            else:
                files = generate_cuda(c.path, _read(c.path), scops, run.options,
                                      host_in_c=c.program.host_stays_c, on_host=on_host, host_paths=host_paths)
    # the sizes travel with the text: --autotune varies them without parsing --dump-sizes
    return replace(c, files=replace(files, sizes=used_sizes(c.scheduled)))


def _report_paths(c: Compilation, host_paths: dict) -> None:
    """Each SCoP's run-time rule (-v): where it runs, and why when it has one place only."""
    for scheduled, plan in c.plans:
        scop = scheduled.scop
        where = f"SCoP of {scop.function} (lines {scop.start_line}-{scop.end_line})"
        calls = sorted({name for s in scop.statements for name in s.calls})
        if scop.start_line in host_paths and c.program.host_stays_c and calls:
            print(f"ppcg-py: {where} runs on the host: it calls {', '.join(map(repr, calls))}, which only the host "
                  "runs, and the file's host code stays C", file=sys.stderr)
        elif scop.start_line in host_paths and scheduled.kernels:
            print(f"ppcg-py: {describe_path(scheduled, plan, host_paths[scop.start_line][0])}", file=sys.stderr)
        elif scheduled.kernels:
            print(f"ppcg-py: {where} runs on the device only: --no-host-path", file=sys.stderr)


def dump_files(c: Compilation) -> str:
    return "\n".join(f"# file {name}\n{text}" for name, text in c.files.items())


def _read(path: str) -> str:
    return read_source(path)


def _legacy_dump(options: Options, what: str, text: Callable[[], str]) -> None:
    """PPCG's --dump-WHAT: printed where PPCG prints it, per SCoP as it is scheduled."""
    if what in options.dumps:
        print(text())
