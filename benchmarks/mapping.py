"""How ppcg-py maps each PolyBench kernel onto the GPU, next to PPCG's mapping (no GPU needed).

Per kernel: the launch sites in the host code, how many run a single thread, the
threads per block and blocks of each, what they declare in `__shared__` memory and
in private (register or local) arrays, and the device memory allocated, evaluated
at the dataset's parameter values. The counts are read from the generated files
(what a user sees and nvcc compiles); the compiler's own results (kernels, memory
groups) are compared with them, and any disagreement is listed under "notes".

Each kernel is compiled as the command line would compile it (ppcg-py's own option
parser), with any `--ppcg-arg` options added.

Usage: python benchmarks/mapping.py [--dataset LARGE] [--ppcg-arg=--sizes=ppcg ...] [--out FILE.md] [kernels...]
"""
from __future__ import annotations

import argparse
import datetime
import functools
import math
import os
import platform
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pycparser import c_ast, c_parser

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from polybench.kernels import KERNELS, Kernel, compile_flags, source_path  # noqa: E402
from ppcg_py.diagnostics import Diagnostics  # noqa: E402
from ppcg_py.driver import STAGES  # noqa: E402
from ppcg_py.extract.preprocess import parse, preprocess  # noqa: E402
from ppcg_py.isl_context import new_context  # noqa: E402
from ppcg_py.options import Options  # noqa: E402
from ppcg_py.stages import Compilation, StageRun  # noqa: E402

# PPCG's kernels launched / single-thread kernels / `__shared__` arrays, measured with
# PPCG 0.09 at LARGE (default options). heat-3d is missing: PPCG gives no output for it.
PPCG_MAPPING: Mapping[str, tuple[int, int, int]] = {
    "2mm": (2, 0, 2), "3mm": (3, 0, 3), "adi": (4, 0, 12), "atax": (2, 0, 2), "bicg": (2, 0, 2),
    "cholesky": (3, 1, 3), "correlation": (7, 0, 3), "covariance": (5, 0, 2), "deriche": (8, 2, 18),
    "doitgen": (2, 0, 1), "durbin": (5, 3, 2), "fdtd-2d": (3, 0, 1), "floyd-warshall": (1, 0, 0),
    "gemm": (1, 0, 1), "gemver": (3, 0, 6), "gesummv": (1, 0, 1), "gramschmidt": (7, 3, 3),
    "jacobi-1d": (2, 0, 0), "jacobi-2d": (2, 0, 0), "lu": (3, 0, 5), "ludcmp": (2, 1, 0), "mvt": (2, 0, 2),
    "nussinov": (1, 0, 1), "seidel-2d": (1, 0, 0), "symm": (2, 0, 2), "syr2k": (1, 0, 1), "syrk": (1, 0, 1),
    "trisolv": (3, 1, 1), "trmm": (2, 0, 1),
}

#: Bytes of the C types that sizes and buffers are declared with.
TYPE_BYTES: Mapping[str, int] = {
    "char": 1, "signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2, "int": 4,
    "unsigned int": 4, "unsigned": 4, "long": 8, "unsigned long": 8, "long int": 8, "long long": 8,
    "unsigned long long": 8, "float": 4, "double": 8, "size_t": 8,
}

#: Most host-loop iterations walked to count a launch's runs (else "-") or to find its grid's range
#: (else the range over the loops' first and last values).
COUNT_BUDGET = 200_000


# -- evaluating C integer expressions, safely -----------------------------------
class NotConstant(Exception):
    """The expression is not integer arithmetic over known names."""


@functools.lru_cache(maxsize=None)
def _parsed(expr: str) -> c_ast.Node:
    """`expr` as a pycparser node (parsed as an initializer: no declarations needed)."""
    try:
        return _parser().parse(f"long __value = ({expr});").ext[0].init
    except c_parser.ParseError as exc:
        raise NotConstant(f"cannot parse {expr!r}: {exc}") from None


@functools.lru_cache(maxsize=1)
def _parser() -> c_parser.CParser:
    return c_parser.CParser()


