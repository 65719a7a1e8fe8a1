"""What the printers share: a SCoP's host-side pieces (where it runs, the extents
of its arrays, the declarations of its locals, its guard), the C statements of its
AST's user nodes (`Calls`), kernel arguments and grid sizes, the boxes of
transfers, and C expressions built with their constants folded (`mul`, `add`).

The CUDA printer (cuda.py) and the OpenCL printer (opencl.py) use all of it; the
C target (c_target.py) the host-side pieces."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import islpy as isl
from pycparser import c_ast

from ..cache import made_folder
from ..extract.c_walk import identifier_names
from ..extract.model import Array
from ..isl_c import c_node, integer, is_constant
from ..isl_c import call as call_node
from ..isl_context import statement_names
from ..memory import DeviceArray, MemoryPlan
from ..schedule.gpu import GpuSchedule
from ..schedule.plan import ScheduledScop
from .ast import CopyCall, Launch, ReductionCall, ScopAst, StatementCall, Subscript, TransferCall
from .expr import c_expr, param_node
from .lane_shuffles import lane_loads
from .ownership import evident, owned
from .printer import c_text, declaration, parameter
from .reductions import reduction_statement
from .statements import elements, field_rows, instance, linearized, member_element, subscripted

if TYPE_CHECKING:
    import jinja2


@dataclass(frozen=True)
class GeneratedFiles:
    """The three outputs for input `name.c`: contents keyed by file name."""

    host_name: str
    kernel_name: str
    header_name: str
    host: str
    kernel: str
    header: str
    sizes: tuple = ()   # (kernel or tiled band number, schedule.sizes.KernelSizes) used, as --dump-sizes

    def items(self) -> list[tuple[str, str]]:
        """The files to write (a target with no header has an empty `header_name`)."""
        return [(name, text) for name, text in ((self.host_name, self.host), (self.kernel_name, self.kernel),
                                                (self.header_name, self.header)) if name]


def struct_definitions(scheduled_scops) -> list[str]:
    """The device's struct types of every SCoP (extract/structs.py), each once."""
    seen: dict[str, str] = {}
    for scheduled in scheduled_scops:
        for struct in scheduled.scop.struct_types:
            seen.setdefault(struct.device_name, struct.definition)
    return list(seen.values())


TEMPLATE_OPTIONS = {"trim_blocks": True, "lstrip_blocks": True, "keep_trailing_newline": True}


def output_templates() -> jinja2.Environment:
    """The output templates. jinja2 is imported only here: a run that generates no code
    (`--help`, a rejected input) does not pay for it (about 25 ms of start-up). Their
    compiled form is kept in ppcg-py's cache (jinja2 checks it against each template's
    text): compiling them took 15 ms of every run."""
    import jinja2

    return jinja2.Environment(loader=jinja2.PackageLoader("ppcg_py.codegen", "templates"),
                              undefined=jinja2.StrictUndefined, bytecode_cache=_compiled_templates(),
                              **TEMPLATE_OPTIONS)


