"""Print an isl AST (host part or kernel body) as indented C."""
from __future__ import annotations

from collections.abc import Callable

import islpy as isl

from .expr import c_expr

NODE = isl.ast_node_type


class AstPrinter:
    """User nodes print as `user(annotation)` gives them; marks (kernel launches) as `on_mark`."""

    def __init__(self, user: Callable[[str], list[str]],
                 on_mark: Callable[[str, isl.AstNode, str], list[str]] | None = None) -> None:
        self.user = user
        self.on_mark = on_mark

    def lines(self, node: isl.AstNode, indent: str = "") -> list[str]:
        kind = node.get_type()
        if kind == NODE.block:
            children = node.block_get_children()
            return [line for k in range(children.n_ast_node())
                    for line in self.lines(children.get_at(k), indent)]
        if kind == NODE.for_:
            return self._for(node, indent)
        if kind == NODE.if_:
            return self._if(node, indent)
        if kind == NODE.user:
            return [indent + line for line in self.user(node.get_annotation().get_name())]
        if kind == NODE.mark:
            if self.on_mark is None:
                raise ValueError("unexpected mark inside a kernel")
            return self.on_mark(node.mark_get_id().get_name(), node, indent)
        raise ValueError(f"unsupported isl AST node {kind}")

    def _for(self, node: isl.AstNode, indent: str) -> list[str]:
        it = c_expr(node.for_get_iterator())
        init = c_expr(node.for_get_init())
        body = self.lines(node.for_get_body(), indent + "  ")
        if node.for_is_degenerate():
            return [f"{indent}{{", f"{indent}  const int {it} = {init};", *body, f"{indent}}}"]
        cond, inc = c_expr(node.for_get_cond()), c_expr(node.for_get_inc())
        step = f"{it} += {inc}" if inc != "1" else f"{it}++"
        return [f"{indent}for (int {it} = {init}; {cond}; {step}) {{", *body, f"{indent}}}"]

    def _if(self, node: isl.AstNode, indent: str) -> list[str]:
        out = [f"{indent}if ({c_expr(node.if_get_cond())}) {{",
               *self.lines(node.if_get_then_node(), indent + "  ")]
        if node.if_has_else_node():
            out += [f"{indent}}} else {{", *self.lines(node.if_get_else_node(), indent + "  ")]
        return out + [f"{indent}}}"]
