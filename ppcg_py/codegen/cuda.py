"""The `print` stage for `--target=cuda`: CUDA host and kernel source from the
SCoPs' ASTs, through Jinja templates (NAME_host.cu, NAME_kernel.cu, NAME_kernel.hu)."""
from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import islpy as isl
from pycparser import c_ast

from ..diagnostics import CompileError
from ..isl_c import c_node, integer, is_constant
from ..isl_c import call as call_node
from ..memory import DeviceArray, KernelMemory, MemoryPlan
from ..options import Options
from ..schedule.cpu import CpuSchedule
from ..schedule.gpu import GpuSchedule, Kernel
from .ast import Launch, ScopAst, in_one_block
from .common import Calls, GeneratedFiles, KernelArgument, add, array_extents, box_in_c, count, device_view
from .common import function_name, grid_sizes, guarded, host_locals, kernel_arguments, linearised_on_host
from .common import local_declarations, mul, output_templates, pointer_type, product, runs_where, scop_guard
from .common import run_time_checks, sizeof, struct_definitions
from .device_loop import device_loop_kernel, device_loop_launch, id_declarations, timed_launch
from .timing import timing_work
from .c_target import LOOP_HELPERS, scop_lines
from .path_choice import host_path_constants, with_host_path
from .reductions import block_buffers, partial_declarations
from .printer import AstPrinter, Dim3, KernelLaunch, c_lines, c_text, declaration, parameter, parameter_list
from .source import Source, escape_bytes_in_literals

if TYPE_CHECKING:
    import jinja2

__all__ = ["generate_cuda"]

# no two of a kernel's array parameters alias: each device array is an allocation of its own
RESTRICT = "__restrict__"


@dataclass(frozen=True)
class _KernelText:
    name: str
    parameters: str
    id_lines: list[str]
    body: list[str]
    max_threads: int   # threads per block: __launch_bounds__ keeps nvcc's register use launchable
    buffers: list[str] = field(default_factory=list)   # file-scope device buffers, before the function


