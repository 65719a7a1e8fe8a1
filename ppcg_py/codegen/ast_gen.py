"""Generate the isl AST of a scheduled SCoP, with statements and launches resolved.

isl calls back at each statement instance set (to print the statement with
subscripts written in the generated loop iterators) and before each kernel
mark (to compute the grid size from the host loops around it). Both callbacks
run under a guard: an exception inside an isl callback corrupts the heap.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import islpy as isl

from ..isl_context import CallbackGuard
from ..isl_workarounds import constant_like, iterator_ids
from ..memory import MemoryPlan
from ..schedule import Kernel, ScheduledScop
from .expr import c_expr, param_expr


@dataclass(frozen=True)
class Launch:
    kernel: Kernel
    host_depth: int               # number of host loops around the launch
    grid: tuple[str, ...]         # blocks per mapped dimension (C), outermost first
    host_values: tuple[str, ...]  # value of each host loop dimension here (C)
    guard: str = "1"              # where the launch has instances, beyond the host guards (C)


@dataclass
class ScopAst:
    root: isl.AstNode
    # each kernel mark of the AST is annotated with the key of its launch here
    launches: dict[str, Launch] = field(default_factory=dict)


def array_extents(scheduled: ScheduledScop) -> dict[str, list[str]]:
    """The extents of every array as C expressions in the parameters."""
    scop = scheduled.scop
    return {arr.name: [param_expr(e, scop.context) for e in arr.extents] for arr in scop.arrays}


def build_ast(scheduled: ScheduledScop, memory: MemoryPlan) -> ScopAst:
    """The host AST: host loops around `kernelN` marks, whose launches it sizes.

    Each launch is computed at its own mark node and tied to it by an annotation:
    isl may generate one kernel's mark several times (once per branch of a host
    guard), with other host values each time, and in an order of its own.
    """
    scop = scheduled.scop
    kernels = {k.name: k for k in scheduled.kernels}
    result = ScopAst(root=None)  # type: ignore[arg-type]
    guard = CallbackGuard()

    def after_mark(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        kernel = kernels[node.mark_get_id().get_name()]
        key = f"{kernel.name}@{len(result.launches)}"
        outer = build.get_schedule().intersect_domain(kernel.domain)  # the instances launched here
        result.launches[key] = Launch(kernel, kernel.host_depth, _grid(kernel, outer, build),
                                      _host_values(kernel, outer, build), _launch_guard(outer, build))
        return node.set_annotation(isl.Id(key, context=scop.ctx))

    build = isl.AstBuild.from_context(scop.context)
    build = build.set_iterators(iterator_ids(scop.ctx, scheduled.names.iterators(64)))
    build, handle = build.set_after_each_mark(guard.wrap(after_mark, lambda node, _b: node))
    root = build.node_from_schedule(scheduled.final_schedule)
    guard.reraise()
    del handle
    result.root = root
    return result


def _host_values(kernel: Kernel, outer: isl.UnionMap, build: isl.AstBuild) -> tuple[str, ...]:
    """The host loop values at a launch, from the instances under the mark.

    isl may fold a host loop away where it has a single value (then the build has
    fewer dimensions than the kernel has host loops): the values still follow from
    the instances the launch runs.
    """
    if kernel.host_depth == 0:
        return ()
    here = outer.reverse().apply_range(kernel.host_schedule)
    values = isl.PwMultiAff.from_map(isl.Map.from_union_map(here))
    return tuple(c_expr(build.expr_from_pw_aff(values.get_pw_aff(k))) for k in range(kernel.host_depth))


def _launch_guard(outer: isl.UnionMap, build: isl.AstBuild) -> str:
    """The host values at which the kernel has instances, as far as the host code has not checked them.

    isl may leave the guard of a subtree inside its mark, where the host printer
    does not look: launched there, the grid of an empty tile range is 0 blocks,
    which CUDA rejects.
    """
    where = isl.Set.from_union_set(outer.range()).coalesce()
    return c_expr(build.expr_from_set(where))


def _grid(kernel: Kernel, outer: isl.UnionMap, build: isl.AstBuild) -> tuple[str, ...]:
    """Blocks per dimension: min(grid size, tiles), when the tile range starts at 0."""
    if kernel.block_schedule is None:
        return ()
    tiles = isl.Map.from_union_map(outer.reverse().apply_range(kernel.block_schedule))
    grid = []
    for k, limit in enumerate(kernel.sizes.grid):
        lowest = tiles.dim_min(k)
        if not lowest.nonneg_set().is_equal(lowest.domain()):
            grid.append(str(limit))
            continue
        count = tiles.dim_max(k).add(constant_like(lowest, 1))
        count = count.min(constant_like(lowest, limit)).coalesce()
        # At least one block, written outside isl: isl simplifies the count under what
        # it believes the host code checks, but it may leave that check inside the mark
        # (docs/isl-notes.md), and a launch there (no tiles, so nothing to lose) with
        # 0 blocks is invalid. Where the kernel has tiles, the count is exact.
        text = c_expr(build.expr_from_pw_aff(count))
        grid.append(text if re.fullmatch(r"\(*\d+\)*", text) else f"ppcg_max(1, {text})")
    return tuple(grid)
