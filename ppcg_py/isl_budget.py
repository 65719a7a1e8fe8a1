"""Bounds on isl's work, in isl's own operation count, and every such bound's value.

isl counts operations per context (one per simplex pivot or allocation) and
fails a call with "maximal number of operations exceeded" once the count reaches
the context's limit. A bound here nests: inside an outer bound, an inner one
stops at the inner limit or where the outer one would, whichever comes first,
and the outer count goes on through it (the inner work counts against the outer
bound). Running out of a bound raises `OutOfOperations`; any other isl failure
stays an `isl.Error`.

isl can reset its count but not report it, so an inner bound under an outer one
reads the count with a binary search of probes that cost one operation each
(`_operations_so_far`); under no outer bound it just starts the count at zero.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

import islpy as isl

T = TypeVar("T")


@dataclass(frozen=True)
class IslLimits:
    """Every bound on isl's work, in operations (0: none). A bound trades quality
    (a coarser box, a weaker context, memory-based dependences) for a predictable
    compile time; none of them trades correctness."""

    step: int = 0
    """Per compilation step (--isl-max-operations). None by default: --timeout
    bounds a compilation in seconds, and an operation count is for users who want
    the same answer on every machine."""

    dataflow: int = 3_000_000
    """isl's dataflow analysis per SCoP (--dataflow-max-operations), then
    memory-based dependences. Every PolyBench kernel needs < 1M (about a second);
    fuzzed nests with modulo guards have needed > 10M (minutes)."""

    array_size: int = 1_000_000
    """The largest index of an `A[]` whose size is inferred: about a second; past
    it the size is an error asking for a declaration."""

    copy_box: int = 50_000
    """Each attempt at the box of an array's elements that cross to or from the
    device (exact, then the div-free hull's): about a second on hard sets; then
    the whole array crosses."""

    column_minimum: int = 100_000
    """The parametric minimum of one dimension of a group's elements, one candidate
    lower bound of its buffer: cheap on tiles, minutes on sets with many
    existentials (modulo guards under a wrapped grid); the other candidates remain."""

    launch_buffer: int = 1_000_000
    """Each array's shared buffer across a launch of split tiles (`--hybrid`): its
    elements over the launch's steps, their box and the copies' sets, and once per
    kernel the check that a block runs one tile; then the array stays in global
    memory. A fuzzed launch of five statements under modulo guards took isl minutes."""

    kernel_work: int = 2_000_000
    """A kernel's operations and DRAM bytes for `-v`/`--report` and `--timing` (its
    instances' boxes, its arrays' largest box per launch): about 1M for seidel-2d's, less
    for PolyBench's other kernels; a fuzzed kernel's parametric extents took isl over ten minutes (fuzz
    2979:176, `-v`). Then the report says the work is not counted."""

    path_costs: int = 5_000_000
    """The counts of a SCoP's run-time choice between device and host (instances,
    operations and bytes of each kernel): at most 150,000 on PolyBench's kernels, with
    or without --hybrid; 108M (18 s) on a fuzzed SCoP of split tiles. Then the device
    runs it wherever one is usable, as where isl cannot print a count."""

    scop_ast: int = 4_000_000
    """The AST of a SCoP's whole tree, about 30 s at most; then it is built again
    with no loop unrolled (isl's AST generator is slowest on unrolling, and has
    failed its internal checks there)."""


LIMITS = IslLimits()


class OutOfOperations(Exception):
    """isl ran past a bound's operation limit (not the limit of a bound around it)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"isl needed more than {limit} operations")
        self.limit = limit

    def __reduce__(self):   # crosses from the compiling process (watchdog.py)
        return (OutOfOperations, (self.limit,))


def is_operation_limit(exc: BaseException) -> bool:
    """Whether an isl error is isl's "maximal number of operations exceeded"."""
    return isinstance(exc, isl.Error) and "maximal number of operations exceeded" in str(exc)


def isl_failure(exc: Exception) -> str:
    """What an isl error says, for a warning: its first line without isl's call and source position."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return re.sub(r"^call to \w+ failed: | in /\S+:\d+$", "", text)


@contextmanager
def operations_bound(ctx: isl.Context, limit: int) -> Iterator[None]:
    """Bound the isl work inside to `limit` operations (0: only the bounds around it).

    Raises OutOfOperations when this bound runs out; when a bound around it runs
    out first, isl's error goes on to that bound.
    """
    outer = ctx.get_max_operations()
    if limit <= 0:
        yield
        return
    if outer == 0:
        ctx.reset_operations()
        start = 0
    else:
        start = _operations_so_far(ctx, outer)
    stop = start + limit if outer == 0 else min(start + limit, outer)
    ctx.set_max_operations(stop)
    try:
        yield
    except isl.Error as exc:
        if is_operation_limit(exc) and (outer == 0 or stop < outer):
            raise OutOfOperations(limit) from None
        raise
    finally:
        ctx.set_max_operations(outer)


def bounded(ctx: isl.Context, limit: int, compute: Callable[[], T]) -> T:
    """`compute()` within `limit` isl operations; OutOfOperations past them."""
    with operations_bound(ctx, limit):
        return compute()


def within_operations(ctx: isl.Context, limit: int, compute: Callable[[], T]) -> T | None:
    """`compute()`, or None when isl needs more than `limit` operations for it.

    For optional refinements (a better box, a simpler guard) whose exact answer
    can take isl minutes on sets with many existentials: giving up costs only
    quality, never correctness. Other isl errors propagate.
    """
    try:
        return bounded(ctx, limit, compute)
    except OutOfOperations:
        return None


def refinement(ctx: isl.Context, limit: int, compute: Callable[[], T]) -> T | None:
    """`compute()`, or None when isl runs out of `limit` operations or fails on it.

    For refinements with a fallback that is always correct (a wider box, another
    candidate bound, a located error asking for a declaration): isl's own failures
    on hard sets (such as "affine expression involves some of the domain
    dimensions", seen in its dataflow analysis) then cost quality, not the
    compilation. A bound around it that runs out still ends the step.
    """
    try:
        return within_operations(ctx, limit, compute)
    except isl.Error as exc:
        if is_operation_limit(exc):
            raise
        return None


def _operations_so_far(ctx: isl.Context, limit: int) -> int:
    """isl's operation count, known to be at most `limit` (> 0), which is set again after.

    A probe (a new isl value: one operation) succeeds iff the count is below the
    context's limit, and then adds one to it; so a binary search over the limit
    finds the count in about log2(limit) probes.
    """
    low, high = 0, limit            # low <= count <= high
    try:
        while low < high:
            middle = (low + high + 1) // 2
            ctx.set_max_operations(middle)
            try:
                isl.Val.zero(ctx)
            except isl.Error:
                low = middle        # count >= middle
            else:
                low, high = low + 1, middle     # count < middle, then one more
        return low
    finally:
        ctx.set_max_operations(limit)
