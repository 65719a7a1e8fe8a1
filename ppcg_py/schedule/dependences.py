"""Dependences of a SCoP, computed by isl's dataflow analysis as PPCG does."""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..extract.model import Scop


@dataclass(frozen=True)
class Dependences:
    flow: isl.UnionMap        # read-after-write (value-based)
    false: isl.UnionMap       # write-after-read and write-after-write
    live_in: isl.UnionMap     # reads with no write before them in the SCoP

    @property
    def all(self) -> isl.UnionMap:
        return self.flow.union(self.false)


def compute_dependences(scop: Scop) -> Dependences:
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
