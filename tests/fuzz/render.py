"""Print a Program as a complete C file that dumps its arrays in PolyBench format.

Array extents come from the program's own footprint (`interp`): a dimension
whose smallest subscript is negative gets every subscript shifted by the same
offset, so all accesses stay in bounds whatever the generator produced. Each
array is initialised from a hash of its indices (deterministic, different per
array), the SCoP function is called with the chosen parameter values, and
every array and in-out scalar (the scalars live after the SCoP) is dumped with
all significant digits; a temporary scalar is declared in the function around
the SCoP and dies with it.
"""
from __future__ import annotations

from dataclasses import dataclass

from .external import library, prototypes, trace_dump
from .forms import c_only_helpers, c_only_includes, c_only_main, pencil_library, pencil_prototypes
from .interp import Footprint, footprint
from .program import (
    Arith,
    Assign,
    Assume,
    Bin,
    Call,
    CastTo,
    Cmp,
    Cond,
    Const,
    DataIf,
    DExpr,
    Extent,
    ExtCall,
    IExpr,
    If,
    Index,
    Kill,
    Local,
    Logic,
    Loop,
    MinMax,
    Node,
    Not,
    Num,
    Program,
    Ptr,
    Ref,
    Select,
    Test,
    Var,
    While,
    node_exprs,
    node_refs,
    used_names,
    variables,
    walk_nodes,
)

DUMP_FORMAT = {"double": "%0.17g", "float": "%0.9g", "int": "%d"}
_PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2}


@dataclass(frozen=True)
class Layout:
    """Offsets and extents of every array dimension, from the footprint."""

    offsets: dict[tuple[str, int], int]
    extents: dict[str, tuple[int, ...]]


def layout(program: Program, fp: Footprint) -> Layout:
    offsets: dict[tuple[str, int], int] = {}
    extents: dict[str, tuple[int, ...]] = {}
    for arr in program.arrays:
        dims = []
        for d in range(arr.rank):
            lo, hi = fp.ranges.get((arr.name, d), (0, 0))
            offset = -lo if lo < 0 else 0
            offsets[(arr.name, d)] = offset
            dims.append(hi + offset + 2)  # one spare element past the largest index
        extents[arr.name] = tuple(dims)
    for struct in program.structs:   # members share the struct array's outer dimensions
        outer = [max(extents[f][d] for f in struct.fields) for d in range(struct.rank)]
        for f in struct.fields:
            extents[f] = tuple(outer) + extents[f][struct.rank:]
    return Layout(offsets, extents)


def _members(program: Program) -> dict[str, tuple[str, int]]:
    """Each array that is a struct member: (the struct array, its rank)."""
    return {f: (s.name, s.rank) for s in program.structs for f in s.fields}


def flat_arrays(program: Program) -> list[str]:
    """The arrays the compute function addresses as flat sequences (`Program.flat`) that
    the program still has (the shrinker may have removed some)."""
    names = {a.name for a in program.arrays}
    return [name for name in program.flat if name in names]


def row_lengths(name: str, extents: tuple[int, ...]) -> list[tuple[str, int]]:
    """The parameters that hold a flat array's inner extents, and their values."""
    return [(f"{name}_ld{d}", e) for d, e in enumerate(extents) if d > 0]


