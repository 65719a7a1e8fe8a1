"""A performance model of the CUDA that ppcg-py generates for each PolyBench kernel (no GPU needed).

Per launch site and per program, at a dataset: the threads launched as a share of the
target GPU's resident threads, the share of global-memory references that are
coalesced, the FLOPs and DRAM bytes of each launch, the Little's-law bandwidth bound
of each launch, and a predicted time. docs/performance-model.md describes each
quantity, each constant and what the model ignores.

The launch sites, grids and host loops come from the generated host file (as
benchmarks/mapping.py reads them), the references from the generated kernel file,
and the work (statement executions, array footprints) from the compiler's own
polyhedral description, counted exactly (ppcg_py/points.py).

Usage: python benchmarks/model.py [--dataset LARGE] [--gpu H100] [--ppcg-arg=--tile-size=16 ...]
           [--compare=ARGS] [--out FILE.md] [--csv FILE.csv] [kernels...]
"""
from __future__ import annotations

import argparse
import csv
import datetime
import io
import math
import os
import platform
import re
import shlex
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import islpy as isl
from pycparser import c_ast, c_parser

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mapping  # noqa: E402  (puts the repository root on sys.path)
from ppcg_py import points  # noqa: E402
from mapping import (TYPE_BYTES, CopySite, LaunchSite, NotConstant, OverBudget, c_value,  # noqa: E402
                     corner_environments, executions, names_in)
from polybench.kernels import KERNELS, Kernel  # noqa: E402
from ppcg_py.extract.c_math import arithmetic_kind  # noqa: E402
from ppcg_py.extract.model import Reference, Scop, Statement  # noqa: E402
from ppcg_py.gpu_targets import DEFAULT_GPU, GPUS, GpuTarget, gpu_named  # noqa: E402
from ppcg_py.isl_context import maps_of, sets_of  # noqa: E402
from ppcg_py.schedule.gpu.kernels import Kernel as CompiledKernel  # noqa: E402

#: Bytes of one DRAM sector: the unit an L2 miss moves.
SECTOR_BYTES = 32
#: A launch "under 10%" of the GPU launches fewer threads than this share of its resident threads.
SMALL_SHARE = 0.10
#: Most host-loop iterations walked per launch site to give each run its own work; past it, a
#: site's work is divided evenly over its runs (the report marks the site `even`).
EXACT_RUN_BUDGET = 50_000
#: The categories a predicted time is split into.
CATEGORIES = ("compute", "bandwidth", "latency", "launch", "transfer")


# -- the kernel file: global-memory references ------------------------------------
@dataclass(frozen=True)
class GlobalRef:
    """One reference to a global array in a kernel's text."""

    array: str
    read: bool
    write: bool
    stride: int | None          # elements between the addresses of neighbouring threads along x (None: not affine)
    element_bytes: int

    @property
    def coalesced(self) -> bool:
        """Neighbouring threads of a warp touch the same or neighbouring elements."""
        return self.stride is not None and abs(self.stride) <= 1

    @property
    def sector_factor(self) -> float:
        """DRAM bytes moved per byte used: a warp whose threads are `stride` elements apart
        touches min(stride * element, 32) bytes of each 32-byte sector's worth of data."""
        if self.coalesced:
            return 1.0
        most = max(1.0, SECTOR_BYTES / self.element_bytes)
        return most if self.stride is None else min(float(abs(self.stride)), most)


@dataclass(frozen=True)
class KernelText:
    """What a kernel's text says about its global memory."""

    name: str
    refs: tuple[GlobalRef, ...]
    loads_in_flight: int        # the most global reads of one statement (at least 1)
    globals: Mapping[str, int]  # pointer parameters (global arrays) -> element bytes

    @property
    def coalesced(self) -> int:
        return sum(ref.coalesced for ref in self.refs)

    def factor(self, array: str, write: bool) -> float:
        """The sector factor of `array`'s reads (writes): the largest of its references'."""
        factors = [ref.sector_factor for ref in self.refs if ref.array == array and (ref.write if write else ref.read)]
        return max(factors, default=1.0)


_STRIP = [(re.compile(r"/\*.*?\*/", re.S), " "), (re.compile(r"//[^\n]*"), ""), (re.compile(r"^\s*#[^\n]*", re.M), ""),
          (re.compile(r"__launch_bounds__\s*\([^)]*\)"), ""), (re.compile(r"\b__(global|shared|device)__\b"), ""),
          (re.compile(r"\b__restrict__\b"), "restrict")]


def kernel_texts(kernel_file: str) -> dict[str, KernelText]:
    """Per kernel function of a generated kernel file, its global references."""
    text = kernel_file
    for pattern, replacement in _STRIP:
        text = pattern.sub(replacement, text)
    tree = c_parser.CParser().parse(text)
    result = {}
    for ext in tree.ext:
        if isinstance(ext, c_ast.FuncDef):
            result[ext.decl.name] = _kernel_text(ext)
    return result


def _kernel_text(func: c_ast.FuncDef) -> KernelText:
    arrays: dict[str, tuple[int, tuple[int, ...]]] = {}
    params = func.decl.type.args.params if func.decl.type.args is not None else []
    for param in params:
        if isinstance(param, c_ast.Decl) and isinstance(param.type, c_ast.PtrDecl):
            arrays[param.name] = _pointee(param.type.type)
    walker = _RefWalker(arrays)
    walker.statement(func.body)
    return KernelText(func.decl.name, tuple(walker.refs), max(1, walker.most_loads),
                      {name: size for name, (size, _) in arrays.items()})


def _pointee(node: c_ast.Node) -> tuple[int, tuple[int, ...]]:
    """Element bytes and inner dimensions of what a pointer parameter points to."""
    dims: list[int] = []
    while isinstance(node, c_ast.ArrayDecl):
        try:
            dims.append(c_value(node.dim, {}))
        except NotConstant:
            dims.append(0)
        node = node.type
    size = 8
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType):
        size = TYPE_BYTES.get(" ".join(node.type.names), 8)
    return size, tuple(dims)


