"""Row loops that address many rows, each in a function of its own (C target).

gcc allocates the registers of a function as a whole. In a time tile's code, inside the
function that OpenMP outlines around the tiles, a row loop that addresses many rows
(heat-3d's planes two at a time: ten rows, each a pointer) gets row pointers spilled to
the stack and reloaded at every vector, and computes its rows' addresses from the many
values live around it. The same loop alone in a function, its rows' addresses computed
once from a few values the caller passes, keeps them in registers: heat-3d's time tiles
ran 1.3x faster at LARGE on a Zen 5, jacobi-2d's 1.04x, fdtd-2d's as fast
(docs/results/cpu-2026-11-30-row-functions). Only loops of more than `FEW_ROWS` rows
move.

    /* a row loop of the SCoP of kernel_heat_3d (lines 52-69), alone so that .. */
    static PPCG_NOINLINE void ppcg_rows_52_1(int n, DATA_TYPE POLYBENCH_3D(A, N, N, N, n, n, n), ..,
                                             long ppcg_first, long ppcg_end, long ppcg_at0, ..)
    {
      (void) n;     /* named by A's declaration, which the macros may expand without it */
      #pragma omp simd
      for (int c7 = ppcg_first; c7 < ppcg_end; c7++) {
        double reg_0 = 0.125 * (A[ppcg_at0 + 1][ppcg_at1][ppcg_at2 + c7] - ..;
        ..
    }

is printed before the SCoP's function and called where the loop was, with the loop's
bounds and each subscript's part that does not move with the loop (`ppcg_at0`: the
plane `-32 * c0 + 48 * c1 - 2 * c4 + c5` of the rows `ppcg_at0 - 1` .. `ppcg_at0 + 2`)
computed by the caller. It takes the SCoP's function's parameters that the loop needs
as the program writes them (so that an array keeps its type, macros and all, whatever
sizes the program is built with), by value the local variables that the SCoP only
reads (its parameters and read-only scalars), and sees file-scope variables as they
are. A loop that reads anything else (a local array of the function), that calls a
function, or that is not only assignments to array elements stays where it is; so do
the loops of a function whose header a macro writes or whose parameters are K&R's.
"""
from __future__ import annotations

import copy
import itertools
import re
from dataclasses import dataclass, field

from pycparser import c_ast

from ..extract.c_walk import identifier_names, nodes_of, variable_ids
from ..extract.model import Scop
from ..isl_c import integer
from ..names import fresh_name
from .printer import block_items, c_lines, c_text, declared_iterator, descend
from .source import Source

__all__ = ["NOINLINE", "FEW_ROWS", "FunctionHeader", "RowFunctions", "function_header"]

# a loop that addresses at most this many rows stays where it is: the loops of linear
# algebra (gemm's `C[i]` and `B[k]`), which gcc handles well in place, and a stencil's row
# alone; the time tiles' pairs (jacobi-2d's six rows, heat-3d's ten) gain in a function
FEW_ROWS = 4

NOINLINE = """\
#if defined(__GNUC__)
#define PPCG_NOINLINE __attribute__((noinline))
#else
#define PPCG_NOINLINE
#endif
"""
_VECTOR_PRAGMAS = ("omp simd", "GCC ivdep")
_SPECIFIERS = re.compile(r"[A-Za-z_][\w\s*]*")     # `static inline void`, `double *`


@dataclass(frozen=True)
class FunctionHeader:
    """The SCoP's function as its definition is written: where it starts (the row
    functions go before that line) and each parameter's declaration, as written."""

    first_line: int
    parameters: tuple[tuple[str, str], ...]     # (name, declaration)
    file_scope: frozenset[str]


def function_header(source: Source, scop: Scop) -> FunctionHeader | None:
    """The header of the SCoP's function in the input, or None where its text is not
    plainly `specifiers name(declaration, ..)` (a macro writes it, a K&R definition)."""
    surroundings = scop.surroundings
    if surroundings is None or surroundings.parameters is None:
        return None
    line = surroundings.function_line
    text = "\n".join(source.line(k) for k in range(line, scop.start_line))    # the header ends before the SCoP
    name = re.search(rf"\b{re.escape(scop.function)}\s*\(", text)
    if name is None or "\n" in text[:name.start()] or not _only_specifiers(text[:name.start()]):
        return None
    declarations = _parameter_texts(text, name.end())
    names = surroundings.parameters
    if declarations == ["void"] or declarations == [""]:
        declarations = []
    if declarations is None or len(declarations) != len(names) or not all(
            re.search(rf"\b{re.escape(n)}\b", d) for n, d in zip(names, declarations)):
        return None
    first = line
    while first > 1 and source.line(first - 1).strip() and _only_specifiers(source.line(first - 1)):
        first -= 1      # `static void` on a line of its own above the name
    if first > 1 and not _ends_declaration(source.line(first - 1)):
        return None     # an attribute or a macro above the definition would then apply to a row function
    return FunctionHeader(first, tuple(zip(names, declarations)), surroundings.file_scope)


