"""Which of a function's scalars are dead once its SCoP ends.

A written scalar must reach the host after the SCoP only if something may read
it there. This is a deliberately simple, conservative test, enough for the
common case of a temporary declared at the top of the function for the SCoP's
use alone (PolyBench's `temp2` in symm, `ym1`, `xm1`, ... in deriche): the
variable is an automatic variable of the function's body, nothing outside the
SCoP names it but its declaration, and nothing can run the SCoP again (no loop
around it, no `goto` in the function), so no later execution reads its value
either. Anything else counts as live.
"""
from __future__ import annotations

from pycparser import c_ast

from .c_walk import nodes_of
from .regions import Region

_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


def unused_after(region: Region, name: str) -> bool:
    """Whether the SCoP's final value of the scalar `name` can never be read."""
    function = region.function_node
    declaration = _local_declaration(function, name)
    if declaration is None or nodes_of(function, c_ast.Goto) or _inside_loop(function.body, region.start):
        return False
    inside = {id(node) for item in region.items for node in nodes_of(item, c_ast.ID)}
    return not any(ident.name == name and id(ident) not in inside for ident in nodes_of(function.body, c_ast.ID))


def _local_declaration(function: c_ast.FuncDef, name: str) -> c_ast.Decl | None:
    """The automatic variable `name` declared in the function's body (not static,
    not extern, not a parameter), if there is exactly one."""
    found = [d for d in nodes_of(function.body, c_ast.Decl) if d.name == name]
    if len(found) != 1 or found[0].storage:
        return None
    return found[0]


def _inside_loop(node: c_ast.Node, target: c_ast.Node, in_loop: bool = False) -> bool:
    """Whether `target` is reached from `node` through a loop statement."""
    if node is target:
        return in_loop
    for _, child in node.children():
        if _inside_loop(child, target, in_loop or isinstance(node, _LOOPS)):
            return True
    return False
