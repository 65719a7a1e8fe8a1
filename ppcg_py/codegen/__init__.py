"""codegen: the `ast` stage (ast.py: one isl AST per SCoP) and the `print` stage,
one printer per target: cuda.py (CUDA host and kernel source, through Jinja
templates), opencl.py and c_target.py (C, with OpenMP); common.py holds what
they share. This module only re-exports the names the stages use."""
from __future__ import annotations

from .ast import ScopAst, build_ast
from .ast import dump as dump_ast
from .c_target import CFile, build_c_ast, generate_c
from .common import GeneratedFiles
from .cuda import generate_cuda
from .opencl import generate_opencl

__all__ = ["CFile", "GeneratedFiles", "ScopAst", "build_ast", "build_c_ast", "dump_ast", "generate_c",
           "generate_cuda", "generate_opencl"]
