"""Statements that run on the host: scalar arithmetic no kernel needs to do.

PolyBench's adi and deriche start by computing a dozen scalars from the
parameters (`DX = 1.0 / n; mul1 = B1 * DT / (DX * DX); a = -mul1 / 2;`). As
kernels, each is a launch of one thread, and its value then sits in device
memory. On the host each is one instruction, and kernels get the values as
arguments, as they get read-only scalars.

A statement can run on the host when it touches scalars only (no array element:
the host's arrays are stale while the SCoP runs), and each of those scalars is a
*host scalar*: written by such statements alone, so its current value is always
the host's. The kernel mapper leaves a subtree of host statements outside every
kernel; if the schedule puts one inside a kernel after all, its scalars are
taken out of the set and the mapping is made again.
"""
from __future__ import annotations

from ..extract.model import Scop, Statement


def host_statements(scop: Scop, excluded: frozenset[str] = frozenset()) -> frozenset[str]:
    """The statements that may run on the host, when the scalars in `excluded` may not
    be host scalars."""
    scalars = {a.name for a in scop.arrays if a.is_scalar and not a.local} - excluded
    while True:
        host = frozenset(s.name for s in scop.statements if _touches_only(s, scalars))
        keep = (scalars & written_scalars(scop, host)) - written_scalars(scop, _names(scop) - host)
        if keep == scalars:
            return host
        scalars = keep


def written_scalars(scop: Scop, statements: frozenset[str]) -> frozenset[str]:
    return frozenset(a.array for s in scop.statements if s.name in statements for a in s.accesses if a.is_write)


def _names(scop: Scop) -> frozenset[str]:
    return frozenset(s.name for s in scop.statements)


def _touches_only(statement: Statement, scalars: set[str]) -> bool:
    return bool(statement.accesses) and all(a.array in scalars for a in statement.accesses)
