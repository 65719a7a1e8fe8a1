"""Other tools' CUDA output as ways of benchmarks/gpu_ways.py, timed as ppcg-py's
`--timing` times its own.

A prebuilt way is a folder of outputs, one subfolder per PolyBench kernel holding its
`KERNEL_host.cu`, `KERNEL_kernel.cu` and `KERNEL_kernel.hu` (real PPCG's, for
instance). Their host code times nothing, so a timed copy of each host file is made
mechanically: ppcg-py's timing helpers (`ppcg_py_timing.h`, from
codegen/timing.py) are included first, each launch

    kernel0 <<<k0_dimGrid, k0_dimBlock>>> (...);
    cudaCheckKernel();

is put between `ppcg_py_timing_start()` and `ppcg_py_timing_kernel("kernel0")`
(CUDA events, the same as ppcg-py's), and each `cudaMemcpy(` becomes
`ppcg_py_timed_memcpy(` (the same signature). Kernel times then come from the same
events for every way; a launch the pattern misses is reported, not silently untimed.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

TIMING_HEADER = "ppcg_py_timing.h"
_LAUNCH = re.compile(r"^(?P<indent>[ \t]*)(?P<kernel>\w+) <<<(?P<config>[^>]*)>>> \((?P<args>.*)\);[ \t]*\n"
                     r"(?P<check>[ \t]*cudaCheckKernel\(\);[ \t]*\n)", re.M)
_ANY_LAUNCH = re.compile(r"<<<")
_MEMCPY = re.compile(r"\bcudaMemcpy\(")


class NotInstrumented(Exception):
    """A host file has launches the instrumentation does not recognise."""


def instrument_host(text: str) -> str:
    """The host file with its launches and copies timed (see the module docstring)."""
    def timed(m: re.Match) -> str:
        indent = m.group("indent")
        return (f"{indent}ppcg_py_timing_start();\n"
                f"{indent}{m.group('kernel')} <<<{m.group('config')}>>> ({m.group('args')});\n"
                f"{m.group('check')}"
                f'{indent}ppcg_py_timing_kernel("{m.group("kernel")}");\n')

    launches = len(_ANY_LAUNCH.findall(text))
    result, found = _LAUNCH.subn(timed, text)
    if found != launches:
        raise NotInstrumented(f"{launches} launches, {found} of them in the expected form "
                              "(`name <<<grid, block>>> (args);` then `cudaCheckKernel();`)")
    result = _MEMCPY.sub("ppcg_py_timed_memcpy(", result)
    return f'#include "{TIMING_HEADER}"\n' + result


def copy_prebuilt(source: Path, plain: Path, timed: Path) -> str:
    """One kernel's prebuilt output copied to `plain` and, instrumented, to `timed`;
    an error message, or "" where both are made."""
    hosts = sorted(source.glob("*_host.cu"))
    if not source.is_dir() or len(hosts) != 1:
        return f"no single *_host.cu in {source}"
    for folder in (plain, timed):
        folder.mkdir(parents=True, exist_ok=True)
        for path in source.iterdir():
            if path.suffix in (".cu", ".hu", ".h", ".c"):
                shutil.copy(path, folder / path.name)
    try:
        (timed / hosts[0].name).write_text(instrument_host(hosts[0].read_text()))
    except NotInstrumented as exc:
        return f"{hosts[0].name}: {exc}"
    return ""
