"""Which path a SCoP takes at run time: the device's, or the host's.

For the GPU targets each SCoP that launches kernels is also compiled as the C target
compiles it, and its host code asks, just before the SCoP, what to run:

    if (ppcg_py_on_device("f, lines 12-30", device_seconds, host_operations, regions)) ...

The helpers (the kernel header's, or the OpenCL host file's) take the host path when
no device is usable (the runtime finds none) and otherwise when the model predicts
the device's copies, launches and kernels slower than the host's loops.
`PPCG_PY_DEVICE=gpu` or `cpu` in the environment overrides the choice.

The arguments are C expressions of the SCoP's parameters, evaluated on the run's
values: a few multiply-adds. Statement instances are counted by the box around each
statement's iteration domain (the product of its loops' extents: a triangular nest
counts twice its size), and an instance costs one operation plus one per arithmetic
operator, call and memory access of its statement. Per kernel the device takes its
launches times the launch cost, plus the larger of its operations over the threads
that run them (a launch's instances spread over its grid, up to one full wave of the
card) and its accessed bytes over the card's memory bandwidth; each array that
crosses costs its whole size over the host link and a fixed cost per copy. The host
runs its operations at `PPCG_PY_HOST_RATE` per second and thread (1e10 unless set),
on the OpenMP threads where its parallel loops have work enough: each start of one (the
box of the loops around it) must bring `PPCG_PY_REGION_OPERATIONS` operations on average,
else the host path's regions run on one thread (`if(ppcg_py_host_parallel)` on their
pragmas: a region per step of a serial loop costs more than a short loop's work).
docs/user-guide.md says how
to read and tune the rule.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from pycparser import c_ast, c_generator

from ..extract.model import Scop, Statement
from ..gpu_targets import GPUS, GpuTarget
from ..isl_budget import LIMITS, refinement
from ..memory import MemoryPlan
from ..schedule.cpu import CpuSchedule
from ..schedule.gpu import GpuSchedule
from ..schedule.gpu.kernels import Kernel
from ..schedule.gpu.work import box, launches, sets, starts
from .ast import ScopAst
from .c_target import scop_lines
from .common import array_extents
from .counts import CountPrinter, added

# what one transfer costs besides its bytes (a synchronous cudaMemcpy's latency)
COPY_LATENCY = 1e-5
# the host's operations per second and thread (PPCG_PY_HOST_RATE sets it at run time):
# between gcc's stencils (1.5e10 at LARGE) and the serial factorizations
HOST_RATE = 1e10
_BYTES = {"double": 8, "float": 4, "int": 4, "long": 8, "char": 1, "short": 2}


@dataclass(frozen=True)
class PathCosts:
    """The run-time choice of one SCoP, as C expressions of its parameters."""

    device_seconds: str     # the copies, launches and kernels of the device path
    host_operations: str    # the host path's operations
    host_regions: str       # how often the host path's OpenMP loops start (0: it has none)

    def call(self, label: str) -> str:
        """`ppcg_py_on_device(...)`: 1 where the SCoP runs on the device."""
        return (f'ppcg_py_on_device("{label}", {self.device_seconds}, {self.host_operations}, '
                f'{self.host_regions})')


def path_costs(gpu: GpuSchedule, memory: MemoryPlan, host: CpuSchedule,
               extents: dict[str, list[c_ast.Node]]) -> PathCosts:
    """The device path's predicted seconds and the host path's operations of one SCoP;
    where isl cannot print a count or needs more than LIMITS.path_costs operations for
    them, the device wherever one is usable."""
    costs = refinement(gpu.scop.ctx, LIMITS.path_costs, lambda: _path_costs(gpu, memory, host, extents))
    return costs if costs is not None else PathCosts("0.0", "1e300", "1.0" if host.parallel else "0.0")


def _path_costs(gpu: GpuSchedule, memory: MemoryPlan, host: CpuSchedule,
                extents: dict[str, list[c_ast.Node]]) -> PathCosts:
    scop = gpu.scop
    printer = CountPrinter(scop.context)
    statements = {s.name: s for s in scop.statements}
    kernels = [_kernel_seconds(k, statements, scop, printer) for k in gpu.kernels]
    copies = _copy_seconds(memory, extents)
    host_ops = printer.count(*(box(s.domain, scop.context, _operations(s)) for s in scop.statements))
    regions = printer.count(*(starts(loop.host_schedule, loop.domain, scop.context) for loop in host.parallel))
    return PathCosts(added(kernels + [copies]), host_ops, regions)


def _kernel_seconds(kernel: Kernel, statements: dict[str, Statement], scop: Scop, printer: CountPrinter) -> str:
    """`ppcg_py_kernel_seconds(launches, instances, operations, bytes, threads)`."""
    parts = [s for s in sets(kernel.counted_instances) if s.get_tuple_name() in statements]

    def total(weight) -> str:
        return printer.count(*(box(s, scop.context, weight(statements[s.get_tuple_name()]) * kernel.counted_share)
                               for s in parts))

    instances = total(lambda _: 1)
    operations = total(_operations)
    accessed = total(lambda stmt: _bytes(stmt, scop))
    launched = printer.count(launches(kernel, scop.context))
    threads = math.prod(kernel.sizes.block[:len(kernel.thread_ids)]) if kernel.sizes.tile else 1
    if kernel.sizes.tile and not kernel.launched_in:
        threads *= math.prod(kernel.sizes.grid[:len(kernel.block_ids)])
    return f"ppcg_py_kernel_seconds({launched}, {instances}, {operations}, {accessed}, {threads}.0)"


def _copy_seconds(memory: MemoryPlan, extents: dict[str, list[c_ast.Node]]) -> str:
    """`ppcg_py_copy_seconds(bytes, copies)`: each crossing array whole, each way it crosses."""
    parts, copies = [], 0
    for dev in memory.arrays:
        ways = int(dev.copy_in) + int(dev.copy_out)
        if not ways:
            continue
        copies += ways
        rank = len(extents.get(dev.array.name, []))
        size = _product([_C.visit(e) for e in extents.get(dev.array.name, [])])
        # a struct's element by the program's own variable: the host file may not know the
        # device's name of its type (a host file that stays C)
        element = dev.array.name + "[0]" * rank if dev.array.element_type.startswith("struct ppcg_") \
            else dev.array.element_type
        parts.append(f"{ways} * {size} * sizeof({element})")
    return f"ppcg_py_copy_seconds({' + '.join(parts) or '0.0'}, {copies})"


def _product(extents: list[str]) -> str:
    """The product of C extents in double, a number where each is one."""
    if all(e.isdigit() for e in extents):
        return repr(float(math.prod(int(e) for e in extents)))
    return " * ".join(f"(double) ({e})" for e in extents)


def _operations(statement: Statement) -> int:
    """One operation per instance, plus one per arithmetic operator, call and access."""
    nodes = _Count()
    nodes.visit(statement.body)
    return 1 + nodes.count + len(statement.accesses)


def _bytes(statement: Statement, scop: Scop) -> int:
    """The bytes an instance's accesses move."""
    types = {a.name: a.element_type for a in scop.arrays}
    return sum(_BYTES.get(types.get(a.array, "double").split()[-1], 8) for a in statement.accesses) or 1