def _ends_declaration(line: str) -> bool:
    """Whether a line ends what comes before a function definition."""
    text = line.strip()
    return not text or text.endswith((";", "}", "*/")) or text.startswith(("#", "//"))


def _only_specifiers(text: str) -> bool:
    return not text.strip() or _SPECIFIERS.fullmatch(text.strip()) is not None


def _parameter_texts(text: str, start: int) -> list[str] | None:
    """The declarations between the parenthesis opened before `start` and its match,
    split at the commas outside parentheses and brackets (comments kept)."""
    depth, k, part, parts = 0, start, start, []
    while k < len(text):
        if text.startswith("/*", k):
            end = text.find("*/", k + 2)
            if end < 0:
                return None
            k = end + 2
            continue
        if text.startswith("//", k):
            k = text.find("\n", k)
            if k < 0:
                return None
            continue
        ch = text[k]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            if depth == 0:
                parts.append(text[part:k])
                return [" ".join(p.split()) for p in parts]
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[part:k])
            part = k + 1
        elif ch in "\"'#{;":
            return None
        k += 1
    return None


@dataclass
class RowFunctions:
    """The row functions of one SCoP: `outlined` moves its loops, `functions` is their
    text (what goes before the function), in the order they were made."""

    header: FunctionHeader
    prefix: str                                  # `ppcg_rows_52_`: unique in the file
    comment: str                                 # what each function's comment says it is
    scalars: dict[str, str] = field(default_factory=dict)    # the SCoP's parameters and read-only scalars: name -> type
    functions: list[str] = field(default_factory=list)

    def outlined(self, statements: list[c_ast.Node]) -> list[c_ast.Node]:
        """`statements` with each row loop of many rows a call (found through loops,
        ifs and blocks)."""
        return self._items(statements, {})

    def _items(self, items: list[c_ast.Node], scope: dict[str, str]) -> list[c_ast.Node]:
        scope = dict(scope)     # the generated variables declared around: name -> type
        result: list[c_ast.Node] = []
        for statement in items:
            if isinstance(statement, c_ast.Decl) and (kind := _scalar_type(statement)) is not None:
                scope[statement.name] = kind
            if isinstance(statement, c_ast.For):
                pragma = result[-1] if result and _is_vector_pragma(result[-1]) else None
                call = self._call(statement, pragma, scope) if _is_row_loop(statement) else None
                if call is not None:
                    if pragma is not None:
                        result.pop()
                    result.append(call)
                    continue
                inner = dict(scope)
                for decl in statement.init.decls if isinstance(statement.init, c_ast.DeclList) else []:
                    if (kind := _scalar_type(decl)) is not None:
                        inner[decl.name] = kind
                descend(statement, lambda body, inner=inner: self._items(body, inner))
            elif isinstance(statement, (c_ast.If, c_ast.Compound)):
                descend(statement, lambda body: self._items(body, scope))
            result.append(statement)
        return result

    def _call(self, loop: c_ast.For, pragma: c_ast.Pragma | None, scope: dict[str, str]) -> c_ast.Node | None:
        """The call that replaces `loop`, its function made; None where the loop reads
        a variable the function cannot take."""
        own = {declared_iterator(loop)} | {d.name for d in nodes_of(loop.stmt, c_ast.Decl)}
        params = {name for name, _ in self.header.parameters}
        taken = identifier_names(loop) | params | set(scope) | set(self.scalars) | self.header.file_scope
        loop, starts = _rebased(loop, own, taken)
        free = {i.name for i in variable_ids(loop)} - own - {start for start, _ in starts}
        values = [name for name in scope if name in free]
        scalars = sorted(n for n in free - set(scope) - params - self.header.file_scope if n in self.scalars)
        if any(n not in scope and n not in params and n not in self.header.file_scope and n not in self.scalars
               for n in free):
            return None
        passed = self._parameters(free & params)
        name = f"{self.prefix}{len(self.functions)}"
        declarations = [d for _, d in passed] + [f"{self.scalars[v]} {v}" for v in scalars] \
            + [f"{scope[v]} {v}" for v in values] + [f"long {start}" for start, _ in starts]
        # a parameter passed for the sizes in another's declaration, which the macros may drop
        unused = [c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(
            ["void"]))), c_ast.ID(n)) for n, _ in passed if n not in free]
        body = unused + ([pragma] if pragma is not None else []) + [loop]
        self.functions.append("\n".join([self.comment,
                                         f"static PPCG_NOINLINE void {name}({', '.join(declarations) or 'void'})",
                                         "{", *c_lines(body, "  "), "}"]))
        arguments = [c_ast.ID(n) for n in [n for n, _ in passed] + scalars + values] + [e for _, e in starts]
        return c_ast.FuncCall(c_ast.ID(name), c_ast.ExprList(arguments) if arguments else None)

    def _parameters(self, used: set[str]) -> list[tuple[str, str]]:
        """The function's parameters `used` and those their declarations name (a
        variable-length array's sizes), in the function's order."""
        needed = set(used)
        for name, declaration in reversed(self.header.parameters):
            if name in needed:
                needed |= {n for n, _ in self.header.parameters if re.search(rf"\b{re.escape(n)}\b", declaration)}
        return [(n, d) for n, d in self.header.parameters if n in needed]


