"""memory: what crosses between host and device, and where each reference group lives."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

from ..options import Options
from ..schedule.gpu import GpuSchedule, Kernel
from .device_arrays import DeviceArray, extent_set
from .groups import ArrayGroup, KernelMemory, partials_per_row, plan_kernel
from .launch_buffers import with_launch_buffers
from .shuffles import NeighbourShuffle
from .host_syncs import HostSync, plan_host_syncs, with_host_syncs
from .transfers import MemoryPlan, plan_transfers
from .tree import (copy_statement, launch_copies, orders_global_memory, reduction_statement, reduction_steps,
                   transfer_statement, with_copies)

__all__ = ["ArrayGroup", "DeviceArray", "HostSync", "KernelMemory", "MemoryPlan", "NeighbourShuffle",
           "copy_statement", "extent_set", "orders_global_memory", "partials_per_row", "plan_memory",
           "reduction_statement", "reduction_steps", "transfer_statement"]


def plan_memory(scheduled: GpuSchedule, options: Options) -> MemoryPlan:
    """Transfers around the SCoP, placement of every kernel's reference groups, and the
    schedule tree with their copies."""
    ends = scheduled.ends
    plan = plan_transfers(scheduled.scop, scheduled.dependences.live_in, scheduled.host_statements,
                          ends.head, ends.tail)
    host = scheduled.host_scalars
    launches = Counter(k.launched_in for k in scheduled.kernels)
    kernels = tuple(with_launch_buffers(scheduled.scop, k, plan_kernel(scheduled.scop, k, options, scheduled.names, host),
                                        options, scheduled.names.iterator, alone=launches[k.launched_in] == 1)
                    for k in scheduled.kernels)
    kernels = tuple(_with_launch_copies(k, m, options) for k, m in zip(scheduled.kernels, kernels))
    on_device = tuple(d for d in plan.arrays
                      if d.array.name not in host and not _in_threads_only(d.array.name, kernels))
    between = scheduled.scop.host_only_statements - ends.statements
    on_device, syncs = plan_host_syncs(scheduled.scop, scheduled.final_schedule, between, on_device)
    # the syncs first: isl tells no domain below the extension nodes that the copies add
    schedule = with_host_syncs(scheduled.final_schedule, syncs)
    schedule = with_copies(schedule, scheduled.kernels, {m.kernel: m for m in kernels},
                           on_device, scheduled.names.iterator, ends.statements,
                           unroll_copy_shared=options.unroll_copy_shared,
                           unroll_gpu_tile=options.unroll_gpu_tile)
    return replace(plan, arrays=on_device, kernels=kernels, schedule=schedule, syncs=syncs)


def _with_launch_copies(kernel: Kernel, memory: KernelMemory, options: Options) -> KernelMemory:
    """`memory` with the schedules of its launch's loads and stores, where it has buffers
    that last the launch."""
    if not any(g.whole_launch for g in memory.groups):
        return memory
    loads, stores = launch_copies(kernel, memory, unroll=options.unroll_copy_shared)
    return replace(memory, launch_loads=loads, launch_stores=stores)


def _in_threads_only(array: str, kernels: tuple[KernelMemory, ...]) -> bool:
    """Whether every kernel that accesses `array` keeps it in a variable per thread
    with no copies: then no device memory holds it."""
    groups = [g for k in kernels for g in k.groups if g.array == array]
    return bool(groups) and all(g.placement == "private" and g.rank == 0 for g in groups)