def generate_cuda(source_path: str, source_text: str, scops: list[tuple[GpuSchedule, MemoryPlan, ScopAst]],
                  options: Options | None = None, *, host_in_c: bool = False,
                  on_host: Sequence[int] = (),
                  host_paths: Mapping[int, tuple[CpuSchedule, ScopAst]] | None = None) -> GeneratedFiles:
    """The host file and the kernel files of one input.

    With `host_in_c` (the input has C that C++ rejects: variable-length array
    parameters, ..., extract/c_only.py) the host file stays C (`NAME_host.c`): each SCoP becomes a call of an
    `extern "C"` function in the kernel file that allocates, copies and launches.
    The SCoPs that start on the lines `on_host` keep their C code, marked by a
    comment. A SCoP with a host path (`host_paths`, by first line: the C target's
    schedule and AST of it) chooses at run time between its device code and that
    (path_choice.py); with `host_in_c` the choice is made in the C host file, between
    the call of the SCoP's device function and the host path, and a SCoP that calls
    functions only the host runs has its host path alone.
    """
    options = options or Options()
    templates = output_templates()
    stem = os.path.splitext(os.path.basename(source_path))[0]
    header_name = f"{stem}_kernel.hu"
    text = Source(source_text)
    kernels: list[_KernelText] = []
    wrappers: list[str] = []
    prototypes: list[str] = []
    replacements = []
    prefix = "ppcg_" + re.sub(r"\W", "_", stem)
    chosen = False    # a SCoP of the C host file chooses its path at run time
    in_place = False  # a SCoP of the C host file runs its host path alone
    for k, (scheduled, memory, ast) in enumerate(scops):
        scop = scheduled.scop
        indent = text.indent(scop.start_line)
        host_path = (host_paths or {}).get(scop.start_line)
        if host_in_c and _calls_on_the_host(scop):
            if host_path is None:
                _no_calls_in_c_host(scop)
            host, host_ast = host_path    # the wrapper cannot make the calls: the host path alone
            in_place = True
            replacements.append((scop.start_line, scop.end_line, scop_lines(host, host_ast, indent, True, True)))
            continue
        inner = indent + "  " if host_path is not None and not host_in_c else indent
        host_lines, texts = _scop_code(scheduled, memory, ast, "  " if host_in_c else inner, options, templates,
                                       scalars_by_pointer=host_in_c)
        kernels += texts
        if host_path is not None and not host_in_c:
            host_lines = with_host_path(host_lines, scheduled, memory, host_path, indent)
        if host_in_c:
            name = f"{prefix}_scop{k}"
            signature, call = _wrapper_interface(scheduled, name)
            prototypes.append(f"{signature};")
            wrappers.append(f'extern "C" {signature}\n{{\n' + "\n".join(host_lines) + "\n}")
            host_lines = [f"{indent}{call};  /* SCoP of {scop.function}: {name} in {stem}_kernel.cu */"]
            if host_path is not None and scheduled.kernels:
                chosen = True
                host_lines = with_host_path([indent + "  " + host_lines[0].lstrip()], scheduled, memory, host_path,
                                            indent)
        replacements.append((scop.start_line, scop.end_line, host_lines))
    lines = text.spliced(replacements, on_host, checks=run_time_checks(s.scop for s, _, _ in scops))
    if host_in_c:
        top = "/* Generated by ppcg-py: the device work of each SCoP is in the kernel file. */\n"
        if chosen or in_place:     # the C target's helpers, for the host paths' loops
            top += C_HOST_HELPERS
        if chosen:                 # the run-time choice's
            top += DEVICE_QUESTION.format(prefix=prefix) + templates.get_template("host_path.h.j2").render(
                host_path=host_path_constants(options.gpu)) + "\n"
            wrappers.append(DEVICE_USABLE.format(prefix=prefix))
        host = text.text(top + "".join(f"{p}\n" for p in prototypes), lines)
    else:
        host = escape_bytes_in_literals(text.text(f'#include "{header_name}"\n', lines))   # for nvcc
    guard = "PPCG_PY_" + re.sub(r"\W", "_", stem).upper() + "_KERNEL_HU"
    source = os.path.basename(source_path)
    header = templates.get_template("kernel_header.hu.j2").render(
        source=source, guard=guard, kernels=kernels, types=struct_definitions(s for s, _, _ in scops),
        timing=options.timing,
        host_path=host_path_constants(options.gpu) if any(not host_in_c and s.scop.start_line in (host_paths or {})
                                                           for s, _, _ in scops) else None)
    kernel = templates.get_template("kernel.cu.j2").render(source=source, header=header_name, kernels=kernels)
    if wrappers:
        kernel += "\n" + "\n\n".join(wrappers) + "\n"
    # -o names the host file; the kernel files keep the input's name, as PPCG's
    host_name = options.output_name or (f"{stem}_host.c" if host_in_c else f"{stem}_host.cu")
    return GeneratedFiles(host_name, f"{stem}_kernel.cu", header_name, host, kernel, header)


def host_variables(scop) -> list:
    """The host's variables a SCoP's code gets (Arrays): its arrays, a struct variable
    in place of its field arrays."""
    return [a for a in scop.arrays if a.member is None] + [v.array for v in scop.struct_variables]