_THREAD_X = ("threadIdx", "x")
_BUILTINS = ("threadIdx", "blockIdx", "blockDim", "gridDim")
_SAME_COEFFICIENT = ("ppcg_min", "ppcg_max", "min", "max")


class _RefWalker:
    """Walks a kernel body: the coefficient of threadIdx.x in each integer variable
    (flow-insensitive, in text order: generated code declares each loop iterator in
    its loop), and each global reference's address stride along threadIdx.x."""

    def __init__(self, arrays: Mapping[str, tuple[int, tuple[int, ...]]]):
        self.arrays = arrays
        self.env: dict[str, int | None] = {}
        self.refs: list[GlobalRef] = []
        self.most_loads = 0

    # statements
    def statement(self, node: c_ast.Node | None) -> None:
        if node is None:
            return
        if isinstance(node, c_ast.Compound):
            for item in node.block_items or []:
                self.statement(item)
        elif isinstance(node, c_ast.Decl):
            if node.init is not None:
                self.expression_statement(node.init)
                self.env[node.name] = self.linear(node.init)
        elif isinstance(node, c_ast.DeclList):
            for decl in node.decls:
                self.statement(decl)
        elif isinstance(node, c_ast.For):
            self.statement(node.init)
            for part in (node.cond, node.next):
                if part is not None:
                    self.expression_statement(part)
            if isinstance(node.next, c_ast.Assignment) and isinstance(node.next.lvalue, c_ast.ID) \
                    and self.linear(node.next.rvalue) not in (0,):
                self.env[node.next.lvalue.name] = None     # a step that moves with the thread
            self.statement(node.stmt)
        elif isinstance(node, c_ast.If):
            self.expression_statement(node.cond)
            self.statement(node.iftrue)
            self.statement(node.iffalse)
        elif isinstance(node, (c_ast.While, c_ast.DoWhile)):
            self.expression_statement(node.cond)
            self.statement(node.stmt)
        elif isinstance(node, (c_ast.Label,)):
            self.statement(node.stmt)
        elif isinstance(node, (c_ast.Return, c_ast.Break, c_ast.Continue, c_ast.EmptyStatement, c_ast.Goto)):
            return
        else:
            self.expression_statement(node)
            if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, c_ast.ID):
                coefficient = self.linear(node.rvalue)
                old = self.env.get(node.lvalue.name, 0)
                self.env[node.lvalue.name] = coefficient if node.op == "=" else (None if coefficient != 0 else old)

    def expression_statement(self, node: c_ast.Node) -> None:
        before = len(self.refs)
        self.expression(node, read=True, write=False)
        self.most_loads = max(self.most_loads, sum(ref.read for ref in self.refs[before:]))

    # expressions
    def expression(self, node: c_ast.Node, read: bool, write: bool) -> None:
        if isinstance(node, c_ast.Assignment):
            self.expression(node.lvalue, read=node.op != "=", write=True)
            self.expression(node.rvalue, read=True, write=False)
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
            self.expression(node.expr, read=True, write=True)
        elif isinstance(node, (c_ast.ArrayRef, c_ast.UnaryOp)) and self._global(node) is not None:
            base, subscripts = self._global(node)
            size, dims = self.arrays[base]
            self.refs.append(GlobalRef(base, read, write, self._stride(subscripts, dims), size))
            for sub in subscripts:
                self.expression(sub, read=True, write=False)
        elif isinstance(node, c_ast.StructRef) and self._global(node.name) is not None:
            base, subscripts = self._global(node.name)
            size, dims = self.arrays[base]
            stride = self._stride(subscripts, dims)
            self.refs.append(GlobalRef(base, read, write, None if stride != 0 else 0, size))
            for sub in subscripts:
                self.expression(sub, read=True, write=False)
        else:
            for _, child in node.children():
                self.expression(child, read=True, write=False)

    def _global(self, node: c_ast.Node) -> tuple[str, list[c_ast.Node]] | None:
        """The global array and subscripts (outermost first) of `A[e]..[e]` or `*A`."""
        if isinstance(node, c_ast.UnaryOp) and node.op == "*" and isinstance(node.expr, c_ast.ID) \
                and node.expr.name in self.arrays:
            return node.expr.name, [c_ast.Constant("int", "0")]
        subscripts: list[c_ast.Node] = []
        while isinstance(node, c_ast.ArrayRef):
            subscripts.insert(0, node.subscript)
            node = node.name
        if subscripts and isinstance(node, c_ast.ID) and node.name in self.arrays:
            return node.name, subscripts
        return None

    def _stride(self, subscripts: Sequence[c_ast.Node], dims: Sequence[int]) -> int | None:
        """Elements between neighbouring threads' addresses (subscripts linearised)."""
        if len(subscripts) > len(dims) + 1:
            return None
        extents = list(dims[len(dims) - (len(subscripts) - 1):]) if len(subscripts) > 1 else []
        total = 0
        for k, sub in enumerate(subscripts):
            coefficient = self.linear(sub)
            if coefficient is None:
                return None
            total += coefficient * math.prod(extents[k:])
        return total

    def linear(self, node: c_ast.Node | None) -> int | None:
        """The coefficient of threadIdx.x in an integer expression (None: not affine in it)."""
        if node is None:
            return 0
        if isinstance(node, c_ast.Constant):
            return 0
        if isinstance(node, c_ast.ID):
            return self.env.get(node.name, 0)
        if isinstance(node, c_ast.StructRef):
            if isinstance(node.name, c_ast.ID) and node.name.name in _BUILTINS:
                return int((node.name.name, node.field.name) == _THREAD_X)
            return self._value_of_load(node)
        if isinstance(node, c_ast.Cast):
            return self.linear(node.expr)
        if isinstance(node, c_ast.UnaryOp):
            inner = self.linear(node.expr)
            if node.op == "-":
                return None if inner is None else -inner
            if node.op == "+":
                return inner
            if node.op == "*":
                return self._value_of_load(node)
            return 0 if inner == 0 else None
        if isinstance(node, c_ast.BinaryOp):
            left, right = self.linear(node.left), self.linear(node.right)
            if node.op in ("+", "-"):
                if left is None or right is None:
                    return None
                return left + right if node.op == "+" else left - right
            if node.op == "*":
                if left == 0 and right == 0:
                    return 0
                for factor, other in ((node.left, right), (node.right, left)):
                    try:
                        value = c_value(factor, {})
                    except NotConstant:
                        continue
                    return None if other is None else value * other
                return None
            if node.op in ("/", "%"):
                return _between_jumps(left, node.right, node.op)
            return 0 if left == 0 and right == 0 else None
        if isinstance(node, c_ast.TernaryOp):
            yes, no = self.linear(node.iftrue), self.linear(node.iffalse)
            if self.linear(node.cond) == 0 and yes == no:
                return yes
            return None
        if isinstance(node, c_ast.FuncCall):
            args = [self.linear(a) for a in (node.args.exprs if node.args is not None else [])]
            name = node.name.name if isinstance(node.name, c_ast.ID) else ""
            if name in _SAME_COEFFICIENT and args and all(a == args[0] for a in args):
                return args[0]
            if name in ("ppcg_floord", "floord") and len(args) == 2:
                return _between_jumps(args[0], node.args.exprs[1], "/")
            return 0 if all(a == 0 for a in args) else None
        if isinstance(node, c_ast.ArrayRef):
            return self._value_of_load(node)
        return None

    def _value_of_load(self, node: c_ast.Node) -> int | None:
        """A value read from memory is the same in every thread when its address is."""
        subscripts = []
        while isinstance(node, (c_ast.ArrayRef, c_ast.StructRef)):
            if isinstance(node, c_ast.ArrayRef):
                subscripts.append(node.subscript)
            node = node.name
        if isinstance(node, c_ast.UnaryOp):
            subscripts.append(node.expr)
        return 0 if all(self.linear(s) == 0 for s in subscripts) else None


