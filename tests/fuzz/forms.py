"""Forms of real C that ppcg-py once mishandled, inserted into finished programs.

Each form has a feature flag (on by default; `--without NAME` turns it off) and a
chance of its own, and all of them draw from one random stream of their own
(`forms:SEED:ATTEMPT`), applied to the program `generate` has finished (after its
parameters fit the budget), so every other part of a seed's program stays what it
was; `--with forms_always` draws every form for every program.

    early_returns  helpers of the file that return before their end, which ppcg-py
                   inlines (extract/returns.py): `rule(c, n)` and `clip(x, hi)`, values
                   with two early returns; `settle_T(&A[..], v)`, a void function that
                   returns after writing in one branch; `first_at_least_T(A[i], len, v)`,
                   a return inside the helper's loop (render.HELPERS prints them)
    pencil         PENCIL's built-ins (extract/pencil.py): `imin`/`imax` in loop bounds,
                   subscripts and right-hand sides (existing MIN/MAX too), `umin`/`umax`
                   where both sides are never negative (`interp` checks it: `umin` compares
                   as unsigned); `__pencil_assume(cond)` at the top of a SCoP (on the
                   parameters) or in a loop (on its iterators), always a condition the run
                   keeps (`interp` refuses a program that breaks one: undefined behaviour);
                   `__pencil_kill(x)` of a temporary scalar or of a whole array at the top
                   level of the last SCoP that uses it, after its last use (a killed array
                   is not dumped: its values are dead). The program declares them; the
                   second file (`render_library`) defines them for gcc, so ppcg-py sees no
                   body and prints none of them
    member_calls   (with `external` only) a new array of structs `struct grid_t { T ma[R][C]; double mw; } grid[..]`
                   whose member array goes to declared-only functions (external.py) as a
                   row, `ext_scale_row_T(C, grid[i][j].ma[k], f)`, and whole,
                   `ext_scale_block_T(grid[i][j].ma, f)`, `ext_sum_block_T(grid[i][j].ma)`
    c_only         C99-only declarators and system headers outside the SCoP: helpers of
                   main with `int a[static 4]` and `const int a[const 4]` parameters, and
                   `#include <omp.h>`, <string.h>, <stdint.h>; such a file's CUDA host code
                   must stay C (NAME_host.c)

Every form keeps the program defined: a new statement is placed where the idioms'
scopes allow it (`idioms.points`), and the program with it must still run within
the budget with every read defined, every umin on non-negative values and every
assumption true (`interp.footprint`); a form that does not is left out.
"""
from __future__ import annotations

import random
from dataclasses import fields, is_dataclass, replace

from .generate import INSTANCE_BUDGET, ITERATORS, Features, Generator, _Scope
from .idioms import Idioms, Point, _names_in, points, replace_arrays
from .interp import TooManyInstances, UndefinedRead, ceval, footprint
from .program import (
    Arith,
    ArrayDecl,
    Assign,
    Assume,
    Bin,
    Call,
    CastTo,
    Cmp,
    Cond,
    Const,
    DExpr,
    Extent,
    ExtCall,
    Index,
    Kill,
    Logic,
    Loop,
    MinMax,
    Node,
    Num,
    Program,
    Ptr,
    Ref,
    StructDecl,
    Var,
    get_at,
    insert_nodes,
    node_paths,
    node_refs,
    replace_at,
    walk_nodes,
)

CHANCES = {"early_returns": 0.25, "pencil": 0.3, "member_calls": 0.15, "c_only": 0.15}
EARLY_INSERTIONS = ((1, 3), (2, 3), (3, 1))
PENCIL_PARTS = {"restyle": 0.5, "bound": 0.5, "subscript": 0.4, "rhs": 0.5, "assume_top": 0.5,
                "assume_loop": 0.4, "kill": 0.5}
HEADERS = ("omp.h", "string.h", "stdint.h")
MIN_MAX_FNS = ("imin", "imax", "umin", "umax")


def _fits(program: Program) -> bool:
    """Runs within the budget, reads only defined values, keeps every promise."""
    try:
        return footprint(program, INSTANCE_BUDGET).instances > 0
    except (TooManyInstances, UndefinedRead):
        return False


