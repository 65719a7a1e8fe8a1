"""C from an isl AST: isl's nodes become pycparser nodes, printed by one generator.

`AstPrinter` turns an isl AST (host part or kernel body) into pycparser statement
nodes; user nodes and marks are resolved by callbacks. `CudaGenerator` prints
them in K&R style (`for (...) {`), with the parentheses C needs and no more, and
prints the three CUDA constructs C has no node for: `__shared__` (a storage
class here), `dim3 name(x, y)` and `kernel <<<grid, block>>> (args)`.
"""
from __future__ import annotations

from collections.abc import Callable

import islpy as isl
from pycparser import c_ast, c_generator

from ..isl_c import c_node, is_constant

NODE = isl.ast_node_type


class Dim3(c_ast.Node):
    """`dim3 name(sizes...);`"""

    __slots__ = ("name", "sizes", "coord", "__weakref__")
    attr_names = ("name",)

    def __init__(self, name: str, sizes: list[c_ast.Node]) -> None:
        self.name, self.sizes, self.coord = name, sizes, None

    def children(self):
        return tuple((f"sizes[{k}]", s) for k, s in enumerate(self.sizes))


class KernelLaunch(c_ast.Node):
    """`kernel <<<grid, block>>> (args);`"""

    __slots__ = ("kernel", "grid", "block", "args", "coord", "__weakref__")
    attr_names = ("kernel", "grid", "block")

    def __init__(self, kernel: str, grid: str, block: str, args: list[c_ast.Node]) -> None:
        self.kernel, self.grid, self.block, self.args, self.coord = kernel, grid, block, args, None

    def children(self):
        return tuple((f"args[{k}]", a) for k, a in enumerate(self.args))


class CudaGenerator(c_generator.CGenerator):
    def __init__(self) -> None:
        super().__init__(reduce_parentheses=True)

    def _block(self, node: c_ast.Node) -> str:
        """` {` + the statements + `}` at this indentation."""
        items = node.block_items if isinstance(node, c_ast.Compound) else [node]
        self.indent_level += 2
        body = self._generate_body(items or [])
        self.indent_level -= 2
        return " {\n" + body + self._make_indent() + "}"

    def visit_Compound(self, n: c_ast.Compound) -> str:
        return self._make_indent() + "{" + self._block(n)[2:] + "\n"

    def visit_For(self, n: c_ast.For) -> str:
        # no newline: the enclosing body adds it, as after any statement it does not know
        return f"for ({self._visit_expr(n.init)}; {self._visit_expr(n.cond)}; {self._visit_expr(n.next)})" + \
            self._block(n.stmt)

    def visit_If(self, n: c_ast.If) -> str:
        text = f"if ({self._visit_expr(n.cond)})" + self._block(n.iftrue)
        if n.iffalse is not None:
            text += " else" + self._block(n.iffalse)
        return text + "\n"

    def visit_Dim3(self, n: Dim3) -> str:
        return f"dim3 {n.name}({', '.join(self._visit_expr(s) for s in n.sizes)});"

    def visit_KernelLaunch(self, n: KernelLaunch) -> str:
        return f"{n.kernel} <<<{n.grid}, {n.block}>>> ({', '.join(self._visit_expr(a) for a in n.args)});"


def c_text(node: c_ast.Node) -> str:
    """One expression as C."""
    return CudaGenerator().visit(node)


def c_lines(statements: list[c_ast.Node], indent: str = "") -> list[str]:
    """Statements as lines of C, each prefixed with `indent`."""
    generator = CudaGenerator()
    text = "".join(generator._generate_stmt(s) for s in statements)
    return [indent + line if line else line for line in text.rstrip("\n").split("\n")] if text else []


