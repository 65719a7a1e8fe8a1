"""Calls to functions the program only declares (feature `external`, issue 24).

The program declares a few functions (prototypes only) and calls them inside its
SCoPs; `library` prints their definitions, a second C file that the runner links
with the original (the reference) and with ppcg-py's output, so both run the same
code. The forms, inserted at random places of the finished program (inside
parallel nests and between them) from a random stream of their own:

    log        `ext_log_T(i, v);` at the top of a loop body: records into hidden state
    draw       `x[i] = ... ext_draw_T() * y[i];`: a value from hidden state (like rand)
    scale_row  `ext_scale_row_T(len, A[i], f);`: writes a row (or a whole 1-d array)
    mean_row   `y[i] = ... ext_mean_row_T(len, A[i]);`: reads a row through `const T *`
    bump       `ext_bump_T(&x[i], v);`: updates one element through `T *p`
    bump_s     `ext_bump_T(&s, v);`: the same on a scalar
    cmix       `... ext_cmix_T(a, b) ...`: declared `__attribute__((const))`, no state
    gget/gput  `... ext_gget_T(k) ...`, `ext_gput_T(k, v);`: read or update the global
               array the program declares at file scope (one of its arrays, which its
               SCoPs read and write too)
    scale_block `ext_scale_block_T(s[i][j].a, f);`, `... ext_sum_block_T(s[i][j].a) ...`:
    sum_block  a whole two-dimensional member array of a struct element, declared
               `T blk[R][C]` with the member's extents (`forms.member_calls` inserts
               them, with `ext_scale_row_T(C, s[i][j].a[k], f)` on its rows)

Every function but `cmix` notes its arguments in hidden state (`note`: each call
adds to one slot of a trace, the slot and weight depending on how many calls came
before); the program dumps the trace (`ext_trace`, as an array "ext_trace") after
the SCoPs, so a call skipped, repeated, reordered, or one that saw stale data, is
a mismatch. Values stay bounded: rows are scaled by at most 0.75 and shifted,
means not sums, updates are convex, ints are reduced modulo 1009.
"""
from __future__ import annotations

import random
from dataclasses import replace

from .generate import Features, Generator, _Scope
from .idioms import Idioms, Point, points
from .program import (
    Arith,
    Call,
    DExpr,
    Extent,
    ExtCall,
    Index,
    Node,
    Num,
    Program,
    Ptr,
    Ref,
    Var,
    insert_nodes,
    node_exprs,
    node_refs,
    pointer_refs,
    subexpressions,
    walk_nodes,
)

CHANCE = 0.6                                    # of a program calling declared-only functions
INSERTIONS = ((1, 3), (2, 4), (3, 3), (4, 1))   # how many calls it gets, weighted
GLOBAL_CHANCE = 0.4                             # of one of its arrays being a global
TYPES = ("double", "float", "int")
PURE = ("cmix",)


def is_external(fn: str) -> bool:
    return fn.startswith("ext_")


def _kind(fn: str) -> tuple[str, str]:
    """`ext_scale_row_float` -> ("scale_row", "float")."""
    stem, ctype = fn[len("ext_"):].rsplit("_", 1)
    return stem, ctype


