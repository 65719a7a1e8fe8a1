"""C expressions to isl quasi-affine functions and sets.

`AffineSpace` names the dimensions visible at a point of the SCoP (loop
iterators, then parameters). Anything that is not quasi-affine in them raises a
located CompileError that says what was found.
"""
from __future__ import annotations

import copy
from collections.abc import Callable

import islpy as isl
from pycparser import c_ast

from ..diagnostics import CompileError
from .c_walk import nodes_of

MIN_MAX_CALLS = {"min", "max", "MIN", "MAX", "fmin", "fmax"}
# floord(a, b) / ceild(a, b): PPCG's and CLooG's helpers, with a positive constant b.
ROUNDED_DIVISIONS = {"floord", "ceild"}
AFFINE_CALLS = frozenset(MIN_MAX_CALLS | ROUNDED_DIVISIONS)
# integer types at least as wide as int: a cast to one keeps an index's value
WIDE_INTEGERS = frozenset({"int", "long", "signed", "unsigned"})
WIDE_TYPEDEFS = frozenset({"size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "int32_t", "uint32_t",
                           "int64_t", "uint64_t", "intmax_t", "uintmax_t"})


def keeps_value(cast: c_ast.Cast) -> bool:
    """Whether a cast keeps the value of every integer it converts (to an integer type at
    least as wide as int): `(unsigned char) i` wraps at 256, and `(double) i / 2` divides
    exactly, so neither is the affine function of `i` that ignoring the cast would give."""
    decl = cast.to_type.type
    if not (isinstance(decl, c_ast.TypeDecl) and isinstance(decl.type, c_ast.IdentifierType)):
        return False
    names = set(decl.type.names)
    return names <= WIDE_INTEGERS or (len(names) == 1 and names <= WIDE_TYPEDEFS)


class NotAffine(CompileError):
    """An expression the model cannot know as a quasi-affine function: it reads
    memory or is not affine. The builder then over-approximates (a subscript over
    the array's extent; a condition or loop as one statement of dynamic control)."""


