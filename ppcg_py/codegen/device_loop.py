"""A one-block launch printed as one kernel (schedule/gpu/device_loops.py): the host AST
below its mark (a device loop's host loop, or fused kernels' sequence) inside a
`__global__` function launched with one block, each kernel inlined where the host
would launch it, followed by `__syncthreads()`.

Each kernel inside was sized for that one block (one block in its grid, thread x the
block's threads), so its body, printed as for a launch of its own, is correct inlined:
`blockIdx` is 0 and `threadIdx` ranges over its block. A single-thread kernel runs on
thread 0. The barrier after each orders the block's global-memory accesses as the end
of a launch did; a launch's guard, a condition on parameters and loop iterators only,
is the same for every thread, so every thread meets every barrier.

Where the AST below the mark holds anything else (a copy between host and device), or
its kernels disagree on the block, the host launches them one by one, each with its
single block, which is correct if slower.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import islpy as isl
from pycparser import c_ast

from ..isl_c import call as call_node
from ..isl_c import c_node, integer, is_constant
from ..memory import KernelMemory
from ..schedule.gpu import Kernel
from ..schedule.gpu.device_loops import HYBRID_LAUNCH
from .ast import Launch, ScopAst, control_children, in_one_block, loop_iterator
from .common import KernelArgument
from .printer import AstPrinter, Dim3, KernelLaunch, declaration, parameter

NODE = isl.ast_node_type
# what one block may declare statically (CUDA's limit without opting in to more)
MAX_STATIC_SHARED_BYTES = 48 * 1024


@dataclass(frozen=True)
class DeviceLoopKernel:
    """What the device loop's function and its launch need."""

    name: str
    threads: int
    body: list[c_ast.Node]
    arguments: list[KernelArgument]
    block: tuple[int, ...] = ()     # outermost first; () for one block of `threads` along x
    grid: tuple[int, ...] = ()      # outermost first; () for one block


def kernel_marks(node: isl.AstNode) -> list[str] | None:
    """The launch keys of the kernel marks below `node`, or None where something other
    than loops, conditions and kernel marks is there (a host statement, a copy)."""
    if node.get_type() == NODE.mark and not in_one_block(node.mark_get_id().get_name()):
        return [node.get_annotation().get_name()]
    if node.get_type() not in (NODE.block, NODE.for_, NODE.if_):
        return None
    found: list[str] = []
    for child in control_children(node):
        inner = kernel_marks(child)
        if inner is None:
            return None
        found += inner
    return found


def loop_iterators(node: isl.AstNode) -> set[str]:
    """The iterators of the for loops at or below `node`."""
    found = {loop_iterator(node)} - {None}
    return found.union(*(loop_iterators(child) for child in control_children(node)))


def block_threads(launches: list[Launch]) -> int | None:
    """The threads of the block every parallel kernel of the launch was sized for (along
    thread x; one thread along the others, so that a 1-D and a 2-D kernel share it), or
    None where they differ or one maps more than one thread outside x."""
    shapes = [launch.kernel.sizes.block[:len(launch.kernel.thread_ids)] for launch in launches
              if launch.kernel.thread_ids]
    threads = {shape[-1] for shape in shapes}
    if len(threads) > 1 or any(math.prod(shape[:-1]) != 1 for shape in shapes):
        return None
    return threads.pop() if threads else 1


def device_loop_kernel(name: str, mark: isl.AstNode, ast: ScopAst, statements: Callable,
                       arguments: Callable[[Launch], list[KernelArgument]],
                       declarations: Callable[[str], list[c_ast.Node]],
                       memories: Callable[[str], KernelMemory],
                       launch_declarations: Callable[[str], list[c_ast.Node]] = lambda name: []
                       ) -> DeviceLoopKernel | None:
    """The device loop's kernel, or None where the loop must stay on the host. The
    buffers that last a launch of split tiles (`launch_declarations`, copied by its
    first and last steps' kernels: memory/launch_buffers.py) are declared before its
    steps."""
    keys = kernel_marks(mark.mark_get_node())
    if not keys:
        return _on_host(name, ast, launch_declarations)
    launches = [ast.launches[key] for key in keys]
    block, grid = (), ()
    if name.startswith(HYBRID_LAUNCH):
        block, grid = shared_grid(launches)
        threads = math.prod(block) if block else None
    else:
        threads = block_threads(launches)
    # all the inlined kernels' buffers at once, those that last the launch once
    if threads is None or sum(memories(launch.kernel.name).step_shared_bytes for launch in launches) + \
            sum(memories(kernel).launch_shared_bytes for kernel in {launch.kernel.name for launch in launches}) \
            > MAX_STATIC_SHARED_BYTES:
        return _on_host(name, ast, launch_declarations)

    def inlined(kernel_name: str, kernel_mark: isl.AstNode) -> list[c_ast.Node]:
        launch = ast.launches[kernel_mark.get_annotation().get_name()]
        return _inlined(launch, declarations(kernel_name), AstPrinter(statements).statements(launch.body))

    body = AstPrinter(statements, inlined).statements(mark.mark_get_node())
    kernels = list(dict.fromkeys(launch.kernel for launch in launches))
    for kernel in kernels:
        loads, stores = ast.launch_copies.get(kernel.name, (None, None))
        if loads is not None:
            body = _copies(kernel, AstPrinter(statements).statements(loads)) + [call_node("__syncthreads")] + body
        if stores is not None:      # the last step's barrier comes before them
            body = body + _copies(kernel, AstPrinter(statements).statements(stores))
    body = [d for kernel in kernels for d in launch_declarations(kernel.name)] + body
    bound = loop_iterators(mark.mark_get_node())
    seen: dict[str, KernelArgument] = {}
    for launch in launches:
        for argument in arguments(launch):
            param = argument.declaration.name
            if param in bound:
                continue
            # an array one inlined kernel only reads and another writes: the writer's (not const)
            if param not in seen or _points_to_const(seen[param]) and not _points_to_const(argument):
                seen[param] = argument
    # the values of the loops around the launch that its buffers' copies use (where isl
    # dropped a loop of one value, its value)
    for name_k, value in ast.launch_values.get(mark.get_annotation().get_name(), ()):
        seen[name_k] = KernelArgument(parameter("int", name_k), c_node(value))
    return DeviceLoopKernel(name, threads, body, list(seen.values()), block, grid)


