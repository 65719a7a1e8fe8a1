"""extract: C source -> polyhedral model of each SCoP (`Scop`)."""
from __future__ import annotations

from collections.abc import Callable

from dataclasses import dataclass

import islpy as isl

from .builder import build_scop
from .c_only import needs_c_host, rejected_as_cxx
from .calls import FileFunctions
from .c_types import collect_typedefs
from .structs import StructTable
from .model import Access, Array, Scop, Statement
from .preprocess import parse, preprocess
from .regions import find_regions
from .summaries import find_summaries

__all__ = ["Access", "Array", "Program", "Scop", "Statement", "extract_program", "extract_scops"]


@dataclass(frozen=True)
class Program:
    """What extraction learns of a file: its SCoPs, whether its host code must stay C
    (it has C that C++ rejects: `c_only.py`), and where its empty SCoPs start (file,
    line of `#pragma scop`): their code stays as written."""

    scops: tuple[Scop, ...]
    host_stays_c: bool
    empty: tuple[tuple[str, int], ...] = ()


def extract_program(path: str, ctx: isl.Context, *, include_dirs: tuple[str, ...] = (),
                    defines: tuple[str, ...] = (), context: str | None = None,
                    assume_nonneg: bool = False, check_cxx: bool = False,
                    kept: Callable[[Scop], bool] = lambda scop: False) -> Program:
    """Every SCoP of `path`, in source order; `check_cxx`: ask a C++ compiler too whether
    the host code must stay C (for CUDA, whose host file nvcc compiles as C++), with the
    lines of the SCoPs that are `kept` as written (left on the host) in the question:
    their C is the output's too (fuzz 2813:351: `__pencil_kill(B)` of a function the
    file declares `void __pencil_kill();`, which C++ takes for no arguments)."""
    ast = parse(preprocess(path, include_dirs, defines), path)
    typedefs = collect_typedefs(ast)
    functions = FileFunctions.of(ast, find_summaries(path, ast), path)
    structs = StructTable(ast, typedefs)
    scops, empty = [], []
    for region in find_regions(ast, path):
        scop = build_scop(ctx, path, region, typedefs, context, assume_nonneg, functions, structs)
        if scop is not None:
            scops.append(scop)
        else:
            coord = region.start.coord
            empty.append((coord.file if coord is not None else path, coord.line if coord is not None else 0))
    # a SCoP whose assumptions are checked at run time keeps its C too, for where they fail
    stays_c = needs_c_host(ast) or (check_cxx and bool(scops) and rejected_as_cxx(
        path, include_dirs, defines, tuple((s.start_line, s.end_line) for s in scops
                                           if not kept(s) and s.checked is None)))
    return Program(tuple(scops), stays_c, tuple(empty))


def extract_scops(path: str, ctx: isl.Context, **kwargs) -> list[Scop]:
    """Every SCoP of `path`, in source order."""
    return list(extract_program(path, ctx, **kwargs).scops)