def _c_div(a: int, b: int) -> int:
    """C's `/` on integers: truncation toward zero."""
    if b == 0:
        raise NotConstant("division by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _floord(a: int, b: int) -> int:
    if b == 0:
        raise NotConstant("division by zero")
    return a // b


_BINARY: Mapping[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _c_div,
    "%": lambda a, b: a - _c_div(a, b) * b, "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b),
    ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b), "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
}
#: The run-time choice between a SCoP's device code and its host path (codegen/path_choice.py).
ON_DEVICE = "ppcg_py_on_device"
#: The helper functions of generated host code (and C's own names for them).
_FUNCTIONS: Mapping[str, Callable[..., int]] = {
    "ppcg_min": min, "ppcg_max": max, "min": min, "max": max, "ppcg_floord": _floord, "floord": _floord,
}


def c_value(expr: str | c_ast.Node, env: Mapping[str, int]) -> int:
    """The value of a C integer expression whose names take their values from `env`.

    Only integer arithmetic, comparisons, `?:`, `sizeof(type)` and the min/max/floord
    helpers are evaluated; anything else (a call, a pointer, a float) raises
    NotConstant, so no generated text is ever executed.
    """
    node = _parsed(expr) if isinstance(expr, str) else expr
    return _evaluate(node, env)


def _evaluate(node: c_ast.Node, env: Mapping[str, int]) -> int:
    if isinstance(node, c_ast.Constant) and node.type in ("int", "long int", "unsigned int", "long long int",
                                                           "unsigned long int", "unsigned long long int"):
        return int(node.value.rstrip("uUlL"), 0)
    if isinstance(node, c_ast.ID):
        if node.name not in env:
            raise NotConstant(f"unknown name {node.name!r}")
        return env[node.name]
    if isinstance(node, c_ast.BinaryOp):
        if node.op == "&&":
            return int(bool(_evaluate(node.left, env)) and bool(_evaluate(node.right, env)))
        if node.op == "||":
            return int(bool(_evaluate(node.left, env)) or bool(_evaluate(node.right, env)))
        if node.op in _BINARY:
            return _BINARY[node.op](_evaluate(node.left, env), _evaluate(node.right, env))
    if isinstance(node, c_ast.UnaryOp):
        if node.op == "sizeof" and isinstance(node.expr, c_ast.Typename):
            return _type_bytes(node.expr)
        operand = {"-": lambda v: -v, "+": lambda v: v, "!": lambda v: int(not v)}.get(node.op)
        if operand is not None:
            return operand(_evaluate(node.expr, env))
    if isinstance(node, c_ast.TernaryOp):
        return _evaluate(node.iftrue if _evaluate(node.cond, env) else node.iffalse, env)
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name == ON_DEVICE:
        return 1    # the SCoP's device code is what is read and modelled, not its host path
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name in _FUNCTIONS:
        args = node.args.exprs if node.args is not None else []
        return _FUNCTIONS[node.name.name](*(_evaluate(a, env) for a in args))
    if isinstance(node, c_ast.Cast) and _is_integer_type(node.to_type):
        return _evaluate(node.expr, env)
    raise NotConstant(f"not integer arithmetic: {type(node).__name__}")


def _type_names(typename: c_ast.Typename) -> str | None:
    decl = typename.type
    if isinstance(decl, c_ast.TypeDecl) and isinstance(decl.type, c_ast.IdentifierType):
        return " ".join(decl.type.names)
    return None


def _is_integer_type(typename: c_ast.Typename) -> bool:
    name = _type_names(typename)
    return name is not None and name not in ("float", "double")


def _type_bytes(typename: c_ast.Typename) -> int:
    name = _type_names(typename)
    if name not in TYPE_BYTES:
        raise NotConstant(f"unknown size of type {name!r}")
    return TYPE_BYTES[name]


def names_in(expr: str) -> frozenset[str]:
    """The identifiers an expression reads (the helper functions' names excluded)."""
    found: set[str] = set()

    class _Names(c_ast.NodeVisitor):
        def visit_ID(self, node: c_ast.ID) -> None:
            found.add(node.name)

        def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
            if node.args is not None:
                self.visit(node.args)

    _Names().visit(_parsed(expr))
    return frozenset(found)