def _is_row_loop(loop: c_ast.For) -> bool:
    """An innermost loop of assignments to array elements (and the locals they
    compute first) that addresses more than FEW_ROWS rows."""
    iterator = declared_iterator(loop)
    body = block_items(loop.stmt)
    if iterator is None or not body or not all(
            isinstance(s, c_ast.Assignment) and isinstance(s.lvalue, c_ast.ArrayRef)
            or isinstance(s, c_ast.Decl) and s.init is not None and _scalar_type(s) is not None for s in body):
        return False
    if any(nodes_of(s, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.FuncCall) for s in body):
        return False
    return len(_rows(loop, iterator)) > FEW_ROWS


def _rows(loop: c_ast.For, iterator: str) -> set[tuple[str, tuple[str, ...]]]:
    """The rows the loop addresses: (array, its other subscripts) of each element
    reference whose last subscript alone moves with the loop."""
    rows = set()
    for base, chain in _references(loop):
        *outer, last = (ref.subscript for ref in chain)
        if isinstance(base, c_ast.ID) and iterator in identifier_names(last) \
                and not any(iterator in identifier_names(s) for s in outer):
            rows.add((base.name, tuple(c_text(s) for s in outer)))
    return rows


def _references(loop: c_ast.For) -> list[tuple[c_ast.Node, list[c_ast.ArrayRef]]]:
    """Each element reference of the loop: what it subscripts (an array's ID) and its
    ArrayRef nodes, one per subscript, outermost dimension first."""
    prefixes = {id(ref.name) for ref in nodes_of(loop, c_ast.ArrayRef)}     # a reference's inner nodes
    found = []
    for ref in nodes_of(loop, c_ast.ArrayRef):
        if id(ref) not in prefixes:
            chain = []
            while isinstance(ref, c_ast.ArrayRef):
                chain.append(ref)
                ref = ref.name
            found.append((ref, chain[::-1]))
    return found


def _scalar_type(decl: c_ast.Decl) -> str | None:
    """`int` for `int c5 = ..` or `const int c5 = ..` (a generated scalar's type)."""
    kind = decl.type
    if isinstance(kind, c_ast.TypeDecl) and isinstance(kind.type, c_ast.IdentifierType):
        return " ".join(kind.type.names)
    return None


def _is_vector_pragma(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Pragma) and node.string.startswith(_VECTOR_PRAGMAS)


