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

import islpy as isl

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
        try:
            flops, moved = (printer.count(work.flops), printer.count(work.dram_bytes)) if work else ("0.0", "0.0")
        except isl.Error:     # a count isl cannot print: the kernel's time without rates
            flops, moved = "0.0", "0.0"
        lines.append(f'ppcg_py_timing_work("{timed_as}", {flops}, {moved});')
    return lines


_STANDALONE = """\
/* ppcg-py's --timing helpers for a CUDA program ppcg-py did not write (benchmarks time
   other tools' kernels and cuBLAS calls alike): ppcg_py_timing_start() before a launch,
   ppcg_py_timing_kernel("name") after it, ppcg_py_timed_memcpy for cudaMemcpy. */
#ifndef PPCG_PY_TIMING_H
#define PPCG_PY_TIMING_H
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef cudaCheckReturn
#define PPCG_PY_TIMING_OWN_CHECK
#define cudaCheckReturn(ret) \\
  do { \\
    cudaError_t ppcg_py_status = (ret); \\
    if (ppcg_py_status != cudaSuccess) { \\
      fprintf(stderr, "CUDA error: %s\\n", cudaGetErrorString(ppcg_py_status)); \\
      exit(EXIT_FAILURE); \\
    } \\
  } while (0)
#endif

{helpers}
#ifdef PPCG_PY_TIMING_OWN_CHECK
#undef cudaCheckReturn
#undef PPCG_PY_TIMING_OWN_CHECK
#endif
#endif
"""


def standalone_timing_header() -> str:
    """The CUDA timing helpers as a header of their own (`ppcg_py_timing.h`)."""
    from .common import output_templates
    return _STANDALONE.replace("{helpers}", output_templates().get_template("timing.h.j2").render())
