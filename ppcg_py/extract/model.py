"""The polyhedral description of a SCoP: what `extract` hands to `schedule`.

All isl objects of one compilation live in `Scop.ctx`. Every access is tagged,
as in PPCG: it has a name of its own (`ref_3`), and its tagged relation
`{ [S_1[i, j] -> ref_3[]] -> A[i, j] }` tells it apart from another reference to
the same elements in the same statement. Later stages refer to a reference by its
tag only. Statement bodies keep their pycparser expression, with each reference
replaced by a `Reference` node carrying its tag, so that code generation can
reprint the statement with new subscripts.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import islpy as isl
from pycparser import c_ast


@dataclass(frozen=True)
class Member:
    """Where a field array lives (extract/structs.py): a member of a struct variable.
    The field array's dimensions are the variable's (`rank` of them), then each
    member's on the `path` (member name, its number of dimensions)."""

    variable: str
    rank: int
    path: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Array:
    """An array (or a scalar, with no dimensions) accessed in the SCoP."""

    name: str
    element_type: str                 # C type of one element, typedefs resolved
    extents: tuple[isl.PwAff, ...]    # per dimension, affine in the parameters
    extent_known: tuple[bool, ...]    # False: outermost size inferred from accesses
    is_scalar: bool = False
    declared_line: int | None = None
    # Declared inside the SCoP: the host program has no variable of this name, so
    # it is never copied in or out.
    local: bool = False
    # Whether code after the SCoP may read its values. False for locals, and for
    # a function's own scalars that nothing after the SCoP uses (extract/liveness.py):
    # their last values need not survive the SCoP.
    live_after: bool = True
    # A field array: one member of a struct variable (which memory holds, not this array).
    member: Member | None = None
    # In the model only, never printed: the state behind calls to declared-only
    # functions (extract/external.py), which orders the calls among themselves.
    hidden: bool = False
    # Addressed by the program as a flat sequence (`double *c` read as `c[i * m + j]`,
    # extract/flat_arrays.py): its dimensions are the model's; the host's code
    # addresses its elements linearised.
    flat: bool = False
    # Reached before its first element (a pointer into an array, `e[i - 1]` at i = 0;
    # arrays of unknown outermost size only): the device's copies start at the first
    # element, so the GPU targets keep the statements that access it on the host.
    before_first: bool = False

    @property
    def rank(self) -> int:
        return len(self.extents)


@dataclass(frozen=True)
class StructType:
    """A struct type as the device code declares it: the host's layout under a name of
    ppcg-py's, so that kernel files need none of the input's declarations."""

    device_name: str                  # "struct ppcg_pt"
    definition: str                   # "struct ppcg_pt {\n  double x;\n ...};"


@dataclass(frozen=True)
class StructVariable:
    """A struct variable (or array of structs) of the host whose members the SCoP
    accesses: it crosses between host and device whole elements at a time."""

    array: Array                      # its own dimensions; element type: the device's struct type
    fields: tuple[str, ...]           # its field arrays in the model
    # whether its field arrays are every member of the struct, all scalars: an
    # element each of them writes is then written whole
    complete: bool


class Reference(c_ast.Node):
    """Where a statement body reads or writes an access: printed from its tag's
    relation by code generation (pycparser's generators dispatch on the class name)."""

    __slots__ = ("tag", "coord", "__weakref__")
    attr_names = ("tag",)

    def __init__(self, tag: str, coord: Any = None) -> None:
        self.tag = tag
        self.coord = coord

    def children(self) -> tuple:
        return ()

    def __iter__(self):
        return iter(())


