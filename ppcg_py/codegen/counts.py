"""Counts of the model (schedule/gpu/work.py's sums of boxes) as C expressions of the
SCoP's parameters, for the host code to evaluate on the run's values: the run-time
path choice (path_choice.py) and `--timing`'s work per kernel."""
from __future__ import annotations

import math
from collections.abc import Iterable

import islpy as isl
from pycparser import c_generator

from ..isl_c import c_node
from ..schedule.gpu.work import Box, Count

_C = c_generator.CGenerator()


class CountPrinter:
    """Prints counts under one SCoP's context."""

    def __init__(self, context: isl.Set) -> None:
        self.build = isl.AstBuild.from_context(context)

    def count(self, count: Count) -> str:
        """`w * ((where) ? e0 * e1 ... : 0.0) + ...`, or `0.0`; the boxes of constant
        extents (a program with `#define`d sizes) summed into one number."""
        return added(self._box(b) for b in count)

    def _box(self, box: Box) -> str:
        if _constant(box):
            return repr(float(box.weight * math.prod(e.max_val().to_python() for e in box.extents)))
        factors = [f"(double) ({_C.visit(c_node(self.build.expr_from_pw_aff(e)))})" for e in box.extents]
        product = " * ".join(factors) or "1.0"
        if not box.where.plain_is_universe():
            where = _C.visit(c_node(self.build.expr_from_set(box.where)))
            if where != "1":
                product = f"(({where}) ? {product} : 0.0)"
        return product if box.weight == 1 else f"{box.weight:g} * {product}"


def added(terms: Iterable[str]) -> str:
    """C terms added up, those that are numbers (constant sizes) into one, last."""
    terms = list(terms)
    numbers = [value for value in map(_number, terms) if value is not None]
    expressions = [t for t in terms if _number(t) is None]
    if numbers:
        expressions.append(repr(sum(numbers)))
    return " + ".join(expressions) or "0.0"


def _number(term: str) -> float | None:
    try:
        return float(term)
    except ValueError:
        return None


def _constant(box: Box) -> bool:
    """Whether the box's count is a number: constant extents, no condition."""
    return box.where.plain_is_universe() and all(
        e.is_cst() and e.domain().plain_is_universe() and e.max_val().eq(e.min_val()) for e in box.extents)
