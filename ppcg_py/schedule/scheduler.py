"""isl's scheduler as both plans of a SCoP call it: the dependences, names and `--sizes`
that every target starts from (`scheduling_start`), and isl's schedule
(`compute_schedule`), each computed once where the GPU plan and the host path ask the
same (memo.py)."""
from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import dataclass

import islpy as isl

from ..diagnostics import Diagnostics
from ..extract.model import Scop
from ..isl_budget import isl_failure
from ..isl_context import without_outer_coincidence
from ..isl_workarounds import ordered_sets
from ..names import Names
from ..options import Options
from .bounded import compute_with_timeout
from .dependences import Dependences, compute_dependences
from .memo import Memo
from .parallel import coincidence_of_program, mark_coincident, respects
from .relaxed import without_upper_bounds
from .sizes import parse_sizes

_SCHEDULES = Memo()
EXACT_AFTER_RELAXED = 10.0    # seconds: _solved, at most ...
EXACT_PER_RELAXED = 10.0      # ... times the relaxed problem's CPU seconds,
EXACT_AT_LEAST = 2.0          # but at least this long
_DEPENDENCES = Memo()


def compute_schedule(scop: Scop, deps: Dependences, options: Options, diagnostics: Diagnostics,
                     fixed: frozenset[str] = frozenset(), serial: isl.UnionMap | None = None,
                     last: frozenset[str] = frozenset(), outer_coincidence: bool = True,
                     whole_component: bool = False, only: frozenset[str] | None = None,
                     accept: Callable[[isl.Schedule], bool] | None = None) -> isl.Schedule:
    """isl's schedule, computed once for the two plans of a SCoP (memo.py) where they
    ask the same (no `serial` constraints). `outer_coincidence=False`: isl may start
    with a loop that carries dependences, whatever the context's option (the C
    target's time tiles, cpu/time_tiles.py), and with `whole_component` it schedules
    every connected component at once. `only`: the schedule of these statements alone
    (the loops between a SCoP's time loops, cpu/__init__.py). `accept`: what the
    caller needs of the schedule (a time band): a relaxed problem's schedule without it
    makes isl try the exact problem (relaxed.py)."""
    if not outer_coincidence:     # the time tiles' schedule: their model checks its band
        with without_outer_coincidence(scop.ctx, whole_component):
            return _compute_schedule(scop, deps, options, diagnostics, fixed, serial, last, only, accept,
                                     prefer_exact=False)
    if serial is not None or only is not None:
        return _compute_schedule(scop, deps, options, diagnostics, fixed, serial, last, only)
    return _SCHEDULES.get((scop, deps), (fixed, last, options.reschedule, options.schedule_timeout),
                          lambda: _compute_schedule(scop, deps, options, diagnostics, fixed, None, last))