class _Printer:
    def __init__(self, program: Program, lay: Layout) -> None:
        self.program = program
        self.layout = lay
        self.members = _members(program)
        self.flat = set(flat_arrays(program))

    def ctype(self, array: str) -> str:
        return next(a.ctype for a in self.program.arrays if a.name == array)

    # -- integer expressions ----------------------------------------------
    def iexpr(self, e: IExpr, prec: int = 0) -> str:
        if isinstance(e, Const):
            return str(e.value) if e.value >= 0 or prec == 0 else f"({e.value})"
        if isinstance(e, Var):
            return e.name
        if isinstance(e, MinMax):
            a, b = self.iexpr(e.a), self.iexpr(e.b)
            if e.fn:   # PENCIL's imin/imax/umin/umax (`forms`)
                return f"{e.fn}({a}, {b})"
            if self.program.minmax_macros:
                return f"{e.op}({a}, {b})"
            rel = "<" if e.op == "MIN" else ">"
            return f"(({a}) {rel} ({b}) ? ({a}) : ({b}))"
        op = e.op
        if op == "+" and isinstance(e.b, Const) and e.b.value < 0:
            op, b_text = "-", str(-e.b.value)
        else:
            b_text = self.iexpr(e.b, _PREC[op] + 1)
        text = f"{self.iexpr(e.a, _PREC[op])} {op} {b_text}"
        return f"({text})" if _PREC[op] < prec else text

    def cond(self, c: Cond) -> str:
        if isinstance(c, Not):
            return f"!({self.cond(c.a)})"
        if isinstance(c, Logic):
            return f"({self.cond(c.a)}) {c.op} ({self.cond(c.b)})"
        assert isinstance(c, Cmp)
        return f"{self.iexpr(c.a)} {c.op} {self.iexpr(c.b)}"

    # -- data -------------------------------------------------------------
    def subscripts(self, r: Ref) -> list[str]:
        """`r`'s subscripts as printed: shifted by the layout's offsets (no negative index)."""
        subs = []
        for d, sub in enumerate(r.subs):
            off = self.layout.offsets.get((r.name, d), 0)
            subs.append(self.iexpr(Bin("+", sub, Const(off)) if off else sub))
        return subs

    def ref(self, r: Ref) -> str:
        subs = self.subscripts(r)
        if r.name in self.members:   # `rec[i].A[k]`
            struct, rank = self.members[r.name]
            return (struct + "".join(f"[{s}]" for s in subs[:rank]) + "." + r.name
                    + "".join(f"[{s}]" for s in subs[rank:]))
        if r.name in self.flat:   # `A[(i) * A_ld1 + (k)]`
            return self._flat(r.name, subs)
        return r.name + "".join(f"[{s}]" for s in subs)

    def _flat(self, name: str, subs: list[str]) -> str:
        """`name[((s0) * name_ld1 + (s1)) * name_ld2 + (s2)]`, the subscripts as printed."""
        lengths = row_lengths(name, self.layout.extents[name])
        flat = f"({subs[0]})"
        for sub, (length, _) in zip(subs[1:], lengths):
            flat = f"({flat} * {length} + ({sub}))"
        return f"{name}[{flat[1:-1]}]"

    def data(self, e: DExpr) -> str:
        if isinstance(e, Ref):
            return self.ref(e)
        if isinstance(e, Num):
            return _literal(e)
        if isinstance(e, Index):
            return f"({self.iexpr(e.expr)})"
        if isinstance(e, Arith):
            return f"({self.data(e.a)} {e.op} {self.data(e.b)})"
        if isinstance(e, Call):
            return f"{e.fn}({', '.join(self.data(a) for a in e.args)})"
        if isinstance(e, Select):
            return f"({self.data(e.a)} {e.op} {self.data(e.b)} ? {self.data(e.x)} : {self.data(e.y)})"
        if isinstance(e, Ptr):     # never a flat array's (generate._flat_without_pointers)
            return ("&" if e.address else "") + self.ref(e.ref)
        if isinstance(e, Extent):
            return str(self.layout.extents[e.name][-1])
        assert isinstance(e, CastTo)
        return f"(({e.ctype}) {self.data(e.a)})"

    def test(self, t: Test) -> str:
        return f"{self.ref(t.ref)} {t.op} {_literal(t.value)}"

    # -- statements -------------------------------------------------------
    def nodes(self, nodes: tuple[Node, ...], indent: str) -> list[str]:
        return [line for node in nodes for line in self.node(node, indent)]

    def node(self, node: Node, indent: str) -> list[str]:
        if isinstance(node, Assign) and node.helper in ("bump", "settle") and node.target.subs:
            return [f"{indent}{node.helper}_{self.ctype(node.target.name)}(&{self.ref(node.target)}, "
                    f"{self.data(node.rhs)});"]
        if isinstance(node, Assume):
            return [f"{indent}__pencil_assume({self.cond(node.cond)});"]
        if isinstance(node, Kill):
            return [f"{indent}__pencil_kill({', '.join(node.names)});"]
        if isinstance(node, Loop) and node.helper == "row" and \
                (row := _row_call(node, {**self.members, **dict.fromkeys(self.flat)})) is not None:
            target, source = row
            return [f"{indent}row_update_{self.ctype(target.name)}({self.ref(target)}, {self.ref(source)}, "
                    f"{self.iexpr(node.hi)});"]
        if isinstance(node, ExtCall):
            return [f"{indent}{node.fn}({', '.join(self.data(a) for a in node.args)});"]
        if isinstance(node, Assign):
            if node.chain is not None:
                return [f"{indent}{self.ref(node.target)} = {self.ref(node.chain)} = {self.data(node.rhs)};"]
            return [f"{indent}{self.ref(node.target)} {node.op} {self.data(node.rhs)};"]
        if isinstance(node, Local):
            if node.init is None:
                return [f"{indent}{node.ctype} {node.name};"]
            return [f"{indent}{node.ctype} {node.name} = {self.data(node.init)};"]
        if isinstance(node, If):
            out = [f"{indent}if ({self.cond(node.cond)}) {{", *self.nodes(node.then, indent + "  ")]
            if node.orelse:
                out += [f"{indent}}} else {{", *self.nodes(node.orelse, indent + "  ")]
            return out + [f"{indent}}}"]
        if isinstance(node, DataIf):
            out = [f"{indent}if ({self.test(node.test)}) {{", *self.nodes(node.then, indent + "  ")]
            if node.orelse:
                out += [f"{indent}}} else {{", *self.nodes(node.orelse, indent + "  ")]
            return out + [f"{indent}}}"]
        if isinstance(node, While):
            v, inner = node.var, indent + "  "
            # a variable of its own: one that is a loop iterator elsewhere too is outside
            # ppcg-py's model (an iterator is no variable in memory)
            start = f"{inner}int {v} = {self.iexpr(node.lo)};"
            return [f"{indent}{{", start, f"{inner}while ({v} < {self.iexpr(node.hi)} && {self.test(node.test)}) {{",
                    *self.nodes(node.body, inner + "  "), f"{inner}  {v}++;", f"{inner}}}", f"{indent}}}"]
        assert isinstance(node, Loop)
        decl = "int " if self.program.iterators_in_for else ""
        v = node.var
        if node.step > 0:
            bound = (f"{v} <= {self.iexpr(Bin('+', node.hi, Const(-1)))}" if node.inclusive
                     else f"{v} < {self.iexpr(node.hi)}")
            step = f"{v}++" if node.step == 1 else f"{v} += {node.step}"
            head = f"for ({decl}{v} = {self.iexpr(node.lo)}; {bound}; {step})"
        else:
            bound = (f"{v} > {self.iexpr(Bin('+', node.lo, Const(-1)))}" if node.inclusive
                     else f"{v} >= {self.iexpr(node.lo)}")
            step = f"{v}--" if node.step == -1 else f"{v} -= {-node.step}"
            head = f"for ({decl}{v} = {self.iexpr(Bin('+', node.hi, Const(-1)))}; {bound}; {step})"
        body = self.nodes(node.body, indent + "  ")
        if len(node.body) == 1 and isinstance(node.body[0], Assign):
            return [indent + head, *body]
        return [indent + head + " {", *body, indent + "}"]