def _between_jumps(numerator: int | None, divisor: c_ast.Node, op: str) -> int | None:
    """The slope of `e / m` or `e % m` (m a constant) between the threads where it jumps:
    what most neighbouring threads of a warp see (a jump costs a warp one more sector)."""
    if numerator is None:
        return None
    try:
        m = abs(c_value(divisor, {}))
    except NotConstant:
        return 0 if numerator == 0 else None
    if m == 0:
        return None
    if numerator % m == 0:
        return numerator // m if op == "/" else 0
    if op == "%":
        return numerator
    return 0 if abs(numerator) < m else None


# -- statements: floating-point operations ----------------------------------------
_MATH = frozenset({"sqrt", "exp", "log", "pow", "sin", "cos", "tan", "fabs", "floor", "ceil", "fmax", "fmin",
                   "exp2", "log2", "log10", "cbrt", "hypot", "atan", "atan2", "asin", "acos", "sinh", "cosh",
                   "tanh", "fmod", "erf", "round", "trunc", "rsqrt"})
_ARITHMETIC = frozenset({"+", "-", "*", "/"})


def _promote(*types: str) -> str:
    if "double" in types:
        return "double"
    if "float" in types:
        return "float"
    return "int"


class _Flops:
    """Floating-point operations of one statement, per precision (C's usual conversions)."""

    def __init__(self, scop: Scop):
        self.scop = scop
        self.scalars = dict(scop.scalars_read_only)
        self.counts = {"double": 0, "float": 0}

    def element(self, tag: str) -> str:
        try:
            return arithmetic_kind(self.scop.array(self.scop.access(tag).array).element_type)
        except KeyError:
            return "int"

    def type_of(self, node: c_ast.Node) -> str:
        """The type (double, float or int) of an expression, counting its operations."""
        if isinstance(node, Reference):
            return self.element(node.tag)
        if isinstance(node, c_ast.Constant):
            return node.type if node.type in ("double", "float") else "int"
        if isinstance(node, c_ast.ID):
            return arithmetic_kind(self.scalars.get(node.name, "int"))
        if isinstance(node, c_ast.Cast):
            self.type_of(node.expr)
            return arithmetic_kind(" ".join(getattr(node.to_type.type.type, "names", ["int"])))
        if isinstance(node, c_ast.Assignment):
            left, right = self.type_of(node.lvalue), self.type_of(node.rvalue)
            if node.op != "=":
                self.count(_promote(left, right))
            return left
        if isinstance(node, c_ast.BinaryOp):
            kind = _promote(self.type_of(node.left), self.type_of(node.right))
            if node.op in _ARITHMETIC:
                self.count(kind)
                return kind
            return "int"
        if isinstance(node, c_ast.UnaryOp):
            kind = self.type_of(node.expr)
            if node.op in ("-", "++", "--", "p++", "p--"):
                self.count(kind)
            return "int" if node.op in ("!", "sizeof") else kind
        if isinstance(node, c_ast.TernaryOp):
            self.type_of(node.cond)
            return _promote(self.type_of(node.iftrue), self.type_of(node.iffalse))
        if isinstance(node, c_ast.FuncCall):
            args = [self.type_of(a) for a in (node.args.exprs if node.args is not None else [])]
            name = node.name.name if isinstance(node.name, c_ast.ID) else ""
            if name in _MATH or (name.endswith("f") and name[:-1] in _MATH):
                kind = "float" if name.endswith("f") and name[:-1] in _MATH else _promote("float", *args)
                kind = "double" if name in _MATH else kind
                self.count(kind)
                return kind
            return "int"
        for _, child in node.children():
            self.type_of(child)
        return "int"

    def count(self, kind: str) -> None:
        if kind in self.counts:
            self.counts[kind] += 1


