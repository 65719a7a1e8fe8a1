"""Neighbours passed through warp shuffles (CUDA, `--warp-shuffles`).

A stencil's statement reads `A[i][j - 1]`, `A[i][j]` and `A[i][j + 1]` where thread x
runs `j`: the lanes of a warp each load three elements, two of which the lanes next
to them load as well. Each lane may load one element instead, its *base* (the middle
reference), and take its neighbours' from the lanes that hold them with
`__shfl_up_sync`/`__shfl_down_sync` (Matsumura, Garcia De Gonzalo and Peña, CC 2023);
a lane at the edge of its segment (the lanes of one row of thread x in a warp) loads
the element its neighbour would have given.

A shuffle is exact only where every lane of the warp reaches it at the same time
and its neighbour then runs the next element of the row. What this module checks:

- the kernel: thread x's block size a power of two up to 32 (a row of a warp's
  lanes: the shuffles' `width`) or a multiple of 32 (a warp within a row), whole
  warps (threads a multiple of 32), and every thread-mapped tile size a multiple of
  its block size (every thread runs as many points of a whole tile);
- the statement: one instance per point of the tile (no loop of its own inside the
  point loops), so that the point loops are all the control between its instances;
- the references: reads of elements that the kernel does not write in the same launch
  (no value changes while lanes exchange them), in global memory, of a type the shuffles take, equal in
  every subscript but the last, whose value grows by one with thread x's point and
  differs between them by constants within the segment's width.

Where the statement's instances fill whole tiles, the code generator (`codegen/ast.py`)
prints the shuffles; it isolates the full tiles for that (`tree.py`), and a partial
tile (at the array's edges) reads its neighbours from memory as before.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import islpy as isl

from ..extract.model import Scop
from ..isl_context import instances_of, statement_names
from ..isl_workarounds import constant_like
from ..names import fresh_name
from ..schedule.gpu import Kernel

WARP = 32
# the types __shfl_*_sync take as they are (a narrower integer would go through int)
SHUFFLED_TYPES = frozenset({"int", "unsigned", "unsigned int", "long", "long int", "unsigned long",
                            "long long", "unsigned long long", "float", "double"})


@dataclass(frozen=True)
class NeighbourShuffle:
    """References of one statement to a row of neighbours that lanes pass each other."""

    statement: str
    array: str
    element_type: str
    base: str                               # the reference each lane loads
    offsets: tuple[tuple[str, int], ...]    # every reference's tag and its element's offset from the base's
    registers: tuple[tuple[int, str], ...]  # a register per offset (0: the base's element)
    width: int                              # the lanes of a segment (`__shfl_*_sync`'s width)

    def register(self, offset: int) -> str:
        return dict(self.registers)[offset]

    def describe(self) -> str:
        spread = sorted({d for _, d in self.offsets if d})
        return (f"{self.statement} reads '{self.array}' at offsets {spread} along thread x from a lane's own "
                f"element: warp shuffles (width {self.width}) pass them in whole tiles")


def neighbour_shuffles(scop: Scop, kernel: Kernel, global_tags: frozenset[str],
                       taken: set[str]) -> tuple[NeighbourShuffle, ...]:
    """The references of the kernel's statements whose neighbours may come by warp
    shuffles (see the module's docstring); `global_tags` the references that stay in
    global memory, `taken` the names the registers must not reuse (it grows)."""
    width = _segment_width(kernel)
    if width is None:
        return ()
    in_kernel = statement_names(kernel.domain)
    written = _elements_by_launch(kernel, [a for s in scop.statements if s.name in in_kernel
                                           for a in s.accesses if a.is_write])
    found = []
    for stmt in scop.statements:
        if stmt.name not in in_kernel:
            continue
        points = _points(kernel, stmt.name)
        if points is None:
            continue
        rows: dict[str, list[tuple[str, list[isl.PwAff]]]] = {}
        for acc in stmt.accesses:
            array = scop.array(acc.array)
            if acc.is_write or not acc.exact or acc.tag not in global_tags \
                    or array.rank == 0 or array.element_type not in SHUFFLED_TYPES \
                    or not _elements_by_launch(kernel, [acc]).intersect(written).is_empty():
                continue
            element = _element_at_points(acc.index, points)
            if element is not None and _along_thread_x(element, kernel):
                rows.setdefault(acc.array, []).append((acc.tag, element))
        for name, refs in rows.items():
            for row in _rows(refs):
                shuffle = _shuffle(stmt.name, scop.array(name).element_type, name, row, width, taken)
                if shuffle is not None:
                    found.append(shuffle)
    return tuple(found)


def _elements_by_launch(kernel: Kernel, accesses) -> isl.UnionMap:
    """`[host values] -> A[a..]`: the elements the accesses touch in the kernel at each
    value of the loops around it (one launch, or one iteration of a device loop: the
    elements that no thread writes there hold still while lanes pass them; Pluto's
    `A[(t + 1) % 2][i] = .. A[t % 2][i - 1] ..` writes one half, reads the other)."""
    touched = isl.UnionMap.empty(kernel.host_schedule.get_space())
    for acc in accesses:
        index = isl.UnionMap.from_map(acc.index).intersect_domain(kernel.domain)
        touched = touched.union(kernel.host_schedule.reverse().apply_range(index))
    return touched


def _segment_width(kernel: Kernel) -> int | None:
    """The lanes of a row of thread x within a warp, or None where the kernel's shape
    gives no such rows or leaves threads with different counts of points."""
    if not kernel.thread_ids or kernel.reductions:
        return None
    block, tile = kernel.sizes.block, kernel.sizes.tile
    x = block[-1]
    if math.prod(block) % WARP or not (x % WARP == 0 or (1 < x < WARP and x & (x - 1) == 0)):
        return None
    if any(tile[k] % block[k] for k in range(len(block))):
        return None
    return min(x, WARP)


def _points(kernel: Kernel, statement: str) -> isl.Map | None:
    """`S[i..] -> [outer.., points..]`, where it is one-to-one (no loop of the statement's
    own inside the point loops), else None."""
    values = kernel.point_values(instances_of(kernel.domain, statement))
    return values if values is not None and values.is_injective() else None


def _element_at_points(index: isl.Map, points: isl.Map) -> isl.PwMultiAff | None:
    """`[outer.., points..] -> A[a..]`: the element a reference reads at each point."""
    at = points.reverse().apply_range(index)
    return isl.PwMultiAff.from_map(at) if at.is_single_valued() else None


def _along_thread_x(element: isl.PwMultiAff, kernel: Kernel) -> bool:
    """Whether the element's last subscript grows by one with thread x's point (the next
    lane's) and no other subscript changes with it."""
    x = kernel.depth + len(kernel.thread_ids) - 1
    space = element.get_domain_space()
    shift = isl.MultiAff.identity(space.map_from_set())
    moved = shift.get_aff(x).add_constant_val(isl.Val(1, space.get_ctx()))
    shift = shift.set_aff(x, moved)
    n = element.dim(isl.dim_type.out)
    for k in range(n):
        pa = element.get_pw_aff(k)
        step = pa.pullback_multi_aff(shift).sub(pa)
        if step.domain().is_empty() or not _constant(step, 1 if k == n - 1 else 0):
            return False
    return True


def _constant(pa: isl.PwAff, value: int) -> bool:
    return pa.eq_set(constant_like(pa, value)).is_equal(pa.domain())


def _rows(refs: list[tuple[str, isl.PwMultiAff]]) -> list[list[tuple[str, int]]]:
    """The references in rows: equal in every subscript but the last, which differs by
    a constant; each reference with its offset from the row's first."""
    rows: list[tuple[isl.PwMultiAff, list[tuple[str, int]]]] = []
    for tag, element in refs:
        for first, row in rows:
            offset = _offset(first, element)
            if offset is not None:
                row.append((tag, offset))
                break
        else:
            rows.append((element, [(tag, 0)]))
    return [row for _, row in rows]


def _offset(a: isl.PwMultiAff, b: isl.PwMultiAff) -> int | None:
    """`b`'s last subscript minus `a`'s where that is a constant and the others are equal."""
    n = a.dim(isl.dim_type.out)
    for k in range(n - 1):
        if not a.get_pw_aff(k).is_equal(b.get_pw_aff(k)):
            return None
    diff = b.get_pw_aff(n - 1).sub(a.get_pw_aff(n - 1))
    if diff.domain().is_empty():
        return None
    pieces = diff.get_pieces()
    values = {aff.get_constant_val().to_python() for _, aff in pieces if aff.is_cst()}
    if len(values) != 1 or any(not aff.is_cst() for _, aff in pieces):
        return None
    value = values.pop()
    return value if _constant(diff, value) else None


def _shuffle(statement: str, element_type: str, array: str, row: list[tuple[str, int]], width: int,
             taken: set[str]) -> NeighbourShuffle | None:
    """The row's shuffle: the base is its middle element; None where it has one element
    only, or neighbours at least a segment's width away."""
    distinct = sorted({d for _, d in row})
    if len(distinct) < 2:
        return None
    middle = distinct[(len(distinct) - 1) // 2]
    if any(abs(d - middle) >= width for d in distinct):
        return None
    offsets = tuple((tag, d - middle) for tag, d in row)
    base = next(tag for tag, d in offsets if d == 0)
    registers = tuple((d - middle, fresh_name(f"{array}_lane", taken, numbered=True)) for d in distinct)
    return NeighbourShuffle(statement, array, element_type, base, offsets, registers, width)
