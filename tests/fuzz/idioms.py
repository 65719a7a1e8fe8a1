"""Idioms: small shapes of code that a dependence model must get right, inserted
into the programs `generate` builds.

The base generator writes statements one at a time, so a scalar is rarely
written and then read in the same iteration, accumulated in an inner loop and
read after it, or read before it is written (a value carried to the next
iteration); it declares locals only with a value and never hides a name. These
are the cases where a compiler may privatise a scalar, reorder live ranges, or
must keep the last value of a scalar that is live after a loop or the SCoP.
Each idiom builds one such shape from the generator's own random parts and
inserts it at a random place of the finished program:

    scalar flow    private    `t = A[i][j] * 2; B[i][j] = t + 1;`
    (scalar_flow)  accumulate `s = 0; for k: s += A[i][k]; C[i] = s;` (symm's temp2)
                   after_loop `t = 0; for i: t = A[i]; B[0] = t;`
                   carried    `for i: { B[i] = t; t = A[i]; }`
                   across     `t = ...;` in one SCoP, `B[i] = t;` in the next
    locals         assigned   `double t; ...; t = A[i] + 1; B[i] = t;`
    (local_scopes) shadow     `double s = A[i];` where `s` is an outer local or scalar
                   nested     `double a = ...; for k: { double b = a + ...; } C = a;`
    arrays         two_reads  `C[i][j] += A[i][k] * A[j][k]` in a new inner loop
    (array_overlap) in_place  `A[i][j] = A[i][j+1] + A[i+1][j]`
                   shifted    `for i < n/2: A[i] = A[i + (n+1)/2]` (halves), `A[i] = A[i + n/2]`
                   buffer     `for k: T[k] = ...; for k: B[i][k] = T[n-1-k];` (a temporary row)
    products       product    `for i, j: { P[i][j] *= c; for k: P[i][j] += A[i][k] * B[k][j]; }`
    (products)                into a new array: gemm's and syrk's shape, which the C target
                              keeps in register blocks (a stream of its own, after the others)
    stencils       stencil    a time loop around sweeps of 1 to 3 space dimensions over new
    (stencils)                arrays: Jacobi with two arrays (the second copied back, as
                              PolyBench), Jacobi in one array with a `% 2` time dimension (as
                              Pluto's examples), or Gauss-Seidel in place; the interior
                              `1 <= x < n - 1` of parameters no tile size divides (a stream of
                              its own, after the products); half of them a SCoP of their own,
                              the time loop around every statement (the shape tiled along
                              time), three in ten of constant extent; `stencils_always` puts
                              one in every program

The scalar idioms use the function's scalars (in-out ones, whose final value
the program dumps, and temporaries the SCoP alone uses, some declared without a
value) or new locals.

Defined behaviour by construction: a scalar is read only where every path has
given it a value (`points` rebuilds each place's scope: which locals are in
scope, hidden or assigned), a new local takes no name that a later statement
of its block refers to or that its block declares, and array extents come from
the footprint as for every program. `interp` checks the first again on every
run (UndefinedRead).

A random stream of its own chooses the idioms, so the base program is the one
the seed gave before they existed; with the three features off, every seed
gives the same program as before.
"""
from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from .generate import ITERATORS, Features, Generator, _Scope
from .program import (
    Arith,
    ArrayDecl,
    Assign,
    Bin,
    Const,
    DExpr,
    IExpr,
    If,
    Index,
    Local,
    Loop,
    Node,
    Num,
    Program,
    Ref,
    ScalarDecl,
    Var,
    insert_nodes,
    node_refs,
    walk_nodes,
)

TEMPORARY_NAMES = ("t", "tmp", "sum", "w")
LOCAL_NAMES = ("t", "tmp", "v", "x", "sum", "q")
INSERTIONS = ((0, 3), (1, 4), (2, 3), (3, 1))   # how many idioms a program gets, weighted
PRODUCT_CHANCE = 0.3
STENCIL_CHANCE = 0.2
STENCIL_ALONE_CHANCE = 0.5   # of those, a SCoP of its own: the time loop around every statement
STENCIL_CONSTANT_CHANCE = 0.3   # of those, the grid's extent a constant (relaxed scheduling problems)


@dataclass(frozen=True)
class Point:
    """A place between two statements of one list: the SCoP, the list's path
    (() for the SCoP's top level), the position in it and the scope there."""

    scop: int
    path: tuple
    pos: int
    scope: _Scope
    later: frozenset[str]      # names the rest of the list refers to or declares
    declared: frozenset[str]   # locals the list itself declares (C forbids a second one)

    @property
    def top(self) -> bool:
        """The SCoP's top level: the function's own block."""
        return not self.path


def points(program: Program, gen: Generator) -> list[Point]:
    """Every place a statement can go, with the scope a statement there sees."""
    out: list[Point] = []
    for k, scop in enumerate(program.scops):
        _list_points(out, k, (), scop, _Scope(), gen)
    return out


