"""The pipeline: extract -> schedule -> memory -> codegen, then write the files."""
from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

import islpy as isl

from .codegen import GeneratedFiles, generate
from .diagnostics import CompileError, Diagnostics
from .extract import extract_program
from .extract.model import Scop
from .isl_context import new_context
from .memory import plan_memory
from .options import Options
from .schedule import schedule_scop
from .schedule.sizes import format_sizes
from .isl_budget import OutOfOperations, operations_bound
from .watchdog import Progress, Step, StepTooLong, run_with_deadline


@dataclass(frozen=True)
class OnHost:
    """SCoPs that keep their original C code and run on the host: the last resort
    when compiling them does not finish within the bounds."""

    lines: frozenset[int] = frozenset()     # the SCoPs that start on these lines
    every: bool = False

    def __contains__(self, scop: Scop) -> bool:
        return self.every or scop.start_line in self.lines


def compile_source(path: str, options: Options, progress: Progress | None = None,
                   on_host: OnHost = OnHost(), diagnostics: Diagnostics | None = None) -> GeneratedFiles:
    """Compile one C file into CUDA host and kernel source (nothing written)."""
    diagnostics = Diagnostics() if diagnostics is None else diagnostics
    ctx = new_context(serialize_sccs=options.serialize_sccs, whole_component=options.whole_component,
                      outer_coincidence=options.outer_coincidence,
                      max_coefficient=options.max_coefficient, feautrier=options.feautrier)
    stage = _Stages(ctx, options, progress)
    with stage("extract"):
        program = extract_program(path, ctx, include_dirs=options.include_dirs, defines=options.defines,
                                  context=options.context, assume_nonneg=options.assume_nonneg)
    if not program.scops:
        diagnostics.warn("no #pragma scop region found; the host file is a copy of the input", path)
    scops = [scop for scop in program.scops if scop not in on_host]
    scheduled = []
    for scop in scops:
        _dump(options, "scop", lambda s=scop: _describe_scop(s))
        with stage(f"schedule ({scop.function})", scop.start_line):
            result = schedule_scop(scop, options, first_kernel=sum(len(s.kernels) for s in scheduled),
                                   diagnostics=diagnostics)
        _dump(options, "schedule", lambda r=result: str(r.schedule.get_root()))
        _dump(options, "final-schedule", lambda r=result: str(r.final_schedule.get_root()))
        scheduled.append(result)
    _dump(options, "sizes", lambda: format_sizes([(k.index, k.sizes) for s in scheduled for k in s.kernels]))
    plans = []
    for s in scheduled:
        with stage(f"memory ({s.scop.function})", s.scop.start_line):
            plans.append((s, plan_memory(s, options)))
    if options.verbose:
        _report(plans)

    def entering(scop: Scop) -> None:      # so that a timeout in codegen names its SCoP
        if progress is not None:
            progress(Step(f"codegen ({scop.function})", scop.start_line))

    with stage("codegen"):
        return generate(path, _read(path), plans, options, host_in_c=program.vla_parameters,
                        on_host=[scop.start_line for scop in program.scops if scop in on_host], entering=entering)


def compile_bounded(path: str, options: Options, diagnostics: Diagnostics | None = None) -> GeneratedFiles:
    """`compile_source` within `--timeout` seconds and `--isl-max-operations` per step.

    A compilation that runs past either bound is tried again, with a warning each
    time, in configurations whose cost is ever more predictable: the original loop
    order with global memory only; then with the SCoP that was too slow left on
    the host as its original C code; then with every SCoP left there. Each result
    is correct; only the last failure (in extract, which every try needs) is an error.
    """
    diagnostics = Diagnostics() if diagnostics is None else diagnostics
    def attempt(opts: Options, on_host: OnHost = OnHost()) -> GeneratedFiles:
        return run_with_deadline(lambda progress: compile_source(path, opts, progress, on_host), options.timeout)

    try:
        return attempt(options)
    except StepTooLong as exc:
        failed = exc
    simple = replace(options, reschedule=False, use_shared_memory=False, use_private_memory=False,
                     unroll_copy_shared=False, unroll_gpu_tile=False)
    fallbacks = (
        lambda step: (simple, OnHost(), "the original loop order and global memory only") if simple != options
        else None,
        lambda step: (simple, OnHost(frozenset({step.line})), "that SCoP left on the host as its original C code")
        if step.line is not None else None,
        lambda step: (simple, OnHost(every=True), "every SCoP left on the host as its original C code"),
    )
    tried: list[str] = []
    for fallback in fallbacks:
        chosen = fallback(failed.step) if failed.step.name != "extract" else None   # every try needs extract
        if chosen is None:
            continue
        opts, on_host, description = chosen
        _warn(diagnostics, path, failed, f"compiling again with {description}")
        tried.append(description)
        try:
            return attempt(opts, on_host)
        except StepTooLong as exc:
            failed = exc
    raise _too_long(path, failed, tried)


