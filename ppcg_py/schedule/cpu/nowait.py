"""Parallel loops that need no barrier between their executions (`omp for nowait`).

atax's second product, `y[j] += A[i][j] * tmp[i]`, runs as a serial loop over the rows
`i` around a parallel loop over the columns `j`. As an OpenMP loop inside a parallel
region, each of its 1,900 executions ends with a barrier. None is needed where

- every dependence between two instances under the loops, at the same values of the
  loops around them, joins instances at the same value of the parallel loop (atax: the
  chain of `y[j]` along `i`, at one `j`), and
- every execution of the loop runs the same iterations (its bounds do not depend on the
  serial loops between it and the region; the printer checks this on isl's AST);

OpenMP's static schedule then hands each thread the same iterations every time (same
iteration count, same chunks, same region), so a thread depends only on itself: the
loop runs as `omp for schedule(static) nowait`, and one `omp barrier` after the serial
loops keeps the order with what follows (codegen/c_target.py, omp_region.py).

The serial loops are those of a band (or its members before its parallel one) above the
first parallel loops below it, which must hold every statement under it (atax's
`y[j] = 0` at `i = 0` has a loop of its own, beside the product's). Without the
barriers, a loop needs enough work per execution of that band, not per execution of
its own (parallel_work.py).
"""
from __future__ import annotations

import islpy as isl

from ..parallel import zero_distance

MARK = "omp_nowait"     # above the serial loops: their parallel loop has no barrier, one comes after them


def barrier_free(dependences: isl.UnionMap, top: isl.ScheduleNode, parallel: isl.UnionMap) -> bool:
    """Whether every dependence between instances under `top`, at the same values of the
    loops around `top`, joins instances at the same value of their parallel loop
    (`parallel`: instance -> that loop's value)."""
    domain = top.get_domain()
    outer = top.get_prefix_schedule_union_map().intersect_domain(domain)
    same_outer = outer.apply_range(outer.reverse())
    return zero_distance(dependences.intersect_domain(domain).intersect_range(domain).intersect(same_outer),
                         parallel)
