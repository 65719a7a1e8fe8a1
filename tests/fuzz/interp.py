"""Run a program's control flow in Python with its actual parameter values.

Indices and scalars matter, not data values: the walk counts statement
instances (to keep generated programs fast) and records, per array dimension,
the smallest and largest subscript used, from which `render` chooses offsets and
extents that keep every access in bounds. It also follows every scalar through
C's scopes, to refuse a program that reads one before it has a value and to
record where each value read was written (the flows `patterns` counts).
C semantics: `/` and `%` truncate towards zero.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .program import (
    Assign,
    Assume,
    Call,
    Cond,
    Const,
    DataIf,
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
    Program,
    Var,
    While,
    data_refs,
    node_exprs,
    node_refs,
    pointer_refs,
    subexpressions,
)


class TooManyInstances(Exception):
    """The program executes more statement instances than the budget allows."""


def c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def c_mod(a: int, b: int) -> int:
    return a - b * c_div(a, b)


def ieval(expr: IExpr, env: dict[str, int]) -> int:
    if isinstance(expr, Const):
        return expr.value
    if isinstance(expr, Var):
        return env[expr.name]
    if isinstance(expr, MinMax):
        a, b = ieval(expr.a, env), ieval(expr.b, env)
        if expr.fn.startswith("u") and min(a, b) < 0:
            # umin/umax compare as unsigned: a negative side is another number there
            raise UndefinedRead(f"{expr.fn} of a negative value ({a}, {b})")
        return min(a, b) if expr.op == "MIN" else max(a, b)
    a, b = ieval(expr.a, env), ieval(expr.b, env)
    if expr.op == "+":
        return a + b
    if expr.op == "-":
        return a - b
    if expr.op == "*":
        return a * b
    if expr.op == "/":
        return c_div(a, b)
    return c_mod(a, b)


def ceval(cond: Cond, env: dict[str, int]) -> bool:
    if isinstance(cond, Not):
        return not ceval(cond.a, env)
    if isinstance(cond, Logic):
        if cond.op == "&&":
            return ceval(cond.a, env) and ceval(cond.b, env)
        return ceval(cond.a, env) or ceval(cond.b, env)
    a, b = ieval(cond.a, env), ieval(cond.b, env)
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[cond.op]


def _unsigned(expr: IExpr) -> bool:
    return isinstance(expr, MinMax) and expr.fn.startswith("u")


def loop_values(loop: Loop, env: dict[str, int]) -> range:
    """The values the iterator takes, in execution order."""
    lo, hi = ieval(loop.lo, env), ieval(loop.hi, env)
    if (_unsigned(loop.hi) or _unsigned(loop.lo)) and (lo < 0 or loop.step < 0 or loop.inclusive):
        # `i < umin(..)` compares i as unsigned: only a count from a non-negative start
        raise UndefinedRead(f"loop {loop.var} from {lo} against an unsigned bound")
    if loop.step > 0:
        return range(lo, hi, loop.step)
    return range(hi - 1, lo - 1, loop.step)


@dataclass
class Footprint:
    """What one run of the program touches, and how its scalars carry values.

    `reads` counts scalar reads by (flow, role, update): the flow says where the
    value read was written (see `_flow`), the role which kind of scalar it is
    (param, inout, temporary, local) and `update` whether the write was an
    update of the scalar (`s += x`, `s = s * 0.5 + x`: an accumulation).
    `writes` counts scalar writes by role. `patterns` reads both.
    """

    instances: int = 0
    ranges: dict[tuple[str, int], list[int]] = field(default_factory=dict)  # (array, dim) -> [min, max]
    reads: Counter = field(default_factory=Counter)
    writes: Counter = field(default_factory=Counter)

    def note(self, name: str, dim: int, value: int) -> None:
        box = self.ranges.get((name, dim))
        if box is None:
            self.ranges[(name, dim)] = [value, value]
        elif value < box[0]:
            box[0] = value
        elif value > box[1]:
            box[1] = value


class UndefinedRead(Exception):
    """The program reads a scalar that has no value yet (a local declared without
    one, a temporary not yet written): indeterminate in C, so no test at all."""


Loops = tuple[tuple[tuple, int], ...]   # (loop path, iterator value), outermost first


@dataclass
class _Slot:
    """One scalar object: its role, whether it holds a value, and its last writer
    (scop, statement path, loops, was it an update)."""

    role: str
    defined: bool
    writer: tuple[int, tuple, Loops, bool] | None = None


def _flow(scop: int, path: tuple, loops: Loops, writer: tuple[int, tuple, Loops, bool] | None) -> str:
    """Where a scalar's value comes from, seen from the statement instance reading it:

    live_in         written before the SCoP (or never written in it)
    across_scops    written by an earlier SCoP
    same_iteration  written earlier in the same iteration of every loop around the read
    carried         written in an earlier iteration of a loop around both
    self            the same, by the reading statement itself (`s += x` in a loop)
    after_loop      written inside a loop that has ended (`for k: s += x; C = s;`)
    straight        outside any loop, in sequence
    """
    if writer is None:
        return "live_in"
    w_scop, w_path, w_loops, _update = writer
    if w_scop != scop:
        return "across_scops"
    common = 0
    while common < min(len(loops), len(w_loops)) and loops[common][0] == w_loops[common][0]:
        common += 1
    if any(loops[d][1] != w_loops[d][1] for d in range(common)):
        return "self" if w_path == path else "carried"
    if len(w_loops) > common:
        return "after_loop"
    return "same_iteration" if loops else "straight"


def _function_frames(program: Program) -> list[list[int]]:
    """The SCoPs of each C function, in order."""
    if program.split_functions:
        return [[k] for k in range(len(program.scops))]
    return [list(range(len(program.scops)))]


def footprint(program: Program, limit: int = 50_000) -> Footprint:
    """Instances, subscript ranges and scalar flows; TooManyInstances beyond `limit`,
    UndefinedRead when a scalar is read before it has a value.

    Scalars follow C's scopes: each statement list is a block (a loop body is a
    new one in every iteration), a Local is declared there (in scope in its own
    initialiser, as in C) and hides outer names; each function has its own
    temporaries, while in-out scalars pass from one function to the next.
    """
    fp = Footprint()
    env = dict(program.params)
    shared = {s.name: _Slot("param" if not s.written else "inout", True)
              for s in program.scalars if not s.temporary}
    frames: list[dict[str, _Slot]] = [shared]
    loops: list[tuple[tuple, int]] = []
    scop = 0

    def lookup(name: str) -> _Slot | None:
        for frame in reversed(frames):
            if name in frame:
                return frame[name]
        return None

    def read(name: str, path: tuple) -> None:
        slot = lookup(name)
        if slot is None:
            return  # not a scalar of the program (a hand-built test)
        if not slot.defined:
            raise UndefinedRead(f"'{name}' read before it has a value (statement {path} of SCoP {scop})")
        update = slot.writer is not None and slot.writer[3]
        fp.reads[(_flow(scop, path, tuple(loops), slot.writer), slot.role, update)] += 1

    def write(name: str, path: tuple, update: bool) -> None:
        slot = lookup(name)
        if slot is None:
            return
        slot.defined = True
        slot.writer = (scop, path, tuple(loops), update)
        fp.writes[slot.role] += 1

    def unsigned_calls(expr) -> None:
        """umin/umax in a value (`forms`): on integer expressions never negative."""
        if isinstance(expr, Call) and expr.fn in ("umin", "umax"):
            for arg in expr.args:
                if not isinstance(arg, Index) or ieval(arg.expr, env) < 0:
                    raise UndefinedRead(f"{expr.fn} of a negative or unknown value")
        for part in subexpressions(expr):
            unsigned_calls(part)

    def statement(node: Assign | Local | ExtCall, path: tuple) -> None:
        fp.instances += 1
        if fp.instances > limit:
            raise TooManyInstances(fp.instances)
        for expr in node_exprs(node):
            unsigned_calls(expr)
        for ref in node_refs(node):
            for dim, sub in enumerate(ref.subs):
                fp.note(ref.name, dim, ieval(sub, env))
        if isinstance(node, ExtCall):
            # a call of a declared-only function: reads its value arguments, and reads
            # and updates a scalar whose address it is given (`ext_bump_T(&s, v)`)
            updated = [p.ref.name for a in node.args for p in pointer_refs(a) if p.address and not p.ref.subs]
            for name in [r.name for a in node.args for r in data_refs(a) if not r.subs] + updated:
                read(name, path)
            for name in updated:
                write(name, path, True)
            return
        if isinstance(node, Local):
            frames[-1][node.name] = _Slot("local", False)
            if node.init is None:
                return
            scalars_read = [r.name for r in data_refs(node.init) if not r.subs]
            target, update = node.name, False
        else:
            scalars_read = [r.name for r in data_refs(node.rhs) if not r.subs]
            target = node.target.name if not node.target.subs else None
            update = target is not None and (node.op != "=" or target in scalars_read)
            if node.op != "=" and target is not None:
                scalars_read.append(target)
        for name in scalars_read:
            read(name, path)
        if target is not None:
            write(target, path, update)
        if isinstance(node, Assign) and node.chain is not None and not node.chain.subs:
            write(node.chain.name, path, False)

    def run(nodes: tuple[Node, ...], path: tuple, block: bool = True) -> None:
        if block:
            frames.append({})
        for pos, node in enumerate(nodes):
            here = path + (pos,)
            if isinstance(node, Loop):
                saved = env.get(node.var)
                for value in loop_values(node, env):
                    env[node.var] = value
                    loops.append((here, value))
                    run(node.body, here + ("body",))
                    loops.pop()
                if saved is None:
                    env.pop(node.var, None)
                else:
                    env[node.var] = saved
            elif isinstance(node, If):
                taken = "then" if ceval(node.cond, env) else "orelse"
                run(getattr(node, taken), here + (taken,))
            elif isinstance(node, DataIf):   # either branch may run: both count
                run(node.then, here + ("then",))
                run(node.orelse, here + ("orelse",))
            elif isinstance(node, While):    # as many iterations as its bound allows
                run((Loop(node.var, node.lo, node.hi, node.body),), path, block=False)
            elif isinstance(node, (Assign, Local, ExtCall)):
                statement(node, here)
            elif isinstance(node, Assume):   # a promise the run breaks: undefined behaviour
                if not ceval(node.cond, env):
                    raise UndefinedRead(f"__pencil_assume({node.cond}) is false (statement {here} of SCoP {scop})")
            elif isinstance(node, Kill):
                for name in node.names:      # a killed scalar has no value until written again
                    slot = lookup(name)
                    if slot is not None:
                        slot.defined = False
        if block:
            frames.pop()

    for scop_ids in _function_frames(program):
        frames.append({s.name: _Slot("temporary", s.initialised) for s in program.scalars if s.temporary})
        for scop in scop_ids:
            run(program.scops[scop], (), block=False)  # a SCoP's top level is the function's block
        frames.pop()
    return fp