def _compiled_templates():
    """jinja2's cache of compiled templates, in a folder named by jinja2's version and the
    options that shape the compiled code, where a damaged or unwritable file means
    compiling again (None where there is no folder)."""
    import pickle

    import jinja2

    options = "-".join(name for name, on in sorted(TEMPLATE_OPTIONS.items()) if on)
    folder = made_folder(f"templates/jinja2-{jinja2.__version__}-{options}")
    if folder is None:
        return None

    class Kept(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except (OSError, EOFError, ValueError, pickle.UnpicklingError):
                bucket.reset()

        def dump_bytecode(self, bucket) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass
    return Kept(str(folder))


def runs_where(scop) -> isl.Set:
    """The parameter values for which the SCoP runs any statement, within its context."""
    return scop.domain.params().intersect(scop.context).coalesce()


def run_time_checks(scops) -> dict[int, str]:
    """For each SCoP whose model assumes what the program does not ensure
    (`Scop.checked`), by the line of its `#pragma scop`: the assumption as C."""
    return {scop.start_line: c_condition(scop.checked, isl.Set.universe(scop.checked.get_space()))
            for scop in scops if scop.checked is not None}


def scop_guard(scop, nonempty: isl.Set) -> str:
    """`nonempty` as the C condition that guards a SCoP's code ("1" where it always runs)."""
    return c_condition(nonempty, scop.context)


def c_condition(condition: isl.Set, known: isl.Set) -> str:
    """A set of parameter values as a C condition, given what is `known` of them."""
    return c_expr(isl.AstBuild.from_context(known).expr_from_set(condition))


def host_locals(scheduled: GpuSchedule) -> list[Array]:
    """The variables declared in the SCoP that host code uses (its serial head or tail,
    or a host statement): the host declares them."""
    used = {a.array for s in scheduled.scop.statements if s.name in scheduled.host_statements for a in s.accesses}
    return [a for a in scheduled.scop.arrays if a.local and not a.hidden and a.name in used]


def local_declarations(arrays: Sequence[Array], extents: dict[str, list[c_ast.Node]]) -> tuple[list[str], list[str]]:
    """Host declarations of variables declared in the SCoP, and what frees them: a
    scalar as itself, an (expanded) array on the heap, indexed linearised (its size
    is the product of the loops' extents around its declaration and may not fit on
    the stack)."""
    declared, freed = [], []
    for a in arrays:
        if not a.rank:
            declared.append(c_text(declaration(a.name, None, type_name=a.element_type)) + ";")
            continue
        size = c_text(mul(product(extents[a.name]), sizeof(a.element_type)))
        declared.append(f"{a.element_type} *{a.name} = ({a.element_type} *) malloc({size});")
        freed.append(f"free({a.name});")
    return declared, freed


def linearised_on_host(scop) -> frozenset[str]:
    """The arrays whose elements host code addresses linearised: those declared in the
    SCoP (expanded, extract/local_arrays.py) and those the program addresses as flat
    sequences (extract/flat_arrays.py)."""
    return frozenset(a.name for a in scop.arrays if (a.local or a.flat) and a.rank)


def array_extents(scheduled: ScheduledScop) -> dict[str, list[c_ast.Node]]:
    """The extents of every array as C expressions in the parameters."""
    scop = scheduled.scop
    return {arr.name: [param_node(e, scop.context) for e in arr.extents]
            for arr in [*scop.arrays, *(v.array for v in scop.struct_variables)]}


def function_name(kernel: str, variant: int) -> str:
    """The name of a kernel's function: `kernel`, then `kernel_1`, ... for other bodies."""
    return kernel if variant == 0 else f"{kernel}_{variant}"


class Calls:
    """The C statements of each user node of a SCoP's AST (a barrier is CUDA's
    `__syncthreads()`: opencl.py overrides it)."""

    def __init__(self, ast: ScopAst, extents: dict[str, list[c_ast.Node]],
                 transfers: dict[tuple[str, bool, str | None], list[c_ast.Node]], by_pointer: frozenset[str]) -> None:
        self.ast, self.extents, self.transfers = ast, extents, transfers
        self.by_pointer = by_pointer
        self.bodies = {s.name: s.body for s in ast.scop.statements}
        self.members = {a.name: (a.member, ast.scop.struct_variable(a.member.variable).array.element_type)
                        for a in ast.scop.arrays if a.member is not None}

    def statements(self, key: str, loops: dict[str, tuple]) -> list[c_ast.Node]:
        call = self.ast.calls[key]
        if isinstance(call, StatementCall):
            iterators = {name: c_node(e) for name, e in call.iterators.items()}
            # shuffles only where no lane skips them: no ownership check left to print
            shuffles = call.shuffles if all(evident(o, loops) for o in call.owned) else ()
            subscripts = dict(call.references)
            subscripts.update({tag: Subscript(register, (), buffer=True)
                               for row in shuffles for tag, register in row.tags})
            references = elements(subscripts, self._element, iterators)
            body = instance(self.bodies[call.statement], references, iterators)
            if self.members:
                body = field_rows(body, frozenset(self.members),
                                  lambda name, indices: self._element(Subscript(name, (), host=True), indices))
            if shuffles:
                return [c_ast.Compound([s for row in shuffles for s in lane_loads(row, self._element)] + [body])]
            return owned(call.owned, loops, body)
        if isinstance(call, CopyCall):
            return owned(call.owned, loops,
                          c_ast.Assignment("=", self._element(call.target), self._element(call.source)))
        if isinstance(call, TransferCall):
            return self.transfers[(call.array, call.to_device, call.sync)]
        if isinstance(call, ReductionCall):
            element = self._element(call.target) if call.target is not None else None
            return owned(call.owned, loops, reduction_statement(call, element))
        return [call_node("__syncthreads")]

    def _element(self, ref: Subscript, indices: list[c_ast.Node] | None = None) -> c_ast.Node:
        indices = [c_node(e) for e in ref.indices] if indices is None else indices
        if ref.name in self.members and not ref.buffer:
            member, device_type = self.members[ref.name]
            extents = self.extents[member.variable]
            if not ref.host:
                return member_element(c_ast.ID(member.variable), member, indices, extents, linear=True)
            if member.variable in self.by_pointer:
                base = c_ast.Cast(pointer_type(device_type), c_ast.ID(member.variable))
                return member_element(base, member, indices, extents, linear=True)
            return member_element(c_ast.ID(member.variable), member, indices, extents, linear=False)
        if ref.host and not indices:
            return _host_scalar(ref.name, ref.name in self.by_pointer)
        if ref.host:    # an element of the host's array: a pointer to its first element in the SCoP's function
            return linearized(ref.name, indices, self.extents[ref.name]) if ref.name in self.by_pointer \
                else subscripted(ref.name, indices)
        if ref.buffer:
            return subscripted(ref.name, indices)
        return linearized(ref.name, indices, self.extents[ref.name])


def _host_scalar(name: str, by_pointer: bool) -> c_ast.Node:
    """The host's variable: itself, or what the SCoP function's pointer parameter points at."""
    return c_ast.UnaryOp("*", c_ast.ID(name)) if by_pointer else c_ast.ID(name)


def device_view(dev: DeviceArray, extents: list[c_ast.Node], prefix: str) -> dict:
    """What the file skeleton needs of a device array: its name, type and size."""
    arr = dev.array
    size = product(extents) if extents else integer(1)
    return {"type": arr.element_type, "device": prefix + arr.name,
            "bytes": c_text(mul(size, sizeof(arr.element_type)))}


def box_in_c(box, context: isl.Set) -> tuple[isl.Set, list[tuple[c_ast.Node, c_ast.Node]]] | None:
    """Where a transfer's box exists, and its bounds as C expressions in the parameters;
    None when it is empty wherever the SCoP runs (e.g. under --ctx)."""
    known = context.align_params(box[0][0].get_space()).params()
    # every bound is a minimum or maximum of one box: all are defined where it is not empty
    where = box[0][0].domain().gist(known)
    if where.intersect(known.align_params(where.get_space())).is_empty():
        return None
    return where, [(param_node(lo, context), param_node(hi, context)) for lo, hi in box]


def guarded(statement: c_ast.Node, where: isl.Set, context: isl.Set) -> list[c_ast.Node]:
    """`statement` under the condition `where` on the parameters (none where that always holds)."""
    condition = c_node(isl.AstBuild.from_context(context).expr_from_set(where.align_params(context.get_space())))
    if is_constant(condition, 1):
        return [statement]
    return [c_ast.If(condition, c_ast.Compound([statement]), None)]


def add(a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    """`a + b`, without a zero term."""
    return a if is_constant(b, 0) else b if is_constant(a, 0) else c_ast.BinaryOp("+", a, b)


def mul(a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    """`a * b`, without a factor one (0 when a factor is zero)."""
    if is_constant(a, 0) or is_constant(b, 0):
        return integer(0)
    return a if is_constant(b, 1) else b if is_constant(a, 1) else c_ast.BinaryOp("*", a, b)


def count(low: c_ast.Node, high: c_ast.Node) -> c_ast.Node:
    """`high - low + 1`: the number of values from `low` to `high`."""
    return add(high if is_constant(low, 0) else c_ast.BinaryOp("-", high, low), integer(1))


def product(factors: list[c_ast.Node]) -> c_ast.Node:
    """The product of `factors` (at least one)."""
    result = factors[0]
    for factor in factors[1:]:
        result = mul(result, factor)
    return result


def sizeof(type_name: str) -> c_ast.Node:
    """`sizeof(type_name)`."""
    return c_ast.UnaryOp("sizeof", c_ast.Typename(None, [], None, c_ast.TypeDecl(
        None, [], None, c_ast.IdentifierType(type_name.split()))))


def cast(type_name: str, expr: c_ast.Node) -> c_ast.Cast:
    """`(type_name) expr`."""
    return c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None,
                                                                    c_ast.IdentifierType(type_name.split()))), expr)


