"""The C of a reduction's combination over thread x (CUDA and OpenCL kernels alike).

memory/tree.py places the steps; each is printed here from its `ReductionCall`:

    partial_tmp[0] = 0;                                   // init, before the loop
    ...                                                   // the statement: partial_tmp[0] += ...
    shared_partial_tmp[(t0 * 32 + t1)] = partial_tmp[0];  // store
    if (t1 < 16 && t1 + 16 < 32) shared_partial_tmp[..] = shared_partial_tmp[..] + shared_partial_tmp[.. + 16];
    ...                                                   // one step per power of two, barriers between
    tmp[i] = tmp[i] + shared_partial_tmp[t0 * 32 + 0];    // final, by thread x = 0 of the row

On CUDA, where the rows are whole warps (x a multiple of 32), `store` first adds each
warp's partials with `__shfl_down_sync` (strides 16 to 1, no barrier) and lane 0 of
each warp stores the warp's sum: the tree in shared memory then adds one slot per warp.

The trees add the row's partials in one fixed order, whatever order the threads run in.
"""
from __future__ import annotations

from pycparser import c_ast

from ..diagnostics import CompileError
from ..isl_c import integer
from ..memory import partials_per_row
from ..memory.groups import ATOMIC_OPERATIONS
from .ast import ReductionCall
from .printer import declaration

FLOATING = ("double", "float")
# the identity of min and max per C type: its largest and smallest value
_LIMITS = {
    "int": ("2147483647", "(-2147483647 - 1)"), "unsigned int": ("4294967295U", "0U"), "unsigned": ("4294967295U", "0U"),
    "long": ("9223372036854775807L", "(-9223372036854775807L - 1)"),
    "long int": ("9223372036854775807L", "(-9223372036854775807L - 1)"),
    "long long": ("9223372036854775807LL", "(-9223372036854775807LL - 1)"),
    "unsigned long": ("18446744073709551615UL", "0UL"), "unsigned long long": ("18446744073709551615ULL", "0ULL"),
    "short": ("32767", "(-32767 - 1)"), "unsigned short": ("65535", "0"), "char": ("127", "(-127 - 1)"),
    "signed char": ("127", "(-127 - 1)"), "unsigned char": ("255", "0"),
}


def reduction_statement(call: ReductionCall, element: c_ast.Node | None) -> c_ast.Node:
    """The C statement of one step; `element` is the location (the final step's target)."""
    partial = c_ast.ArrayRef(c_ast.ID(call.partial), integer(0)) if call.rank else c_ast.ID(call.partial)
    for _ in range(call.rank - 1):
        partial = c_ast.ArrayRef(partial, integer(0))
    x = c_ast.ID(call.threads[-1])
    here = _slot_index(call, x)
    if call.step == "init":
        return c_ast.Assignment("=", partial, identity(call.op, call.element_type))
    if call.step == "store":
        if not call.warp:
            return c_ast.Assignment("=", _slot(call, here), partial)
        return c_ast.Compound(_shuffled(call, partial) + [c_ast.If(
            c_ast.BinaryOp("==", c_ast.BinaryOp("%", x, integer(call.warp)), integer(0)),
            c_ast.Assignment("=", _slot(call, _slot_index(call, c_ast.BinaryOp("/", x, integer(call.warp)))),
                             partial), None)])
    if call.step == "step":
        other = c_ast.BinaryOp("+", here, integer(call.stride))
        condition = c_ast.BinaryOp("&&", c_ast.BinaryOp("<", x, integer(call.stride)),
                                   c_ast.BinaryOp("<", c_ast.BinaryOp("+", x, integer(call.stride)),
                                                  integer(_width(call))))
        update = c_ast.Assignment("=", _slot(call, here), combined(call.op, _slot(call, here), _slot(call, other)))
        return c_ast.If(condition, c_ast.Compound([update]), None)
    row = _slot(call, _slot_index(call, integer(0)))
    if call.step == "blocks":
        return _over_blocks(call, element, row)
    return c_ast.Assignment("=", element, combined(call.op, element, row))


