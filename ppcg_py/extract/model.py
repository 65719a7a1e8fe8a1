"""The polyhedral description of a SCoP: what `extract` hands to `schedule`.

All isl objects of one compilation live in `Scop.ctx`. Statement bodies keep
their pycparser node so that code generation can reprint them with new
subscripts; `Access.ref` is the node (an ArrayRef chain or an ID) to replace.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import islpy as isl


@dataclass(frozen=True)
class Array:
    """An array (or a scalar, with no dimensions) accessed in the SCoP."""

    name: str
    element_type: str                 # C type of one element, typedefs resolved
    extents: tuple[isl.PwAff, ...]    # per dimension, affine in the parameters
    extent_known: tuple[bool, ...]    # False: outermost size inferred from accesses
    is_scalar: bool = False
    declared_line: int | None = None
    # Declared inside the SCoP (extract/locals.py): lives on the device only, so it
    # is never copied in or out -- the host program has no variable of this name.
    local: bool = False

    @property
    def rank(self) -> int:
        return len(self.extents)


@dataclass(frozen=True)
class Access:
    """One reference in a statement: `index` maps statement instances to elements."""

    array: str
    index: isl.Map                    # { S[i..] -> A[a..] }
    is_read: bool
    is_write: bool
    ref: Any = field(compare=False)   # the pycparser node of the reference


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

    def array(self, name: str) -> Array:
        for arr in self.arrays:
            if arr.name == name:
                return arr
        raise KeyError(name)

    @property
    def domain(self) -> isl.UnionSet:
        result = isl.UnionSet.empty(self.context.get_space())
        for stmt in self.statements:
            result = result.union(isl.UnionSet.from_set(stmt.domain))
        return result

    def access_union(self, *, reads: bool) -> isl.UnionMap:
        """All reads (reads=True) or all writes as one union map."""
        result = isl.UnionMap.empty(self.context.get_space())
        for stmt in self.statements:
            for acc in stmt.accesses:
                if (acc.is_read if reads else acc.is_write):
                    result = result.union(isl.UnionMap.from_map(acc.index))
        return result