# -- the parameters' values -----------------------------------------------------
def parameter_values(path: Path, flags: Sequence[str], function: str,
                     parameters: Sequence[str]) -> dict[str, int]:
    """The SCoP parameters' values in the run that the benchmark's main makes.

    The parameters are `function`'s int arguments; main calls it with its locals,
    set from the dataset's macros (`int n = N;`). Reading that call, after the
    preprocessor, gives the values without assuming how the names correspond.
    """
    includes = tuple(f[2:] for f in flags if f.startswith("-I"))
    defines = tuple(f[2:] for f in flags if f.startswith("-D"))
    tree = parse(preprocess(str(path), includes, defines), str(path))
    definitions = {ext.decl.name: ext for ext in tree.ext if isinstance(ext, c_ast.FuncDef)}
    formals = [p.name for p in definitions[function].decl.type.args.params]
    arguments = _call_arguments(definitions["main"], function)
    values = {}
    for name in parameters:
        if name in formals and arguments is not None:
            try:
                values[name] = c_value(arguments.actuals[formals.index(name)], arguments.locals)
            except NotConstant:
                pass
    return values


@dataclass
class _Call:
    actuals: list[c_ast.Node]
    locals: dict[str, int]


def _call_arguments(main: c_ast.FuncDef, function: str) -> _Call | None:
    """The arguments of main's first call of `function`, and main's constant locals before it."""
    known: dict[str, int] = {}
    found: list[_Call] = []

    class _Main(c_ast.NodeVisitor):
        def visit_Decl(self, node: c_ast.Decl) -> None:
            if node.init is not None and node.name is not None:
                try:
                    known[node.name] = c_value(node.init, known)
                except NotConstant:
                    pass

        def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
            if isinstance(node.name, c_ast.ID) and node.name.name == function and not found:
                found.append(_Call(list(node.args.exprs), dict(known)))
            self.generic_visit(node)

    _Main().visit(main.body)
    return found[0] if found else None


# -- the host file: launches and allocations ------------------------------------
@dataclass(frozen=True)
class Loop:
    """`for (int var = start; var OP bound; var += step)` around a launch."""

    var: str
    start: str
    op: str
    bound: str
    step: int

    def values(self, env: Mapping[str, int]) -> range:
        start, bound = c_value(self.start, env), c_value(self.bound, env)
        stop = {"<": bound, "<=": bound + 1, ">": bound, ">=": bound - 1}[self.op]
        return range(start, stop, self.step)

    def reads(self) -> frozenset[str]:
        return names_in(self.start) | names_in(self.bound)


@dataclass(frozen=True)
class Guard:
    """`if (condition)`, or a later branch of its chain, around a launch."""

    condition: str              # when this branch runs
    chain: str = ""             # when some branch of the chain so far runs (for the next `else`)

    def holds(self, env: Mapping[str, int]) -> bool:
        return bool(c_value(self.condition, env))

    def reads(self) -> frozenset[str]:
        return names_in(self.condition)


Scope = Loop | Guard | None   # None: a plain `{ }` block


@dataclass(frozen=True)
class LaunchSite:
    """One `kernelN <<<grid, block>>>` of the host code, with what surrounds it."""

    kernel: str
    grid: tuple[str, ...]       # dim3 arguments, as C text (x first)
    block: tuple[str, ...]
    scopes: tuple[Loop | Guard, ...]


@dataclass(frozen=True)
class CopySite:
    """One `cudaMemcpy` or `cudaMemcpy2D` of the host code, with what surrounds it."""

    call: str                   # the call, as C text
    scopes: tuple[Loop | Guard, ...]

    @property
    def to_device(self) -> bool:
        return "cudaMemcpyHostToDevice" in self.call

    def size(self, env: Mapping[str, int]) -> int:
        """Bytes copied (a 2-D copy's width times its height), at `env`."""
        call = _parsed(self.call)
        args = call.args.exprs
        if call.name.name == "cudaMemcpy2D":
            return c_value(args[4], env) * c_value(args[5], env)
        return c_value(args[2], env)

    def reads(self) -> frozenset[str]:
        return names_in(self.call)      # the pointers' names too: harmless (no loop has them)