def statement_flops(statement: Statement, scop: Scop) -> tuple[int, int]:
    """(double, float) operations of one execution of `statement`: + - * /, negation,
    compound assignment and each math function call on floating-point values."""
    counter = _Flops(scop)
    if statement.body is not None:
        counter.type_of(statement.body)
    return counter.counts["double"], counter.counts["float"]


# -- a kernel's work --------------------------------------------------------------
@dataclass
class Work:
    """What a kernel does (in one run, or in all runs of its launches)."""

    executions: int = 0
    fp64: int = 0
    fp32: int = 0
    reads: dict[str, int] = field(default_factory=dict)     # array -> distinct elements read
    writes: dict[str, int] = field(default_factory=dict)    # array -> distinct elements written

    def add(self, other: Work, times: float = 1) -> None:
        self.executions += other.executions * times
        self.fp64 += other.fp64 * times
        self.fp32 += other.fp32 * times
        for mine, theirs in ((self.reads, other.reads), (self.writes, other.writes)):
            for name, n in theirs.items():
                mine[name] = mine.get(name, 0) + n * times

    def scaled(self, factor: float) -> Work:
        result = Work()
        result.add(self, factor)
        return result


@dataclass
class KernelWork:
    """A compiled kernel's work per value of its host loops (`keys` of them; 0: in all)."""

    keys: int
    per_key: dict[tuple[int, ...], Work]
    element_bytes: dict[str, int]          # array -> bytes of one element
    device_array: dict[str, str]           # array (a struct's field: its own) -> the kernel's pointer

    def total(self) -> Work:
        result = Work()
        for work in self.per_key.values():
            result.add(work)
        return result

    def at(self, key: tuple[int | None, ...]) -> Work:
        """The work at one setting of the host loops (None: any value)."""
        if None not in key:
            return self.per_key.get(key, Work())
        result = Work()
        for k, work in self.per_key.items():
            if all(want is None or want == got for want, got in zip(key, k)):
                result.add(work)
        return result


def _parameter_set(ctx: isl.Context, values: Mapping[str, int], names: Sequence[str]) -> isl.Set:
    known = [n for n in names if n in values]
    text = " and ".join(f"{n} = {values[n]}" for n in known) or "true"
    return isl.Set(f"[{', '.join(names)}] -> {{ : {text} }}", context=ctx)


def kernel_work(kernel: CompiledKernel, scop: Scop, values: Mapping[str, int], grouped: bool,
                global_arrays: Mapping[str, int]) -> KernelWork:
    """Count a kernel's statement executions, FLOPs and per-array footprints (each run's
    own), per value of its host loops when `grouped`, else summed over them. Only arrays
    whose device array is one of the kernel's pointer parameters (`global_arrays`: name
    -> element bytes) have footprints."""
    params = _parameter_set(scop.ctx, values, scop.parameters)
    domain = kernel.domain.intersect_params(params)
    # instances tied to their host-loop values even when not grouped: a footprint is then
    # counted per run and summed (the union over all runs would count an element once)
    host = kernel.host_schedule.intersect_params(params) if kernel.host_schedule is not None else None
    keys = kernel.host_depth if host is not None and grouped else 0
    statements = {s.name: s for s in scop.statements}
    per_key: dict[tuple[int, ...], Work] = defaultdict(Work)
    footprints: dict[tuple[str, bool], isl.UnionSet | isl.UnionMap] = {}
    element_bytes: dict[str, int] = {}
    device_array: dict[str, str] = {}
    for instances in sets_of(domain):
        statement = statements.get(instances.get_tuple_name())
        if statement is None:
            continue
        relation = None
        if host is not None:
            relation = maps_of(host.intersect_domain(isl.UnionSet.from_set(instances)))[0]
            counts = points.count_by_prefix(relation.reverse().wrap().flatten(), keys, values)
        else:
            counts = {(): points.count(instances, values)}
        fp64, fp32 = statement_flops(statement, scop)
        for key, n in counts.items():
            work = per_key[key]
            work.executions += n
            work.fp64 += n * fp64
            work.fp32 += n * fp32
        for access in statement.accesses:
            member = scop.member(access.array)
            pointer = member.variable if member is not None else access.array
            if pointer not in global_arrays:
                continue
            try:
                element_bytes[access.array] = TYPE_BYTES.get(scop.array(access.array).element_type,
                                                             global_arrays[pointer])
            except KeyError:
                element_bytes[access.array] = global_arrays[pointer]
            device_array[access.array] = pointer
            touched = access.index.intersect_params(params).intersect_domain(instances)
            image: isl.UnionSet | isl.UnionMap = (
                isl.UnionMap.from_map(relation.reverse().apply_range(touched)) if relation is not None
                else isl.UnionSet.from_set(touched.range()))
            for is_write, flag in ((False, access.is_read), (True, access.is_write)):
                if flag:
                    slot = (access.array, is_write)
                    footprints[slot] = image if slot not in footprints else footprints[slot].union(image)
    for (array, is_write), image in footprints.items():
        if isinstance(image, isl.UnionMap):
            counts = defaultdict(int)
            for relation in maps_of(image):
                for key, n in points.count_by_prefix(relation.wrap().flatten(), keys, values).items():
                    counts[key] += n
        else:
            counts = {(): points.count(image.coalesce(), values)}
        for key, n in counts.items():
            side = per_key[key].writes if is_write else per_key[key].reads
            side[array] = side.get(array, 0) + n
    return KernelWork(keys, dict(per_key), element_bytes, device_array)