def _on_host(name: str, ast: ScopAst, launch_declarations: Callable[[str], list[c_ast.Node]]) -> None:
    """None: the host launches the kernels of `name` one by one; unless they have buffers
    that last the launch (one kernel's buffers die with it)."""
    if any(launch_declarations(launch.kernel.name) for launch in ast.launches.values()
           if launch.kernel.launched_in == name):
        raise RuntimeError(f"{name}: its buffers last the launch, which cannot run as one kernel")
    return None


def shared_grid(launches: list[Launch]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The block and grid every kernel of a launch of split tiles was sized with (each
    block then runs the same tile in every kernel), or empty ones where they differ."""
    shapes = {(launch.kernel.sizes.block[:len(launch.kernel.thread_ids)],
               launch.kernel.sizes.grid[:len(launch.kernel.block_ids)]) for launch in launches}
    if len(shapes) != 1:
        return (), ()
    block, grid = shapes.pop()
    return (block, grid) if block else ((), ())


def _points_to_const(argument: KernelArgument) -> bool:
    declared = argument.declaration.type
    return isinstance(declared, c_ast.PtrDecl) and "const" in declared.type.quals


def _inlined(launch: Launch, declarations: list[c_ast.Node], statements: list[c_ast.Node]) -> list[c_ast.Node]:
    """A kernel's body where the host would launch it, then the block's barrier."""
    kernel = launch.kernel
    ids = id_declarations(kernel.block_ids, "blockIdx") + id_declarations(kernel.thread_ids, "threadIdx")
    body: c_ast.Node = c_ast.Compound(ids + declarations + statements)
    if not kernel.thread_ids:        # a single-thread kernel
        first = c_ast.BinaryOp("==", c_ast.StructRef(c_ast.ID("threadIdx"), ".", c_ast.ID("x")), integer(0))
        body = c_ast.Compound([c_ast.If(first, body, None)])
    guard = c_node(launch.guard)
    if not is_constant(guard, 1):
        body = c_ast.If(guard, body, None)
    return [body, call_node("__syncthreads")]


def _copies(kernel: Kernel, statements: list[c_ast.Node]) -> list[c_ast.Node]:
    """The loads or stores of the buffers that last a launch of split tiles, in a block
    that names the ids as the steps' kernels do."""
    ids = id_declarations(kernel.block_ids, "blockIdx") + id_declarations(kernel.thread_ids, "threadIdx")
    return [c_ast.Compound(ids + statements)]


def id_declarations(names: tuple[str, ...], built_in: str) -> list[c_ast.Decl]:
    """`int b0 = blockIdx.y; int b1 = blockIdx.x;`: the innermost id is x."""
    axes = ("x", "y", "z")[:len(names)][::-1]
    return [declaration(n, c_ast.StructRef(c_ast.ID(built_in), ".", c_ast.ID(axis))) for n, axis in zip(names, axes)]


def device_loop_launch(kernel: DeviceLoopKernel, *, timed_as: str | None = None) -> list[c_ast.Node]:
    """`{ dim3 ..._dimBlock(threads); dim3 ..._dimGrid(1); name <<<..>>> (..); cudaCheckKernel(); }`."""
    block, grid = f"{kernel.name}_dimBlock", f"{kernel.name}_dimGrid"
    threads = [integer(b) for b in reversed(kernel.block)] or [integer(kernel.threads)]
    blocks = [integer(g) for g in reversed(kernel.grid)] or [integer(1)]
    return [c_ast.Compound([Dim3(block, threads), Dim3(grid, blocks),
                            *timed_launch(KernelLaunch(kernel.name, grid, block, [a.value for a in kernel.arguments]),
                                          timed_as)])]


def timed_launch(launch: KernelLaunch, timed_as: str | None) -> list[c_ast.Node]:
    """The launch and its check; with `timed_as` (--timing), between the timing helpers'
    calls that time it under that name (codegen/templates/timing.h.j2)."""
    checked = [launch, call_node("cudaCheckKernel")]
    if timed_as is None:
        return checked
    return [call_node("ppcg_py_timing_start"), *checked,
            call_node("ppcg_py_timing_kernel", c_ast.Constant("string", f'"{timed_as}"'))]