def _compute_schedule(scop: Scop, deps: Dependences, options: Options, diagnostics: Diagnostics,
                      fixed: frozenset[str] = frozenset(), serial: isl.UnionMap | None = None,
                      last: frozenset[str] = frozenset(), only: frozenset[str] | None = None,
                      accept: Callable[[isl.Schedule], bool] | None = None, prefer_exact: bool = True
                      ) -> isl.Schedule:
    """isl's schedule; the original loop order when asked, or when isl fails or takes
    too long both on the program's constraints and on them without their constant
    upper bounds (relaxed.py, `_solved`; `prefer_exact`: the program's own constraints'
    solution where isl finds one, as for isl's usual schedule, whose outputs then do
    not depend on the relaxed problem).

    With live-range reordering, the order dependences of the variables not in
    `fixed` are conditional validity constraints (conditioned on the live ranges).
    PPCG makes those of arrays conditional too, but then isl's scheduler has been
    seen to break a live range (fuzz ci:23); arrays gain little from it, as their
    live ranges could only be reordered along loops that one thread runs.

    `serial`: more dependences for the coincidence constraints alone (chains of
    reductions whose order may change but which no parallel loop may split).
    `last`: statements that run after all others in their original order (the copies
    back of expanded arrays, expansion.py), which isl's fusion would only complicate.
    `only`: the statements to schedule, the others left out (isl skips the conditional
    validity constraints of statements not in its domain)."""
    coincidence = deps.coincidence(fixed) if serial is None else deps.coincidence(fixed).union(serial)
    domain = scop.domain if only is None else _instances(scop, only)
    original = scop.schedule if only is None else scop.schedule.intersect_domain(domain)
    if not options.reschedule or not deps.value_based:   # a SCoP too costly for isl's dataflow
        return mark_coincident(original, coincidence)   # is too costly for its scheduler
    validity = deps.validity(fixed)
    proximity = deps.flow.union(deps.false) if deps.reordering else deps.all
    if last:
        domain = domain.subtract(_instances(scop, last))
    if last or only is not None:
        coincidence = coincidence.intersect_domain(domain).intersect_range(domain)
        validity = validity.intersect_domain(domain).intersect_range(domain)
        proximity = proximity.intersect_domain(domain).intersect_range(domain)
    conditional = (deps.tagged_flow, deps.conditional_validity(fixed)) if deps.reordering else None
    schedule, failure = _solved(_problems(scop, domain, validity, coincidence, proximity, conditional),
                                options.schedule_timeout, accept, prefer_exact=prefer_exact)
    if failure is not None:
        # e.g. "unable to carry dependences": the original order is always valid
        diagnostics.warn(f"isl's scheduler failed on the SCoP of '{scop.function}' ({failure}); keeping the "
                         "original loop order (its parallel loops still run on the GPU)",
                         scop.file, scop.start_line, 1)
        return mark_coincident(original, coincidence)
    if schedule is None:
        diagnostics.warn(f"isl's scheduler did not finish within {options.schedule_timeout:g} s for the SCoP "
                         f"of '{scop.function}'; keeping the original loop order (its parallel loops still "
                         "run on the GPU); --schedule-timeout sets the bound", scop.file, scop.start_line, 1)
        return mark_coincident(original, coincidence)
    schedule = ordered_sets(schedule.intersect_domain(domain), deps.all)
    if not _runs_every_instance(schedule, domain):
        # isl's tree has been seen to leave statements of its domain out of every leaf's
        # filter (fuzz 2812:181): code generated from it would never run them
        diagnostics.warn(f"isl's scheduler left statements of the SCoP of '{scop.function}' out of its "
                         "schedule; keeping the original loop order (its parallel loops still run on the GPU)",
                         scop.file, scop.start_line, 1)
        return mark_coincident(original, coincidence)
    if last:
        schedule = schedule.sequence(mark_coincident(scop.schedule, coincidence).intersect_domain(
            _instances(scop, last)))
    everything = deps.validity(fixed) if only is None else \
        deps.validity(fixed).intersect_domain(domain).intersect_range(domain)
    if deps.reordering and not respects(schedule, everything):
        # a safety net under isl's conditional validity (see above): every order dependence kept
        return _compute_schedule(scop, deps, options, diagnostics, frozenset(a.name for a in scop.arrays), serial,
                                 last, only)
    return schedule


@dataclass(frozen=True)
class _Problems:
    """What isl is asked: the program's schedule constraints, and the same without their
    constant upper bounds where there are any (relaxed.py), whose solution's parallel
    loops are marked again with the program's coincidence constraints."""

    exact: isl.ScheduleConstraints
    relaxed: isl.ScheduleConstraints | None = None
    coincidence: isl.UnionMap | None = None


def _problems(scop: Scop, domain: isl.UnionSet, validity: isl.UnionMap, coincidence: isl.UnionMap,
              proximity: isl.UnionMap, conditional: tuple[isl.UnionMap, isl.UnionMap] | None) -> _Problems:
    def constraints(dom, valid, coincident, near, cond) -> isl.ScheduleConstraints:
        made = (isl.ScheduleConstraints.on_domain(dom).set_context(scop.context)
                .set_validity(valid).set_coincidence(coincident).set_proximity(near))
        return made if cond is None else made.set_conditional_validity(*cond)
    exact = constraints(domain, validity, coincidence, proximity, conditional)
    parts = [without_upper_bounds(x) for x in (domain, validity, coincidence, proximity,
                                               *(conditional or ()))]
    if not any(dropped for _, dropped in parts):
        return _Problems(exact)
    loose = [x for x, _ in parts]
    relaxed = constraints(*loose[:4], None if conditional is None else tuple(loose[4:]))
    return _Problems(exact, relaxed, coincidence)


