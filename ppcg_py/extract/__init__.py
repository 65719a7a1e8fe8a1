"""extract: C source -> polyhedral model of each SCoP (`Scop`)."""
from __future__ import annotations

import islpy as isl

from .builder import ScopBuilder
from .c_types import collect_typedefs
from .model import Access, Array, Scop, Statement
from .preprocess import parse, preprocess
from .regions import find_regions

__all__ = ["Access", "Array", "Scop", "Statement", "extract_scops"]


def extract_scops(path: str, ctx: isl.Context, *, include_dirs: tuple[str, ...] = (),
                  defines: tuple[str, ...] = (), context: str | None = None,
                  assume_nonneg: bool = False) -> list[Scop]:
    """Every SCoP of `path`, in source order."""
    ast = parse(preprocess(path, include_dirs, defines), path)
    typedefs = collect_typedefs(ast)
    return [ScopBuilder(ctx, path, region, typedefs, context, assume_nonneg).build()
            for region in find_regions(ast, path)]