# -- choosing and inserting the calls --------------------------------------------
class Externals(Idioms):
    """Builds the calls with the idioms' machinery (places, scopes, values)."""

    def __init__(self, gen: Generator, rng: random.Random, features: Features, glob: str | None) -> None:
        super().__init__(gen, rng, features)
        self.glob = glob

    def table(self):
        table = [(Externals.log, 3), (Externals.draw, 2), (Externals.scale_row, 2), (Externals.mean_row, 2),
                 (Externals.bump, 2), (Externals.bump_scalar, 1), (Externals.cmix, 3)]
        if self.glob is not None:
            table += [(Externals.gget, 2), (Externals.gput, 2)]
        return table

    def add(self, program: Program) -> Program:
        table = self.table()
        self.g.scalars = list(program.scalars)     # the idioms' temporaries too
        self.g.arrays = list(program.arrays)       # and their buffers
        self.taken |= {r.name for scop in program.scops for n in walk_nodes(scop) for r in node_refs(n)}
        for _ in range(self.g._weighted(INSERTIONS)):
            program = self.insert(program, self.g._weighted(table))
        return program

    def insert(self, program: Program, idiom) -> Program:
        """`program` with one call at a random place it fits (unchanged if none)."""
        places = points(program, self.g)
        self.rng.shuffle(places)
        for point in places[:40]:
            nodes = idiom(self, point)
            if nodes:
                scops = list(program.scops)
                scops[point.scop] = insert_nodes(scops[point.scop], point.path, point.pos, nodes)
                return replace(program, scops=tuple(scops))
        return program

    # -- pieces ------------------------------------------------------------------
    def ctype(self) -> str:
        return self.array_type()

    def arg(self, scope: _Scope, ctype: str) -> DExpr:
        """A value argument of type `ctype` (an int one kept within 1009)."""
        return self.value(scope, ctype)

    def row(self, scope: _Scope, ctype: str | None = None) -> tuple[Ref, str] | None:
        """A row `A[..]` of an array (its last subscript left out), or a whole 1-d array;
        not of an array of unknown size (`A[][M]`), which a call may access all of."""
        arrays = [a for a in self.g.arrays if (ctype is None or a.ctype == ctype) and not a.open_outer]
        if not arrays:
            return None
        arr = self.rng.choice(arrays)
        subs = tuple(self.g.subscript(scope, self.chance(0.7)) for _ in range(arr.rank - 1))
        return Ref(arr.name, subs), arr.ctype

    # -- the forms ------------------------------------------------------------------
    def log(self, point: Point) -> tuple[Node, ...] | None:
        """`ext_log_T(i, v);` first in a loop body."""
        if not point.scope.iterators or point.pos != 0 or point.path[-1:] != ("body",):
            return None
        t = self.ctype()
        return (ExtCall(f"ext_log_{t}", (Index(Var(point.scope.iterators[-1])), self.arg(point.scope, t))),)

    def draw(self, point: Point) -> tuple[Node, ...] | None:
        """`x[..] = ... + c * (ext_draw_T() * y[..]);`"""
        t = self.ctype()
        extra = Arith("*", Call(f"ext_draw_{t}", ()), self.g.read(point.scope, t))
        use = self.use(point.scope, extra, t)
        return (use,) if use is not None else None

    def scale_row(self, point: Point) -> tuple[Node, ...] | None:
        row = self.row(point.scope)
        if row is None:
            return None
        ref, t = row
        factor = Num(self.rng.choice((2, 3)), "int") if t == "int" else Num(self.rng.choice((0.5, 0.75)), t)
        return (ExtCall(f"ext_scale_row_{t}", (Extent(ref.name), Ptr(ref), factor)),)

    def mean_row(self, point: Point) -> tuple[Node, ...] | None:
        row = self.row(point.scope)
        if row is None:
            return None
        ref, t = row
        use = self.use(point.scope, Call(f"ext_mean_row_{t}", (Extent(ref.name), Ptr(ref))), t)
        return (use,) if use is not None else None

    def bump(self, point: Point) -> tuple[Node, ...] | None:
        """`ext_bump_T(&x[..], v);`"""
        arr = self.rng.choice(self.g.arrays)
        ref = Ref(arr.name, tuple(self.g.subscript(point.scope, self.chance(0.7)) for _ in range(arr.rank)))
        return (ExtCall(f"ext_bump_{arr.ctype}", (Ptr(ref, True), self.arg(point.scope, arr.ctype))),)

    def bump_scalar(self, point: Point) -> tuple[Node, ...] | None:
        """`ext_bump_T(&s, v);` on a written scalar of the function or a local, holding a value."""
        scope = point.scope
        names = [(s.name, s.ctype) for s in self.g.readable_scalars(scope) if s.written]
        if self.chance(0.5):
            names += list(scope.visible_locals().items())
        if not names:
            return None
        name, t = self.rng.choice(names)
        value = self.arg(replace(scope, hidden=scope.hidden | {name}), t)
        return (ExtCall(f"ext_bump_{t}", (Ptr(Ref(name), True), value)),)

    def cmix(self, point: Point) -> tuple[Node, ...] | None:
        """A const function in an expression, preferably inside a nest."""
        if not point.scope.iterators and self.chance(0.7):
            return None
        t = self.ctype()
        call: DExpr = Call(f"ext_cmix_{t}", (self.g.read(point.scope, t), self.g.read(point.scope, t)))
        if self.chance(0.3):
            call = Call(f"ext_cmix_{t}", (call, self.g.read(point.scope, t)))
        use = self.use(point.scope, call, t)
        return (use,) if use is not None else None

    def _global_type(self) -> str:
        return next(a.ctype for a in self.g.arrays if a.name == self.glob)

    def gget(self, point: Point) -> tuple[Node, ...] | None:
        t = self._global_type()
        use = self.use(point.scope, Call(f"ext_gget_{t}", (Index(self.g.subscript(point.scope, False)),)), t)
        return (use,) if use is not None else None

    def gput(self, point: Point) -> tuple[Node, ...] | None:
        t = self._global_type()
        k = Index(self.g.subscript(point.scope, False))
        return (ExtCall(f"ext_gput_{t}", (k, self.arg(point.scope, t))),)


