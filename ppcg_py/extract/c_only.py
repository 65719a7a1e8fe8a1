"""Whether a file's host code must stay C.

The CUDA host file is the input with its SCoPs replaced, and nvcc compiles it as
C++: valid C that C++ rejects, anywhere outside the SCoPs, would make it fail. Such
a file keeps its host code in C (NAME_host.c, built by a C compiler), and the device
work of each SCoP moves behind an `extern "C"` function of the kernel file. The
forms found here, all from the AST: variable-length array parameters, qualifiers or
`static` in a parameter's array brackets (`int a[static 1]`), K&R definitions and
implicit `int`, `restrict`, C++ keywords used as identifiers (`int new;`), and the
`void *` of `malloc` and its kin converted to another pointer without a cast; and,
for the CUDA target, whatever else a C++ compiler rejects in the file (`rejected_as_cxx`).
"""
from __future__ import annotations

import os
import shutil
import subprocess

from pycparser import c_ast

from .cxx_prefix import precompiled, system_prefix

# C++17's keywords that are no keywords of C (wchar_t, char16_t, char32_t: typedefs in
# C's headers; bool, true, false: stdbool.h's macros, gone after preprocessing)
CXX_KEYWORDS = frozenset("""
    alignas alignof and and_eq asm bitand bitor catch class compl const_cast constexpr decltype
    delete dynamic_cast explicit export friend mutable namespace new noexcept not not_eq nullptr
    operator or or_eq private protected public reinterpret_cast static_assert static_cast template
    this thread_local throw try typeid typename using virtual xor xor_eq""".split())
# the C library's functions whose `void *` C converts implicitly and C++ does not
ALLOCATORS = frozenset({"malloc", "calloc", "realloc", "aligned_alloc", "reallocarray"})


def rejected_as_cxx(path: str, include_dirs: tuple[str, ...] = (), defines: tuple[str, ...] = (),
                    replaced: tuple[tuple[int, int], ...] = ()) -> bool:
    """Whether a C++ compiler (g++, as nvcc's host compiler) rejects the file with the
    lines `replaced` (each SCoP's, first to last: the output prints its own code there)
    blanked out: every other form of C that C++ does not take, which the AST alone does
    not show (`_Bool`, designators out of order, `char s[3] = "abc"`, a `void *` of the
    program's own functions given to another pointer, an `int` given to an enum, ...).
    No g++: the AST's forms only."""
    compiler = shutil.which("g++")
    if compiler is None:
        return False
    try:
        with open(path, "rb") as handle:
            lines = handle.read().split(b"\n")
    except OSError:
        return False
    for first, last in replaced:
        lines[first - 1:last] = [b""] * (last - first + 1)
    flags = ("-std=gnu++17", "-w", *(f"-I{d}" for d in include_dirs), *(f"-D{d}" for d in defines))
    command = [compiler, "-fsyntax-only", "-x", "c++", *flags, f"-iquote{os.path.dirname(path) or '.'}"]
    count, directives = system_prefix(lines)
    header = precompiled(compiler, flags, directives) if count else None
    if header is not None:      # the same tokens, the system headers' read from their compiled form
        command += ["-include", header]
        lines = [b""] * count + lines[count:]
    command.append("-")
    try:
        return subprocess.run(command, input=b"\n".join(lines), capture_output=True, timeout=60).returncode != 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def needs_c_host(ast: c_ast.FileAST) -> bool:
    """Whether the file has, outside its SCoPs or in them, C that C++ rejects."""
    if any(_c_only_function(ext) for ext in ast.ext):
        return True
    finder = _CxxRejects()
    finder.visit(ast)
    return finder.found


def _c_only_function(ext: c_ast.Node) -> bool:
    """A K&R definition, an implicit `int` result, or a C-only parameter."""
    decl = ext.decl if isinstance(ext, c_ast.FuncDef) else ext
    if not (isinstance(decl, c_ast.Decl) and isinstance(decl.type, c_ast.FuncDecl)):
        return False
    if isinstance(ext, c_ast.FuncDef) and ext.param_decls:
        return True
    params = decl.type.args.params if decl.type.args is not None else []
    return _implicit_int(decl.type) or any(
        isinstance(p, c_ast.ID) or (isinstance(p, c_ast.Decl) and _c_only_parameter(p.type)) for p in params)


def _implicit_int(function: c_ast.FuncDecl) -> bool:
    """`f() { ... }`: pycparser gives the `int` it adds the declarator's position."""
    node = function.type
    while isinstance(node, c_ast.PtrDecl):
        node = node.type
    if not (isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType)):
        return False
    added, declarator = node.type.coord, node.coord
    return (node.type.names == ["int"] and added is not None and declarator is not None
            and (added.line, added.column) == (declarator.line, declarator.column))


def _c_only_parameter(node: c_ast.Node) -> bool:
    """A variable-length array parameter, or one with qualifiers or `static` in its brackets."""
    while isinstance(node, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        if isinstance(node, c_ast.ArrayDecl) and (node.dim_quals or (node.dim is not None
                                                                     and not _constant(node.dim))):
            return True
        node = node.type
    return False


def _constant(expr: c_ast.Node) -> bool:
    if isinstance(expr, c_ast.Constant):
        return True
    if isinstance(expr, c_ast.BinaryOp):
        return _constant(expr.left) and _constant(expr.right)
    if isinstance(expr, c_ast.UnaryOp) and expr.op in ("-", "+", "sizeof"):
        return expr.op == "sizeof" or _constant(expr.expr)
    if isinstance(expr, c_ast.Cast):
        return _constant(expr.expr)
    return False


class _CxxRejects(c_ast.NodeVisitor):
    """Finds `restrict`, a C++ keyword as a name, or an allocator's `void *` given to
    another pointer (an initialiser, an assignment, a function's result)."""

    def __init__(self) -> None:
        self.found = False
        self._returns_void_pointer = False

    def generic_visit(self, node: c_ast.Node) -> None:
        if self.found:
            return
        name = getattr(node, "name", None)   # a string, or a node (a call's), or a list (a designator)
        if "restrict" in (getattr(node, "quals", None) or ()) or (isinstance(name, str) and name in CXX_KEYWORDS):
            self.found = True
            return
        super().generic_visit(node)

    def visit_Decl(self, node: c_ast.Decl) -> None:
        if _allocation(node.init) and not _void_pointer(node.type):
            self.found = True
        self.generic_visit(node)

    def visit_Assignment(self, node: c_ast.Assignment) -> None:
        self.found = self.found or _allocation(node.rvalue)   # the target's type is not looked up
        self.generic_visit(node)

    def visit_Return(self, node: c_ast.Return) -> None:
        self.found = self.found or (_allocation(node.expr) and not self._returns_void_pointer)
        self.generic_visit(node)

    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        self._returns_void_pointer = _void_pointer(node.decl.type.type)
        self.generic_visit(node)


def _allocation(node: c_ast.Node | None) -> bool:
    return (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID)
            and node.name.name in ALLOCATORS)


def _void_pointer(node: c_ast.Node) -> bool:
    return (isinstance(node, c_ast.PtrDecl) and isinstance(node.type, c_ast.TypeDecl)
            and isinstance(node.type.type, c_ast.IdentifierType) and node.type.type.names == ["void"])