def _row_call(loop: Loop, members) -> tuple[Ref, Ref] | None:
    """The rows (R[..], S[..]) a `row` loop passes to row_update_T, if it still has the
    shape the generator gave it (the shrinker may have changed it: then it is a loop),
    and neither is a struct member (whose rows C cannot pass: members interleave)."""
    if len(loop.body) != 1 or not isinstance(loop.body[0], Assign) or loop.step != 1 or loop.inclusive \
            or loop.lo != Const(0):
        return None
    stmt = loop.body[0]
    rhs = stmt.rhs.a if isinstance(stmt.rhs, Arith) and stmt.rhs.op == "%" else stmt.rhs
    q = Var(loop.var)
    if stmt.op != "=" or stmt.chain is not None or stmt.helper is not None or not stmt.target.subs \
            or stmt.target.subs[-1] != q or not isinstance(rhs, Arith) or rhs.op != "+" \
            or not isinstance(rhs.a, Arith) or rhs.a.b != stmt.target or not isinstance(rhs.b, Arith) \
            or not isinstance(rhs.b.b, Ref) or not rhs.b.b.subs or rhs.b.b.subs[-1] != q:
        return None
    source = rhs.b.b
    if any(q in variables(e) for e in stmt.target.subs[:-1] + source.subs[:-1]) \
            or stmt.target.name in members or source.name in members:
        return None
    return Ref(stmt.target.name, stmt.target.subs[:-1]), Ref(source.name, source.subs[:-1])


