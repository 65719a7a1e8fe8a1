"""Build generated CUDA with clang's CUDA front end and LLVM's NVPTX back end.

A second, independent CUDA compiler catches what nvcc lets through (and the
other way round), and shows the output is plain CUDA rather than nvcc dialect.
Debian's clang-22 compiles against the CUDA 13 headers with
`-x cuda --cuda-gpu-arch=sm_90 --cuda-path=/usr/local/cuda` once an empty
`curand_mtgp32_kernel.h` is on the include path: clang's CUDA wrapper header
includes it, and cuRAND is not installed here.  `--cuda-device-only -S` gives
PTX, which ptxas (from the CUDA toolkit) turns into a cubin, so the check goes
all the way to machine code without a GPU.

Install clang with `make clang` (apt-get install clang-22).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .nvcc import DEFAULT_ARCH, KernelResources, parse_ptxas_info
from .tools import BuildError, preprocessor_flags, run_tool

__all__ = [
    "clang_available",
    "clang_build",
    "clang_check",
    "clang_path",
    "clang_ptx",
    "cuda_path",
    "ptxas_check",
    "ptxas_path",
]

#: The clang known to work with CUDA 13's headers (Debian's clang-22; older ones need more stubs).
CLANG_NAMES = ("clang++-22",)
# Warnings clang gives on every generated file that say nothing about its correctness.
_QUIET = ("-Wno-unknown-cuda-version", "-Wno-parentheses-equality")
_STUB_HEADERS = ("curand_mtgp32_kernel.h",)


def clang_path() -> str | None:
    """The clang++ to use: $PPCG_CLANG, else clang++-22 on PATH, else None."""
    if configured := os.environ.get("PPCG_CLANG"):
        return configured
    for name in CLANG_NAMES:
        if found := shutil.which(name):
            return found
    return None


def clang_available() -> bool:
    return clang_path() is not None


def cuda_path() -> Path:
    """The CUDA install clang reads headers and libraries from ($CUDA_PATH or /usr/local/cuda)."""
    return Path(os.environ.get("CUDA_PATH", "/usr/local/cuda"))


def ptxas_path() -> str | None:
    """ptxas from PATH, else from the CUDA install."""
    if found := shutil.which("ptxas"):
        return found
    candidate = cuda_path() / "bin" / "ptxas"
    return str(candidate) if candidate.exists() else None


def _clang() -> str:
    path = clang_path()
    if path is None:
        raise BuildError(
            ["clang++-22"], "clang++-22 not found (run `make clang`, or set PPCG_CLANG)"
        )
    return path


def _stub_dir(tmp: Path) -> Path:
    """A folder of empty headers that CUDA's headers include but this install lacks."""
    stub = tmp / "clang-stubs"
    stub.mkdir(exist_ok=True)
    for name in _STUB_HEADERS:
        (stub / name).touch()
    return stub


def _cuda_flags(arch: str, stub: Path, opt: str) -> list[str]:
    return [
        "-x",
        "cuda",
        f"--cuda-gpu-arch={arch}",
        f"--cuda-path={cuda_path()}",
        f"-I{stub}",
        opt,
        *_QUIET,
    ]


def clang_ptx(
    kernel_cu: str | Path,
    out_ptx: str | Path,
    *,
    include_dirs: Iterable[str | Path] = (),
    defines: Iterable[str] = (),
    arch: str = DEFAULT_ARCH,
    opt: str = "-O3",
    timeout: float = 600,
) -> Path:
    """Compile the device code of `kernel_cu` to PTX; BuildError with clang's messages."""
    with tempfile.TemporaryDirectory(prefix="ppcg-clang-") as tmp:
        run_tool(
            [
                _clang(),
                *_cuda_flags(arch, _stub_dir(Path(tmp)), opt),
                "--cuda-device-only",
                "-S",
                *preprocessor_flags(include_dirs, defines),
                kernel_cu,
                "-o",
                out_ptx,
            ],
            timeout=timeout,
        )
    return Path(out_ptx)


