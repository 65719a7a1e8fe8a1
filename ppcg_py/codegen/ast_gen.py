"""Generate the isl AST of a scheduled SCoP, with statements and launches resolved.

isl calls back at each statement instance set (to print the statement with
subscripts written in the generated loop iterators) and before each kernel
mark (to compute the grid size from the host loops around it). Both callbacks
run under a guard: an exception inside an isl callback corrupts the heap.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl

from ..isl_context import CallbackGuard
from ..memory import MemoryPlan
from ..schedule import Kernel, ScheduledScop
from .expr import c_expr
from .statements import linearized, print_statement


@dataclass(frozen=True)
class Launch:
    kernel: Kernel
    host_depth: int               # number of host loops around the launch
    grid: tuple[str, ...]         # blocks per mapped dimension (C), outermost first


@dataclass
class ScopAst:
    root: isl.AstNode
    statements: dict[str, str] = field(default_factory=dict)   # annotation -> C text
    launches: dict[str, Launch] = field(default_factory=dict)  # kernel name -> launch


def array_extents(scheduled: ScheduledScop) -> dict[str, list[str]]:
    """The extents of every array as C expressions in the parameters."""
    scop = scheduled.scop
    build = isl.AstBuild.from_context(scop.context)
    return {arr.name: [c_expr(build.expr_from_pw_aff(e.intersect_params(scop.context).coalesce()))
                       for e in arr.extents] for arr in scop.arrays}


def build_ast(scheduled: ScheduledScop, memory: MemoryPlan) -> ScopAst:
    scop = scheduled.scop
    ctx = scop.ctx
    extents = array_extents(scheduled)
    statements = {s.name: s for s in scop.statements}
    kernels = {k.name: k for k in scheduled.kernels}
    result = ScopAst(root=None)  # type: ignore[arg-type]
    guard = CallbackGuard()

    def at_domain(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        schedule = isl.Map.from_union_map(build.get_schedule())
        stmt = statements[schedule.get_tuple_name(isl.dim_type.in_)]
        to_instance = isl.PwMultiAff.from_map(schedule.reverse())
        iterators = {name: c_expr(build.expr_from_pw_aff(to_instance.get_pw_aff(k)))
                     for k, name in enumerate(stmt.iterators)}
        references = {}
        for acc in stmt.accesses:
            index = isl.PwMultiAff.from_map(acc.index).pullback_pw_multi_aff(to_instance)
            subs = [c_expr(build.expr_from_pw_aff(index.get_pw_aff(k)))
                    for k in range(index.dim(isl.dim_type.out))]
            references[id(acc.ref)] = linearized(acc.array, subs, extents[acc.array])
        key = f"stmt{len(result.statements)}"
        result.statements[key] = print_statement(stmt.body, references, iterators)
        return node.set_annotation(isl.Id(key, context=ctx))

    def before_mark(mark: isl.Id, build: isl.AstBuild) -> None:
        kernel = kernels[mark.get_name()]
        depth = build.get_schedule_space().dim(isl.dim_type.set)
        result.launches[kernel.name] = Launch(kernel, depth, _grid(kernel, build))

    build = isl.AstBuild.from_context(scop.context)
    build = build.set_iterators(_iterator_ids(ctx, scheduled.names.iterators(64)))
    build, h1 = build.set_at_each_domain(guard.wrap(at_domain, lambda node, _b: node))
    build, h2 = build.set_before_each_mark(guard.wrap(before_mark, lambda _m, _b: None))
    root = build.node_from_schedule(scheduled.final_schedule)
    guard.reraise()
    del h1, h2
    result.root = root
    return result


def _iterator_ids(ctx: isl.Context, names: list[str]) -> isl.IdList:
    ids = isl.IdList.alloc(ctx, len(names))
    for name in names:
        ids = ids.add(isl.Id(name, context=ctx))
    return ids


def _grid(kernel: Kernel, build: isl.AstBuild) -> tuple[str, ...]:
    """Blocks per dimension: min(grid size, tiles), when the tile range starts at 0."""
    if kernel.block_schedule is None:
        return ()
    outer = build.get_schedule().intersect_domain(kernel.domain)
    tiles = isl.Map.from_union_map(outer.reverse().apply_range(kernel.block_schedule))
    grid = []
    for k, limit in enumerate(kernel.sizes.grid):
        lowest = tiles.dim_min(k)
        if not lowest.nonneg_set().is_equal(lowest.domain()):
            grid.append(str(limit))
            continue
        count = tiles.dim_max(k).add(_const_like(lowest, 1))
        count = count.min(_const_like(lowest, limit)).coalesce()
        grid.append(c_expr(build.expr_from_pw_aff(count)))
    return tuple(grid)


def _const_like(pa: isl.PwAff, value: int) -> isl.PwAff:
    return isl.PwAff.val_on_domain(pa.domain(), isl.Val(value, pa.get_ctx()))