# The helpers a generated program may call (ppcg-py inlines them): value helpers in
# expressions, `bump_T(&A[..], v)` as a statement, `row_update_T(R[i], S[j], n)` with a loop.
HELPERS = {
    "mix": "static inline double mix(double a, double b) { return 0.5 * a + 0.25 * b; }",
    "mixf": "static inline float mixf(float a, float b) { return 0.5f * a + 0.25f * b; }",
    "imix": "static inline int imix(int a, int b) { return a - 2 * b; }",
    "twice_mix": ("static inline double twice_mix(double a, double b)\n{\n  double t = mix(a, b);\n"
                  "  return t + 0.125 * mix(b, t);\n}"),
    "bump_double": "static inline void bump_double(double *p, double v) { *p = 0.5 * *p + v; }",
    "bump_float": "static inline void bump_float(float *p, float v) { *p = 0.5f * *p + v; }",
    "bump_int": "static inline void bump_int(int *p, int v) { *p = (*p + v) % 1009; }",
    # early returns (`forms.early_returns`; ppcg-py makes them structured when it inlines)
    "rule": ("static int rule(int c, int n)\n{\n  if (c > n)\n    return 1;\n  if (c < 0)\n    return 0;\n"
             "  return c;\n}"),
    "clip": ("static double clip(double x, double hi)\n{\n  if (x > hi)\n    return hi;\n"
             "  if (x < -hi)\n    return -hi;\n  return 0.5 * x;\n}"),
    **{f"settle_{t}": (f"static void settle_{t}({t} *p, {t} v)\n{{\n  if (v > *p) {{\n"
                       + ("    *p = (*p + v) % 1009;\n    return;\n  }\n  *p = (2 * v + 1) % 1009;\n}" if t == "int"
                          else f"    *p = ({t}) 0.5 * *p + ({t}) 0.25 * v;\n    return;\n  }}\n"
                               f"  *p = ({t}) 0.5 * v + ({t}) 0.125;\n}}"))
       for t in ("double", "float", "int")},
    **{f"first_at_least_{t}": (f"static int first_at_least_{t}(const {t} row[], int len, {t} v)\n{{\n"
                               "  for (int q = 0; q < len; q++)\n    if (row[q] >= v)\n      return q;\n"
                               "  return len;\n}")
       for t in ("double", "float", "int")},
    **{f"row_update_{t}": (f"static void row_update_{t}({t} r[], const {t} a[], int len)\n{{\n"
                           f"  for (int q = 0; q < len; q++)\n"
                           + ("    r[q] = (1 * r[q] + 2 * a[q]) % 1009;\n}" if t == "int"
                              else "    r[q] = 0.5 * r[q] + 0.25 * a[q];\n}"))
       for t in ("double", "float", "int")},
}