def _map(obj, fn):
    """`obj` with `fn` applied bottom-up to every dataclass inside it (tuples too)."""
    if isinstance(obj, tuple):
        return tuple(_map(x, fn) for x in obj)
    if is_dataclass(obj) and not isinstance(obj, type):
        return fn(replace(obj, **{f.name: _map(getattr(obj, f.name), fn) for f in fields(obj)}))
    return obj


def _walk(obj):
    """Every dataclass inside `obj`."""
    if isinstance(obj, tuple):
        for x in obj:
            yield from _walk(x)
    elif is_dataclass(obj) and not isinstance(obj, type):
        yield obj
        for f in fields(obj):
            yield from _walk(getattr(obj, f.name))


class Forms(Idioms):
    """Builds the forms with the idioms' machinery (places, scopes, values)."""

    def __init__(self, gen: Generator, rng: random.Random, features: Features, program: Program) -> None:
        super().__init__(replace_arrays(gen, program), rng, features)
        self.g.scalars = list(program.scalars)
        self.taken |= {name for scop in program.scops for name in _names_in(scop)} \
            | {a.name for a in program.arrays} | {s.name for s in program.structs} | {s.name for s in program.scalars}

    def draw(self, p: float) -> bool:
        return self.rng.random() < p or self.f.forms_always

    def place(self, program: Program, build, where=None, tries: int = 12) -> Program:
        """`program` with the nodes `build(point)` gives at a random place (of those
        `where` accepts) where the program still fits; unchanged if none."""
        places = [p for p in points(program, self.g) if where is None or where(p)]
        self.rng.shuffle(places)
        for point in places[:tries]:
            nodes = build(point)
            if not nodes:
                continue
            scops = list(program.scops)
            scops[point.scop] = insert_nodes(scops[point.scop], point.path, point.pos, nodes)
            candidate = replace(program, scops=tuple(scops))
            if _fits(candidate):
                self.taken |= _names_in(nodes)
                return candidate
        return program

    def rows(self, program: Program) -> list[ArrayDecl]:
        """Arrays whose rows (or, 1-d, which whole) can be passed by pointer: not a
        struct member whose row would interleave with the other members."""
        members = {f: s.rank for s in program.structs for f in s.fields}
        return [a for a in self.g.arrays if a.name not in members or a.rank - 1 >= members[a.name]]

    # -- early returns ----------------------------------------------------------------
    def early_returns(self, program: Program) -> Program:
        table = [(Forms.rule, 3), (Forms.clip, 2), (Forms.settle, 3), (Forms.first, 2)]
        for _ in range(self.g._weighted(EARLY_INSERTIONS)):
            kind = self.g._weighted(table)
            program = self.place(program, lambda p, kind=kind: kind(self, p, program))
        return program

    def rule(self, point: Point, program: Program) -> tuple[Node, ...] | None:
        scope = point.scope
        call = Call("rule", (self.g.read(scope, "int"), self.g.read(scope, "int")))
        use = self.use(scope, call, "int")
        return (use,) if use is not None else None

    def clip(self, point: Point, program: Program) -> tuple[Node, ...] | None:
        types = [a.ctype for a in self.g.arrays if a.ctype != "int"]
        if not types:
            return None
        t = self.rng.choice(types)
        call = Call("clip", (self.g.read(point.scope, t), Num(self.rng.choice((0.5, 0.75, 1.0)), "double")))
        use = self.use(point.scope, call, t)
        return (use,) if use is not None else None

    def settle(self, point: Point, program: Program) -> tuple[Node, ...] | None:
        arr = self.rng.choice(self.g.arrays)
        target = Ref(arr.name, tuple(self.g.subscript(point.scope, self.chance(0.7)) for _ in range(arr.rank)))
        value = self.value(replace(point.scope, target=target), arr.ctype)
        return (Assign(target, "+=", value, None, helper="settle"),)

    def first(self, point: Point, program: Program) -> tuple[Node, ...] | None:
        rows = self.rows(program)
        if not rows:
            return None
        arr = self.rng.choice(rows)
        row = Ref(arr.name, tuple(self.g.subscript(point.scope, self.chance(0.7)) for _ in range(arr.rank - 1)))
        call = Call(f"first_at_least_{arr.ctype}", (Ptr(row), Extent(arr.name), self.g.read(point.scope, arr.ctype)))
        use = self.use(point.scope, call, "int")
        return (use,) if use is not None else None

    # -- PENCIL ---------------------------------------------------------------------------
    def pencil(self, program: Program) -> Program:
        parts = {name: self.draw(p) for name, p in PENCIL_PARTS.items()}
        if not any(parts.values()):
            parts["bound"] = True
        if parts["restyle"]:
            program = self.restyle(program)
        if parts["bound"]:
            program = self.bound(program)
        if parts["subscript"]:
            program = self.subscript(program)
        if parts["rhs"]:
            program = self.place(program, self.rhs)
        if parts["assume_top"]:
            top_first = self.chance(0.7)
            program = self.place(program, self.assume_params,
                                 lambda p: p.top and (p.pos == 0 or not top_first))
        if parts["assume_loop"]:
            program = self.place(program, self.assume_loop, lambda p: bool(p.scope.iterators))
        if parts["kill"]:
            program = self.kill(program)
        return program

    def restyle(self, program: Program) -> Program:
        """Existing MIN/MAX as imin/imax calls (some of them)."""
        def fn(e):
            if isinstance(e, MinMax) and not e.fn and self.chance(0.6):
                return replace(e, fn="imin" if e.op == "MIN" else "imax")
            return e
        candidate = replace(program, scops=_map(program.scops, fn))
        return candidate if _fits(candidate) else program

    def _loops(self, program: Program) -> list[tuple[int, tuple]]:
        return [(k, path) for k, scop in enumerate(program.scops) for path in node_paths(scop)
                if isinstance(get_at(scop, path), Loop)]

    def _with_node(self, program: Program, k: int, path: tuple, node: Node) -> Program:
        scops = list(program.scops)
        scops[k] = replace_at(scops[k], path, (node,))
        return replace(program, scops=tuple(scops))

    def bound(self, program: Program) -> Program:
        """`i < imin(hi, n + c)`, `i = imax(lo, 1)` or `i < umin(hi, n + c)`."""
        loops = self._loops(program)
        self.rng.shuffle(loops)
        for k, path in loops[:6]:
            loop = get_at(program.scops[k], path)
            roll = self.rng.random()
            if roll < 0.3 and loop.step > 0 and not loop.inclusive:
                new = replace(loop, hi=MinMax("MIN", loop.hi, Bin("+", self.g.param(), Const(self.rng.randint(0, 2))),
                                              "umin"))
            elif roll < 0.75:
                new = replace(loop, hi=MinMax("MIN", loop.hi, Bin("-", self.g.param(), Const(self.rng.randint(0, 2))),
                                              "imin"))
            else:
                new = replace(loop, lo=MinMax("MAX", loop.lo, Const(self.rng.randint(0, 2)), "imax"))
            candidate = self._with_node(program, k, path, new)
            if _fits(candidate):
                return candidate
        return program

    def subscript(self, program: Program) -> Program:
        """One subscript of one statement as `imin(s, n - 1)`, `imax(s, 0)` or `umin(s, c)`."""
        stmts = [(k, path) for k, scop in enumerate(program.scops) for path in node_paths(scop)
                 if isinstance(get_at(scop, path), Assign)]
        self.rng.shuffle(stmts)
        for k, path in stmts[:6]:
            node = get_at(program.scops[k], path)
            refs = [r for r in node_refs(node) if r.subs]
            if not refs:
                continue
            chosen = self.rng.choice(refs)
            d = self.rng.randrange(len(chosen.subs))
            s = chosen.subs[d]
            roll = self.rng.random()
            if roll < 0.4:
                sub = MinMax("MIN", s, Bin("-", self.g.param(), Const(1)), "imin")
            elif roll < 0.75:
                sub = MinMax("MAX", s, Const(self.rng.randint(0, 1)), "imax")
            else:
                sub = MinMax(self.rng.choice(("MIN", "MAX")), s, Const(self.rng.randint(0, 3)),
                             "")
                sub = replace(sub, fn="umin" if sub.op == "MIN" else "umax")
            new_ref = Ref(chosen.name, chosen.subs[:d] + (sub,) + chosen.subs[d + 1:])
            done = [False]

            def swap(e, chosen=chosen, new_ref=new_ref):
                if e == chosen and not done[0]:
                    done[0] = True
                    return new_ref
                return e
            candidate = self._with_node(program, k, path, _map(node, swap))
            if done[0] and _fits(candidate):
                return candidate
        return program

    def rhs(self, point: Point) -> tuple[Node, ...] | None:
        """`... imax(K[i], j) ...` in an int statement, or `(int) umin(i, c)` in any."""
        scope = point.scope
        if scope.iterators and self.chance(0.35):
            fn = self.rng.choice(("umin", "umax"))
            arg = Index(Var(self.rng.choice(scope.iterators)))
            call: DExpr = CastTo("int", Call(fn, (arg, Index(Const(self.rng.randint(1, 5))))))
        else:
            fn = self.rng.choice(("imin", "imax"))
            call = Call(fn, (self.g.read(scope, "int"), self.g.read(scope, "int")))
            if self.chance(0.25):
                call = Call(self.rng.choice(("imin", "imax")), (call, self.g.read(scope, "int")))
        use = self.use(scope, call, "int")
        return (use,) if use is not None else None

    def assume_params(self, point: Point) -> tuple[Node, ...] | None:
        """A condition on the parameters that their values keep."""
        values = dict(self.g.params)
        name = self.rng.choice(list(values))
        p, v = Var(name), values[name]
        options: list[Cond] = [Cmp(">=", p, Const(v - self.rng.randint(0, 3))),
                               Cmp("<=", p, Const(v + self.rng.randint(0, 40))),
                               Cmp(">", p, Const(self.rng.randint(0, 4)))]
        for other, w in values.items():
            if other != name:
                options.append(Cmp("<=" if v <= w else ">=", p, Var(other)))
                options.append(Cmp("<=", p, Bin("+", Var(other), Const(max(0, v - w) + self.rng.randint(0, 3)))))
        cond = self.rng.choice(options)
        if self.chance(0.3):
            cond = Logic("&&", cond, self.rng.choice(options))
        return (Assume(cond),) if ceval(cond, values) else None

    def assume_loop(self, point: Point) -> tuple[Node, ...] | None:
        """A condition on the iterators: one the loop's bounds imply, or a random one
        (kept only if every iteration keeps it: `place` runs the program)."""
        scope = point.scope
        if self.chance(0.5):
            return (Assume(self.g.condition(scope)),)
        v = Var(self.rng.choice(scope.iterators))
        p = self.g.param()
        cond: Cond = self.rng.choice((Cmp(">=", v, Const(0)), Cmp("<", v, Bin("+", p, Bin("+", p, Const(4)))),
                                      Cmp("<=", v, Bin("*", Const(3), p))))
        return (Assume(cond),)

    def kill(self, program: Program) -> Program:
        """`__pencil_kill(x);` after the last use of a temporary scalar or of an array."""
        members = {f for s in program.structs for f in s.fields}
        used = {r.name for scop in program.scops for n in walk_nodes(scop) for r in node_refs(n)}
        arrays = [a.name for a in program.arrays if a.name in used and a.name not in members
                  and a.name not in program.globals and a.name not in program.killed]
        dumped_rest = len(arrays) - 1 + sum(1 for s in program.scalars if s.inout and s.name in used) \
            + sum(1 for a in program.arrays if a.name in members and a.name in used)
        candidates = [s.name for s in program.scalars if s.temporary and s.name in used]
        if dumped_rest >= 1:
            candidates += arrays
        if not candidates:
            return program
        name = self.rng.choice(candidates)
        k = max(k for k, scop in enumerate(program.scops)
                if any(r.name == name for n in walk_nodes(scop) for r in node_refs(n)))
        scop = program.scops[k]
        last = max(i for i, node in enumerate(scop)
                   if any(r.name == name for n in walk_nodes((node,)) for r in node_refs(n)))
        scops = list(program.scops)
        scops[k] = insert_nodes(scop, (), last + 1, (Kill((name,)),))
        killed = program.killed + ((name,) if name in arrays else ())
        candidate = replace(program, scops=tuple(scops), killed=killed)
        return candidate if _fits(candidate) else program

    # -- member arrays to declared-only functions -------------------------------------
    def member_calls(self, program: Program) -> Program:
        """A new array of structs with a member array and a scalar member, the member's
        rows and whole blocks passed to declared-only functions."""
        struct = next((n for n in ("grid", "tiles", "cells2", "grid_1") if n not in self.taken), None)
        if struct is None:
            return program
        a_name, w_name = self.fresh("ma"), self.fresh("mw")
        self.taken.add(struct)
        t = self.rng.choice([a.ctype for a in self.g.arrays] + ["int"])
        rank = self.rng.choice((1, 2))
        rows, cols = self.rng.randint(2, 4), self.rng.randint(2, 5)
        outer = ITERATORS[:rank]
        k, q = ITERATORS[rank], ITERATORS[rank + 1]
        bounds = [self.g.param()] + [Const(self.rng.randint(2, 4))] * (rank - 1)
        its = tuple(Var(v) for v in outer)
        scope0 = _Scope()

        def nest(names, body_scope_body):
            def build(level: int, scope: _Scope):
                if level == len(names):
                    return body_scope_body(scope)
                var, hi = names[level]
                inner = replace(scope, iterators=scope.iterators + (var,))
                return (Loop(var, Const(0), hi, build(level + 1, inner), 1),)
            return build(0, scope0)

        element = Ref(a_name, its + (Var(k), Var(q)))
        fill = nest(list(zip(outer, bounds)) + [(k, Const(rows)), (q, Const(cols))],
                    lambda s: (Assign(element, "=", self.value(replace(s, target=None), t)),))
        a_decl, w_decl = ArrayDecl(a_name, t, rank + 2), ArrayDecl(w_name, "double", rank)
        self.g.arrays += [a_decl, w_decl]
        nodes: list[Node] = list(fill)
        factor = Num(self.rng.choice((2, 3)), "int") if t == "int" else Num(self.rng.choice((0.5, 0.75)), t)
        row_form, block_form = self.draw(0.8), self.draw(0.8)
        if not row_form and not block_form:
            row_form = block_form = True
        w = Ref(w_name, its)
        if row_form:
            row = Ptr(Ref(a_name, its + (Var(k),)))
            if self.chance(0.6):
                body = lambda s: (ExtCall(f"ext_scale_row_{t}", (Extent(a_name), row, factor)),)  # noqa: E731
            else:
                body = lambda s: (Assign(w, "+=", Call(f"ext_mean_row_{t}", (Extent(a_name), row))),)  # noqa: E731
            nodes += nest(list(zip(outer, bounds)) + [(k, Const(rows))], body)
        block = Ptr(Ref(a_name, its))
        if block_form and self.chance(0.5):
            nodes += nest(list(zip(outer, bounds)), lambda s: (ExtCall(f"ext_scale_block_{t}", (block, factor)),))
        total = Call(f"ext_sum_block_{t}", (block,)) if block_form else Ref(a_name, its + (Const(0), Const(0)))
        nodes += nest(list(zip(outer, bounds)),
                      lambda s: (Assign(w, "=", _plus_quarter(self.value(replace(s, target=w), "double"), total)),))
        candidate = self.place(program, lambda p: tuple(nodes), lambda p: p.top)
        if candidate is program:
            return program
        structs = program.structs + (StructDecl(struct, (a_name, w_name), rank),)
        return replace(candidate, arrays=candidate.arrays + (a_decl, w_decl), structs=structs,
                       notes=candidate.notes + (f"struct {struct}: {a_name}, {w_name} (member calls)",))

    # -- C99-only declarators and headers -------------------------------------------------
    def c_only(self, program: Program) -> Program:
        headers = tuple(h for h in HEADERS if self.draw(0.6)) or (self.rng.choice(HEADERS),)
        helpers = self.rng.choice((("static", "const"), ("static", "const"), ("static",), ("const",)))
        return replace(program, c_only=headers + helpers)


