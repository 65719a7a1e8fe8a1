"""One OpenMP parallel region around each serial loop nest of the C target that holds
parallel loops (`--target=c --openmp`; issue 23).

Stencils and solvers (jacobi-2d, fdtd-2d, lu, ...) have their parallel loops under a
serial time or elimination loop; as `#pragma omp parallel for` each of them opens (forks
and joins) a team per iteration of that loop. Here the outermost serial loop that holds
a parallel loop gets `#pragma omp parallel` instead, every thread runs it, and the
parallel loops inside become work-sharing `#pragma omp for` loops, whose implicit barrier
keeps the order of what follows.

Every thread executes the code of the region that no `omp for` shares out, so:

- the user statements there (`x[t] = ...` between two nests; a serial loop of statements)
  are grouped into maximal runs, each under `#pragma omp single`, which runs it once and
  ends with a barrier, so the statements keep their order with the loops around them;
- what stays outside `omp for` and `single` is control only: isl's loops, guards and
  degenerate-loop constants (`const int c1 = ...;`), which depend only on the parameters
  and outer iterators (a SCoP does not write its parameters), so every thread takes the
  same path and meets every `omp for` and `single` the same number of times, as OpenMP
  requires. Those iterators are declared in their loops, hence private to each thread.

The SCoP's locals are declared at the top of its block, outside the region, so they are
shared in it, as the program's own variables are; a scalar a parallel loop keeps per
iteration keeps its `firstprivate(...)` clause on the `omp for`. A region never holds another
parallel region: it goes only around a loop that is not inside a parallel loop, and the
loops inside it all become `omp for`.
"""
from __future__ import annotations

from collections.abc import Iterator

from pycparser import c_ast, c_generator

from ..schedule.cpu.pipeline import Waits
from .omp_pipeline import pipelined_region
from .printer import block_items, descend

__all__ = ["BARRIER", "same_iterations", "with_parallel_regions"]

REGION = "omp parallel"
SINGLE = "omp single"
PARALLEL_FOR = "omp parallel for"
BARRIER = "omp barrier"     # a statement of its own (after the serial loops around `nowait` loops)
NOWAIT = " schedule(static) nowait"     # static: the same iterations to the same thread every time


def with_parallel_regions(statements: list[c_ast.Node], loops: list[c_ast.Pragma],
                          nowait: set[int] = frozenset(),
                          pipelined: dict[int, Waits] | None = None) -> list[c_ast.Node]:
    """`statements` (a SCoP's code) with each outermost serial loop that holds one of the
    `#pragma omp parallel for` pragmas `loops` turned into a parallel region; found, as
    the loops are, through isl's ifs and blocks (which are changed in place). The loops
    inside a region get `omp for` instead (their clauses kept), with `nowait` for those
    whose pragmas are in `nowait` (ids). A region whose loop holds nothing but one of
    the loops `pipelined` (ids: what its tiles wait for) runs it without
    barriers (omp_pipeline.py). A barrier outside every region has no team to
    wait for (the region it followed ended with one): it is dropped."""
    marked = {id(p) for p in loops}
    pipelined = pipelined or {}
    result: list[c_ast.Node] = []
    for pragma, statement in _units(statements):
        if _is_barrier(statement):
            continue
        if pragma is None and _holds(statement, marked):
            if isinstance(statement, c_ast.For):
                if (only := _only_loop(statement)) is not None and id(only[0]) in pipelined:
                    result.append(pipelined_region(statement, _work_sharing(only[0]), only[1],
                                                   pipelined[id(only[0])], REGION, BARRIER))
                    continue
                statement.stmt = c_ast.Compound(_shared_out(block_items(statement.stmt), marked, nowait))
                result += [c_ast.Pragma(REGION), statement]
                continue
            descend(statement, lambda items: with_parallel_regions(items, loops, nowait, pipelined))
        result += [pragma, statement] if pragma is not None else [statement]
    return result


def _work_sharing(pragma: c_ast.Pragma, more: str = "") -> c_ast.Pragma:
    """`#pragma omp for` with the clauses of `pragma` (`omp parallel for ...`) and `more`:
    a new node, since isl's pieces of one split member share the mark's pragma."""
    return c_ast.Pragma("omp for" + pragma.string.removeprefix(PARALLEL_FOR) + more)