def _helpers_used(program: Program) -> list[str]:
    types = {a.name: a.ctype for a in program.arrays}
    members = _members(program)
    used: set[str] = set()

    def calls(expr) -> None:
        if isinstance(expr, Call):
            if expr.fn in HELPERS:
                used.add(expr.fn)
            for arg in expr.args:
                calls(arg)
        for f in ("a", "b", "x", "y"):
            if hasattr(expr, f) and not isinstance(expr, (Var, Const, Bin, MinMax)):
                calls(getattr(expr, f))
    for scop in program.scops:
        for node in walk_nodes(scop):
            for expr in node_exprs(node):
                calls(expr)
            if isinstance(node, Assign):
                if node.helper in ("bump", "settle") and node.target.subs:
                    used.add(f"{node.helper}_{types[node.target.name]}")
            elif isinstance(node, Loop) and node.helper == "row" and \
                    (row := _row_call(node, {**members, **dict.fromkeys(flat_arrays(program))})) is not None:
                used.add(f"row_update_{types[row[0].name]}")
    if "twice_mix" in used:
        used.add("mix")
    return [name for name in HELPERS if name in used]


def _literal(num: Num) -> str:
    if num.kind == "int":
        return str(int(num.value))
    text = repr(float(num.value))
    if "e" not in text and "." not in text:
        text += ".0"
    return text + ("f" if num.kind == "float" else "")


