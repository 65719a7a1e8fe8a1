"""The smallest box of constant size that covers a set of array elements.

islpy's FixedBox has no accessors (islpy does not wrap isl's fixed_box.h), so the box is computed
here as the seed paper describes: per dimension, every lower bound found in the
constraints (and the minimum, when it is one affine piece) is a candidate; the
candidate whose extent (max of index - bound, + 1, over all parameter values)
is a constant and smallest wins. The minimum, a parametric ILP, is sought only when
the bounds do not reach the narrowest extent the elements allow. With `strides`, a dimension whose elements are
congruent to an offset modulo a stride (a thread's share of a tile) is first
divided by that stride, once every element is checked to be on that lattice.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from ..isl_budget import LIMITS, refinement


@dataclass(frozen=True)
class BoxDim:
    """Elements e with offset + stride * (lower + k) == e for 0 <= k < extent.

    `lower` and `offset` depend on parameters only (outer loop values, ids).
    Without a stride, offset is 0 and stride 1: index in the box = e - lower.
    """

    lower: isl.PwAff
    extent: int
    stride: int = 1
    offset: isl.PwAff | None = None


def fixed_box(elements: isl.Set, *, strides: bool = False) -> tuple[BoxDim, ...] | None:
    """A constant-size box around `elements`, or None when there is none."""
    if elements.is_empty():
        return None
    rank = elements.dim(isl.dim_type.set)
    dims = []
    for k in range(rank):
        column = elements.project_out(isl.dim_type.set, k + 1, rank - k - 1) \
                         .project_out(isl.dim_type.set, 0, k)
        dim = _box_dim(column.coalesce(), strides)
        if dim is None:
            return None
        dims.append(dim)
    return tuple(dims)


def single_element_box(elements: isl.Set) -> tuple[BoxDim, ...] | None:
    """The box of one element, where `elements` holds one at each parameter value: its
    minimum as the lower bound, whatever divisions of the parameters that takes
    (`B[(c0 - 2) / 2]`, where `fixed_box` finds no bound it can optimise over); else None."""
    if elements.is_empty():
        return None
    rank = elements.dim(isl.dim_type.set)
    dims = []
    for k in range(rank):
        column = elements.project_out(isl.dim_type.set, k + 1, rank - k - 1).project_out(isl.dim_type.set, 0, k)
        lower, upper = column.dim_min(0), column.dim_max(0)
        if not lower.is_equal(upper):
            return None
        dims.append(BoxDim(lower, 1))
    return tuple(dims)


def box_size(box: tuple[BoxDim, ...]) -> int:
    size = 1
    for dim in box:
        size *= dim.extent
    return size


def _box_dim(column: isl.Set, strides: bool) -> BoxDim | None:
    stride, offset = 1, None
    if strides:
        info = column.get_stride_info(0)
        value = info.get_stride()
        if value.is_int() and value.to_python() > 1 and _on_lattice(column, value, info.get_offset()):
            stride = int(value.to_python())
            offset = info.get_offset()
            column = _divide(column, stride, offset)
    width = _width(column)
    if width is not None and width.is_infty():
        return None
    narrowest = int(width.to_python()) + 1 if width is not None and width.is_int() else None
    best = _narrowest(column, _hull_bounds(column), None)
    if best is None or best[0] != narrowest:      # the exact minimum may do better
        best = _narrowest(column, _minimum(column), best)
    if best is None:
        return None
    lower = isl.PwAff.from_aff(best[1]).drop_dims(isl.dim_type.in_, 0, 1)
    if offset is not None:
        offset = isl.PwAff.from_aff(offset).drop_dims(isl.dim_type.in_, 0, 1)
    return BoxDim(lower, best[0], stride, offset)


def _on_lattice(column: isl.Set, stride: isl.Val, offset: isl.Aff) -> bool:
    """Whether every element of `column` is offset + stride * q for an integer q.

    isl's stride is right, but not always its offset: from a pair of opposite
    inequalities 0 <= h + g*v*e + g*stride*f(divs) <= gap < g, isl's detect_stride
    (isl_stride.c) takes ceil(-a*h/g) as the offset (a*v = 1 mod stride) where it
    is a*ceil(-h/g); the two differ where h is not a multiple of g. The elements
    off that lattice then drop out of the divided column, the box covers only the
    threads whose offset isl got right, and the others' buffer indices fall outside
    it (tests/regressions/private_copy_out_skewed_stride: 32 elements never stored
    back). `{ [e] : exists f : 0 <= p + 9e + 48f <= 2 }` has stride 16 and offset
    5 * floor(p/3); isl says 81 + 2p + floor((-1 - p)/3). Such an offset is not
    used: the dimension goes without a stride, as does one whose check runs past
    the bound of the column's minimum (the same set)."""
    def exact() -> bool:
        ls = isl.LocalSpace.from_space(column.get_space())
        residue = isl.PwAff.from_aff(isl.Aff.var_on_domain(ls, isl.dim_type.set, 0).sub(offset)).mod_val(stride)
        return residue.ne_set(isl.PwAff.zero_on_domain(ls)).intersect(column).is_empty()
    return refinement(column.get_ctx(), LIMITS.column_minimum, exact) is True