def _plus_quarter(value: DExpr, extra: DExpr) -> DExpr:
    return Arith("+", value, Arith("*", Num(0.25), extra))


def add_forms(program: Program, gen: Generator, seed: str, features: Features) -> Program:
    """`program` with the forms, from a random stream of their own."""
    rng = random.Random(f"forms:{seed}")
    draws = {name: rng.random() < p for name, p in CHANCES.items()}   # drawn whatever the features
    forms = Forms(gen, rng, features, program)
    for name in CHANCES:
        # member calls are calls of declared-only functions: off with `external` too
        if name == "member_calls" and not features.external:
            continue
        if getattr(features, name) and (draws[name] or features.forms_always):
            program = getattr(forms, name)(program)
    return program


# -- printing --------------------------------------------------------------------------
PENCIL_DECLARATIONS = {
    "imin": ("int imin(int a, int b);", "int imin(int a, int b) { return a < b ? a : b; }"),
    "imax": ("int imax(int a, int b);", "int imax(int a, int b) { return a > b ? a : b; }"),
    "umin": ("unsigned umin(unsigned a, unsigned b);", "unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }"),
    "umax": ("unsigned umax(unsigned a, unsigned b);", "unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }"),
    "__pencil_assume": ("void __pencil_assume(int condition);",
                        "void __pencil_assume(int condition) { (void) condition; }"),
    "__pencil_kill": ("void __pencil_kill();", "void __pencil_kill() {}"),
}


