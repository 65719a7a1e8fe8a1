"""schedule: dependences, isl's scheduler, and the split into host code and kernels."""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..diagnostics import Diagnostics
from ..extract.model import Scop
from ..isl_budget import isl_failure
from ..names import Names
from ..options import Options
from .dependences import Dependences, compute_dependences
from .bounded import compute_with_timeout
from .kernels import Kernel, KernelMapper
from .parallel import mark_coincident
from .sizes import parse_sizes

__all__ = ["Dependences", "Kernel", "ScheduledScop", "schedule_scop"]


@dataclass(frozen=True)
class ScheduledScop:
    """A SCoP with its final schedule tree (kernels marked) and kernel descriptions."""

    scop: Scop
    dependences: Dependences
    schedule: isl.Schedule          # the scheduler's result before tiling and mapping
    final_schedule: isl.Schedule    # with `kernelN` marks, tiles and mapping filters
    kernels: tuple[Kernel, ...]
    names: Names


def compute_schedule(scop: Scop, deps: Dependences, options: Options, diagnostics: Diagnostics) -> isl.Schedule:
    """isl's schedule; the original loop order when asked, or when isl takes too long."""
    if not options.reschedule or not deps.value_based:   # a SCoP too costly for isl's dataflow
        return mark_coincident(scop.schedule, deps.all)      # is too costly for its scheduler
    constraints = (isl.ScheduleConstraints.on_domain(scop.domain)
                   .set_context(scop.context)
                   .set_validity(deps.all).set_proximity(deps.all).set_coincidence(deps.all))
    try:
        schedule = compute_with_timeout(constraints, options.schedule_timeout)
    except isl.Error as exc:
        # e.g. "unable to carry dependences": the original order is always valid
        diagnostics.warn(f"isl's scheduler failed on the SCoP of '{scop.function}' ({isl_failure(exc)}); "
                         "keeping the original loop order (its parallel loops still run on the GPU)",
                         scop.file, scop.start_line, 1)
        return mark_coincident(scop.schedule, deps.all)
    if schedule is None:
        diagnostics.warn(f"isl's scheduler did not finish within {options.schedule_timeout:g} s for the SCoP "
                         f"of '{scop.function}'; keeping the original loop order (its parallel loops still "
                         "run on the GPU); --schedule-timeout sets the bound", scop.file, scop.start_line, 1)
        return mark_coincident(scop.schedule, deps.all)
    return schedule


def schedule_scop(scop: Scop, options: Options, first_kernel: int = 0,
                  diagnostics: Diagnostics | None = None) -> ScheduledScop:
    diagnostics = Diagnostics() if diagnostics is None else diagnostics
    deps = compute_dependences(scop, options.dataflow_max_operations, diagnostics)
    schedule = compute_schedule(scop, deps, options, diagnostics)
    sizes = parse_sizes(options.sizes, scop.ctx) if options.sizes else None
    names = Names.avoiding(scop.used_names | frozenset(scop.parameters))
    mapper = KernelMapper(options, sizes, names, first_kernel)
    final = mapper.run(schedule)
    return ScheduledScop(scop, deps, schedule, final, tuple(mapper.kernels), names)
