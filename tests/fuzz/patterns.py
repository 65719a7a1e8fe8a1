"""Which of the patterns a dependence model must handle a program contains.

Found in the program itself, not taken from the generator's word: the scalar
patterns from the flows `interp` records while it runs the program (a pattern
counts only if it happens with the actual sizes: a carried value needs two
iterations), the others from the program's structure. Tests use it to check
that each pattern appears often enough, and a campaign records it with each
case, so that a failure says which patterns its program has.

    scalar_private     a function scalar written, then read in the same iteration
                       (`t = A[i][j] * 2; B[i][j] = t + 1;`)
    scalar_accumulate  a scalar read after the loop that accumulated it
                       (`s = 0; for k: s += A[i][k]; C[i] = s;`, symm's temp2)
    scalar_after_loop  a scalar read after the loop that assigned it
                       (`for i: t = A[i]; B[0] = t;`)
    scalar_carried     a scalar read by another statement in a later iteration than
                       the one that wrote it (`for i: { B[i] = t; t = A[i]; }`)
    scalar_across_scops  a scalar one SCoP writes and a later one reads (its value is
                       live after the first SCoP)
    scalar_temporary   a scalar of the function that only the SCoP uses, written there
    scalar_live_out    a scalar written in the SCoP whose final value is dumped
    local_declared     a scalar declared inside the SCoP
    local_assigned     a local assigned after its declaration (`double t; t = ...;`)
    local_nested       a local declared in a block inside another local's scope
    local_shadow       a local that hides a visible name (an outer local, a scalar)
    array_two_reads    a statement reading one array at two subscripts whose
                       footprints differ (`C[i][j] += A[i][k] * A[j][k]`)
    array_in_place     a statement writing an array and reading two other elements
                       of it (`A[i][j] = A[i][j+1] + A[i+1][j]`)
    array_shifted      a statement reading an array at a shift that depends on a
                       parameter (`A[i][j] = A[i + n/2][j]`)
    array_buffer       a temporary row written in one loop and read back in the next,
                       inside another loop (`for k: T[k] = ...; for k: ... T[k] ...`)
"""
from __future__ import annotations

from .interp import Footprint, UndefinedRead, footprint, ieval
from .program import (
    Assign,
    Bin,
    If,
    IExpr,
    Local,
    Loop,
    MinMax,
    Node,
    Program,
    Var,
    data_refs,
    used_names,
    walk_nodes,
)

PATTERNS = ("scalar_private", "scalar_accumulate", "scalar_after_loop", "scalar_carried",
            "scalar_across_scops", "scalar_temporary", "scalar_live_out",
            "local_declared", "local_assigned", "local_nested", "local_shadow",
            "array_two_reads", "array_in_place", "array_shifted", "array_buffer")


def patterns(program: Program, fp: Footprint | None = None) -> frozenset[str]:
    """The patterns `program` contains (names from PATTERNS)."""
    fp = fp if fp is not None else footprint(program)
    found = _flow_patterns(fp) | _local_patterns(program) | _array_patterns(program) | _buffers(program)
    return frozenset(found)


# -- scalars: from the flows the interpreter recorded --------------------------
def _flow_patterns(fp: Footprint) -> set[str]:
    found = set()
    for (flow, role, update), _count in fp.reads.items():
        if flow == "same_iteration" and role in ("inout", "temporary"):
            found.add("scalar_private")
        elif flow == "after_loop":
            found.add("scalar_accumulate" if update else "scalar_after_loop")
        elif flow == "carried":
            found.add("scalar_carried")
        elif flow == "across_scops" and role in ("inout", "temporary"):
            found.add("scalar_across_scops")
    if fp.writes.get("temporary"):
        found.add("scalar_temporary")
    if fp.writes.get("inout"):
        found.add("scalar_live_out")
    return found


# -- locals: from the scopes ----------------------------------------------------
def _local_patterns(program: Program) -> set[str]:
    """Walk each statement list as a C block, with the names visible in it."""
    found: set[str] = set()
    declared = used_names(program)
    function_names = {s.name for s in program.scalars if s.name in declared}

    def block(nodes: tuple[Node, ...], visible: frozenset[str], locals_: frozenset[str], nested: bool) -> None:
        """`nested`: this block is inside the scope of a local of an enclosing block."""
        for node in nodes:
            if isinstance(node, Local):
                found.add("local_declared")
                if node.init is None:
                    found.add("local_assigned")
                if node.name in visible:
                    found.add("local_shadow")
                if nested:
                    found.add("local_nested")
                visible, locals_ = visible | {node.name}, locals_ | {node.name}
            elif isinstance(node, Assign) and not node.target.subs and node.target.name in locals_:
                found.add("local_assigned")
            elif isinstance(node, Loop):
                block(node.body, visible, locals_, bool(locals_))
            elif isinstance(node, If):
                for branch in (node.then, node.orelse):
                    block(branch, visible, locals_, bool(locals_))

    for scop in program.scops:
        block(scop, frozenset(function_names), frozenset(), False)
    return found


