"""Temporary arrays expanded along the loops that reuse them (array privatization).

doitgen's `sum[p]` is written and read back within each iteration `(r, q)`: every
value it carries lives inside one iteration, yet its anti and output dependences
from one iteration to the next keep `r` and `q` serial (42,000 launches of 160
threads). A scalar in that position gets a copy per thread (schedule/private.py). An array
gets a copy per iteration of those loops instead: `sum[p]` becomes `sum_1[r][q][p]`,
a device-only array (`Array.local`) whose leading dimensions are the loops' values,
as an array declared inside the loops is (extract/local_arrays.py). Its dependences
are then those of its values alone, and the loops may run in parallel. The memory
stage still puts a thread's own elements in registers where it can.

An array is expanded over the outermost loops around all of its references when
- the dependences are value-based, every reference exact and every write a
  must-write (its live ranges are then known exactly), none in a call, and no read
  sees a value from before the SCoP;
- every live range starts and ends within one iteration of those loops;
- some element is written in two iterations of a loop that no other dependence
  keeps serial (else nothing is gained: durbin's `z` and adi's `p`, `q`, `v` are
  rewritten in every iteration of a time loop that stays serial anyway, and their
  copies per step would take gigabytes).
A loop whose value the element and the outer loops already fix adds no dimension,
nor does a loop that other dependences keep serial.
When code after the SCoP may read the array, a statement added after the SCoP
copies each element's last value back (`sum[p] = sum_1[nr - 1][nq - 1][p]`).

The expansion is a rewrite of the program that preserves every value read, so the
scheduler needs no special constraint and every schedule it finds is valid.
The price is memory, growing with the loops' extents: -v names each expansion.

The C target (`innermost=True`) expands over the innermost of those loops alone: a
CPU's few threads need no more parallelism than one loop gives, and the copy stays the
size of a few rows of the program's arrays (doitgen's `sum_1[q][p]`, 179 KB at LARGE,
not 27 MB), so it stays in the cache; the outer loops keep their order. Any subset of
the loops would do: the live ranges lie within one iteration of all of them, so within
one of each. Whether the copy pays is the C target's to decide (cpu/sinking.py).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import islpy as isl
from pycparser import c_ast

from ..extract.local_arrays import expanded
from ..extract.model import Access, Array, Reference, Scop, Statement
from ..isl_context import maps_of, statement_names
from ..names import fresh_name
from .dependences import Dependences, of_named
from .parallel import zero_distance


@dataclass(frozen=True)
class Expansion:
    """One array given a copy per iteration of the loops around it."""

    array: str              # the program's array
    copy: str               # the device-only array that replaces it in the SCoP
    loops: int              # the loops it is expanded over (leading dimensions of `copy`)
    copy_back: str | None   # the statement that copies the last values back, if any


def expand_temporaries(scop: Scop, deps: Dependences,
                       innermost: bool = False) -> tuple[Scop, tuple[Expansion, ...]]:
    """The SCoP with each qualifying array expanded (see the module's docstring), over
    all the loops that qualify or, with `innermost`, over the innermost of them."""
    if not deps.value_based:
        return scop, ()
    done: list[Expansion] = []
    taken = _taken_names(scop)
    for array in scop.arrays:
        if array.is_scalar or array.local or array.member is not None or array.hidden:
            continue
        prefix = _qualifying_prefix(scop, deps, array.name, innermost)
        if prefix is None:
            continue
        scop, expansion = _expanded(scop, array, prefix, taken)
        done.append(expansion)
    return scop, tuple(done)


# whether a scalar's web gains by a copy per iteration of a loop around it (the C
# target's model): the SCoP, the web's statements, the loop { S[i] -> [value] }
WebPays = Callable[[Scop, frozenset[str], isl.UnionMap], bool]


def web_candidates(scop: Scop, deps: Dependences, pays: WebPays) -> tuple[tuple[Web, ...], ...]:
    """The webs of scalars (see `scalar_webs`) that may have a copy per iteration of the
    innermost loop around them, in groups of one loop each (a loop moves inside only
    when every scalar it carries has its copies: deriche's `ym1`, `ym2`, `xm1`, ...),
    the groups in which `pays` picks some web."""
    if not deps.value_based:
        return ()
    groups: dict[str, list[Web]] = {}
    picked: set[str] = set()
    for web in scalar_webs(scop, deps):
        found = _web_loop(scop, deps, web)
        if found is None:
            continue
        loops, key = found
        groups.setdefault(key, []).append(web)
        if key not in picked and pays(scop, web.statements, loops.around):
            picked.add(key)
    return tuple(tuple(webs) for key, webs in groups.items() if key in picked)


def expand_webs(scop: Scop, deps: Dependences, webs: tuple[Web, ...]) -> tuple[Scop, tuple[Expansion, ...]]:
    """The SCoP with each of `webs` given a copy per iteration of the innermost loop
    around it (`deps` are the SCoP's)."""
    done: list[Expansion] = []
    taken = _taken_names(scop)
    original = scop
    for web in webs:
        found = _web_loop(original, deps, web)
        if found is not None:
            scop, expansion = _expanded(scop, scop.array(web.scalar), found[0], taken)
            done.append(expansion)
    return scop, tuple(done)


def _taken_names(scop: Scop) -> set[str]:
    """Names a copy, its statement, reference tags and iterators must not reuse."""
    return set(scop.used_names) | {s.name for s in scop.statements} | {k.name for k in scop.kills} \
        | {a.tag for s in scop.statements for a in s.accesses} | {k.tag for k in scop.kills}


@dataclass(frozen=True)
class Web:
    """Statements between which one scalar's values flow, and no others: a variable of
    their own in place of the scalar changes no value that any statement reads."""

    scalar: str
    statements: frozenset[str]


def scalar_webs(scop: Scop, deps: Dependences) -> tuple[Web, ...]:
    """The webs of each scalar whose values the SCoP alone reads (not live after it) and
    whose every reference is exact: the statements joined by its live ranges.

    ludcmp's `w` holds four unrelated sums: `A[i][j]` less a row times a column (below
    the diagonal and from it on), then `b[i]` and `y[i]` less a row times a vector.
    Each of its loop nests may give its own `w` a copy per iteration without the others'."""
    webs: list[Web] = []
    for array in scop.arrays:
        if not array.is_scalar or array.live_after or array.member is not None or array.hidden:
            continue
        accesses = [(s, a) for s in scop.statements for a in s.accesses if a.array == array.name]
        if not accesses or any(not a.exact or (a.is_write and not a.must) or s.calls for s, a in accesses):
            continue
        writes = _union(a.index for _, a in accesses if a.is_write)
        reads = _union(a.index for _, a in accesses if a.is_read)
        if writes is None:
            continue
        joined = {s.name: s.name for s, _ in accesses}
        if reads is not None:
            for pair in maps_of(deps.flow.intersect(writes.apply_range(reads.reverse()))):
                _join(joined, pair.get_tuple_name(isl.dim_type.in_), pair.get_tuple_name(isl.dim_type.out))
        groups: dict[str, set[str]] = {}
        for name in joined:
            groups.setdefault(_root(joined, name), set()).add(name)
        webs += [Web(array.name, frozenset(group)) for group in groups.values()]
    return tuple(webs)


def _root(joined: dict[str, str], name: str) -> str:
    while joined[name] != name:
        name = joined[name]
    return name


def _join(joined: dict[str, str], a: str, b: str) -> None:
    if a in joined and b in joined:
        joined[_root(joined, a)] = _root(joined, b)


def _web_loop(scop: Scop, deps: Dependences, web: Web) -> tuple[_Loops, str] | None:
    """The innermost loop around all of the web's statements along which no live range of
    its values crosses from one iteration to another (None if there is none), as the
    loop to expand over, and a key that names the loop (its band member) among all."""
    users = web.statements
    domains = isl.UnionSet.empty(scop.context.get_space())
    for stmt in scop.statements:
        if stmt.name in users:
            domains = domains.union(isl.UnionSet.from_set(stmt.domain))
    if not of_named(deps.live_in, {web.scalar}).intersect_domain(domains).is_empty():
        return None
    loops = _common_loops(scop.schedule, users)
    mine = [(s, a) for s in scop.statements if s.name in users for a in s.accesses if a.array == web.scalar]
    writes = _union(a.index for _, a in mine if a.is_write)
    reads = _union(a.index for _, a in mine if a.is_read)
    if not loops or writes is None:
        return None
    flow = None if reads is None else \
        deps.flow.intersect_domain(domains).intersect(writes.apply_range(reads.reverse()))
    depth = len(loops) if flow is None else \
        next((k for k, loop in enumerate(loops) if not zero_distance(flow, loop)), len(loops))
    kept = _dimensions(writes, loops[:depth])
    if not kept:
        return None
    loop = loops[kept[-1]].intersect_domain(domains)
    per_statement = {m.get_tuple_name(isl.dim_type.in_): m for m in maps_of(loop)}
    return _Loops(per_statement, loop, (0,)), f"{kept[-1]}:{loops[kept[-1]]}"


@dataclass(frozen=True)
class _Loops:
    """The loops an array is expanded over, per statement that refers to it, and where
    they sit among the loops around all of its references (`around`, outermost first)."""

    kept: dict[str, isl.Map]        # S -> its values of the kept loops
    around: isl.UnionMap            # S[i] -> [values of every loop around the references]
    positions: tuple[int, ...]      # the kept loops' positions in `around`


def _qualifying_prefix(scop: Scop, deps: Dependences, name: str, innermost: bool) -> _Loops | None:
    """Per statement referring to `name`, its values of the loops to expand over
    (those that add a dimension; the innermost of them alone with `innermost`), or None
    when the array does not qualify."""
    accesses = [(s, a) for s in scop.statements for a in s.accesses if a.array == name]
    if not accesses or any(not a.exact or (a.is_write and not a.must) or s.calls for s, a in accesses):
        return None     # a call's argument names the array itself, not an element
    if not of_named(deps.live_in, {name}).is_empty():
        return None
    users = frozenset(s.name for s, _ in accesses)
    loops = _common_loops(scop.schedule, users)
    if not loops:
        return None
    writes = _union(a.index for _, a in accesses if a.is_write)
    reads = _union(a.index for _, a in accesses if a.is_read)
    if writes is None:
        return None
    flow = deps.flow.intersect(writes.apply_range(reads.reverse())) if reads is not None else None
    # the outer loops along which no live range crosses from one iteration to another
    depth = len(loops) if flow is None else \
        next((k for k, loop in enumerate(loops) if not zero_distance(flow, loop)), len(loops))
    if depth == 0:
        return None
    others = _other_dependences(deps, writes, reads)
    kept = [k for k in _dimensions(writes, loops[:depth]) if not _carried(others, loops, k)]
    if not kept:
        return None     # no loop that the copies would make parallel
    kept = kept[-1:] if innermost else kept
    prefix = _prefix([loops[k] for k in kept])
    per_statement = {m.get_tuple_name(isl.dim_type.in_): m for m in maps_of(prefix.intersect_domain(scop.domain))
                     if m.get_tuple_name(isl.dim_type.in_) in users}
    return _Loops(per_statement, _prefix(loops[:depth]).intersect_domain(scop.domain), tuple(kept))


def _common_loops(schedule: isl.Schedule, users: frozenset[str]) -> list[isl.UnionMap]:
    """The loops (band members) of the original order around every statement in
    `users`, outermost first, each as its schedule { S[i] -> [value] }."""
    node, loops = schedule.get_root(), []
    while True:
        kind = node.get_type()
        if kind == isl.schedule_node_type.band:
            partial = node.band_get_partial_schedule()
            loops += [isl.UnionMap.from_union_pw_aff(partial.get_union_pw_aff(k))
                      for k in range(node.band_n_member())]
        elif kind in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
            holding = [k for k in range(node.n_children())
                       if users & statement_names(node.child(k).filter_get_filter())]
            if len(holding) != 1:
                return loops
            node = node.child(holding[0])
        elif kind == isl.schedule_node_type.leaf or not node.has_children():
            return loops
        node = node.child(0)


def _prefix(loops: list[isl.UnionMap]) -> isl.UnionMap:
    """{ S[i] -> [l0, l1, ...] }: the values of `loops` at each instance."""
    result = loops[0]
    for loop in loops[1:]:
        result = result.flat_range_product(loop)
    return result


def _dimensions(writes: isl.UnionMap, loops: list[isl.UnionMap]) -> list[int]:
    """The loops that tell apart writes of one element: a loop whose value the element
    and the loops kept before it fix for every write adds no dimension. Empty when
    no element is written in two iterations."""
    kept: list[int] = []
    for k in range(len(loops)):
        if not _fixed_by(writes, [loops[j] for j in kept], loops[k]):
            kept.append(k)
    return kept


def _other_dependences(deps: Dependences, writes: isl.UnionMap, reads: isl.UnionMap | None) -> isl.UnionMap:
    """The dependences but the array's own anti and output ones (those between two of its
    references to one element; an anti or output pair that also conflicts through
    another array is lost too, which only makes a loop look freer). Scalars' anti and
    output dependences are left out: their live ranges may be reordered and they get
    copies per thread."""
    false = deps.array_false if deps.reordering else deps.false
    accesses = writes if reads is None else writes.union(reads)
    false = false.subtract(writes.apply_range(accesses.reverse())).subtract(accesses.apply_range(writes.reverse()))
    result = deps.flow.union(false)
    return result if deps.forced is None else result.union(deps.forced)


def _carried(dependences: isl.UnionMap, loops: list[isl.UnionMap], k: int) -> bool:
    """Whether loop `k` carries one of `dependences` (between instances with the same
    values of the loops outside it): then it stays serial whatever the copies."""
    if k:
        outer = _prefix(loops[:k])
        dependences = dependences.intersect(outer.apply_range(outer.reverse()))
    return not zero_distance(dependences, loops[k])


def _fixed_by(writes: isl.UnionMap, kept: list[isl.UnionMap], loop: isl.UnionMap) -> bool:
    """Whether, over the writes, the element and the `kept` loops' values fix `loop`'s."""
    key = writes if not kept else writes.range_product(_prefix(kept))
    return key.reverse().apply_range(loop).is_single_valued()


def _expanded(scop: Scop, array: Array, loops: _Loops, taken: set[str]) -> tuple[Scop, Expansion]:
    """`scop` with `array`'s references moved to its expansion, and the copy back."""
    copy = fresh_name(array.name, taken, numbered=True)
    prefix = loops.kept
    statements = [_moved(s, array.name, copy, prefix.get(s.name)) for s in scop.statements]
    copy_back = None
    extra: list[Statement] = []
    if array.live_after:
        copy_back = fresh_name("S", taken, numbered=True)
        extra = [_copy_back(scop, array, copy, copy_back, loops, taken)]
    statements, _, local = expanded(copy, array.element_type, statements + extra, [], scop.context,
                                    array.declared_line)
    still_used = array.live_after or any(a.array == array.name for s in statements for a in s.accesses) \
        or any(k.array == array.name for k in scop.kills)     # a local's kills stay with it
    arrays = tuple(a for a in scop.arrays if a.name != array.name or still_used) + (local,)
    schedule, with_kills = scop.schedule, scop.schedule_with_kills
    if extra:
        after = _schedule_of(extra[0])
        schedule = schedule.sequence(after)
        with_kills = None if with_kills is None else with_kills.sequence(after)
    reductions = tuple(replace(r, array=copy) if r.array == array.name and r.statement in prefix else r
                       for r in scop.reductions)
    result = replace(scop, statements=tuple(statements), arrays=arrays, schedule=schedule,
                     schedule_with_kills=with_kills, reductions=reductions, used_names=scop.used_names | {copy})
    return result, Expansion(array.name, copy, len(loops.positions), copy_back)


def _moved(stmt: Statement, name: str, copy: str, prefix: isl.Map | None) -> Statement:
    if prefix is None:
        return stmt
    accesses = tuple(replace(a, array=copy, index=_prepended(prefix, a.index, copy)) if a.array == name else a
                     for a in stmt.accesses)
    return replace(stmt, accesses=accesses)


def _prepended(prefix: isl.Map, index: isl.Map, copy: str) -> isl.Map:
    """{ S[i] -> copy[l.., e..] } from { S[i] -> [l..] } and { S[i] -> A[e..] }."""
    prefix, index = prefix.align_params(index.get_space()), index.align_params(prefix.get_space())
    return prefix.intersect_domain(index.domain()).flat_range_product(index).set_tuple_name(isl.dim_type.out, copy)


def _copy_back(scop: Scop, array: Array, copy: str, name: str, loops: _Loops, taken: set[str]) -> Statement:
    """`A[e] = copy[last(e), e]` over the elements the SCoP writes: the value that the
    last iteration writing each element left there. Last in the original order: the
    greatest values of all the loops around the references (whose order is the
    execution's), then those of the kept loops; a greatest value of the kept loops
    alone could come from an earlier iteration of a loop left out."""
    writes = _union(a.index for s in scop.statements for a in s.accesses if a.array == array.name and a.is_write)
    last = isl.Map.from_union_map(writes.reverse().apply_range(loops.around)).lexmax()
    for k in reversed(range(last.dim(isl.dim_type.out))):
        if k not in loops.positions:
            last = last.project_out(isl.dim_type.out, k, 1)
    elements = last.domain()
    rank = array.rank
    domain = elements.set_tuple_name(name)
    identity = isl.Map.identity(elements.get_space().map_from_set()).set_tuple_name(isl.dim_type.in_, name)
    write = identity.set_tuple_name(isl.dim_type.out, array.name).intersect_domain(domain)
    read = last.set_tuple_name(isl.dim_type.in_, name).flat_range_product(
        identity.set_tuple_name(isl.dim_type.out, array.name)).set_tuple_name(isl.dim_type.out, copy)
    write_tag, read_tag = fresh_name("ref", taken, numbered=True), fresh_name("ref", taken, numbered=True)
    body = c_ast.Assignment("=", Reference(write_tag), Reference(read_tag))
    iterators = tuple(fresh_name("e", taken, numbered=True) for _ in range(rank))
    accesses = (Access(array.name, write, False, True, write_tag),
                Access(copy, read.intersect_domain(domain), True, False, read_tag))
    first = min((s for s in scop.statements if any(a.array == array.name for a in s.accesses)),
                key=lambda s: (s.line, s.col))
    return Statement(name, domain, iterators, accesses, body, first.line, first.col)


def _schedule_of(stmt: Statement) -> isl.Schedule:
    """The copy back's order: its elements in order, after the rest of the SCoP."""
    domain = isl.UnionSet.from_set(stmt.domain)
    schedule = isl.Schedule.from_domain(domain)
    if stmt.domain.dim(isl.dim_type.set) == 0:
        return schedule
    partial = isl.MultiUnionPwAff.from_union_map(isl.UnionMap.from_map(
        isl.Map.identity(stmt.domain.get_space().map_from_set()).intersect_domain(stmt.domain)
        .reset_tuple_id(isl.dim_type.out)))
    return schedule.insert_partial_schedule(partial)


def _union(maps) -> isl.UnionMap | None:
    result = None
    for m in maps:
        part = isl.UnionMap.from_map(m)
        result = part if result is None else result.union(part)
    return result


def expansion_notes(scop: Scop, expansions: tuple[Expansion, ...],
                    loop: str = "its {loops} outer loop(s)",
                    gain: str = "in device memory lets them run in parallel") -> tuple[str, ...]:
    """-v: each array expanded, within which loop its values live (`loop`, where
    `{loops}` is the count of loops expanded over), what its copy gains, and whether
    its values are copied back."""
    return tuple(f"'{e.array}' (line {scop.array(e.copy).declared_line or scop.start_line}) holds values that "
                 f"live within one iteration of {loop.format(loops=e.loops)}: a copy per iteration, '{e.copy}', "
                 f"{gain}" + (f"; {e.copy_back} copies the last values back" if e.copy_back else "")
                 for e in expansions)
