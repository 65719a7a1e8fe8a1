"""Run a program's control flow in Python with its actual parameter values.

Only indices matter: the walk counts statement instances (to keep generated
programs fast) and records, per array dimension, the smallest and largest
subscript used, from which `render` chooses offsets and extents that keep every
access in bounds. C semantics: `/` and `%` truncate towards zero.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .program import (
    Assign,
    Cond,
    Const,
    IExpr,
    If,
    Local,
    Logic,
    Loop,
    MinMax,
    Node,
    Not,
    Program,
    Var,
    node_refs,
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


def loop_values(loop: Loop, env: dict[str, int]) -> range:
    """The values the iterator takes, in execution order."""
    lo, hi = ieval(loop.lo, env), ieval(loop.hi, env)
    if loop.step > 0:
        return range(lo, hi, loop.step)
    return range(hi - 1, lo - 1, loop.step)


@dataclass
class Footprint:
    """What one run of the program touches."""

    instances: int = 0
    ranges: dict[tuple[str, int], list[int]] = field(default_factory=dict)  # (array, dim) -> [min, max]

    def note(self, name: str, dim: int, value: int) -> None:
        box = self.ranges.get((name, dim))
        if box is None:
            self.ranges[(name, dim)] = [value, value]
        elif value < box[0]:
            box[0] = value
        elif value > box[1]:
            box[1] = value


def footprint(program: Program, limit: int = 50_000) -> Footprint:
    """Instances and subscript ranges; TooManyInstances beyond `limit`."""
    fp = Footprint()
    env = dict(program.params)

    def run(nodes: tuple[Node, ...]) -> None:
        for node in nodes:
            if isinstance(node, Loop):
                saved = env.get(node.var)
                for value in loop_values(node, env):
                    env[node.var] = value
                    run(node.body)
                if saved is None:
                    env.pop(node.var, None)
                else:
                    env[node.var] = saved
            elif isinstance(node, If):
                run(node.then if ceval(node.cond, env) else node.orelse)
            elif isinstance(node, (Assign, Local)):
                fp.instances += 1
                if fp.instances > limit:
                    raise TooManyInstances(fp.instances)
                for ref in node_refs(node):
                    for dim, sub in enumerate(ref.subs):
                        fp.note(ref.name, dim, ieval(sub, env))

    for scop in program.scops:
        run(scop)
    return fp