def _list_points(out: list[Point], k: int, path: tuple, nodes: tuple[Node, ...], scope: _Scope,
                 gen: Generator) -> None:
    declared = frozenset(n.name for n in nodes if isinstance(n, Local))
    pending: dict[str, str] = {}   # locals declared here without a value: name -> type
    for pos in range(len(nodes) + 1):
        later = frozenset(_names_in(nodes[pos:]))
        out.append(Point(k, path, pos, scope, later, declared))
        if pos == len(nodes):
            break
        node = nodes[pos]
        if isinstance(node, Loop):
            inner = replace(scope, iterators=scope.iterators + (node.var,))
            _list_points(out, k, path + (pos, "body"), node.body, inner, gen)
        elif isinstance(node, If):
            _list_points(out, k, path + (pos, "then"), node.then, scope, gen)
            _list_points(out, k, path + (pos, "orelse"), node.orelse, scope, gen)
        scope = _after(scope, node, pending, gen)


def _after(scope: _Scope, node: Node, pending: dict[str, str], gen: Generator) -> _Scope:
    """The scope after `node` in the same list."""
    if isinstance(node, Local):
        if node.init is None:
            pending[node.name] = node.ctype
            return replace(scope, hidden=scope.hidden | {node.name})
        return _with_local(scope, node.name, node.ctype)
    if isinstance(node, Assign) and not node.target.subs and node.op == "=":
        name = node.target.name
        if name in pending and name in scope.hidden:
            return _with_local(scope, name, pending.pop(name))
        if name not in scope.hidden and name not in dict(scope.locals) and _temporary(gen, name):
            return replace(scope, defined=scope.defined | {name})
    return scope


def _with_local(scope: _Scope, name: str, ctype: str) -> _Scope:
    return replace(scope, locals=scope.locals + ((name, ctype),), hidden=scope.hidden - {name})


def _temporary(gen: Generator, name: str) -> bool:
    return any(s.name == name and s.temporary for s in gen.scalars)


def _names_in(nodes: tuple[Node, ...]) -> set[str]:
    names = set()
    for node in walk_nodes(nodes):
        names.update(r.name for r in node_refs(node))
        if isinstance(node, Local):
            names.add(node.name)
    return names


# -- the idioms ------------------------------------------------------------------
Idiom = Callable[["Idioms", Point], "tuple[Node, ...] | None"]


@dataclass
class _Scalar:
    """The scalar an idiom works on: the nodes that declare it (or give it a value
    first), its name and type, and the scope after those nodes."""

    prefix: tuple[Node, ...]
    name: str
    ctype: str
    scope: _Scope


