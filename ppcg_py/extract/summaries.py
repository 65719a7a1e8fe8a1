"""PENCIL access summaries: calls to functions whose body ppcg-py does not inline.

A function may say what it accesses through a *summary*, a function of the file
with the same parameters whose body describes the accesses:

    static void ext_summary(int n, float A[n])
    {
      for (int i = 0; i < n; i++)
        __pencil_def(A[i]);                 // writes A[i]; __pencil_use(x) reads x
    }
    void ext(int n, float A[n]) __attribute__((pencil_access(ext_summary)));

A call statement `ext(m, B[k]);` in a SCoP is then one statement of the model that
keeps the call as it is written (the generated code calls `ext`), with the accesses
of the summary inlined with the call's arguments (extract/calls.py), projected onto
the call's own instance: reads of `__pencil_use(x)` and of the summary's right-hand
sides, writes of `__pencil_def(x)` and of its left-hand sides, plus the reads its
value arguments make at the call. The summary's loops and conditions must be
static-control, like any SCoP statement: the accesses are then exact (the domain
of each says exactly which happen), and the writes are must-writes. A condition
that depends on data is rejected where it is written, as in the SCoP itself.

The attribute is read from the file's text (the preprocessor defines `__attribute__`
away): in the declaration of the function, before or after its declarator. A
function with a summary is summarised even when the file also defines it (the
definition may be what the program links with); the summary takes precedence over
inlining, as in pet.

The call runs code ppcg-py cannot see or translate, so it runs where the function
is: on the host (schedule/gpu/host.py keeps such statements in the SCoP's serial head
or tail, or runs the SCoP on the host altogether), or anywhere with the C target.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast

from ..diagnostics import CompileError
from .accesses import RawAccess, expression_reads, statement_accesses, tag_references
from .c_walk import Wrapped, nodes_of, operand_ids
from .model import Access, Statement

USE, DEF = "__pencil_use", "__pencil_def"


@dataclass(frozen=True)
class Summary:
    """`function` is summarised by `summary` (the attribute's location: line, column)."""

    function: str
    summary: str
    parameters: int | None        # of the function's declaration (None: unknown, `f()`)
    file: str
    line: int
    column: int


# -- reading the attribute -------------------------------------------------------
_ATTRIBUTE = re.compile(r"__attribute__\s*\(\s*\(\s*pencil_access\s*\(\s*(\w+)\s*\)\s*\)\s*\)")
_BLANKED = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL)


def find_summaries(path: str, ast: c_ast.FileAST) -> dict[str, Summary]:
    """The functions of the file that carry `__attribute__((pencil_access(S)))` in a
    declaration of the file itself (not of a header)."""
    declarations = [ext for ext in ast.ext if isinstance(ext, c_ast.Decl) and isinstance(ext.type, c_ast.FuncDecl)
                    and ext.coord is not None and ext.coord.file == path]
    if not declarations:
        return {}
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
    except OSError:
        return {}
    if "pencil_access" not in text:
        return {}
    text = _BLANKED.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    found: dict[str, Summary] = {}
    for decl in declarations:
        line = decl.coord.line
        if line > len(starts):
            continue
        name = re.compile(rf"\b{re.escape(decl.name)}\s*\(")
        at = name.search(text, starts[line - 1])
        if at is None:
            continue
        begin = max(text.rfind(c, 0, at.start()) for c in ";{}") + 1
        ends = [k for k in (text.find(";", at.end()), text.find("{", at.end())) if k >= 0]
        chunk_end = min(ends) if ends else len(text)
        attribute = _ATTRIBUTE.search(text, begin, chunk_end)
        if attribute is None:
            continue
        offset = attribute.start(1)
        row = text.count("\n", 0, offset) + 1
        found[decl.name] = Summary(decl.name, attribute.group(1), _parameter_count(decl.type), path,
                                   row, offset - starts[row - 1] + 1)
    return found


def _parameter_count(ftype: c_ast.FuncDecl) -> int | None:
    if ftype.args is None:
        return None
    params = list(ftype.args.params)
    if len(params) == 1 and isinstance(params[0], c_ast.Typename) and not isinstance(params[0].type, c_ast.PtrDecl):
        return 0   # f(void)
    return len(params)


