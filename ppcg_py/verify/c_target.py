"""Verification of the C target (`--target=c --openmp`): `NAME.ppcg.c` built by gcc
with OpenMP and run with 1, 2 and 4 threads, each dump compared with the original's.
A private variable that is shared by mistake, or a parallel loop that carries a
dependence, shows as a difference between thread counts (not always: a race need
not strike; the dependence checks in schedule/cpu/__init__.py are the guarantee)."""

from __future__ import annotations

import os
from pathlib import Path

from .common import CC, Steps, VerifyConfig, dump_of
from .dump import Dump, compare_dumps, tolerance_for
from .tools import BuildError, preprocessor_flags, run_program, run_tool

__all__ = ["C_FLAGS", "generated_c_file", "thread_label", "verify_c_output"]

C_FLAGS = ("-O1", "-std=gnu99", "-fopenmp")


def generated_c_file(source: Path, out_dir: Path) -> Path:
    """What the C target writes for `source` (PPCG's name)."""
    return out_dir / f"{source.stem}.ppcg.c"


def thread_label(threads: int) -> str:
    return f"{threads} thread{'s' if threads != 1 else ''}"


def verify_c_output(cfg: VerifyConfig, out_dir: Path, expected: Dump, steps: Steps,
                    workdir: Path) -> dict[str, tuple[str, ...]]:
    """Build the generated C file, run it with each of `cfg.threads`, and compare."""
    rtol, atol = tolerance_for(cfg.data_type)
    source = generated_c_file(cfg.source, out_dir)
    if not source.exists():
        steps.fail("ppcg", f"exited 0 but wrote no {source.name}")
        return {}
    binary = workdir / "generated-c"
    # the generated file is elsewhere: the input's own directory for its "..." includes
    flags = preprocessor_flags((*cfg.include_dirs, cfg.source.parent), cfg.all_defines)
    try:
        with steps.step("gcc -fopenmp"):
            run_tool([CC, *C_FLAGS, *flags, source, *cfg.extra_c_sources, "-o", binary, "-lm"],
                     timeout=cfg.compile_timeout)
    except BuildError as exc:
        steps.fail("gcc -fopenmp", exc.stderr)
        return {}
    mismatches: dict[str, tuple[str, ...]] = {}
    for threads in cfg.threads:
        label = thread_label(threads)
        with steps.step(f"run {label}"):
            proc = run_program([binary, *cfg.program_args], timeout=cfg.run_timeout,
                               env={**os.environ, "OMP_NUM_THREADS": str(threads)})
        (workdir / f"threads-{threads}.stderr").write_text(proc.stderr)
        actual = dump_of(steps, f"run {label}", proc, cfg.output)
        if actual is not None:
            mismatches[label] = tuple(compare_dumps(expected, actual, rtol=rtol, atol=atol))
    return mismatches