def pencil_used(program: Program) -> list[str]:
    """PENCIL's built-ins the program calls, in a stable order."""
    used: set[str] = set()
    for obj in _walk(program.scops):
        if isinstance(obj, MinMax) and obj.fn:
            used.add(obj.fn)
        elif isinstance(obj, Call) and obj.fn in MIN_MAX_FNS:
            used.add(obj.fn)
        elif isinstance(obj, Assume):
            used.add("__pencil_assume")
        elif isinstance(obj, Kill):
            used.add("__pencil_kill")
    return [name for name in PENCIL_DECLARATIONS if name in used]


def pencil_prototypes(program: Program) -> list[str]:
    return [PENCIL_DECLARATIONS[name][0] for name in pencil_used(program)]


def pencil_library(program: Program) -> str | None:
    """Their definitions, for the second file (gcc's builds only: ppcg-py reads the calls)."""
    used = pencil_used(program)
    if not used:
        return None
    return "\n".join(["/* PENCIL's built-ins (tests/fuzz/forms.py): ppcg-py prints none of them. */",
                      *(PENCIL_DECLARATIONS[name][1] for name in used), ""])


def c_only_includes(program: Program) -> list[str]:
    return [f"#include <{h}>" for h in HEADERS if h in program.c_only]


def c_only_helpers(program: Program) -> list[str]:
    """Helpers of main with C99-only array parameters (never in a SCoP)."""
    out: list[str] = []
    if "static" in program.c_only:
        clear = ["  memset(a, 0, 4 * sizeof a[0]);"] if "string.h" in program.c_only else []
        out += ["static void c99_fill(int a[static 4], int v)", "{", *clear,
                "  for (int q = 0; q < 4; q++)", "    a[q] = (v * (q + 1)) % 97;", "}", ""]
    if "const" in program.c_only:
        acc = "int32_t" if "stdint.h" in program.c_only else "int"
        out += ["static int c99_sum(const int a[const 4])", "{", f"  {acc} s = 0;",
                "  for (int q = 0; q < 4; q++)", "    s += a[q];", "  return (int) s;", "}", ""]
    return out