# -- the nodes the inliner leaves for the builder --------------------------------
class SummaryCall(c_ast.Node):
    """A call statement of a summarised function, with the summary's body inlined
    for the call's arguments (statements whose accesses are the call's)."""

    __slots__ = ("call", "items", "summary", "pointers", "coord", "__weakref__")
    attr_names = ("summary",)

    def __init__(self, call: c_ast.FuncCall, items: list[c_ast.Node], summary: Summary,
                 pointers: tuple[bool, ...], coord=None) -> None:
        self.call, self.items, self.summary, self.coord = call, items, summary, coord
        self.pointers = pointers   # per argument: whether it designates memory (an array parameter)

    def children(self) -> tuple:
        return (("call", self.call),) + tuple((f"items[{k}]", n) for k, n in enumerate(self.items))

    def __iter__(self):
        yield self.call
        yield from self.items


class PencilUse(Wrapped):
    """`__pencil_use(x)` in a summary: x is read."""

    __slots__ = ()


class PencilValue(c_ast.Node):
    """The right side of `x = <PencilValue>`, which `__pencil_def(x)` becomes: x is
    written (an assignment, so that every walk sees that x is written)."""

    __slots__ = ("coord", "__weakref__")
    attr_names = ()

    def __init__(self, coord=None) -> None:
        self.coord = coord

    def children(self) -> tuple:
        return ()

    def __iter__(self):
        return iter(())


def is_summary_node(node: c_ast.Node) -> bool:
    return isinstance(node, (SummaryCall, PencilUse)) or (
        isinstance(node, c_ast.Assignment) and isinstance(node.rvalue, PencilValue))


def marked(items: list[c_ast.Node], callee: str) -> list[c_ast.Node]:
    """The summary's statements with `__pencil_use(x);` and `__pencil_def(x);` made
    `PencilUse(x)` and `x = PencilValue`; elsewhere such a call is an error."""
    return [_marked(item, callee) for item in items]


def _marked(node: c_ast.Node, callee: str) -> c_ast.Node:
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name in (USE, DEF):
        args = list(node.args.exprs) if node.args else []
        if len(args) != 1:
            raise CompileError.at(node.coord, f"'{node.name.name}' takes one argument, not {len(args)}")
        _check_no_pencil(args[0])
        if node.name.name == USE:
            return PencilUse(args[0], node.coord)
        return c_ast.Assignment("=", args[0], PencilValue(node.coord), node.coord)
    if isinstance(node, c_ast.Compound):
        node.block_items = [_marked(n, callee) for n in node.block_items or []]
        return node
    if isinstance(node, c_ast.For):
        node.stmt = _marked(node.stmt, callee)
        return node
    if isinstance(node, c_ast.If):
        node.iftrue = _marked(node.iftrue, callee)
        if node.iffalse is not None:
            node.iffalse = _marked(node.iffalse, callee)
        return node
    if isinstance(node, c_ast.Label):
        node.stmt = _marked(node.stmt, callee)
        return node
    if isinstance(node, SummaryCall):
        return node
    _check_no_pencil(node)
    return node


def _check_no_pencil(node: c_ast.Node) -> None:
    for call in nodes_of(node, c_ast.FuncCall):
        if isinstance(call.name, c_ast.ID) and call.name.name in (USE, DEF):
            raise CompileError.at(call.coord, f"'{call.name.name}' inside an expression (it is a statement "
                                  "of a summary function)")


# -- the model of a summarised call (called by the builder) ----------------------
@dataclass
class _Collected:
    """The accesses of a summary, each on the call's instance: (array, read, write, map)."""

    depth: int
    found: list[tuple[str, bool, bool, isl.Map]]


def build_summary_node(builder, node: c_ast.Node, env):
    """The builder's part for a summarised call (a statement of the model) and for the
    statements of a summary (accesses only, added to the call's)."""
    collecting: _Collected | None = getattr(builder, "_summary", None)
    if isinstance(node, SummaryCall):
        return _call(builder, node, env, collecting)
    if collecting is None:   # a __pencil_use/def outside a summary: the inliner never leaves one
        raise CompileError.at(node.coord, "PENCIL access outside a summary function")
    if isinstance(node, PencilUse):
        if not isinstance(node.expr, (c_ast.ID, c_ast.ArrayRef)):
            raise CompileError.at(node.coord, "the argument of '__pencil_use' is not a variable "
                                  "or an array element")
        raw = expression_reads(node.expr, lambda n: builder.kind_of(env, n))
    elif isinstance(node, c_ast.Assignment) and isinstance(node.rvalue, PencilValue):
        if not isinstance(node.lvalue, (c_ast.ID, c_ast.ArrayRef)):
            raise CompileError.at(node.coord, "the argument of '__pencil_def' is not a variable "
                                  "or an array element")
        raw = statement_accesses(c_ast.Assignment("=", node.lvalue, c_ast.Constant("int", "0"), node.coord),
                                 lambda n: builder.kind_of(env, n))
    else:
        raw = statement_accesses(node, lambda n: builder.kind_of(env, n))
    domain = env.domain.set_tuple_name("S_summary")
    extra = domain.dim(isl.dim_type.set) - collecting.depth
    for access in raw:
        index = builder._access(access, "ref_summary", env, domain).index   # noqa: SLF001
        if extra:
            index = index.project_out(isl.dim_type.in_, collecting.depth, extra)
        collecting.found.append((access.array, access.is_read, access.is_write, index))
    return None


