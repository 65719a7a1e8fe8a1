"""The pipeline: the named stages below, then writing the files.

Adding a stage is one line in STAGES (its run and dump live in stages.py).
"""
from __future__ import annotations

import os
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import replace

from .codegen.common import GeneratedFiles
from .diagnostics import CompileError, Diagnostics
from .isl_context import new_context
from .options import Options
from .stages import HOST_PATH_STEP, Compilation, OnHost, Stage, StageRun
from .stages import ast, dump_asts, dump_extract, dump_files, dump_memory, dump_schedule, extract, memory
from .stages import print_files, schedule
from .watchdog import ChildDied, Progress, StepTooLong, run_with_deadline

__all__ = ["STAGES", "STAGE_NAMES", "OnHost", "compile_bounded", "compile_source", "write_outputs"]

STAGES: tuple[Stage, ...] = (
    Stage("extract", extract, dump_extract),      # C -> SCoPs (statements, accesses, original schedule)
    Stage("schedule", schedule, dump_schedule),   # SCoPs -> schedule trees with kernels marked
    Stage("memory", memory, dump_memory),         # -> buffers per kernel; copies and syncs in the tree
    Stage("ast", ast, dump_asts),                 # -> one isl AST per SCoP, calls and launches resolved
    Stage("print", print_files, dump_files),      # -> the host and kernel files' text
)
STAGE_NAMES = tuple(stage.name for stage in STAGES)


def compile_source(path: str, options: Options, progress: Progress | None = None,
                   on_host: OnHost = OnHost(), diagnostics: Diagnostics | None = None) -> GeneratedFiles:
    """Compile one C file into CUDA host and kernel source (nothing written)."""
    ctx = new_context(serialize_sccs=options.serialize_sccs, whole_component=options.whole_component,
                      outer_coincidence=options.outer_coincidence,
                      max_coefficient=options.max_coefficient, feautrier=options.feautrier)
    run = StageRun(options, ctx, Diagnostics() if diagnostics is None else diagnostics, on_host, progress)
    compilation = Compilation(path)
    for stage in STAGES:
        compilation = stage.run(compilation, run.of(stage.name))
        if stage.name in options.dump_after:
            print(stage.dump(compilation))
    return compilation.files


def compile_bounded(path: str, options: Options, diagnostics: Diagnostics | None = None) -> GeneratedFiles:
    """`compile_source` within `--timeout` seconds and `--isl-max-operations` per step.

    A compilation that runs past either bound, or whose process dies in isl (a
    segmentation fault inside isl, fuzz 14:41), is tried again, with a warning each
    time, in configurations whose cost is ever more predictable: the original loop
    order with global memory only; then with the SCoP that failed left on the host
    as its original C code; then with every SCoP left there. Each result is correct;
    only the last failure (in extract, which every try needs) is an error.
    """
    diagnostics = Diagnostics() if diagnostics is None else diagnostics

    def attempt(opts: Options, on_host: OnHost = OnHost()) -> GeneratedFiles:
        return run_with_deadline(lambda progress: compile_source(path, opts, progress, on_host), options.timeout)

    try:
        return attempt(options)
    except (StepTooLong, ChildDied) as exc:
        failed = exc
    simple = replace(options, reschedule=False, use_shared_memory=False, use_private_memory=False,
                     unroll_copy_shared=False, unroll_gpu_tile=False)
    fallbacks = (
        lambda step: (replace(options, host_path=False), OnHost(), "the device code alone (no host paths)")
        if step.name.startswith(HOST_PATH_STEP) else None,
        lambda step: (simple, OnHost(), "the original loop order and global memory only") if simple != options
        else None,
        lambda step: (simple, OnHost(frozenset({step.line})), "that SCoP left on the host as its original C code")
        if step.line is not None else None,
        lambda step: (simple, OnHost(every=True), "every SCoP left on the host as its original C code"),
    )
    tried: list[str] = []
    for fallback in fallbacks:
        chosen = fallback(failed.step) if failed.step.name != STAGES[0].name else None  # every try needs it
        if chosen is None:
            continue
        opts, on_host, description = chosen
        _warn(diagnostics, path, failed, f"compiling again with {description}")
        tried.append(description)
        try:
            return attempt(opts, on_host)
        except (StepTooLong, ChildDied) as exc:
            failed = exc
    if isinstance(failed, ChildDied):
        raise failed
    raise _too_long(path, failed, tried)


def _warn(diagnostics: Diagnostics, path: str, failed: StepTooLong | ChildDied, doing: str) -> None:
    line = failed.step.line
    if isinstance(failed, ChildDied):   # in practice, a crash inside isl
        why = f"the compiling process died ({failed.how}); {doing}"
    else:
        why = f"{failed.what}; {doing} (--timeout and --isl-max-operations set the bounds)"
    diagnostics.warn(f"{failed.step.name}: {why}" if isinstance(failed, ChildDied) else f"{failed.step.name} {why}",
                     path, line, 1 if line is not None else None)


def _too_long(path: str, exc: StepTooLong, tried: list[str]) -> CompileError:
    again = f", also with {', then with '.join(tried)}" if tried else ""
    return CompileError(f"{exc.step.name} {exc.what}{again}", path, exc.step.line,
                        1 if exc.step.line is not None else None)


def write_outputs(files: GeneratedFiles | Mapping[str, str], output_dir: str, also: Sequence[tuple[str, str]] = (),
                  input_path: str | None = None) -> list[str]:
    """Write all outputs or none, and never the input.

    Each output (the generated files in `output_dir`, then `also`: more (path, text)
    pairs, such as the dependency file) is written to a temporary file beside it;
    only once every one is complete are they renamed into place. A failure (a full
    disk, an interrupt) leaves the previous outputs, or none, and no temporary file.
    """
    if not os.path.isdir(output_dir):
        raise CompileError(f"output directory '{output_dir}' does not exist")
    outputs = [(os.path.join(output_dir, name), text) for name, text in files.items()] + list(also)
    named = [os.path.normpath(final) for final, _ in outputs]
    if clash := next((final for k, final in enumerate(named) if final in named[:k]), None):
        raise CompileError(f"cannot write output '{clash}': two outputs have that name (-o names another one)")
    for final, _ in outputs:
        if os.path.isdir(final):
            raise CompileError(f"cannot write output '{final}': it is a directory")
        if input_path is not None and os.path.exists(final) and os.path.samefile(final, input_path):
            raise CompileError(f"cannot write output '{final}': it is the input")
    staged: list[tuple[str, str]] = []
    try:
        for final, text in outputs:
            tmp, fd = _temporary_beside(final)
            staged.append((tmp, final))
            # surrogateescape: the input's bytes that are not UTF-8 (codegen/source.py) come back as they were
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as handle:
                handle.write(text)
        for tmp, final in staged:
            os.replace(tmp, final)
    except OSError as exc:
        where = exc.filename if isinstance(exc.filename, str) else output_dir
        raise CompileError(f"cannot write output in '{os.path.dirname(where) or '.'}': {exc.strerror}") from None
    finally:
        for tmp, _ in staged:
            if os.path.lexists(tmp):
                os.unlink(tmp)
    return [final for _, final in staged]


def _temporary_beside(final: str) -> tuple[str, int]:
    """A new file next to `final` (same file system, so the rename is atomic), with
    the mode a plain open() would give (mkstemp's is 0600)."""
    folder, name = os.path.split(final)
    while True:
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