def _divide(column: isl.Set, stride: int, offset: isl.Aff) -> isl.Set:
    """{ q : offset + stride * q in column }."""
    ls = isl.LocalSpace.from_space(column.get_space())
    scaled = isl.Aff.var_on_domain(ls, isl.dim_type.set, 0).scale_val(isl.Val(stride, column.get_ctx()))
    return isl.Map.from_aff(scaled.add(offset)).intersect_range(column).domain()


def _width(column: isl.Set) -> isl.Val | None:
    """The most two elements at one parameter value are apart (infinity when
    unbounded), or None when isl cannot say. No box is narrower than this plus one:
    its lower bound is below both. A non-parametric ILP, unlike the column's exact
    minimum: a per-thread column with no box (lu's A[i][k] under an outer loop)
    took a second to find none through the minimum, and a constant one (c0) as
    long to find nothing better than its bound c0."""
    def compute() -> isl.Val:
        deltas = isl.Map.from_domain_and_range(column, column).deltas()
        ls = isl.LocalSpace.from_space(deltas.get_space())
        return isl.PwAff.var_on_domain(ls, isl.dim_type.set, 0).intersect_domain(deltas).max_val()
    return refinement(column.get_ctx(), LIMITS.column_minimum, compute)


def _narrowest(column: isl.Set, lowers: list[isl.Aff],
               best: tuple[int, isl.Aff] | None) -> tuple[int, isl.Aff] | None:
    """`best` or the first of `lowers` with a smaller constant extent, if any."""
    for lower in lowers:
        extent = _extent(column, lower)
        if extent is not None and (best is None or extent < best[0]):
            best = (extent, lower)
    return best


def _hull_bounds(column: isl.Set) -> list[isl.Aff]:
    """Lower bounds read off the constraints of the column's hull."""
    found: list[isl.Aff] = []
    # bounds of the div-free over-approximation are still lower bounds of the column
    for constraint in column.remove_divs().simple_hull().get_constraints():
        if constraint.is_lower_bound(isl.dim_type.set, 0):
            found.append(constraint.get_bound(isl.dim_type.set, 0).ceil())
        elif constraint.is_equality() and not constraint.get_coefficient_val(isl.dim_type.set, 0).is_zero():
            found.append(constraint.get_bound(isl.dim_type.set, 0).ceil())
    return found


def _minimum(column: isl.Set) -> list[isl.Aff]:
    """The column's exact minimum as a lower bound, when it is one affine piece."""
    # the exact minimum is a parametric ILP: cheap on tiles, minutes on sets with
    # many existentials (modulo guards under a wrapped grid); then go without it
    minimum = refinement(column.get_ctx(), LIMITS.column_minimum, lambda: column.dim_min(0))
    if minimum is not None and minimum.n_piece() == 1:
        pieces = minimum.get_pieces()
        aff = pieces[0][1].floor()     # integral, as isl's optimisers need; still a lower bound
        return [aff.add_dims(isl.dim_type.in_, 1)]
    return []


def _extent(column: isl.Set, lower: isl.Aff) -> int | None:
    """max(e - lower) + 1 over every point and parameter value, if finite and lower is below."""
    ls = isl.LocalSpace.from_space(column.get_space())
    diff = isl.PwAff.from_aff(isl.Aff.var_on_domain(ls, isl.dim_type.set, 0).sub(
        lower.align_params(column.get_space()))).intersect_domain(column)
    try:
        high, low = diff.max_val(), diff.min_val()
    except isl.Error:     # a bound isl cannot optimise over: not a candidate
        return None
    if not (high.is_int() and low.is_int()) or low.to_python() < 0:
        return None
    return int(high.to_python()) + 1
