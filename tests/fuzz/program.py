"""The model of a generated program: integer (index) expressions, data
expressions, loops, conditions and assignments.

Everything is a frozen dataclass, so the shrinker can rebuild a program by
replacing one node and the generator's output is hashable and comparable.
Integer expressions follow C semantics (truncating `/` and `%`), since they are
both printed as C and evaluated by `interp`.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Union

# -- integer expressions (bounds, subscripts, conditions) -------------------


@dataclass(frozen=True)
class Var:
    """A loop iterator or a parameter."""

    name: str


@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class Bin:
    """`a op b` with op in + - * / %; `/` and `%` only by a positive constant,
    `*` only with one constant side (the program stays affine)."""

    op: str
    a: "IExpr"
    b: "IExpr"


@dataclass(frozen=True)
class MinMax:
    """MIN(a, b) or MAX(a, b); printed as a macro call or as a ternary, or, with `fn`,
    as a call of PENCIL's built-in `imin`/`imax`/`umin`/`umax` (`forms`: a `u` one only
    where both sides are never negative, which `interp` checks)."""

    op: str  # "MIN" | "MAX"
    a: "IExpr"
    b: "IExpr"
    fn: str = ""  # "" | "imin" | "imax" | "umin" | "umax"


IExpr = Union[Var, Const, Bin, MinMax]


@dataclass(frozen=True)
class Cmp:
    op: str  # < <= > >= == !=
    a: IExpr
    b: IExpr


@dataclass(frozen=True)
class Logic:
    op: str  # && ||
    a: "Cond"
    b: "Cond"


@dataclass(frozen=True)
class Not:
    a: "Cond"


Cond = Union[Cmp, Logic, Not]

# -- data expressions -------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """An array element, or a scalar when `subs` is empty."""

    name: str
    subs: tuple[IExpr, ...] = ()


@dataclass(frozen=True)
class Num:
    """A literal; printed as an int, a double or a float (`0.5f`) literal."""

    value: float
    kind: str = "double"  # "int" | "double" | "float"


@dataclass(frozen=True)
class Index:
    """An integer expression used as a value (`(i + 2 * j)`)."""

    expr: IExpr


@dataclass(frozen=True)
class Arith:
    op: str  # + - * / %   (/ and % only by a literal, % only on ints)
    a: "DExpr"
    b: "DExpr"


@dataclass(frozen=True)
class Call:
    """A pure math function (sqrt, exp, fabs, pow, ...), or a value helper the file
    defines (`HELPERS` in render.py: mix, mixf, imix, twice_mix), inlined by ppcg-py."""

    fn: str
    args: tuple["DExpr", ...]


@dataclass(frozen=True)
class Select:
    """`(a op b ? x : y)` on data values."""

    op: str
    a: "DExpr"
    b: "DExpr"
    x: "DExpr"
    y: "DExpr"


@dataclass(frozen=True)
class CastTo:
    ctype: str
    a: "DExpr"


@dataclass(frozen=True)
class Ptr:
    """A pointer argument of a call to a function the file only declares (`external`):
    a row `A[i]` of an array (its last subscript left out), a whole one-dimensional
    array `x`, or, with `address`, one element `&x[i]` or a scalar `&s`. Not a value:
    `data_refs` does not see it, `pointer_refs` does."""

    ref: Ref
    address: bool = False


@dataclass(frozen=True)
class Extent:
    """The extent of an array's last dimension, a literal once `render` has laid the
    arrays out: the length of a row passed to a declared-only function."""

    name: str


DExpr = Union[Ref, Num, Index, Arith, Call, Select, CastTo, Ptr, Extent]

# -- statements -------------------------------------------------------------


@dataclass(frozen=True)
class Assign:
    """`target op rhs;` -- `chain` adds `target = chain = rhs` (a chained assignment)."""

    target: Ref
    op: str  # = += -= *= (and ^= |= &= on ints)
    rhs: DExpr
    chain: Ref | None = None
    # "bump": printed `bump_T(&target, rhs);`, a helper of the file that updates the
    # element through its address (op is then "+=": the helper reads and writes it)
    helper: str | None = None


@dataclass(frozen=True)
class Local:
    """`ctype name = init;` -- a scalar declared inside the SCoP (private to the
    iteration of the enclosing loop body); `ctype name;` when `init` is None, and
    then assigned before any read (C gives it no value, in every iteration anew).

    Its scope is the rest of the statement list it is in, as in C: it may hide an
    outer local or a function scalar of the same name there."""

    ctype: str
    name: str
    init: DExpr | None


@dataclass(frozen=True)
class Loop:
    """for (var = lo; var < hi; var++) when step > 0, or for (var = hi - 1;
    var >= lo; var--) when step < 0; `inclusive` prints `<= hi - 1`."""

    var: str
    lo: IExpr
    hi: IExpr
    body: tuple["Node", ...]
    step: int = 1
    inclusive: bool = False
    # "row": the loop `for (q = 0; q < hi; q++) R[..][q] = 0.5 * R[..][q] + 0.25 * S[..][q];`
    # is printed as the call `row_update_T(R[..], S[..], hi);` of a helper of the file
    # whose body is that loop (render falls back to the loop if the shape changed)
    helper: str | None = None


@dataclass(frozen=True)
class If:
    cond: Cond
    then: tuple["Node", ...]
    orelse: tuple["Node", ...] = ()


@dataclass(frozen=True)
class Test:
    """`ref op value`: a condition on data, which no compiler knows statically."""

    ref: Ref
    op: str  # < > <= >=
    value: Num


@dataclass(frozen=True)
class DataIf:
    """`if (test) then else orelse`: control that depends on data."""

    test: Test
    then: tuple["Node", ...]
    orelse: tuple["Node", ...] = ()


@dataclass(frozen=True)
class While:
    """`{ int var = lo; while (var < hi && test) { body var++; } }`: a loop that may
    stop early, on data."""

    var: str
    lo: IExpr
    hi: IExpr
    test: Test
    body: tuple["Node", ...]


@dataclass(frozen=True)
class ExtCall:
    """`fn(args);`: a call statement of a function the file only declares (its
    definition is in the second file `external.library` prints, linked with the
    program and with ppcg-py's output)."""

    fn: str
    args: tuple[DExpr, ...]


@dataclass(frozen=True)
class Assume:
    """`__pencil_assume(cond);` (`forms`): a promise about the parameters and iterators
    that every run keeps (`interp` refuses a program that breaks it: undefined behaviour)."""

    cond: Cond


@dataclass(frozen=True)
class Kill:
    """`__pencil_kill(x, ...);` (`forms`): the whole variables `names` are dead from here
    on; placed after their last use, and an array killed is not dumped (Program.killed)."""

    names: tuple[str, ...]


Node = Union[Assign, Local, Loop, If, DataIf, While, ExtCall, Assume, Kill]

# -- the program ------------------------------------------------------------


@dataclass(frozen=True)
class ArrayDecl:
    name: str
    ctype: str          # double | float | int
    rank: int
    open_outer: bool = False  # declared `T A[][M]` in the function signature


@dataclass(frozen=True)
class ScalarDecl:
    """A scalar of the function around the SCoP, in one of three roles:

    by value  (`written` False): a parameter, read only;
    in-out    (`written`, `live_out`): a local of the function copied in from and out to
              `*NAME_io`, so its value after the SCoP is dumped and checked;
    temporary (`written`, not `live_out`): a local of the function that only the SCoP
              uses and that dies with it, declared `T name = value;`, or `T name;`
              when not `initialised` (then the SCoP writes it before reading it).

    The roles are what a dependence model must tell apart: a temporary may be
    privatised and dropped, an in-out scalar must end with its last value."""

    name: str
    ctype: str
    value: float
    written: bool       # False: passed by value
    live_out: bool = True
    initialised: bool = True

    @property
    def inout(self) -> bool:
        return self.written and self.live_out

    @property
    def temporary(self) -> bool:
        return self.written and not self.live_out


@dataclass(frozen=True)
class StructDecl:
    """An array of structs `struct name_t name[..]` whose members are arrays of the
    program (`fields`): its `rank` outer dimensions are every member's first ones, and a
    member of a higher rank is an array member (`A[i][k]` is printed `name[i].A[k]`).
    Members never overlap, so the program means what it means with separate arrays."""

    name: str
    fields: tuple[str, ...]
    rank: int


@dataclass(frozen=True)
class Program:
    params: tuple[tuple[str, int], ...]          # name, value passed at the call
    arrays: tuple[ArrayDecl, ...]
    scalars: tuple[ScalarDecl, ...]
    scops: tuple[tuple[Node, ...], ...]          # each a #pragma scop region
    split_functions: bool = False                # each SCoP in its own function
    minmax_macros: bool = True                   # MIN/MAX macros, else ternaries
    iterators_in_for: bool = True                # `for (int i = ...)` vs `int i;` first
    function: str = "compute"
    notes: tuple[str, ...] = field(default=(), compare=False)
    structs: tuple[StructDecl, ...] = ()
    globals: tuple[str, ...] = ()                # arrays declared at file scope, not passed
    # empty SCoPs: (k, declaration) -- `#pragma scop` regions after SCoP k (in its
    # function) with nothing in them, or only `ctype name;` when declaration is given
    empty_scops: tuple[tuple[int, tuple[str, str] | None], ...] = ()
    killed: tuple[str, ...] = ()                 # arrays `__pencil_kill`ed whole: main does not dump them
    # C99-only declarators and system headers outside the SCoP (`forms.c_only`): the
    # extra headers ("omp.h", "string.h", "stdint.h") and the helpers of main whose
    # parameters are `int a[static 4]` ("static") and `const int a[const 4]` ("const")
    c_only: tuple[str, ...] = ()
    # arrays the compute function gets as pointers to their first element and addresses
    # as flat sequences, `A[(i) * A_ld1 + (k)]`, with their row lengths as parameters
    # (`render`: ppcg-py reads them as rows, extract/flat_arrays.py)
    flat: tuple[str, ...] = ()

    def with_scops(self, scops: tuple[tuple[Node, ...], ...]) -> "Program":
        return replace(self, scops=tuple(s for s in scops if s))

    @property
    def param_values(self) -> dict[str, int]:
        return dict(self.params)


def children(node: Node) -> list[tuple[str, tuple[Node, ...]]]:
    """The statement lists directly inside a node (field name, list)."""
    if isinstance(node, (Loop, While)):
        return [("body", node.body)]
    if isinstance(node, (If, DataIf)):
        return [("then", node.then), ("orelse", node.orelse)]
    return []


def variables(expr) -> set[Var]:
    """The variables of an integer expression (loop iterators and parameters)."""
    if isinstance(expr, Var):
        return {expr}
    return set().union(*(variables(getattr(expr, f)) for f in ("a", "b") if hasattr(expr, f)))


def walk_nodes(nodes: tuple[Node, ...]):
    for node in nodes:
        yield node
        for _, body in children(node):
            yield from walk_nodes(body)


def subexpressions(expr: DExpr):
    if isinstance(expr, Arith):
        return (expr.a, expr.b)
    if isinstance(expr, Call):
        return expr.args
    if isinstance(expr, Select):
        return (expr.a, expr.b, expr.x, expr.y)
    if isinstance(expr, CastTo):
        return (expr.a,)
    return ()


def data_refs(expr: DExpr):
    """Every Ref inside a data expression whose value it reads (not a pointer argument)."""
    if isinstance(expr, Ref):
        yield expr
    for part in subexpressions(expr):
        yield from data_refs(part)


def pointer_refs(expr: DExpr):
    """Every pointer argument (Ptr) inside a data expression."""
    if isinstance(expr, Ptr):
        yield expr
    for part in subexpressions(expr):
        yield from pointer_refs(part)


def node_exprs(node: Node) -> tuple[DExpr, ...]:
    """The data expressions a statement evaluates (right-hand side, initialiser, arguments)."""
    if isinstance(node, Assign):
        return (node.rhs,)
    if isinstance(node, Local) and node.init is not None:
        return (node.init,)
    if isinstance(node, ExtCall):
        return node.args
    return ()


def node_refs(node: Node):
    """The references of one statement (target first), pointer arguments included."""
    if isinstance(node, Assign):
        yield node.target
        if node.chain is not None:
            yield node.chain
    elif isinstance(node, (DataIf, While)):
        yield node.test.ref
    elif isinstance(node, Kill):
        yield from (Ref(name) for name in node.names)
    for expr in node_exprs(node):
        yield from data_refs(expr)
        yield from (p.ref for p in pointer_refs(expr))


def used_names(program: Program) -> set[str]:
    names: set[str] = set()
    for scop in program.scops:
        for node in walk_nodes(scop):
            names.update(ref.name for ref in node_refs(node))
    return names


def insert_nodes(nodes: tuple[Node, ...], path: tuple, pos: int, new: tuple[Node, ...]) -> tuple[Node, ...]:
    """`nodes` with `new` inserted at `pos` of the statement list at `path`: () for
    `nodes` itself, else alternating index and field ((2, "body", 0, "then"))."""
    if not path:
        return nodes[:pos] + new + nodes[pos:]
    i, name = path[0], path[1]
    node = nodes[i]
    inner = insert_nodes(getattr(node, name), path[2:], pos, new)
    return nodes[:i] + (replace(node, **{name: inner}),) + nodes[i + 1:]


def node_paths(nodes: tuple[Node, ...], prefix: tuple = ()) -> Iterator[tuple]:
    """Paths of every node, outermost first."""
    for i, node in enumerate(nodes):
        yield prefix + (i,)
        for name, body in children(node):
            yield from node_paths(body, prefix + (i, name))


def get_at(nodes: tuple[Node, ...], path: tuple) -> Node:
    node = nodes[path[0]]
    if len(path) == 1:
        return node
    return get_at(getattr(node, path[1]), path[2:])


def replace_at(nodes: tuple[Node, ...], path: tuple, new: tuple[Node, ...]) -> tuple[Node, ...]:
    i = path[0]
    if len(path) == 1:
        return nodes[:i] + new + nodes[i + 1:]
    node = nodes[i]
    inner = replace_at(getattr(node, path[1]), path[2:], new)
    return nodes[:i] + (replace(node, **{path[1]: inner}),) + nodes[i + 1:]
