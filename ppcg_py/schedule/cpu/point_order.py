"""The order of the point loops of a tiled band on the CPU (Pluto's intra-tile reordering).

isl orders a band's members by how it found them, so gemm's reduction over `k`
ends up innermost, where gcc cannot vectorise it (a sum is not reassociated
without -ffast-math) and `B[k][j]` is read down a column. Every member of a
permutable band may be moved to any position: each dependence has a
non-negative distance along every member, so every order keeps it
lexicographically positive. Inside a tile, the innermost loop is therefore
chosen as the coincident member (no dependence between its iterations, so the
vectoriser may run them together) along which most accesses are stride 0 or 1
in the array's last subscript.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import islpy as isl

from ...diagnostics import CompileError
from ...extract.model import Scop
from ...isl_context import sets_of
from ..memo import Memo


STILL, UNIT, FAR = "still", "unit", "far"   # how an access moves when a member steps by one
SINGLE = "single"       # the statement takes one value of the member: no step to move along


@dataclass(frozen=True)
class AccessSteps:
    """How each exact access under a band moves along each member of the band: the
    facts behind the point-loop order and the tile sizes chosen for the cache."""

    arrays: tuple[str, ...]                 # the array of each access
    steps: tuple[tuple[str, ...], ...]      # steps[access][member]: STILL, UNIT, FAR or SINGLE

    def moving(self, array: str) -> frozenset[int]:
        """The members along which some access to `array` moves."""
        return frozenset(m for a, row in zip(self.arrays, self.steps) if a == array
                         for m, step in enumerate(row) if step not in (STILL, SINGLE))


@dataclass(frozen=True)
class PointOrder:
    """Where each member of a band goes among the point loops, and whether the
    innermost point loop may be marked for the vectoriser."""

    order: tuple[int, ...]      # member indices, outermost first
    vector_safe: bool           # the innermost member is coincident and nothing under it needs care


def access_steps(band: isl.ScheduleNode, scop: Scop) -> AccessSteps:
    """The step of every exact access of the statements under `band` along each member,
    the loops around it held still (fdtd-2d's `ey[0][j] = _fict_[t]` stays still along
    `j` at each `t`; over all `t` at once it would look scattered)."""
    n = band.band_n_member()
    outer = band.get_schedule_depth()
    schedule = placed_instances(band)
    moves = [_step_along(band.get_ctx(), outer + m, outer + n) for m in range(n)]
    arrays, steps = [], []
    for stmt in _statements_under(band, scop):
        own = schedule.intersect_domain(isl.UnionSet.from_set(stmt.domain))
        for acc in stmt.accesses:
            if acc.exact:
                arrays.append(acc.array)
                steps.append(tuple(_STEPS.get((), (own.to_str(), acc.index.to_str(), move.to_str()),
                                              lambda move=move: _step(own, acc.index, move)) for move in moves))
    return AccessSteps(tuple(arrays), tuple(steps))


def iterator_step(domain: isl.Set, index: isl.Map, dimension: int) -> str:
    """How an access of the statement with iteration domain `domain` moves when its
    iterator `dimension` steps by one, the others held still (the program's own loops)."""
    n = domain.dim(isl.dim_type.set)
    own = isl.UnionMap.from_map(isl.Map.identity(domain.get_space().map_from_set()).intersect_domain(domain)
                                .reset_tuple_id(isl.dim_type.out))
    return _step(own, index, _step_along(domain.get_ctx(), dimension, n))


def placed_instances(band: isl.ScheduleNode) -> isl.UnionMap:
    """The instances under `band` -> (the outer schedule values, the band's values):
    one space for all statements."""
    prefix = band.get_prefix_schedule_union_map()
    own = band.band_get_partial_schedule_union_map()
    return prefix.flat_range_product(own).intersect_domain(band.get_domain())


def point_order(band: isl.ScheduleNode, scop: Scop, steps: AccessSteps) -> PointOrder:
    """The point-loop order for `band` (before tiling): its coincident member with the
    most stride-0/1 accesses innermost, ties kept nearest isl's innermost."""
    n = band.band_n_member()
    identity = tuple(range(n))
    coincident = [k for k in range(n) if band.band_member_get_coincident(k)]
    if not coincident:
        return PointOrder(identity, False)
    scores = {k: sum(row[k] != FAR for row in steps.steps) for k in coincident}
    best = max(reversed(coincident), key=lambda k: scores[k])
    order = tuple(k for k in identity if k != best) + (best,)
    return PointOrder(order, _vector_safe(_statements_under(band, scop), scop))


def given_order(band: isl.ScheduleNode, scop: Scop, order: Sequence[int]) -> PointOrder:
    """The user's point-loop order (`order[...]` of `--sizes`: the band's members,
    outermost first), marked for the vectoriser where its innermost member may be."""
    n = band.band_n_member()
    if sorted(order) != list(range(n)):
        raise CompileError(f"the point-loop order must name each of the band's {n} members (0 to {n - 1}) "
                           f"once, as order[{', '.join(map(str, reversed(range(n))))}]; not "
                           f"order[{', '.join(map(str, order))}]")
    innermost = order[-1]
    safe = band.band_member_get_coincident(innermost) and _vector_safe(_statements_under(band, scop), scop)
    return PointOrder(tuple(order), safe)


def permuted(band: isl.ScheduleNode, order: tuple[int, ...]) -> isl.ScheduleNode:
    """The band with its members in `order` (permutable, coincidence kept per member)."""
    if order == tuple(range(len(order))):
        return band
    partial = band.band_get_partial_schedule()
    return rebuilt(band, [partial.get_at(k) for k in order], [band.band_member_get_coincident(k) for k in order])


def rebuilt(band: isl.ScheduleNode, members: Sequence[isl.UnionPwAff], coincident: Sequence[bool]) -> isl.ScheduleNode:
    """A permutable band of `members` (and their coincident flags) in place of `band`."""
    partial = band.band_get_partial_schedule()
    affs = isl.UnionPwAffList.alloc(band.get_ctx(), len(members))
    for member in members:
        affs = affs.add(member)
    node = band.delete().insert_partial_schedule(isl.MultiUnionPwAff.from_union_pw_aff_list(partial.get_space(),
                                                                                              affs))
    node = node.band_set_permutable(1)
    for k, flag in enumerate(coincident):
        node = node.band_member_set_coincident(k, flag)
    return node


def _statements_under(band: isl.ScheduleNode, scop: Scop):
    names = {s.get_tuple_name() for s in sets_of(band.get_domain())}
    return [s for s in scop.statements if s.name in names]


# by the texts of the schedule, the access and the move: the plans of one SCoP (with and
# without scalar copies, each point order tried) ask again of the same accesses
_STEPS = Memo(size=512)


def _step_along(ctx: isl.Context, member: int, n: int) -> isl.Map:
    names = [f"m{k}" for k in range(n)]
    after = [f"m{k} + 1" if k == member else f"m{k}" for k in range(n)]
    return isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(after)}] }}", context=ctx)


