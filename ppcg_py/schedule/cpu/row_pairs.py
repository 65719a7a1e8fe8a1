"""Rows two at a time in a stencil's time tiles (C target): unroll-and-jam by 2.

A time tile's rows (time_tiles.py: each statement's innermost loop apart) each read
their row of the source at `k - 1`, `k`, `k + 1` and the neighbouring rows of the member
above (heat-3d's planes `i - 1`, `i + 1`; jacobi-2d's rows). Two neighbouring rows run
in one loop share two of the rows they read, and gcc's costs per row (the iterations
before the first aligned store, those after the last whole vector) are paid once per
pair. The schedule keeps its tree: a mark above the point band says that the printer
(codegen/row_pairs.py) may run the loop of its first space member (`PAIRED`) two
values at a time, its body printed once per pair, each row loop computing the row at
the pair's first value and at its second (an odd last value alone). It computes both
values before storing either, under `omp simd`: both are needed, since gcc cannot know
that the arrays do not alias, and then either versions the loop or reloads what it
has. In L2, heat-3d's fused sweeps ran 1.4x faster so; at LARGE (Zen 5, one thread and
two, against the rows one at a time) jacobi-2d 1.09x and 1.10x, heat-3d 1.07x and 1.10x,
fdtd-2d 1.17x and 1.19x (docs/results/cpu-2026-11-30-row-pairs).

Legal where every dependence keeps its order under the new schedule and none joins
two instances of one row loop (two values computed before either is stored, and
vectors across the loop: `omp simd`)."""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ...isl_context import maps_of
from ..parallel import schedule_map
from .point_order import rebuilt

NT = isl.schedule_node_type
MARK = "row_pairs"  # above a time tile's point band: its member PAIRED two at a time
PAIRED = 1          # the point band's member paired: the first below time


@dataclass(frozen=True)
class RowPairs:
    """A point band (under the mark `row_pairsN`) whose member `member` the printer runs
    two values at a time."""

    index: int
    statements: frozenset[str]      # those of its rows
    member: int = PAIRED

    @property
    def name(self) -> str:
        return f"{MARK}{self.index}"


def pairable(points: isl.ScheduleNode, dependences: isl.UnionMap) -> bool:
    """Whether the rows of the point band `points` (one-member bands over leaves below
    it, apart or alone) may run two values of member `PAIRED` at a time: its loop's
    body printed once per pair, each row computing the row at the pair's first value
    and the row at its second. The printer pairs values from the loop's first, so both
    alignments (`2m, 2m + 1` and `2m - 1, 2m`) must be legal."""
    if points.band_n_member() <= PAIRED or not _rows_below(points.child(0)):
        return False
    return all(_legal(_paired_tree(points, shift), dependences) for shift in (0, 1))


def _paired_tree(points: isl.ScheduleNode, shift: int) -> isl.ScheduleNode:
    """The point band with member `PAIRED` (`p`) as `floor((p + shift) / 2)` and below
    each row the member `(p + shift) mod 2`: the order of the printed pairs."""
    n = points.band_n_member()
    partial = points.band_get_partial_schedule()
    two = isl.Val(2, points.get_ctx())
    member = partial.get_at(PAIRED)
    if shift:
        member = member.add(isl.UnionPwAff.val_on_domain(member.domain(), isl.Val(shift, points.get_ctx())))
    half = member.scale_down_val(two).floor()
    parity = member.sub(half.scale_val(two))
    coincident = [points.band_member_get_coincident(k) for k in range(n)]
    node = rebuilt(points, [half if k == PAIRED else partial.get_at(k) for k in range(n)], coincident)
    return _pair_rows(node.child(0), parity).parent()


def _rows_below(node: isl.ScheduleNode) -> bool:
    """Whether `node` is a row (a one-member band over a leaf) or a sequence of filters
    each over one."""
    if node.get_type() == NT.sequence:
        return all(_rows_below(node.child(k).child(0)) for k in range(node.n_children()))
    return node.get_type() == NT.band and node.band_n_member() == 1 and node.child(0).get_type() == NT.leaf


def _pair_rows(node: isl.ScheduleNode, parity: isl.UnionPwAff) -> isl.ScheduleNode:
    """Below each row's band, the member `parity`. Returns `node`."""
    if node.get_type() == NT.sequence:
        for k in range(node.n_children()):
            node = _pair_rows(node.child(k).child(0), parity).parent().parent()
        return node
    own = isl.MultiUnionPwAff.from_union_pw_aff(parity.intersect_domain(node.get_domain()))
    return node.child(0).insert_partial_schedule(own).parent()


def _legal(points: isl.ScheduleNode, dependences: isl.UnionMap) -> bool:
    """Whether every dependence among the instances below `points` goes forward in the
    schedule of its tree, and none stays within one row loop (equal values everywhere
    but the row's member and the pair's, the last two): the printer computes a pair's
    two values before storing either, and the row loop runs as vectors."""
    instances = points.get_domain()
    inside = dependences.intersect_domain(instances).intersect_range(instances)
    if inside.is_empty():
        return True
    times = schedule_map(points.get_schedule()).intersect_domain(instances)
    steps = inside.apply_domain(times).apply_range(times)
    for step in maps_of(steps):
        space = step.get_space().domain()
        dims = space.dim(isl.dim_type.set)
        if not step.subtract(isl.Map.lex_lt(space)).is_empty():
            return False
        # pairs of schedule points equal in every dimension but the last two
        if dims >= 2 and not step.intersect(isl.Map.from_basic_map(isl.BasicMap.equal(step.get_space(),
                                                                                     dims - 2))).is_empty():
            return False
    return True
