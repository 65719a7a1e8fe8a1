"""Find the `#pragma scop` ... `#pragma endscop` regions and what is visible there."""
from __future__ import annotations

from dataclasses import dataclass, replace

from pycparser import c_ast

from ..diagnostics import CompileError
from .c_types import declared_symbols
from .c_walk import nodes_of


@dataclass(frozen=True)
class Region:
    """The statements of one SCoP with the declarations in scope at its start."""

    function: str
    items: tuple[c_ast.Node, ...]
    symbols: dict[str, c_ast.Decl]
    start: c_ast.Node    # the `#pragma scop` node
    end: c_ast.Node      # the `#pragma endscop` node
    function_node: c_ast.FuncDef
    file_scope: frozenset[str] = frozenset()    # the symbols that are file-scope declarations


def _pragma_word(node: c_ast.Node) -> str | None:
    if isinstance(node, c_ast.Pragma):
        words = node.string.split()
        return words[0] if words else ""
    return None


def find_regions(ast: c_ast.FileAST, path: str) -> list[Region]:
    globals_ = declared_symbols([e for e in ast.ext if isinstance(e, c_ast.Decl)])
    regions: list[Region] = []
    for ext in ast.ext:
        if isinstance(ext, c_ast.Pragma) and _pragma_word(ext) in ("scop", "endscop"):
            raise CompileError.at(ext.coord, f"#pragma {_pragma_word(ext)} outside a function")
        if isinstance(ext, c_ast.FuncDef):
            params = []
            args = ext.decl.type.args
            if args is not None:
                params = [p for p in args.params if isinstance(p, c_ast.Decl)]
            params += list(ext.param_decls or [])   # a K&R definition's: `f(n, A) int n; double A[10]; {`
            scope = {**globals_, **declared_symbols(params)}
            _walk_block(ext.body, scope, ext, regions)
    return [replace(r, file_scope=frozenset(n for n, d in r.symbols.items() if globals_.get(n) is d))
            for r in regions if _in_main_file(r, path)]


def _in_main_file(region: Region, path: str) -> bool:
    return region.start.coord is None or region.start.coord.file == path


def _walk_block(block: c_ast.Compound, scope: dict, fn: c_ast.FuncDef, out: list[Region]) -> None:
    scope = dict(scope)
    items = list(block.block_items or [])
    start_index: int | None = None
    for k, item in enumerate(items):
        word = _pragma_word(item)
        if word == "scop":
            if start_index is not None:
                raise CompileError.at(item.coord, "nested #pragma scop (the previous one is not closed)")
            start_index = k
            continue
        if word == "endscop":
            if start_index is None:
                raise CompileError.at(item.coord, "#pragma endscop without a matching #pragma scop")
            out.append(Region(fn.decl.name, tuple(items[start_index + 1:k]), dict(scope),
                              items[start_index], item, fn))
            _reject_goto_into(items[start_index + 1:k], fn)
            start_index = None
            continue
        if start_index is not None:
            _reject_nested_pragmas(item)
            continue
        if isinstance(item, c_ast.Decl):
            scope[item.name] = item
        for child in _child_blocks(item):
            _walk_block(child, scope, fn, out)
    if start_index is not None:
        raise CompileError.at(items[start_index].coord, "#pragma scop without a matching #pragma endscop")


def _reject_goto_into(items: list[c_ast.Node], fn: c_ast.FuncDef) -> None:
    """A label in a SCoP names a statement; a `goto` to it would enter the SCoP's code
    in the middle, which the generated code replaces (a `goto` inside is rejected
    as a statement)."""
    labels = {label.name for item in items for label in nodes_of(item, c_ast.Label)}
    inside = {id(goto) for item in items for goto in nodes_of(item, c_ast.Goto)}  # the builder rejects those
    for goto in nodes_of(fn.body, c_ast.Goto):
        if goto.name in labels and id(goto) not in inside:
            raise CompileError.at(goto.coord, f"goto to label '{goto.name}' inside a SCoP")


def _reject_nested_pragmas(node: c_ast.Node) -> None:
    for pragma in nodes_of(node, c_ast.Pragma):
        word = _pragma_word(pragma)
        if word in ("scop", "endscop"):
            raise CompileError.at(pragma.coord, f"#pragma {word} inside a SCoP's statement")


def _child_blocks(node: c_ast.Node) -> list[c_ast.Compound]:
    """Compound statements nested in a statement outside any SCoP."""
    if isinstance(node, c_ast.Compound):
        return [node]
    blocks: list[c_ast.Compound] = []
    for _, child in node.children():
        if isinstance(child, c_ast.Compound):
            blocks.append(child)
        elif isinstance(child, (c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch, c_ast.Case,
                                c_ast.Default, c_ast.Label)):
            blocks.extend(_child_blocks(child))
    return blocks
