"""Control that depends on data: `if`s on array values and `while` loops that stop
early on them (issue 14: the compiler models them as dynamic control).

Made from what the generator built, from a random stream of its own: an assignment
to an array element becomes `if (test) assignment [else target = constant]`, and a
loop whose body only assigns array elements becomes a `while` loop with the same
bound and a test. The test reads an element the statement reads anyway, so the
footprint (`interp`) keeps every access in bounds, and only of an array that is
int or that no SCoP writes: a branch must not depend on the last bits of a
computed value, which may differ between targets (OpenCL's math library).
No scalar is written under such control: a read after it would then see a value
that C may never have assigned.
"""
from __future__ import annotations

import random

from .program import (
    Assign,
    DataIf,
    Loop,
    Node,
    Num,
    Program,
    Ref,
    Test,
    While,
    data_refs,
    get_at,
    node_paths,
    node_refs,
    replace_at,
    walk_nodes,
)

CHANCE = 0.5           # of a program having dynamic control at all
SITES = (1, 1, 2, 3)   # how many of its statements or loops become dynamic


def add_dynamic_control(program: Program, seed: str) -> Program:
    rng = random.Random(f"dynamic:{seed}")
    if rng.random() >= CHANCE:
        return program
    types = {a.name: a.ctype for a in program.arrays}
    open_arrays = {a.name for a in program.arrays if a.open_outer}
    from .external import written_through_calls
    written = {n.target.name for scop in program.scops for n in walk_nodes(scop) if isinstance(n, Assign)}
    written |= written_through_calls(program)
    testable = {name for name, ctype in types.items() if ctype == "int" or name not in written}
    scops = list(program.scops)
    for _ in range(rng.choice(SITES)):
        sites = [(k, path) for k, scop in enumerate(scops) for path in node_paths(scop)
                 if _qualifies(get_at(scop, path), testable, open_arrays)]
        if not sites:
            break
        loops = [site for site in sites if isinstance(get_at(scops[site[0]], site[1]), Loop)]
        k, path = rng.choice(loops if loops and rng.random() < 0.5 else sites)
        scops[k] = replace_at(scops[k], path, (_dynamic(get_at(scops[k], path), rng, types, testable),))
    return program.with_scops(tuple(scops))


def _qualifies(node: Node, testable: set[str], open_arrays: set[str]) -> bool:
    """Whether `node` may become dynamic: an assignment, or a loop `_whileable` takes,
    with a reference a test may read."""
    return bool(_tests(node, testable)) and (isinstance(node, Assign) or _whileable(node, open_arrays))


def _tests(node: Node, testable: set[str]) -> list[Ref]:
    """The references `node` reads that a test may read."""
    if isinstance(node, Assign):
        if node.chain is not None or not node.target.subs:
            return []
        reads = data_refs(node.rhs)
    elif isinstance(node, Loop):
        reads = (r for s in node.body if isinstance(s, Assign) for r in data_refs(s.rhs))
    else:
        return []
    return [r for r in reads if r.subs and r.name in testable]


def _whileable(node: Node, open_arrays: set[str]) -> bool:
    """A loop whose body only assigns array elements, none of an array of unknown size
    (`A[][M]`): in a while loop, its subscripts are no longer affine, and an access
    the model over-approximates needs the array's size."""
    return (isinstance(node, Loop) and node.step == 1 and not node.inclusive and bool(node.body)
            and all(isinstance(s, Assign) and s.target.subs and s.chain is None for s in node.body)
            and not any(r.name in open_arrays for s in node.body for r in node_refs(s)))


def _dynamic(node: Node, rng: random.Random, types: dict[str, str], testable: set[str]) -> Node:
    ref = rng.choice(_tests(node, testable))
    test = Test(ref, rng.choice(("<", ">", "<=", ">=")),
                Num(rng.choice((0, 2, 5)), "int") if types[ref.name] == "int"
                else Num(rng.choice((0.1, 0.3, 0.45)), "double"))
    if isinstance(node, Loop):
        return While(node.var, node.lo, node.hi, test, node.body)
    assert isinstance(node, Assign)
    orelse: tuple[Node, ...] = ()
    if rng.random() < 0.4:
        kind = types.get(node.target.name, "double")
        orelse = (Assign(node.target, "=", Num(3 if kind == "int" else 0.25, kind)),)
    return DataIf(test, (node,), orelse)
