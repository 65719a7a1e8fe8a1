"""Delta debugging on the program model: make a failing case small.

Greedy: try the simplifications in `candidates` in order, keep the first one
that still fails the same way (same `Outcome.signature`), and start again from
it, until none applies or the budget runs out. A simplification that breaks the
program (an undeclared local, a `%` on a double) makes the reference build fail,
which is a different signature, so it is simply not taken.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import fields, is_dataclass, replace

import islpy as isl

from .interp import TooManyInstances, UndefinedRead, footprint
from .program import (
    Arith,
    Assign,
    Bin,
    Call,
    CastTo,
    Const,
    DataIf,
    DExpr,
    ExtCall,
    If,
    Local,
    Loop,
    MinMax,
    Node,
    Num,
    Program,
    Ptr,
    Ref,
    Select,
    Var,
    While,
    children,
    get_at,
    node_paths,
    replace_at,
)

Case = tuple[Program, tuple[str, ...]]
Path_ = tuple  # alternating (index, field, index, field, ..., index)


# -- generic edits ------------------------------------------------------------
def substitute(obj, var: str, expr):
    """`obj` with every Var(var) replaced by `expr`."""
    if isinstance(obj, Var):
        return expr if obj.name == var else obj
    if isinstance(obj, tuple):
        return tuple(substitute(x, var, expr) for x in obj)
    if is_dataclass(obj) and not isinstance(obj, type):
        return replace(obj, **{f.name: substitute(getattr(obj, f.name), var, expr) for f in fields(obj)
                               if f.name != "notes"})
    return obj


def _chunk_removals(nodes: tuple[Node, ...]) -> Iterator[tuple[Node, ...]]:
    """The SCoP with half of one of its statement lists removed (ddmin's big steps)."""
    def halves(items: tuple[Node, ...]) -> list[tuple[Node, ...]]:
        if len(items) < 2:
            return []
        mid = len(items) // 2
        return [items[mid:], items[:mid]]

    for half in halves(nodes):
        yield half
    for path in node_paths(nodes):
        node = get_at(nodes, path)
        for name, body in children(node):
            for half in halves(body):
                yield replace_at(nodes, path, (replace(node, **{name: half}),))


def _data_children(e: DExpr) -> list[DExpr]:
    if isinstance(e, Arith):
        return [e.a, e.b]
    if isinstance(e, Call):
        return list(e.args)
    if isinstance(e, Select):
        return [e.x, e.y, e.a, e.b]
    if isinstance(e, CastTo):
        return [e.a]
    return []


def _rebuild(e: DExpr, k: int, new: DExpr) -> DExpr:
    if isinstance(e, Arith):
        return replace(e, a=new) if k == 0 else replace(e, b=new)
    if isinstance(e, Call):
        args = list(e.args)
        args[k] = new
        return replace(e, args=tuple(args))
    if isinstance(e, Select):
        return replace(e, **{("x", "y", "a", "b")[k]: new})
    assert isinstance(e, CastTo)
    return replace(e, a=new)


def expr_variants(e: DExpr) -> Iterator[DExpr]:
    """Smaller expressions: a child instead of the node, then deeper edits. A pointer
    argument of a declared-only function stays what it is (no value can replace it)."""
    if isinstance(e, Ptr):
        return
    if not isinstance(e, Num):
        yield Num(1, "int")
    kids = _data_children(e)
    yield from (kid for kid in kids if not isinstance(kid, Ptr))
    if isinstance(e, Ref) and e.subs:
        for d, sub in enumerate(e.subs):
            if not isinstance(sub, (Var, Const)):
                for simpler in _iexpr_variants(sub):
                    subs = list(e.subs)
                    subs[d] = simpler
                    yield replace(e, subs=tuple(subs))
    for k, kid in enumerate(kids):
        for v in expr_variants(kid):
            yield _rebuild(e, k, v)


def _iexpr_variants(e) -> Iterator:
    if isinstance(e, (Bin, MinMax)):
        yield e.a
        yield e.b
    if not isinstance(e, Const):
        yield Const(0)


# -- candidates ---------------------------------------------------------------
def _option_units(args: tuple[str, ...]) -> list[tuple[int, int]]:
    """(start, length) of each option with its value."""
    units, k = [], 0
    while k < len(args):
        takes_value = args[k] in ("--tile-sizes", "--sizes", "-S", "--ctx")
        units.append((k, 2 if takes_value else 1))
        k += 2 if takes_value else 1
    return units


def _node_variants(node: Node) -> Iterator[tuple[Node, ...]]:
    yield ()
    if isinstance(node, Loop):
        yield substitute(node.body, node.var, node.lo)
        if node.step != 1:
            yield (replace(node, step=1),)
        if node.inclusive:
            yield (replace(node, inclusive=False),)
        if node.lo != Const(0):
            yield (replace(node, lo=Const(0)),)
        for simpler in _iexpr_variants(node.hi):
            yield (replace(node, hi=simpler),)
        for simpler in _iexpr_variants(node.lo):
            yield (replace(node, lo=simpler),)
    elif isinstance(node, While):
        yield (Loop(node.var, node.lo, node.hi, node.body),)
    elif isinstance(node, DataIf):
        yield node.then
        if node.orelse:
            yield node.orelse
    elif isinstance(node, If):
        yield node.then
        if node.orelse:
            yield node.orelse
            yield (replace(node, orelse=()),)
    elif isinstance(node, Assign):
        if node.chain is not None:
            yield (replace(node, chain=None),)
        if node.op != "=":
            yield (replace(node, op="="),)
        for rhs in expr_variants(node.rhs):
            yield (replace(node, rhs=rhs),)
        for target in expr_variants(node.target):
            if isinstance(target, Ref) and target.name == node.target.name:
                yield (replace(node, target=target),)
    elif isinstance(node, Local):
        for init in expr_variants(node.init):
            yield (replace(node, init=init),)
    elif isinstance(node, ExtCall):
        for k, arg in enumerate(node.args):
            for simpler in expr_variants(arg):
                yield (replace(node, args=node.args[:k] + (simpler,) + node.args[k + 1:]),)


def candidates(case: Case) -> Iterator[Case]:
    program, args = case
    for start, length in _option_units(args):
        yield program, args[:start] + args[start + length:]
    if len(program.scops) > 1:
        for k in range(len(program.scops)):
            yield program.with_scops(program.scops[:k] + program.scops[k + 1:]), args
    if program.split_functions:
        yield replace(program, split_functions=False), args
    for k, scop in enumerate(program.scops):
        for smaller in _chunk_removals(scop):
            scops = list(program.scops)
            scops[k] = smaller
            yield program.with_scops(tuple(scops)), args
    for k, scop in enumerate(program.scops):
        for path in node_paths(scop):
            for new in _node_variants(get_at(scop, path)):
                scops = list(program.scops)
                scops[k] = replace_at(scop, path, new)
                yield program.with_scops(tuple(scops)), args
    for k, (name, value) in enumerate(program.params):
        for smaller in (2, 3, value // 2):
            if 1 < smaller < value:
                params = list(program.params)
                params[k] = (name, smaller)
                yield replace(program, params=tuple(params)), args
    if program.empty_scops:
        yield replace(program, empty_scops=()), args
    if program.globals:
        yield replace(program, globals=()), args
    if not program.minmax_macros:
        yield replace(program, minmax_macros=True), args
    if not program.iterators_in_for:
        yield replace(program, iterators_in_for=True), args
    for k, scalar in enumerate(program.scalars):
        if scalar.ctype == "float":
            scalars = list(program.scalars)
            scalars[k] = replace(scalar, ctype="double")
            yield replace(program, scalars=tuple(scalars)), args


def _runnable(case: Case) -> bool:
    program, args = case
    if not program.scops or not _context_holds(program, args):
        return False
    try:
        return footprint(program).instances > 0
    except (TooManyInstances, UndefinedRead):  # removing a scalar's write must not make a test of UB
        return False


def _context_holds(program: Program, args: tuple[str, ...]) -> bool:
    """Whether the parameter values satisfy the --ctx option: smaller sizes must not
    turn a true assumption into a false one (wrong results would then be right)."""
    if "--ctx" not in args:
        return True
    text = args[args.index("--ctx") + 1]
    ctx = isl.Context()
    context = isl.Set.read_from_str(ctx, text)
    values = dict(program.params)
    for k in range(context.dim(isl.dim_type.param)):
        name = context.get_dim_name(isl.dim_type.param, k)
        if name in values:
            context = context.fix_val(isl.dim_type.param, k, isl.Val(values[name], ctx))
    return not context.is_empty()


def shrink(case: Case, still_fails: Callable[[Case], bool], *, budget_s: float = 600,
           max_tries: int = 400, log: Callable[[str], None] | None = None) -> Case:
    """The smallest case found that `still_fails`."""
    deadline = time.monotonic() + budget_s
    tries = 0
    seen: set = set()
    progress = True
    while progress and tries < max_tries and time.monotonic() < deadline:
        progress = False
        for cand in candidates(case):
            if cand in seen or not _runnable(cand):
                continue
            seen.add(cand)
            tries += 1
            if still_fails(cand):
                case = cand
                progress = True
                if log:
                    log(f"shrink: step {tries} kept ({_size(case)} nodes, {len(case[1])} args)")
                break
            if tries >= max_tries or time.monotonic() >= deadline:
                break
    return case


def _size(case: Case) -> int:
    from .program import walk_nodes
    return sum(1 for scop in case[0].scops for _ in walk_nodes(scop))
