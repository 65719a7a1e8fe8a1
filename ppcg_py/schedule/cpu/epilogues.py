"""Statements that run once at the end (or start) of a band's inner loop, moved to a band
of their own so that the rest may keep a register block.

isl fuses covariance's finishing statements into the band of its product: `cov[i][j] /=
(n - 1)` and `cov[j][i] = cov[i][j]` run at `k = n`, after the loop over `k`. The second
reads the block transposed, so no block of `cov` could stay in registers
(register_tiles.py), and the product ran at a third of gemm's rate. Where some statements
take a single value along a member of the band that the others run over, and no
dependence goes back from one group to the other, the band becomes a sequence of two
copies, each over one group (the one the dependences put first, first): each keeps the
band's schedule, so the dependences within a group are kept, and those between the groups
point forward.
"""
from __future__ import annotations

import islpy as isl

from ...isl_context import sets_of, union_of, union_set_list
from ..distribute import is_single_value, keeps_dependences


def epilogues_apart(band: isl.ScheduleNode, dependences: isl.UnionMap) -> tuple[isl.ScheduleNode, int] | None:
    """The band split into a sequence of two copies (the sequence node, and the index of
    the child whose statements run over every member), or None where no member sets
    statements apart or the dependences forbid it."""
    instances = band.get_domain()
    statements = [isl.UnionSet.from_set(s) for s in sets_of(instances)]
    partial = band.band_get_partial_schedule()
    for m in range(band.band_n_member()):
        member = partial.get_at(m)
        single = [s for s in statements if is_single_value(member, s)]
        if not single or len(single) == len(statements):
            continue
        ends = union_of(single)
        rest = instances.subtract(ends)
        for children, running in (([rest, ends], 0), ([ends, rest], 1)):
            if keeps_dependences(band, children, dependences):
                return band.insert_sequence(union_set_list(children)), running
    return None