def c_only_main(program: Program) -> list[str]:
    """Lines of main, after the SCoPs' calls, that run those helpers (dumped as c99_box)."""
    if not program.c_only:
        return []
    v = program.params[0][1]
    out = ["  static int c99_box[5];"]
    if "static" in program.c_only:
        out.append(f"  c99_fill(c99_box, {v});")
    else:
        out.append(f"  for (int q = 0; q < 4; q++) c99_box[q] = {v} + q;")
    out.append("  c99_box[4] = c99_sum(c99_box);" if "const" in program.c_only
               else "  c99_box[4] = c99_box[0] + c99_box[3];")
    return out


def forms_of(program: Program) -> frozenset[str]:
    """Which forms a program has (from the program itself)."""
    found = set()
    objs = list(_walk(program.scops))
    if any(isinstance(o, Call) and (o.fn in ("rule", "clip") or o.fn.startswith("first_at_least_")) for o in objs) \
            or any(isinstance(o, Assign) and o.helper == "settle" for o in objs):
        found.add("early_returns")
    if pencil_used(program):
        found.add("pencil")
    if any(isinstance(o, (ExtCall, Call)) and "_block_" in o.fn for o in objs):
        found.add("member_calls")
    if program.c_only:
        found.add("c_only")
    return frozenset(found)


__all__ = ["add_forms", "forms_of", "pencil_prototypes", "pencil_library", "c_only_includes",
           "c_only_helpers", "c_only_main"]