@dataclass(frozen=True)
class Access:
    """One reference in a statement: `index` maps statement instances to elements."""

    array: str
    index: isl.Map                    # { S[i..] -> A[a..] }
    is_read: bool
    is_write: bool
    tag: str                          # ref_0, ref_1, ...: unique in the SCoP
    # False for a may-write: it writes some of `index`'s elements, or none (a write
    # under data-dependent control, or at a subscript the model cannot know). A
    # may-write ends no live range: the dataflow analysis sees values through it.
    must: bool = True
    # Where the relation over-approximates the element (`A[i][B[i]]`, `A[i * i]`:
    # those dimensions cover the array's extent), the C subscript to print for each
    # dimension: the source's expression, with its own references tagged, or None
    # for a dimension the relation gives exactly. None: the whole access is exact.
    subscripts: tuple[c_ast.Node | None, ...] | None = field(default=None, compare=False)

    @property
    def exact(self) -> bool:
        return self.subscripts is None

    def tagged_index(self) -> isl.Map:
        """{ [S[i..] -> ref_k[]] -> A[a..] }: the relation of this reference alone."""
        domain = self.index.domain()
        tag_space = isl.Space.set_alloc(domain.get_ctx(), 0, 0).set_tuple_name(isl.dim_type.set, self.tag)
        tagging = isl.Map.from_domain_and_range(domain, isl.Set.universe(tag_space))
        return tagging.domain_map().apply_range(self.index)


@dataclass(frozen=True)
class Statement:
    """One assignment, with its iteration domain and accesses."""

    name: str                         # S_0, S_1, ... (the isl tuple name)
    domain: isl.Set                   # [params] -> { S_k[i..] : ... }
    iterators: tuple[str, ...]        # C names of the enclosing loop iterators
    accesses: tuple[Access, ...]
    body: Any = field(compare=False)  # pycparser expression node (the assignment)
    line: int = 0
    col: int = 0
    label: str | None = None          # the source's label of the statement (`S1: A[i] = 0;`), if any
    # The functions it calls that only the host can run (declared, summarised by
    # PENCIL's pencil_access: extract/summaries.py); its accesses are their summaries'.
    calls: tuple[str, ...] = ()


@dataclass(frozen=True)
class Kill:
    """Where a local declared in the SCoP starts its life (PPCG's kill statements):
    a read after it never sees a value written before it. Only the dataflow
    analysis sees kills; they run no code."""

    name: str                         # kill_0, kill_1, ... (the isl tuple name)
    array: str
    index: isl.Map                    # { kill_k[i..] -> t[] }
    tag: str                          # its reference tag, as an access's

    def tagged_index(self) -> isl.Map:
        return Access(self.array, self.index, False, True, self.tag).tagged_index()


@dataclass(frozen=True)
class Surroundings:
    """What the C around a SCoP declares, for code placed beside its function (the C
    target's row functions, codegen/row_functions.py)."""

    function_line: int                       # the line of the function's name in its definition
    parameters: tuple[str, ...] | None       # the function's parameters in order (None: K&R or `...`)
    file_scope: frozenset[str]               # the variables the SCoP sees at file scope


