"""codegen: CUDA host and kernel source from the isl AST, through Jinja templates."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

import islpy as isl
import jinja2

from ..isl_context import sets_of
from ..memory import DeviceArray, MemoryPlan
from ..options import Options
from ..schedule import Kernel, ScheduledScop
from .ast_gen import Launch, array_extents, build_ast
from .kernel_ast import KernelBody
from .expr import c_expr, param_expr
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


def generate(source_path: str, source_text: str, scops: list[tuple[ScheduledScop, MemoryPlan]],
             options: Options | None = None) -> GeneratedFiles:
    stem = os.path.splitext(os.path.basename(source_path))[0]
    header_name = f"{stem}_kernel.hu"
    lines = source_text.splitlines()
    kernels: list[_KernelText] = []
    replacements = []
    for scheduled, memory in scops:
        host_lines, texts = _scop_code(scheduled, memory, lines, options or Options())
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


def _scop_code(scheduled: ScheduledScop, memory: MemoryPlan, lines: list[str], options: Options):
    scop = scheduled.scop
    indent = re.match(r"\s*", lines[scop.start_line - 1]).group(0)
    ast = build_ast(scheduled, memory)
    extents = array_extents(scheduled)
    nonempty = scop.domain.params().intersect(scop.context).coalesce()
    devices = [_device_view(dev, extents[dev.array.name], scheduled.names.device, nonempty)
               for dev in memory.arrays]
    kernels: list[_KernelText] = []

    printed: set[str] = set()

    def on_mark(name: str, _body: isl.AstNode, at: str) -> list[str]:
        launch = ast.launches[name].pop(0)
        args = _kernel_arguments(scheduled, memory, launch)
        if name not in printed:  # isl may place one kernel at several points of the host code
            printed.add(name)
            kernel_memory = memory.kernels[[k.name for k in scheduled.kernels].index(name)]
            body = KernelBody(scop, launch.kernel, kernel_memory, extents, scheduled.names.iterator,
                              unroll_copy_shared=options.unroll_copy_shared,
                              unroll_gpu_tile=options.unroll_gpu_tile).lines()
            kernels.append(_kernel_text(launch, args, body))
        return _launch_lines(launch, args, scheduled.names.device, at)

    body = AstPrinter({}, on_mark).lines(ast.root, indent + "    ")
    guard_expr = isl.AstBuild.from_context(scop.context).expr_from_set(nonempty)
    host = _ENV.get_template("host_scop.c.j2").render(
        i=indent, function=scop.function, start=scop.start_line, end=scop.end_line,
        devices=devices, body=body, guard=c_expr(guard_expr))
    return host.rstrip("\n").split("\n"), kernels


def _device_view(dev: DeviceArray, extents: list[str], prefix: str, context: isl.Set) -> dict:
    arr = dev.array
    size = " * ".join(f"({e})" for e in extents) if extents else "1"
    return {"type": arr.element_type, "device": prefix + arr.name,
            "bytes": f"({size}) * sizeof({arr.element_type})",
            "copy_in": _transfer(dev, dev.in_box, extents, prefix, context, to_device=True),
            "copy_out": _transfer(dev, dev.out_box, extents, prefix, context, to_device=False)}


def _transfer(dev: DeviceArray, box, extents: list[str], prefix: str, context: isl.Set,
              *, to_device: bool) -> list[str]:
    """The copy of one box of an array (nothing when it does not cross that way).

    One dimension: a contiguous range; more: a cudaMemcpy2D rectangle over the two
    outer dimensions, inner dimensions whole. Guarded by where the box exists.
    """
    if not (dev.copy_in if to_device else dev.copy_out):
        return []
    arr = dev.array
    t, device, host = arr.element_type, prefix + arr.name, f"(({arr.element_type} *) {arr.name})"
    kind = "cudaMemcpyHostToDevice" if to_device else "cudaMemcpyDeviceToHost"
    if arr.is_scalar:
        src, dst = (f"&{arr.name}", device) if to_device else (device, f"&{arr.name}")
        return [f"cudaCheckReturn(cudaMemcpy({dst}, {src}, sizeof({t}), {kind}));"]
    (lo0, hi0), *rest = [(param_expr(lo, context), param_expr(hi, context)) for lo, hi in box]
    inner = " * ".join(f"({e})" for e in extents[2:]) or "1"
    if not rest:
        offset, count = f"({lo0})", f"(({hi0}) - ({lo0}) + 1)"
        src, dst = (f"{host} + {offset}", f"{device} + {offset}")
        if not to_device:
            src, dst = dst, src
        call = f"cudaMemcpy({dst}, {src}, {count} * sizeof({t}), {kind})"
    else:
        lo1, hi1 = rest[0]
        row = f"({extents[1]}) * {inner}"
        offset = f"({lo0}) * {row} + ({lo1}) * {inner}"
        src, dst = (f"{host} + {offset}", f"{device} + {offset}")
        if not to_device:
            src, dst = dst, src
        pitch = f"{row} * sizeof({t})"
        call = (f"cudaMemcpy2D({dst}, {pitch}, {src}, {pitch}, (({hi1}) - ({lo1}) + 1) * {inner} * sizeof({t}), "
                f"({hi0}) - ({lo0}) + 1, {kind})")
    where = box[0][0].domain().intersect(box[-1][1].domain()).gist(context.align_params(box[0][0].get_space())
                                                                   .params())
    line = f"cudaCheckReturn({call});"
    if where.is_universe() if hasattr(where, "is_universe") else False:
        return [line]
    condition = c_expr(isl.AstBuild.from_context(context).expr_from_set(where.align_params(context.get_space())))
    return [line] if condition == "1" else [f"if ({condition})", f"  {line}"]


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
    args += [_Argument(f"int {c}", value, False)
             for c, value in zip(scheduled.names.iterators(launch.host_depth), launch.host_values)]
    return args


def _kernel_text(launch: Launch, args: list[_Argument], body: list[str]) -> _KernelText:
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
    return _KernelText(kernel.name, parameters, id_lines, body)


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