class Idioms:
    """Builds idioms with a generator of its own (the program's arrays and
    scalars, a separate random stream) and inserts them into a program."""

    def __init__(self, gen: Generator, rng: random.Random, features: Features) -> None:
        self.g = copy.copy(gen)
        self.g.rng = rng
        self.rng = rng
        self.f = features
        self.temporaries: list[ScalarDecl] = []
        self.g.scalars = list(gen.scalars)
        self.g.arrays = list(gen.arrays)
        self.buffers: list[ArrayDecl] = []
        self.constant_sizes = False     # a stencil's extent a constant, not a parameter
        self.taken = {a.name for a in gen.arrays} | {n for n, _ in gen.params} | set(ITERATORS) \
            | {s.name for s in gen.scalars}
        self.counter = 0

    # -- choosing --------------------------------------------------------------
    def kinds(self) -> list[tuple[Idiom, int]]:
        table: list[tuple[Idiom, int]] = []
        if self.f.scalar_flow:
            table += [(Idioms.private, 2), (Idioms.accumulate, 3), (Idioms.after_loop, 3), (Idioms.carried, 2)]
        if self.f.local_scopes and self.f.locals:
            table += [(Idioms.assigned, 1), (Idioms.shadow, 3), (Idioms.nested, 1)]
        if self.f.array_overlap:   # the base programs have the first two often already
            table += [(Idioms.two_reads, 1), (Idioms.in_place, 1), (Idioms.shifted, 3), (Idioms.buffer, 3)]
        return table

    def enrich(self, program: Program) -> Program:
        """`program` with a few idioms inserted."""
        table = self.kinds()
        if not table:
            return program
        # a new temporary or top-level local takes no name the program has
        self.taken |= {name for scop in program.scops for name in _names_in(scop)}
        for _ in range(self.g._weighted(INSERTIONS)):
            idiom = self.g._weighted(table)
            program = self.insert(program, idiom)
        if self.f.scalar_flow and len(program.scops) > 1 and not program.split_functions and self.chance(0.7):
            program = self.across(program)
        used = {r.name for scop in program.scops for n in walk_nodes(scop) for r in node_refs(n)}
        temporaries = tuple(s for s in self.temporaries if s.name in used)
        buffers = tuple(b for b in self.buffers if b.name in used)
        return replace(program, scalars=program.scalars + temporaries, arrays=program.arrays + buffers)

    def insert(self, program: Program, idiom: Idiom, where: Callable[[Point], bool] | None = None) -> Program:
        """`program` with one `idiom` at a random place it fits (of those `where`
        accepts; unchanged if none)."""
        places = [p for p in points(program, self.g) if where is None or where(p)]
        self.rng.shuffle(places)
        for point in places[:8]:
            nodes = idiom(self, point)
            if nodes:
                self.taken |= _names_in(nodes)   # a later temporary must not take a local's name
                scops = list(program.scops)
                scops[point.scop] = insert_nodes(scops[point.scop], point.path, point.pos, nodes)
                return replace(program, scops=tuple(scops))
        return program

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # -- scalars ----------------------------------------------------------------
    def flow_scalar(self, point: Point, *, value: bool, local: bool = True) -> _Scalar | None:
        """A scalar for a scalar idiom: a temporary, an in-out scalar or a new local
        (`local`). With `value`, it holds a value after the prefix."""
        scope = point.scope
        options: list[tuple[str, int]] = [("temporary", 4)]
        if any(s.inout for s in self.g.scalars):
            options.append(("inout", 2))
        if local and self.f.locals:
            options.append(("local", 3))
        kind = self.g._weighted(options)
        if kind == "local":
            return self.new_local(point, value=value)
        candidates = [s for s in self.g.scalars if (s.temporary if kind == "temporary" else s.inout)]
        if kind == "temporary" and (not candidates or self.chance(0.3)) and len(self.temporaries) < 2:
            candidates = [self.new_temporary()]
        candidates = [s for s in candidates if self.free(point, s.name)]
        if not candidates:
            return None
        decl = self.rng.choice(candidates)
        holds = decl.initialised or not decl.temporary or decl.name in scope.defined
        if value and not holds:
            init = Assign(Ref(decl.name), "=", self.g.literal(decl.ctype))
            return _Scalar((init,), decl.name, decl.ctype, replace(scope, defined=scope.defined | {decl.name}))
        return _Scalar((), decl.name, decl.ctype, scope)

    def new_temporary(self) -> ScalarDecl:
        names = [n for n in TEMPORARY_NAMES if n not in self.taken]
        name = self.rng.choice(names) if names else self.fresh("tv")
        self.taken.add(name)
        ctype = self.array_type()
        value = self.rng.choice((0.5, 0.25, 1.5)) if ctype != "int" else self.rng.randint(1, 5)
        decl = ScalarDecl(name, ctype, value, True, live_out=False, initialised=self.chance(0.5))
        self.temporaries.append(decl)
        self.g.scalars.append(decl)
        return decl

    def new_local(self, point: Point, *, value: bool, name: str | None = None,
                  ctype: str | None = None) -> _Scalar | None:
        """`T name = v;` (or `T name;` without `value`, half the time) at `point`."""
        name = name if name is not None else self.local_name(point)
        if name is None:
            return None
        ctype = ctype if ctype is not None else self.array_type()
        if not value and self.f.local_scopes and self.chance(0.5):
            scope = replace(point.scope, hidden=point.scope.hidden | {name})
            return _Scalar((Local(ctype, name, None),), name, ctype, scope)
        init = self.value(replace(point.scope, hidden=point.scope.hidden | {name}), ctype)
        return _Scalar((Local(ctype, name, init),), name, ctype, _with_local(point.scope, name, ctype))

    def local_name(self, point: Point) -> str | None:
        """A name a new local can take at `point`: at the SCoP's top level (the
        function's block) one used nowhere else, in a loop body any that the rest of
        the block neither refers to nor declares."""
        if point.top:
            return self.fresh(self.rng.choice(LOCAL_NAMES))
        names = [n for n in LOCAL_NAMES if n not in point.later and n not in point.declared
                 and not self.is_array_or_param(n)]
        if not self.f.local_scopes:   # no shadowing either
            names = [n for n in names if n not in dict(point.scope.locals) and n not in point.scope.hidden
                     and not any(s.name == n for s in self.g.scalars)]
        return self.rng.choice(names) if names else None

    def fresh(self, stem: str) -> str:
        self.counter += 1
        name = f"{stem}{self.counter}"
        while name in self.taken:
            self.counter += 1
            name = f"{stem}{self.counter}"
        self.taken.add(name)
        return name

    def is_array_or_param(self, name: str) -> bool:
        return name in {a.name for a in self.g.arrays} | {n for n, _ in self.g.params} | set(ITERATORS)

    def array_type(self) -> str:
        """The type of a random array: a statement can then store a scalar of it."""
        return self.rng.choice(self.g.arrays).ctype

    # -- statements ---------------------------------------------------------------
    def value(self, scope: _Scope, ctype: str) -> DExpr:
        rhs = self.g.value(scope, ctype)
        return Arith("%", rhs, Num(1009, "int")) if ctype == "int" else rhs

    def assign(self, scope: _Scope, name: str, ctype: str, op: str = "=") -> Assign:
        """`name op value;`, the value not reading `name` (so `=` is a plain write)."""
        return Assign(Ref(name), op, self.value(replace(scope, hidden=scope.hidden | {name}), ctype))

    def use(self, scope: _Scope, extra: DExpr, ctype: str, *, op: str = "=",
            target: Ref | None = None) -> Assign | None:
        """A statement storing a value that includes `extra` (of type `ctype`) into
        an element of an array that can hold it."""
        if target is None:
            arrays = [a for a in self.g.arrays if a.ctype != "int" or ctype == "int"]
            if not arrays:
                return None
            arr = self.rng.choice(arrays)
            target = Ref(arr.name, tuple(self.g.subscript(scope, self.chance(0.7)) for _ in range(arr.rank)))
        t_type = self.g.ctype_of(target.name, scope)
        rhs = self.g.value(replace(scope, target=target), t_type)
        if t_type == "int":
            return Assign(target, op, Arith("%", Arith("+", rhs, extra), Num(1009, "int")))
        return Assign(target, op, Arith("+", rhs, Arith("*", self.g.literal(t_type), extra)))

    def new_loop(self, scope: _Scope, body: Callable[[_Scope], tuple[Node, ...] | None]) -> Loop | None:
        """A loop one level deeper around `body(inner scope)`; None at depth 4."""
        if len(scope.iterators) >= len(ITERATORS):
            return None
        var = ITERATORS[len(scope.iterators)]
        lo, hi = self.g.lower(scope), self.g.upper(scope)
        nodes = body(replace(scope, iterators=scope.iterators + (var,)))
        if not nodes:
            return None
        step = self.g._weighted(((1, 6), (-1, 2), (2, 1)))
        return Loop(var, lo, hi, nodes, step)

    # -- scalar flow ------------------------------------------------------------------
    def private(self, point: Point) -> tuple[Node, ...] | None:
        """Written, then read in the same iteration: `t = A[i][j] * 2; B[i][j] = t + 1;`."""
        if not point.scope.iterators:
            return None
        s = self.flow_scalar(point, value=False)
        if s is None:
            return None
        nodes = list(s.prefix)
        if not (nodes and isinstance(nodes[-1], Local) and nodes[-1].init is not None):
            nodes.append(self.assign(s.scope, s.name, s.ctype))
        scope = self.holding(s)
        if self.chance(0.3):
            nodes.append(Assign(Ref(s.name), "+=", self.value(scope, s.ctype)))
        for _ in range(self.rng.randint(1, 2)):
            use = self.use(scope, Ref(s.name), s.ctype)
            if use is None:
                return None
            nodes.append(use)
        return tuple(nodes)

    def accumulate(self, point: Point) -> tuple[Node, ...] | None:
        """Reset, accumulated in an inner loop, read after it (symm's temp2):
        `s = 0; for k: { C[k][j] += ...; s += A[i][k]; } C[i][j] = ... s;`."""
        s = self.flow_scalar(point, value=False)
        if s is None:
            return None
        zero = Num(0, "int") if s.ctype == "int" else Num(0.0, "double")
        prefix = list(s.prefix)
        if prefix and isinstance(prefix[-1], Local):
            prefix[-1] = replace(prefix[-1], init=zero)
        else:
            prefix.append(Assign(Ref(s.name), "=", zero))
        scope = self.holding(s)

        def body(inner: _Scope) -> tuple[Node, ...]:
            update: Node = Assign(Ref(s.name), "+=", self.value(inner, s.ctype))
            if s.ctype != "int" and self.chance(0.25):   # s = s * c + x: an update without +=
                update = Assign(Ref(s.name), "=", Arith("+", Arith("*", Num(0.5), Ref(s.name)),
                                                        self.g.value(inner, s.ctype)))
            if inner.iterators and self.chance(0.25):
                update = If(self.g.condition(inner), (update,))
            others = [self.g.statement(inner) for _ in range(self.rng.randint(0, 1))]
            return tuple(others + [update] if self.chance(0.5) else [update] + others)

        loop = self.new_loop(scope, body)
        use = self.use(scope, Ref(s.name), s.ctype)
        if loop is None or use is None:
            return None
        return (*prefix, loop, use)

    def after_loop(self, point: Point) -> tuple[Node, ...] | None:
        """Assigned in a loop, read after it: the value of the last iteration that
        assigned it (`for i: t = A[i]; B[0] = t;`)."""
        s = self.flow_scalar(point, value=True)
        if s is None:
            return None
        scope = self.holding(s)

        def body(inner: _Scope) -> tuple[Node, ...]:
            write: Node = self.assign(inner, s.name, s.ctype)
            if self.chance(0.3):
                write = If(self.g.condition(inner), (write,))
            others = [self.g.statement(inner) for _ in range(self.rng.randint(0, 1))]
            return tuple(others + [write] if self.chance(0.5) else [write] + others)

        loop = self.new_loop(scope, body)
        use = self.use(scope, Ref(s.name), s.ctype)
        if loop is None or use is None:
            return None
        return (*s.prefix, loop, use)

    def carried(self, point: Point) -> tuple[Node, ...] | None:
        """Read before it is written in an iteration: the next iteration reads this
        one's value (`for i: { B[i] = t; t = A[i]; }`). In a new loop, or in the loop
        around `point` when the scalar is the function's (a local of the body would
        be a new one in each iteration)."""
        here = bool(point.scope.iterators) and self.chance(0.4)
        s = self.flow_scalar(point, value=True, local=not here)
        if s is None:
            return None
        scope = self.holding(s)

        def body(inner: _Scope) -> tuple[Node, ...] | None:
            use = self.use(inner, Ref(s.name), s.ctype)
            if use is None:
                return None
            return (use, self.assign(inner, s.name, s.ctype))

        if here:
            nodes = body(scope)
            return (*s.prefix, *nodes) if nodes else None
        loop = self.new_loop(scope, body)
        return (*s.prefix, loop) if loop is not None else None

    def across(self, program: Program) -> Program:
        """A temporary assigned in one SCoP and read in the next of the same function:
        its value after the first SCoP is live, though the function's output does
        not show it directly. One without a value is assigned at the first SCoP's
        top level, so that the second always finds one."""
        decl = self.rng.choice([s for s in self.g.scalars if s.temporary] or [self.new_temporary()])
        places = points(program, self.g)
        firsts = [p for p in places if p.scop < len(program.scops) - 1 and self.free(p, decl.name)
                  and (p.top or decl.initialised)]
        if not firsts:
            return program
        first = self.rng.choice(firsts)
        op = "+=" if decl.initialised and self.chance(0.3) else "="
        write = Assign(Ref(decl.name), op, self.value(first.scope, decl.ctype))
        scops = list(program.scops)
        scops[first.scop] = insert_nodes(scops[first.scop], first.path, first.pos, (write,))
        seconds = [p for p in places if p.scop > first.scop and self.free(p, decl.name)]
        if not seconds:
            return program
        second = self.rng.choice(seconds)
        scope = replace(second.scope, defined=second.scope.defined | {decl.name})
        use = self.use(scope, Ref(decl.name), decl.ctype)
        if use is None:
            return program
        scops[second.scop] = insert_nodes(scops[second.scop], second.path, second.pos, (use,))
        return replace(program, scops=tuple(scops))

    @staticmethod
    def free(point: Point, name: str) -> bool:
        """Whether `name` at `point` is the function's scalar (no local hides it)."""
        return name not in dict(point.scope.locals) and name not in point.scope.hidden

    def holding(self, s: _Scalar) -> _Scope:
        """The scope once `s` holds a value (its first write is the idiom's)."""
        if s.name in s.scope.hidden:
            return _with_local(s.scope, s.name, s.ctype)
        if _temporary(self.g, s.name) and s.name not in dict(s.scope.locals):
            return replace(s.scope, defined=s.scope.defined | {s.name})
        return s.scope

    # -- locals -----------------------------------------------------------------------
    def assigned(self, point: Point) -> tuple[Node, ...] | None:
        """Declared without a value, assigned later: `double t; C[i] = ...; t = ...; B[i] = t;`."""
        if not point.scope.iterators:
            return None
        name = self.local_name(point)
        if name is None:
            return None
        ctype = self.array_type()
        hidden = replace(point.scope, hidden=point.scope.hidden | {name})
        nodes: list[Node] = [Local(ctype, name, None)]
        if self.chance(0.5):
            nodes.append(self.g.statement(hidden))
        nodes.append(self.assign(hidden, name, ctype))
        scope = _with_local(point.scope, name, ctype)
        if self.chance(0.4):
            nodes.append(Assign(Ref(name), "*=" if ctype != "int" else "+=",
                                Num(0.5) if ctype != "int" else Num(3, "int")))
        use = self.use(scope, Ref(name), ctype)
        return (*nodes, use) if use is not None else None

    def shadow(self, point: Point) -> tuple[Node, ...] | None:
        """A local that hides an outer local or a scalar of the function, maybe of
        another type; its initialiser may not read the name (it would be the new one)."""
        if point.top:
            return None
        scope = point.scope
        names = [n for n in dict(scope.locals) if n not in scope.hidden]
        names += [s.name for s in self.g.readable_scalars(scope) if s.name not in names]
        names = [n for n in names if n not in point.later and n not in point.declared]
        if not names:
            return None
        name = self.rng.choice(names)
        s = self.new_local(point, value=self.chance(0.6), name=name)
        if s is None:
            return None
        nodes = list(s.prefix)
        if s.name in s.scope.hidden:
            nodes.append(self.assign(s.scope, s.name, s.ctype))
        use = self.use(self.holding(s), Ref(name), s.ctype)
        return (*nodes, use) if use is not None else None

    def nested(self, point: Point) -> tuple[Node, ...] | None:
        """A local in a block inside another's scope, maybe of the same name; the outer
        one is read again after the inner block ends."""
        outer = self.new_local(point, value=True)
        if outer is None:
            return None
        scope = outer.scope
        same = self.chance(0.4)

        def body(inner: _Scope) -> tuple[Node, ...] | None:
            name = outer.name if same else self.rng.choice([n for n in LOCAL_NAMES if n != outer.name])
            if not same and (name in point.later or self.is_array_or_param(name)):
                return None
            ctype = self.array_type()
            init = self.value(replace(inner, hidden=inner.hidden | {name}), ctype)
            if not same:
                init = _plus(init, Ref(outer.name), ctype, outer.ctype)
            use = self.use(_with_local(inner, name, ctype), Ref(name), ctype)
            return (Local(ctype, name, init), use) if use is not None else None

        if scope.iterators and self.chance(0.3):
            block = body(scope)
            inner_block: Node | None = If(self.g.condition(scope), block) if block else None
        else:
            inner_block = self.new_loop(scope, body)
        after = self.use(scope, Ref(outer.name), outer.ctype)
        if inner_block is None or after is None:
            return None
        return (*outer.prefix, inner_block, after)

    # -- arrays -----------------------------------------------------------------------
    def two_reads(self, point: Point) -> tuple[Node, ...] | None:
        """One array read at two footprints, accumulated in a new inner loop:
        `C[i][j] += A[i][k] * A[j][k]` (syrk), `A[k][i] * A[k][j]`, `x[i] * x[n-1-i]`."""
        scope = point.scope
        arr = self.rng.choice(self.g.arrays)

        def body(inner: _Scope) -> tuple[Node, ...] | None:
            first, second = self.footprints(inner, arr.rank)
            x, y = Ref(arr.name, first), Ref(arr.name, second)
            extra = Arith("+", x, y) if arr.ctype == "int" else Arith("*", x, y)
            target = self.outer_target(scope, arr.ctype)
            if target is None:
                return None
            return (self.use(inner, extra, arr.ctype, op="+=", target=target),)

        loop = self.new_loop(scope, body)
        return (loop,) if loop is not None else None

    def footprints(self, inner: _Scope, rank: int) -> tuple[tuple, tuple]:
        """Two subscripts of a `rank`-dimensional array that differ with the
        iterators, the new one (`k`, last) in both: syrk's (i, k) and (j, k), the
        transposed (i, k) and (k, i), or (k) and (n - 1 - k)."""
        its = [Var(n) for n in inner.iterators]
        k = its[-1]
        pad = tuple(self.g.subscript(inner, True) for _ in range(max(0, rank - 2)))
        reverse = Bin("-", Bin("-", self.g.param(), Const(1)), k)
        if rank == 1:
            return (k,), ((its[0],) if len(its) > 1 else (reverse,))
        if len(its) >= 3 and self.chance(0.6):
            return (its[0], k) + pad, (its[1], k) + pad
        if len(its) >= 2:
            a = self.rng.choice(its[:-1])
            return (a, k) + pad, (k, a) + pad
        return (k, k) + pad, (k, reverse) + pad

    def outer_target(self, scope: _Scope, ctype: str) -> Ref | None:
        """An array element indexed by the iterators of `scope` (the reduction's result)."""
        arrays = [a for a in self.g.arrays if a.ctype != "int" or ctype == "int"]
        if not arrays:
            return None
        arr = self.rng.choice(arrays)
        return Ref(arr.name, tuple(self.g.subscript(scope, True) for _ in range(arr.rank)))

    def in_place(self, point: Point) -> tuple[Node, ...] | None:
        """An element computed from its neighbours in two dimensions of the same
        array: `A[i][j] = A[i][j+1] + A[i+1][j]`."""
        its = point.scope.iterators
        if not its:
            return None
        arr = self.rng.choice(self.g.arrays)
        subs = tuple(Var(its[(len(its) - arr.rank + d) % len(its)]) for d in range(arr.rank))
        reads = []
        for _ in range(self.rng.randint(2, 3)):
            d = self.rng.randrange(arr.rank)
            moved = list(subs)
            moved[d] = Bin("+", subs[d], Const(self.rng.choice((-1, 1))))
            reads.append(Ref(arr.name, tuple(moved)))
        if len(set(reads)) < 2:
            return None
        total: DExpr = reads[0]
        for r in reads[1:]:
            total = Arith("+", total, r)
        if arr.ctype == "int":
            return (Assign(Ref(arr.name, subs), "=", Arith("%", total, Num(1009, "int"))),)
        return (Assign(Ref(arr.name, subs), "=", Arith("*", Num(1.0 / len(reads)), total)),)

    def buffer(self, point: Point) -> tuple[Node, ...] | None:
        """A temporary row (doitgen's `sum`), a new array written in one loop and read
        back in the next within one iteration of the loops around: `for k: T[k] = ...;
        for k: B[..] = ... T[k] (or T[n - 1 - k]) ...`. A compiler may give it a copy
        per iteration of those loops, and must copy its last values back."""
        scope = point.scope
        if not scope.iterators or len(scope.iterators) >= len(ITERATORS):
            return None
        name = self.fresh("buf")
        decl = ArrayDecl(name, self.array_type(), 1)
        var = ITERATORS[len(scope.iterators)]
        inner = replace(scope, iterators=scope.iterators + (var,))
        k, p = Var(var), self.g.param()
        read = self.use(inner, Ref(name, (k,) if self.chance(0.5) else (Bin("-", Bin("-", p, Const(1)), k),)),
                        decl.ctype)
        self.g.arrays.append(decl)      # only while its write is built: other statements leave it alone
        write = self.use(inner, Index(k), decl.ctype, target=Ref(name, (k,)))
        self.g.arrays.remove(decl)
        if write is None or read is None:
            return None
        self.buffers.append(decl)
        return (Loop(var, Const(0), p, (write,), 1), Loop(var, Const(0), p, (read,), 1))

    def shifted(self, point: Point) -> tuple[Node, ...] | None:
        """Reads at a shift of half a parameter: disjoint halves (`for i < n/2:
        A[i] = A[i + (n+1)/2]`), or overlapping ones (`A[i] = A[i + n/2]`,
        `A[i + n/2] = A[i]`), in a new loop or the one around `point`."""
        scope = point.scope
        arr = self.rng.choice(self.g.arrays)
        p = self.g.param()
        half = Bin("/", p, Const(2))
        halves = self.chance(0.4)

        def statement(inner: _Scope) -> tuple[Node, ...]:
            v = Var(inner.iterators[-1])
            shift = Bin("/", Bin("+", p, Const(1)), Const(2)) if halves else half
            d = self.rng.randrange(arr.rank)
            subs = [self.g.subscript(inner, True) for _ in range(arr.rank)]
            subs[d] = v
            moved = list(subs)
            moved[d] = Bin("+", v, shift)
            write, read = (subs, moved) if halves or self.chance(0.5) else (moved, subs)
            target = Ref(arr.name, tuple(write))
            return (self.use(replace(inner, target=None), Ref(arr.name, tuple(read)), arr.ctype,
                             target=target),)

        if scope.iterators and not halves and self.chance(0.4):
            return statement(scope)
        if len(scope.iterators) >= len(ITERATORS):
            return None
        var = ITERATORS[len(scope.iterators)]
        inner = replace(scope, iterators=scope.iterators + (var,))
        hi = half if halves else p
        return (Loop(var, Const(0), hi, statement(inner), self.g._weighted(((1, 3), (-1, 1)))),)


    # -- products ---------------------------------------------------------------------
    def product(self, point: Point) -> tuple[Node, ...] | None:
        """A matrix product into a new array `P`, in three new loops: `for i: for j
        (< n, or <= i: syrk's triangle): { P[i][j] *= c; for k: P[i][j] += A[i][k] *
        B[k][j] (or B[j][k], gathering); }`, `P`'s subscripts sometimes shifted, the
        scaling sometimes left out, and sometimes a statement after the loop over k
        that reads `P[i][j]` into another array. `P` is written by nothing else, so
        the C target may keep its blocks in registers (register_tiles.py)."""
        scope = point.scope
        depth = len(scope.iterators)
        sources = [a for a in self.g.arrays if a.rank >= 2]
        if depth + 3 > len(ITERATORS) or not sources:
            return None
        i, j, k = ITERATORS[depth:depth + 3]
        a, b = self.rng.choice(sources), self.rng.choice(sources)
        ctype = a.ctype if a.ctype == b.ctype else "double"
        decl = ArrayDecl(self.fresh("prod"), ctype, 2)
        inner = replace(scope, iterators=scope.iterators + (i, j, k))

        def shifted(var: str) -> IExpr:
            return Bin("+", Var(var), Const(self.rng.randint(1, 2))) if self.chance(0.25) else Var(var)

        def operand(arr: ArrayDecl, first: str, second: str) -> Ref:
            rest = tuple(self.g.subscript(scope, True) if scope.iterators else Const(0) for _ in range(arr.rank - 2))
            return Ref(arr.name, (Var(first), Var(second)) + rest)
        target = Ref(decl.name, (shifted(i), shifted(j)))
        terms = Arith("*", operand(a, i, k), operand(b, *((k, j) if self.chance(0.7) else (j, k))))
        if ctype == "int":
            update = Assign(target, "=", Arith("%", Arith("+", target, terms), Num(1009, "int")))
            scale = Assign(target, "=", Arith("%", Arith("*", target, Num(3, "int")), Num(1009, "int")))
        else:
            update = Assign(target, "+=", terms)
            scale = Assign(target, "*=", self.g.literal(ctype))
        body: list[Node] = [Loop(k, Const(0), self.g.param(), (update,), 1)]
        if self.chance(0.6):
            body.insert(0, scale)
        if self.chance(0.25):
            after = self.use(replace(inner, iterators=scope.iterators + (i, j)), target, ctype)
            if after is not None:
                body.append(after)
        columns = Bin("+", Var(i), Const(1)) if self.chance(0.3) else self.g.param()
        self.buffers.append(decl)
        return (Loop(i, Const(0), self.g.param(), (Loop(j, Const(0), columns, tuple(body), 1),), 1),)


    # -- stencils ---------------------------------------------------------------------
    def stencil(self, point: Point) -> tuple[Node, ...] | None:
        """`for t < T: sweeps` over new arrays (see the module's table): each point the
        weighted sum of itself and its neighbours along every space dimension."""
        depth = len(point.scope.iterators)
        room = len(ITERATORS) - depth - 1
        if room < 1:
            return None
        dims = self.rng.randint(1, min(3, room))
        t, *space = ITERATORS[depth:depth + 1 + dims]
        ctype = self.array_type()
        kind = self.rng.choice(("jacobi", "parity", "seidel"))
        extent: IExpr = self.g.param()
        if self.constant_sizes:     # the parameter's value: isl schedules constant bounds otherwise
            extent = Const(dict(self.g.params)[extent.name])
        steps = self.g.param() if self.chance(0.5) else Const(self.rng.randint(2, 5))

        def sweep(body: Node) -> Loop:
            for var in reversed(space):
                body = Loop(var, Const(1), Bin("-", extent, Const(1)), (body,), 1)
            return body

        def neighbours(name: str, lead: tuple[IExpr, ...]) -> DExpr:
            at = [Var(v) for v in space]
            terms: list[DExpr] = [Ref(name, lead + tuple(at))]
            for k in range(dims):
                for delta in ("-", "+"):
                    moved = list(at)
                    moved[k] = Bin(delta, at[k], Const(1))
                    terms.append(Ref(name, lead + tuple(moved)))
            total = terms[0]
            for term in terms[1:]:
                total = Arith("+", total, term)
            if ctype == "int":
                return Arith("%", total, Num(1009, "int"))
            return Arith("*", Num(round(0.9 / len(terms), 3), ctype), total)

        here = tuple(Var(v) for v in space)
        if kind == "parity":
            grid = ArrayDecl(self.fresh("field"), ctype, dims + 1)
            now = (Bin("%", Var(t), Const(2)),)
            after = (Bin("%", Bin("+", Var(t), Const(1)), Const(2)),)
            body: tuple[Node, ...] = (sweep(Assign(Ref(grid.name, after + here), "=", neighbours(grid.name, now))),)
            self.buffers.append(grid)
        elif kind == "jacobi":
            old, new = ArrayDecl(self.fresh("field"), ctype, dims), ArrayDecl(self.fresh("fnext"), ctype, dims)
            body = (sweep(Assign(Ref(new.name, here), "=", neighbours(old.name, ()))),
                    sweep(Assign(Ref(old.name, here), "=", Ref(new.name, here))))
            self.buffers += [old, new]
        else:
            grid = ArrayDecl(self.fresh("field"), ctype, dims)
            body = (sweep(Assign(Ref(grid.name, here), "=", neighbours(grid.name, ()))),)
            self.buffers.append(grid)
        return (Loop(t, Const(0), steps, body, 1),)