def _solved(problems: _Problems, timeout: float, accept: Callable[[isl.Schedule], bool] | None = None,
            prefer_exact: bool = False) -> tuple[isl.Schedule | None, str | None]:
    """isl's solution of the relaxed problem (asked first, where there is one) if
    `accept` takes it and not `prefer_exact`, else of the program's own problem if isl
    solves it and `accept` takes it, else whichever isl solved (the relaxed one first);
    None where isl solved neither, with its failure (None where both ran out of time).

    With a relaxed solution in hand, the exact problem gets EXACT_PER_RELAXED times
    the CPU time isl took on the relaxed one, between EXACT_AT_LEAST and
    EXACT_AFTER_RELAXED seconds: on some programs with constant sizes (deriche's,
    heat-3d's) isl runs for minutes on it where the relaxed one takes 0.03 s; on 150
    fuzzed programs (both targets, 242 pairs) it took at most 3 s, and never more than
    those bounds. The relaxed problem gets EXACT_AFTER_RELAXED; where isl runs out of
    time on it and the relaxed solution is preferred (the time tiles, which isl's usual
    schedule replaces where there are none), the exact problem is not asked: Pluto's
    game of life spent 30 s on each before its usual schedule took 1.7 s."""
    relaxed, failure, spent = None, None, 0.0
    if problems.relaxed is not None:
        before = _cpu_seconds()
        relaxed, failure = _solve(problems.relaxed, _bounded(timeout, EXACT_AFTER_RELAXED))
        spent = _cpu_seconds() - before
        if relaxed is not None:
            relaxed = coincidence_of_program(relaxed, problems.coincidence)
            if not prefer_exact and (accept is None or accept(relaxed)):
                return relaxed, None
        elif failure is None and not prefer_exact:
            return None, None
    exact, exact_failure = _solve(problems.exact, timeout if relaxed is None else _bounded(
        timeout, min(EXACT_AFTER_RELAXED, max(EXACT_AT_LEAST, EXACT_PER_RELAXED * spent))))
    if exact is not None and (relaxed is None or accept is None or accept(exact)):
        return exact, None
    if relaxed is not None:
        return relaxed, None
    return None, exact_failure or failure


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended (isl's scheduler
    runs in a child where it is bounded: bounded.py)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _bounded(timeout: float, most: float) -> float:
    """`timeout` but at most `most` seconds (0: no bound, as asked)."""
    return timeout if timeout <= 0 else min(timeout, most)


def _solve(problem: isl.ScheduleConstraints, timeout: float) -> tuple[isl.Schedule | None, str | None]:
    """isl's schedule, or None with its failure (None where it ran out of time)."""
    try:
        return compute_with_timeout(problem, timeout), None
    except isl.Error as exc:
        return None, isl_failure(exc)


def _runs_every_instance(schedule: isl.Schedule, domain: isl.UnionSet) -> bool:
    """Whether each instance of `domain` reaches a leaf of the tree (its filters)."""
    return domain.is_subset(schedule.get_map().domain())


def _instances(scop: Scop, names: frozenset[str]) -> isl.UnionSet:
    """The instances of the statements `names`."""
    result = isl.UnionSet.empty(scop.context.get_space())
    for stmt in scop.statements:
        if stmt.name in names:
            result = result.union(isl.UnionSet.from_set(stmt.domain))
    return result


def scheduling_start(scop: Scop, options: Options, diagnostics: Diagnostics):
    """What every target's scheduler starts from: the dependences, the `--sizes`, names
    that avoid the program's, the variables whose order is fixed (the arrays), and
    those whose live ranges may be reordered (the scalars)."""
    deps = _DEPENDENCES.get((scop,), (options.dataflow_max_operations, options.live_range_reordering),
                            lambda: compute_dependences(scop, options.dataflow_max_operations, diagnostics,
                                                        options.live_range_reordering))
    sizes = parse_sizes(options.sizes, scop.ctx) if options.sizes else None
    names = Names.avoiding(scop.used_names | frozenset(scop.parameters))
    fixed = frozenset(a.name for a in scop.arrays if not a.is_scalar)
    return deps, sizes, names, fixed, frozenset(a.name for a in scop.arrays) - fixed


def schedule_of_part(scop: Scop, dependences: isl.UnionMap, instances: isl.UnionSet,
                     options: Options, accept: Callable[[isl.Schedule], bool] | None = None) -> isl.Schedule | None:
    """isl's schedule of `instances` alone (a time loop among the SCoP's top-level loops,
    time_loops.py), asked without outer coincidence: the C target's time tiles. Every
    dependence among them is a validity and proximity constraint (no live ranges
    reordered: a stencil has none). None where isl fails or takes too long: the loop
    then keeps isl's usual schedule."""
    inside = dependences.intersect_domain(instances).intersect_range(instances)
    with without_outer_coincidence(scop.ctx, False):
        schedule, _ = _solved(_problems(scop, instances, inside, inside, inside, None),
                              options.schedule_timeout, accept)
    if schedule is None:
        return None
    schedule = schedule.intersect_domain(instances)
    return ordered_sets(schedule, inside) if _runs_every_instance(schedule, instances) else None