_FOR = re.compile(r"for \(int (\w+) = (.+?); \1 (<=|<|>=|>) (.+?); \1(\+\+|--| \+= \d+| -= \d+)\)")
_IF = re.compile(r"if \((.*)\)\s*\{$")
_DIM3 = re.compile(r"dim3 (\w+)\((.*)\);")
_LAUNCH = re.compile(r"(\w+) <<<([^,]+), ([^>]+)>>>")
_MALLOC = re.compile(r"(cudaMalloc\(.*\))\);")
_COPY = re.compile(r"(cudaMemcpy(?:2D)?\(.*\))\);")


def host_sites(host: str) -> tuple[list[LaunchSite], list[CopySite]]:
    """Every launch and every copy between host and device in the host file, in
    order, each with its enclosing loops and guards."""
    stack: list[Scope] = []
    dim3: dict[str, tuple[str, ...]] = {}
    sites: list[LaunchSite] = []
    copies: list[CopySite] = []
    for line in host.splitlines():
        text = line.strip()
        if match := _DIM3.search(text):
            dim3[match.group(1)] = _arguments(match.group(2))
        if match := _LAUNCH.search(text):
            grid, block = (dim3.get(name.strip(), (name.strip(),)) for name in match.group(2, 3))
            sites.append(LaunchSite(match.group(1), grid, block,
                                    tuple(s for s in stack if s is not None)))
        if match := _COPY.search(text):
            copies.append(CopySite(match.group(1), tuple(s for s in stack if s is not None)))
        _follow_braces(text, stack)
    return sites, copies


def launch_sites(host: str) -> list[LaunchSite]:
    """Every launch in the host file, in order, with its enclosing loops and guards."""
    return host_sites(host)[0]


def _follow_braces(text: str, stack: list[Scope]) -> None:
    """Pop a scope per `}` and push one per `{` of a line (an `else` runs where the
    earlier branches of its chain do not)."""
    closed: Scope = None
    for char in text:
        if char == "}" and stack:
            closed = stack.pop()
        elif char == "{":
            stack.append(_opened(text, closed))


def _opened(text: str, closed: Scope) -> Scope:
    if (match := _FOR.search(text)) is not None:
        var, start, op, bound, step = match.groups()
        stride = 1 if step.strip() in ("++", "--") else int(step.split("=")[1])
        return Loop(var, start, op, bound, -stride if step.strip().startswith("-") else stride)
    guard = _IF.search(text)
    if text.startswith("} else") and isinstance(closed, Guard):
        if guard is None:
            return Guard(f"!({closed.chain})")
        return Guard(f"!({closed.chain}) && ({guard.group(1)})", f"{closed.chain} || ({guard.group(1)})")
    return Guard(guard.group(1), f"({guard.group(1)})") if guard else None


def _arguments(text: str) -> tuple[str, ...]:
    """The top-level comma-separated arguments of a call's argument text."""
    parts, depth, start = [], 0, 0
    for k, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:k].strip())
            start = k + 1
    parts.append(text[start:].strip())
    return tuple(p for p in parts if p)


def allocated_bytes(host: str, env: Mapping[str, int]) -> int:
    """The sum of the sizes of all cudaMalloc calls of the host file, at `env`."""
    total = 0
    for match in _MALLOC.finditer(host):
        call = _parsed(match.group(1))
        total += c_value(call.args.exprs[1], env)
    return total


class OverBudget(Exception):
    """Walking the host loops would visit more iterations than the budget allows."""


def executions(scopes: Sequence[Loop | Guard], env: Mapping[str, int], reads: frozenset[str],
               budget: list[int]) -> Iterator[tuple[dict[str, int], int]]:
    """Each setting of the host loops under which a launch inside `scopes` runs, with how
    many times it runs so. A loop whose iterator nothing inside reads (neither the inner
    loops and guards nor the names in `reads`) is counted at once rather than walked;
    walking more than budget[0] iterations in all raises OverBudget."""
    if not scopes:
        yield dict(env), 1
        return
    scope, rest = scopes[0], scopes[1:]
    if isinstance(scope, Guard):
        if scope.holds(env):
            yield from executions(rest, env, reads, budget)
        return
    values = scope.values(env)
    if not values:
        return
    if scope.var not in reads and not any(scope.var in inner.reads() for inner in rest):
        for inner_env, times in executions(rest, env, reads, budget):
            yield inner_env, times * len(values)
        return
    budget[0] -= len(values)
    if budget[0] < 0:
        raise OverBudget
    for value in values:
        yield from executions(rest, {**env, scope.var: value}, reads, budget)


