"""What each kernel does, counted from the polyhedral model: its floating-point
operations and the DRAM bytes it cannot avoid moving, for the roofline report
(`-v`/`--report`) and for `--timing`'s achieved rates.

Counts are boxes: the product of a set's extents, dimension by dimension, as isl's
extremes give them (a parametric count of a polytope's points needs a counting
library isl does not include). A box is exact for rectangular sets and an upper
bound otherwise (a triangular nest counts twice its points); each count says which.

- Operations: per statement instance, its floating-point operators (`+ - * /`, the
  compound assignments, one per call of a math function), outside its subscripts, in
  a statement that writes a `float` or `double`; times its instances in the kernel.
- DRAM bytes: per launch, the box of the elements each array's reads touch plus the
  box of those its writes touch (the compulsory traffic: each element once), the
  largest over the launches, times the launches.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import islpy as isl
from pycparser import c_ast

from ...extract.model import Scop, Statement
from ... import points
from ...isl_budget import LIMITS, refinement
from ...isl_context import maps_of
from ...gpu_targets import GpuTarget
from .kernels import Kernel

_FLOATING = ("float", "double")
_OPERATORS = frozenset("+-*/")
_BYTES = {"double": 8, "float": 4, "int": 4, "long": 8, "char": 1, "short": 2}


@dataclass(frozen=True)
class Box:
    """`weight` times the points of a box: the product of `extents` (functions of the
    parameters) where `where` holds, 0 elsewhere."""

    weight: float
    where: isl.Set                      # a parameter set
    extents: tuple[isl.PwAff, ...]
    exact: bool                         # the set counted was its box
    # the set a box bounds, counted point by point where the parameters are known
    # (ppcg_py/points.py), if that is cheap enough
    counted: isl.Set | None = None

    def times(self, other: Box) -> Box:
        return Box(self.weight * other.weight, self.where.intersect(other.where), self.extents + other.extents,
                   self.exact and other.exact)

    def value(self, context: isl.Set) -> float | None:
        """The count where `context` fixes every parameter; None where it does not."""
        where = self.where.intersect(context)
        if where.is_empty():
            return 0.0
        if not where.is_equal(context):
            return None
        sizes = []
        for extent in self.extents:
            try:
                fixed = extent.intersect_params(context)
                low, high = fixed.min_val(), fixed.max_val()
            except isl.Error:       # a rational extent isl's extremes refuse (fuzz 2813:214)
                return None
            if not (low.is_int() and low.eq(high)):
                return None
            sizes.append(low.to_python())
        if self.counted is not None and math.prod(sizes[:-2]) <= _OUTER_POINTS:
            values = _parameter_values(context)
            if values is not None:
                return float(self.weight * points.count(self.counted, values))
        return float(self.weight * math.prod(sizes))

    @property
    def known_exactly(self) -> bool:
        """Exact, or exact once the parameters are known."""
        return self.exact or self.counted is not None


# the most outer points (all but the two innermost dimensions) counted one by one
_OUTER_POINTS = 200_000


def _parameter_values(context: isl.Set) -> dict[str, int] | None:
    """The value of each parameter where `context` has one point, else None."""
    if not context.is_singleton():
        return None
    point = context.sample_point()
    return {context.get_dim_name(isl.dim_type.param, k):
            point.get_coordinate_val(isl.dim_type.param, k).to_python()
            for k in range(context.dim(isl.dim_type.param))}


Count = tuple[Box, ...]     # a sum of boxes


def scaled(count: Count, weight: float) -> Count:
    return tuple(replace(b, weight=b.weight * weight) for b in count)


def product(a: Count, b: Count) -> Count:
    return tuple(x.times(y) for x in a for y in b)


def value(count: Count, context: isl.Set) -> float | None:
    """The sum at `context`'s fixed parameter values, or None."""
    values = [b.value(context) for b in count]
    return None if any(v is None for v in values) else sum(values)


def exact(count: Count) -> bool:
    return all(b.exact for b in count)


def known_exactly(count: Count) -> bool:
    """Exact once the parameters are known (boxes, or sets counted point by point)."""
    return all(b.known_exactly for b in count)


def box(domain: isl.Set, context: isl.Set, weight: float = 1) -> Count:
    """The points of the box around `domain`: nothing where it is empty. A dimension
    isl cannot bound counts once (and makes the count inexact)."""
    params = domain.params().intersect(context.align_params(domain.params().get_space()))
    if params.is_empty():
        return ()
    extents, bounded = [], True
    for k in range(domain.dim(isl.dim_type.set)):
        try:
            extent = domain.dim_max(k).sub(domain.dim_min(k)).add_constant_val(isl.Val.one(domain.get_ctx()))
        except isl.Error:
            bounded = False
            continue
        if extent.involves_nan():
            bounded = False
            continue
        extent = _total(extent.gist_params(params), params)
        if extent.domain().is_empty():
            continue
        extents.append(extent)
    is_box = bounded and _is_box(domain)
    return (Box(float(weight), params, tuple(extents), is_box, None if is_box else domain),)