# -- launches and programs --------------------------------------------------------
@dataclass
class SiteModel:
    """One launch site, over all its runs at the dataset."""

    kernel: str
    block: tuple[int, ...]
    grid: tuple[tuple[int, int], ...]
    runs: int
    exact: bool                          # each run's work counted (False: the site's work divided evenly)
    most_threads: int = 0
    refs: int = 0
    coalesced: int = 0
    loads_in_flight: int = 1
    work: Work = field(default_factory=Work)
    dram_bytes: float = 0.0
    lowest_bound: float = math.inf       # bytes per second, the lowest over the runs
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0.0))

    @property
    def predicted(self) -> float:
        return sum(self.seconds.values())

    def share(self, gpu: GpuTarget) -> float:
        return self.most_threads / gpu.resident_threads


@dataclass
class ProgramModel:
    """One PolyBench program at a dataset."""

    name: str
    parameters: Mapping[str, int]
    sites: list[SiteModel]
    transfer_bytes: float
    transfer_seconds: float
    gpu: GpuTarget
    notes: list[str] = field(default_factory=list)

    @property
    def predicted(self) -> float:
        return sum(site.predicted for site in self.sites) + self.transfer_seconds

    @property
    def seconds(self) -> dict[str, float]:
        total = dict.fromkeys(CATEGORIES, 0.0)
        for site in self.sites:
            for key, value in site.seconds.items():
                total[key] += value
        total["transfer"] += self.transfer_seconds
        return total

    @property
    def bound(self) -> str:
        """The category that takes the most predicted time, with its share."""
        seconds = self.seconds
        worst = max(CATEGORIES, key=lambda k: seconds[k])
        return f"{worst} {100 * seconds[worst] / self.predicted:.0f}%" if self.predicted else "-"

    @property
    def launches(self) -> int:
        return sum(site.runs for site in self.sites)

    @property
    def largest_share(self) -> float:
        return max((site.share(self.gpu) for site in self.sites), default=0.0)

    @property
    def small_sites(self) -> int:
        return sum(site.share(self.gpu) < SMALL_SHARE for site in self.sites)

    @property
    def coalesced_share(self) -> float | None:
        refs = sum(site.refs for site in self.sites)
        return sum(site.coalesced for site in self.sites) / refs if refs else None

    @property
    def flops(self) -> float:
        return sum(site.work.fp64 + site.work.fp32 for site in self.sites)

    @property
    def dram_bytes(self) -> float:
        return sum(site.dram_bytes for site in self.sites)

    @property
    def exact(self) -> bool:
        return all(site.exact for site in self.sites)


def _threads(site: LaunchSite, env: Mapping[str, int]) -> int:
    return math.prod(c_value(b, env) for b in site.block) * math.prod(c_value(g, env) for g in site.grid)


def _host_names(kernel: CompiledKernel) -> list[str]:
    """The host code's names of a kernel's host loops: isl's AST names the iterator of
    schedule dimension k `c{k}`."""
    return [f"c{k}" for k in range(kernel.host_depth)]


def _walk(site: LaunchSite, env: Mapping[str, int], kernel: CompiledKernel | None) -> list[tuple[dict[str, int], int]]:
    """Each run setting of the host loops (with how many times it occurs), walking every
    loop that the grid or the kernel's host dimensions read; OverBudget past the budget."""
    reads = frozenset().union(*(names_in(g) for g in site.grid), *(names_in(b) for b in site.block))
    if kernel is not None:
        reads |= frozenset(_host_names(kernel))
    return list(executions(site.scopes, env, reads, [EXACT_RUN_BUDGET]))


def run_time(gpu: GpuTarget, threads: int, work: Work, dram_bytes: float,
             loads_in_flight: int) -> tuple[float, str, float]:
    """(seconds without the launch cost, what bounds it, the bandwidth bound) of one run:
    max(FLOPs / peak, DRAM bytes / Little's-law bound)."""
    compute = work.fp64 / gpu.fp64_flops + work.fp32 / gpu.fp32_flops
    elements = sum(work.reads.values()) + sum(work.writes.values())
    bytes_per_load = dram_bytes / elements if elements else 8.0
    bound = littles_law_bound(gpu, threads, bytes_per_load, loads_in_flight)
    memory = dram_bytes / bound if bound > 0 else 0.0
    if compute >= memory:
        return compute, "compute", bound
    return memory, "bandwidth" if bound >= gpu.dram_bandwidth else "latency", bound


def littles_law_bound(gpu: GpuTarget, threads: int, bytes_per_load: float, loads_in_flight: float) -> float:
    """Bytes per second that `threads` threads can move: at most the DRAM bandwidth, and
    at most the bytes they keep in flight per DRAM latency (Little's law)."""
    in_flight = min(threads, gpu.resident_threads)
    return min(gpu.dram_bandwidth, in_flight * bytes_per_load * loads_in_flight / gpu.dram_latency)


def dram_bytes_of(work: Work, kw: KernelWork, text: KernelText) -> float:
    """Compulsory DRAM traffic: each array's elements read, and those written, times the
    element size, times the sector factor of the kernel's references of that kind."""
    total = 0.0
    for is_write, side in ((False, work.reads), (True, work.writes)):
        for array, n in side.items():
            total += n * kw.element_bytes.get(array, 8) * text.factor(kw.device_array.get(array, array), is_write)
    return total


