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
        self.context = context
        self.build = isl.AstBuild.from_context(context)

    def count(self, *counts: Count) -> str:
        """`w * ((where) ? e0 * e1 ... : 0.0) + ...`, or `0.0`: the sum of `counts`, boxes
        that print alike in one term (their weights added: two statements over the
        same loops are one product, not two), those of constant extents (a program
        with `#define`d sizes) in one number, last."""
        weights: dict[str, float] = {}
        numbers: list[float] = []
        for box in (b for count in counts for b in count):
            if _constant(box, self.context):
                numbers.append(float(box.weight * math.prod(e.max_val().to_python() for e in box.extents)))
            else:
                product = self._product(box)
                weights[product] = weights.get(product, 0.0) + box.weight
        return added([product if weight == 1 else f"{weight:g} * {product}" for product, weight in weights.items()]
                     + [repr(number) for number in numbers])

    def _product(self, box: Box) -> str:
        factors = [f"(double) ({_C.visit(c_node(self.build.expr_from_pw_aff(e)))})" for e in box.extents]
        product = " * ".join(factors) or "1.0"
        if not box.where.plain_is_universe():
            where = _C.visit(c_node(self.build.expr_from_set(box.where)))
            if where != "1":
                product = f"(({where}) ? {product} : 0.0)"
        return product


def added(terms: Iterable[str]) -> str:
    """C terms added up: a term that comes `m` times as `m * term`, those that are
    numbers (constant sizes) into one, last."""
    terms = list(terms)
    numbers = [value for value in map(_number, terms) if value is not None]
    times: dict[str, int] = {}
    for term in terms:
        if _number(term) is None:
            times[term] = times.get(term, 0) + 1
    expressions = [term if m == 1 else f"{m} * {term}" for term, m in times.items()]
    if numbers:
        expressions.append(repr(sum(numbers)))
    return " + ".join(expressions) or "0.0"


def _number(term: str) -> float | None:
    try:
        return float(term)
    except ValueError:
        return None


def _constant(box: Box, context: isl.Set) -> bool:
    """Whether the box's count is a number: constant extents, no condition beyond the
    SCoP's context."""
    where = box.where.gist(context.params().align_params(box.where.get_space()))
    return where.plain_is_universe() and all(
        e.is_cst() and e.domain().plain_is_universe() and e.max_val().eq(e.min_val()) for e in box.extents)