def _call(builder, node: SummaryCall, env, outer: _Collected | None):
    call = node.call
    kind_of = lambda n: builder.kind_of(env, n)   # noqa: E731
    value_reads: list[RawAccess] = []
    for arg, is_pointer in zip(call.args.exprs if call.args else [], node.pointers):
        pointer = _subscripts(arg) if is_pointer else None
        if pointer is None:
            value_reads.extend(expression_reads(arg, kind_of))
            continue
        for sub in pointer:
            for ident in operand_ids(sub):
                if kind_of(ident.name) not in ("iterator", "param"):
                    raise CompileError.at(ident.coord, f"'{ident.name}' in the array argument "
                                          f"of a call to '{node.summary.function}' (a subscript of an array "
                                          "passed to a summarised function may use only loop iterators "
                                          "and parameters)")
            env.space.expr(sub, "array subscript")   # affine, or the located error
    depth = len(env.iterators)
    collected = _Collected(depth, [])
    saved = getattr(builder, "_summary", None)
    builder._summary = collected   # noqa: SLF001
    try:
        builder._block(node.items, env)   # noqa: SLF001
    finally:
        builder._summary = saved   # noqa: SLF001
    if outer is not None:   # a summarised call inside a summary: its accesses are the outer call's
        domain = env.domain.set_tuple_name("S_summary")
        for access in value_reads:
            index = builder._access(access, "ref_summary", env, domain).index   # noqa: SLF001
            outer.found.append((access.array, True, False, index.project_out(
                isl.dim_type.in_, outer.depth, depth - outer.depth)))
        outer.found.extend((a, r, w, m.project_out(isl.dim_type.in_, outer.depth, depth - outer.depth)
                            if depth > outer.depth else m) for a, r, w, m in collected.found)
        return None
    name = f"S_{len(builder.statements)}"
    domain = env.domain.set_tuple_name(name)
    accesses: list[Access] = []
    for access in value_reads:
        tag = f"ref_{builder._n_references}"   # noqa: SLF001
        builder._n_references += 1   # noqa: SLF001
        accesses.append(builder._access(access, tag, env, domain))   # noqa: SLF001
    merged: dict[tuple[str, bool, bool], isl.Map] = {}
    for array, read, write, index in collected.found:
        index = index.set_tuple_name(isl.dim_type.in_, name).intersect_domain(domain)
        key = (array, read, write)
        merged[key] = index if key not in merged else merged[key].union(index)
    for (array, read, write), index in merged.items():
        tag = f"ref_{builder._n_references}"   # noqa: SLF001
        builder._n_references += 1   # noqa: SLF001
        accesses.append(Access(array, index.coalesce(), read, write, tag))
    body = tag_references(call, [(a.ref, t.tag) for a, t in zip(value_reads, accesses)])
    coord = call.coord
    builder.statements.append(Statement(name, domain, env.iterators, tuple(accesses), body,
                                        coord.line if coord else 0, coord.column if coord else 0,
                                        builder._label, calls=(node.summary.function,)))   # noqa: SLF001
    builder._label = None   # noqa: SLF001
    return isl.Schedule.from_domain(isl.UnionSet.from_set(domain))


def _subscripts(arg: c_ast.Node) -> list[c_ast.Node]:
    """The subscripts of an argument that designates memory (`A`, `A[i]`, `&A[i][j]`, `&s`)."""
    target = arg.expr if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" else arg
    subs = []
    while isinstance(target, c_ast.ArrayRef):
        subs.append(target.subscript)
        target = target.name
    return subs