def _only_loop(loop: c_ast.For) -> tuple[c_ast.Pragma, c_ast.For] | None:
    """The pragma and loop that are all of `loop`'s body, if they are (each loop
    declaring its iterator, as isl's are printed)."""
    units = list(_units(block_items(loop.stmt)))
    if len(units) != 1 or units[0][0] is None or not isinstance(units[0][1], c_ast.For):
        return None
    if not all(isinstance(f.init, c_ast.DeclList) for f in (loop, units[0][1])):
        return None
    return units[0][0], units[0][1]


def same_iterations(statements: list[c_ast.Node], loops: set[int]) -> bool:
    """Whether, in `statements` (the code of serial loops around parallel loops whose
    pragmas are `loops`, ids), every execution of those loops runs the same iterations:
    all of them have one header, which names no iterator or constant of the code around
    them there, and no statement runs outside them (each thread runs that code: a
    statement there would run once per thread, and a `single` would wait)."""
    headers: set[str] = set()
    around: set[str] = set()

    def visit(items: list[c_ast.Node]) -> bool:
        for pragma, statement in _units(items):
            if pragma is not None and id(pragma) in loops and isinstance(statement, c_ast.For):
                header = c_ast.For(statement.init, statement.cond, statement.next, c_ast.Compound([]))
                if _names(header) & around:
                    return False
                headers.add(_GENERATOR.visit(header))
            elif pragma is not None:
                return False
            elif isinstance(statement, c_ast.For):
                around.update(_names(statement.init))
                if not visit(block_items(statement.stmt)):
                    return False
            elif isinstance(statement, c_ast.If):
                if not (visit(block_items(statement.iftrue)) and
                        (statement.iffalse is None or visit(block_items(statement.iffalse)))):
                    return False
            elif isinstance(statement, c_ast.Compound):
                if not visit(statement.block_items or []):
                    return False
            elif isinstance(statement, c_ast.Decl):     # a degenerate loop's `const int c1 = ...;`
                around.add(statement.name)
            else:
                return False
        return True
    return visit(statements) and len(headers) == 1


def _names(node: c_ast.Node | None) -> set[str]:
    """The identifiers in `node` (and the names it declares)."""
    if node is None:
        return set()
    found = {node.name} if isinstance(node, (c_ast.ID, c_ast.Decl)) else set()
    for _, child in node.children():
        found |= _names(child)
    return found


def _is_barrier(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Pragma) and node.string == BARRIER


def _shared_out(statements: list[c_ast.Node], marked: set[int], nowait: set[int] = frozenset()) -> list[c_ast.Node]:
    """The body of a region: the marked loops as `omp for`, the control that holds them
    run by every thread, and each maximal run of other statements under `omp single`."""
    result: list[c_ast.Node] = []
    run: list[c_ast.Node] = []

    def close_run() -> None:
        if run:
            body = run[0] if len(run) == 1 else c_ast.Compound(list(run))
            result.extend([c_ast.Pragma(SINGLE), body])
            run.clear()

    for pragma, statement in _units(statements):
        if _is_barrier(statement):
            close_run()
            result.append(statement)
        elif pragma is not None and id(pragma) in marked:
            close_run()
            result += [_work_sharing(pragma, NOWAIT if id(pragma) in nowait else ""), statement]
        elif _holds(statement, marked):
            close_run()
            descend(statement, lambda items: _shared_out(items, marked, nowait))
            result += [pragma, statement] if pragma is not None else [statement]
        elif isinstance(statement, c_ast.Decl):
            # a degenerate loop's `const int c1 = ...;`: every thread needs it, and the
            # statements after it in this block may use it (a `single` block would hide it)
            close_run()
            result.append(statement)
        else:
            run += [pragma, statement] if pragma is not None else [statement]
    close_run()
    return result


_GENERATOR = c_generator.CGenerator()


def _units(statements: list[c_ast.Node]) -> Iterator[tuple[c_ast.Pragma | None, c_ast.Node]]:
    """Each statement with the pragma just before it (which applies to it), if any."""
    pragma = None
    for statement in statements:
        if _is_barrier(statement):
            if pragma is not None:
                raise ValueError(f"pragma {pragma.string} before a barrier")
            yield None, statement
            continue
        if isinstance(statement, c_ast.Pragma):
            if pragma is not None:
                raise ValueError(f"two pragmas before one statement: {pragma.string}, {statement.string}")
            pragma = statement
            continue
        yield pragma, statement
        pragma = None
    if pragma is not None:
        raise ValueError(f"pragma {pragma.string} before no statement")


def _holds(node: c_ast.Node, marked: set[int]) -> bool:
    """Whether one of the marked pragmas is inside `node`."""
    if isinstance(node, c_ast.Pragma):
        return id(node) in marked
    return any(_holds(child, marked) for _, child in node.children())