def model_program(kernel: Kernel, dataset: str = "LARGE", ppcg_args: Sequence[str] = (),
                  gpu: GpuTarget = GPUS[DEFAULT_GPU]) -> ProgramModel:
    """Compile `kernel` at `dataset` with `ppcg_args` and model its launches on `gpu`."""
    if not any(a == "--gpu" or a.startswith("--gpu=") for a in ppcg_args):
        ppcg_args = [*ppcg_args, f"--gpu={gpu.name}"]     # kernels sized for the card modelled
    compilation = mapping.compile_kernel(kernel, dataset, ppcg_args)
    env = mapping.dataset_parameters(compilation, kernel, dataset)
    files = compilation.files
    sites, copies = mapping.host_sites(files.host)
    texts = kernel_texts(files.kernel)
    compiled = {k.name: (k, scheduled.scop) for scheduled, _ in compilation.plans for k in scheduled.kernels}
    notes: list[str] = []
    missing = sorted({p for scop in compilation.program.scops for p in scop.parameters} - set(env))
    if missing:
        notes.append(f"no value for {', '.join(missing)}")
    # each site's runs, walked where the budget allows
    walks: dict[int, list[tuple[dict[str, int], int]] | None] = {}
    for k, site in enumerate(sites):
        try:
            walks[k] = _walk(site, env, compiled.get(site.kernel, (None,))[0])
        except OverBudget:
            walks[k] = None
    works: dict[str, KernelWork] = {}
    for name, (ck, scop) in compiled.items():
        grouped = all(walks[k] is not None for k, site in enumerate(sites) if site.kernel == name)
        text = texts.get(name) or texts.get(ck.launched_in or "")    # inlined in a device loop's text
        works[name] = kernel_work(ck, scop, env, grouped, text.globals if text else {})
    loops: dict[str, list[str]] = {}
    for name, (ck, _) in compiled.items():
        if ck.launched_in is not None:
            loops.setdefault(ck.launched_in, []).append(name)
    models = []
    for k, site in enumerate(sites):
        if site.kernel in loops:
            models.append(_device_loop_model(site, env, [works[n] for n in loops[site.kernel]],
                                             texts.get(site.kernel), gpu))
            continue
        models.append(_site_model(site, walks[k], env, compiled.get(site.kernel), works.get(site.kernel),
                                  texts.get(site.kernel), sites, gpu, notes))
    transfer = 0.0
    for copy in copies:
        transfer += _copied(copy, env)
    return ProgramModel(kernel.name, env, models, transfer, transfer / gpu.host_bandwidth, gpu, notes)


def _copied(copy: CopySite, env: Mapping[str, int]) -> float:
    try:
        return float(sum(copy.size(e) * times for e, times in executions(copy.scopes, env, copy.reads(),
                                                                          [EXACT_RUN_BUDGET])))
    except OverBudget:
        corners = list(corner_environments(copy.scopes, env))
        runs = sum(times for _, times in executions(copy.scopes, env, frozenset(), [10 ** 9]))
        return runs * sum(copy.size(e) for e in corners) / max(1, len(corners))


def _site_model(site: LaunchSite, walk, env: Mapping[str, int], compiled, kw: KernelWork | None,
                text: KernelText | None, sites: Sequence[LaunchSite], gpu: GpuTarget, notes: list[str]) -> SiteModel:
    launch = mapping.evaluate_launch(site, env)
    if text is None:
        text = KernelText(site.kernel, (), 1, {})
        notes.append(f"{site.kernel}: no kernel text")
    if kw is None:
        kw = KernelWork(0, {}, {}, {})
        notes.append(f"{site.kernel}: not a kernel of the compiler's plan")
    runs = launch.runs if launch.runs is not None else 0
    if launch.runs is None:
        notes.append(f"{site.kernel}: too many host-loop iterations to count its runs; not modelled")
    model = SiteModel(site.kernel, launch.block, launch.grid, runs, walk is not None,
                      refs=len(text.refs), coalesced=text.coalesced, loads_in_flight=text.loads_in_flight)
    if walk is not None and (kw.keys or runs <= 1):
        names = _host_names(compiled[0]) if kw.keys else []
        settings = [(e, times, kw.at(tuple(e.get(n) for n in names))) for e, times in walk]
        return _accumulate(model, site, settings, kw, text, gpu)
    # the kernel's whole work divided evenly over the runs of all its sites; the threads of a
    # run, the mean over the host loops' first and last values
    model.exact = False
    all_runs = sum(mapping.evaluate_launch(s, env).runs or 0 for s in sites if s.kernel == site.kernel)
    per_run = kw.total().scaled(1 / all_runs) if all_runs else Work()
    corners = [_threads(site, e) for e in corner_environments(site.scopes, env)]
    threads = sum(corners) / len(corners) if corners else 0
    notes.append(f"{site.kernel}: {runs} runs, its work divided evenly (threads per run: {threads:.0f}, the mean "
                 f"at the host loops' first and last values)")
    model = _accumulate(model, site, [(dict(env), runs, per_run)], kw, text, gpu, threads=threads)
    model.most_threads = max(corners, default=0)
    return model


def _device_loop_model(site: LaunchSite, env: Mapping[str, int], works: Sequence[KernelWork],
                       text: KernelText | None, gpu: GpuTarget) -> SiteModel:
    """A device loop (one launch of one block that runs a host loop and the kernels in
    it): each kernel's whole work at the block's threads, a memory latency for each of
    its runs (they follow each other through barriers), one launch's cost in all."""
    launch = mapping.evaluate_launch(site, env)
    text = text or KernelText(site.kernel, (), 1, {})
    model = SiteModel(site.kernel, launch.block, launch.grid, launch.runs or 1, True,
                      refs=len(text.refs), coalesced=text.coalesced, loads_in_flight=text.loads_in_flight)
    threads = _threads(site, env)
    for kw in works:
        _accumulate(model, site, [(dict(env), 1, kw.total())], kw, text, gpu, threads=threads)
        # each run of a kernel inside starts after a barrier: a memory latency at least
        model.seconds["latency"] += gpu.dram_latency * max(1, len(kw.per_key))
    model.seconds["launch"] = gpu.launch_cost * model.runs
    return model


def _accumulate(model: SiteModel, site: LaunchSite, settings, kw: KernelWork, text: KernelText, gpu: GpuTarget,
                threads: float | None = None) -> SiteModel:
    for e, times, work in settings:
        if times == 0:
            continue
        launched = threads if threads is not None else _threads(site, e)
        model.most_threads = max(model.most_threads, int(launched))
        dram = dram_bytes_of(work, kw, text)
        seconds, category, bound = run_time(gpu, int(launched), work, dram, text.loads_in_flight)
        model.work.add(work, times)
        model.dram_bytes += dram * times
        model.lowest_bound = min(model.lowest_bound, bound)
        model.seconds[category] += seconds * times
        model.seconds["launch"] += gpu.launch_cost * times
    return model