def add_external_calls(program: Program, gen: Generator, seed: str) -> Program:
    """`program` with calls of declared-only functions, from a random stream of their own."""
    rng = random.Random(f"external:{seed}")
    if rng.random() >= CHANCE:
        return program
    glob = None
    candidates = [a.name for a in program.arrays if not a.open_outer]
    if candidates and rng.random() < GLOBAL_CHANCE:
        glob = rng.choice(candidates)
    program = Externals(gen, rng, gen.f, glob).add(program)
    return replace(program, globals=(glob,)) if glob is not None else program


def _calls_in(expr: DExpr):
    if isinstance(expr, Call):
        yield expr.fn
    for part in subexpressions(expr):
        yield from _calls_in(part)


def externals_used(program: Program) -> list[str]:
    """The declared-only functions the program calls, in a stable order."""
    used: set[str] = set()
    for scop in program.scops:
        for node in walk_nodes(scop):
            if isinstance(node, ExtCall):
                used.add(node.fn)
            for expr in node_exprs(node):
                used.update(fn for fn in _calls_in(expr) if is_external(fn))
    return sorted(used)


def written_through_calls(program: Program) -> set[str]:
    """The arrays and scalars a call of a declared-only function may write: those behind
    its writable pointer arguments, and the global array for `ext_gput_T`."""
    names: set[str] = set()
    for scop in program.scops:
        for node in walk_nodes(scop):
            if isinstance(node, ExtCall):
                names.update(p.ref.name for a in node.args for p in pointer_refs(a))
                if _kind(node.fn)[0] == "gput":
                    names.update(program.globals)
    return names


def pointer_arrays(program: Program) -> set[str]:
    """The arrays passed by pointer to a declared-only function (rows, elements)."""
    return {p.ref.name for scop in program.scops for node in walk_nodes(scop)
            for expr in node_exprs(node) for p in pointer_refs(expr)}


# -- printing ------------------------------------------------------------------------
def block_dims(program: Program, extents: dict[str, tuple[int, ...]] | None) -> dict[str, tuple[int, int]]:
    """The `[R][C]` of each block function's parameter: the extents of the last two
    dimensions of the array its calls pass (one array per function, see forms.py)."""
    dims: dict[str, tuple[int, int]] = {}
    for scop in program.scops:
        for node in walk_nodes(scop):
            for expr in node_exprs(node):
                for fn, ptr in _block_calls(expr, node):
                    dims[fn] = tuple(extents[ptr.ref.name][-2:]) if extents else (1, 1)
    return dims


def _block_calls(expr: DExpr, node: Node):
    if isinstance(node, ExtCall) and _kind(node.fn)[0].endswith("_block") and expr is node.args[0]:
        yield node.fn, expr
    if isinstance(expr, Call) and is_external(expr.fn) and _kind(expr.fn)[0].endswith("_block"):
        yield expr.fn, expr.args[0]
    for part in subexpressions(expr):
        yield from _block_calls(part, node)


def _signature(fn: str, dims: tuple[int, int] = (1, 1)) -> tuple[str, str]:
    """The return type and parameter list of a declared-only function."""
    kind, t = _kind(fn)
    block = f"{t} blk[{dims[0]}][{dims[1]}]"
    return {
        "scale_block": ("void", f"{block}, {t} f"),
        "sum_block": (t, block),
        "log": ("void", f"int k, {t} v"),
        "draw": (t, "void"),
        "scale_row": ("void", f"int len, {t} *row, {t} f"),
        "mean_row": (t, f"int len, const {t} *row"),
        "bump": ("void", f"{t} *p, {t} v"),
        "cmix": (t, f"{t} a, {t} b"),
        "gget": (t, "int k"),
        "gput": ("void", f"int k, {t} v"),
    }[kind]


def prototypes(program: Program, extents: dict[str, tuple[int, ...]] | None = None) -> list[str]:
    """The declarations the program prints (no bodies), `ext_trace` first. `extents`:
    each array's, as `render` laid them out (for the block functions' parameters)."""
    used = externals_used(program)
    if not used:
        return []
    dims = block_dims(program, extents)
    lines = ["double ext_trace(int k);"]
    for fn in used:
        ret, params = _signature(fn, dims.get(fn, (1, 1)))
        attribute = "__attribute__((const)) " if _kind(fn)[0] in PURE else ""
        lines.append(f"{attribute}{ret} {fn}({params});")
    return lines


