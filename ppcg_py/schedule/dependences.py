"""Dependences of a SCoP, computed by isl's dataflow analysis as PPCG does.

With live-range reordering (PPCG's default) the dependences come in three kinds:

- *live ranges* (`flow`): from a write to each read that sees its value;
- *order* dependences: from a read, or a write nobody reads, to every later
  write of the same element. They keep two live ranges of one element apart. The
  scheduler may break them wherever the live ranges next to them stay within one
  iteration of the band it builds (isl's conditional validity constraints):
  then each iteration has its own live range, and only the storage is shared.
  Only scalars get them; arrays keep their anti and output dependences (to the
  next write only), which with the live ranges order the same pairs;
- *forced* dependences: values that enter or leave the SCoP. A read of a value
  from before the SCoP must precede every write of its element, and the write
  whose value survives the SCoP must follow every other write of its element.

Every access is tagged (`[S[i] -> ref_3[]] -> A[i]`), so that a statement that
reads and writes one variable has two ends of live ranges, not one. Kills (a
local's declaration) end the values before them: a read never sees a value from
before its variable's declaration, and a local's last value is not live after
the SCoP.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import islpy as isl

from ..diagnostics import Diagnostics
from ..extract.model import Scop
from ..isl_budget import is_operation_limit, isl_failure, within_operations
from ..isl_context import maps_of
from ..watchdog import ChildDied
from .bounded import isolated
from .parallel import schedule_map


@dataclass(frozen=True)
class Dependences:
    flow: isl.UnionMap        # live ranges: write instance -> read instance
    false: isl.UnionMap       # anti and output dependences (each to the next write only)
    live_in: isl.UnionMap     # reads with no write before them in the SCoP: instance -> element
    forced: isl.UnionMap = None           # values of scalars entering or leaving the SCoP (with reordering)
    tagged_flow: isl.UnionMap = None      # [S[i] -> ref[]] -> [T[j] -> ref'[]]
    tagged_order: isl.UnionMap = None     # order dependences of scalars (with reordering)
    tagged_false: isl.UnionMap = None     # `false` of scalars, tagged
    array_false: isl.UnionMap = None      # `false` of arrays
    live_out: isl.UnionMap = None         # writes whose value may survive the SCoP: instance -> element
    references: tuple[tuple[str, isl.UnionSet], ...] = ()   # array -> its tagged instances
    value_based: bool = True  # False: unordered conflicts (flow), isl's analysis was too costly

    @property
    def reordering(self) -> bool:
        """Whether live ranges may be reordered (the order dependences are conditional)."""
        return self.tagged_order is not None

    @property
    def all(self) -> isl.UnionMap:
        result = self.flow.union(self.false)
        return result if self.forced is None else result.union(self.forced)

    def validity(self, fixed: Iterable[str]) -> isl.UnionMap:
        """What every schedule respects: with reordering, the live ranges, the forced
        dependences, and the anti and output dependences of the variables in `fixed`
        (with the live ranges, they order every pair of accesses that the order
        dependences do); the order dependences of the other scalars are conditional
        (`conditional_validity`)."""
        if not self.reordering:
            return self.all
        return self.flow.union(self.forced).union(self.array_false).union(self.of_arrays(self.tagged_false, fixed))

    def conditional_validity(self, fixed: Iterable[str]) -> isl.UnionMap:
        """The tagged order dependences of the arrays not in `fixed`."""
        result = isl.UnionMap.empty(self.tagged_order.get_space())
        for name, instances in self.references:
            if name not in fixed:
                result = result.union(self.tagged_order.intersect_domain(instances))
        return result

    def coincidence(self, fixed: Iterable[str]) -> isl.UnionMap:
        """What a parallel loop must not cross: all but the order dependences of the
        arrays that may have a copy per thread."""
        return self.validity(fixed)

    def of_arrays(self, tagged: isl.UnionMap, arrays: Iterable[str]) -> isl.UnionMap:
        """The dependences of `tagged` that start at a reference to one of `arrays`,
        between statement instances."""
        keep = dict(self.references)
        result = isl.UnionMap.empty(tagged.get_space())
        for name in arrays:
            if name in keep:
                result = result.union(tagged.intersect_domain(keep[name]))
        return untagged(result)


def compute_dependences(scop: Scop, max_operations: int, diagnostics: Diagnostics,
                        live_range_reordering: bool = True) -> Dependences:
    """Value-based dependences (isl's dataflow analysis), or, when that would take
    too long or fails, memory-based ones: more of them, so less parallelism, never
    wrong. The analysis runs in a forked child (see `bounded`)."""
    analysis = _live_ranges if live_range_reordering else _value_based
    try:
        text = isolated(lambda: _as_text(within_operations(scop.ctx, max_operations, lambda: analysis(scop))))
        exact = _from_text(scop.ctx, text)
        failure = f"needs more than {max_operations} operations (--dataflow-max-operations)"
    except isl.Error as exc:
        if is_operation_limit(exc):     # the step's bound (--isl-max-operations), not this one
            raise
        # isl's own failures, e.g. "affine expression involves some of the domain
        # dimensions" inside compute_flow (fuzz 9:129): the memory-based ones are exact
        exact, failure = None, f"failed ({isl_failure(exc)})"
    except ChildDied as exc:
        exact, failure = None, f"crashed ({exc.how})"
    if exact is not None:
        return exact
    diagnostics.warn(f"isl's dataflow analysis of the SCoP of '{scop.function}' {failure}; using "
                     "memory-based dependences and the original loop order (correct, possibly less parallel)",
                     scop.file, scop.start_line, 1)
    return _memory_based(scop)


_MAPS = ("flow", "false", "live_in", "forced", "tagged_flow", "tagged_order", "tagged_false", "array_false",
         "live_out")


def _as_text(deps: Dependences | None) -> dict | None:
    """The dependences as text, to cross from the child that computed them."""
    if deps is None:
        return None
    maps = {name: None if getattr(deps, name) is None else str(getattr(deps, name)) for name in _MAPS}
    return {"maps": maps, "references": [(name, str(instances)) for name, instances in deps.references],
            "value_based": deps.value_based}


def _from_text(ctx: isl.Context, text: dict | None) -> Dependences | None:
    if text is None:
        return None
    maps = {name: None if value is None else isl.UnionMap.read_from_str(ctx, value)
            for name, value in text["maps"].items()}
    references = tuple((name, isl.UnionSet.read_from_str(ctx, value)) for name, value in text["references"])
    return Dependences(**maps, references=references, value_based=text["value_based"])


def _value_based(scop: Scop) -> Dependences:
    """Live ranges, and anti and output dependences that no schedule may break."""
    reads, writes = scop.access_union(reads=True), _Writes.of(scop, tagged=False)
    flow, false, live_in = _dataflow(reads, writes, kill_accesses(scop, tagged=False), scop.dataflow_schedule)
    return Dependences(flow=flow.intersect_domain(scop.domain).coalesce(), false=false, live_in=live_in)


def _live_ranges(scop: Scop) -> Dependences:
    """PPCG's dependences for live-range reordering (see the module's docstring).

    Only scalars have their live ranges reordered (see schedule/scheduler.py), so only
    their accesses are tagged: tagged dataflow over arrays costs isl up to 50 times
    more on fuzzed programs, and arrays' order and forced dependences, from each
    access to *every* later write, slow its scheduler down (heat-3d: 2 s -> 5 s)."""
    scalars = {a.name for a in scop.arrays if a.is_scalar}
    arrays = {a.name for a in scop.arrays} - scalars
    plain = _dataflow(of_named(scop.access_union(reads=True), arrays),
                      _Writes.of(scop, tagged=False).of_named(arrays), isl.UnionMap.empty(scop.context.get_space()),
                      scop.schedule)
    reads = of_named(scop.access_union(reads=True, tagged=True), scalars)
    scalar_writes = _Writes.of(scop, tagged=True).of_named(scalars)
    writes = scalar_writes.all
    kills = kill_accesses(scop, tagged=True)
    schedule = scop.dataflow_schedule.pullback_union_pw_multi_aff(_tagger(reads.union(writes).union(kills)))
    tagged_flow, tagged_false, tagged_live_in = _dataflow(reads, scalar_writes, kills, schedule)
    tagged_flow = tagged_flow.intersect_domain(writes.domain()).coalesce()     # not from kills
    live_in = tagged_live_in.domain_factor_domain().coalesce()
    live_out = _live_out(scop, scalar_writes, kills, schedule)
    unmatched = writes.subtract_domain(tagged_flow.domain())
    order = (isl.UnionAccessInfo.from_sink(writes).set_may_source(unmatched.union(reads))
             .set_schedule_map(schedule_map(schedule)).compute_flow()).get_may_dependence().coalesce()
    untagged_writes = writes.domain_factor_domain()
    into = (isl.UnionAccessInfo.from_sink(untagged_writes).set_may_source(live_in)
            .set_schedule_map(schedule_map(scop.schedule)).compute_flow()).get_may_dependence()
    out_of = (isl.UnionAccessInfo.from_sink(live_out).set_may_source(untagged_writes)
              .set_schedule_map(schedule_map(scop.schedule)).compute_flow()).get_may_dependence()
    flow, array_false, array_live_in = plain
    return Dependences(flow=flow.union(untagged(tagged_flow)).coalesce(),
                       false=array_false.union(untagged(tagged_false)).coalesce(),
                       live_in=array_live_in.union(live_in).coalesce(),
                       forced=into.union(out_of).coalesce(), tagged_flow=tagged_flow, tagged_order=order,
                       tagged_false=tagged_false, array_false=array_false, live_out=live_out,
                       references=_references(scop))


@dataclass(frozen=True)
class _Writes:
    """A SCoP's writes: those that write every element of their relation (must),
    and those that may write some (under data-dependent control, or at a subscript
    the model over-approximates)."""

    must: isl.UnionMap
    may: isl.UnionMap

    @staticmethod
    def of(scop: Scop, *, tagged: bool) -> _Writes:
        return _Writes(scop.access_union(reads=False, tagged=tagged, must=True),
                       scop.access_union(reads=False, tagged=tagged, must=False))

    def of_named(self, names: set[str]) -> _Writes:
        return _Writes(of_named(self.must, names), of_named(self.may, names))

    @property
    def all(self) -> isl.UnionMap:
        return self.must.union(self.may)


def _dataflow(reads: isl.UnionMap, writes: _Writes, kills: isl.UnionMap,
              schedule: isl.Schedule) -> tuple[isl.UnionMap, isl.UnionMap, isl.UnionMap]:
    """(live ranges, anti and output dependences, reads with no write before them).

    The order goes to isl as the tree: given as a map, the analysis costs isl up to
    ten times more (tests/regressions/schedule_unable_to_carry.c: 63 s against 7 s).
    Over the tree isl crashed on one fuzzed SCoP (13:947,
    tests/regressions/dataflow_over_tree_crashes.c), hence the child process."""
    flow = (isl.UnionAccessInfo.from_sink(reads).set_must_source(writes.must.union(kills))
            .set_may_source(writes.may).set_schedule(schedule).compute_flow())
    false = (isl.UnionAccessInfo.from_sink(writes.all).set_must_source(writes.must)
             .set_may_source(reads.union(writes.may)).set_schedule(schedule).compute_flow())
    return (flow.get_may_dependence(), false.get_may_dependence().coalesce(),
            flow.get_may_no_source().coalesce())


def _live_out(scop: Scop, writes: _Writes, kills: isl.UnionMap, schedule: isl.Schedule) -> isl.UnionMap:
    """Writes of variables read after the SCoP that no later write or kill overwrites
    (a may-write overwrites nothing for sure)."""
    live = writes.of_named({a.name for a in scop.arrays if a.live_after})
    overwritten = (isl.UnionAccessInfo.from_sink(live.must.union(kills)).set_must_source(live.must)
                   .set_may_source(live.may).set_schedule_map(schedule_map(schedule))
                   .compute_flow()).get_may_dependence().domain()
    return live.all.subtract_domain(overwritten).domain_factor_domain().coalesce()


def _memory_based(scop: Scop) -> Dependences:
    """Every pair of accesses to the same element, one of them a write, in either
    order; every read possibly live-in.

    Without the order these are more than the memory-based dependences, but they
    serve the one use they have, finding the loops of the original order along
    which no such pair differs (a pair counts the same in both directions), and
    they skip isl's lexicographic order of the whole SCoP, the costly part."""
    reads = scop.access_union(reads=True)
    writes = scop.access_union(reads=False)
    conflicts = writes.apply_range(reads.union(writes).reverse())
    conflicts = conflicts.union(conflicts.reverse())  # no coalesce: it costs more than it saves
    return Dependences(flow=conflicts, false=isl.UnionMap.empty(conflicts.get_space()),
                       live_in=reads, value_based=False)


