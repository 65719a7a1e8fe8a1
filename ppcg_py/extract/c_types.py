"""C declarations as the front end needs them: element type and array shape.

Typedefs are resolved to their base type, so that generated kernels never
depend on a user typedef being declared before them (PPCG's nussinov bug).
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from .c_walk import nodes_of

INTEGER_WORDS = {"int", "long", "short", "char", "unsigned", "signed",
                 "_Bool", "size_t", "ssize_t", "ptrdiff_t",
                 "int8_t", "int16_t", "int32_t", "int64_t",
                 "uint8_t", "uint16_t", "uint32_t", "uint64_t"}


@dataclass(frozen=True)
class VarType:
    """A variable's type: base element type and, for arrays, each dimension.

    `dims` holds the declared extent expressions, outermost first; None marks an
    unknown extent (`A[]` or a pointer).
    """

    base: str
    dims: tuple[c_ast.Node | None, ...] = ()
    coord: object = None
    struct: c_ast.Struct | None = None    # a struct type (`base` spells it): structs.py

    @property
    def is_array(self) -> bool:
        return bool(self.dims)

    @property
    def is_integer(self) -> bool:
        return not self.dims and all(w in INTEGER_WORDS for w in self.base.split())

    @property
    def is_floating(self) -> bool:
        return not self.dims and any(w in ("float", "double") for w in self.base.split())


class TypeError_(Exception):
    """A declaration the front end cannot represent (reported where used)."""


def resolve(node: c_ast.Node, typedefs: dict[str, c_ast.Node]) -> VarType:
    """The VarType of a declaration's type node."""
    dims: list[c_ast.Node | None] = []
    while True:
        if isinstance(node, c_ast.ArrayDecl):
            dims.append(node.dim)
            node = node.type
        elif isinstance(node, c_ast.PtrDecl):
            if dims:
                raise TypeError_("pointer to pointer or array of pointers: "
                                 "use a multi-dimensional array")
            dims.append(None)
            node = node.type
        elif isinstance(node, c_ast.TypeDecl):
            inner = node.type
            if isinstance(inner, c_ast.IdentifierType):
                names = [n for n in inner.names]
                if len(names) == 1 and names[0] in typedefs:
                    sub = resolve(typedefs[names[0]], typedefs)
                    base = names[0] if sub.struct is not None and not sub.struct.name else sub.base
                    return VarType(base, tuple(dims) + sub.dims, node.coord, sub.struct)
                return VarType(" ".join(names), tuple(dims), node.coord)
            if isinstance(inner, c_ast.Enum):
                return VarType("int", tuple(dims), node.coord)
            if isinstance(inner, c_ast.Struct):
                return VarType(f"struct {inner.name}" if inner.name else "struct", tuple(dims), node.coord, inner)
            raise TypeError_("union type" if isinstance(inner, c_ast.Union) else type(inner).__name__)
        elif isinstance(node, c_ast.FuncDecl):
            raise TypeError_("function")
        else:
            raise TypeError_(type(node).__name__)


def collect_typedefs(ast: c_ast.FileAST) -> dict[str, c_ast.Node]:
    return {ext.name: ext.type for ext in ast.ext if isinstance(ext, c_ast.Typedef)}


def declared_symbols(decls: list[c_ast.Node]) -> dict[str, c_ast.Decl]:
    """Name -> Decl for the plain declarations in a list (functions skipped)."""
    table: dict[str, c_ast.Decl] = {}
    for decl in decls:
        if isinstance(decl, c_ast.Decl) and decl.name and not isinstance(decl.type, c_ast.FuncDecl):
            table[decl.name] = decl
    return table


def resolve_casts(node: c_ast.Node, typedefs: dict[str, c_ast.Node]) -> None:
    """Replace, in place, typedef names in the casts of a statement by their base type.

    Kernels are printed without the user's typedefs (see the module docstring), so
    `(real) x` must reach them as `(float) x`.
    """
    for cast in nodes_of(node, c_ast.Cast):
        _resolve_cast(cast, typedefs)


def _resolve_cast(cast: c_ast.Cast, typedefs: dict[str, c_ast.Node]) -> None:
    decl = cast.to_type.type
    if isinstance(decl, c_ast.TypeDecl) and isinstance(decl.type, c_ast.IdentifierType):
        names = decl.type.names
        if len(names) == 1 and names[0] in typedefs:
            try:
                vt = resolve(decl, typedefs)
            except TypeError_:
                return
            if not vt.dims:
                decl.type = c_ast.IdentifierType(vt.base.split(), decl.type.coord)