def corner_environments(scopes: Sequence[Loop | Guard], env: Mapping[str, int]) -> Iterator[dict[str, int]]:
    """The first and last value of each enclosing loop (each combination), where the guards
    hold: where a grid size that moves with too many host iterations to walk is extreme."""
    if not scopes:
        yield dict(env)
        return
    scope, rest = scopes[0], scopes[1:]
    if isinstance(scope, Guard):
        if scope.holds(env):
            yield from corner_environments(rest, env)
        return
    values = scope.values(env)
    for value in sorted({values[0], values[-1]}) if values else ():
        yield from corner_environments(rest, {**env, scope.var: value})


# -- the kernel file: bodies ----------------------------------------------------
@dataclass(frozen=True)
class KernelBody:
    """What one kernel function declares (its `__shared__` and private arrays), and its
    loops: a single-thread kernel with loops runs a whole loop nest on one thread."""

    shared_arrays: int = 0
    shared_bytes: int = 0
    private_bytes: int = 0
    loops: int = 0


_KERNEL = re.compile(r"__global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(")
_ARRAY = re.compile(r"^\s*(__shared__\s+)?((?:(?:unsigned|signed|long|short)\s+)*(?:double|float|int|char|long|short"
                    r"|unsigned))\s+(\w+)((?:\[\d+\])*)\s*;")
_LOOP = re.compile(r"^\s*(?:for|while|do)\b")


def kernel_bodies(kernel_file: str) -> dict[str, KernelBody]:
    """Per kernel function, its `__shared__` arrays, its other local (private) arrays and
    scalars, and its loops."""
    result: dict[str, KernelBody] = {}
    current: str | None = None
    for line in kernel_file.splitlines():
        if (match := _KERNEL.search(line)) is not None:
            current = match.group(1)
            result[current] = KernelBody()
        elif current is not None and _LOOP.match(line):
            result[current] = replace(result[current], loops=result[current].loops + 1)
        elif current is not None and (match := _ARRAY.match(line)) is not None:
            shared, ctype, _, dims = match.groups()
            size = math.prod(int(extent) for extent in re.findall(r"\d+", dims)) * TYPE_BYTES[" ".join(ctype.split())]
            old = result[current]
            result[current] = (replace(old, shared_arrays=old.shared_arrays + 1, shared_bytes=old.shared_bytes + size)
                               if shared else replace(old, private_bytes=old.private_bytes + size))
    return result


# -- one benchmark kernel -------------------------------------------------------
@dataclass(frozen=True)
class Launch:
    """A launch site evaluated at the dataset: sizes are dim3 order (x, y, z); a grid
    dimension that moves with the host loops is (smallest, largest)."""

    kernel: str
    block: tuple[int, ...]
    grid: tuple[tuple[int, int], ...]
    runs: int | None            # times it runs (None: not counted)

    @property
    def single_thread(self) -> bool:
        return all(b == 1 for b in self.block) and all(hi == 1 for _, hi in self.grid)


@dataclass(frozen=True)
class KernelMapping:
    """How ppcg-py maps one benchmark kernel."""

    name: str
    launches: tuple[Launch, ...]
    bodies: Mapping[str, KernelBody]
    device_bytes: int
    parameters: Mapping[str, int]
    notes: tuple[str, ...] = ()

    @property
    def single_thread(self) -> int:
        return sum(launch.single_thread for launch in self.launches)

    @property
    def serial_loop_nests(self) -> int:
        """Single-thread launches of a kernel with loops (worse than a scalar update)."""
        return sum(launch.single_thread and self.bodies.get(launch.kernel, KernelBody()).loops > 0
                   for launch in self.launches)

    @property
    def shared_arrays(self) -> int:
        return sum(b.shared_arrays for b in self.bodies.values())