class AstPrinter:
    """isl AST → pycparser statements. User nodes become what `user(annotation, loops)`
    gives, where `loops` maps the iterator of each loop around to its (start, step)
    (step None: a single value); marks (kernel launches) what `on_mark(name, node)` gives."""

    def __init__(self, user: Callable[[str, dict[str, tuple]], list[c_ast.Node]],
                 on_mark: Callable[[str, isl.AstNode], list[c_ast.Node]] | None = None) -> None:
        self.user = user
        self.on_mark = on_mark
        self.loops: dict[str, tuple] = {}

    def statements(self, node: isl.AstNode) -> list[c_ast.Node]:
        kind = node.get_type()
        if kind == NODE.block:
            children = node.block_get_children()
            return [s for k in range(children.n_ast_node()) for s in self.statements(children.get_at(k))]
        if kind == NODE.for_:
            return [self._for(node)]
        if kind == NODE.if_:
            return [self._if(node)]
        if kind == NODE.user:
            return self.user(node.get_annotation().get_name(), dict(self.loops))
        if kind == NODE.mark:
            if self.on_mark is None:
                raise ValueError("unexpected mark inside a kernel")
            return self.on_mark(node.mark_get_id().get_name(), node)
        raise ValueError(f"unsupported isl AST node {kind}")

    def _for(self, node: isl.AstNode) -> c_ast.Node:
        iterator = c_node(node.for_get_iterator())
        start = c_node(node.for_get_init())
        inc = None if node.for_is_degenerate() else c_node(node.for_get_inc())
        self.loops[iterator.name] = (start, inc)
        body = self.statements(node.for_get_body())
        del self.loops[iterator.name]
        if inc is None:
            return c_ast.Compound([declaration(iterator.name, start, constant=True), *body])
        step = c_ast.UnaryOp("p++", iterator) if is_constant(inc, 1) else c_ast.Assignment("+=", iterator, inc)
        return c_ast.For(c_ast.DeclList([declaration(iterator.name, start)]),
                         c_node(node.for_get_cond()), step, c_ast.Compound(body))

    def _if(self, node: isl.AstNode) -> c_ast.Node:
        otherwise = c_ast.Compound(self.statements(node.if_get_else_node())) if node.if_has_else_node() else None
        return c_ast.If(c_node(node.if_get_cond()), c_ast.Compound(self.statements(node.if_get_then_node())),
                        otherwise)


def block_items(statement: c_ast.Node) -> list[c_ast.Node]:
    """The statements of a block, or the one statement (a loop's or branch's body)."""
    return (statement.block_items or []) if isinstance(statement, c_ast.Compound) else [statement]


def descend(statement: c_ast.Node, transform: Callable[[list[c_ast.Node]], list[c_ast.Node]]) -> None:
    """Apply `transform` to the statement lists of a loop, block or if (in place). isl
    prints loop bodies and branches as blocks."""
    if isinstance(statement, c_ast.For):
        statement.stmt = c_ast.Compound(transform(block_items(statement.stmt)))
    elif isinstance(statement, c_ast.Compound):
        statement.block_items = transform(statement.block_items or [])
    elif isinstance(statement, c_ast.If):
        statement.iftrue = c_ast.Compound(transform(block_items(statement.iftrue)))
        if statement.iffalse is not None:
            statement.iffalse = c_ast.Compound(transform(block_items(statement.iffalse)))
    else:
        raise ValueError(f"no statement list inside a {type(statement).__name__}")


def declared_iterator(loop: c_ast.For) -> str | None:
    """The iterator a loop declares (`for (int c3 = ..)`, as isl's loops are printed)."""
    init = loop.init
    return init.decls[0].name if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 else None


def declaration(name: str, init: c_ast.Node | None, *, type_name: str = "int", constant: bool = False,
                dims: tuple[int, ...] = (), storage: tuple[str, ...] = ()) -> c_ast.Decl:
    """`[storage] [const] type name[dims] [= init]`."""
    quals = ["const"] if constant else []
    declared: c_ast.Node = c_ast.TypeDecl(name, quals, None, c_ast.IdentifierType([type_name]))
    for extent in reversed(dims):
        declared = c_ast.ArrayDecl(declared, c_ast.Constant("int", str(extent)), [])
    return c_ast.Decl(name, quals, [], list(storage), [], declared, init, None)


def parameter(type_name: str, name: str, *, pointer: bool = False, restrict: str = "",
              const: bool = False) -> c_ast.Decl:
    """A function parameter `type name` or `type *name`; a pointer may be `restrict`
    (CUDA's spelling, `__restrict__`) and point to `const`."""
    declared: c_ast.Node = c_ast.TypeDecl(name, ["const"] if const else [], None,
                                          c_ast.IdentifierType(type_name.split()))
    if pointer:
        declared = c_ast.PtrDecl([restrict] if restrict else [], declared)
    return c_ast.Decl(name, [], [], [], [], declared, None, None)


def parameter_list(parameters: list[c_ast.Decl]) -> str:
    """`type a, type *b` (`void` for none)."""
    return ", ".join(c_text(p) for p in parameters) or "void"
