"""schedule: isl's schedule of each SCoP and the plan each target makes of it.

This package holds what both targets share: the dependences (dependences.py), isl's
scheduler and where every plan starts (scheduler.py, memo.py, bounded.py), the sizes
and their syntax (sizes.py), coincidence (parallel.py), scalars kept per thread
(private.py), loop distribution (distribute.py) and the plans' common part
(plan.py: `ScheduledScop`, `used_sizes`). Each target's plan has a package of its own:
`gpu` (CUDA, OpenCL: `GpuSchedule`, host code and kernels) and `cpu` (the C target,
which is also each GPU target's host path: `CpuSchedule`, OpenMP loops, tiles for the
caches, register tiles).
"""