def compile_options(kernel: Kernel, dataset: str, ppcg_args: Sequence[str] = ()) -> Options:
    """ppcg-py's options for `kernel` at `dataset`, with `ppcg_args` (command-line options
    of ppcg-py, e.g. `--tile-size=16`) read by ppcg-py's own parser."""
    from ppcg_py.cli import build_parser, options_from

    flags = compile_flags(kernel, dataset)
    args = build_parser().parse_args([*flags, *ppcg_args, str(source_path(kernel))])
    if getattr(args, "sizes_file", None) is not None:
        from ppcg_py.schedule.sizes import read_sizes_file
        args.sizes = read_sizes_file(args.sizes_file)
    return options_from(args)


def compile_kernel(kernel: Kernel, dataset: str, ppcg_args: Sequence[str] = ()) -> Compilation:
    """Run every stage in this process, keeping what each learnt (the CLI keeps only the files)."""
    options = compile_options(kernel, dataset, ppcg_args)
    ctx = new_context(serialize_sccs=options.serialize_sccs, whole_component=options.whole_component,
                      outer_coincidence=options.outer_coincidence, max_coefficient=options.max_coefficient,
                      feautrier=options.feautrier)
    run = StageRun(options, ctx, Diagnostics())
    compilation = Compilation(str(source_path(kernel)))
    for stage in STAGES:
        compilation = stage.run(compilation, run.of(stage.name))
    return compilation


def dataset_parameters(compilation: Compilation, kernel: Kernel, dataset: str) -> dict[str, int]:
    """The values of every SCoP parameter in the run that the benchmark's main makes."""
    env: dict[str, int] = {}
    for scop in compilation.program.scops:
        env.update(parameter_values(source_path(kernel), compile_flags(kernel, dataset), scop.function,
                                    scop.parameters))
    return env


def map_kernel(kernel: Kernel, dataset: str = "LARGE", ppcg_args: Sequence[str] = ()) -> KernelMapping:
    """Compile `kernel` at `dataset` and measure its mapping from the generated files."""
    compilation = compile_kernel(kernel, dataset, ppcg_args)
    env = dataset_parameters(compilation, kernel, dataset)
    files = compilation.files
    launches = tuple(evaluate_launch(site, env) for site in launch_sites(files.host))
    bodies = kernel_bodies(files.kernel)
    notes = _missing_parameters(compilation, env) + _disagreements(compilation, launches, bodies)
    return KernelMapping(kernel.name, launches, bodies, allocated_bytes(files.host, env), env, notes)


def evaluate_launch(site: LaunchSite, env: Mapping[str, int]) -> Launch:
    """The launch's sizes at `env`; a grid that moves with the host loops as its range
    over every iteration (or over the loops' first and last values, when too many)."""
    block = tuple(c_value(b, env) for b in site.block)
    try:
        runs: int | None = sum(times for _, times in executions(site.scopes, env, frozenset(), [COUNT_BUDGET]))
    except OverBudget:
        runs = None
    reads = frozenset().union(*(names_in(g) for g in site.grid))
    try:
        settings = [e for e, _ in executions(site.scopes, env, reads, [COUNT_BUDGET])]
    except OverBudget:
        settings = list(corner_environments(site.scopes, env))
    grid = tuple((min(sizes), max(sizes)) if (sizes := [c_value(g, e) for e in settings]) else (0, 0)
                 for g in site.grid)
    return Launch(site.kernel, block, grid, runs)


def _missing_parameters(compilation: Compilation, env: Mapping[str, int]) -> tuple[str, ...]:
    missing = sorted({p for scop in compilation.program.scops for p in scop.parameters} - set(env))
    return (f"no value for {', '.join(missing)}",) if missing else ()


