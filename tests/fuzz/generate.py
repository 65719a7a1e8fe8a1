"""Random static-control programs.

`generate(seed)` is deterministic in its seed. The shapes aim at what breaks
polyhedral compilers: imperfect nests 1-4 deep, triangular, skewed and min/max
bounds, decreasing and strided loops, affine and modulo conditions, stencil
reads next to the written element, reductions into arrays and scalars, several
arrays of mixed element types, temporaries declared inside the SCoP, chained
assignments, casts and math functions, two SCoPs in one function or in two.
`idioms` then inserts shapes that a dependence model must get right (scalars
reused, accumulated, carried or live after a loop; locals assigned late, nested
and shadowing; one array read at two footprints or at a parameter's shift),
from a random stream of its own, so the program built here stays what the seed
gave before them; `external` then inserts calls of functions the program only
declares (defined in a second file, see external.py), from a stream of its own too;
`forms` finally adds forms of real C the front end learnt (PENCIL's built-ins,
member arrays passed to declared-only functions, C99-only declarators and system
headers, helpers with early returns) to the program that fits, from a third stream.

Values stay bounded so that a program never depends on overflow: integer
assignments are reduced modulo 1009, integer multiplications use small
constants; floating-point right-hand sides are mostly convex combinations.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace

from .dynamic import add_dynamic_control
from .interp import TooManyInstances, UndefinedRead, footprint
from .program import (
    StructDecl,
    Arith,
    ArrayDecl,
    Assign,
    Bin,
    Call,
    CastTo,
    Cmp,
    Cond,
    Const,
    DExpr,
    IExpr,
    If,
    Index,
    Local,
    Logic,
    Loop,
    MinMax,
    Node,
    Not,
    Num,
    Program,
    Ref,
    ScalarDecl,
    Select,
    Var,
    used_names,
)

PRIMES = (5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43)
ITERATORS = ("i", "j", "k", "l")
TRICKY = ("c0", "t0", "b0", "dev_A", "c1")
INSTANCE_BUDGET = 12_000
TYPE_WEIGHTS = (("double", 45), ("float", 30), ("int", 25))
COEFFICIENTS = (0.5, 0.25, 0.125, 0.375, 0.75, 0.3, 0.2)


@dataclass(frozen=True)
class Features:
    """Language features the generator may use (turned off to isolate a bug:
    `python -m fuzz --without locals`)."""

    locals: bool = True
    chains: bool = True
    casts: bool = True
    math: bool = True
    multi_scop: bool = True
    tricky_names: bool = True
    scalar_flow: bool = True     # scalars reused, accumulated, carried, live after a loop (`idioms`)
    local_scopes: bool = True    # locals assigned after their declaration, nested, shadowing
    array_overlap: bool = True   # one array read twice, in place, at a parameter-dependent shift
    dynamic: bool = True         # ifs on array values, while loops that stop early on them (`dynamic`)
    calls: bool = True           # calls of helper functions of the file (values, element updates, rows)
    structs: bool = True         # two or three arrays become the members of one array of structs
    flat: bool = True            # arrays passed as pointers, addressed `A[(i) * A_ld1 + (k)]` (`_with_flat`)
    external: bool = True        # calls of functions the file only declares, defined in a second file
    empty: bool = True           # `#pragma scop` regions with nothing or only a declaration in them
    bitwise: bool = True         # integer updates `^=`, `|=`, `&=` (reductions of every exact operator)
    products: bool = True        # matrix-product nests into a new array (`idioms.product`: register blocks)
    stencils: bool = True        # a time loop around sweeps over new grids (`idioms.stencil`)
    # forms of real C the front end learnt (`forms`, a random stream of their own):
    early_returns: bool = True   # helpers of the file that return before their end
    pencil: bool = True          # imin/imax/umin/umax, __pencil_assume, __pencil_kill
    member_calls: bool = True    # member arrays of struct elements passed to declared-only functions
    c_only: bool = True          # `int a[static 4]`, `const int a[const 4]`, <omp.h> and other headers
    forms_always: bool = False   # every one of those forms in every program (tests, aimed campaigns)
    stencils_always: bool = False  # a stencil in every program that has room (aimed campaigns: time tiles)


@dataclass
class _Scope:
    """What a statement at one place may use.

    `locals` lists the locals in scope, outermost first (a later entry of the same
    name hides an earlier one, as in C). `hidden` holds names that must not be read
    here: a local declared without a value and not yet assigned (it hides the outer
    name too), or the name a declaration's own initialiser would see. `defined`
    holds the uninitialised temporaries that every path to here has assigned.
    """

    iterators: tuple[str, ...] = ()
    locals: tuple[tuple[str, str], ...] = ()   # (name, ctype) visible here
    target: Ref | None = None                  # the statement's written reference
    hidden: frozenset[str] = frozenset()
    defined: frozenset[str] = frozenset()

    def visible_locals(self) -> dict[str, str]:
        """name -> type of the locals a read refers to (innermost wins)."""
        return {n: t for n, t in self.locals if n not in self.hidden}


class Generator:
    def __init__(self, rng: random.Random, features: Features) -> None:
        self.rng = rng
        # the bitwise updates draw from a generator of their own, seeded from this one's
        # state, so that every other choice of a seed's program stays what it was
        self.bitwise_rng = random.Random(rng.getstate()[1][0])
        self.f = features
        self.base = self._weighted(TYPE_WEIGHTS)
        names = ["n", "m", "p"][: rng.randint(1, 3)]
        self.params = [(n, rng.choice(PRIMES[:9])) for n in names]
        self.arrays = self._arrays()
        self.scalars = self._scalars()
        self.local_count = 0

    # -- helpers ----------------------------------------------------------
    def _weighted(self, pairs):
        total = sum(w for _, w in pairs)
        x = self.rng.uniform(0, total)
        for value, w in pairs:
            x -= w
            if x <= 0:
                return value
        return pairs[-1][0]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def _arrays(self) -> list[ArrayDecl]:
        names = ["A", "B", "C", "D"][: self.rng.randint(1, 4)]
        if self.f.tricky_names and self.chance(0.1):
            names[self.rng.randrange(len(names))] = self.rng.choice(TRICKY)
        arrays = []
        for name in names:
            rank = self._weighted(((1, 35), (2, 45), (3, 20)))
            ctype = self.base if self.chance(0.8) else self._weighted(TYPE_WEIGHTS)
            arrays.append(ArrayDecl(name, ctype, rank, open_outer=self.chance(0.1)))
        return arrays

    def _scalars(self) -> list[ScalarDecl]:
        out = [ScalarDecl("alpha", self.base if self.base != "int" else "double", 1.5, False)]
        if self.chance(0.4):
            out.append(ScalarDecl("beta", self.base, 0.75 if self.base != "int" else 3, False))
        if self.chance(0.5):
            out.append(ScalarDecl("s", self.base, 0.5 if self.base != "int" else 2, True))
        if self.chance(0.25):
            out.append(ScalarDecl("acc", self.base, 0.0, True))
        return out

    def two_iterators(self, its: tuple[str, ...]) -> tuple[Var, Var]:
        """Two iterators, distinct when there are two to choose from."""
        if len(its) == 1:
            return Var(its[0]), Var(its[0])
        a, b = self.rng.sample(its, 2)
        return Var(a), Var(b)

    def param(self) -> Var:
        return Var(self.rng.choice(self.params)[0])

    # -- integer expressions ----------------------------------------------
    def lower(self, scope: _Scope) -> IExpr:
        its = scope.iterators
        o = Var(self.rng.choice(its)) if its else None
        c = self.rng.randint(1, 3)
        options: list[tuple[IExpr, int]] = [(Const(0), 8), (Const(1), 2), (Const(2), 1),
                                            (Bin("-", self.param(), Const(c + 2)), 1)]
        if o is not None:
            options += [(o, 4), (Bin("+", o, Const(1)), 2),
                        (MinMax("MAX", Const(0), Bin("-", o, Const(c))), 2),
                        (MinMax("MAX", Const(1), Bin("-", Bin("+", o, Const(c)), self.param())), 1)]
        return self._weighted(options)

    def upper(self, scope: _Scope) -> IExpr:
        its = scope.iterators
        o = Var(self.rng.choice(its)) if its else None
        p = self.param()
        c = self.rng.randint(1, 3)
        options: list[tuple[IExpr, int]] = [(p, 8), (Bin("-", p, Const(c)), 2), (Bin("+", p, Const(c)), 1),
                                            (Const(self.rng.randint(3, 9)), 1),
                                            (Bin("/", Bin("+", p, Const(c)), Const(2)), 1)]
        if o is not None:
            options += [(o, 3), (Bin("+", o, Const(c)), 2), (MinMax("MIN", p, Bin("+", o, Const(c))), 2),
                        (Bin("+", o, p), 1), (Bin("-", Bin("+", p, self.param()), o), 1),
                        (Bin("*", Const(2), o), 1), (MinMax("MAX", o, Bin("-", p, Const(c))), 1)]
        return self._weighted(options)

    def subscript(self, scope: _Scope, plain: bool) -> IExpr:
        its = scope.iterators
        if not its:
            return Const(self.rng.randint(0, 3))
        v = Var(self.rng.choice(its))
        if plain:
            return v
        v, w = self.two_iterators(its)
        c = self.rng.randint(-2, 2) or 1
        return self._weighted(((v, 6), (Bin("+", v, Const(c)), 4), (Bin("+", v, w), 2),
                               (Bin("-", v, w), 1), (Bin("*", Const(2), v), 1),
                               (Bin("/", v, Const(2)), 1), (Bin("%", v, Const(3)), 1),
                               (Bin("-", Bin("-", self.param(), Const(1)), v), 1),
                               (Const(self.rng.randint(0, 3)), 1)))

    def condition(self, scope: _Scope) -> Cond:
        its = scope.iterators
        a, b = self.two_iterators(its)
        op = self.rng.choice(("<", "<=", ">", ">=", "!=", "=="))
        cond: Cond = self._weighted((
            (Cmp(op, a, b), 3 if a != b else 0),
            (Cmp(op, a, Bin("-", self.param(), Const(self.rng.randint(1, 4)))), 3),
            (Cmp("==", Bin("%", Bin("+", a, b), Const(self.rng.randint(2, 3))), Const(0)), 2),
            (Cmp("<=", Bin("+", a, b), self.param()), 2),
            (Cmp(op, a, Const(self.rng.randint(1, 6))), 2)))
        if self.chance(0.2):
            other = Cmp(self.rng.choice(("<", ">=", "!=")), b, Const(self.rng.randint(1, 5)))
            cond = Logic(self.rng.choice(("&&", "||")), cond, other)
        if self.chance(0.1):
            cond = Not(cond)
        return cond

    # -- data ---------------------------------------------------------------
    def literal(self, ctype: str) -> Num:
        if ctype == "int":
            return Num(self.rng.randint(1, 7), "int")
        kind = ctype if ctype == "double" or self.chance(0.5) else "double"
        return Num(self.rng.choice(COEFFICIENTS), kind)

    def read(self, scope: _Scope, ctype: str) -> DExpr:
        """A leaf: an array element, a scalar, a local, an index or a literal."""
        candidates: list[tuple[object, int]] = []
        arrays = [a for a in self.arrays if ctype != "int" or a.ctype == "int"]
        if arrays:
            candidates.append(("array", 8))
        scalars = [s for s in self.readable_scalars(scope) if ctype != "int" or s.ctype == "int"]
        if scalars:
            candidates.append(("scalar", 2))
        locs = [n for n, t in scope.visible_locals().items() if ctype != "int" or t == "int"]
        if locs:
            candidates.append(("local", 4))
        if scope.iterators:
            candidates.append(("index", 1))
        candidates.append(("literal", 1))
        kind = self._weighted(candidates)
        if kind == "array":
            arr = self.rng.choice(arrays)
            t = scope.target
            if t is not None and t.name == arr.name and self.chance(0.6):
                subs = list(t.subs)
                d = self.rng.randrange(len(subs))
                subs[d] = Bin("+", subs[d], Const(self.rng.choice((-1, 1))))
                return Ref(arr.name, tuple(subs))
            return Ref(arr.name, tuple(self.subscript(scope, self.chance(0.5)) for _ in range(arr.rank)))
        if kind == "scalar":
            return Ref(self.rng.choice(scalars).name)
        if kind == "local":
            return Ref(self.rng.choice(locs))
        if kind == "index":
            return Index(self.subscript(scope, self.chance(0.5)))
        return self.literal(ctype)

    def value(self, scope: _Scope, ctype: str, depth: int = 0) -> DExpr:
        """A bounded expression of type `ctype`."""
        if ctype == "int":
            terms = [self.int_term(scope, depth) for _ in range(self.rng.randint(1, 3))]
            total = terms[0]
            for t in terms[1:]:
                total = Arith(self.rng.choice("+-"), total, t)
            return total
        terms = [self.float_term(scope, ctype, depth) for _ in range(self.rng.randint(1, 3))]
        total = terms[0]
        for t in terms[1:]:
            total = Arith("+" if self.chance(0.7) else "-", total, t)
        return total

    def int_term(self, scope: _Scope, depth: int) -> DExpr:
        leaf = self.read(scope, "int")
        roll = self.rng.random()
        if roll < 0.25:
            return Arith("*", Num(self.rng.randint(2, 7), "int"), leaf)
        if roll < 0.35:
            return Arith("/", leaf, Num(self.rng.randint(2, 5), "int"))
        if roll < 0.45 and depth < 1:
            return Select(self.rng.choice(("<", ">", "==")), leaf, self.read(scope, "int"),
                          self.read(scope, "int"), Num(self.rng.randint(0, 9), "int"))
        if roll < 0.52 and self.f.calls:
            return self.helper_call(scope, "int", leaf)
        return leaf

    def float_term(self, scope: _Scope, ctype: str, depth: int) -> DExpr:
        leaf = self.read(scope, ctype)
        roll = self.rng.random()
        if roll < 0.4:
            return Arith("*", self.literal(ctype), leaf)
        if roll < 0.55:
            return Arith("*", leaf, self.read(scope, ctype))
        if roll < 0.7 and self.f.math:
            return self.math(leaf, ctype)
        if roll < 0.78 and depth < 1:
            return Select(self.rng.choice(("<", ">", "<=")), leaf, self.literal(ctype),
                          self.value(scope, ctype, depth + 1), self.read(scope, ctype))
        if roll < 0.84 and self.f.casts:
            return CastTo(self.rng.choice(("float", "double")), leaf)
        if roll < 0.88:
            return Arith("/", leaf, Num(self.rng.choice((2.0, 4.0, 3.0)), "double"))
        if roll < 0.93 and self.f.calls:
            return self.helper_call(scope, ctype, leaf)
        return leaf

    def helper_call(self, scope: _Scope, ctype: str, leaf: DExpr) -> DExpr:
        """A call of a value helper of the file (render.HELPERS), sometimes nested."""
        fn = {"int": "imix", "float": "mixf"}.get(ctype) or ("twice_mix" if self.chance(0.3) else "mix")
        call = Call(fn, (leaf, self.read(scope, ctype)))
        if self.chance(0.25):
            call = Call(fn, (call, self.read(scope, ctype)) if self.chance(0.5) else (self.read(scope, ctype), call))
        return call

    def math(self, x: DExpr, ctype: str) -> DExpr:
        fabs = Call("fabs", (x,))
        options = (Call("sqrt", (fabs,)), fabs, Call("exp", (Arith("*", Num(-0.5, "double"), fabs),)),
                   Call("pow", (x, Num(2.0, "double"))), Call("sin", (x,)), Call("cos", (x,)),
                   Call("floor", (x,)), Call("fmax", (x, self.literal(ctype))))
        return self.rng.choice(options)

    # -- statements ---------------------------------------------------------
    def readable_scalars(self, scope: _Scope) -> list[ScalarDecl]:
        """The function's scalars a read may use here: not hidden or shadowed by a
        local, and holding a value (an uninitialised temporary only once assigned)."""
        shadowed = {n for n, _ in scope.locals} | scope.hidden
        return [s for s in self.scalars if s.name not in shadowed
                and (s.initialised or not s.temporary or s.name in scope.defined)]

    def readable(self, name: str, scope: _Scope) -> bool:
        """Whether `name` (a scalar or local) holds a value here."""
        if name in scope.hidden:
            return False
        if name in scope.visible_locals():
            return True
        return any(s.name == name for s in self.readable_scalars(scope))

    def target(self, scope: _Scope) -> Ref:
        written = [s for s in self.scalars if s.written and s.name not in scope.hidden]
        if written and self.chance(0.15):
            return Ref(self.rng.choice(written).name)
        arr = self.rng.choice(self.arrays)
        plain = self.chance(0.7)
        return Ref(arr.name, tuple(self.subscript(scope, plain) for _ in range(arr.rank)))

    def ctype_of(self, name: str, scope: _Scope) -> str:
        """The type `name` has here: a local hides an array or scalar of the function."""
        innermost = dict(scope.locals)
        if name in innermost:
            return innermost[name]
        for a in self.arrays:
            if a.name == name:
                return a.ctype
        for s in self.scalars:
            if s.name == name:
                return s.ctype
        raise KeyError(name)

    def statement(self, scope: _Scope) -> Assign:
        target = self.target(scope)
        ctype = self.ctype_of(target.name, scope)
        inner = _Scope(scope.iterators, scope.locals, target)
        rhs = self.value(inner, ctype)
        op = self._weighted((("=", 6), ("+=", 3), ("-=", 1), ("*=", 1 if ctype != "int" else 0)))
        if not target.subs and not self.readable(target.name, scope):
            op = "="  # an update would read a scalar that has no value yet
        if ctype == "int" and op == "+=" and self.f.bitwise and self.bitwise_rng.random() < 0.4:
            op = self.bitwise_rng.choice(("^=", "|=", "&="))   # exact reductions: GPU threads combine them
        if ctype == "int":
            rhs = Arith("%", rhs, Num(1009, "int"))
        elif op == "*=":
            rhs = Arith("+", Num(0.5, "double"), Arith("*", Num(0.25, "double"), self.read(inner, ctype)))
        if self.f.calls and target.subs and self.chance(0.05):
            return Assign(target, "+=", rhs, None, helper="bump")   # bump_T(&A[..], rhs)
        chain = None
        if op == "=" and self.f.chains and self.chance(0.06):
            same = [a for a in self.arrays if a.ctype == ctype and a.name != target.name]
            if same:
                arr = self.rng.choice(same)
                chain = Ref(arr.name, tuple(self.subscript(scope, True) for _ in range(arr.rank)))
        return Assign(target, op, rhs, chain)

    def block(self, scope: _Scope, depth_left: int, size: int, ifs: int = 0) -> tuple[Node, ...]:
        items: list[Node] = []
        if scope.iterators and self.f.locals and self.chance(0.15):
            ctype = self.base
            self.local_count += 1
            name = self.rng.choice(("tmp", "t", "v")) + ("" if self.chance(0.7) else str(self.local_count))
            if name not in {n for n, _ in scope.locals}:
                init = self.value(scope, ctype)
                if ctype == "int":
                    init = Arith("%", init, Num(1009, "int"))
                items.append(Local(ctype, name, init))
                scope = _Scope(scope.iterators, scope.locals + ((name, ctype),))
        for _ in range(size):
            roll = self.rng.random()
            row = self.row_update(scope) if self.f.calls and roll < 0.03 else None
            if row is not None:
                items.append(row)
            elif depth_left > 0 and roll < 0.45:
                items.append(self.loop(scope, depth_left))
            elif scope.iterators and ifs < 2 and roll < 0.58:
                then = self.block(scope, depth_left, self.rng.randint(1, 2), ifs + 1)
                orelse = self.block(scope, depth_left, 1, ifs + 1) if self.chance(0.35) else ()
                items.append(If(self.condition(scope), then, orelse))
            else:
                items.append(self.statement(scope))
        return tuple(items)

    def row_update(self, scope: _Scope) -> Loop | None:
        """`row_update_T(R[..], S[..], p);`: a helper of the file with a loop that updates
        a row of R from a row of S (the same array or another of its type)."""
        if not scope.iterators or len(scope.iterators) >= len(ITERATORS):
            return None
        rows = [a for a in self.arrays if a.rank >= 2 and not a.open_outer]
        if not rows:
            return None
        target = self.rng.choice(rows)
        sources = [a for a in rows if a.ctype == target.ctype and a.rank == target.rank]
        source = self.rng.choice(sources)
        q = ITERATORS[len(scope.iterators)]
        lead = tuple(self.subscript(scope, True) for _ in range(target.rank - 1))
        other = tuple(self.subscript(scope, self.chance(0.5)) for _ in range(source.rank - 1))
        r = Ref(target.name, lead + (Var(q),))
        half, quarter = (Num(0.5, "double"), Num(0.25, "double")) if target.ctype != "int" \
            else (Num(1, "int"), Num(2, "int"))
        rhs = Arith("+", Arith("*", half, r), Arith("*", quarter, Ref(source.name, other + (Var(q),))))
        if target.ctype == "int":
            rhs = Arith("%", rhs, Num(1009, "int"))
        return Loop(q, Const(0), self.param(), (Assign(r, "=", rhs),), 1, helper="row")

    def loop(self, scope: _Scope, depth_left: int) -> Loop:
        var = ITERATORS[len(scope.iterators)]
        lo, hi = self.lower(scope), self.upper(scope)
        step = self._weighted(((1, 14), (-1, 4), (2, 1), (-2, 1)))
        inner = _Scope(scope.iterators + (var,), scope.locals)
        body = self.block(inner, depth_left - 1, self.rng.randint(1, 3 if depth_left > 1 else 2))
        return Loop(var, lo, hi, body, step, inclusive=self.chance(0.25))

    def scop(self, max_depth: int) -> tuple[Node, ...]:
        nests = self.rng.randint(1, 3)
        return tuple(self.loop(_Scope(), self.rng.randint(1, max_depth)) for _ in range(nests))


def _fits(program: Program) -> int | None:
    """The program's statement instances; None past the budget, 0 (the attempt is
    dropped) where it reads a value it never wrote (a rare mix of the enrichments:
    fuzz 2814:679 read a branch's scalar on a path that skipped its write)."""
    try:
        return footprint(program, INSTANCE_BUDGET).instances
    except TooManyInstances:
        return None
    except UndefinedRead:
        return 0


def _smaller_prime(value: int) -> int:
    below = [p for p in PRIMES if p < value]
    return below[-1] if below else PRIMES[0]


def generate(seed: int | str, features: Features | None = None) -> Program:
    """A random program that runs between 1 and INSTANCE_BUDGET statement instances."""
    features = features if features is not None else Features()
    rng = random.Random(f"program:{seed}")
    for _attempt in range(50):
        gen = Generator(rng, features)
        max_depth = gen._weighted(((1, 1), (2, 3), (3, 3), (4, 2)))
        n_scops = 2 if features.multi_scop and gen.chance(0.15) else 1
        scops = tuple(gen.scop(max_depth) for _ in range(n_scops))
        program = Program(tuple(gen.params), tuple(gen.arrays), tuple(gen.scalars), scops,
                          split_functions=n_scops > 1 and gen.chance(0.4),
                          minmax_macros=gen.chance(0.7), iterators_in_for=gen.chance(0.7))
        program = enrich(program, gen, str(seed), _attempt, features)
        program = _with_stencil(program, gen, str(seed), _attempt, features)
        if features.external:
            from .external import add_external_calls
            program = add_external_calls(program, gen, f"{seed}:{_attempt}")
        if features.dynamic:
            program = add_dynamic_control(program, f"{seed}:{_attempt}")
        if features.structs:
            program = _with_struct(program, random.Random(f"structs:{seed}:{_attempt}"))
        if features.flat:
            program = _with_flat(program, random.Random(f"flat:{seed}:{_attempt}"))
        if features.empty:
            program = _with_empty_scops(program, random.Random(f"empty:{seed}:{_attempt}"))
        for _shrink in range(6):
            count = _fits(program)
            if count is not None:
                if count > 0:
                    from .forms import add_forms
                    return _flat_without_pointers(add_forms(program, gen, f"{seed}:{_attempt}", features))
                break
            smaller = tuple((n, _smaller_prime(v)) for n, v in program.params)
            program = replace(program, params=smaller)
    raise RuntimeError(f"no program fits the budget for seed {seed}")


def _with_struct(program: Program, rng: random.Random) -> Program:
    """With a modest probability, two or three of the arrays become the members of one
    array of structs (render.py prints `rec[i].A[k]` for `A[i][k]`). The program's
    semantics stay those of separate arrays, as members never overlap: nothing else
    changes, and the interpreter sees the arrays it always did."""
    from .external import pointer_arrays
    if rng.random() >= 0.25:
        return program
    # a global, or an array passed by pointer to a declared-only function, stays an array
    apart = set(program.globals) | pointer_arrays(program)
    arrays = [a for a in program.arrays if a.name not in apart]
    if len(arrays) < 2:
        return program
    members = rng.sample(arrays, min(len(arrays), rng.randint(2, 3)))
    rank = min(a.rank for a in members)
    if rng.random() < 0.3 and rank > 1:
        rank -= 1     # every member an array member
    taken = {a.name for a in program.arrays} | {s.name for s in program.scalars} | {n for n, _ in program.params}
    name = next(n for n in ("rec", "pts", "cells", "rec_1") if n not in taken)
    order = [a.name for a in program.arrays if a in members]
    return replace(program, structs=(StructDecl(name, tuple(order), rank),),
                   notes=program.notes + (f"struct {name}: {', '.join(order)}",))


def _with_flat(program: Program, rng: random.Random) -> Program:
    """With a modest probability, one or two arrays of two or three dimensions are passed
    as pointers to their first element and addressed as flat sequences, their row
    lengths parameters of the function (render.py). The program's semantics are those
    of the arrays it had: only the C changes, and ppcg-py must read the rows back."""
    from .external import pointer_arrays
    if rng.random() >= 0.3:
        return program
    members = {f for st in program.structs for f in st.fields}
    apart = set(program.globals) | pointer_arrays(program) | members | set(program.killed) | _not_affine(program)
    arrays = [a.name for a in program.arrays if a.rank >= 2 and not a.open_outer and a.name not in apart]
    if not arrays:
        return program
    chosen = tuple(sorted(rng.sample(arrays, min(len(arrays), rng.randint(1, 2)))))
    return replace(program, flat=chosen, notes=program.notes + (f"flat: {', '.join(chosen)}",))


def _flat_without_pointers(program: Program) -> Program:
    """`program` without the flat arrays that the forms (added after them) pass as rows
    to helpers (ppcg-py inlines the helper, whose loop stops early: dynamic control, and
    cannot prove its index within the row) or kill whole (`__pencil_kill(D)`: an array of
    no declared size has no whole)."""
    from .external import pointer_arrays
    apart = pointer_arrays(program) | set(program.killed)
    return replace(program, flat=tuple(n for n in program.flat if n not in apart))


def _not_affine(program: Program) -> set[str]:
    """The arrays some reference subscripts with a variable no `for` loop around it runs
    (a `while` loop's, a helper's result): ppcg-py could not prove such a digit within
    its row, and refuses the program where the array is flat."""
    from .program import While, children, node_refs, variables
    params = {n for n, _ in program.params}
    found: set[str] = set()

    def visit(nodes, bound: frozenset[str]) -> None:
        for node in nodes:
            for ref in node_refs(node):
                if any(not {v.name for v in variables(sub)} <= bound | params for sub in ref.subs):
                    found.add(ref.name)
            inner = bound | {node.var} if isinstance(node, Loop) else bound
            for _, body in children(node):
                visit(body, inner if not isinstance(node, While) else frozenset())
    for scop in program.scops:
        visit(scop, frozenset())
    return found


def _with_empty_scops(program: Program, rng: random.Random) -> Program:
    """With a modest probability, one or two `#pragma scop` regions with nothing in them,
    or only a declaration without a value (`double unused1;`), after one of the SCoPs."""
    if rng.random() >= 0.4:
        return program
    taken = used_names(program) | {n for n, _ in program.params} | {s.name for s in program.scalars}
    empty = []
    for k in range(rng.randint(1, 2)):
        declaration = None
        if rng.random() < 0.5:
            name = next(f"unused{j}" for j in range(k + 1, 99) if f"unused{j}" not in taken)
            declaration = (rng.choice(("double", "float", "int")), name)
        empty.append((rng.randrange(len(program.scops)), declaration))
    return replace(program, empty_scops=tuple(empty))


def enrich(program: Program, gen: Generator, seed: str, attempt: int, features: Features) -> Program:
    """`program` with the idioms of `idioms` (imported here: it builds on this module)."""
    from .idioms import enrich as insert_idioms
    return insert_idioms(program, gen, seed, attempt, features)


def _with_stencil(program: Program, gen: Generator, seed: str, attempt: int, features: Features) -> Program:
    from .idioms import replace_arrays, with_stencil
    return with_stencil(program, replace_arrays(gen, program), seed, attempt, features)