def render(program: Program, fp: Footprint | None = None) -> str:
    """The C source of `program`."""
    fp = fp if fp is not None else footprint(program)
    lay = layout(program, fp)
    pr = _Printer(program, lay)
    used = used_names(program)
    members = _members(program)
    fields = [a for a in program.arrays if a.name in used and a.name in members]
    globals_ = [a for a in program.arrays if a.name in program.globals]
    arrays = [a for a in program.arrays if a.name in used and a.name not in members and a not in globals_]
    structs = [(st, [a for a in fields if a.name in st.fields]) for st in program.structs]
    structs = [(st, fs) for st, fs in structs if fs]
    scalars = [s for s in program.scalars if s.name in used]
    params = [(n, v) for n, v in program.params]
    lines = ["/* Generated by tests/fuzz. */", "#include <stdio.h>", "#include <math.h>",
             *c_only_includes(program)]
    if program.minmax_macros:
        lines += ["#define MIN(a, b) (((a) < (b)) ? (a) : (b))",
                  "#define MAX(a, b) (((a) > (b)) ? (a) : (b))"]
    lines.append("")
    helpers = _helpers_used(program)
    if helpers:
        lines += [*(HELPERS[h] for h in helpers), ""]
    externals = prototypes(program, lay.extents)     # defined in the second file (`render_library`)
    if externals:
        lines += [*externals, ""]
    pencil = pencil_prototypes(program)              # PENCIL's built-ins: defined there too
    if pencil:
        lines += [*pencil, ""]
    lines += c_only_helpers(program)
    if globals_:
        lines += [f"{a.ctype} {a.name}{''.join(f'[{e}]' for e in lay.extents[a.name])};" for a in globals_]
        lines.append("")
    for st, fs in structs:
        lines.append(f"struct {st.name}_t {{")
        lines += [f"  {a.ctype} {a.name}{''.join(f'[{e}]' for e in lay.extents[a.name][st.rank:])};" for a in fs]
        lines += ["};", ""]

    def struct_param(st, fs) -> str:
        return f"struct {st.name}_t {st.name}{''.join(f'[{e}]' for e in lay.extents[fs[0].name][:st.rank])}"

    flat = flat_arrays(program)

    def array_param(a) -> str:
        if a.name in flat:
            return f"{a.ctype} *{a.name}"
        ext = lay.extents[a.name]
        dims = "".join(f"[{'' if (k == 0 and a.open_outer) else e}]" for k, e in enumerate(ext))
        return f"{a.ctype} {a.name}{dims}"

    lengths = [length for a in arrays if a.name in flat for length in row_lengths(a.name, lay.extents[a.name])]
    signature = ([f"int {n}" for n, _ in params] + [f"int {n}" for n, _ in lengths]
                 + [f"{s.ctype} {s.name}" for s in scalars if not s.written]
                 + [array_param(a) for a in arrays]
                 + [struct_param(st, fs) for st, fs in structs]
                 + [f"{s.ctype} *{s.name}_io" for s in scalars if s.inout])
    groups = [[k] for k in range(len(program.scops))] if program.split_functions \
        else [list(range(len(program.scops)))]
    calls = []
    for g, scop_ids in enumerate(groups):
        name = program.function if len(groups) == 1 else f"{program.function}{g}"
        lines.append(f"static void {name}({', '.join(signature) or 'void'})")
        lines.append("{")
        for s in scalars:
            if s.inout:
                lines.append(f"  {s.ctype} {s.name} = *{s.name}_io;")
        lines += _temporaries(program, scalars, scop_ids)
        if not program.iterators_in_for:
            iters = sorted({n.var for k in scop_ids for n in walk_nodes(program.scops[k])
                            if isinstance(n, Loop)})
            if iters:
                lines.append(f"  int {', '.join(iters)};")
        for pos, k in enumerate(scop_ids):
            if pos:
                lines.append("  /* between two SCoPs */")
            lines += ["#pragma scop", *pr.nodes(program.scops[k], "  "), "#pragma endscop"]
            for after, declaration in program.empty_scops:
                if min(after, len(program.scops) - 1) == k:
                    lines += ["#pragma scop", *([f"  {declaration[0]} {declaration[1]};"] if declaration else []),
                              "#pragma endscop"]
        for s in scalars:
            if s.inout:
                lines.append(f"  *{s.name}_io = {s.name};")
        lines += ["}", ""]
        args = ([str(v) for _, v in params] + [str(v) for _, v in lengths]
                + [_literal(Num(s.value, s.ctype)) for s in scalars if not s.written]
                + [f"&{a.name}{'[0]' * a.rank}" if a.name in flat else a.name for a in arrays]
                + [st.name for st, _ in structs]
                + [f"&{s.name}" for s in scalars if s.inout])
        calls.append(f"  {name}({', '.join(args)});")
    dumped = {a.ctype for a in arrays + fields + globals_} | {s.ctype for s in scalars if s.inout}
    if externals:
        dumped.add("double")     # the hidden state of the declared-only functions
    if program.c_only:
        dumped.add("int")        # what the C99 helpers computed
    for ctype, fmt in DUMP_FORMAT.items():
        if ctype not in dumped:
            continue
        lines += [f"static void dump_{ctype}(const char *name, const {ctype} *v, int count)", "{",
                  '  fprintf(stderr, "begin dump: %s\\n", name);',
                  "  for (int k = 0; k < count; k++)",
                  f'    fprintf(stderr, "{fmt}\\n", v[k]);',
                  '  fprintf(stderr, "end   dump: %s\\n", name);', "}", ""]
    lines += ["int main(void)", "{"]
    for a in arrays:
        lines.append(f"  static {a.ctype} {a.name}{''.join(f'[{e}]' for e in lay.extents[a.name])};")
    for st, fs in structs:
        lines.append(f"  static {struct_param(st, fs)};")
    for s in scalars:
        if s.inout:
            lines.append(f"  {s.ctype} {s.name} = {_literal(Num(s.value, s.ctype))};")
    for n, a in enumerate(arrays):
        lines += _init_array(a, lay.extents[a.name], n)
    for n, a in enumerate(fields):
        lines += _init_array(a, lay.extents[a.name], len(arrays) + n, members[a.name])
    for n, a in enumerate(globals_):
        lines += _init_array(a, lay.extents[a.name], len(arrays) + len(fields) + n)
    lines += calls
    lines += c_only_main(program)
    lines.append('  fprintf(stderr, "==BEGIN DUMP_ARRAYS==\\n");')
    for a in arrays + globals_:
        if a.name in program.killed:    # dead after its `__pencil_kill`: its values are no result
            continue
        ext = lay.extents[a.name]
        count = " * ".join(str(e) for e in ext)
        first = a.name + "[0]" * len(ext)
        lines.append(f'  dump_{a.ctype}("{a.name}", &{first}, {count});')
    for a in fields:
        struct, rank = members[a.name]
        ext = lay.extents[a.name]
        idx = [f"x{d}" for d in range(len(ext))]
        element = (struct + "".join(f"[{x}]" for x in idx[:rank]) + "." + a.name
                   + "".join(f"[{x}]" for x in idx[rank:]))
        lines.append(f'  fprintf(stderr, "begin dump: {struct}_{a.name}\\n");')
        lines += [f"  for (int {x} = 0; {x} < {e}; {x}++)" for x, e in zip(idx, ext, strict=True)]
        lines.append(f'    fprintf(stderr, "{DUMP_FORMAT[a.ctype]}\\n", {element});')
        lines.append(f'  fprintf(stderr, "end   dump: {struct}_{a.name}\\n");')
    for s in scalars:
        if s.inout:
            lines.append(f'  dump_{s.ctype}("{s.name}", &{s.name}, 1);')
    if externals:
        lines += trace_dump()
    if program.c_only:
        lines.append('  dump_int("c99_box", c99_box, 5);')
    lines += ['  fprintf(stderr, "==END   DUMP_ARRAYS==\\n");', "  return 0;", "}", ""]
    return "\n".join(lines)