TRACE = 64


def _body(fn: str, glob: tuple[str, tuple[int, ...]] | None, dims: tuple[int, int] = (1, 1)) -> str:
    kind, t = _kind(fn)
    is_int = t == "int"
    loops = f"for (int r = 0; r < {dims[0]}; r++)\n    for (int q = 0; q < {dims[1]}; q++)\n"
    if kind == "scale_block":
        update = "(blk[r][q] * f + 1) % 1009" if is_int else f"blk[r][q] * f + ({t}) 0.125"
        return f"{loops}      blk[r][q] = {update};\n  note(f + {dims[0]});"
    if kind == "sum_block":
        result = "s % 1009" if is_int else f"s / {dims[0] * dims[1]}"
        return f"{t} s = 0;\n  {loops}      s += blk[r][q];\n  note({dims[1]});\n  return {result};"
    if kind == "log":
        return "note(k + 0.5 * v);"
    if kind == "draw":
        value = "state" if is_int else f"({t}) state / ({t}) 101"
        return f"static int state = 7;\n  state = (state * 13 + 5) % 101;\n  note(state);\n  return {value};"
    if kind == "scale_row":
        update = "(row[q] * f + 1) % 1009" if is_int else f"row[q] * f + ({t}) 0.125"
        return f"for (int q = 0; q < len; q++)\n    row[q] = {update};\n  note(f + 0.25 * len);"
    if kind == "mean_row":
        result = "s % 1009" if is_int else "s / len"
        return f"{t} s = 0;\n  for (int q = 0; q < len; q++)\n    s += row[q];\n  note(len);\n  return {result};"
    if kind == "bump":
        update = "(*p + v) % 1009" if is_int else f"({t}) 0.5 * *p + v"
        return f"*p = {update};\n  note(v);"
    if kind == "cmix":
        return "return (3 * a + b) % 1009;" if is_int else f"return ({t}) 0.5 * a + ({t}) 0.25 * b + ({t}) 0.125;"
    assert glob is not None, fn
    name, extents = glob
    count = 1
    for e in extents:
        count *= e
    first = name + "[0]" * len(extents)
    at = f"{t} *g = &{first} + ((k % {count}) + {count}) % {count};"
    if kind == "gget":
        return f"{at}\n  note(*g);\n  return *g;"
    update = "(*g + v) % 1009" if is_int else f"({t}) 0.5 * *g + v"
    return f"{at}\n  *g = {update};\n  note(v);"


def library(program: Program, extents: dict[str, tuple[int, ...]]) -> str | None:
    """The second C file: the definitions of every function the program declares, or
    None when it declares none. `extents`: each array's, as `render` laid them out."""
    used = externals_used(program)
    if not used:
        return None
    lines = ["/* Generated by tests/fuzz: the functions the program only declares. */", ""]
    glob = None
    if program.globals:
        name = program.globals[0]
        ctype = next(a.ctype for a in program.arrays if a.name == name)
        glob = (name, extents[name])
        lines += [f"extern {ctype} {name}{''.join(f'[{e}]' for e in extents[name])};", ""]
    lines += [f"static double trace[{TRACE}];", "static int calls;", "",
              "static void note(double v)", "{",
              f"  trace[calls % {TRACE}] += v * (1 + calls % 7);", "  calls++;", "}", "",
              "double ext_trace(int k)", "{", f"  return k < {TRACE} ? trace[k] : calls;", "}", ""]
    dims = block_dims(program, extents)
    for fn in used:
        ret, params = _signature(fn, dims.get(fn, (1, 1)))
        lines += [f"{ret} {fn}({params})", "{", "  " + _body(fn, glob, dims.get(fn, (1, 1))), "}", ""]
    return "\n".join(lines)


def trace_dump() -> list[str]:
    """Lines of main that dump the hidden state after the SCoPs (as an array)."""
    return [f"  static double ext_trace_values[{TRACE + 1}];",
            f"  for (int k = 0; k <= {TRACE}; k++)",
            "    ext_trace_values[k] = ext_trace(k);",
            f'  dump_double("ext_trace", ext_trace_values, {TRACE + 1});']


__all__ = ["add_external_calls", "externals_used", "library", "prototypes", "trace_dump",
           "written_through_calls", "pointer_arrays", "is_external"]
