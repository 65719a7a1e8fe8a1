"""memory: what crosses between host and device, and where each reference group lives."""
from __future__ import annotations

from dataclasses import replace

from ..options import Options
from ..schedule import ScheduledScop
from .groups import ArrayGroup, KernelMemory, plan_kernel
from .transfers import DeviceArray, MemoryPlan, extent_set, plan_transfers

__all__ = ["ArrayGroup", "DeviceArray", "KernelMemory", "MemoryPlan", "extent_set", "plan_memory"]


def plan_memory(scheduled: ScheduledScop, options: Options) -> MemoryPlan:
    """Transfers around the SCoP, then placement of every kernel's reference groups."""
    plan = plan_transfers(scheduled.scop, scheduled.dependences.live_in)
    kernels = tuple(plan_kernel(scheduled.scop, k, options, scheduled.names) for k in scheduled.kernels)
    return replace(plan, kernels=kernels)