class AffineSpace:
    """The set space of a statement nest: iterator dims (innermost wins) + params."""

    def __init__(self, ctx: isl.Context, iterators: tuple[str, ...],
                 params: tuple[str, ...], describe: Callable[[c_ast.Node], str]) -> None:
        self.ctx = ctx
        self.iterators = iterators
        dim_names = _unique(iterators)
        self.space = isl.Space.create_from_names(ctx, set=dim_names, params=list(params))
        self.universe = isl.Set.universe(self.space)
        self._ls = isl.LocalSpace.from_space(self.space)
        self._where: dict[str, tuple[isl.dim_type, int]] = {
            p: (isl.dim_type.param, k) for k, p in enumerate(params)}
        for k, it in enumerate(iterators):
            self._where[it] = (isl.dim_type.set, k)
        self.describe = describe
        # Scalars whose value here is a known quasi-affine function of the dimensions:
        # an iterator after its loop (its exit value), `k` after `k = 2 * i + 1;`.
        self.values: dict[str, isl.PwAff] = {}

    def bind(self, values: dict[str, isl.PwAff]) -> AffineSpace:
        """This space, where the scalars of `values` have those values (functions on this space)."""
        bound = copy.copy(self)
        bound.values = dict(values)
        return bound

    # -- expressions ------------------------------------------------------
    def const(self, value: int) -> isl.PwAff:
        return isl.PwAff.val_on_domain(self.universe, isl.Val.int_from_si(self.ctx, value))

    def var(self, name: str) -> isl.PwAff:
        kind, pos = self._where[name]
        return isl.PwAff.var_on_domain(self._ls, kind, pos)

    def dim(self, k: int) -> isl.PwAff:
        """The k-th iterator dimension (by position: names may repeat)."""
        return isl.PwAff.var_on_domain(self._ls, isl.dim_type.set, k)

    def knows(self, name: str) -> bool:
        return name in self._where

    def expr(self, node: c_ast.Node, what: str) -> isl.PwAff:
        """The quasi-affine function of `node`; `what` names its role in errors."""
        if isinstance(node, c_ast.Constant):
            return self.const(_int_constant(node, what, self))
        if isinstance(node, c_ast.ID):
            if self.knows(node.name):
                return self.var(node.name)
            if node.name in self.values:
                return self.values[node.name]
            raise self._non_affine(node, what, f"'{node.name}' is not a loop iterator or parameter")
        if isinstance(node, c_ast.Cast):
            if keeps_value(node):
                return self.expr(node.expr, what)
            raise self._non_affine(node, what, "a cast to a narrower or a floating type")
        if isinstance(node, c_ast.UnaryOp):
            if node.op == "-":
                return self.expr(node.expr, what).neg()
            if node.op == "+":
                return self.expr(node.expr, what)
        if isinstance(node, c_ast.BinaryOp):
            return self._binary(node, what)
        if isinstance(node, c_ast.TernaryOp):
            cond = self.condition(node.cond, what)
            a, b = self.expr(node.iftrue, what), self.expr(node.iffalse, what)
            return a.intersect_domain(cond).union_add(b.intersect_domain(cond.complement()))
        if isinstance(node, c_ast.FuncCall) and _call_name(node) in AFFINE_CALLS:
            args = node.args.exprs if node.args else []
            if len(args) == 2:
                a, b = self.expr(args[0], what), self.expr(args[1], what)
                if _call_name(node) in ROUNDED_DIVISIONS:
                    return self._rounded_division(node, a, b, what)
                return a.min(b) if _call_name(node).lower().endswith("min") else a.max(b)
        raise self._non_affine(node, what)

    def _rounded_division(self, node: c_ast.FuncCall, a: isl.PwAff, b: isl.PwAff, what: str) -> isl.PwAff:
        if not b.is_cst() or _constant_value(b) <= 0:
            raise self._non_affine(node, what, f"{_call_name(node)} needs a positive constant divisor")
        quotient = a.scale_down_val(isl.Val.int_from_si(self.ctx, _constant_value(b)))
        return quotient.floor() if _call_name(node) == "floord" else quotient.ceil()

    def _binary(self, node: c_ast.BinaryOp, what: str) -> isl.PwAff:
        op = node.op
        if op in ("+", "-"):
            a, b = self.expr(node.left, what), self.expr(node.right, what)
            return a.add(b) if op == "+" else a.sub(b)
        if op == "*":
            a, b = self.expr(node.left, what), self.expr(node.right, what)
            if a.is_cst() or b.is_cst():
                return a.mul(b)
            raise self._non_affine(node, what, "product of two non-constant terms")
        if op in ("/", "%"):
            a, b = self.expr(node.left, what), self.expr(node.right, what)
            if not b.is_cst():
                raise self._non_affine(node, what, "division by a non-constant")
            if _constant_value(b) == 0:
                raise CompileError.at(node.coord, f"division by zero in {what}")
            return a.tdiv_q(b) if op == "/" else a.tdiv_r(b)
        if op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
            return self.condition(node, what).indicator_function()
        raise self._non_affine(node, what)

    # -- conditions -------------------------------------------------------
    def condition(self, node: c_ast.Node, what: str) -> isl.Set:
        """The set of points where the C condition `node` holds."""
        if isinstance(node, c_ast.BinaryOp):
            op = node.op
            if op == "&&":
                return self.condition(node.left, what).intersect(self.condition(node.right, what))
            if op == "||":
                return self.condition(node.left, what).union(self.condition(node.right, what))
            if op in ("<", "<=", ">", ">=", "==", "!="):
                a, b = self.expr(node.left, what), self.expr(node.right, what)
                return {"<": a.lt_set, "<=": a.le_set, ">": a.gt_set, ">=": a.ge_set,
                        "==": a.eq_set, "!=": a.ne_set}[op](b)
        if isinstance(node, c_ast.UnaryOp) and node.op == "!":
            return self.condition(node.expr, what).complement()
        # any other integer expression: true when non-zero
        return self.expr(node, what).non_zero_set()

    def _non_affine(self, node: c_ast.Node, what: str, why: str | None = None) -> NotAffine:
        text = self.describe(node)
        if nodes_of(node, c_ast.ArrayRef):
            reason = f"{what} depends on data: '{text}' reads memory"
        else:
            reason = f"non-affine {what}: '{text}'" + (f" ({why})" if why else "")
        return NotAffine.at(node.coord, reason)


def _unique(names: tuple[str, ...]) -> list[str]:
    seen: dict[str, int] = {}
    result = []
    for name in names:
        count = seen.get(name, 0)
        seen[name] = count + 1
        result.append(name if count == 0 else f"{name}_{count}")
    return result


def _call_name(node: c_ast.FuncCall) -> str:
    return node.name.name if isinstance(node.name, c_ast.ID) else ""


def _int_constant(node: c_ast.Constant, what: str, space: AffineSpace) -> int:
    if node.type not in ("int", "long int", "unsigned int", "long long int",
                         "unsigned long int", "unsigned long long int", "char"):
        raise NotAffine.at(node.coord, f"non-integer constant '{node.value}' in {what}")
    text = node.value.rstrip("uUlL")
    if node.type == "char":
        raise NotAffine.at(node.coord, f"character constant in {what}")
    return int(text, 0) if not (len(text) > 1 and text[0] == "0" and text[1].isdigit()) else int(text, 8)


def _constant_value(pa: isl.PwAff) -> int:
    val = pa.max_val()
    return int(val.to_python()) if val.is_int() else 0