def _wrapper_interface(scheduled: GpuSchedule, name: str) -> tuple[str, str]:
    """The C signature of a SCoP's device function and its call in the host file."""
    scop = scheduled.scop
    params = [parameter(t, p) for p, t in zip(scop.parameters, scop.parameter_types)]
    params += [parameter(t, n) for n, t in scop.scalars_read_only]
    host_arrays = [a for a in host_variables(scop) if not a.local]   # the host has no variable declared in the SCoP
    params += [parameter(a.element_type, a.name, pointer=True) if scop.struct_variable(a.name) is None
               else parameter("void", a.name, pointer=True) for a in host_arrays]
    args: list[c_ast.Node] = [c_ast.ID(p) for p in scop.parameters] + [c_ast.ID(n) for n, _ in scop.scalars_read_only]
    args += [c_ast.UnaryOp("&", c_ast.ID(a.name)) if a.is_scalar
             else c_ast.Cast(pointer_type(a.element_type if scop.struct_variable(a.name) is None else "void"),
                             c_ast.ID(a.name))
             for a in host_arrays]
    return f"void {name}({parameter_list(params)})", c_text(call_node(name, *args))


def _scop_code(scheduled: GpuSchedule, memory: MemoryPlan, ast: ScopAst, indent: str, options: Options,
               templates: jinja2.Environment, *, scalars_by_pointer: bool = False):
    scop = scheduled.scop
    extents = array_extents(scheduled)
    nonempty = runs_where(scop)
    timed = options.timing
    transfers = {(dev.array.name, way, None): _transfer(dev, extents[dev.array.name], scheduled.names.device,
                                                         nonempty, scalars_by_pointer and not dev.array.local,
                                                         to_device=way, timed=timed)
                 for dev in memory.arrays for way in (True, False)}
    transfers.update({(s.device.array.name, s.to_device, s.name): _transfer(
        s.device, extents[s.device.array.name], scheduled.names.device, nonempty,
        scalars_by_pointer and not s.device.array.local, to_device=s.to_device, timed=timed) for s in memory.syncs})
    calls = Calls(ast, extents, transfers, _by_pointer(scheduled, scalars_by_pointer) | linearised_on_host(scop))
    # a kernel gets the host's scalars by value, never through the SCoP function's pointers
    kernel_calls = Calls(ast, extents, transfers, frozenset())
    kernels: list[_KernelText] = []
    variants: dict[str, list[tuple[list[str], str]]] = {}

    def arguments(launch: Launch) -> list[KernelArgument]:
        return kernel_arguments(scheduled, memory, launch, _by_pointer(scheduled, scalars_by_pointer), RESTRICT)

    def on_mark(name: str, mark: isl.AstNode) -> list[c_ast.Node]:
        if in_one_block(name):
            loop = device_loop_kernel(name, mark, ast, kernel_calls.statements, arguments,
                                      lambda k: _declarations(memory.kernel(k)), memory.kernel,
                                      lambda k: _declarations(memory.kernel(k), whole_launch=True))
            if loop is None:      # launched from the host, kernel by kernel
                return AstPrinter(calls.statements, on_mark).statements(mark.mark_get_node())
            function = defined(name, c_lines(loop.body, "  "), loop.arguments, [], loop.threads)
            return device_loop_launch(replace(loop, name=function), timed_as=name if timed else None)
        launch = ast.launches[mark.get_annotation().get_name()]
        args = arguments(launch)
        declarations = c_lines(_declarations(memory.kernel(name)), "  ")
        body = declarations + ([""] if declarations else []) + \
            c_lines(AstPrinter(kernel_calls.statements).statements(launch.body), "  ")
        kernel = launch.kernel
        function = defined(name, body, args, _id_lines(kernel), math.prod(kernel.sizes.block[:len(kernel.thread_ids)]),
                           block_buffers(name, memory.kernel(name).groups))
        return _launch(launch, function, args, timed_as=kernel.name if timed else None)

    def defined(name: str, body: list[str], args: list[KernelArgument], id_lines: list[str], threads: int,
                buffers: list[str] = ()) -> str:
        """The function for this body of a kernel (or one-block launch): isl may generate
        its mark at several points of the host code, each time under what is known
        there, so one function per distinct body (kernelN, kernelN_1, ...)."""
        seen = variants.setdefault(name, [])
        variant = (body, parameter_list([a.declaration for a in args]))
        if variant not in seen:
            seen.append(variant)
            # the buffers go with the kernel's first function: its other bodies share them
            kernels.append(_KernelText(function_name(name, len(seen) - 1), variant[1], id_lines, body, threads,
                                       list(buffers) if len(seen) == 1 else []))
        return function_name(name, seen.index(variant))

    body = c_lines(AstPrinter(calls.statements, on_mark).statements(ast.root), indent + "    ")
    if timed:
        body = [indent + "    " + line for line in timing_work(scheduled)] + body
    devices = [device_view(dev, extents[dev.array.name], scheduled.names.device) for dev in memory.arrays]
    declared, freed = local_declarations(host_locals(scheduled), extents)
    host = templates.get_template("host_scop.c.j2").render(
        i=indent, function=scop.function, start=scop.start_line, end=scop.end_line,
        devices=devices, body=body, guard=scop_guard(scop, nonempty), locals=declared, frees=freed,
        where="on the GPU" if scheduled.kernels else "on the host (no parallelism)")
    return host.rstrip("\n").split("\n"), kernels


