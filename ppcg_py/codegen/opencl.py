"""The `print` stage for `--target=opencl`: NAME_host.c and NAME_kernel.cl.

The AST is the CUDA target's; only its printing differs. The host file is the
input, each SCoP replaced by OpenCL host code: a device, context, queue and the
program built from NAME_kernel.cl (found beside the executable or in the working
directory, or embedded as a string), one buffer per device array, the same
transfers as CUDA's (`clEnqueueWriteBuffer(Rect)` / `clEnqueueReadBuffer(Rect)`),
each launch as `clSetKernelArg` and `clEnqueueNDRangeKernel` (global size = grid
× block, local size = block, x innermost as in CUDA), and every call checked. Its
helpers are static functions in the host file: it needs only a C compiler and
`-lOpenCL`. The kernels are the CUDA kernels' bodies with OpenCL C's spellings
(`get_group_id`, `__local`, `barrier`).

Variable-length array parameters need nothing special here: the host file stays C
(CUDA's host file is C++, which rejects them, hence its wrapper functions).
"""
from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import islpy as isl
from pycparser import c_ast

from ..memory import DeviceArray, KernelMemory, MemoryPlan
from ..options import Options
from ..schedule.cpu import CpuSchedule
from ..schedule.gpu import GpuSchedule
from ..isl_c import c_node, integer, is_constant
from ..isl_c import call as call_node
from .ast import Launch, ScopAst, StatementCall, SyncCall
from .common import Calls, GeneratedFiles, KernelArgument, array_extents, box_in_c, cast, count, device_view
from .common import function_name, grid_sizes, guarded, host_locals, kernel_arguments, linearised_on_host
from .common import local_declarations, mul, output_templates, pointer_type, product, runs_where, scop_guard
from .common import run_time_checks, sizeof, struct_definitions
from .timing import timing_work
from .uniform_barriers import barriers_out_of_conditions
from .path_choice import host_path_constants, with_host_path
from .reductions import partial_declarations
from .printer import AstPrinter, c_lines, c_text, declaration
from .source import Source

if TYPE_CHECKING:
    import jinja2

__all__ = ["generate_opencl"]

# C's float (and long double) variants of the math functions: OpenCL C has only
# the overloaded names (`sqrt` of a float is the float square root, as in CUDA).
_MATH = ("acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh erf erfc exp exp2 expm1 fabs "
         "fdim floor fma fmax fmin fmod hypot ilogb ldexp lgamma log log10 log1p log2 logb nextafter pow "
         "remainder rint round sin sinh sqrt tan tanh tgamma trunc").split()
_RENAMED = {f"{name}{suffix}": name for name in _MATH for suffix in ("f", "l")}


def generate_opencl(source_path: str, source_text: str, scops: list[tuple[GpuSchedule, MemoryPlan, ScopAst]],
                    options: Options, *, on_host: Sequence[int] = (),
                    host_paths: Mapping[int, tuple[CpuSchedule, ScopAst]] | None = None) -> GeneratedFiles:
    """NAME_host.c (the input with each SCoP replaced by OpenCL host code) and NAME_kernel.cl;
    with `-o HOST.c` (options.output_name), HOST.c and HOST_kernel.cl, as PPCG. A SCoP with
    a host path (`host_paths`) chooses at run time between the two (path_choice.py)."""
    host_paths = host_paths or {}
    templates = output_templates()
    stem = os.path.splitext(os.path.basename(source_path))[0]
    host_name = options.output_name or f"{stem}_host.c"
    kernel_name = (os.path.splitext(options.output_name)[0] if options.output_name else stem) + "_kernel.cl"
    text = Source(source_text)
    kernels: list[dict] = []
    replacements = []
    for scheduled, memory, ast in scops:
        scop = scheduled.scop
        indent = text.indent(scop.start_line)
        host_path = host_paths.get(scop.start_line)
        host_lines, texts = _scop_code(scheduled, memory, ast, indent + ("  " if host_path else ""), options,
                                       templates, kernel_name)
        kernels += texts
        if host_path is not None:
            host_lines = with_host_path(host_lines, scheduled, memory, host_path, indent)
        replacements.append((scop.start_line, scop.end_line, host_lines))
    lines = text.spliced(replacements, on_host, checks=run_time_checks(s.scop for s, _, _ in scops))
    source = os.path.basename(source_path)
    types = struct_definitions(s for s, _, _ in scops)   # the .cl program's and the host's (for sizeof)
    kernel = templates.get_template("kernel.cl.j2").render(
        source=source, host=host_name, kernels=kernels, includes=options.opencl_include_files, types=types,
        fp64=any(re.search(r"\bdouble\b", " ".join([k["parameters"], *k["body"]])) for k in kernels))
    prologue = templates.get_template("opencl_host.c.j2").render(
        source=source, kernel_file=kernel_name, types=types, timing=options.timing,
        embedded=_string_literal(kernel) if options.opencl_embed_kernel_code else None,
        host_path=host_path_constants(options.gpu) if any(s.scop.start_line in host_paths for s, _, _ in scops)
        else None)
    host = text.text(prologue, lines)
    return GeneratedFiles(host_name, kernel_name, "", host, kernel, "")


