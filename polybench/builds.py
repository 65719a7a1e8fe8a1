"""Building the generated program for a real GPU, with nvcc or clang.

nvcc handles the files of one command one after another and each .cu costs
about two seconds (mostly CUDA's headers), so the files are compiled side by
side and linked after.  A small C++ file that starts CUDA before main() is
linked in: PolyBench's timer should measure the generated code (allocation,
transfers, kernels), not the creation of the CUDA context, which on a GPU takes
longer than a MINI kernel runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ppcg_py.verify.clang import clang_build
from ppcg_py.verify.nvcc import DEFAULT_ARCH, nvcc_path
from ppcg_py.verify.tools import BuildError, preprocessor_flags, run_tool

__all__ = ["NVCC_FLAGS", "WARM_UP_CPP", "build_program", "write_warm_up"]

# OpenMP for the host paths' parallel loops (the SCoPs a program runs on the host)
NVCC_FLAGS = ("-O3", "-Xcompiler", "-fopenmp")

WARM_UP_CPP = """\
/* Written by polybench/builds.py: start CUDA before main() so that the
   timed region does not include creating the context. */
#include <cuda_runtime_api.h>
static int ppcg_bench_warm_up = (cudaFree(0), 0);
"""


def write_warm_up(folder: Path) -> Path:
    path = folder / "warm_up.cpp"
    path.write_text(WARM_UP_CPP)
    return path


def _nvcc_build(
    cu_files: Sequence[Path],
    c_sources: Sequence[Path],
    cxx_sources: Sequence[Path],
    exe: Path,
    flags: list[str],
    arch: str,
    timeout: float,
    libraries: Sequence[str] = (),
) -> None:
    nvcc = nvcc_path()
    if nvcc is None:
        raise BuildError(["nvcc"], "nvcc not found (set NVCC or put it on PATH)")
    objects_dir = exe.parent / f"{exe.name}-objects"
    objects_dir.mkdir(exist_ok=True)
    sources = [*cu_files, *c_sources, *cxx_sources]
    objects = [objects_dir / f"{i}-{s.name}.o" for i, s in enumerate(sources)]
    commands: list[list[str | Path]] = [
        [nvcc, *NVCC_FLAGS, f"-arch={arch}", *flags, "-c", source, "-o", obj]
        for source, obj in zip(sources, objects)
    ]
    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        for done in [pool.submit(run_tool, c, timeout=timeout) for c in commands]:
            done.result()
    run_tool([nvcc, f"-arch={arch}", "-Xcompiler", "-fopenmp", *objects, "-o", exe, *[f"-l{lib}" for lib in libraries],
              "-lm"], timeout=timeout)


def build_program(
    toolchain: str,
    cu_files: Sequence[Path],
    exe: Path,
    *,
    c_sources: Sequence[Path],
    include_dirs: Sequence[str],
    defines: Sequence[str],
    arch: str = DEFAULT_ARCH,
    timeout: float = 900,
    libraries: Sequence[str] = (),
) -> Path:
    """Compile and link the generated program with "nvcc" or "clang"; BuildError on failure.
    `libraries`: more libraries to link (nvcc only: cuBLAS for benchmarks/gpu_ways.py's way)."""
    warm_up = write_warm_up(exe.parent)
    if toolchain == "clang":
        return clang_build(
            cu_files,
            exe,
            c_sources=c_sources,
            cxx_sources=[warm_up],
            include_dirs=include_dirs,
            defines=defines,
            arch=arch,
            timeout=timeout,
        )
    if toolchain != "nvcc":
        raise ValueError(f"unknown toolchain {toolchain!r}; expected nvcc or clang")
    flags = preprocessor_flags(include_dirs, defines)
    _nvcc_build(cu_files, c_sources, [warm_up], exe, flags, arch, timeout, libraries)
    return exe