def _disagreements(compilation: Compilation, launches: Sequence[Launch],
                   bodies: Mapping[str, KernelBody]) -> tuple[str, ...]:
    """Where the compiler's own results differ from the generated files (a bug in one or the other)."""
    notes = []
    # a device loop's kernels run inside its one launch (ppcg_py/schedule/gpu/device_loops.py)
    planned = {k.launched_in or k.name for scheduled, _ in compilation.plans for k in scheduled.kernels}
    launched = {launch.kernel for launch in launches}
    if planned != launched:
        notes.append(f"kernels planned {len(planned)}, launched {len(launched)}")
    owner = {k.name: k.launched_in or k.name for scheduled, _ in compilation.plans for k in scheduled.kernels}
    buffers: dict[str, tuple[int, int]] = {}        # per function: a device loop's kernels together
    for _, plan in compilation.plans:
        for kmem in plan.kernels:
            private = sum(g.bytes for g in kmem.groups if g.placement == "private")
            shared, privates = buffers.get(owner.get(kmem.kernel, kmem.kernel), (0, 0))
            buffers[owner.get(kmem.kernel, kmem.kernel)] = (shared + kmem.shared_bytes, privates + private)
    for name, (shared, private) in buffers.items():
        text = bodies.get(name, KernelBody())
        if (shared, private) != (text.shared_bytes, text.private_bytes):
            notes.append(f"{name}: planned shared/private {shared}/{private} B, "
                         f"declared {text.shared_bytes}/{text.private_bytes} B")
    return tuple(notes)


# -- the report -----------------------------------------------------------------
def _dims(values: Sequence[int]) -> str:
    return "x".join(str(v) for v in values)


def _grid(grid: Sequence[tuple[int, int]]) -> str:
    return "x".join(str(lo) if lo == hi else f"{lo}..{hi}" for lo, hi in grid)