def _buffers(program: Program) -> set[str]:
    """The buffer idiom's rows: an array `buf..` written inside a loop inside a loop."""
    buffers = {a.name for a in program.arrays if a.name.startswith("buf")}

    def nested_write(nodes: tuple[Node, ...], depth: int) -> bool:
        for node in nodes:
            if isinstance(node, Assign) and depth >= 2 and node.target.name in buffers:
                return True
            if isinstance(node, Loop) and nested_write(node.body, depth + 1):
                return True
            if isinstance(node, If) and (nested_write(node.then, depth) or nested_write(node.orelse, depth)):
                return True
        return False
    return {"array_buffer"} if buffers and any(nested_write(scop, 0) for scop in program.scops) else set()


# -- arrays: from each statement's references -------------------------------------
def _array_patterns(program: Program) -> set[str]:
    found: set[str] = set()
    params = dict(program.params)
    for scop in program.scops:
        for node in walk_nodes(scop):
            if isinstance(node, Assign):
                found |= _statement_patterns(node, params)
    return found


def _statement_patterns(node: Assign, params: dict[str, int]) -> set[str]:
    """Compare the statement's references to each array pairwise, dimension by dimension."""
    found = set()
    reads: dict[str, list[tuple[IExpr, ...]]] = {}
    for r in data_refs(node.rhs):
        if r.subs and r.subs not in reads.setdefault(r.name, []):
            reads[r.name].append(r.subs)
    for subs in reads.values():
        if any("iterators" in _differences(a, b, params) for k, a in enumerate(subs) for b in subs[k + 1:]):
            found.add("array_two_reads")
    target = node.target
    if target.subs and len([s for s in reads.get(target.name, ()) if s != target.subs]) >= 2:
        found.add("array_in_place")
    for name, subs in reads.items():
        others = subs + ([target.subs] if target.name == name and target.subs else [])
        if any("parameters" in _differences(a, b, params) for a in subs for b in others if a is not b):
            found.add("array_shifted")
    return found


_ITERATOR_SAMPLES = (0, 1, 2, 5, 9)
_PARAMETER_SAMPLES = (7, 8, 13, 20)


def _differences(a: tuple[IExpr, ...], b: tuple[IExpr, ...], params: dict[str, int]) -> set[str]:
    """How two subscript tuples differ, dimension by dimension, found by evaluating
    them: "iterators" when a difference changes with the iterators (two footprints:
    `A[i][k]` and `A[j][k]`, `A[i]` and `A[n-1-i]`), "parameters" when it is the same
    for all iterator values but changes with the parameters (a shift: `A[i + n/2]`
    and `A[i]`), "constant" for a fixed offset (`A[i+1]` and `A[i]`)."""
    names = set().union(*(_names(e) for e in a + b))
    iterators = sorted(names - set(params))
    kinds = set()
    for x, y in zip(a, b, strict=True):
        if x == y:
            continue
        by_params = []
        for pv in _PARAMETER_SAMPLES:
            env = dict.fromkeys(params, pv)
            values = set()
            for k, iv in enumerate(_ITERATOR_SAMPLES):
                env.update({it: iv + 3 * n * k for n, it in enumerate(iterators)})
                try:
                    values.add(ieval(x, env) - ieval(y, env))
                except UndefinedRead:   # a sample the program never runs (`umax` of a negative value)
                    continue
            if len(values) > 1:
                kinds.add("iterators")
                break
            if values:
                by_params.append(values.pop())
        else:
            kinds.add("parameters" if len(set(by_params)) > 1 else "constant")
    return kinds


def _names(e: IExpr) -> set[str]:
    if isinstance(e, Var):
        return {e.name}
    if isinstance(e, (Bin, MinMax)):
        return _names(e.a) | _names(e.b)
    return set()


def rates(programs: list[Program]) -> dict[str, float]:
    """The share of `programs` that contain each pattern."""
    counts = dict.fromkeys(PATTERNS, 0)
    for program in programs:
        for name in patterns(program):
            counts[name] += 1
    return {name: counts[name] / max(1, len(programs)) for name in PATTERNS}