def _is_box(domain: isl.Set) -> bool:
    """Whether `domain` equals its hull, and each constraint of that hull bounds one
    dimension (a rectangle, whatever the parameters)."""
    try:
        hull = domain.simple_hull()
        if hull.dim(isl.dim_type.div) or not isl.Set.from_basic_set(hull).is_subset(domain):
            return False
    except isl.Error:
        return False
    n = hull.dim(isl.dim_type.set)
    spans: list[int] = []
    hull.foreach_constraint(lambda c: spans.append(
        sum(1 for k in range(n) if not c.get_coefficient_val(isl.dim_type.set, k).is_zero())))
    return all(span <= 1 for span in spans)


def _total(extent: isl.PwAff, where: isl.Set) -> isl.PwAff:
    """`extent` where defined in `where`, and 1 elsewhere there (isl's extremes of a
    dimension are defined where the set is not empty only)."""
    rest = where.subtract(extent.domain())
    if rest.is_empty():
        return extent
    one = isl.PwAff.from_aff(isl.Aff.zero_on_domain(isl.LocalSpace.from_space(rest.get_space()))).add_constant_val(
        isl.Val.one(rest.get_ctx())).intersect_domain(rest)
    return extent.union_add(one)


def sets(union: isl.UnionSet) -> list[isl.Set]:
    found: list[isl.Set] = []
    union.foreach_set(found.append)
    return found


def starts(host_schedule: isl.UnionMap | None, domain: isl.UnionSet, context: isl.Set) -> Count:
    """How often a loop (or launch) starts: the values of the loops around it, once
    where there are none."""
    once = (Box(1.0, isl.Set.universe(context.params().get_space()), (), True),)
    if host_schedule is None:
        return once
    ranges = sets(host_schedule.intersect_domain(domain).range())
    return tuple(b for r in ranges for b in box(r, context)) if ranges else once


def launches(kernel: Kernel, context: isl.Set) -> Count:
    """How often the kernel is launched: once where no host loop surrounds it, or where
    one launch runs a whole loop (a device loop)."""
    if kernel.counted is not None:
        return starts(kernel.counted.host_schedule, kernel.counted.instances, context)
    if kernel.host_depth == 0 or kernel.launched_in:
        return starts(None, kernel.domain, context)
    return starts(kernel.host_schedule, kernel.domain, context)


@dataclass(frozen=True)
class KernelWork:
    """A kernel's floating-point operations and compulsory DRAM bytes, all launches."""

    kernel: str
    flops: Count
    dram_bytes: Count
    double: bool            # some of its operations are on doubles (the FP64 peak bounds it)


def kernel_work(scop: Scop, kernel: Kernel) -> KernelWork | None:
    """The kernel's work, or None where isl cannot count it within its bound
    (`LIMITS.kernel_work`): the report then says so, and --timing records no work for it."""
    return refinement(scop.ctx, LIMITS.kernel_work, lambda: _kernel_work(scop, kernel))


def _kernel_work(scop: Scop, kernel: Kernel) -> KernelWork:
    statements = {s.name: s for s in scop.statements}
    types = {a.name: a.element_type.split()[-1] for a in scop.arrays}
    parts = [s for s in sets(kernel.counted_instances) if s.get_tuple_name() in statements]
    flops: list[Box] = []
    double = False
    for part in parts:
        stmt = statements[part.get_tuple_name()]
        n, kind = floating_operations(stmt, types)
        double |= kind == "double"
        if n:
            flops += box(part, scop.context, n * kernel.counted_share)
    count = launches(kernel, scop.context)
    moved: list[Box] = []
    for reads in (True, False):
        for array, footprint in _footprints(scop, kernel, parts, statements, reads):
            moved += scaled(product(count, footprint), _BYTES.get(types.get(array, "double"), 8))
    return KernelWork(kernel.name, tuple(flops), tuple(moved), double)


def _footprints(scop: Scop, kernel: Kernel, parts: list[isl.Set], statements: dict[str, Statement],
                reads: bool) -> list[tuple[str, Count]]:
    """Per array, the box of the elements one launch reads (or writes), the largest
    over the launches."""
    arrays = {a.name for a in scop.arrays}
    accesses = None
    for part in parts:
        for acc in statements[part.get_tuple_name()].accesses:
            if (acc.is_read if reads else acc.is_write) and acc.array in arrays:
                relation = isl.UnionMap.from_map(acc.index.intersect_domain(part))
                accesses = relation if accesses is None else accesses.union(relation)
    if accesses is None:
        return []
    if kernel.host_depth == 0 or kernel.launched_in or kernel.host_schedule is None:
        return [(elements.get_tuple_name(), box(elements, scop.context)) for elements in sets(accesses.range())]
    per_launch = kernel.host_schedule.intersect_domain(kernel.domain).reverse().apply_range(accesses)
    return [(m.get_tuple_name(isl.dim_type.out), _largest(m, scop.context)) for m in maps_of(per_launch)]