def _warn(diagnostics: Diagnostics, path: str, failed: StepTooLong, doing: str) -> None:
    line = failed.step.line
    diagnostics.warn(f"{failed.step.name} {failed.what}; {doing} (--timeout and --isl-max-operations set the "
                     "bounds)", path, line, 1 if line is not None else None)


def _too_long(path: str, exc: StepTooLong, tried: list[str]) -> CompileError:
    again = f", also with {', then with '.join(tried)}" if tried else ""
    return CompileError(f"{exc.step.name} {exc.what}{again}", path, exc.step.line,
                        1 if exc.step.line is not None else None)


def write_outputs(files: GeneratedFiles, output_dir: str) -> list[str]:
    """Write all outputs or none: each goes to a temporary file, renamed at the end."""
    if not os.path.isdir(output_dir):
        raise CompileError(f"output directory '{output_dir}' does not exist")
    staged: list[tuple[str, str]] = []
    try:
        for name, text in files.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=output_dir)
            staged.append((tmp, os.path.join(output_dir, name)))
            with os.fdopen(fd, "w") as handle:
                handle.write(text)
        for tmp, final in staged:
            os.replace(tmp, final)
    except OSError as exc:
        for tmp, _ in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)
        raise CompileError(f"cannot write output in '{output_dir}': {exc.strerror}") from None
    return [final for _, final in staged]


def _read(path: str) -> str:
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        return handle.read()


class _Stages:
    """Enters each step of a compilation: reports it, times it (-v) and bounds it in isl operations."""

    def __init__(self, ctx: isl.Context, options: Options, progress: Progress | None) -> None:
        self.ctx, self.options, self.progress = ctx, options, progress

    @contextmanager
    def __call__(self, name: str, line: int | None = None) -> Iterator[None]:
        step = Step(name, line)
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
            print(f"ppcg-py: {name}: {1000 * (time.perf_counter() - start):.1f} ms", file=sys.stderr)


def _dump(options: Options, what: str, text) -> None:
    if what in options.dumps:
        print(text())


def _describe_scop(scop) -> str:
    lines = [f"# SCoP of {scop.function} (lines {scop.start_line}-{scop.end_line})",
             f"parameters: {', '.join(scop.parameters) or '-'}", f"context: {scop.context}"]
    for arr in scop.arrays:
        lines.append(f"array {arr.element_type} {arr.name}" + "".join(f"[{e}]" for e in arr.extents))
    for stmt in scop.statements:
        lines.append(f"{stmt.name} (line {stmt.line}): {stmt.domain}")
        for acc in stmt.accesses:
            kind = "read+write" if acc.is_read and acc.is_write else ("write" if acc.is_write else "read")
            lines.append(f"  {kind}: {acc.index}")
    return "\n".join(lines)


def _report(plans) -> None:
    """What was mapped where: per kernel, its mapping and each reference group's memory."""
    for scheduled, memory in plans:
        for kernel, kmem in zip(scheduled.kernels, memory.kernels):
            ks = kernel.sizes
            mapping = (f"tile {list(ks.tile)}, blocks {list(kernel.block_ids)} grid {list(ks.grid)}, "
                       f"threads {list(kernel.thread_ids)} block {list(ks.block)}") if ks.tile else "single thread"
            print(f"ppcg-py: {kernel.name} ({scheduled.scop.function}): {mapping}; "
                  f"shared memory {kmem.shared_bytes} bytes", file=sys.stderr)
            for g in kmem.groups:
                where = g.placement if g.placement == "global" else \
                    f"{g.placement} {g.name}{''.join(f'[{e}]' for e in g.shape)} at depth {g.level}"
                print(f"ppcg-py:   {kernel.name} group {g.array}: {where} ({g.reason})", file=sys.stderr)
        for dev in memory.arrays:
            print(f"ppcg-py:   {dev.array.name}: copy in {'yes' if dev.copy_in else 'no'}, "
                  f"copy out {'yes' if dev.copy_out else 'no'}", file=sys.stderr)