def kill_accesses(scop: Scop, *, tagged: bool) -> isl.UnionMap:
    result = isl.UnionMap.empty(scop.context.get_space())
    for kill in scop.kills:
        result = result.union(isl.UnionMap.from_map(kill.tagged_index() if tagged else kill.index))
    return result


def _tagger(tagged: isl.UnionMap) -> isl.UnionPwMultiAff:
    """{ [S[i] -> ref[]] -> S[i] } for every tagged instance of `tagged`."""
    return isl.UnionPwMultiAff.from_union_map(tagged.domain().unwrap().domain_map())


def untagged(tagged: isl.UnionMap) -> isl.UnionMap:
    """[S[i] -> ref[]] -> [T[j] -> ref'[]]  ->  S[i] -> T[j]"""
    return tagged.domain_factor_domain().range_factor_domain().coalesce()


def of_named(relation: isl.UnionMap, names: set[str]) -> isl.UnionMap:
    """The part of `relation` whose range is one of the variables `names`."""
    result = isl.UnionMap.empty(relation.get_space())
    for m in maps_of(relation):
        if m.get_tuple_name(isl.dim_type.out) in names:
            result = result.union(isl.UnionMap.from_map(m))
    return result


def _references(scop: Scop) -> tuple[tuple[str, isl.UnionSet], ...]:
    """Each array with the tagged instances of its references."""
    found: dict[str, isl.UnionSet] = {}
    for stmt in scop.statements:
        for acc in stmt.accesses:
            part = isl.UnionSet.from_set(acc.tagged_index().domain())
            found[acc.array] = part if acc.array not in found else found[acc.array].union(part)
    return tuple(found.items())