def _by_pointer(scheduled: GpuSchedule, scalars_by_pointer: bool) -> frozenset[str]:
    """The variables that host code reaches through a pointer: with `scalars_by_pointer`,
    every variable of the program (the SCoP's function gets their addresses), not the
    SCoP's own locals, which that function declares."""
    if not scalars_by_pointer:
        return frozenset()
    return frozenset(a.name for a in host_variables(scheduled.scop) if not a.local)


def _declarations(memory: KernelMemory, *, whole_launch: bool = False) -> list[c_ast.Node]:
    """The kernel's shared and private buffers; with `whole_launch`, those that last its
    launch of split tiles instead (declared by the launch, memory/launch_buffers.py)."""
    buffers = [declaration(g.name, None, type_name=g.element_type, dims=g.shape,
                           storage=("__shared__",) if g.placement == "shared" else ())
               for placement in ("shared", "private") for g in memory.groups
               if g.placement == placement and g.whole_launch == whole_launch]
    if whole_launch:
        return buffers
    return buffers + partial_declarations([g for g in memory.groups if g.placement == "reduction"], "__shared__")


def _calls_on_the_host(scop) -> bool:
    """Whether a statement calls a function only the host has (declared only, or with a
    PENCIL summary): in a file whose host code stays C the SCoP's device code is a C++
    function that gets each array as a flat pointer, where an argument `A[i]` or `&s` of
    such a call, printed as written, would not designate the program's memory."""
    return any(stmt.calls for stmt in scop.statements)


def _no_calls_in_c_host(scop) -> None:
    """The SCoP cannot run as a device function, and has no host path (--no-host-path)."""
    stmt = next(s for s in scop.statements if s.calls)
    raise CompileError(f"call to '{stmt.calls[0]}', which only the host runs, in a file whose CUDA host code stays "
                       "C (its device code is a C++ function that gets the arrays as flat pointers); without "
                       "--no-host-path the SCoP runs its C code on the host",
                       scop.file, stmt.line, stmt.col or 1)


# the host file that stays C: the C target's helpers for the host paths' code, and the
# question to the kernel file (C++) whether the CUDA runtime finds a device
C_HOST_HELPERS = "#include <stdio.h>\n#include <stdlib.h>\n" + LOOP_HELPERS
DEVICE_QUESTION = """\
int {prefix}_device_usable(void);
static int ppcg_py_device_usable(void) {{ return {prefix}_device_usable(); }}
"""
DEVICE_USABLE = """\
/* For the host file (C): whether the CUDA runtime finds a device (asked once). */
extern "C" int {prefix}_device_usable(void)
{{
  static int usable = -1;
  if (usable < 0) {{
    int count = 0;
    usable = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    if (!usable)
      (void) cudaGetLastError();
  }}
  return usable;
}}"""