def _over_blocks(call: ReductionCall, element: c_ast.Node, row: c_ast.Node) -> c_ast.Node:
    """The block's sum `row` folded into the location with the other blocks' (CUDA).

    "atomic": one atomic update per block, in the order the blocks finish. "ordered":
    the block stores its sum in the device buffer, makes it visible to the other blocks
    (`__threadfence()`), and counts itself done; the block that counts last (atomicInc
    wraps to 0 there, ready for the next launch) reads every block's sum, in block
    order, and folds their total into the location: the same order whatever the order
    in which the blocks ran."""
    if call.blocks == "atomic":
        return c_ast.FuncCall(c_ast.ID(ATOMIC_OPERATIONS[call.op]),
                              c_ast.ExprList([c_ast.UnaryOp("&", element), row]))
    last = c_ast.BinaryOp("-", c_ast.StructRef(c_ast.ID("gridDim"), ".", c_ast.ID("x")),
                          c_ast.Constant("unsigned int", "1u"))
    ticket = c_ast.FuncCall(c_ast.ID("atomicInc"), c_ast.ExprList(
        [c_ast.UnaryOp("&", c_ast.ID(call.blocks_done)), last]))
    total, other = f"{call.partial}_total", f"{call.block_id}_other"
    volatile = c_ast.Cast(c_ast.Typename(None, [], None, c_ast.PtrDecl([], c_ast.TypeDecl(
        None, ["volatile"], None, c_ast.IdentifierType([call.element_type])))), c_ast.ID(call.block_partials))
    summed = c_ast.For(
        c_ast.DeclList([declaration(other, integer(0), type_name="unsigned int")]),
        c_ast.BinaryOp("<", c_ast.ID(other), c_ast.StructRef(c_ast.ID("gridDim"), ".", c_ast.ID("x"))),
        c_ast.UnaryOp("p++", c_ast.ID(other)),
        c_ast.Assignment("=", c_ast.ID(total),
                         combined(call.op, c_ast.ID(total), c_ast.ArrayRef(volatile, c_ast.ID(other)))))
    return c_ast.Compound([
        c_ast.Assignment("=", c_ast.ArrayRef(c_ast.ID(call.block_partials), c_ast.ID(call.block_id)), row),
        c_ast.FuncCall(c_ast.ID("__threadfence"), c_ast.ExprList([])),
        c_ast.If(c_ast.BinaryOp("==", ticket, last), c_ast.Compound([
            declaration(total, identity(call.op, call.element_type), type_name=call.element_type),
            summed,
            c_ast.Assignment("=", element, combined(call.op, element, c_ast.ID(total)))]), None)])


def block_buffers(kernel: str, groups) -> list[str]:
    """The file-scope device buffers of the kernel's reductions spread over blocks: each
    block's sum, and the count of the blocks done (zero when the module loads, and again
    after each launch)."""
    lines = []
    for group in groups:
        if group.placement == "reduction" and group.blocks == "ordered":
            lines.append(f"__device__ {group.element_type} {group.block_partials(kernel)}[{group.grid}];")
            lines.append(f"__device__ unsigned int {group.blocks_done(kernel)};")
    return lines


def partial_declarations(groups, storage: str) -> list[c_ast.Node]:
    """Each reduction group's register and its shared (`__shared__`/`__local`) buffer."""
    nodes = []
    for group in groups:
        nodes.append(declaration(group.name, None, type_name=group.element_type, dims=group.shape))
        nodes.append(declaration(group.partials, None, type_name=group.element_type, dims=(group.slots,),
                                 storage=(storage,)))
    return nodes


def identity(op: str, element_type: str) -> c_ast.Node:
    """The value that leaves any other unchanged under `op`."""
    if op in ("+", "|", "^"):
        return integer(0)
    if op == "*":
        return integer(1)
    if op == "&":
        return c_ast.UnaryOp("~", integer(0))
    floating = element_type in FLOATING
    if floating:
        return c_ast.ID("INFINITY") if op == "min" else c_ast.UnaryOp("-", c_ast.ID("INFINITY"))
    if element_type not in _LIMITS:
        raise CompileError(f"a {op} reduction over the threads of type '{element_type}' (no known limits)")
    return c_ast.Constant(element_type, _LIMITS[element_type][0 if op == "min" else 1])


def combined(op: str, a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    if op == "min":
        return c_ast.TernaryOp(c_ast.BinaryOp("<", b, a), b, a)
    if op == "max":
        return c_ast.TernaryOp(c_ast.BinaryOp(">", b, a), b, a)
    return c_ast.BinaryOp(op, a, b)


def _shuffled(call: ReductionCall, partial: c_ast.Node) -> list[c_ast.Node]:
    """The warp's tree in registers: after it, lane 0 holds the sum of the warp's 32
    partials (`__shfl_down_sync` from a lane past the end of the warp returns the
    caller's own value, which only lanes whose result is never used see)."""
    # every lane shuffles, before the combination: `min` and `max` read the value twice,
    # in a conditional expression that only some lanes would evaluate
    lane = f"{call.partial}_lane"
    steps: list[c_ast.Node] = [declaration(lane, None, type_name=call.element_type)]
    stride = call.warp // 2
    while stride >= 1:
        shuffle = c_ast.FuncCall(c_ast.ID("__shfl_down_sync"), c_ast.ExprList(
            [c_ast.Constant("unsigned int", "0xffffffffu"), partial, integer(stride)]))
        steps.append(c_ast.Assignment("=", c_ast.ID(lane), shuffle))
        steps.append(c_ast.Assignment("=", partial, combined(call.op, partial, c_ast.ID(lane))))
        stride //= 2
    return steps


def _width(call: ReductionCall) -> int:
    """The shared slots of a row of thread x."""
    return partials_per_row(call.block[-1], call.warp)


def _slot_index(call: ReductionCall, x: c_ast.Node) -> c_ast.Node:
    """Slot `x` of the thread's row, rows x fastest: ((t0 * B1) + t1) * width + x."""
    if len(call.threads) == 1:
        return x
    row: c_ast.Node = c_ast.ID(call.threads[0])
    for name, size in zip(call.threads[1:-1], call.block[1:-1]):
        row = c_ast.BinaryOp("+", c_ast.BinaryOp("*", row, integer(size)), c_ast.ID(name))
    return c_ast.BinaryOp("+", c_ast.BinaryOp("*", row, integer(_width(call))), x)


def _slot(call: ReductionCall, index: c_ast.Node) -> c_ast.Node:
    return c_ast.ArrayRef(c_ast.ID(call.partials), index)
