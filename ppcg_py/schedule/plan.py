"""What a SCoP's plan holds for every target: the base of the GPU plan
(`schedule.gpu.GpuSchedule`) and of the C target's (`schedule.cpu.CpuSchedule`), which
is also a GPU target's host path."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import islpy as isl

from ..extract.model import Scop
from ..names import Names
from .dependences import Dependences
from .sizes import KernelSizes


@dataclass(frozen=True)
class ScheduledScop:
    """A SCoP with its dependences, isl's schedule and the final tree that the AST is
    built from; the two targets' plans add what each decided (kernels, OpenMP loops)."""

    scop: Scop
    dependences: Dependences
    schedule: isl.Schedule          # the scheduler's result before tiling and mapping
    final_schedule: isl.Schedule    # with the target's marks (`kernelN`, `omp_parallelN`, ...), tiles and mapping
    names: Names
    notes: tuple[str, ...] = ()     # -v: the reduction loops found and what became of them

    def numbered_sizes(self) -> tuple[tuple[int, KernelSizes], ...]:
        """The sizes this plan used, each with its number in `--sizes` (`kernel[i]`)."""
        raise NotImplementedError


def used_sizes(scheduled: Sequence[ScheduledScop]) -> tuple[tuple[int, KernelSizes], ...]:
    """Per kernel (CUDA, OpenCL), or per tiled band (C target: `kernel[i]` is the i-th band
    tiled in the file, its SCoPs one after another, as `--sizes` reads it), the sizes used."""
    return tuple(numbered for s in scheduled for numbered in s.numbered_sizes())