def _plus(value: DExpr, extra: DExpr, ctype: str, extra_type: str) -> DExpr:
    """`value + extra` of type `ctype` (an int keeps within 1009)."""
    if ctype == "int":
        if extra_type != "int":
            return value
        return Arith("%", Arith("+", value, extra), Num(1009, "int"))
    return Arith("+", value, Arith("*", Num(0.5), extra))


def enrich(program: Program, gen: Generator, seed: str, attempt: int, features: Features) -> Program:
    """`program` with idioms from a random stream of their own, then, from another, a
    matrix product (so that the programs of the other idioms stay what they were)."""
    rng = random.Random(f"idioms:{seed}:{attempt}")
    program = Idioms(gen, rng, features).enrich(program)
    products = random.Random(f"products:{seed}:{attempt}")
    if not features.products or products.random() >= PRODUCT_CHANCE:
        return program
    idioms = Idioms(replace_arrays(gen, program), products, features)
    idioms.taken |= {name for scop in program.scops for name in _names_in(scop)}
    # outside the loops, mostly: a product under two loops and conditions rarely runs whole
    outside = products.random() < 0.7
    program = idioms.insert(program, Idioms.product,
                            lambda p: p.top if outside else len(p.scope.iterators) <= 1)
    return replace(program, arrays=program.arrays + tuple(idioms.buffers))


