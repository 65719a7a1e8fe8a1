"""Which of a function's scalars are dead once its SCoP ends.

A written scalar must reach the host after the SCoP only if something may read
it there. This is a deliberately simple, conservative test, enough for the
common case of a temporary declared at the top of the function for the SCoP's
use alone (PolyBench's `temp2` in symm, `ym1`, `xm1`, ... in deriche) or of loop
iterators declared there (Pluto's examples: `long int t, i, j;` at the top of `main`,
`i` also used by a loop that fills the grid before the SCoP): the variable is an
automatic variable of the function's body, nothing after the start of the SCoP names
it outside it, and nothing can run the SCoP again or reach code before it once more
(no loop around it, no `goto` in the function), so no later execution reads its value
either. Anything else counts as live.
"""
from __future__ import annotations

from pycparser import c_ast

from .c_walk import nodes_of
from .regions import Region

_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


class Liveness:
    """`unused_after` for the scalars of one SCoP, with the walks over its function
    made once (a builder asks for every scalar and every loop iterator)."""

    def __init__(self, region: Region) -> None:
        function = region.function_node
        self._region = region
        self._never_again = not nodes_of(function, c_ast.Goto) and not _inside_loop(function.body, region.start)
        inside = {id(node) for item in region.items for node in nodes_of(item, c_ast.ID)}
        self._used_outside = {ident.name for ident in _after(function.body, region.start)
                              if isinstance(ident, c_ast.ID) and id(ident) not in inside}
        # a pointer taken before the SCoP may read the value after it
        self._used_outside |= {node.expr.name for node in nodes_of(function.body, c_ast.UnaryOp)
                               if node.op == "&" and isinstance(node.expr, c_ast.ID)}
        self._declared: dict[str, list[c_ast.Decl]] = {}
        for decl in nodes_of(function.body, c_ast.Decl):
            self._declared.setdefault(decl.name, []).append(decl)

    def named_after(self, name: str) -> bool:
        """Whether code after the SCoP (or taking an address anywhere) names `name`."""
        return name in self._used_outside

    def unused_after(self, name: str) -> bool:
        """Whether the SCoP's final value of the scalar `name` can never be read."""
        found = self._declared.get(name, [])
        automatic = len(found) == 1 and not found[0].storage
        return automatic and self._never_again and name not in self._used_outside


def _after(node: c_ast.Node, start: c_ast.Node) -> list[c_ast.Node]:
    """The nodes below `node` that come after `start` in the source (depth first); all
    of them where `start` is not among them."""
    found: list[c_ast.Node] = []
    seen = False

    def walk(current: c_ast.Node) -> None:
        nonlocal seen
        if current is start:
            seen = True
        elif seen:
            found.append(current)
        for _, child in current.children():
            walk(child)
    walk(node)
    return found if seen else list(nodes_of(node, c_ast.Node))


def _inside_loop(node: c_ast.Node, target: c_ast.Node, in_loop: bool = False) -> bool:
    """Whether `target` is reached from `node` through a loop statement."""
    if node is target:
        return in_loop
    for _, child in node.children():
        if _inside_loop(child, target, in_loop or isinstance(node, _LOOPS)):
            return True
    return False