# -- the report ---------------------------------------------------------------------
def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%" if value >= 0.01 else f"{100 * value:.2f}%"


def _seconds(value: float) -> str:
    return f"{value:.3g}"


TABLE_HEADER = ("| kernel | launch sites | launches | largest launch (share of {gpu}) | sites under 10% "
                "| coalesced refs | GFLOP | DRAM GB | transfers GB | predicted s | bound by |")


def table_row(m: ProgramModel, other: ProgramModel | None = None) -> str:
    cells = [m.name + ("" if m.exact else " (even)"), str(len(m.sites)), str(m.launches), _share(m.largest_share),
             str(m.small_sites), _share(m.coalesced_share), f"{m.flops / 1e9:.3g}", f"{m.dram_bytes / 1e9:.3g}",
             f"{m.transfer_bytes / 1e9:.3g}", _seconds(m.predicted), m.bound]
    if other is not None:
        cells += [_seconds(other.predicted), f"{other.predicted / m.predicted:.2f}" if m.predicted else "-"]
    return "| " + " | ".join(cells) + " |"


def details(m: ProgramModel) -> list[str]:
    lines = [f"- **{m.name}** ({', '.join(f'{k}={v}' for k, v in m.parameters.items())}): "
             f"{_seconds(m.predicted)} s = " + ", ".join(f"{k} {_seconds(v)}" for k, v in m.seconds.items() if v)]
    for s in m.sites:
        bound = "-" if s.lowest_bound == math.inf else f"{s.lowest_bound / 1e9:.3g}"
        lines.append(
            f"  - {s.kernel}: {mapping._dims(s.block)} threads x {mapping._grid(s.grid)} blocks, runs {s.runs}"
            f"{'' if s.exact else ' (work divided evenly)'}; largest {s.most_threads} threads "
            f"({_share(s.share(m.gpu))}); coalesced {s.coalesced}/{s.refs} refs; loads in flight {s.loads_in_flight}; "
            f"executions {s.work.executions:.4g}; GFLOP {(s.work.fp64 + s.work.fp32) / 1e9:.3g}; "
            f"DRAM GB {s.dram_bytes / 1e9:.3g}; lowest bound {bound} GB/s; predicted {_seconds(s.predicted)} s "
            f"(" + ", ".join(f"{k} {_seconds(v)}" for k, v in s.seconds.items() if v) + ")")
    lines += [f"  - note: {note}" for note in m.notes]
    return lines


CSV_FIELDS = ("kernel", "predicted_s", "compute_s", "bandwidth_s", "latency_s", "launch_s", "transfer_s", "bound",
              "launch_sites", "launches", "largest_share", "sites_under_10pct", "coalesced_share", "gflop",
              "dram_gb", "transfer_gb", "exact", "gpu", "dataset", "ppcg_args")


def csv_row(m: ProgramModel, dataset: str, ppcg_args: Sequence[str]) -> dict[str, str]:
    seconds = m.seconds
    share = m.coalesced_share
    return {"kernel": m.name, "predicted_s": f"{m.predicted:.6g}",
            **{f"{k}_s": f"{seconds[k]:.6g}" for k in CATEGORIES},
            "bound": m.bound.split()[0] if m.predicted else "", "launch_sites": str(len(m.sites)),
            "launches": str(m.launches), "largest_share": f"{m.largest_share:.4g}",
            "sites_under_10pct": str(m.small_sites), "coalesced_share": "" if share is None else f"{share:.4g}",
            "gflop": f"{m.flops / 1e9:.6g}", "dram_gb": f"{m.dram_bytes / 1e9:.6g}",
            "transfer_gb": f"{m.transfer_bytes / 1e9:.6g}", "exact": str(int(m.exact)), "gpu": m.gpu.name,
            "dataset": dataset, "ppcg_args": " ".join(ppcg_args)}


def write_csv(results: Sequence[ProgramModel], dataset: str, ppcg_args: Sequence[str],
              compared: Mapping[str, ProgramModel] | None = None, compare_args: Sequence[str] = ()) -> str:
    out = io.StringIO()
    fields = list(CSV_FIELDS) + (["compare_predicted_s", "predicted_speedup", "compare_ppcg_args"] if compared else [])
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for m in results:
        row = csv_row(m, dataset, ppcg_args)
        if compared is not None:
            other = compared.get(m.name)
            row["compare_predicted_s"] = f"{other.predicted:.6g}" if other else ""
            row["predicted_speedup"] = f"{other.predicted / m.predicted:.4g}" if other and m.predicted else ""
            row["compare_ppcg_args"] = " ".join(compare_args)
        writer.writerow(row)
    return out.getvalue()


def _geomean(values: Iterable[float]) -> float | None:
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summary(results: Sequence[ProgramModel], gpu: GpuTarget,
            compared: Mapping[str, ProgramModel] | None = None) -> list[str]:
    bounds: dict[str, int] = defaultdict(int)
    for m in results:
        if m.predicted:
            bounds[m.bound.split()[0]] += 1
    sites = [s for m in results for s in m.sites]
    lines = [f"- predicted time in all: {_seconds(sum(m.predicted for m in results))} s over {len(results)} programs; "
             f"bound by: " + ", ".join(f"{k} {v}" for k, v in sorted(bounds.items(), key=lambda kv: -kv[1])),
             f"- launch sites: {len(sites)}, of which {sum(s.share(gpu) < SMALL_SHARE for s in sites)} launch under "
             f"{SMALL_SHARE:.0%} of the {gpu.name}'s {gpu.resident_threads} resident threads; launches in all: "
             f"{sum(m.launches for m in results)}",
             f"- coalesced global references: {sum(s.coalesced for s in sites)} of {sum(s.refs for s in sites)}"]
    if compared:
        ratios = [compared[m.name].predicted / m.predicted for m in results if m.name in compared and m.predicted]
        mean = _geomean(ratios)
        lines.append(f"- predicted speedup over the compared mapping: geometric mean "
                     f"{'-' if mean is None else f'{mean:.3f}'} over {len(ratios)} programs")
    return lines