def render_library(program: Program, fp: Footprint | None = None) -> str | None:
    """The second C file, which defines the functions `program` only declares (None
    when it declares none): linked with the original and with ppcg-py's output."""
    pencil = pencil_library(program)
    if not prototypes(program) and pencil is None:
        return None
    fp = fp if fp is not None else footprint(program)
    parts = [library(program, layout(program, fp).extents) if prototypes(program) else None, pencil]
    return "\n".join(p for p in parts if p is not None)


def _temporaries(program: Program, scalars: list, scop_ids: list[int]) -> list[str]:
    """Declarations of the temporary scalars these SCoPs use, at the top of their
    function: each function has its own, as `interp` models them."""
    used = {ref.name for k in scop_ids for node in walk_nodes(program.scops[k]) for ref in node_refs(node)}
    lines = []
    for s in scalars:
        if s.temporary and s.name in used:
            init = f" = {_literal(Num(s.value, s.ctype))}" if s.initialised else ""
            lines.append(f"  {s.ctype} {s.name}{init};")
    return lines


def _init_array(a, ext: tuple[int, ...], salt: int, member: tuple[str, int] | None = None) -> list[str]:
    idx = [f"x{d}" for d in range(len(ext))]
    loops = [f"  for (int {x} = 0; {x} < {e}; {x}++)" for x, e in zip(idx, ext, strict=True)]
    weights = [7, 13, 3]
    hashed = " + ".join(f"{w} * {x}" for w, x in zip(weights, idx, strict=False)) + f" + {salt * 5 + 1}"
    target = a.name + "".join(f"[{x}]" for x in idx)
    if member is not None:
        target = member[0] + "".join(f"[{x}]" for x in idx[:member[1]]) + "." + a.name \
            + "".join(f"[{x}]" for x in idx[member[1]:])
    if a.ctype == "int":
        value = f"({hashed}) % 17 - 5"
    else:
        value = f"({a.ctype}) (({hashed}) % 19) / 19 - ({a.ctype}) 0.25"
    return loops + [f"    {target} = {value};"]
