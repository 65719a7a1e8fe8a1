"""codegen: CUDA host and kernel source from the isl AST, through Jinja templates."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

import islpy as isl
import jinja2

from ..isl_context import sets_of
from ..memory import MemoryPlan
from ..schedule import Kernel, ScheduledScop
from .ast_gen import Launch, ScopAst, array_extents, build_ast
from .expr import c_expr
from .printer import AstPrinter

_ENV = jinja2.Environment(loader=jinja2.PackageLoader("ppcg_py.codegen", "templates"),
                          trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                          undefined=jinja2.StrictUndefined)


@dataclass(frozen=True)
class GeneratedFiles:
    """The three outputs for input `name.c`: contents keyed by file name."""

    host_name: str
    kernel_name: str
    header_name: str
    host: str
    kernel: str
    header: str

    def items(self) -> list[tuple[str, str]]:
        return [(self.host_name, self.host), (self.kernel_name, self.kernel),
                (self.header_name, self.header)]


@dataclass(frozen=True)
class _KernelText:
    name: str
    parameters: str
    id_lines: list[str]
    body: list[str]


def generate(source_path: str, source_text: str,
             scops: list[tuple[ScheduledScop, MemoryPlan]]) -> GeneratedFiles:
    stem = os.path.splitext(os.path.basename(source_path))[0]
    header_name = f"{stem}_kernel.hu"
    lines = source_text.splitlines()
    kernels: list[_KernelText] = []
    replacements = []
    for scheduled, memory in scops:
        host_lines, texts = _scop_code(scheduled, memory, lines)
        kernels += texts
        replacements.append((scheduled.scop.start_line, scheduled.scop.end_line, host_lines))
    for start, end, host_lines in sorted(replacements, reverse=True):
        lines[start - 1:end] = host_lines
    host = f'#include "{header_name}"\n' + "\n".join(lines) + "\n"
    guard = "PPCG_PY_" + re.sub(r"\W", "_", stem).upper() + "_KERNEL_HU"
    source = os.path.basename(source_path)
    header = _ENV.get_template("kernel_header.hu.j2").render(source=source, guard=guard, kernels=kernels)
    kernel = _ENV.get_template("kernel.cu.j2").render(source=source, header=header_name, kernels=kernels)
    return GeneratedFiles(f"{stem}_host.cu", f"{stem}_kernel.cu", header_name, host, kernel, header)


def _scop_code(scheduled: ScheduledScop, memory: MemoryPlan, lines: list[str]):
    scop = scheduled.scop
    indent = re.match(r"\s*", lines[scop.start_line - 1]).group(0)
    ast = build_ast(scheduled, memory)
    extents = array_extents(scheduled)
    devices = [_device_view(dev, extents[dev.array.name], scheduled.names.device) for dev in memory.arrays]
    kernels: list[_KernelText] = []

    def on_mark(name: str, body: isl.AstNode, at: str) -> list[str]:
        launch = ast.launches[name]
        args = _kernel_arguments(scheduled, memory, launch)
        kernels.append(_kernel_text(launch, args, ast, body))
        return _launch_lines(launch, args, scheduled.names.device, at)

    body = AstPrinter(ast.statements, on_mark).lines(ast.root, indent + "    ")
    guard_expr = isl.AstBuild.from_context(scop.context).expr_from_set(
        scop.domain.params().intersect(scop.context).coalesce())
    host = _ENV.get_template("host_scop.c.j2").render(
        i=indent, function=scop.function, start=scop.start_line, end=scop.end_line,
        devices=devices, body=body, guard=c_expr(guard_expr))
    return host.rstrip("\n").split("\n"), kernels


def _device_view(dev, extents: list[str], prefix: str) -> dict:
    arr = dev.array
    size = " * ".join(f"({e})" for e in extents) if extents else "1"
    return {"type": arr.element_type, "device": prefix + arr.name,
            "host": arr.name if not arr.is_scalar else f"&{arr.name}",
            "bytes": f"({size}) * sizeof({arr.element_type})",
            "copy_in": dev.copy_in, "copy_out": dev.copy_out}


@dataclass(frozen=True)
class _Argument:
    declaration: str   # in the kernel's parameter list
    value: str         # at the launch (a device pointer gets the device prefix)
    is_device: bool


def _kernel_arguments(scheduled: ScheduledScop, memory: MemoryPlan, launch: Launch) -> list[_Argument]:
    scop = scheduled.scop
    names = _statement_names(launch.kernel.domain)
    stmts = [s for s in scop.statements if s.name in names]
    used_arrays = {acc.array for s in stmts for acc in s.accesses}
    used_ids = {n for s in stmts for n in _identifiers(s.body)}
    args = [_Argument(f"{dev.array.element_type} *{dev.array.name}", dev.array.name, True)
            for dev in memory.arrays if dev.array.name in used_arrays]
    args += [_Argument(f"{t} {p}", p, False) for p, t in zip(scop.parameters, scop.parameter_types)]
    args += [_Argument(f"{t} {n}", n, False) for n, t in scop.scalars_read_only if n in used_ids]
    args += [_Argument(f"int {c}", c, False) for c in scheduled.names.iterators(launch.host_depth)]
    return args


def _kernel_text(launch: Launch, args: list[_Argument], ast: ScopAst, body: isl.AstNode) -> _KernelText:
    kernel = launch.kernel
    id_lines = []
    axes = ["x", "y", "z"]
    if kernel.block_ids:
        pairs = [f"{b} = blockIdx.{axes[len(kernel.block_ids) - 1 - k]}" for k, b in enumerate(kernel.block_ids)]
        id_lines.append("int " + ", ".join(pairs) + ";")
    if kernel.thread_ids:
        pairs = [f"{t} = threadIdx.{axes[len(kernel.thread_ids) - 1 - k]}" for k, t in enumerate(kernel.thread_ids)]
        id_lines.append("int " + ", ".join(pairs) + ";")
    parameters = ", ".join(a.declaration for a in args) or "void"
    return _KernelText(kernel.name, parameters, id_lines, AstPrinter(ast.statements).lines(body, "  "))


def _launch_lines(launch: Launch, args: list[_Argument], device_prefix: str, at: str) -> list[str]:
    kernel: Kernel = launch.kernel
    k = f"k{kernel.index}"
    block = ", ".join(str(b) for b in reversed(kernel.sizes.block)) or "1"
    grid = ", ".join(reversed(launch.grid)) or "1"
    values = ", ".join(device_prefix + a.value if a.is_device else a.value for a in args)
    return [f"{at}{{", f"{at}  dim3 {k}_dimBlock({block});", f"{at}  dim3 {k}_dimGrid({grid});",
            f"{at}  {kernel.name} <<<{k}_dimGrid, {k}_dimBlock>>> ({values});",
            f"{at}  cudaCheckKernel();", f"{at}}}"]


def _statement_names(domain: isl.UnionSet) -> set[str]:
    return {s.get_tuple_name() for s in sets_of(domain)}


def _identifiers(node) -> set[str]:
    from pycparser import c_ast
    found = {node.name} if isinstance(node, c_ast.ID) else set()
    for _, child in node.children():
        found |= _identifiers(child)
    return found