def _transfer(dev: DeviceArray, extents: list[c_ast.Node], prefix: str, context: isl.Set,
              scalars_by_pointer: bool, *, to_device: bool, timed: bool = False) -> list[c_ast.Node]:
    """The copy of one box of an array (nothing when it does not cross that way).

    One dimension: a contiguous range; more: a cudaMemcpy2D rectangle over the two
    outer dimensions, inner dimensions whole. Guarded by where the box exists.
    `timed` (--timing): through the timing helpers, which take the same arguments.
    """
    memcpy, memcpy_2d = ("ppcg_py_timed_memcpy", "ppcg_py_timed_memcpy2D") if timed else \
        ("cudaMemcpy", "cudaMemcpy2D")
    if not (dev.copy_in if to_device else dev.copy_out):
        return []
    arr = dev.array
    box = dev.in_box if to_device else dev.out_box
    device, element = c_ast.ID(prefix + arr.name), sizeof(arr.element_type)
    kind = c_ast.ID("cudaMemcpyHostToDevice" if to_device else "cudaMemcpyDeviceToHost")
    if arr.is_scalar:
        cell = c_ast.ID(arr.name) if scalars_by_pointer else c_ast.UnaryOp("&", c_ast.ID(arr.name))
        src, dst = (cell, device) if to_device else (device, cell)
        return [call_node("cudaCheckReturn", call_node(memcpy, dst, src, element, kind))]
    placed = box_in_c(box, context)
    if placed is None:
        return []
    where, ((lo0, hi0), *rest) = placed
    host = c_ast.Cast(pointer_type(arr.element_type), c_ast.ID(arr.name))
    inner = product(extents[2:]) if extents[2:] else integer(1)
    rows = count(lo0, hi0)
    if not rest:
        src, dst = _ends(host, device, lo0, to_device)
        copy = call_node(memcpy, dst, src, mul(rows, element), kind)
    else:
        lo1, hi1 = rest[0]
        row = mul(extents[1], inner)
        offset = add(mul(lo0, row), mul(lo1, inner))
        src, dst = _ends(host, device, offset, to_device)
        pitch = mul(row, element)
        width = mul(mul(count(lo1, hi1), inner), element)
        copy = call_node(memcpy_2d, dst, pitch, src, pitch, width, rows, kind)
    return guarded(call_node("cudaCheckReturn", copy), where, context)


def _ends(host: c_ast.Node, device: c_ast.Node, offset: c_ast.Node, to_device: bool):
    """(source, destination) of a copy that starts `offset` elements in."""
    src, dst = add(host, offset), add(device, offset)
    return (src, dst) if to_device else (dst, src)


def _id_lines(kernel: Kernel) -> list[str]:
    """`int b0 = blockIdx.y, b1 = blockIdx.x;` and the same for the threads."""
    return [c_text(c_ast.DeclList(id_declarations(names, built_in))) + ";"
            for names, built_in in ((kernel.block_ids, "blockIdx"), (kernel.thread_ids, "threadIdx")) if names]


def _launch(launch: Launch, function: str, args: list[KernelArgument], *,
            timed_as: str | None = None) -> list[c_ast.Node]:
    """`{ dim3 kN_dimBlock(..); dim3 kN_dimGrid(..); kernelN <<<..>>> (..); cudaCheckKernel(); }`,
    under the launch's guard; `timed_as` (--timing): between timing calls, under that name."""
    kernel: Kernel = launch.kernel
    k = f"k{kernel.index}"
    block = [integer(b) for b in reversed(kernel.sizes.block)] or [integer(1)]
    grid = list(reversed(grid_sizes(launch))) or [integer(1)]
    body = c_ast.Compound([Dim3(f"{k}_dimBlock", block), Dim3(f"{k}_dimGrid", grid),
                           *timed_launch(KernelLaunch(function, f"{k}_dimGrid", f"{k}_dimBlock",
                                                      [a.value for a in args]), timed_as)])
    guard = c_node(launch.guard)
    if is_constant(guard, 1):
        return [body]
    return [c_ast.If(guard, body, None)]
