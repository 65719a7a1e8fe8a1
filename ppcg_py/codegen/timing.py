"""`--timing`: what the host code adds so that, at exit, each kernel's time comes with
the rates its work gives (the helpers are codegen/templates/timing.h.j2 for CUDA and
the OpenCL host file's own).

Before a SCoP's device code, one call per kernel adds the work of this run of the
SCoP to the kernel's record: its floating-point operations and compulsory DRAM bytes
(schedule/gpu/work.py), as C expressions of the SCoP's parameters. A kernel that a
one-block launch runs (a device loop's, fused kernels') is timed as that launch, so
its work goes to the launch's record.
"""
from __future__ import annotations

from ..schedule.gpu import GpuSchedule
from ..schedule.gpu.work import kernel_work
from .counts import CountPrinter


def timing_work(scheduled: GpuSchedule) -> list[str]:
    """`ppcg_py_timing_work("kernelN", flops, bytes);` per kernel of the SCoP."""
    printer = CountPrinter(scheduled.scop.context)
    lines = []
    for kernel in scheduled.kernels:
        work = kernel_work(scheduled.scop, kernel)
        timed_as = kernel.launched_in or kernel.name
        lines.append(f'ppcg_py_timing_work("{timed_as}", {printer.count(work.flops)}, '
                     f'{printer.count(work.dram_bytes)});')
    return lines