def _string_literal(text: str) -> str:
    """`text` as a C string literal, one source line per line of text."""
    escaped = [line.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t") for line in text.split("\n")]
    if escaped and escaped[-1] == "":
        escaped.pop()
    return "\n".join(f'  "{line}\\n"' for line in escaped) or '  ""'


def _free_name(base: str, taken: set[str]) -> str:
    """A suffix for `dev_` + suffix (and + `_kernel`) that no device array's name gives."""
    while base in taken or f"{base}_kernel" in taken:
        base += "_"
    return base


def _scop_code(scheduled: GpuSchedule, memory: MemoryPlan, ast: ScopAst, indent: str, options: Options,
               templates: jinja2.Environment, kernel_file: str) -> tuple[list[str], list[dict]]:
    scop = scheduled.scop
    prefix = scheduled.names.device
    extents = array_extents(scheduled)
    nonempty = runs_where(scop)
    state = prefix + _free_name("ocl", {dev.array.name for dev in memory.arrays})
    queue = c_ast.StructRef(c_ast.ID(state), ".", c_ast.ID("queue"))
    timed = options.timing
    transfers = {(dev.array.name, way, None): _transfer(dev, extents[dev.array.name], prefix, nonempty, queue,
                                                         to_device=way, timed=timed)
                 for dev in memory.arrays for way in (True, False)}
    transfers.update({(s.device.array.name, s.to_device, s.name): _transfer(
        s.device, extents[s.device.array.name], prefix, nonempty, queue, to_device=s.to_device, timed=timed)
        for s in memory.syncs})
    host_calls = Calls(ast, extents, transfers, linearised_on_host(scop))
    kernel_calls = _KernelCalls(ast, extents, transfers, frozenset())
    kernels: list[dict] = []
    functions: list[str] = []     # the kernel functions this SCoP launches, by index of their cl_kernel
    variants: dict[str, list[tuple[list[str], str]]] = {}

    def on_mark(name: str, mark: isl.AstNode) -> list[c_ast.Node]:
        launch = ast.launches[mark.get_annotation().get_name()]
        args = kernel_arguments(scheduled, memory, launch, frozenset())
        declarations = c_lines(_declarations(memory.kernel(name)), "  ")
        statements = barriers_out_of_conditions(AstPrinter(kernel_calls.statements).statements(launch.body),
                                                frozenset(launch.kernel.thread_ids))
        body = declarations + ([""] if declarations else []) + c_lines(statements, "  ")
        parameters = ", ".join(_kernel_parameter(a) for a in args) or "void"
        seen = variants.setdefault(name, [])   # one function per distinct body, as for CUDA
        if (body, parameters) not in seen:
            seen.append((body, parameters))
            kernels.append({"name": function_name(name, len(seen) - 1), "parameters": parameters,
                            "id_lines": _id_lines(launch), "body": body})
        function = function_name(name, seen.index((body, parameters)))
        if function not in functions:
            functions.append(function)
        handle = c_ast.ArrayRef(c_ast.ID(f"{state}_kernel"), integer(functions.index(function)))
        return _launch(launch, handle, args, queue, timed_as=name if timed else None)

    body = c_lines(AstPrinter(host_calls.statements, on_mark).statements(ast.root), indent + "    ")
    if timed:
        body = [indent + "    " + line for line in timing_work(scheduled)] + body
    devices = [device_view(dev, extents[dev.array.name], prefix) for dev in memory.arrays]
    declared, freed = local_declarations(host_locals(scheduled), extents)
    host = templates.get_template("opencl_scop.c.j2").render(
        i=indent, function=scop.function, start=scop.start_line, end=scop.end_line,
        devices=devices, body=body, guard=scop_guard(scop, nonempty), locals=declared, frees=freed,
        where="on the OpenCL device" if scheduled.kernels else "on the host (no parallelism)",
        state=state, functions=functions, opencl=bool(functions or devices), kernel_file=kernel_file,
        options=_c_string(options.opencl_compiler_options), use_gpu=int(options.opencl_use_gpu))
    return host.rstrip("\n").split("\n"), kernels


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _KernelCalls(Calls):
    """A kernel's statements in OpenCL C: C's float math names become the overloaded
    ones, and a barrier is OpenCL's."""

    def statements(self, key: str, loops: dict[str, tuple]) -> list[c_ast.Node]:
        call = self.ast.calls[key]
        if isinstance(call, SyncCall):
            fences = "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE" if call.global_memory else "CLK_LOCAL_MEM_FENCE"
            return [call_node("barrier", c_ast.ID(fences))]
        nodes = super().statements(key, loops)
        if isinstance(call, StatementCall):
            for node in nodes:
                _MathNames().visit(node)
        return nodes


class _MathNames(c_ast.NodeVisitor):
    """C's math calls with C's meaning: each argument converted to the type of C's
    parameter (`sin(x)` of a float x, or `fabs(i)` of an int, computes in double in C;
    OpenCL's overloads would pick float, or reject the int as ambiguous: fuzz 16:104),
    and the float (`sinf`) and long double names replaced by the overloaded ones."""

    def visit_FuncCall(self, node: c_ast.FuncCall) -> None:
        self.generic_visit(node)
        if not isinstance(node.name, c_ast.ID) or node.args is None:
            return
        name = node.name.name
        if name in _RENAMED:
            node.name = c_ast.ID(_RENAMED[name])
        if name in _MATH or name in _RENAMED:
            real = "float" if name.endswith("f") and name in _RENAMED else "double"
            node.args.exprs = [arg if (name.startswith("ldexp") and k == 1) else cast(real, arg)
                               for k, arg in enumerate(node.args.exprs)]


def _declarations(memory: KernelMemory) -> list[c_ast.Node]:
    """The kernel's `__local` (CUDA's shared) and private buffers."""
    return [declaration(g.name, None, type_name=g.element_type, dims=g.shape,
                        storage=("__local",) if g.placement == "shared" else ())
            for placement in ("shared", "private") for g in memory.groups if g.placement == placement] + \
        partial_declarations([g for g in memory.groups if g.placement == "reduction"], "__local")


def _kernel_parameter(arg: KernelArgument) -> str:
    """A device array is `__global T *A`; the rest as in CUDA."""
    text = c_text(arg.declaration)
    return f"__global {text}" if isinstance(arg.declaration.type, c_ast.PtrDecl) else text


def _id_lines(launch: Launch) -> list[str]:
    """`int b0 = get_group_id(1), b1 = get_group_id(0);`: the innermost id is dimension 0."""
    kernel = launch.kernel
    lines = []
    for names, built_in in ((kernel.block_ids, "get_group_id"), (kernel.thread_ids, "get_local_id")):
        if names:
            values = [call_node(built_in, integer(axis)) for axis in reversed(range(len(names)))]
            lines.append(c_text(c_ast.DeclList([declaration(n, v) for n, v in zip(names, values)])) + ";")
    return lines


def _check(call: c_ast.Node) -> c_ast.Node:
    return call_node("openclCheckReturn", call)


def _size_array(name: str, values: list[c_ast.Node]) -> c_ast.Decl:
    """`size_t name[n] = {values};`"""
    declared = c_ast.ArrayDecl(c_ast.TypeDecl(name, [], None, c_ast.IdentifierType(["size_t"])),
                               integer(len(values)), [])
    return c_ast.Decl(name, [], [], [], [], declared, c_ast.InitList(values), None)


def _launch(launch: Launch, handle: c_ast.Node, args: list[KernelArgument], queue: c_ast.Node, *,
            timed_as: str | None = None) -> list[c_ast.Node]:
    """The arguments and the launch of one kernel, under the launch's guard: global size
    grid × block and local size block, dimension 0 the innermost (CUDA's x); `timed_as`
    (--timing): its event timed under that name."""
    kernel = launch.kernel
    k = f"k{kernel.index}"
    block = [integer(b) for b in reversed(kernel.sizes.block)] or [integer(1)]
    grid = list(reversed(grid_sizes(launch))) or [integer(1)]
    dims = max(len(block), len(grid))
    block += [integer(1)] * (dims - len(block))
    grid += [integer(1)] * (dims - len(grid))
    total = [mul(cast("size_t", g) if not isinstance(g, c_ast.Constant) else g, b) for g, b in zip(grid, block)]
    body: list[c_ast.Node] = [_size_array(f"{k}_local", block), _size_array(f"{k}_global", total)]
    for index, arg in enumerate(args):
        decl = arg.declaration
        size = sizeof("cl_mem") if isinstance(decl.type, c_ast.PtrDecl) else sizeof(" ".join(decl.type.type.names))
        body.append(_check(call_node("clSetKernelArg", handle, integer(index), size,
                                     c_ast.UnaryOp("&", arg.value))))
    body.append(_check(call_node("clEnqueueNDRangeKernel", queue, handle, integer(dims), c_ast.ID("NULL"),
                                 c_ast.ID(f"{k}_global"), c_ast.ID(f"{k}_local"), integer(0), c_ast.ID("NULL"),
                                 _event(timed_as is not None))))
    if timed_as is not None:
        body.append(call_node("ppcg_py_timing_kernel", c_ast.Constant("string", f'"{timed_as}"')))
    guard = c_node(launch.guard)
    if is_constant(guard, 1):
        return [c_ast.Compound(body)]
    return [c_ast.If(guard, c_ast.Compound(body), None)]


def _transfer(dev: DeviceArray, extents: list[c_ast.Node], prefix: str, context: isl.Set, queue: c_ast.Node,
              *, to_device: bool, timed: bool = False) -> list[c_ast.Node]:
    """The copy of one box of an array, as the CUDA target's (cuda.py): one dimension a
    contiguous range, more a rectangle over the two outer dimensions (inner ones whole),
    guarded by where the box exists. Every copy blocks (the queue is in order).
    `timed` (--timing): its event timed with its bytes."""
    if not (dev.copy_in if to_device else dev.copy_out):
        return []
    arr = dev.array
    box = dev.in_box if to_device else dev.out_box
    buffer, element = c_ast.ID(prefix + arr.name), sizeof(arr.element_type)
    way = "Write" if to_device else "Read"
    if arr.is_scalar:
        return _timed_copy(_check(call_node(f"clEnqueue{way}Buffer", queue, buffer, c_ast.ID("CL_TRUE"), integer(0),
                                            element, c_ast.UnaryOp("&", c_ast.ID(arr.name)), integer(0),
                                            c_ast.ID("NULL"), _event(timed))), element, to_device, timed)
    placed = box_in_c(box, context)
    if placed is None:
        return []
    where, ((lo0, hi0), *rest) = placed
    host = c_ast.Cast(pointer_type(arr.element_type), c_ast.ID(arr.name))
    inner = product(extents[2:]) if extents[2:] else integer(1)
    rows = count(lo0, hi0)
    if not rest:
        offset = lo0
        host_start = host if is_constant(offset, 0) else c_ast.BinaryOp("+", host, offset)
        size = mul(rows, element)
        copy = call_node(f"clEnqueue{way}Buffer", queue, buffer, c_ast.ID("CL_TRUE"), mul(offset, element),
                         size, host_start, integer(0), c_ast.ID("NULL"), _event(timed))
    else:
        lo1, hi1 = rest[0]
        pitch = mul(mul(extents[1], inner), element)
        origin = _size_literal([mul(mul(lo1, inner), element), lo0, integer(0)])
        width = mul(mul(count(lo1, hi1), inner), element)
        region = _size_literal([width, rows, integer(1)])
        size = mul(width, rows)
        copy = call_node(f"clEnqueue{way}BufferRect", queue, buffer, c_ast.ID("CL_TRUE"), origin, origin, region,
                         pitch, integer(0), pitch, integer(0), host, integer(0), c_ast.ID("NULL"), _event(timed))
    copies = _timed_copy(_check(copy), size, to_device, timed)
    return guarded(copies[0] if len(copies) == 1 else c_ast.Compound(copies), where, context)


def _event(timed: bool) -> c_ast.Node:
    """The last argument of an enqueue: where its event goes under --timing, else NULL."""
    return call_node("ppcg_py_timing_event") if timed else c_ast.ID("NULL")


def _timed_copy(copy: c_ast.Node, size: c_ast.Node, to_device: bool, timed: bool) -> list[c_ast.Node]:
    """The copy, and under --timing the record of its time and `size` bytes."""
    if not timed:
        return [copy]
    return [copy, call_node("ppcg_py_timing_copy", integer(0 if to_device else 1), cast("double", size))]


def _size_literal(values: list[c_ast.Node]) -> c_ast.Node:
    """`(size_t [3]) {a, b, c}` (C99)."""
    array = c_ast.ArrayDecl(c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["size_t"])), integer(len(values)),
                            [])
    return c_ast.CompoundLiteral(c_ast.Typename(None, [], None, array), c_ast.InitList(values), [])