def _commit() -> str:
    return mapping._commit()


def report(results: Sequence[ProgramModel], dataset: str, gpu: GpuTarget, ppcg_args: Sequence[str],
           failures: Sequence[str], command: str, compared: Mapping[str, ProgramModel] | None = None,
           compare_args: Sequence[str] = (), elapsed: float | None = None) -> str:
    header = [f"# Performance model of ppcg-py's CUDA for PolyBench/C 4.2.1 ({dataset}, {gpu.name})", "",
              f"- date: {datetime.date.today()}",
              f"- machine: {platform.node()}, {platform.machine()}, {os.cpu_count()} cores, "
              f"Python {platform.python_version()} (the model needs no GPU)"
              + (f"; the model ran in {elapsed:.0f} s" if elapsed is not None else ""),
              f"- commit: {_commit()}",
              f"- command: `{command}`",
              f"- ppcg-py options: `{' '.join(ppcg_args) or '(defaults)'}`"
              + (f"; compared with `{' '.join(compare_args) or '(defaults)'}`" if compared is not None else ""),
              f"- GPU: {gpu.name}: {gpu.sms} SMs x {gpu.threads_per_sm} threads = {gpu.resident_threads} resident; "
              f"DRAM {gpu.dram_bandwidth / 1e12:.3g} TB/s, latency {gpu.dram_latency * 1e9:.0f} ns; FP64 "
              f"{gpu.fp64_flops / 1e12:.3g} TFLOP/s, FP32 {gpu.fp32_flops / 1e12:.3g} TFLOP/s; launch "
              f"{gpu.launch_cost * 1e6:.3g} us; host link {gpu.host_bandwidth / 1e9:.3g} GB/s",
              "- the model: docs/performance-model.md",
              *summary(results, gpu, compared), *(f"- failed: {f}" for f in failures), "",
              "Launch sites are `<<<>>>` sites of the host code; launches, the runs they make at this dataset. "
              "Largest launch: the most threads (block x grid) one launch runs, as a share of the GPU's resident "
              "threads; sites under 10%: sites whose largest launch is under a tenth of them. Coalesced refs: the "
              "share of global-memory references in the kernels' text whose address moves by 0 or 1 element with "
              "threadIdx.x. GFLOP and DRAM GB: over all launches (DRAM: compulsory traffic, uncoalesced references "
              "charged a sector per use). Predicted s: the launches' predicted times plus the host<->device copies. "
              "Bound by: the part of the predicted time that is largest (compute, bandwidth: at the DRAM's rate, "
              "latency: below it by Little's law, launch: the launches' fixed cost, transfer: the copies). "
              "(even): some site's work was divided evenly over its runs rather than counted run by run.", ""]
    head = TABLE_HEADER.format(gpu=gpu.name)
    if compared is not None:
        head += " compared: predicted s | predicted speedup |"
    rows = [table_row(m, compared.get(m.name) if compared is not None else None) for m in results]
    lines = header + [head, "|" + " --- |" * (head.count("|") - 1)] + rows
    lines += ["", "## Per launch site", ""] + [line for m in results for line in details(m)]
    if compared is not None:
        lines += ["", f"## Per launch site, compared mapping (`{' '.join(compare_args) or '(defaults)'}`)", ""]
        lines += [line for m in results if m.name in compared for line in details(compared[m.name])]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*")
    parser.add_argument("--dataset", default="LARGE")
    parser.add_argument("--gpu", default=DEFAULT_GPU, help=f"one of {', '.join(GPUS)} [{DEFAULT_GPU}]")
    parser.add_argument("--ppcg-arg", action="append", default=[], metavar="ARG",
                        help="an option for ppcg-py (repeatable): --ppcg-arg=--tile-size=16")
    parser.add_argument("--compare", default=None, metavar="ARGS",
                        help="model a second mapping, compiled with these ppcg-py options (one string: "
                             "--compare='--sizes ppcg'; '' for the defaults), and add its predicted time and the "
                             "predicted speedup of the first over it")
    parser.add_argument("--out", default=None, help="write the Markdown report here (default: stdout)")
    parser.add_argument("--csv", default=None, help="write the CSV here")
    args = parser.parse_args(argv)
    gpu = gpu_named(args.gpu)
    if gpu is None:
        parser.error(f"unknown GPU {args.gpu!r} (known: {', '.join(GPUS)})")
    compare_args = shlex.split(args.compare) if args.compare is not None else None
    start = time.perf_counter()
    results, failures = [], []
    compared: dict[str, ProgramModel] | None = {} if compare_args is not None else None
    for kernel in KERNELS:
        if args.kernels and kernel.name not in args.kernels:
            continue
        try:
            results.append(model_program(kernel, args.dataset, args.ppcg_arg, gpu))
            if compare_args is not None:
                compared[kernel.name] = model_program(kernel, args.dataset, compare_args, gpu)
        except Exception as exc:  # noqa: BLE001 - one kernel's failure is a line of the report
            failures.append(f"{kernel.name}: {type(exc).__name__}: {exc}")
        print(f"model: {kernel.name} done ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    given = argv if argv is not None else sys.argv[1:]
    command = "python benchmarks/model.py " + " ".join(shlex.quote(a) for a in given)
    text = report(results, args.dataset, gpu, args.ppcg_arg, failures, command.strip(), compared,
                  compare_args or (), time.perf_counter() - start)
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    if args.csv:
        Path(args.csv).write_text(write_csv(results, args.dataset, args.ppcg_arg, compared, compare_args or ()))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
