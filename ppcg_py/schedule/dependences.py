"""Dependences of a SCoP, computed by isl's dataflow analysis as PPCG does."""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..diagnostics import Diagnostics
from ..extract.model import Scop
from ..isl_budget import is_operation_limit, isl_failure, within_operations


@dataclass(frozen=True)
class Dependences:
    flow: isl.UnionMap        # read-after-write (value-based)
    false: isl.UnionMap       # write-after-read and write-after-write
    live_in: isl.UnionMap     # reads with no write before them in the SCoP
    value_based: bool = True  # False: unordered conflicts (flow), isl's analysis was too costly

    @property
    def all(self) -> isl.UnionMap:
        return self.flow.union(self.false)


def compute_dependences(scop: Scop, max_operations: int, diagnostics: Diagnostics) -> Dependences:
    """Value-based dependences (isl's dataflow analysis), or, when that would take
    too long, memory-based ones: more of them, so less parallelism, never wrong."""
    try:
        exact = within_operations(scop.ctx, max_operations, lambda: _value_based(scop))
        failure = f"needs more than {max_operations} operations (--dataflow-max-operations)"
    except isl.Error as exc:
        if is_operation_limit(exc):     # the step's bound (--isl-max-operations), not this one
            raise
        # isl's own failures, e.g. "affine expression involves some of the domain
        # dimensions" inside compute_flow (fuzz 9:129): the memory-based ones are exact
        exact, failure = None, f"failed ({isl_failure(exc)})"
    if exact is not None:
        return exact
    diagnostics.warn(f"isl's dataflow analysis of the SCoP of '{scop.function}' {failure}; using "
                     "memory-based dependences and the original loop order (correct, possibly less parallel)",
                     scop.file, scop.start_line, 1)
    return _memory_based(scop)


def _value_based(scop: Scop) -> Dependences:
    schedule = scop.schedule
    reads = scop.access_union(reads=True)
    writes = scop.access_union(reads=False)
    flow = (isl.UnionAccessInfo.from_sink(reads).set_must_source(writes)
            .set_schedule(schedule).compute_flow())
    false = (isl.UnionAccessInfo.from_sink(writes).set_must_source(writes)
             .set_may_source(reads).set_schedule(schedule).compute_flow())
    return Dependences(flow=flow.get_may_dependence().coalesce(),
                       false=false.get_may_dependence().coalesce(),
                       live_in=flow.get_may_no_source().coalesce())


def _memory_based(scop: Scop) -> Dependences:
    """Every pair of accesses to the same element, one of them a write, in either
    order; every read possibly live-in.

    Without the order these are more than the memory-based dependences, but they
    serve the one use they have, finding the loops of the original order along
    which no such pair differs (a pair counts the same in both directions), and
    they skip isl's lexicographic order of the whole SCoP, the costly part."""
    reads = scop.access_union(reads=True)
    writes = scop.access_union(reads=False)
    conflicts = writes.apply_range(reads.union(writes).reverse())
    conflicts = conflicts.union(conflicts.reverse())  # no coalesce: it costs more than it saves
    return Dependences(flow=conflicts, false=isl.UnionMap.empty(conflicts.get_space()),
                       live_in=reads, value_based=False)