def _largest(per_launch: isl.Map, context: isl.Set) -> Count:
    """{ host values -> elements }: the box whose extent in each dimension is the
    largest of one launch's elements' (exact where every launch's box is the same
    size and the elements of all launches form a box)."""
    params = per_launch.params().intersect(context.align_params(per_launch.params().get_space()))
    if params.is_empty():
        return ()
    one = isl.Val.one(per_launch.get_ctx())
    extents, constant = [], True
    for k in range(per_launch.dim(isl.dim_type.out)):
        try:
            width = isl.Map.from_pw_aff(per_launch.dim_max(k).sub(per_launch.dim_min(k))).range()
            top = width.dim_max(0)
        except isl.Error:
            constant = False
            continue
        if top.involves_nan():
            constant = False
            continue
        constant = constant and width.dim_min(0).is_equal(top)
        extents.append(_total(top.add_constant_val(one).gist_params(params), params))
    return (Box(1.0, params, tuple(extents), constant and _is_box(per_launch.range())),)


def floating_operations(stmt: Statement, types: dict[str, str]) -> tuple[int, str]:
    """(operators per instance, "double" or "float" as the location it writes): (0, "")
    where the statement writes no floating-point location."""
    written = [types.get(a.array, "int") for a in stmt.accesses if a.is_write]
    floating = [t for t in written if t in _FLOATING]
    if not floating:
        return 0, ""
    counter = _Operators()
    counter.visit(stmt.body)
    return counter.count, "double" if "double" in floating else "float"


class _Operators(c_ast.NodeVisitor):
    def __init__(self) -> None:
        self.count = 0

    def visit_ArrayRef(self, node: c_ast.ArrayRef) -> None:
        self.visit(node.name)       # its subscript's arithmetic is addressing, not work

    def visit_BinaryOp(self, node: c_ast.BinaryOp) -> None:
        self.count += node.op in _OPERATORS
        self.generic_visit(node)

    def visit_Assignment(self, node: c_ast.Assignment) -> None:
        self.count += node.op[:-1] in _OPERATORS
        self.generic_visit(node)

    def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
        self.count += 1
        if node.args is not None:
            self.visit(node.args)


def roofline_bound(flops: float, dram_bytes: float, card: GpuTarget, double: bool) -> tuple[float, str]:
    """(seconds, what bounds them): the larger of the operations at the card's peak and
    the bytes at its DRAM bandwidth."""
    compute = flops / (card.fp64_flops if double else card.fp32_flops)
    memory = dram_bytes / card.dram_bandwidth
    return max(compute, memory), "compute-bound" if compute >= memory else "memory-bound"


def describe(scop: Scop, kernel: Kernel, card: GpuTarget) -> str:
    """-v/--report: the kernel's work, arithmetic intensity and roofline bound at the
    parameter values the context fixes (else: measured at run time by --timing)."""
    work = kernel_work(scop, kernel)
    if work is None:
        return f"{kernel.name} work: not counted (isl cannot bound its sets)"
    try:
        flops, moved = value(work.flops, scop.context), value(work.dram_bytes, scop.context)
    except isl.Error:
        flops = moved = None
    precision = "FP64" if work.double else "FP32"
    bounds = [what for what, count, known in (("flops", work.flops, known_exactly), ("DRAM bytes", work.dram_bytes, exact))
              if not known(count)]
    how = f" ({' and '.join(bounds)} counted by boxes: upper bounds where a set is not rectangular)" if bounds else ""
    if flops is None or moved is None:
        return (f"{work.kernel} work: depends on the parameters (--ctx or -D fixes them; --timing reports it "
                "at run time)")
    peak = card.fp64_flops if work.double else card.fp32_flops
    seconds, bound = roofline_bound(flops, moved, card, work.double)
    intensity = f"{flops / moved:.3g} flops/byte" if moved else "no DRAM traffic"
    operations = f"{flops:.4g} {precision} flops" if flops else "no floating-point operations"
    return (f"{work.kernel} work: {operations}, {moved:.4g} DRAM bytes, {intensity}; roofline on "
            f"{card.name} ({peak / 1e12:.3g} TFLOP/s {precision}, {card.dram_bandwidth / 1e12:.3g} TB/s): "
            f"{seconds * 1e6:.4g} us, {bound}{how}")
