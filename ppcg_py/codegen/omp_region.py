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

from pycparser import c_ast

__all__ = ["with_parallel_regions"]

REGION = "omp parallel"
SINGLE = "omp single"
PARALLEL_FOR = "omp parallel for"


def with_parallel_regions(statements: list[c_ast.Node], loops: list[c_ast.Pragma]) -> list[c_ast.Node]:
    """`statements` (a SCoP's code) with each outermost serial loop that holds one of the
    `#pragma omp parallel for` pragmas `loops` turned into a parallel region; found, as
    the loops are, through isl's ifs and blocks (which are changed in place). The loops
    inside a region get `omp for` instead (their clauses kept)."""
    marked = {id(p) for p in loops}
    result: list[c_ast.Node] = []
    for pragma, statement in _units(statements):
        if pragma is None and _holds(statement, marked):
            if isinstance(statement, c_ast.For):
                statement.stmt = c_ast.Compound(_shared_out(_items(statement.stmt), marked))
                result += [c_ast.Pragma(REGION), statement]
                continue
            _descend(statement, lambda items: with_parallel_regions(items, loops))
        result += [pragma, statement] if pragma is not None else [statement]
    return result


def _shared_out(statements: list[c_ast.Node], marked: set[int]) -> list[c_ast.Node]:
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
        if pragma is not None and id(pragma) in marked:
            close_run()
            # a new node: isl's pieces of one split member share the mark's pragma
            result += [c_ast.Pragma("omp for" + pragma.string.removeprefix(PARALLEL_FOR)), statement]
        elif _holds(statement, marked):
            close_run()
            _descend(statement, lambda items: _shared_out(items, marked))
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


def _units(statements: list[c_ast.Node]) -> Iterator[tuple[c_ast.Pragma | None, c_ast.Node]]:
    """Each statement with the pragma just before it (which applies to it), if any."""
    pragma = None
    for statement in statements:
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


def _descend(statement: c_ast.Node, transform) -> None:
    """Apply `transform` to the statement lists of a loop, block or if that holds a
    marked loop (in place). isl prints loop bodies and branches as blocks."""
    if isinstance(statement, c_ast.For):
        statement.stmt = c_ast.Compound(transform(_items(statement.stmt)))
    elif isinstance(statement, c_ast.Compound):
        statement.block_items = transform(statement.block_items or [])
    elif isinstance(statement, c_ast.If):
        statement.iftrue = c_ast.Compound(transform(_items(statement.iftrue)))
        if statement.iffalse is not None:
            statement.iffalse = c_ast.Compound(transform(_items(statement.iffalse)))
    else:
        raise ValueError(f"a parallel loop inside a {type(statement).__name__}")


def _items(statement: c_ast.Node) -> list[c_ast.Node]:
    return (statement.block_items or []) if isinstance(statement, c_ast.Compound) else [statement]