def ptxas_check(
    ptx: str | Path, *, arch: str = DEFAULT_ARCH, timeout: float = 600
) -> dict[str, KernelResources]:
    """Assemble PTX with ptxas (output discarded); per-kernel registers and shared memory."""
    ptxas = ptxas_path()
    if ptxas is None:
        raise BuildError(["ptxas"], "ptxas not found (it comes with the CUDA toolkit)")
    with tempfile.TemporaryDirectory(prefix="ppcg-ptxas-") as tmp:
        proc = run_tool(
            [ptxas, f"-arch={arch}", "-v", ptx, "-o", Path(tmp) / "out.cubin"], timeout=timeout
        )
    return parse_ptxas_info(proc.stderr + proc.stdout)


def clang_check(
    cu_files: Sequence[str | Path],
    kernel_cu: str | Path,
    *,
    include_dirs: Iterable[str | Path] = (),
    defines: Iterable[str] = (),
    arch: str = DEFAULT_ARCH,
    timeout: float = 600,
) -> dict[str, KernelResources]:
    """clang's counterpart of nvcc_check: PTX for `kernel_cu` checked by ptxas, the rest
    compiled to objects (discarded).  Returns ptxas' report on the kernels."""
    dirs, defs = list(include_dirs), list(defines)
    with tempfile.TemporaryDirectory(prefix="ppcg-clang-") as tmp:
        ptx = clang_ptx(
            kernel_cu,
            Path(tmp) / "kernel.ptx",
            include_dirs=dirs,
            defines=defs,
            arch=arch,
            timeout=timeout,
        )
        others = [f for f in cu_files if Path(f).resolve() != Path(kernel_cu).resolve()]
        _compile_objects(others, Path(tmp), dirs, defs, arch, "-O3", timeout)
        return ptxas_check(ptx, arch=arch, timeout=timeout)


def _compile_objects(
    cu_files: Sequence[str | Path],
    out_dir: Path,
    include_dirs: list[str | Path],
    defines: list[str],
    arch: str,
    opt: str,
    timeout: float,
) -> list[Path]:
    """Compile each .cu file (host and device code) to an object, side by side."""
    stub = _stub_dir(out_dir)
    flags = [*_cuda_flags(arch, stub, opt), *preprocessor_flags(include_dirs, defines)]
    objects = [out_dir / f"{i}-{Path(cu).stem}.o" for i, cu in enumerate(cu_files)]
    commands = [[_clang(), *flags, "-c", cu, "-o", obj] for cu, obj in zip(cu_files, objects)]
    with ThreadPoolExecutor(max_workers=max(1, len(commands))) as pool:
        for done in [pool.submit(run_tool, c, timeout=timeout) for c in commands]:
            done.result()
    return objects


def clang_build(
    cu_files: Sequence[str | Path],
    out_exe: str | Path,
    *,
    c_sources: Iterable[str | Path] = (),
    cxx_sources: Iterable[str | Path] = (),
    include_dirs: Iterable[str | Path] = (),
    defines: Iterable[str] = (),
    arch: str = DEFAULT_ARCH,
    opt: str = "-O3",
    timeout: float = 600,
) -> Path:
    """Compile and link a CUDA program with clang (static cudart, like nvcc's default).

    The .cu files are compiled side by side; C sources (polybench.c) are
    compiled as C, and C++ sources as host-only C++ that may call the CUDA
    runtime API.  The program runs on any machine with a CUDA 13 driver.
    """
    dirs, defs = list(include_dirs), list(defines)
    clang = _clang()
    with tempfile.TemporaryDirectory(prefix="ppcg-clang-") as tmp:
        objects = _compile_objects(cu_files, Path(tmp), dirs, defs, arch, opt, timeout)
        flags = [opt, *preprocessor_flags(dirs, defs)]
        host_only: list[tuple[str, str | Path, list[str]]] = [("c", f, []) for f in c_sources]
        host_only += [("c++", f, [f"-I{cuda_path() / 'include'}"]) for f in cxx_sources]
        for i, (language, source, extra) in enumerate(host_only):
            obj = Path(tmp) / f"h{i}-{Path(source).stem}.o"
            command = [clang, "-x", language, *flags, *extra, "-c", source, "-o", obj]
            run_tool(command, timeout=timeout)
            objects.append(obj)
        run_tool(
            [
                clang,
                *objects,
                f"-L{cuda_path() / 'lib64'}",
                "-lcudart_static",
                "-ldl",
                "-lrt",
                "-lpthread",
                "-lm",
                "-o",
                out_exe,
            ],
            timeout=timeout,
        )
    return Path(out_exe)