def _tally(items: Sequence[str]) -> str:
    """Distinct values in first-seen order, with how often each occurs (`16x32 (3), 1 (2)`)."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return ", ".join(item if n == 1 else f"{item} ({n})" for item, n in counts.items())


def _runs(launches: Sequence[Launch], keep: Callable[[Launch], bool] = lambda _: True) -> str:
    counts = [launch.runs for launch in launches if keep(launch)]
    return "-" if None in counts else str(sum(counts))


def table_row(m: KernelMapping) -> str:
    ppcg = PPCG_MAPPING.get(m.name)
    theirs = (lambda k: str(ppcg[k])) if ppcg else (lambda k: "-")
    shared = max((b.shared_bytes for b in m.bodies.values()), default=0)
    private = max((b.private_bytes for b in m.bodies.values()), default=0)
    cells = [m.name, str(len(m.launches)), theirs(0), str(m.single_thread), theirs(1), str(m.serial_loop_nests),
             f"{_runs(m.launches)} / {_runs(m.launches, lambda launch: launch.single_thread)}",
             _tally([_dims(launch.block) for launch in m.launches]),
             _tally([_grid(launch.grid) for launch in m.launches]),
             str(m.shared_arrays), theirs(2), str(shared), str(private), f"{m.device_bytes / 1e6:.2f}",
             "; ".join(m.notes)]
    return "| " + " | ".join(cells) + " |"


TABLE_HEADER = ("| kernel | launches | PPCG | single-thread | PPCG | ... with loops | runs / single-thread runs "
                "| threads per block | blocks | `__shared__` arrays | PPCG | shared B (max/kernel) | private B (max/thread) "
                "| device MB | notes |")


def details(m: KernelMapping) -> list[str]:
    """One line per launch site: its sizes, runs, buffers and loops."""
    lines = [f"- **{m.name}** ({', '.join(f'{k}={v}' for k, v in m.parameters.items())}; "
             f"{m.device_bytes} device bytes)"]
    for launch in m.launches:
        b = m.bodies.get(launch.kernel, KernelBody())
        lines.append(f"  - {launch.kernel}: {_dims(launch.block)} threads x {_grid(launch.grid)} blocks, "
                     f"runs {launch.runs if launch.runs is not None else '-'}, shared {b.shared_bytes} B "
                     f"in {b.shared_arrays} arrays, private {b.private_bytes} B, {b.loops} loops")
    return lines


def summary(results: Sequence[KernelMapping]) -> list[str]:
    """Totals, and where we launch more (single-thread) kernels than PPCG."""
    compared = [m for m in results if m.name in PPCG_MAPPING]
    more_single = [f"{m.name} ({m.single_thread} vs {PPCG_MAPPING[m.name][1]})" for m in compared
                   if m.single_thread > PPCG_MAPPING[m.name][1]]
    more_launches = [f"{m.name} ({len(m.launches)} vs {PPCG_MAPPING[m.name][0]})" for m in compared
                     if len(m.launches) > PPCG_MAPPING[m.name][0]]
    return [f"- kernels launched: {sum(len(m.launches) for m in results)} in all; over the {len(compared)} that "
            f"PPCG compiles, {sum(len(m.launches) for m in compared)} (PPCG: "
            f"{sum(PPCG_MAPPING[m.name][0] for m in compared)})",
            f"- single-thread kernels: {sum(m.single_thread for m in results)} in all; over the {len(compared)}, "
            f"{sum(m.single_thread for m in compared)} (PPCG: {sum(PPCG_MAPPING[m.name][1] for m in compared)})",
            f"- more single-thread kernels than PPCG: {', '.join(more_single) or 'none'}",
            f"- single-thread kernels with loops: {sum(m.serial_loop_nests for m in results)} ("
            f"{', '.join(f'{m.name} {m.serial_loop_nests}' for m in results if m.serial_loop_nests) or 'none'})",
            f"- more launches than PPCG: {', '.join(more_launches) or 'none'}",
            f"- `__shared__` arrays: {sum(m.shared_arrays for m in compared)} (PPCG: "
            f"{sum(PPCG_MAPPING[m.name][2] for m in compared)})"]


def _commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=ROOT, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, cwd=ROOT).stdout.strip()
        return head + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def report(results: Sequence[KernelMapping], dataset: str, failures: Sequence[str], command: str) -> str:
    header = [f"# How ppcg-py maps the PolyBench/C 4.2.1 kernels ({dataset})", "",
              f"- date: {datetime.date.today()}",
              f"- machine: {platform.node()}, {platform.machine()}, {os.cpu_count()} cores, "
              f"Python {platform.python_version()}",
              f"- commit: {_commit()}",
              f"- command: `{command}`",
              "- PPCG: PPCG 0.09 at LARGE, default options (heat-3d: PPCG gives no output)",
              *summary(results), *(f"- failed: {f}" for f in failures), "",
              "Launches are launch sites in the host code; single-thread: one thread in one block "
              "(with loops: whose kernel has a loop, so a loop nest runs on one thread). "
              "Runs: launches made by one run at this dataset (`-`: too many host iterations to count). "
              "Threads per block and blocks are dim3 order (x first), each distinct value with its count; "
              "`a..b`: a grid that moves with the host loops (smallest..largest). Shared and private bytes "
              "are the largest of one kernel (private: per thread, local arrays and scalars). Device MB: all "
              "cudaMalloc sizes (10^6 bytes). Notes: where the compiler's plan and its output disagree.", "",
              TABLE_HEADER, "|" + " --- |" * (TABLE_HEADER.count("|") - 1)]
    rows = [table_row(m) for m in results]
    lines = header + rows + ["", "## Per launch site", ""] + [line for m in results for line in details(m)]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*")
    parser.add_argument("--dataset", default="LARGE")
    parser.add_argument("--out", default=None, help="write the Markdown report here (default: stdout)")
    parser.add_argument("--ppcg-arg", action="append", default=[], metavar="ARG",
                        help="an option for ppcg-py (repeatable): --ppcg-arg=--sizes=ppcg")
    args = parser.parse_args()
    results, failures = [], []
    for kernel in KERNELS:
        if args.kernels and kernel.name not in args.kernels:
            continue
        try:
            results.append(map_kernel(kernel, args.dataset, args.ppcg_arg))
        except Exception as exc:  # noqa: BLE001 - one kernel's failure is a row of the report
            failures.append(f"{kernel.name}: {type(exc).__name__}: {exc}")
    text = report(results, args.dataset, failures, f"python benchmarks/mapping.py {' '.join(sys.argv[1:])}".strip())
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
