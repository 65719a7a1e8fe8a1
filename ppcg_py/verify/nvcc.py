"""Check generated CUDA with the real nvcc, which compiles without a GPU.

The emulation runs the code with g++, which accepts things nvcc rejects (and
the other way round), so when nvcc is installed the generated files must also
pass it.  `nvcc_resources` reads ptxas' per-kernel register and shared memory
use, for choosing sizes.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .tools import BuildError, preprocessor_flags, run_tool

__all__ = [
    "BuildError",
    "KernelResources",
    "nvcc_available",
    "nvcc_check",
    "nvcc_path",
    "nvcc_resources",
]

DEFAULT_ARCH = "sm_90"

_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_USED = re.compile(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")


@dataclass(frozen=True)
class KernelResources:
    """What ptxas reports for one kernel."""

    registers: int
    shared_bytes: int
    stack_frame_bytes: int = 0
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0


def nvcc_path() -> str | None:
    """The nvcc to use: $NVCC, else the one on PATH, else None."""
    return os.environ.get("NVCC") or shutil.which("nvcc")


def nvcc_available() -> bool:
    return nvcc_path() is not None


def _nvcc() -> str:
    path = nvcc_path()
    if path is None:
        raise BuildError(["nvcc"], "nvcc not found (set NVCC or put it on PATH)")
    return path


def nvcc_check(
    cu_files: Sequence[str | Path],
    *,
    include_dirs: Iterable[str | Path] = (),
    defines: Iterable[str] = (),
    arch: str = DEFAULT_ARCH,
    device_only: Iterable[str | Path] = (),
    timeout: float = 600,
) -> None:
    """Compile each file to an object (discarded); BuildError on the first rejection.

    One nvcc process per file, run side by side: nvcc handles several inputs
    one after another, and each costs 1.5 s or more (mostly parsing CUDA's
    headers three times).  Files also listed in `device_only` get `-cubin`
    (device code only), about a second less: right for kernel files, whose
    host side is nvcc's own launch stubs.
    """
    nvcc, flags = _nvcc(), preprocessor_flags(include_dirs, defines)
    device = {Path(f).resolve() for f in device_only}
    with tempfile.TemporaryDirectory(prefix="ppcg-nvcc-") as tmp:
        commands = []
        for i, cu in enumerate(cu_files):
            mode = "-cubin" if Path(cu).resolve() in device else "-c"
            out = Path(tmp) / f"{i}{'.cubin' if mode == '-cubin' else '.o'}"
            commands.append([nvcc, mode, f"-arch={arch}", *flags, "-o", out, cu])
        with ThreadPoolExecutor(max_workers=max(1, len(commands))) as pool:
            for done in [pool.submit(run_tool, c, timeout=timeout) for c in commands]:
                done.result()


def _demangle(symbol: str) -> str:
    """`_Z7kernel0Pdi` -> `kernel0`; plain C names pass through."""
    match = re.match(r"_Z(\d+)", symbol)
    if match is None:
        return symbol
    start = match.end()
    return symbol[start : start + int(match.group(1))]


def parse_ptxas_info(text: str) -> dict[str, KernelResources]:
    """Per-kernel resources from `ptxas -v` output, keyed by unmangled kernel name."""
    result: dict[str, KernelResources] = {}
    name: str | None = None
    frame = (0, 0, 0)
    for line in text.splitlines():
        if entry := _ENTRY.search(line):
            name, frame = _demangle(entry.group(1)), (0, 0, 0)
        elif name and (stack := _FRAME.search(line)):
            frame = (int(stack.group(1)), int(stack.group(2)), int(stack.group(3)))
        elif name and (used := _USED.search(line)):
            result[name] = KernelResources(int(used.group(1)), int(used.group(2) or 0), *frame)
            name = None
    return result


def nvcc_resources(
    kernel_cu: str | Path,
    *,
    include_dirs: Iterable[str | Path] = (),
    defines: Iterable[str] = (),
    arch: str = DEFAULT_ARCH,
    timeout: float = 600,
) -> dict[str, KernelResources]:
    """Registers and static shared memory of each kernel in `kernel_cu`, from ptxas -v."""
    with tempfile.TemporaryDirectory(prefix="ppcg-nvcc-") as tmp:
        proc = run_tool(
            [
                _nvcc(),
                "-cubin",
                f"-arch={arch}",
                "-Xptxas",
                "-v",
                *preprocessor_flags(include_dirs, defines),
                "-o",
                Path(tmp) / "kernels.cubin",
                kernel_cu,
            ],
            timeout=timeout,
        )
    return parse_ptxas_info(proc.stderr + proc.stdout)
