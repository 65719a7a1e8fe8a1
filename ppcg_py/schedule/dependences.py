"""Dependences of a SCoP, computed by isl's dataflow analysis as PPCG does."""
from __future__ import annotations

import sys
from dataclasses import dataclass

import islpy as isl

from ..extract.model import Scop
from ..isl_context import within_operations


@dataclass(frozen=True)
class Dependences:
    flow: isl.UnionMap        # read-after-write (value-based)
    false: isl.UnionMap       # write-after-read and write-after-write
    live_in: isl.UnionMap     # reads with no write before them in the SCoP
    value_based: bool = True  # False: memory-based, isl's analysis was too costly

    @property
    def all(self) -> isl.UnionMap:
        return self.flow.union(self.false)


def compute_dependences(scop: Scop, max_operations: int) -> Dependences:
    """Value-based dependences (isl's dataflow analysis), or, when that would take
    too long, memory-based ones: more of them, so less parallelism, never wrong."""
    exact = within_operations(scop.ctx, max_operations, lambda: _value_based(scop))
    if exact is not None:
        return exact
    print(f"{scop.file}:{scop.start_line}:1: warning: isl's dataflow analysis of the SCoP of "
          f"'{scop.function}' needs more than {max_operations} operations (--dataflow-max-operations); "
          "using memory-based "
          "dependences and the original loop order (correct, possibly less parallel)", file=sys.stderr)
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
    """Every earlier access to the same element, and every read as possibly live-in."""
    order = scop.schedule.get_map()
    before = order.lex_lt_union_map(order)
    reads = scop.access_union(reads=True)
    writes = scop.access_union(reads=False)

    def pairs(sources: isl.UnionMap, sinks: isl.UnionMap) -> isl.UnionMap:
        return sources.apply_range(sinks.reverse()).intersect(before)

    return Dependences(flow=pairs(writes, reads).coalesce(),
                       false=pairs(reads, writes).union(pairs(writes, writes)).coalesce(),
                       live_in=reads, value_based=False)