def _step(schedule: isl.UnionMap, index: isl.Map, step: isl.Map) -> str:
    """How the element an access touches moves from one schedule point to the next along
    a member: not at all, by +-1 in its last subscript only, or otherwise."""
    if index.dim(isl.dim_type.out) == 0:
        return STILL
    # coalesced first: a statement under conditions on its loops (the faces of Pluto's
    # 3-D lattice Boltzmann grid) has a piece per face, and the compositions below
    # grow with their product (ldc_d3q19: 0.86 s -> 0.03 s per access, 248 accesses)
    schedule, index = schedule.coalesce(), index.coalesce()
    placed = schedule.reverse().apply_range(isl.UnionMap.from_map(index))   # schedule point -> element
    moves = placed.reverse().apply_range(isl.UnionMap.from_map(step)).apply_range(placed)
    if moves.is_empty():
        return SINGLE    # one point per row of the member: nothing to step over
    deltas = sets_of(moves.deltas())
    unit = _last_dimension_steps(index)
    if all(part.is_subset(unit.align_params(part.get_space())) for part in deltas):
        still = all(part.is_subset(isl.Set.universe(part.get_space()).fix_val(
            isl.dim_type.set, unit.dim(isl.dim_type.set) - 1, isl.Val(0, part.get_ctx()))) for part in deltas)
        return STILL if still else UNIT
    return FAR


def _last_dimension_steps(index: isl.Map) -> isl.Set:
    dims = index.dim(isl.dim_type.out)
    names = [f"d{k}" for k in range(dims)]
    zeros = " and ".join(f"d{k} = 0" for k in range(dims - 1))
    last = f"-1 <= d{dims - 1} <= 1"
    condition = f"{zeros} and {last}" if zeros else last
    name = index.get_tuple_name(isl.dim_type.out)
    return isl.Set(f"{{ {name}[{', '.join(names)}] : {condition} }}", context=index.get_ctx())


def _vector_safe(statements, scop: Scop) -> bool:
    """Nothing under the loop that a vectorised loop could get wrong although the member
    is coincident: a scalar written (one location for all lanes), a call, an access
    printed from the source."""
    for stmt in statements:
        if stmt.calls:
            return False
        for acc in stmt.accesses:
            if not acc.exact or (acc.is_write and scop.array(acc.array).is_scalar):
                return False
    return True