@dataclass(frozen=True)
class Scop:
    """A static-control part: statements, arrays, parameters and original schedule."""

    ctx: isl.Context
    file: str
    function: str
    start_line: int                   # line of `#pragma scop` in the original file
    end_line: int                     # line of `#pragma endscop`
    parameters: tuple[str, ...]
    parameter_types: tuple[str, ...]   # C type of each parameter
    context: isl.Set                  # constraints on the parameters
    arrays: tuple[Array, ...]
    scalars_read_only: tuple[tuple[str, str], ...]  # (name, C type) passed by value
    statements: tuple[Statement, ...]
    schedule: isl.Schedule            # the original (textual) execution order
    used_names: frozenset[str]        # every identifier of the function: avoid clashes
    kills: tuple[Kill, ...] = ()
    schedule_with_kills: isl.Schedule | None = None   # the original order, kills included
    struct_variables: tuple[StructVariable, ...] = ()
    struct_types: tuple[StructType, ...] = ()        # innermost first
    # the functions the file only declares that statements call: (name, line, column
    # of the first call, whether declared pure), extract/external.py
    external_calls: tuple[tuple[str, int, int, bool], ...] = ()
    # the statements that fold values into one location (extract/reductions.py)
    reductions: tuple[Any, ...] = ()
    surroundings: Surroundings | None = None
    # What the model assumes of the parameters beyond what the program ensures (a flat
    # array's rows kept whole: `ldb >= m` for `b[i * ldb + j]`, j < m): the output checks
    # it when the SCoP starts and runs the SCoP's original code where it fails
    # (codegen/source.py). The model is exact where it holds, and `context` does not
    # include it (the scheduled code runs nowhere else). None: nothing assumed.
    checked: isl.Set | None = None

    def member(self, name: str) -> Member | None:
        """Where field array `name` lives (None for any other array)."""
        for arr in self.arrays:
            if arr.name == name:
                return arr.member
        return None

    def struct_variable(self, name: str) -> StructVariable | None:
        for var in self.struct_variables:
            if var.array.name == name:
                return var
        return None

    @property
    def dataflow_schedule(self) -> isl.Schedule:
        return self.schedule if self.schedule_with_kills is None else self.schedule_with_kills

    def array(self, name: str) -> Array:
        for arr in self.arrays:
            if arr.name == name:
                return arr
        raise KeyError(name)

    @property
    def value_types(self) -> dict[str, str]:
        """The C type of each value the SCoP only reads, by name: its parameters and its
        read-only scalars (what a function of its code gets by value)."""
        return dict(zip(self.parameters, self.parameter_types)) | dict(self.scalars_read_only)

    @property
    def host_only_statements(self) -> frozenset[str]:
        """The statements a GPU target runs on the host wherever the schedule puts
        them: those that call a function only the host has, and those that reach an
        array before its first element (`Array.before_first`: the device's copy starts
        there)."""
        before = {a.name for a in self.arrays if a.before_first}
        return frozenset(s.name for s in self.statements
                         if s.calls or any(acc.array in before for acc in s.accesses))

    @property
    def domain(self) -> isl.UnionSet:
        result = isl.UnionSet.empty(self.context.get_space())
        for stmt in self.statements:
            result = result.union(isl.UnionSet.from_set(stmt.domain))
        return result

    def access_union(self, *, reads: bool, tagged: bool = False, must: bool | None = None) -> isl.UnionMap:
        """All reads (reads=True) or all writes as one union map; with `tagged`,
        each reference's tagged relation (`{ [S[i] -> ref_k[]] -> A[..] }`); with
        `must` True (False), only the writes that are (are not) must-writes."""
        result = isl.UnionMap.empty(self.context.get_space())
        for stmt in self.statements:
            for acc in stmt.accesses:
                if (acc.is_read if reads else acc.is_write and (must is None or acc.must == must)):
                    relation = acc.tagged_index() if tagged else acc.index
                    result = result.union(isl.UnionMap.from_map(relation))
        return result

    def access(self, tag: str) -> Access:
        for stmt in self.statements:
            for acc in stmt.accesses:
                if acc.tag == tag:
                    return acc
        raise KeyError(tag)


def extent_set(array: Array, context: isl.Set) -> isl.Set:
    """{ A[i..] : 0 <= i_k < extent_k }, the declared elements of an array (where the
    memory stage copies, and what bounds a loop when kernels are sized)."""
    params = [context.get_dim_name(isl.dim_type.param, k) for k in range(context.dim(isl.dim_type.param))]
    space = isl.Space.create_from_names(context.get_ctx(), set=[f"i{k}" for k in range(array.rank)],
                                        params=params)
    result = isl.Set.universe(space).intersect_params(context)
    ls = isl.LocalSpace.from_space(space)
    for k, extent in enumerate(array.extents):
        var = isl.PwAff.var_on_domain(ls, isl.dim_type.set, k)
        bound = extent.add_dims(isl.dim_type.in_, array.rank)
        result = result.intersect(var.ge_set(isl.PwAff.zero_on_domain(ls))).intersect(var.lt_set(bound))
    return result.set_tuple_name(array.name)