class _Count(c_ast.NodeVisitor):
    def __init__(self) -> None:
        self.count = 0

    def generic_visit(self, node: c_ast.Node) -> None:
        if isinstance(node, (c_ast.BinaryOp, c_ast.UnaryOp, c_ast.FuncCall, c_ast.TernaryOp)) or \
                (isinstance(node, c_ast.Assignment) and node.op != "="):
            self.count += 1
        for _, child in node.children():
            self.visit(child)


_C = c_generator.CGenerator()


def with_host_path(device_lines: list[str], gpu: GpuSchedule, memory: MemoryPlan,
                   host_path: tuple[CpuSchedule, ScopAst], indent: str) -> list[str]:
    """A SCoP's device code (`device_lines`, printed at `indent` plus two spaces) and its
    host path, one of the two run as `ppcg_py_on_device` says."""
    host, ast = host_path
    scop = gpu.scop
    label = f"{scop.function}, lines {scop.start_line}-{scop.end_line}"
    costs = path_costs(gpu, memory, host, array_extents(gpu))
    return [f"{indent}/* SCoP of {label}: on the device, or on the host where no device is usable or the "
            f"model predicts it faster (PPCG_PY_DEVICE=gpu|cpu overrides) */",
            f"{indent}if ({costs.call(label)}) {{", *_inner(device_lines, "device path"), f"{indent}}} else {{",
            *_inner(_regions_when_worth_it(scop_lines(host, ast, indent + "  ", True, True)), "host path"),
            f"{indent}}}"]


def _regions_when_worth_it(lines: list[str]) -> list[str]:
    """The host path's OpenMP regions, each started on the threads only where the choice
    found its work enough (`ppcg_py_host_parallel`, set by `ppcg_py_on_device`)."""
    return [line + " if(ppcg_py_host_parallel)" if re.match(r"\s*#pragma omp parallel\b", line) else line
            for line in lines]


def _inner(lines: list[str], path: str) -> list[str]:
    """A path's code, its head comment naming the path (the SCoP is named once, above)."""
    head = re.sub(r"/\* SCoP of \w+(?:, lines \d+-\d+)?(?:, |: )(.*) \*/", rf"/* {path}: \1 */", lines[0]) \
        if lines else ""
    return [head, *lines[1:]] if lines else lines


def host_path_constants(gpu: str) -> dict[str, str]:
    """What the run-time helpers know of the card the kernels were sized for (--gpu)."""
    card: GpuTarget = GPUS[gpu]
    return {"card": card.name, "resident_threads": f"{card.resident_threads}.0",
            "thread_rate": f"{card.fp64_flops / card.resident_threads:.4g}",
            "dram_bandwidth": f"{card.dram_bandwidth:.4g}", "launch_cost": f"{card.launch_cost:.4g}",
            "host_bandwidth": f"{card.host_bandwidth:.4g}", "copy_latency": f"{COPY_LATENCY:.4g}",
            "host_rate": f"{HOST_RATE:.4g}"}


def describe(gpu: GpuSchedule, memory: MemoryPlan, host: CpuSchedule) -> str:
    """The rule of one SCoP, for -v."""
    costs = path_costs(gpu, memory, host, array_extents(gpu))
    scop = gpu.scop
    return (f"SCoP of {scop.function} (lines {scop.start_line}-{scop.end_line}) runs on the host where no device "
            f"is usable, or where the host's {costs.host_operations} operations at PPCG_PY_HOST_RATE per second "
            f"(on the OpenMP threads where each of the {costs.host_regions} starts of its parallel loops has "
            f"PPCG_PY_REGION_OPERATIONS, else one thread) take less than the device's "
            f"{costs.device_seconds} seconds; else on the device")