def with_stencil(program: Program, gen: Generator, seed: str, attempt: int, features: Features) -> Program:
    """`program` with, from a random stream of its own (the programs of the other idioms
    stay what they were), a time-iterated stencil over new arrays at the top of a SCoP."""
    rng = random.Random(f"stencils:{seed}:{attempt}")
    chance = 1.0 if features.stencils_always else STENCIL_CHANCE
    if not features.stencils or rng.random() >= chance:
        return program
    idioms = Idioms(replace_arrays(gen, program), rng, features)
    idioms.taken |= {name for scop in program.scops for name in _names_in(scop)}
    idioms.constant_sizes = random.Random(f"stencil-constant:{seed}:{attempt}").random() < STENCIL_CONSTANT_CHANCE
    if random.Random(f"stencil-alone:{seed}:{attempt}").random() < STENCIL_ALONE_CHANCE:
        # a SCoP of its own, after the others: its time loop runs around every statement,
        # the shape tiled along time (C target) and split along time (CUDA's --hybrid)
        nodes = idioms.stencil(Point(len(program.scops), (), 0, _Scope(), frozenset(), frozenset()))
        stenciled = program if not nodes else replace(program, scops=program.scops + (nodes,))
    else:
        stenciled = idioms.insert(program, Idioms.stencil, lambda p: p.top)
    stenciled = replace(stenciled, arrays=stenciled.arrays + tuple(idioms.buffers))
    # within the budget, or not at all: a program the stencil pushed over it would make the
    # generator start again from another base program, which the other features' seeds name
    return stenciled if _within_budget(stenciled) else program


def _within_budget(program: Program) -> bool:
    from .generate import INSTANCE_BUDGET
    from .interp import TooManyInstances, UndefinedRead, footprint
    try:
        return footprint(program, INSTANCE_BUDGET).instances > 0
    except (TooManyInstances, UndefinedRead):
        return False


def replace_arrays(gen: Generator, program: Program) -> Generator:
    """The generator with the program's arrays (the idioms' buffers among them)."""
    copied = copy.copy(gen)
    copied.arrays = list(program.arrays)
    return copied