def pointer_type(type_name: str) -> c_ast.Typename:
    """`type_name *`, as a cast's type."""
    return c_ast.Typename(None, [], None, c_ast.PtrDecl([], c_ast.TypeDecl(
        None, [], None, c_ast.IdentifierType(type_name.split()))))


@dataclass(frozen=True)
class KernelArgument:
    """One argument of a kernel: its parameter and the value a launch passes."""

    declaration: c_ast.Decl   # in the kernel's parameter list
    value: c_ast.Node       # at the launch (a device pointer gets the device prefix)


def kernel_arguments(scheduled: GpuSchedule, memory: MemoryPlan, launch: Launch,
                     by_pointer: frozenset[str], restrict: str = "") -> list[KernelArgument]:
    """What a launch passes: the device arrays the kernel accesses, the parameters, the
    read-only scalars it uses, the values it gets by value, and the host loops' iterators.

    With `restrict` (CUDA: `__restrict__`) each array pointer is restrict, and points to
    const where the kernel only reads the array: every device array is an allocation of
    its own (a struct's members, disjoint parts of one), so no two parameters alias, and
    nvcc may then load a read-only array through the read-only data cache."""
    scop = scheduled.scop
    device = scheduled.names.device
    names = statement_names(launch.kernel.domain)
    stmts = [s for s in scop.statements if s.name in names]
    used_arrays = {acc.array for s in stmts for acc in s.accesses}
    used_arrays |= {m.variable for m in map(scop.member, used_arrays) if m is not None}
    written = {acc.array for s in stmts for acc in s.accesses if acc.is_write}
    written |= {m.variable for m in map(scop.member, written) if m is not None}
    used_ids = {n for s in stmts for n in _names_in(s)}
    args = [KernelArgument(parameter(dev.array.element_type, dev.array.name, pointer=True, restrict=restrict,
                                     const=bool(restrict) and dev.array.name not in written),
                           c_ast.ID(device + dev.array.name))
            for dev in memory.arrays if dev.array.name in used_arrays]
    args += [KernelArgument(parameter(t, p), c_ast.ID(p)) for p, t in zip(scop.parameters, scop.parameter_types)]
    args += [KernelArgument(parameter(t, n), c_ast.ID(n)) for n, t in scop.scalars_read_only if n in used_ids]
    by_value = {g.name: g.element_type for g in memory.kernel(launch.kernel.name).groups if g.placement == "argument"}
    args += [KernelArgument(parameter(t, n), _host_scalar(n, n in by_pointer)) for n, t in sorted(by_value.items())]
    args += [KernelArgument(parameter("int", c), c_ast.ID(c)) for c in launch.host_iterators]
    return args


def _names_in(stmt) -> set[str]:
    """The identifiers a statement's code uses: its body's, and those of the source
    subscripts it prints for over-approximated references."""
    names = identifier_names(stmt.body)
    for acc in stmt.accesses:
        for subscript in acc.subscripts or ():
            if subscript is not None:
                names |= identifier_names(subscript)
    return names


def grid_sizes(launch: Launch) -> list[c_ast.Node]:
    """The blocks of a launch's grid per dimension, at least one where isl may say none."""
    sizes = []
    for size, at_least_one in zip(launch.grid, launch.at_least_one):
        node = integer(size) if isinstance(size, int) else c_node(size)
        sizes.append(call_node("ppcg_max", integer(1), node) if at_least_one else node)
    return sizes