def _rebased(loop: c_ast.For, own: set[str], taken: set[str]) -> tuple[c_ast.For, list[tuple[str, c_ast.Node]]]:
    """A copy of the loop that computes no address part the caller can: each
    subscript's part that does not move with the loop (heat-3d's planes `i - 1`,
    `i`, `i + 1`: `i`; its rows' `k - 2 * t + c7`: `k - 2 * t`) and the loop's bounds
    become parameters, which the caller computes, and the subscripts are a parameter,
    the terms that move and a constant. Returns the copy and (parameter, its value)
    for each parameter, in order; the parameters are `long`, which holds the value of
    any integer expression of the subscripts (the SCoP's parameters may be `long`)."""
    loop = copy.deepcopy(loop)
    starts: dict[str, str] = {}        # the C text of a part -> its parameter
    values: list[tuple[str, c_ast.Node]] = []

    parts = itertools.count()

    def parameter(part: c_ast.Node, name: str | None = None) -> c_ast.ID:
        """The parameter that holds `part` (`name`, or the next `ppcg_atK`)."""
        text = c_text(part)
        if text not in starts:
            starts[text] = fresh_name(name or f"ppcg_at{next(parts)}", taken)
            values.append((starts[text], part))
        return c_ast.ID(starts[text])

    init = loop.init.decls[0]
    if not identifier_names(init.init) & own and not nodes_of(init.init, c_ast.ArrayRef):
        init.init = parameter(init.init, "ppcg_first")
    if isinstance(loop.cond, c_ast.BinaryOp) and not identifier_names(loop.cond.right) & own \
            and not nodes_of(loop.cond.right, c_ast.ArrayRef):
        loop.cond.right = parameter(loop.cond.right, "ppcg_last" if loop.cond.op == "<=" else "ppcg_end")
    for ref in _by_dimension(loop):
        form = _linear(ref.subscript)
        if form is None:
            continue
        terms, constant, atoms = form
        moving = {a: c for a, c in terms.items() if identifier_names(atoms[a]) & own}
        fixed = {a: c for a, c in terms.items() if a not in moving}
        if fixed and not any(nodes_of(atoms[a], c_ast.ArrayRef) for a in fixed):
            subscript: c_ast.Node = parameter(_sum(fixed, atoms))
            if moving:
                subscript = c_ast.BinaryOp("+", subscript, _sum(moving, atoms))
            ref.subscript = _plus(subscript, constant)
    return loop, values


def _by_dimension(loop: c_ast.For) -> list[c_ast.ArrayRef]:
    """The loop's ArrayRef nodes (one per subscript), outermost dimensions first."""
    chains = [chain for _, chain in _references(loop)]
    return [chain[d] for d in range(max(map(len, chains), default=0)) for chain in chains if d < len(chain)]


def _linear(subscript: c_ast.Node) -> tuple[dict[str, int], int, dict[str, c_ast.Node]] | None:
    """A subscript as (atom -> coefficient, constant, atom -> node): sums
    and products by constants of identifiers and of whatever else (`(t + 1) % 2`,
    a call), each of those an atom named by its text."""
    atoms: dict[str, c_ast.Node] = {}

    def form(node: c_ast.Node) -> tuple[dict[str, int], int] | None:
        if isinstance(node, c_ast.Constant):
            try:
                return {}, int(node.value.rstrip("uUlL"), 0)
            except ValueError:
                return None
        if isinstance(node, c_ast.UnaryOp) and node.op in "+-" and (inner := form(node.expr)) is not None:
            sign = -1 if node.op == "-" else 1
            return {k: sign * v for k, v in inner[0].items()}, sign * inner[1]
        if isinstance(node, c_ast.BinaryOp) and node.op in "+-":
            left, right = form(node.left), form(node.right)
            if left is None or right is None:
                return None
            sign = -1 if node.op == "-" else 1
            terms = dict(left[0])
            for k, v in right[0].items():
                terms[k] = terms.get(k, 0) + sign * v
            return {k: v for k, v in terms.items() if v}, left[1] + sign * right[1]
        if isinstance(node, c_ast.BinaryOp) and node.op == "*":
            left, right = form(node.left), form(node.right)
            if left is not None and right is not None and (not left[0] or not right[0]):
                scale, other = (left[1], right) if not left[0] else (right[1], left)
                return {k: scale * v for k, v in other[0].items() if scale * v}, scale * other[1]
        text = c_text(node)
        atoms[text] = node
        return {text: 1}, 0

    result = form(subscript)
    return None if result is None else (result[0], result[1], atoms)


def _sum(terms: dict[str, int], atoms: dict[str, c_ast.Node]) -> c_ast.Node:
    """The C expression of a sum of atoms times their coefficients."""
    expression: c_ast.Node | None = None
    for atom, coefficient in terms.items():
        term = copy.deepcopy(atoms[atom])
        if expression is None:      # the first term carries its sign: `-32 * c0`
            expression = term if coefficient == 1 else c_ast.UnaryOp("-", term) if coefficient == -1 else \
                c_ast.BinaryOp("*", integer(coefficient), term)
            continue
        if abs(coefficient) != 1:
            term = c_ast.BinaryOp("*", integer(abs(coefficient)), term)
        expression = c_ast.BinaryOp("+" if coefficient > 0 else "-", expression, term)
    assert expression is not None
    return expression


def _plus(value: c_ast.Node, constant: int) -> c_ast.Node:
    """`value + constant` (`value - 1`, or `value` alone)."""
    if not constant:
        return value
    return c_ast.BinaryOp("+" if constant > 0 else "-", value, integer(abs(constant)))
